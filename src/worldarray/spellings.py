"""How each storage format spells a write unit's key: its separators, the key of an index, the index of a key, and
the facts (separator, encoding, chunk shape, shape, origin) it reads from its documents; one class per format, each
instance held by the format's record (``formats.FORMATS``). Parsing a key accepts it only when spelling its index
gives the key back, so parsing and spelling cannot drift apart. Nothing here reads or writes a store.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .fields import ints, list_of
from .paths import join

__all__ = ["KeyFacts", "Spelling", "Zarr2Keys", "Zarr3Keys", "N5Keys", "PrecomputedKeys", "ENCODINGS",
           "index_numbers", "key_facts", "format_dict", "document_of", "precomputed_scale", "precomputed_ranges",
           "off_grid", "parse_key", "parse_keys", "joined"]

DIGITS = re.compile(r"[0-9]+")
_SPACES = bytes.maketrans(b"/.", b"  ")
_PART = "(?:0|[1-9][0-9]{0,17})"  # an index as a key spells it (no sign, no leading zero), as an int64 holds it
RANGE = re.compile(r"(-?[0-9]+)-(-?[0-9]+)")
ENCODINGS = ("default", "v2")


@dataclass(frozen=True)
class KeyFacts:
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


def index_numbers(values, name: str, low: int | None) -> tuple[int, ...] | None:
    if values is None:
        return None
    try:
        numbers = tuple(operator.index(v) for v in values)
    except TypeError:
        raise ValueError(f"{name} is {values!r}; expected a sequence of whole numbers") from None
    if low is not None and any(n < low for n in numbers):
        raise ValueError(f"{name} is {list(numbers)!r}; expected whole numbers >= {low}")
    return numbers


def split_numbers(key: str, separator: str) -> tuple[int, ...] | None:
    parts = key.split(separator)
    if not all(DIGITS.fullmatch(part) for part in parts):
        return None
    return tuple(int(part) for part in parts)


def joined(index: tuple[int, ...], separator: str, facts: KeyFacts) -> str:
    # a 0-d array's one chunk is "0"; an empty index into an array with axes is the empty prefix
    if not index and facts.ndim in (None, 0):
        return "0"
    return separator.join(str(i) for i in index)


def split_on_grid(key: str, separator: str, facts: KeyFacts) -> tuple[int, ...] | None:
    return () if facts.ndim == 0 and key == "0" else split_numbers(key, separator)


# ---------------------------------------------------------------- one spelling per format


class Spelling:
    """How one format spells keys: its separators, its key, its parse, and its facts from the documents."""

    name = ""
    separators: tuple[str | None, ...] = (".", "/")

    def default_separator(self, encoding: str) -> str | None:
        return "."

    def key(self, index: tuple[int, ...], facts: KeyFacts) -> str:
        return joined(index, facts.joined_by, facts)

    def split(self, key: str, facts: KeyFacts) -> tuple[int, ...] | None:
        return split_on_grid(key, facts.joined_by, facts)

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

    def pattern(self, facts: KeyFacts) -> tuple[re.Pattern[str], bool] | None:
        """One expression matching exactly the keys ``key`` spells for ``facts``' number of axes (each index part
        a whole number without leading zeros) and whether its groups run x first; None where keys are not joined
        numbers of a known count (precomputed ranges, an unknown or zero number of axes)."""
        if facts.ndim is None or facts.ndim == 0 or facts.separator is None:
            return None
        return re.compile(re.escape(facts.separator).join([_PART] * facts.ndim)), False


class Zarr2Keys(Spelling):
    name = "zarr2"

    def documents(self, docs, scale_key):
        doc = document_of(docs, ".zarray")
        return format_dict(doc.get("dimension_separator") or ".", "default",
                            ints(doc.get("chunks"), ".zarray", "chunks"), ints(doc.get("shape"), ".zarray", "shape"))


class Zarr3Keys(Spelling):
    name = "zarr3"
    separators = ("/", ".")

    def default_separator(self, encoding):
        return "/" if encoding == "default" else "."

    def key(self, index, facts):
        if facts.encoding == "v2":
            return joined(index, facts.separator, facts)
        return facts.separator.join(["c", *(str(i) for i in index)])

    def split(self, key, facts):
        if facts.encoding == "v2":
            return split_on_grid(key, facts.separator, facts)
        if key == "c":
            return ()
        head = "c" + facts.separator
        return split_numbers(key[len(head):], facts.separator) if key.startswith(head) else None

    def pattern(self, facts):
        found = super().pattern(facts)
        if found is None or facts.encoding == "v2":
            return found
        return re.compile(re.escape("c" + facts.separator) + found[0].pattern), False

    def documents(self, docs, scale_key):
        doc = document_of(docs, "zarr.json")
        encoding = doc.get("chunk_key_encoding") or {"name": "default"}
        name = encoding.get("name", "default")
        separator = (encoding.get("configuration") or {}).get("separator", self.default_separator(name))
        grid = (doc.get("chunk_grid") or {}).get("configuration") or {}
        # chunk_grid is the outer grid: for a sharding_indexed array its chunk_shape is the shard shape, so the
        # keys, and this chunk_shape, are on the shard grid
        chunk_shape = ints(grid.get("chunk_shape"), "zarr.json", "chunk_grid.configuration.chunk_shape")
        return format_dict(separator, name, chunk_shape, ints(doc.get("shape"), "zarr.json", "shape"))


class N5Keys(Spelling):
    name = "n5"
    separators = ("/",)

    def default_separator(self, encoding):
        return "/"

    def key(self, index, facts):
        if facts.ndim is not None and len(index) < facts.ndim:
            raise ValueError(f"n5 keys start with the last axis (x), so the partial index {list(index)!r} of a "
                             f"{facts.ndim}-d array has no key prefix; give every axis")
        return joined(index[::-1], "/", facts)

    def split(self, key, facts):
        index = split_on_grid(key, "/", facts)
        return None if index is None else index[::-1]

    def pattern(self, facts):
        found = super().pattern(facts)
        return None if found is None else (found[0], True)

    def documents(self, docs, scale_key):
        doc = document_of(docs, "attributes.json")
        return format_dict("/", "default", ints(doc.get("blockSize"), "attributes.json", "blockSize")[::-1],
                            ints(doc.get("dimensions"), "attributes.json", "dimensions")[::-1])


class PrecomputedKeys(Spelling):
    name = "precomputed"
    separators = (None,)

    def default_separator(self, encoding):
        return None

    def key(self, index, facts):
        chunk_shape, shape, origin = precomputed_ranges(facts)
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
        chunk_shape, shape, origin = precomputed_ranges(facts)
        matches = [RANGE.fullmatch(text) for text in key.split("_")]
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
        return join(directory, scale_key) if scale_key is not None else directory

    def hashed(self, docs, scale_key):
        scales = docs.get("info", {}).get("scales") or []
        return any(isinstance(s, Mapping) and s.get("key") == scale_key and bool(s.get("sharding")) for s in scales)

    def documents(self, docs, scale_key):
        info = document_of(docs, "info")
        scale, where = precomputed_scale(info, scale_key)
        channels = int(info.get("num_channels", 1))
        lead = (channels,) if channels != 1 else ()
        offset = list_of(scale.get("voxel_offset", [0, 0, 0]), "info", f"{where}.voxel_offset", 3)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in offset):
            raise ValueError(f"info: {where}.voxel_offset is {offset!r}; expected a list of whole numbers")
        chunks = ints((scale.get("chunk_sizes") or [None])[0], "info", f"{where}.chunk_sizes[0]", 3)
        size = ints(scale.get("size"), "info", f"{where}.size", 3)
        # info lists x first; the arguments are C order, and the channel axis is one chunk starting at 0
        return format_dict(None, "default", lead + chunks[::-1], lead + size[::-1],
                            (0,) * len(lead) + tuple(offset[::-1]))


def precomputed_scale(info: Mapping[str, Any], scale_key: str | None) -> tuple[Mapping[str, Any], str]:
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


def precomputed_ranges(facts: KeyFacts) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
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


def document_of(docs: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    doc = docs.get(name)
    if not isinstance(doc, Mapping):
        raise ValueError(f"the array's {name} document is {doc!r}; expected its parsed JSON object")
    return doc


def format_dict(separator, encoding, chunk_shape, shape, origin=None) -> dict:
    return {"separator": separator, "encoding": encoding, "chunk_shape": chunk_shape, "shape": shape, "origin": origin}


def key_facts(spelling: Spelling, separator, encoding, chunk_shape, shape, origin, ndim) -> KeyFacts:
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding is {encoding!r}; expected one of {', '.join(map(repr, ENCODINGS))}")
    separator = spelling.default_separator(encoding) if separator is None else separator
    if separator not in spelling.separators:
        named = " or ".join(repr(s) for s in spelling.separators)
        allowed = named if spelling.separators != (None,) else "no separator"
        raise ValueError(f"separator is {separator!r}; {spelling.name} keys take {allowed}")
    chunk_shape = index_numbers(chunk_shape, "chunk_shape", 1)
    shape = index_numbers(shape, "shape", 0)
    lengths = {name: len(v) for name, v in (("chunk_shape", chunk_shape), ("shape", shape)) if v is not None}
    if ndim is not None:
        lengths["ndim"] = operator.index(ndim)
    if len(set(lengths.values())) > 1:
        given = ", ".join(f"{name} gives {n} axes" for name, n in lengths.items())
        raise ValueError(f"{given}; expected one number of axes in all of them")
    ndim = next(iter(lengths.values()), None)
    return KeyFacts(separator, encoding, chunk_shape, shape, index_numbers(origin, "origin", None), ndim)


def off_grid(index: tuple[int, ...], facts: KeyFacts) -> bool:
    if facts.chunk_shape is None or facts.shape is None:
        return False
    # an index may be a key prefix of the leading axes
    return any(i >= -(-n // c) for i, c, n in zip(index, facts.chunk_shape, facts.shape, strict=False))


def parse_keys(spelling: Spelling, facts: KeyFacts, keys: Sequence[bytes], ordered: bool = False
               ) -> list[tuple[int, ...]]:
    """The index of every key of a listing (as a kvstore lists them, bytes) that is a write unit's, in listing
    order (in C order of the indices when ``ordered``), as ``parse_key`` finds them one by one: where the spelling
    has one expression for its keys (``Spelling.pattern``) it is run once over the whole listing, and the indices
    are read and checked against the grid all at once."""
    found = spelling.pattern(facts)
    if found is None:
        decoded = (key.decode("utf-8", "replace") for key in keys)
        found_ = [index for index in (parse_key(spelling, facts, key) for key in decoded) if index is not None]
        return sorted(found_) if ordered else found_
    expression, reversed_ = found
    matched = re.findall(b"\x00(" + expression.pattern.encode() + b")(?=\x00)", b"\x00" + b"\x00".join(keys) + b"\x00")
    if not matched:
        return []
    digits = b" ".join(matched).translate(_SPACES, b"c")  # separators become spaces, zarr v3's "c" goes
    parts = np.fromstring(digits, dtype=np.int64, sep=" ").reshape(len(matched), facts.ndim or 1)
    if reversed_:
        parts = parts[:, ::-1]
    if facts.chunk_shape is not None and facts.shape is not None:
        grid = np.array([-(-n // c) for c, n in zip(facts.chunk_shape, facts.shape, strict=True)])
        parts = parts[(parts < grid).all(axis=1)]
    if ordered:
        parts = parts[np.lexsort(parts.T[::-1])]
    return list(zip(*parts.T.tolist(), strict=True))  # one list per axis, zipped: tuples made in C


def parse_key(spelling: Spelling, facts: KeyFacts, key: str) -> tuple[int, ...] | None:
    index = spelling.split(key, facts)
    if index is None or (facts.ndim is not None and len(index) != facts.ndim) or off_grid(index, facts):
        return None
    # only a key chunk_key spells back exactly is one (no leading zeros, ranges on the grid and clipped right)
    return index if spelling.key(index, facts) == key else None


