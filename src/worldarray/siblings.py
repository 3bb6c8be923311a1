"""The arrays an array's attributes name beside it (a CF grid-mapping variable) are read with it: their attribute
documents, from the parent's consolidated copy when the parent's document holds one, else from their own.

``with_related`` is the one place that reads them: when a gathered array node's attributes name a grid mapping, the
documents of ``{parent}/{name}`` are read in one round (zarr v3 ``zarr.json``, zarr v2 ``.zattrs``) and handed to
the placement rules as ``Source.related``, by name. A name that is no array beside it is left out; the rule then
finds nothing there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from . import store
from .fields import Document, document
from .formats import FORMATS
from .grid_mapping import GRID_MAPPING_KEY, mapping_names
from .nodes import Gathered, Node

__all__ = ["with_related", "named_beside"]


def named_beside(node: Node) -> tuple[str, ...]:
    """The names of the arrays beside ``node`` that its attributes name (its grid-mapping variables); () for a group,
    a precomputed scale, or attributes that name none (a malformed ``grid_mapping`` is the rule's to report).

    >>> named_beside(Node("zarr2", "array", "t.zarr/elev", {".zattrs": {"grid_mapping": "crs: x y"}}))
    ('crs',)
    """
    if node.kind != "array" or FORMATS[node.format].levels_in_info:
        return ()
    attrs = node.attrs
    if GRID_MAPPING_KEY not in attrs:
        return ()
    try:
        return mapping_names(attrs[GRID_MAPPING_KEY], node.attrs_url)
    except ValueError:
        return ()


def _copied(parent: Node | None, name: str) -> dict[str, Any] | None:
    """The documents of ``name`` as the parent's consolidated copy records them, when the parent's documents hold a
    copy that lists it (zarr v3: in the group's own zarr.json); None otherwise."""
    layout = FORMATS[parent.format].consolidated if parent is not None else None
    if parent is None or layout is None or layout.holder not in parent.docs:
        return None
    copy = layout.copy_of(parent.docs[layout.holder])
    if copy is None:
        return None
    if layout.beside_attributes:  # a zarr v3 copy records each node's one document by its path
        entry = copy.get(name)
        return {layout.holder: entry} if isinstance(entry, Mapping) else None
    found = {key: copy[f"{name}/{key}"] for key in layout.array_keys if isinstance(copy.get(f"{name}/{key}"), Mapping)}
    return found or None


def with_related(found: Gathered, parent: Node | None) -> Gathered:
    """``found`` with the attribute documents of the arrays beside it that its attributes name (``related``), from
    ``parent``'s consolidated copy where it holds them, the rest read in one round; ``found`` itself when it names
    none."""
    names = named_beside(found.node)
    directory = store.parent(found.node.path)
    if not names or directory is None:
        return found
    form = FORMATS[found.node.format]
    docs = {name: _copied(parent, name) for name in names}
    wanted = [(store.join(directory, name), form.attrs_document) for name, held in docs.items() if held is None]
    raw = store.read_documents(wanted) if wanted else {}
    for (path, key), value in raw.items():
        if value is not None:
            docs[store.basename(path)] = {key: document(value, store.url(path, key))}
    related = {}
    for name, held in docs.items():
        if held is not None:
            node = Node(found.node.format, "array", store.join(directory, name), held)
            related[name] = Document(node.path, node.attrs_url, node.attrs)
    return dataclasses.replace(found, related=related)
