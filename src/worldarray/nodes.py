"""A node is what one path holds: an array or a group of one format, with the documents read for it.

``Gathered`` is a node with the documents of its ancestors that its placement may need, and ``source_of`` hands
an array node's documents to the pure placement rules (``metadata.parse``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .fields import Document, Source
from .formats import FORMATS, scale_index
from .ome import multiscales_of
from .paths import join, url
from .precomputed import scale_keys

__all__ = ["Node", "Gathered", "array_node", "source_of", "scale_key_of"]

_SCALE_POSITION = re.compile(r"^s(\d+)$")


@dataclass(frozen=True)
class Node:
    """What one path is: its format, kind ("array" or "group"), normalised path and parsed documents.

    For a precomputed scale, ``path`` is the directory holding ``info`` and ``scale_key`` names the scale.
    """

    format: str
    kind: str
    path: str
    docs: Mapping[str, Any] = field(default_factory=dict)
    scale_key: str | None = None

    def __repr__(self) -> str:
        scale = f", scale_key={self.scale_key!r}" if self.scale_key is not None else ""
        return f"Node({self.format} {self.kind} {self.path!r}{scale}, documents={sorted(self.docs)})"

    @property
    def attrs(self) -> dict:
        """The raw user attributes of the node (for N5, every member of attributes.json)."""
        return FORMATS[self.format].user_attrs(self.docs)

    @property
    def attrs_url(self) -> str:
        """The URL of the document that holds the node's user attributes."""
        return url(self.path, FORMATS[self.format].attrs_document)

    @property
    def ome_attrs(self) -> dict:
        """The user attributes with OME 0.5's ``ome`` object unwrapped, as 0.4 keeps them at the top."""
        attrs = self.attrs
        ome = attrs.get("ome")
        if not isinstance(ome, Mapping):
            return dict(attrs)
        return {**{k: v for k, v in attrs.items() if k != "ome"}, **ome}

    @property
    def multiscales(self) -> list | None:
        """The node's OME (or COSEM N5) multiscales list, None when it has none."""
        return multiscales_of(self.attrs, self.attrs_url)


@dataclass(frozen=True)
class Gathered:
    """A node with the documents of its ancestors (parent first) that its placement may need, and those of the
    arrays beside it that its attributes name (``related``, by name)."""

    node: Node
    ancestors: tuple[Document, ...]
    first_level: Document | None = None  # N5: s0's document, when the group's factor list places this level (A12)
    related: Mapping[str, Document] = field(default_factory=dict)


def array_node(found: Gathered) -> Node:
    """The node ``found`` holds; ValueError naming it when it is a group."""
    node = found.node
    if node.kind != "array":
        raise ValueError(f"{node.path}: is a {node.format} group; expected an array (name a level)")
    return node


def source_of(found: Gathered) -> Source:
    """The documents of an array node as metadata's pure parser takes them."""
    node = array_node(found)
    document = FORMATS[node.format].array_document
    where = url(node.path, document)
    if FORMATS[node.format].levels_in_info:
        info, index = node.docs["info"], scale_index(node)
        own = Document(join(node.path, str(node.scale_key)), where, dict(info["scales"][index]))
        return Source(node.format, own.path, info, where, own, (Document(node.path, where, node.attrs),), index)
    own = Document(node.path, node.attrs_url, node.attrs)
    return Source(node.format, node.path, node.docs[document], where, own, found.ancestors,
                  first_level=found.first_level, related=found.related)


def scale_key_of(parent: Node, name: str) -> str | None:
    """The scale key a path segment names under a precomputed info: a key, or s<N> for the N-th scale."""
    keys = scale_keys(parent.docs["info"], parent.attrs_url)
    if name in keys:
        return name
    position = _SCALE_POSITION.match(name)
    if position and int(position.group(1)) < len(keys):
        return keys[int(position.group(1))]
    return None
