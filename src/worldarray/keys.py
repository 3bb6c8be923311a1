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

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import store
from .formats import FORMATS
from .spellings import Spelling, index_numbers, key_facts, off_grid, parse_key, parse_keys

__all__ = ["chunk_key", "parse_chunk_key", "key_format", "key_speller", "list_chunk_keys", "chunk_indices",
           "GzippedChunks", "gzipped_chunks", "hashed_shards"]

#: The suffix cloud-volume gives a chunk it wrote gzip-compressed to a local disk; no reader of the format reads it.
GZIP_SUFFIX = ".gz"

def hashed_shards(format: str, docs: Mapping[str, Any], scale_key: str | None) -> bool:
    """Whether the array is a sharded precomputed scale: its shards are hashed sets of chunks, not boxes."""
    return spelling_of(format).hashed(docs, scale_key)


def spelling_of(format: str) -> Spelling:
    """The key spelling of a format, from its record."""
    try:
        return FORMATS[format].keys
    except (KeyError, TypeError):
        raise ValueError(f"format is {format!r}; expected one of {', '.join(map(repr, FORMATS))}") from None


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
    spelling = spelling_of(format)
    facts = key_facts(spelling, separator, encoding, chunk_shape, shape, origin, None)
    position = index_numbers(index, "index", 0) or ()
    if facts.ndim is not None and len(position) > facts.ndim:
        raise ValueError(f"index {list(position)!r} has {len(position)} entries; the array has {facts.ndim} axes")
    if facts.chunk_shape is not None and facts.shape is not None and off_grid(position, facts):
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
    spelling = spelling_of(format)
    return parse_key(spelling, key_facts(spelling, separator, encoding, chunk_shape, shape, origin, ndim), key)


def key_speller(format: str, docs: Mapping[str, Any], scale_key: str | None = None) -> Callable[[Sequence[int]], str]:
    """``chunk_key`` of an existing array, its facts read from its documents once: for spelling many whole indices
    (unchecked: each must be on the grid, one entry per axis)."""
    spelling = spelling_of(format)
    facts = key_facts(spelling, ndim=None, **key_format(format, docs, scale_key))
    return lambda index: spelling.key(tuple(index), facts)


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
    return spelling_of(format).documents(docs, scale_key)


def list_chunk_keys(path, separator: str = ".", ndim: int | None = None) -> list[tuple[int, ...]]:
    """Chunk indices present under ``path``, from its keys alone: no metadata document is needed.

    A key is the indices joined by ``separator``, with or without zarr v3's ``c`` prefix; keys
    that are not chunks (documents, other arities when ``ndim`` is given) are skipped.

    >>> list_chunk_keys("memory://nowhere")
    []
    """
    if separator not in (".", "/"):
        raise ValueError(f"separator is {separator!r}; expected '.' or '/'")
    prefixed = (spelling_of("zarr3"), key_facts(spelling_of("zarr3"), separator, "default", None, None, None, ndim))
    joined = (spelling_of("zarr2"), key_facts(spelling_of("zarr2"), separator, "default", None, None, None, ndim))
    listed = store.list_key_bytes(path)
    head = ("c" + separator).encode()
    return sorted(parse_keys(*prefixed, [key for key in listed if key.startswith(head)])
                  + parse_keys(*joined, [key for key in listed if not key.startswith(head)]))


def chunk_indices(format: str, docs: Mapping[str, Any], directory: str, ndim: int,
                  scale_key: str | None = None) -> list[tuple[int, ...]]:
    """Chunk indices stored for an array, in C order on its write grid, found by listing its keys and parsing them."""
    spelling = spelling_of(format)
    facts = key_facts(spelling, ndim=ndim, **key_format(format, docs, scale_key))
    below = spelling.keys_below(directory, scale_key)
    listed = store.list_key_bytes(below)
    if spelling.gzipped_keys:
        gzipped = [key for key in map(bytes.decode, listed) if key.endswith(GZIP_SUFFIX)
                   and parse_key(spelling, facts, key[:-len(GZIP_SUFFIX)]) is not None]
        if gzipped:
            raise ValueError(_gzipped(below, gzipped[0][:-len(GZIP_SUFFIX)],
                                      f"{len(gzipped)} chunk keys end in {GZIP_SUFFIX}"))
    return parse_keys(spelling, facts, listed, ordered=True)


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
