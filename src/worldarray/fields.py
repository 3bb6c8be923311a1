"""A document's field is parsed once, at the edge, into a typed value, or refused naming the document, key and value.

A bad value raises ValueError "{document}: {key} is {found}; expected {wanted}": a field of the wrong type (a
number where a list belongs, a bool where an object belongs, a string where a number belongs) and a document nested
deeper than ``MAX_DEPTH`` (``document``) alike. Each kind of field has one reader: ``mapping``, ``entries``,
``whole``, ``text``, ``numbers``, ``ints``, ``strings`` and ``names_or_none``. Besides the readers, this module holds
the records that carry a node's documents to the placement rules (``Document``, ``Source``) and what a rule finds
(``Facts``, ``Placement``), the one signature every placement rule has (``PlacementRule``), and the one test of a
value a dtype holds exactly (a padding, a scalar write, a fill value) with the JSON spelling of fill values.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .geometry import corner_to_centre, default_axes, spatial_indices

__all__ = ["Document", "Source", "Facts", "Placement", "PlacementRule", "MAX_DEPTH", "document", "where", "list_of",
           "entries", "mapping", "whole", "text", "numbers", "ints", "strings", "names_or_none", "leading", "axes_list",
           "centred", "native_dtype", "holds_exactly", "exact_value", "stored_fill", "json_fill"]


@dataclass(frozen=True)
class Document:
    """One node's user attributes and the URL of the document that held them."""

    path: str
    url: str
    attrs: Mapping[str, Any]


@dataclass(frozen=True)
class Source:
    """The documents one array is placed from: its own, its ancestors' (parent first, up to four), and those of the
    arrays beside it that its attributes name, by name (``related``: a CF grid-mapping variable)."""

    format: str
    path: str
    array: Mapping[str, Any]
    array_url: str
    own: Document
    ancestors: tuple[Document, ...] = ()
    scale_index: int | None = None  # precomputed: which entry of array["scales"]
    first_level: Document | None = None  # N5: s0's document, beside a level its group's factor list places (A12)
    related: Mapping[str, Document] = field(default_factory=dict)

    @property
    def parent(self) -> Document | None:
        return self.ancestors[0] if self.ancestors else None


@dataclass(frozen=True)
class Facts:
    """What the array document says apart from placement."""

    shape: tuple[int, ...]
    dtype: np.dtype
    chunk_shape: tuple[int, ...]
    shard_shape: tuple[int, ...] | None
    fill_value: Any
    names: tuple[str, ...] | None  # axis names the array document itself gives


@dataclass(frozen=True)
class Placement:
    """A rule's answer, one entry per axis: voxel size, voxel 0's centre, units, and axis names when it found some;
    ``spatial``, the indices of the spatial axes when the rule names them (None: the axis names tell); ``crs``, the
    coordinate reference system as the placing document stores it, when the rule read one."""

    voxel_size: tuple[float, ...]
    translation: tuple[float, ...]
    units: tuple[str, ...]
    axes: tuple[str, ...] | None = None
    spatial: tuple[int, ...] | None = None
    crs: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def spatial_indices(self) -> tuple[int, ...]:
        """The spatial axes: those the rule named, else the ones the axis names tell."""
        if self.spatial is not None:
            return self.spatial
        return spatial_indices(self.axes or default_axes(len(self.voxel_size)))


