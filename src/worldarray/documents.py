"""Documents in, typed values out: the records the placement rules share and the field parsers that name what is wrong.

Every field is parsed once, at the edge; a bad value raises ValueError "{document}: {key} is {found}; expected {wanted}".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from .geometry import default_axes

__all__ = ["Document", "Source", "Facts", "Placement", "Rule", "where", "list_of", "numbers", "ints", "strings",
           "leading", "axes_list", "dtype_name"]


@dataclass(frozen=True)
class Document:
    """One node's user attributes and the URL of the document that held them."""

    path: str
    url: str
    attrs: Mapping[str, Any]


@dataclass(frozen=True)
class Source:
    """The documents one array is placed from: its own, and its ancestors' (parent first, up to four)."""

    format: str
    path: str
    array: Mapping[str, Any]
    array_url: str
    own: Document
    ancestors: tuple[Document, ...] = ()
    scale_index: int | None = None  # precomputed: which entry of array["scales"]

    @property
    def parent(self) -> Document | None:
        return self.ancestors[0] if self.ancestors else None


@dataclass(frozen=True)
class Facts:
    """What the array document says apart from placement."""

    shape: tuple[int, ...]
    dtype: str
    chunk_shape: tuple[int, ...]
    shard_shape: tuple[int, ...] | None
    fill_value: Any
    names: tuple[str, ...] | None  # axis names the array document itself gives


@dataclass(frozen=True)
class Placement:
    """A rule's answer, one entry per axis: voxel size, voxel 0's centre, units, and axis names when it found some."""

    voxel_size: tuple[float, ...]
    translation: tuple[float, ...]
    units: tuple[str, ...]
    axes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Rule:
    """One placement rule: ``find(source, facts, ndim)`` returns a Placement or None."""

    name: str
    find: Callable[..., Placement | None]


def where(doc_url: str, key: str) -> str:
    return f"{doc_url}: {key}"


def list_of(value, url, key, length=None, kind="numbers"):
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise ValueError(f"{where(url, key)} is {value!r}; expected a list of {kind}")
    if length is not None and len(value) != length:
        raise ValueError(f"{where(url, key)} is {list(value)!r} ({len(value)} entries); expected {length} entries, one per axis")
    return list(value)


def numbers(value, url, key, length=None, positive=False) -> tuple[float, ...]:
    """Parse a list of finite numbers (> 0 when ``positive``), naming the document and key on failure."""
    items = list_of(value, url, key, length)
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item):
            raise ValueError(f"{where(url, key)} is {items!r}; expected a list of finite numbers")
        if positive and item <= 0:
            raise ValueError(f"{where(url, key)} is {items!r}; expected sizes > 0")
        out.append(float(item))
    return tuple(out)


def ints(value, url, key, length=None) -> tuple[int, ...]:
    items = list_of(value, url, key, length, kind="whole numbers")
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in items):
        raise ValueError(f"{where(url, key)} is {items!r}; expected a list of whole numbers >= 0")
    return tuple(items)


def strings(value, url, key, length=None) -> tuple[str, ...]:
    items = list_of(value, url, key, length, kind="strings")
    return tuple("" if item is None else str(item) for item in items)


def leading(values: tuple, ndim: int, fill, url: str, key: str) -> tuple:
    """A list shorter than the array covers its trailing axes; the leading ones get ``fill``."""
    if len(values) > ndim:
        raise ValueError(f"{where(url, key)} is {list(values)!r} ({len(values)} entries); expected at most {ndim}, one per axis")
    return (fill,) * (ndim - len(values)) + tuple(values)


def axes_list(values, ndim, url, key) -> tuple[str, ...]:
    names = strings(values, url, key)
    covered = len(names)
    return tuple(default_axes(ndim)[: ndim - covered]) + leading(names, ndim, "", url, key)[ndim - covered :]


def dtype_name(value, url, key) -> str:
    try:
        spec = [tuple(v) for v in value] if isinstance(value, list) else value
        return np.dtype(spec).name
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where(url, key)} is {value!r}; expected a data type numpy knows") from error
