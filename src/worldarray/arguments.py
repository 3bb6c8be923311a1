"""An argument is checked once, at the call, before anything is read or written, and refused naming it.

A refusal is a ValueError "{argument} is {value!r}; expected {wanted}": an option takes only its listed values
(``one_of``), a flag is a bool and nothing else (``flag``: ``"yes"`` is no bool), a context is a
tensorstore.Context, a retry policy a ``wa.Retry``, attributes a mapping, voxel index bounds whole numbers
(``index_bounds``: ``8.0`` is 8, ``0.9`` is refused, nothing is truncated).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
import tensorstore as ts

from .retry import Retry

__all__ = ["one_of", "flag", "context_or_none", "retries_or_none", "mapping_or_none", "index_bounds"]


def one_of(name: str, value: Any, allowed: Sequence[Any]) -> None:
    """ValueError naming ``name`` unless ``value`` is one of ``allowed`` (a bool is never 0 or 1 here)."""
    if isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed) or value not in allowed:
        raise ValueError(f"{name} is {value!r}; expected one of {tuple(allowed)}")


def flag(name: str, value: Any) -> bool:
    """``value`` when it is True or False; ValueError naming ``name`` for anything else (a string, a number).

    >>> flag("partial", False)
    False
    """
    if not isinstance(value, bool):
        raise ValueError(f"{name} is {value!r}; expected True or False")
    return value


def context_or_none(value: Any) -> ts.Context | None:
    """A tensorstore.Context or None; ValueError naming ``context`` for anything else."""
    if value is not None and not isinstance(value, ts.Context):
        raise ValueError(f"context is {value!r}; expected a tensorstore.Context (wa.shared_context(), "
                         "wa.capped_context()) or None")
    return value


def retries_or_none(value: Any) -> Retry | None:
    """A ``wa.Retry`` or None; ValueError naming ``retries`` for anything else (a number of attempts, say)."""
    if value is not None and not isinstance(value, Retry):
        raise ValueError(f"retries is {value!r}; expected a wa.Retry (such as wa.Retry(max_attempts=3)) or None")
    return value


def mapping_or_none(name: str, value: Any) -> Mapping[str, Any] | None:
    """A mapping with string keys, or None; ValueError naming ``name`` for anything else."""
    if value is not None and not (isinstance(value, Mapping) and all(isinstance(k, str) for k in value)):
        raise ValueError(f"{name} is {value!r}; expected a dict with string keys, or None")
    return value


def index_bounds(label: str, values: Any, ndim: int | None = None) -> tuple[int, ...]:
    """Voxel index bounds as ints: Python or numpy integers, or floats that are exactly whole (``8.0``); never
    truncated or rounded. ValueError for a float that is not whole, NaN or inf (or a wrong number of entries),
    TypeError for a string, None or anything else that is no number, each naming ``label`` and the value.

    >>> index_bounds("begin", (0, 8.0, np.int64(3)))
    (0, 8, 3)
    """
    if type(values) is tuple and all(type(v) is int for v in values):  # the usual argument: nothing to convert
        found: tuple[int, ...] = values
    else:
        if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
            raise TypeError(f"{label} is {values!r}; expected whole numbers, one per axis")
        found = tuple(_whole_bound(label, values, v) for v in values)
    if ndim is not None and len(found) != ndim:
        raise ValueError(f"{label} is {tuple(values)!r} ({len(found)} entries); expected {ndim} entries, one per axis")
    return found


def _whole_bound(label: str, values: Any, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.integer, np.floating)):
        raise TypeError(f"{label} is {tuple(values)!r}: {value!r} is a {type(value).__name__}; expected whole numbers")
    if isinstance(value, (int, np.integer)):
        return int(value)
    number = float(value)
    if not math.isfinite(number) or not number.is_integer():
        raise ValueError(f"{label} is {tuple(values)!r}: {value!r} is not a whole number; index bounds are whole "
                         "numbers (8.0 is one), never truncated")
    return int(number)
