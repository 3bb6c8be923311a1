"""A chunk key names one stored write unit's position on its grid, spelt as its format spells it.

zarr v2 joins the indices with its dimension separator ("0.1.2"), zarr v3's default encoding
writes "c/0/1/2" and its v2 encoding "0.1.2", N5 writes them x first ("2/1/0"), and an unsharded
precomputed scale names voxel ranges ("0-64_0-64_0-32", x first, voxel_offset included, the last
range clipped to the scale's size). A sharded zarr v3 array keys its shards, with the same spelling.

Every argument here is in C order, as everywhere in the package: an index, a chunk shape, a shape
and a precomputed origin (the scale's voxel_offset) run (z, y, x), or (c, z, y, x) for a
precomputed scale with several channels; only the keys themselves are spelt x first where the
format says so. One parser, ``parse_chunk_key``, serves ``list_chunk_keys`` and ``chunk_indices``
(``WorldArray.list_chunks``): it accepts a key only when ``chunk_key`` spells its index back to
exactly that key.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import store
from .fields import ints, list_of

__all__ = ["chunk_key", "parse_chunk_key", "key_format", "list_chunk_keys", "chunk_indices", "GzippedChunks",
           "gzipped_chunks", "hashed_shards"]

#: The suffix cloud-volume gives a chunk it wrote gzip-compressed to a local disk; no reader of the format reads it.
GZIP_SUFFIX = ".gz"

_DIGITS = re.compile(r"[0-9]+")
_RANGE = re.compile(r"(-?[0-9]+)-(-?[0-9]+)")
_ENCODINGS = ("default", "v2")


@dataclass(frozen=True)
class _Facts:
    """The checked arguments ``chunk_key`` and ``parse_chunk_key`` share; ``ndim`` is None when nothing gives it."""

    separator: str | None
    encoding: str
    chunk_shape: tuple[int, ...] | None
    shape: tuple[int, ...] | None
    origin: tuple[int, ...] | None
    ndim: int | None

    @property
    def joined_by(self) -> str:
        """The separator of a format whose keys have one (precomputed's voxel ranges have none)."""
        if self.separator is None:
            raise ValueError("precomputed keys are voxel ranges, joined by no separator")
        return self.separator


def _whole_numbers(values, name: str, low: int | None) -> tuple[int, ...] | None:
    if values is None:
        return None
    try:
        numbers = tuple(operator.index(v) for v in values)
    except TypeError:
        raise ValueError(f"{name} is {values!r}; expected a sequence of whole numbers") from None
    if low is not None and any(n < low for n in numbers):
        raise ValueError(f"{name} is {list(numbers)!r}; expected whole numbers >= {low}")
    return numbers


def _split(key: str, separator: str) -> tuple[int, ...] | None:
    parts = key.split(separator)
    if not all(_DIGITS.fullmatch(part) for part in parts):
        return None
    return tuple(int(part) for part in parts)


def _join(index: tuple[int, ...], separator: str, facts: _Facts) -> str:
    # a 0-d array's one chunk is "0"; an empty index into an array with axes is the empty prefix
    if not index and facts.ndim in (None, 0):
        return "0"
    return separator.join(str(i) for i in index)


def _split_whole(key: str, separator: str, facts: _Facts) -> tuple[int, ...] | None:
    return () if facts.ndim == 0 and key == "0" else _split(key, separator)


# ---------------------------------------------------------------- one spelling per format


class _Spelling:
    """How one format spells keys: its separators, its key, its parse, and its facts from the documents."""

    name = ""
    separators: tuple[str | None, ...] = (".", "/")

    def default_separator(self, encoding: str) -> str | None:
        return "."

    def key(self, index: tuple[int, ...], facts: _Facts) -> str:
        return _join(index, facts.joined_by, facts)

    def split(self, key: str, facts: _Facts) -> tuple[int, ...] | None:
        return _split_whole(key, facts.joined_by, facts)

    def documents(self, docs: Mapping[str, Any], scale_key: str | None) -> dict:
        raise NotImplementedError

    #: Whether a listing of keys may hold gzip-compressed chunks under a ``.gz`` suffix (cloud-volume's).
    gzipped_keys = False

    def keys_below(self, directory: str, scale_key: str | None) -> str:
        """Where the array's chunk keys are listed: the array's directory (a precomputed scale's own directory)."""
        return directory

    def hashed(self, docs: Mapping[str, Any], scale_key: str | None) -> bool:
        """Whether the array's shards are hashed sets of chunks, not boxes (a sharded precomputed scale)."""
        return False


class _Zarr2(_Spelling):
    name = "zarr2"

    def documents(self, docs, scale_key):
        doc = _document(docs, ".zarray")
        return _format_dict(doc.get("dimension_separator") or ".", "default",
                            ints(doc.get("chunks"), ".zarray", "chunks"), ints(doc.get("shape"), ".zarray", "shape"))


class _Zarr3(_Spelling):
    name = "zarr3"
    separators = ("/", ".")

    def default_separator(self, encoding):
        return "/" if encoding == "default" else "."

    def key(self, index, facts):
        if facts.encoding == "v2":
            return _join(index, facts.separator, facts)
        return facts.separator.join(["c", *(str(i) for i in index)])

    def split(self, key, facts):
        if facts.encoding == "v2":
            return _split_whole(key, facts.separator, facts)
        if key == "c":
            return ()
        head = "c" + facts.separator
        return _split(key[len(head):], facts.separator) if key.startswith(head) else None

    def documents(self, docs, scale_key):
        doc = _document(docs, "zarr.json")
        encoding = doc.get("chunk_key_encoding") or {"name": "default"}
        name = encoding.get("name", "default")
        separator = (encoding.get("configuration") or {}).get("separator", self.default_separator(name))
        grid = (doc.get("chunk_grid") or {}).get("configuration") or {}
        # chunk_grid is the outer grid: for a sharding_indexed array its chunk_shape is the shard shape, so the
        # keys, and this chunk_shape, are on the shard grid
        chunk_shape = ints(grid.get("chunk_shape"), "zarr.json", "chunk_grid.configuration.chunk_shape")
        return _format_dict(separator, name, chunk_shape, ints(doc.get("shape"), "zarr.json", "shape"))


class _N5(_Spelling):
    name = "n5"
    separators = ("/",)

    def default_separator(self, encoding):
        return "/"

    def key(self, index, facts):
        if facts.ndim is not None and len(index) < facts.ndim:
            raise ValueError(f"n5 keys start with the last axis (x), so the partial index {list(index)!r} of a "
                             f"{facts.ndim}-d array has no key prefix; give every axis")
        return _join(index[::-1], "/", facts)

    def split(self, key, facts):
        index = _split_whole(key, "/", facts)
        return None if index is None else index[::-1]

    def documents(self, docs, scale_key):
        doc = _document(docs, "attributes.json")
        return _format_dict("/", "default", ints(doc.get("blockSize"), "attributes.json", "blockSize")[::-1],
                            ints(doc.get("dimensions"), "attributes.json", "dimensions")[::-1])


class _Precomputed(_Spelling):
    name = "precomputed"
    separators = (None,)

    def default_separator(self, encoding):
        return None

    def key(self, index, facts):
        chunk_shape, shape, origin = _precomputed_facts(facts)
        if len(index) != len(shape):
            raise ValueError(f"precomputed keys name every axis; index {list(index)!r} has {len(index)} "
                             f"entries, the scale {len(shape)}")
        if len(index) == 4 and index[0] != 0:
            raise ValueError(f"index {list(index)!r}: a precomputed chunk holds every channel, so the channel index "
                             "is 0")
        ranges = []
        for i, c, n, first in list(zip(index, chunk_shape, shape, origin, strict=True))[::-1][:3]:
            begin = first + i * c
            ranges.append(f"{begin}-{min(begin + c, first + n)}")
        return "_".join(ranges)

    def split(self, key, facts):
        chunk_shape, shape, origin = _precomputed_facts(facts)
        matches = [_RANGE.fullmatch(text) for text in key.split("_")]
        if len(matches) != 3 or not all(matches):
            return None
        index = []
        # x, y, z: the three ranges name the spatial axes, whatever channel axis comes first in C order
        for match, c, first in zip(matches, chunk_shape[::-1], origin[::-1], strict=False):
            steps, rest = divmod(int(match.group(1)) - first, c)
            if steps < 0 or rest:
                return None
            index.append(steps)
        return (0,) * (len(shape) - 3) + tuple(index[::-1])

    gzipped_keys = True

    def keys_below(self, directory, scale_key):
        return store.join(directory, scale_key) if scale_key is not None else directory

    def hashed(self, docs, scale_key):
        scales = docs.get("info", {}).get("scales") or []
        return any(isinstance(s, Mapping) and s.get("key") == scale_key and bool(s.get("sharding")) for s in scales)

    def documents(self, docs, scale_key):
        info = _document(docs, "info")
        scale, where = _precomputed_scale(info, scale_key)
        channels = int(info.get("num_channels", 1))
        lead = (channels,) if channels != 1 else ()
        offset = list_of(scale.get("voxel_offset", [0, 0, 0]), "info", f"{where}.voxel_offset", 3)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in offset):
            raise ValueError(f"info: {where}.voxel_offset is {offset!r}; expected a list of whole numbers")
        chunks = ints((scale.get("chunk_sizes") or [None])[0], "info", f"{where}.chunk_sizes[0]", 3)
        size = ints(scale.get("size"), "info", f"{where}.size", 3)
        # info lists x first; the arguments are C order, and the channel axis is one chunk starting at 0
        return _format_dict(None, "default", lead + chunks[::-1], lead + size[::-1],
                            (0,) * len(lead) + tuple(offset[::-1]))


