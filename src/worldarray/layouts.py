"""Where a zarr format keeps a group's consolidated copy of its hierarchy's metadata, and how the copy records a
node: zarr v3 in the group's own ``zarr.json`` (``consolidated_metadata.metadata``, each node by its path relative
to the group, flat, as zarr-python writes it), zarr v2 in ``.zmetadata`` (``metadata``, each document by its key
relative to the group). Each format's record holds its layout; ``consolidated`` keeps the copies true. Nothing here
reads or writes a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Layout", "ZARR3", "ZARR2", "Held"]


class Held(Protocol):
    """What a copy records of a node: its kind and its documents (``nodes.Node`` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def docs(self) -> Mapping[str, Any]: ...


Change = Callable[[dict], dict]
#: How zarr-python records a group inside a copy above it: its descendants are that copy's, flat.
_NESTED = {"kind": "inline", "must_understand": False, "metadata": {}}


@dataclass(frozen=True)
class Layout:
    """Where one zarr format keeps a group's consolidated copy, and how the copy records a node's documents.

    ``holder`` is the group document that holds the copy (``beside_attributes``: the one that holds the group's
    attributes too); ``group_keys`` and ``array_keys`` the documents of a group and of an array.
    """

    name: str
    holder: str
    beside_attributes: bool
    group_keys: tuple[str, ...]
    array_keys: tuple[str, ...]
    is_group: Callable[[Mapping[str, Any]], bool]
    copy_of: Callable[[Any], Mapping[str, Any] | None]
    with_copy: Callable[[Mapping[str, Any], dict], dict]
    entries: Callable[[str, Held], dict]
    attributes: Callable[[dict, str, Change], None]


def _key(relative: str, document: str) -> str:
    return f"{relative}/{document}" if relative else document


def _zarr3_copy(document: Any) -> Mapping[str, Any] | None:
    found = document.get("consolidated_metadata") if isinstance(document, Mapping) else None
    copy = found.get("metadata") if isinstance(found, Mapping) else None
    return copy if isinstance(copy, Mapping) else None


def _zarr3_entries(relative: str, node: Held) -> dict:
    document = dict(node.docs["zarr.json"])
    if node.kind == "group":
        document["consolidated_metadata"] = dict(_NESTED)
    return {relative: document}


def _zarr3_attributes(copy: dict, relative: str, change: Change) -> None:
    """A group's attributes in a copy above it; a group's own live beside its copy, in the attributes it writes."""
    if relative and isinstance(copy.get(relative), Mapping):
        entry = dict(copy[relative])
        copy[relative] = {**entry, "attributes": change(dict(entry.get("attributes") or {}))}


def _zarr2_copy(document: Any) -> Mapping[str, Any] | None:
    copy = document.get("metadata") if isinstance(document, Mapping) else None
    return copy if isinstance(copy, Mapping) and document.get("zarr_consolidated_format") == 1 else None


def _zarr2_entries(relative: str, node: Held) -> dict:
    """A zarr v2 node's documents under their keys; an array's .zattrs is {} when it has none (what every reader
    takes a missing one to be)."""
    docs = dict(node.docs)
    if node.kind == "array":
        docs.setdefault(".zattrs", {})
    return {_key(relative, key): doc for key, doc in docs.items()}


def _zarr2_attributes(copy: dict, relative: str, change: Change) -> None:
    key = _key(relative, ".zattrs")
    copy[key] = change(dict(copy.get(key) or {}))


ZARR3 = Layout("zarr3", "zarr.json", True, ("zarr.json",), ("zarr.json",),
           lambda docs: (docs.get("zarr.json") or {}).get("node_type") == "group", _zarr3_copy,
           lambda doc, copy: {**doc, "consolidated_metadata": {**doc["consolidated_metadata"], "metadata": copy}},
           _zarr3_entries, _zarr3_attributes)
ZARR2 = Layout("zarr2", ".zmetadata", False, (".zgroup", ".zattrs"), (".zarray", ".zattrs"),
           lambda docs: ".zgroup" in docs, _zarr2_copy,
           lambda doc, copy: {**doc, "metadata": copy}, _zarr2_entries, _zarr2_attributes)


