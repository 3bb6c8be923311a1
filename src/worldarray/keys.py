"""A chunk key names one stored unit's position on the chunk grid, spelt as its format spells it.

zarr v2 joins the indices with its dimension separator ("0.1.2"), zarr v3's default encoding
writes "c/0/1/2" and its v2 encoding "0.1.2", N5 writes them x first ("2/1/0"), and an unsharded
precomputed scale names voxel ranges ("0-64_0-64_0-32", x first, voxel_offset included).
"""

from __future__ import annotations

from typing import Any, Mapping

from . import store

__all__ = ["list_keys", "list_chunk_keys", "chunk_indices"]


def list_keys(path) -> list[str]:
    """Every key stored under a directory, relative to it (listings are not timed out)."""
    path = store.normalize(path)

    def attempt(way: store.Way) -> list[str]:
        return [key.decode() for key in store.open_kvstore(way.spec).list().result()]

    return store.with_fallback(path, attempt)


def _split(key: str, separator: str, ndim: int | None) -> tuple[int, ...] | None:
    parts = key.split(separator)
    if ndim is not None and len(parts) != ndim:
        return None
    if not all(part.isdigit() for part in parts):
        return None
    return tuple(int(part) for part in parts)


def list_chunk_keys(path, separator: str = ".", ndim: int | None = None) -> list[tuple[int, ...]]:
    """Chunk indices present under ``path``, from its keys alone: no metadata document is needed.

    A key is the indices joined by ``separator``, with or without zarr v3's ``c`` prefix; keys
    that are not chunks (documents, other arities when ``ndim`` is given) are skipped.

    >>> list_chunk_keys("memory://nowhere")
    []
    """
    if separator not in (".", "/"):
        raise ValueError(f"separator is {separator!r}; expected '.' or '/'")
    found = []
    for key in list_keys(path):
        key = key[2:] if key.startswith("c" + separator) else key
        index = _split(key, separator, ndim)
        if index is not None:
            found.append(index)
    return sorted(found)


def _zarr2(docs, ndim):
    separator = docs[".zarray"].get("dimension_separator") or "."
    return lambda key: _split(key, separator, ndim)


def _zarr3(docs, ndim):
    encoding = docs["zarr.json"].get("chunk_key_encoding") or {"name": "default"}
    name = encoding.get("name", "default")
    default = "/" if name == "default" else "."
    separator = (encoding.get("configuration") or {}).get("separator", default)
    prefix = "c" + separator if name == "default" else ""

    def parse(key: str):
        if prefix and not key.startswith(prefix):
            return None
        return _split(key[len(prefix):], separator, ndim)

    return parse


def _n5(docs, ndim):
    def parse(key: str):
        index = _split(key, "/", ndim)
        return None if index is None else index[::-1]

    return parse


def _precomputed(docs, ndim, scale_key: str):
    info = docs["info"]
    scale = next(s for s in info.get("scales") or [] if s.get("key") == scale_key)
    if scale.get("sharding"):
        raise ValueError(f"{scale_key}: a sharded precomputed scale keeps its chunks inside shards; its chunks cannot be listed by key")
    chunk = scale["chunk_sizes"][0]
    first = scale.get("voxel_offset") or [0, 0, 0]
    lead = (0,) if ndim == 4 else ()

    def parse(key: str):
        ranges = key.split("_")
        if len(ranges) != 3:
            return None
        index = []
        for text, c, f in zip(ranges, chunk, first):
            low, _, high = text.partition("-")
            if not (low.lstrip("-").isdigit() and high.lstrip("-").isdigit()):
                return None
            index.append((int(low) - f) // c)
        return lead + tuple(index[::-1])

    return parse


_PARSERS = {"zarr2": _zarr2, "zarr3": _zarr3, "n5": _n5}


def chunk_indices(format: str, docs: Mapping[str, Any], directory: str, ndim: int, scale_key: str | None = None):
    """Chunk indices stored for an array, in C order, found by listing its keys and parsing them per format."""
    parse = _precomputed(docs, ndim, scale_key) if format == "precomputed" else _PARSERS[format](docs, ndim)
    listed = list_keys(store.join(directory, scale_key) if format == "precomputed" else directory)
    return sorted(index for index in map(parse, listed) if index is not None)