def _precomputed_scale(info: Mapping[str, Any], scale_key: str | None) -> tuple[Mapping[str, Any], str]:
    """The scale ``scale_key`` names (the first when None) and where it sits in the info; refused when sharded."""
    scales = list_of(info.get("scales"), "info", "scales", kind="scale objects")
    keys = [s.get("key") if isinstance(s, Mapping) else None for s in scales]
    if scale_key is not None and scale_key not in keys:
        raise ValueError(f"info has no scale {scale_key!r}; its scales are {', '.join(map(str, keys))}")
    position = 0 if scale_key is None else keys.index(scale_key)
    if not scales or not isinstance(scales[position], Mapping):
        raise ValueError(f"info: scales is {scales!r}; expected a list of scale objects")
    scale = scales[position]
    if scale.get("sharding"):
        raise ValueError(f"info: scale {scale.get('key')!r} is sharded; its chunks live inside shard files, "
                         "which have no per-chunk keys")
    return scale, f"scales[{position}]"


def hashed_shards(format: str, docs: Mapping[str, Any], scale_key: str | None) -> bool:
    """Whether the array is a sharded precomputed scale: its shards are hashed sets of chunks, not boxes."""
    return _spelling(format).hashed(docs, scale_key)


_SPELLINGS: dict[str, _Spelling] = {s.name: s for s in (_Zarr2(), _Zarr3(), _N5(), _Precomputed())}


