"""A consolidated copy of a hierarchy's metadata stays true: what the package adds below a group that holds one,
the copy gains, with the group's new attributes, and nothing else in it changes.

A zarr v3 group keeps its copy in its own ``zarr.json`` (``consolidated_metadata.metadata``: each node below by its
path relative to the group, flat, as zarr-python writes it); a zarr v2 group in ``.zmetadata`` (``metadata``: each
document below by its key relative to the group, the group's own ``.zgroup`` and ``.zattrs`` included). Each
format's way is its record's ``Layout`` (``layouts``). The package never makes a copy where there is none. The
copies kept are those of the level's group and of every group above it, up to the first directory that is no group
of the format (where the hierarchy ends). Each gains the array, and every group between its own and the array that
it does not list yet (made now, or made by another writer since the copy was written), since a reader of the copy
reaches a node only through its parents. Every copy is changed by a write conditional on the generation read
(``conditional.update_document``), re-read and merged when another writer got there first; a group listed already
keeps its entry, and the group's attributes change in a copy as they changed in the group (the same change applied
to the copy's own record of them), so concurrent writers lose nothing there either. A zarr v3 group's own copy
changes in the same write as its attributes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import conditional, store
from .detect import Node
from .formats import FORMATS
from .layouts import Layout

__all__ = ["Layout", "LAYOUTS", "Added", "added", "kept_true"]

Change = Callable[[dict], dict]

#: Per zarr format the package writes, how a group keeps its consolidated copy (each format's record holds it).
LAYOUTS: dict[str, Layout] = {name: form.consolidated for name, form in FORMATS.items() if form.consolidated}


def _relative(holder: str, path: str) -> str | None:
    """``path`` relative to ``holder`` ("" for itself); None when it is not below it."""
    (root, above), (other, below) = store.split(holder), store.split(path)
    if root != other or below[: len(above)] != above:
        return None
    return "/".join(below[len(above):])


@dataclass(frozen=True)
class Added:
    """What one write adds to a hierarchy: an array in ``group`` with its documents as stored, the change of the
    group's attributes, the groups from ``group`` up (each a group of the format, with its documents) and, among
    them, those whose documents hold a copy."""

    format: str
    group: str
    array: Node
    groups: tuple[Node, ...]
    change: Change
    holders: tuple[str, ...]

    def own(self, document: Any) -> Any:
        """The group's attribute document with its own copy kept true, when the format keeps the copy there."""
        return kept_true(self, self.group, document) if LAYOUTS[self.format].beside_attributes else document

    def keep_true(self) -> None:
        """Keep every other copy true, each by a write conditional on the generation read."""
        layout = LAYOUTS[self.format]
        for holder in self.holders:
            if holder == self.group and layout.beside_attributes:
                continue  # changed with the group's attributes (``own``)
            conditional.update_document(holder, layout.holder, functools.partial(kept_true, self, holder))


def kept_true(added: Added, holder: str, document: Any) -> Any:
    """The holder's document with its copy gaining the array (its entries replaced), each group between the holder
    and the array that it does not list, and the change of the group's attributes; the document as it was when it
    holds no copy.

    Every group on the way is listed, new or not, so a reader of the copy reaches the array; a group already listed
    keeps its entry, since concurrent writers each apply their own change to it.
    """
    layout = LAYOUTS[added.format]
    found = layout.copy_of(document)
    if found is None:
        return document
    copy = json.loads(json.dumps(found))  # the document read is never edited in place
    for group in added.groups:
        relative = _relative(holder, group.path)
        for key, value in layout.entries(relative, group).items() if relative and group.docs else ():
            copy.setdefault(key, value)
    if layout.array_keys[0] in added.array.docs:
        copy.update(layout.entries(str(_relative(holder, added.array.path)), added.array))
    layout.attributes(copy, str(_relative(holder, added.group)), added.change)
    return layout.with_copy(document, copy)


def _parsed(raw: bytes | None) -> Any:
    try:
        return None if raw is None else json.loads(raw)
    except (ValueError, RecursionError):  # json.loads recurses once per level: a document too deep for it too
        return None  # a document no one can read is no part of a copy the package could keep true


def _node(fmt: str, kind: str, path: str, keys: Sequence[str], raw: Mapping[tuple[str, str], bytes | None]) -> Node:
    docs = {key: _parsed(raw[(path, key)]) for key in keys}
    return Node(fmt, kind, path, {key: doc for key, doc in docs.items() if isinstance(doc, dict)})


def added(fmt: str, group: str, array: str, change: Change) -> Added:
    """What a write of ``array`` into ``group`` adds, read in one round with the documents of the group and of
    every group above it up to the first directory that is no group of the format."""
    layout = LAYOUTS[fmt]
    chain, current = [group], store.parent(group)
    while current is not None and not store.is_root(current):
        chain.append(current)
        current = store.parent(current)
    keys = tuple(dict.fromkeys((*layout.group_keys, layout.holder)))
    raw = store.read_documents([(d, k) for d in chain for k in keys] + [(array, k) for k in layout.array_keys])
    groups: list[Node] = []
    holders: list[str] = []
    for directory in chain:
        node = _node(fmt, "group", directory, layout.group_keys, raw)
        if groups and not layout.is_group(node.docs):
            break  # the hierarchy ends here
        groups.append(node)
        if layout.copy_of(_parsed(raw[(directory, layout.holder)])) is not None:
            holders.append(directory)
    array_node = _node(fmt, "array", array, layout.array_keys, raw)
    return Added(fmt, group, array_node, tuple(groups), change, tuple(holders))
