"""An argument is checked once, at the call, before anything is read or written, and refused naming it.

A refusal is a ValueError "{argument} is {value!r}; expected {wanted}": an option takes only its listed values
(``one_of``), a flag is a bool and nothing else (``flag``: ``"yes"`` is no bool), a context is a
tensorstore.Context, a retry policy a ``wa.Retry``, attributes a mapping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import tensorstore as ts

from .retry import Retry

__all__ = ["one_of", "flag", "context_or_none", "retries_or_none", "mapping_or_none"]


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