def _precomputed_facts(facts: _Facts) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    chunk_shape, shape = facts.chunk_shape, facts.shape
    if chunk_shape is None or shape is None:
        missing = [name for name, value in (("chunk_shape", chunk_shape), ("shape", shape)) if value is None]
        raise ValueError(f"precomputed keys are voxel ranges, so they need {' and '.join(missing)} (C order, z y x)")
    if len(shape) not in (3, 4):
        raise ValueError(f"shape is {list(shape)!r}; a precomputed scale has 3 axes (z, y, x) or 4 (c, z, y, x)")
    origin = facts.origin if facts.origin is not None else (0,) * len(shape)
    if len(origin) not in (3, len(shape)):
        raise ValueError(f"origin is {list(origin)!r}; expected the voxel_offset in C order, one entry per spatial "
                         "axis")
    return chunk_shape, shape, (0,) * (len(shape) - len(origin)) + origin


def _document(docs: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    doc = docs.get(name)
    if not isinstance(doc, Mapping):
        raise ValueError(f"the array's {name} document is {doc!r}; expected its parsed JSON object")
    return doc


def _format_dict(separator, encoding, chunk_shape, shape, origin=None) -> dict:
    return {"separator": separator, "encoding": encoding, "chunk_shape": chunk_shape, "shape": shape, "origin": origin}


def _spelling(format: str) -> _Spelling:
    try:
        return _SPELLINGS[format]
    except (KeyError, TypeError):
        raise ValueError(f"format is {format!r}; expected one of {', '.join(map(repr, _SPELLINGS))}") from None


def _facts(spelling: _Spelling, separator, encoding, chunk_shape, shape, origin, ndim) -> _Facts:
    if encoding not in _ENCODINGS:
        raise ValueError(f"encoding is {encoding!r}; expected one of {', '.join(map(repr, _ENCODINGS))}")
    separator = spelling.default_separator(encoding) if separator is None else separator
    if separator not in spelling.separators:
        named = " or ".join(repr(s) for s in spelling.separators)
        allowed = named if spelling.separators != (None,) else "no separator"
        raise ValueError(f"separator is {separator!r}; {spelling.name} keys take {allowed}")
    chunk_shape = _whole_numbers(chunk_shape, "chunk_shape", 1)
    shape = _whole_numbers(shape, "shape", 0)
    lengths = {name: len(v) for name, v in (("chunk_shape", chunk_shape), ("shape", shape)) if v is not None}
    if ndim is not None:
        lengths["ndim"] = operator.index(ndim)
    if len(set(lengths.values())) > 1:
        given = ", ".join(f"{name} gives {n} axes" for name, n in lengths.items())
        raise ValueError(f"{given}; expected one number of axes in all of them")
    ndim = next(iter(lengths.values()), None)
    return _Facts(separator, encoding, chunk_shape, shape, _whole_numbers(origin, "origin", None), ndim)


def _off_grid(index: tuple[int, ...], facts: _Facts) -> bool:
    if facts.chunk_shape is None or facts.shape is None:
        return False
    # an index may be a key prefix of the leading axes
    return any(i >= -(-n // c) for i, c, n in zip(index, facts.chunk_shape, facts.shape, strict=False))


def _parse(spelling: _Spelling, facts: _Facts, key: str) -> tuple[int, ...] | None:
    index = spelling.split(key, facts)
    if index is None or (facts.ndim is not None and len(index) != facts.ndim) or _off_grid(index, facts):
        return None
    # only a key chunk_key spells back exactly is one (no leading zeros, ranges on the grid and clipped right)
    return index if spelling.key(index, facts) == key else None


# ---------------------------------------------------------------- public


def chunk_key(index: Sequence[int], format: str, separator: str | None = None, encoding: str = "default",
              chunk_shape: Sequence[int] | None = None, shape: Sequence[int] | None = None,
              origin: Sequence[int] | None = None) -> str:
    """The key, relative to the array, of the write unit at ``index`` on its grid, spelt as ``format`` spells it.

    Parameters
    ----------
    index
        The unit's position on the write grid, C order: on the shard grid for a sharded zarr v3 array. Fewer
        entries than the array has axes give the key prefix of those leading axes, for listing one slab's units
        ("c/1" under zarr v3's default encoding, "1" under zarr v2 or the v2 encoding); without ``shape`` or
        ``chunk_shape`` nothing says how many axes there are, so the index is taken as whole and an empty one
        is a 0-d array's only chunk ("0", or "c"). N5 and precomputed keys start with x and have no prefix.
    format
        "zarr2", "zarr3", "n5" or "precomputed".
    separator
        zarr v2's dimension_separator or the separator of zarr v3's chunk_key_encoding, "." or "/". None: the
        format's default ("." for zarr v2 and the v2 encoding, "/" for zarr v3's default encoding and N5).
    encoding
        zarr v3's chunk_key_encoding name, "default" or "v2"; other formats have one spelling and ignore it.
    chunk_shape, shape, origin
        The write grid's chunk shape, the array's shape and, for precomputed, the scale's voxel_offset, all in
        C order (z, y, x), or (c, z, y, x) for a precomputed scale with several channels; ``origin`` may also
        give the spatial axes alone. Precomputed needs ``chunk_shape`` and ``shape``; other formats use them to
        know the number of axes and to refuse an index off the grid.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For an unknown format, separator or encoding, a missing precomputed fact, a negative index, an index off
        the grid, or a partial index under N5 or precomputed.

    Examples
    --------
    >>> chunk_key((0, 1, 2), "zarr3"), chunk_key((0, 1, 2), "n5"), chunk_key((1,), "zarr3", shape=(4, 4))
    ('c/0/1/2', '2/1/0', 'c/1')
    >>> chunk_key((0, 0, 1), "precomputed", chunk_shape=(2, 4, 4), shape=(2, 4, 6), origin=(0, 20, 10))
    '14-16_20-24_0-2'
    """
    spelling = _spelling(format)
    facts = _facts(spelling, separator, encoding, chunk_shape, shape, origin, None)
    position = _whole_numbers(index, "index", 0) or ()
    if facts.ndim is not None and len(position) > facts.ndim:
        raise ValueError(f"index {list(position)!r} has {len(position)} entries; the array has {facts.ndim} axes")
    if facts.chunk_shape is not None and facts.shape is not None and _off_grid(position, facts):
        grid = [-(-n // c) for c, n in zip(facts.chunk_shape, facts.shape, strict=True)]
        raise ValueError(f"index {list(position)!r} is off the grid of {grid!r} units (shape {list(facts.shape)!r}, "
                         f"chunk_shape {list(facts.chunk_shape)!r})")
    return spelling.key(position, facts)


def parse_chunk_key(key: str, format: str, separator: str | None = None, encoding: str = "default",
                    chunk_shape: Sequence[int] | None = None, shape: Sequence[int] | None = None,
                    origin: Sequence[int] | None = None, ndim: int | None = None) -> tuple[int, ...] | None:
    """The index ``chunk_key`` spells as ``key``, or None when ``key`` is not the key of a write unit.

    Takes ``chunk_key``'s arguments, plus ``ndim`` (implied by ``shape`` or ``chunk_shape`` when they are
    given). None answers the documents (zarr.json, .zarray, .zattrs, attributes.json, info), keys of another
    arity when the number of axes is known, negative, non-integer or zero-padded parts, indices off the grid,
    and precomputed ranges that are not on the chunk grid or not clipped to the shape. A 0-d array's key "0"
    parses as () only when ``ndim`` is 0; otherwise it is the index (0,).

    Returns
    -------
    tuple of int, or None

    Raises
    ------
    ValueError
        For an unknown format, separator or encoding, or a precomputed parse without ``chunk_shape`` and ``shape``.

    Examples
    --------
    >>> parse_chunk_key("c/0/1/2", "zarr3"), parse_chunk_key("zarr.json", "zarr3"), parse_chunk_key("2/1/0", "n5")
    ((0, 1, 2), None, (0, 1, 2))
    """
    spelling = _spelling(format)
    return _parse(spelling, _facts(spelling, separator, encoding, chunk_shape, shape, origin, ndim), key)


def key_format(format: str, docs: Mapping[str, Any], scale_key: str | None = None) -> dict:
    """The keyword arguments ``chunk_key`` and ``parse_chunk_key`` need for an existing array, read from its documents.

    Parameters
    ----------
    format
        The array's format.
    docs
        Its parsed documents by name: ".zarray" (zarr v2), "zarr.json" (zarr v3), "attributes.json" (N5) or the
        "info" holding the scale (precomputed).
    scale_key
        Precomputed: the scale's key; None takes the first scale.

    Returns
    -------
    dict
        ``separator``, ``encoding``, ``chunk_shape``, ``shape`` and ``origin``, C order, to pass on as
        ``chunk_key(index, format, **key_format(format, docs))``. ``chunk_shape`` is the grid the keys are on: a
        sharded zarr v3 array's chunk_grid, which is its shard shape, not the inner chunk of its sharding codec.

    Raises
    ------
    ValueError
        For an unknown format, a missing or malformed document field, an unknown scale key, or a sharded
        precomputed scale (its chunks have no keys of their own).

    Examples
    --------
    >>> key_format("zarr2", {".zarray": {"shape": [4, 6], "chunks": [2, 3], "dimension_separator": "/"}})["separator"]
    '/'
    """
    return _spelling(format).documents(docs, scale_key)


def list_chunk_keys(path, separator: str = ".", ndim: int | None = None) -> list[tuple[int, ...]]:
    """Chunk indices present under ``path``, from its keys alone: no metadata document is needed.

    A key is the indices joined by ``separator``, with or without zarr v3's ``c`` prefix; keys
    that are not chunks (documents, other arities when ``ndim`` is given) are skipped.

    >>> list_chunk_keys("memory://nowhere")
    []
    """
    if separator not in (".", "/"):
        raise ValueError(f"separator is {separator!r}; expected '.' or '/'")
    prefixed = (_SPELLINGS["zarr3"], _facts(_SPELLINGS["zarr3"], separator, "default", None, None, None, ndim))
    joined = (_SPELLINGS["zarr2"], _facts(_SPELLINGS["zarr2"], separator, "default", None, None, None, ndim))
    found = []
    for key in store.list_keys(path):
        index = _parse(*(prefixed if key.startswith("c" + separator) else joined), key)
        if index is not None:
            found.append(index)
    return sorted(found)


def chunk_indices(format: str, docs: Mapping[str, Any], directory: str, ndim: int,
                  scale_key: str | None = None) -> list[tuple[int, ...]]:
    """Chunk indices stored for an array, in C order on its write grid, found by listing its keys and parsing them."""
    spelling = _spelling(format)
    facts = _facts(spelling, ndim=ndim, **key_format(format, docs, scale_key))
    below = spelling.keys_below(directory, scale_key)
    listed = store.list_keys(below)
    if spelling.gzipped_keys:
        gzipped = [key for key in listed if key.endswith(GZIP_SUFFIX)
                   and _parse(spelling, facts, key[:-len(GZIP_SUFFIX)]) is not None]
        if gzipped:
            raise ValueError(_gzipped(below, gzipped[0][:-len(GZIP_SUFFIX)],
                                      f"{len(gzipped)} chunk keys end in {GZIP_SUFFIX}"))
    return sorted(index for index in (_parse(spelling, facts, key) for key in listed) if index is not None)


def _gzipped(directory: str, key: str, found: str) -> str:
    return (f"{directory}: {found} (such as {key}{GZIP_SUFFIX}): the chunks were written gzip-compressed under a "
            f"{GZIP_SUFFIX} suffix, as cloud-volume does on a local disk, and Neuroglancer and tensorstore read the "
            f"plain key, so every read would return the fill value; decompress them to their plain keys, or serve "
            "them under the plain keys with Content-Encoding: gzip")


@dataclass
class GzippedChunks:
    """A local precomputed scale whose reads look, until a chunk is found, for a ``.gz`` key beside the missing one.

    ``check(first)`` takes a read's first voxel (C order; the last three axes are z, y, x) and raises ValueError
    when that voxel's chunk is missing and the same key with ``.gz`` is there; once a plain chunk is found it is
    done and ``pending`` is False.
    """

    directory: str
    chunk_shape: tuple[int, int, int]
    lead: int  # the axes before z, y, x (a channel axis)
    facts: Mapping[str, Any]
    pending: bool = True

    def check(self, first: Sequence[int]) -> None:
        chunk = tuple(int(v) // c for v, c in zip(first[-3:], self.chunk_shape, strict=True))
        key = chunk_key((0,) * self.lead + chunk, "precomputed", **self.facts)
        plain = os.path.join(self.directory, key)
        if os.path.exists(plain):
            self.pending = False
        elif os.path.exists(plain + GZIP_SUFFIX):
            raise ValueError(_gzipped(self.directory, key, f"chunk {key} is missing and {key}{GZIP_SUFFIX} is there"))


def gzipped_chunks(directory: str, docs: Mapping[str, Any], scale_key: str | None) -> GzippedChunks | None:
    """The ``.gz`` check of a local, unsharded precomputed scale at ``directory``; None for any other (an array that
    is no scale of an info has no ``scale_key``)."""
    if scale_key is None or store.scheme(directory) != "file":  # a server gives the plain key its encoding
        return None
    try:
        facts = key_format("precomputed", docs, scale_key)
    except ValueError:  # a sharded scale: its chunks have no keys of their own
        return None
    chunks = tuple(facts["chunk_shape"])
    return GzippedChunks(directory, chunks[-3:], len(chunks) - 3, facts)
