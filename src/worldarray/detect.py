"""A path's format is the first probe key that answers: zarr.json, .zarray, .zgroup, info, attributes.json.

When none answers, the parent's info makes the last path segment a precomputed scale key, and an
``s0`` below makes the path a document-less group. The suffix (.zarr, .n5) never decides anything.
All the documents one open needs (the path's probe keys and its parent's, and the OME documents
of up to three further ancestors) are requested in one round.
"""

from __future__ import annotations

import contextvars
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import store
from .metadata import Document, Source, multiscales_of

__all__ = ["Node", "Gathered", "PROBE_KEYS", "attrs_url", "detect", "gather", "source_of", "scale_key_of", "user_attrs"]

#: Probe keys, in the order that decides the format.
PROBE_KEYS = ("zarr.json", ".zarray", ".zgroup", "info", "attributes.json")
_READ_KEYS = PROBE_KEYS + (".zattrs",)
_ANCESTOR_KEYS = ("zarr.json", ".zattrs")
_SCALE_POSITION = re.compile(r"^s(\d+)$")
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="worldarray-detect")


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
        return user_attrs(self.format, self.docs)

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
        return multiscales_of(self.attrs)


@dataclass(frozen=True)
class Gathered:
    """A node with the documents of its ancestors (parent first) that its placement may need."""

    node: Node
    ancestors: tuple[Document, ...]


def user_attrs(format: str, docs: Mapping[str, Any]) -> dict:
    """The user attributes held by a node's documents, per format."""
    if format == "zarr3":
        return dict(docs.get("zarr.json", {}).get("attributes") or {})
    if format == "n5":
        return dict(docs.get("attributes.json") or {})
    if format == "precomputed":
        return {k: v for k, v in (docs.get("info") or {}).items() if k != "scales"}
    return dict(docs.get(".zattrs") or {})


def _parse(directory: str, key: str, raw: bytes | None) -> Any:
    if raw is None:
        return None
    where = store.url(directory, key)
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{where}: not valid JSON ({error}); expected a JSON object") from error
    if not isinstance(value, dict):
        raise ValueError(f"{where}: holds a JSON {type(value).__name__} {value!r:.60}; expected a JSON object")
    return value


def _docs(directory: str, raw: Mapping, keys) -> dict:
    found = {key: _parse(directory, key, raw.get((directory, key))) for key in keys}
    return {key: doc for key, doc in found.items() if doc is not None}


def _classify(path: str, docs: Mapping[str, Any]) -> Node | None:
    """Name the format and kind from the first probe key present."""
    if "zarr.json" in docs:
        kind = docs["zarr.json"].get("node_type")
        if kind not in ("array", "group"):
            raise ValueError(f"{store.url(path, 'zarr.json')}: node_type is {kind!r}; expected 'array' or 'group'")
        return Node("zarr3", kind, path, docs)
    if ".zarray" in docs:
        return Node("zarr2", "array", path, docs)
    if ".zgroup" in docs:
        return Node("zarr2", "group", path, docs)
    if "info" in docs:
        return Node("precomputed", "group", path, docs)
    if "attributes.json" in docs:
        kind = "array" if "dimensions" in docs["attributes.json"] else "group"
        return Node("n5", kind, path, docs)
    return None


def scale_key_of(parent: Node, name: str) -> str | None:
    """The scale key a path segment names under a precomputed info: a key, or s<N> for the N-th scale."""
    scales = parent.docs["info"].get("scales") or []
    keys = [s.get("key") for s in scales if isinstance(s, Mapping)]
    if name in keys:
        return name
    position = _SCALE_POSITION.match(name)
    if position and int(position.group(1)) < len(keys):
        return keys[int(position.group(1))]
    return None


def _read_ancestors(path: str) -> tuple[Document, ...]:
    """OME documents of the grandparent and two further ancestors; anything but a document ends the walk quietly."""
    chain, current = [], store.parent(path)
    current = store.parent(current) if current else None
    while current and not store.is_root(current) and len(chain) < 3:
        chain.append(current)
        current = store.parent(current)
    if not chain:
        return ()
    try:
        raw = store.read_documents([(d, k) for d in chain for k in _ANCESTOR_KEYS])
    except Exception:  # a server root's redirect or an unreadable directory ends the search
        return ()
    found = []
    for directory in chain:
        try:
            docs = _docs(directory, raw, _ANCESTOR_KEYS)
        except ValueError:
            break
        fmt = "zarr3" if "zarr.json" in docs else "zarr2"
        found.append(Document(directory, store.url(directory, "zarr.json" if fmt == "zarr3" else ".zattrs"), user_attrs(fmt, docs)))
    return tuple(found)