class PlacementRule(Protocol):
    """A placement convention's rule: the array's documents, what its array document says, its number of axes and
    what a voxel-size conflict does (``"error"`` raises, ``"warn"`` warns) in; where the array sits out, or None when
    the convention's keys are not there. Every rule is pure and has exactly this signature."""

    def __call__(self, source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None: ...


def where(doc_url: str, key: str) -> str:
    return f"{doc_url}: {key}"


def _shown(value: Any) -> str:
    """A found value for a message, cut short: a document's field may be large."""
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


# ---------------------------------------------------------------- whole documents

#: How deeply a document may nest lists and objects. Real documents nest about a dozen levels (a zarr v3
#: consolidated listing of OME attributes); the walks over a document recurse once per level, so a deeper one is
#: refused at the edge.
MAX_DEPTH = 100


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')  # a JSON string, escapes and all
_NOT_MARKS = bytes(sorted(set(range(256)) - set(b'"[]{}')))  # deleted before the brackets are counted
_ONE_BRACKET = bytes.maketrans(b"{}", b"[]")  # in valid JSON an object nests as a list does


def _deeper_than_allowed(raw: bytes) -> bool:
    """Whether the valid JSON text ``raw`` nests lists and objects more than ``MAX_DEPTH`` deep: its brackets outside
    strings, cut down pass by pass (a pass removes every innermost pair, one level of depth).

    The text is cut down to its quotes and brackets (its strings cut out whole first when it has escapes). Each
    string is then a pair of adjacent quotes, unless it holds a bracket: a quote is left over then, and every
    other piece between quotes is outside the strings. A text with no more brackets than ``MAX_DEPTH`` cannot be
    deeper."""
    text = _STRING.sub(b"", raw) if b"\\" in raw else raw
    marks = text.translate(_ONE_BRACKET, _NOT_MARKS)
    if marks.count(b"[") <= MAX_DEPTH:
        return False
    nest = marks.replace(b'""', b"")
    if b'"' in nest:  # a string holds a bracket
        nest = b"".join(marks.split(b'"')[::2])
    for _ in range(MAX_DEPTH):
        if not nest:
            return False
        nest = nest.replace(b"[]", b"")
    return bool(nest)


def _too_deep(url: str) -> ValueError:
    return ValueError(f"{url}: nesting is more than {MAX_DEPTH} levels deep; expected at most {MAX_DEPTH} levels of "
                      "lists and objects")


def document(raw: bytes, url: str) -> dict:
    """The JSON object ``raw`` holds; ValueError naming ``url`` when it is not valid JSON, nests more than
    ``MAX_DEPTH`` levels deep or is no object.

    ``json.loads`` recurses once per level itself: a document too deep for it (a RecursionError) is refused with
    the same message as one it parses that is deeper than ``MAX_DEPTH``.

    >>> document(b'{"zarr_format": 2}', "a/.zgroup")
    {'zarr_format': 2}
    >>> document(b"[" * 101 + b"]" * 101, "a/.zattrs")
    Traceback (most recent call last):
    ...
    ValueError: a/.zattrs: nesting is more than 100 levels deep; expected at most 100 levels of lists and objects
    """
    try:
        value = json.loads(raw)
    except RecursionError:
        raise _too_deep(url) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{url}: not valid JSON ({error}); expected a JSON object") from error
    if _deeper_than_allowed(raw):
        raise _too_deep(url)
    if not isinstance(value, dict):
        raise ValueError(f"{url}: holds a JSON {type(value).__name__} {value!r:.60}; expected a JSON object")
    return value


# ---------------------------------------------------------------- fields


def mapping(value: Any, url: str, key: str, *, required: bool = False) -> Mapping[str, Any]:
    """An object field; a missing one (None) is an empty object unless ``required``.

    >>> mapping(None, "a/zarr.json", "chunk_grid")
    {}
    >>> mapping(True, "a/zarr.json", "chunk_grid")
    Traceback (most recent call last):
    ...
    ValueError: a/zarr.json: chunk_grid is True; expected an object
    """
    if value is None and not required:
        return {}
    if value.__class__ is not dict and not isinstance(value, Mapping):  # a parsed document's objects are dicts
        raise ValueError(f"{where(url, key)} is {_shown(value)}; expected an object")
    return value


def entries(value: Any, url: str, key: str, kind: str = "entries") -> list:
    """A list field whose entries are read by the caller; a missing one (None) is an empty list.

    >>> entries(5, "a/.zattrs", "multiscales[0].datasets", kind="dataset objects")
    Traceback (most recent call last):
    ...
    ValueError: a/.zattrs: multiscales[0].datasets is 5; expected a list of dataset objects
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where(url, key)} is {_shown(value)}; expected a list of {kind}")
    return value


def whole(value: Any, url: str, key: str, minimum: int = 0) -> int:
    """A whole-number field, at least ``minimum``.

    >>> whole("3", "a/info", "num_channels", minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: a/info: num_channels is '3'; expected a whole number >= 1
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where(url, key)} is {_shown(value)}; expected a whole number >= {minimum}")
    return value


def text(value: Any, url: str, key: str) -> str:
    """A string field.

    >>> text(None, "a/info", "scales[0].key")
    Traceback (most recent call last):
    ...
    ValueError: a/info: scales[0].key is None; expected a string
    """
    if not isinstance(value, str):
        raise ValueError(f"{where(url, key)} is {_shown(value)}; expected a string")
    return value


def list_of(value, url, key, length=None, kind="numbers"):
    if value.__class__ is not list and (isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__")):
        raise ValueError(f"{where(url, key)} is {_shown(value)}; expected a list of {kind}")
    if length is not None and len(value) != length:
        raise ValueError(f"{where(url, key)} is {list(value)!r} ({len(value)} entries); expected {length} entries, "
                         "one per axis")
    return list(value)


def _finite(item: Any) -> bool:
    """A JSON number that a float holds, not inf or NaN: a whole number too large for one is not."""
    if item.__class__ is float:  # the usual item, at once
        return math.isfinite(item)
    if isinstance(item, bool) or not isinstance(item, (int, float)):
        return False
    try:
        return math.isfinite(item)
    except OverflowError:
        return False


def numbers(value, url, key, length=None, positive=False) -> tuple[float, ...]:
    """Parse a list of finite numbers (> 0 when ``positive``), naming the document and key on failure."""
    items = list_of(value, url, key, length)
    out = []
    for item in items:
        if not _finite(item):
            raise ValueError(f"{where(url, key)} is {items!r}; expected a list of finite numbers")
        if positive and item <= 0:
            raise ValueError(f"{where(url, key)} is {items!r}; expected sizes > 0")
        out.append(float(item))
    return tuple(out)


def ints(value, url, key, length=None) -> tuple[int, ...]:
    items = list_of(value, url, key, length, kind="whole numbers")
    for i in items:
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise ValueError(f"{where(url, key)} is {items!r}; expected a list of whole numbers >= 0")
    return tuple(items)


def strings(value, url, key, length=None) -> tuple[str, ...]:
    """Parse a list of strings, a null entry read as ""."""
    items = list_of(value, url, key, length, kind="strings")
    out = []
    for item in items:
        if item is not None and not isinstance(item, str):
            raise ValueError(f"{where(url, key)} is {_shown(items)}; expected a list of strings")
        out.append("" if item is None else item)
    return tuple(out)


def names_or_none(value, url, key, length=None) -> tuple[str, ...] | None:
    """An optional list of names (zarr v3's ``dimension_names``): None when missing or when any name is null, else
    the names; a value that is no list of strings and nulls raises.

    >>> names_or_none(["z", None], "a/zarr.json", "dimension_names") is None
    True
    """
    if value is None:
        return None
    items = list_of(value, url, key, length, kind="strings or nulls")
    named = strings(items, url, key)
    return None if None in items else named


def leading(values: tuple, ndim: int, fill, url: str, key: str) -> tuple:
    """A list shorter than the array covers its trailing axes; the leading ones get ``fill``."""
    if len(values) > ndim:
        raise ValueError(f"{where(url, key)} is {list(values)!r} ({len(values)} entries); expected at most {ndim}, "
                         "one per axis")
    return (fill,) * (ndim - len(values)) + tuple(values)


def axes_list(values, ndim, url, key) -> tuple[str, ...]:
    names = strings(values, url, key)
    covered = len(names)
    return tuple(default_axes(ndim)[: ndim - covered]) + leading(names, ndim, "", url, key)[ndim - covered :]


def centred(corner, voxel_size, axes, covered: int) -> tuple[float, ...]:
    """Voxel 0's centre from a stored corner on the spatial axes a list covered (the trailing ``covered``); the
    leading axes a short list left out keep the corner as it is.

    >>> centred((0.0, 0.0, 0.0), (1.0, 4.0, 4.0), ("c", "y", "x"), 2)
    (0.0, 2.0, 2.0)
    """
    ndim = len(corner)
    centre = corner_to_centre(corner, voxel_size, axes)
    return tuple(centre[i] if i >= ndim - covered else float(corner[i]) for i in range(ndim))


def native_dtype(value: Any, label: str) -> np.dtype:
    """``value`` as a numpy dtype in native byte order, the order a read returns, so a numeric dtype equals its name;
    ValueError naming ``label`` and the value when numpy knows no such type.

    A list is zarr v2's structured type, its fields spelled as JSON lists.

    >>> native_dtype(">u2", "dtype"), native_dtype(np.uint8, "dtype")
    (dtype('uint16'), dtype('uint8'))
    >>> native_dtype(",", "dtype")
    Traceback (most recent call last):
    ...
    ValueError: dtype is ','; expected a data type numpy knows
    """
    if value is None:  # np.dtype(None) is float64: a missing type must not pass for one
        raise ValueError(f"{label} is None; expected a data type numpy knows")
    try:
        spec = [tuple(v) for v in value] if isinstance(value, list) else value
        return np.dtype(spec).newbyteorder("=")
    except (TypeError, ValueError, SyntaxError) as error:  # numpy parses a string with a comma as Python
        raise ValueError(f"{label} is {value!r}; expected a data type numpy knows") from error


# ---------------------------------------------------------------- values a dtype holds


def holds_exactly(value: Any, dtype: np.dtype) -> bool:
    """True when ``value`` survives a cast to ``dtype`` and back unchanged (NaN into a float dtype counts).

    >>> holds_exactly(0, np.dtype("uint8")), holds_exactly(300, np.dtype("uint8")), holds_exactly(0.5, np.dtype("int8"))
    (True, False, False)
    """
    if value.__class__ is int and dtype.kind in "iuf" and value in _exact_ints(dtype):
        return True
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            back = np.asarray(value).astype(dtype).item()  # a Python scalar, compared at full precision
    except (TypeError, ValueError, OverflowError):
        return False
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        return isinstance(back, float) and math.isnan(back)
    try:
        return bool(back == value) and (dtype.kind != "b" or value in (0, 1, True, False))
    except (TypeError, ValueError):
        return False


@functools.lru_cache(maxsize=64)
def _exact_ints(dtype: np.dtype) -> range:
    """The whole numbers every value of which ``dtype`` holds exactly: its range for an integer dtype, up to the
    mantissa's reach for a float dtype."""
    if dtype.kind == "f":
        reach = 2 ** (np.finfo(dtype).nmant + 1)
        return range(-reach, reach + 1)
    bounds = np.iinfo(dtype)
    return range(int(bounds.min), int(bounds.max) + 1)


def exact_value(label: str, value: Any, dtype: np.dtype) -> Any:
    """``value`` when it is one number ``dtype`` holds exactly; else ValueError naming ``label``, value and dtype."""
    if value.__class__ in (int, float) and holds_exactly(value, dtype):  # the usual argument: a plain number
        return value
    if isinstance(value, (str, bytes)) or np.ndim(value) != 0 or not holds_exactly(value, dtype):
        raise ValueError(f"{label} is {value!r}, which dtype {dtype} cannot hold exactly")
    return value


_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def stored_fill(value: Any) -> Any:
    """A fill value as a number: the JSON spellings "NaN", "Infinity" and "-Infinity" decoded."""
    return _NON_FINITE.get(value, value) if isinstance(value, str) else value


def json_fill(value: Any, dtype: np.dtype) -> Any:
    """The fill value as the zarr formats' JSON spells it for ``dtype``: a boolean for bool, strings for non-finite
    floats, a [real, imaginary] pair for complex.

    >>> json_fill(float("nan"), np.dtype("float32")), json_fill(1, np.dtype("bool"))
    ('NaN', True)
    """
    item = np.asarray(value).astype(dtype).item()
    if isinstance(item, complex):
        return [json_fill(item.real, np.dtype(np.float64)), json_fill(item.imag, np.dtype(np.float64))]
    if isinstance(item, float) and not math.isfinite(item):
        return "NaN" if math.isnan(item) else "Infinity" if item > 0 else "-Infinity"
    return item