def attrs_url(node: Node) -> str:
    key = {"zarr3": "zarr.json", "n5": "attributes.json", "precomputed": "info"}.get(node.format, ".zattrs")
    return store.url(node.path, key)


def _as_document(directory: str | None, node: Node | None) -> tuple[Document, ...]:
    """The parent's attributes, kept in first place even when the parent holds no document."""
    if directory is None:
        return ()
    if node is None:
        return (Document(directory, store.url(directory, ".zattrs"), {}),)
    return (Document(node.path, attrs_url(node), node.attrs),)


def gather(path, missing_ok: bool = False, above: Gathered | None = None) -> Gathered | None:
    """Detect ``path`` and read its parent's documents (and further ancestors') in one round of requests.

    ``above``, the gathered parent when the caller has it (a group whose level is being opened),
    spares reading the parent and the ancestors again: only the path's own probe keys are read.
    """
    path = store.normalize(path)
    if above is not None and above.node.path == store.parent(path) and above.node.kind == "group":
        raw = store.read_documents([(path, key) for key in _READ_KEYS])
        node = _classify(path, _docs(path, raw, _READ_KEYS))
        if node is None:
            return _missing(path, missing_ok)
        return Gathered(node, _as_document(above.node.path, above.node) + above.ancestors[:3])
    up = store.parent(path)
    if up is not None and store.is_root(up):
        up = None
    requests = [(path, key) for key in _READ_KEYS] + ([(up, key) for key in _READ_KEYS] if up else [])
    further = _POOL.submit(contextvars.copy_context().run, _read_ancestors, path)  # the caller's timing too
    raw = store.read_documents(requests)
    node = _classify(path, _docs(path, raw, _READ_KEYS))
    parent = _classify(up, _docs(up, raw, _READ_KEYS)) if up else None
    if node is None and parent is not None and parent.format == "precomputed":
        key = scale_key_of(parent, store.basename(path))
        if key is not None:
            node, parent, up = Node("precomputed", "array", parent.path, parent.docs, key), None, None
    if node is None:
        node = _document_less_group(path)
    if node is None:
        further.cancel()
        return _missing(path, missing_ok)
    return Gathered(node, _as_document(up, parent) + further.result())


def _missing(path: str, missing_ok: bool) -> None:
    if missing_ok:
        return None
    raise FileNotFoundError(
        f"{path}: no array or group here; probed {', '.join(PROBE_KEYS)}, the parent's info and {store.join(path, 's0')}"
    )


def _document_less_group(path: str) -> Node | None:
    """A directory with no document of its own that holds s0 is a group of s0's format."""
    below = store.join(path, "s0")
    raw = store.read_documents([(below, key) for key in _READ_KEYS])
    child = _classify(below, _docs(below, raw, _READ_KEYS))
    return None if child is None else Node(child.format, "group", path, {})


def detect(path, missing_ok: bool = False) -> Node | None:
    """Return what ``path`` is (format, kind, documents), or None when nothing is there and ``missing_ok``.

    Raises
    ------
    FileNotFoundError
        When no probe key answers at the path, its parent names no precomputed scale, and no s0 is below.
    ValueError
        When a document is not a JSON object; the message names its URL.

    >>> node = detect("memory://example/volume.zarr")  # doctest: +SKIP
    """
    found = gather(path, missing_ok=missing_ok)
    return None if found is None else found.node


def source_of(found: Gathered) -> Source:
    """The documents of an array node as metadata's pure parser takes them."""
    node = found.node
    if node.kind != "array":
        raise ValueError(f"{node.path}: is a {node.format} group; expected an array (name a level)")
    if node.format == "precomputed":
        info = node.docs["info"]
        keys = [s.get("key") for s in info.get("scales") or []]
        index = keys.index(node.scale_key)
        url = store.url(node.path, "info")
        own = Document(store.join(node.path, node.scale_key), url, dict(info["scales"][index]))
        return Source("precomputed", own.path, info, url, own, (Document(node.path, url, node.attrs),), index)
    key = {"zarr3": "zarr.json", "zarr2": ".zarray", "n5": "attributes.json"}[node.format]
    own = Document(node.path, attrs_url(node), node.attrs)
    return Source(node.format, node.path, node.docs[key], store.url(node.path, key), own, found.ancestors)
