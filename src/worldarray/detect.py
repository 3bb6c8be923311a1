"""A path's format is the first probe key that answers: zarr.json, .zarray, .zgroup, info, attributes.json.

When none answers, the parent's info makes the last path segment a precomputed scale key, and an ``s0`` below
makes the path a document-less group. The suffix (.zarr, .n5) never decides anything. All the documents one open
may need (the path's probe keys and its parent's, the OME documents of up to three further ancestors, and those of a
level named under the path) are requested in one round (``requests_for``), most decisive first, with the rule that
says which the answers make pointless; the further ancestors are read only for an array its parent does not list.
What a format is to detection and opening (which document holds what, its probe key, the tensorstore spec that
opens it from the documents read) is one record of ``formats.FORMATS``; how it places an array is
``metadata.RULES``, how it spells a chunk key ``keys``, and its tensorstore is opened by ``reach``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import retry, rounds, store
from .fields import Document, document
from .formats import FORMATS, PROBE_KEYS, PROBES, WRITTEN, Format, clean_zarr2_metadata
from .n5 import level_position, n5_group_factors
from .nodes import Gathered, Node, scale_key_of, source_of
from .ome import walk
from .retry import is_transient
from .siblings import with_related

__all__ = ["Node", "Gathered", "Format", "FORMATS", "PROBE_KEYS", "detect", "gather", "probe", "requests_for",
           "source_of", "scale_key_of", "array_above", "clean_zarr2_metadata"]


_READ_KEYS = PROBE_KEYS + (".zattrs",)
_ANCESTOR_KEYS = ("zarr.json", ".zattrs")


# ---------------------------------------------------------------- documents


def _parse(directory: str, key: str, raw: bytes | None) -> Any:
    """The document ``raw`` holds, parsed once per reading block (``rounds.Answers.parsed_once``)."""
    if raw is None:
        return None
    answers = rounds.current()
    url = store.url(directory, key)
    if answers is None:
        return document(raw, url)
    return answers.parsed_once((directory, key), raw, lambda text: document(text, url))


def _docs(directory: str, raw: Mapping, keys) -> dict:
    found = {key: _parse(directory, key, raw.get((directory, key))) for key in keys}
    return {key: doc for key, doc in found.items() if doc is not None}


def _classify(path: str, docs: Mapping[str, Any]) -> Node | None:
    """Name the format and kind from the first probe key present."""
    for key, fmt, kind_of in PROBES:
        if key in docs:
            kind = kind_of(docs[key], store.url(path, key))
            if kind not in ("array", "group"):
                raise ValueError(f"{store.url(path, key)}: node_type is {kind!r}; expected 'array' or 'group'")
            return Node(fmt, kind, path, docs)
    return None


def _read_ancestors(path: str) -> tuple[Document, ...]:
    """OME documents of the grandparent and two further ancestors; anything but a document ends the walk quietly."""
    chain = _chain(path)
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
        fmt = next((f.name for f in FORMATS.values() if f.attrs_document in docs), WRITTEN["0.4"])
        node = Node(fmt, "group", directory, docs)
        found.append(Document(directory, node.attrs_url, node.attrs))
    return tuple(found)


def array_above(path: str) -> Node | None:
    """The nearest array among the ancestors of ``path`` below its store root, all read in one round; None when no
    ancestor is an array."""
    chain: list[str] = []
    current = store.parent(store.normalize(path))
    while current is not None and not store.is_root(current):
        chain.append(current)
        current = store.parent(current)
    raw = store.read_documents([(d, k) for d in chain for k in PROBE_KEYS]) if chain else {}
    for directory in chain:
        node = _classify(directory, _docs(directory, raw, PROBE_KEYS))
        if node is not None and node.kind == "array":
            return node
    return None


def _as_document(directory: str | None, node: Node | None) -> tuple[Document, ...]:
    """The parent's attributes, kept in first place even when the parent holds no document."""
    if directory is None:
        return ()
    if node is None:
        return (Document(directory, store.url(directory, ".zattrs"), {}),)
    return (Document(node.path, node.attrs_url, node.attrs),)


def _lists(parent: Node | None, name: str) -> bool:
    """Whether a parent's multiscales list the dataset ``name``: then no further ancestor places it."""
    try:
        return parent is not None and any(path == name for _, path, _ in walk(parent.attrs, parent.attrs_url))
    except (TypeError, AttributeError, ValueError):  # a malformed listing is the parser's to report
        return False


def gather(path: str, above: Gathered | None = None, level: Any = None) -> Gathered:
    """Detect ``path`` and read its parent's documents (and further ancestors') in one round of requests.

    ``above``, the gathered parent when the caller has it (a group whose level is being opened),
    spares reading the parent and the ancestors again: only the path's own probe keys are read. A ``level`` given
    as a name is asked for in the same round, so that opening it next reads nothing more (``requests_for``).
    Raises FileNotFoundError when nothing is there.
    """
    found = probe(path, above, level)
    if found is None:
        raise FileNotFoundError(f"{store.normalize(path)}: no array or group here; probed {', '.join(PROBE_KEYS)}, "
                                f"the parent's info and {store.join(path, 's0')}")
    return found


def probe(path: str, above: Gathered | None = None, level: Any = None) -> Gathered | None:
    """``gather``, or None when nothing is at ``path``."""
    path = store.normalize(path)
    with rounds.remembering():
        decisions = Decisions()
        requests, moot, stages = requests_for(path, above, level, decisions)
        store.prefetch(requests, moot, stages)
        return _gathered(path, above, decisions)


def requests_for(path: str, above: Gathered | None = None, level: Any = None,
                 decisions: Decisions | None = None) -> tuple[list, Callable, list[list]]:
    """Every document ``gather`` may read for ``path`` (and a ``level`` named under it), most decisive first, the
    rule that says which of them the answers so far make pointless, and the stages a local read takes them in, each
    stage's answers often making the next stage's requests pointless (``store.prefetch``).

    The path's probe keys and its parent's, the parent's s0 for an N5 level sN, the named level's probe keys (and
    its group's s0), then the OME documents of up to three further ancestors; with ``above`` only the path's own.
    The stages: each directory's zarr.json, then the rest of their own keys; the s0 documents and the further
    ancestors' are what is left. The rule keeps what it decides in ``decisions``.
    """
    up = None if above is not None else store.parent(path)
    up = None if up is None or store.is_root(up) else up
    own = [path] + ([up] if up else [])
    named = level.strip("/") if isinstance(level, str) and level not in ("first", "") else None
    if named:
        own.append(store.join(path, named))
    own_requests = [(d, key) for key in _READ_KEYS for d in own]
    requests = list(own_requests)
    first_levels = {}  # s0's document, asked for beside a level sN of what may be an N5 group: by that group
    for owner, group in ((path, up), (own[-1], path) if named else (None, None)):
        if owner is not None and group is not None and (level_position(owner) or 0) >= 1:
            first_levels[store.join(group, "s0"), "attributes.json"] = group
    requests += list(first_levels)
    if above is not None:
        requests += _first_level_key(path, above.node)
    chain = _chain(path) if up else ()
    requests += [(d, key) for d in chain for key in _ANCESTOR_KEYS]
    moot = functools.partial(_moot, path, up, own[-1] if named else None, first_levels, decisions or Decisions())
    first_keys = [(d, PROBE_KEYS[0]) for d in own]
    return requests, moot, [first_keys, [request for request in own_requests if request not in first_keys]]


@dataclass
class Decisions:
    """What one probe's answers decided, kept for the rule's next call and for reading the documents after (in a
    block that prunes, where documents the answers make pointless read as missing, so what the answers decide is
    what the documents served say): each directory's node, each decided directory's pointless requests, and
    whether a directory's multiscales list a name."""

    nodes: dict[str, Node] = field(default_factory=dict)
    settled: dict[str, list] = field(default_factory=dict)
    listed: dict[tuple[str, str], bool] = field(default_factory=dict)

    def lists(self, parent: Node | None, name: str) -> bool:
        """``_lists``, asked once per parent and name."""
        if parent is None:
            return False
        key = (parent.path, name)
        if key not in self.listed:
            self.listed[key] = _lists(parent, name)
        return self.listed[key]


@functools.lru_cache(maxsize=4096)
def _chain(path: str) -> tuple[str, ...]:
    """The grandparent of ``path`` and two further ancestors, store roots left out."""
    chain: list[str] = []
    current = store.parent(path)
    current = store.parent(current) if current else None
    while current and not store.is_root(current) and len(chain) < 3:
        chain.append(current)
        current = store.parent(current)
    return tuple(chain)


def _moot(path: str, up: str | None, level: str | None, first_levels: Mapping[tuple[str, str], str],
          decisions: Decisions, found: Mapping[tuple[str, str], Any]) -> list:
    """Requests the answers so far make pointless (``store.prefetch``).

    In each directory: the probe keys after one found; .zattrs once the directory is decided no zarr v2 (a zarr.json
    found, an info or attributes.json found first, or no probe key at all); s0's attributes.json (``first_levels``)
    once its group is no N5. The further ancestors once the parent lists ``path`` and ``path`` is an array, or once
    ``path`` is a scale its parent's info names; the parent and the further ancestors too once ``path`` is a group
    that lists the array ``level`` named under it. ``decisions`` keeps what the answers decided, for the next call
    with more answers.
    """
    out = []
    for directory in {directory for directory, key in found if key in PROBE_KEYS}:
        out += _moot_in(directory, first_levels, found, decisions.settled)
    node = _decided(path, found, decisions.nodes)
    if up is None:
        return out
    if node is None:
        if _named_scale(path, up, found, decisions.nodes):
            out += [(d, key) for d in _chain(path) for key in _ANCESTOR_KEYS]
        return out
    if _is_array(node) and decisions.lists(_decided(up, found, decisions.nodes), store.basename(path)):
        out += [(d, key) for d in _chain(path) for key in _ANCESTOR_KEYS]
    elif level is not None and node.kind == "group" and decisions.lists(node, store.basename(level)):
        if _is_array(_decided(level, found, decisions.nodes)):
            out += [(d, key) for d in _chain(path) for key in _ANCESTOR_KEYS] + [(up, key) for key in _READ_KEYS]
    return out


def _named_scale(path: str, up: str, found: Mapping[tuple[str, str], Any], decided: dict[str, Node]) -> bool:
    """Whether every probe key of ``path`` answered missing and its parent's info names it as a scale (the path is
    that scale, which no further ancestor places)."""
    if any(found.get((path, key), _UNASKED) is not None for key in PROBE_KEYS):
        return False
    parent = _decided(up, found, decided)
    if parent is None or not FORMATS[parent.format].levels_in_info:
        return False
    try:
        return scale_key_of(parent, store.basename(path)) is not None
    except ValueError:  # a malformed info is the reading's to report
        return False


def _moot_in(directory: str, first_levels: Mapping[tuple[str, str], str], found: Mapping[tuple[str, str], Any],
             settled: dict[str, list]) -> list:
    """``_moot``'s requests of one directory; kept in ``settled`` once a probe key decides it, since more answers
    do not change them then."""
    if directory in settled:
        return settled[directory]
    answers = [found.get((directory, key), _UNASKED) for key in PROBE_KEYS]
    present = [i for i, value in enumerate(answers) if isinstance(value, bytes)]
    first = _first_found(answers)
    out = []
    if present:
        out += [(directory, key) for key in PROBE_KEYS[min(present) + 1:]]
    if (present and min(present) == 0) or first in (3, 4) or (first is None and all(a is None for a in answers)):
        out.append((directory, ".zattrs"))
    if present and min(present) < _N5_PROBE:  # no N5 group: no s0 of its to read
        out += [request for request, group in first_levels.items() if group == directory]
    if first is not None:
        settled[directory] = out
    return out


_UNASKED = object()
_N5_PROBE = PROBE_KEYS.index("attributes.json")


def _first_found(answers: list) -> int | None:
    """The index of the probe key that decides a directory, once every key before it answered missing."""
    for index, value in enumerate(answers):
        if isinstance(value, bytes):
            return index
        if value is not None:  # not answered yet (or failed): what comes after cannot decide
            return None
    return None


def _decided(directory: str, found: Mapping[tuple[str, str], Any], decided: dict[str, Node]) -> Node | None:
    """What the answers so far make ``directory``, once they decide it (its .zattrs too for zarr v2); kept in
    ``decided``, since more answers do not change it."""
    if directory in decided:
        return decided[directory]
    first = _first_found([found.get((directory, key), _UNASKED) for key in PROBE_KEYS])
    if first is None:
        return None
    keys = [PROBE_KEYS[first]] + ([".zattrs"] if first in (1, 2) else [])
    raw = {(directory, key): found.get((directory, key), _UNASKED) for key in keys}
    if any(value is not None and not isinstance(value, bytes) for value in raw.values()):
        return None
    try:
        node = _classify(directory, _docs(directory, raw, keys))
    except ValueError:
        return None
    if node is not None:
        decided[directory] = node
    return node


def _is_array(node: Node | None) -> bool:
    return node is not None and node.kind == "array"


def _gathered(path: str, above: Gathered | None, decisions: Decisions) -> Gathered | None:
    """What ``probe`` found, from the documents served; a directory the rule for pointless documents decided is taken
    as it decided it (``Decisions``)."""
    if above is not None and above.node.path == store.parent(path) and above.node.kind == "group":
        first = _first_level_key(path, above.node)
        raw = store.read_documents([(path, key) for key in _READ_KEYS] + first)
        node = decisions.nodes.get(path) or _classify(path, _docs(path, raw, _READ_KEYS))
        if node is None:
            return None
        return with_related(Gathered(node, _as_document(above.node.path, above.node) + above.ancestors[:3],
                                     _first_level(node, first, raw)), above.node)
    up = store.parent(path)
    if up is not None and store.is_root(up):
        up = None
    raw, answered = _read_with_parent(path, up)
    node = decisions.nodes.get(path) or _classify(path, _docs(path, raw, _READ_KEYS))
    decided = decisions.nodes.get(up) if answered and up is not None else None
    parent_docs = decided.docs if decided is not None else _parent_docs(up, raw) if answered else None
    ended = up is not None and parent_docs is None  # a parent that answers no document ends the search upwards
    parent = (decided or _classify(up, parent_docs)) if up and parent_docs is not None else None
    if node is None and parent is not None and FORMATS[parent.format].levels_in_info:
        key = scale_key_of(parent, store.basename(path))
        if key is not None:
            node, parent, up = Node("precomputed", "array", parent.path, parent.docs, key), None, None
    if node is None:
        node = _document_less_group(path)
    if node is None:
        return None
    listed = node.kind == "array" and decisions.lists(parent, store.basename(path))  # no further ancestor places it
    further_up = () if ended or listed or up is None else _read_ancestors(path)
    first = _first_level_key(path, parent) if FORMATS[node.format].factor_lists and node.kind == "array" else []
    first_level = _first_level(node, first, store.read_documents(first)) if first else None
    return with_related(Gathered(node, () if ended else _as_document(up, parent) + further_up, first_level), parent)


def _first_level_key(path: str, parent: Node | None) -> list[tuple[str, str]]:
    """s0's N5 document, wanted beside a level sN (N >= 1) of an N5 group that lists its levels' factors, whose
    shape is checked against s0's; none otherwise."""
    if (parent is None or not FORMATS[parent.format].factor_lists or parent.kind != "group"
            or (level_position(path) or 0) < 1):
        return []
    return [(store.join(parent.path, "s0"), "attributes.json")] if n5_group_factors(parent.attrs) else []


def _first_level(node: Node, keys: list[tuple[str, str]], raw: Mapping) -> Document | None:
    """s0's document from the answers to ``_first_level_key``, for an N5 array; None when absent or not an array."""
    if not keys or not FORMATS[node.format].factor_lists or node.kind != "array":
        return None
    directory, key = keys[0]
    doc = _docs(directory, raw, (key,)).get(key)
    return Document(directory, store.url(directory, key), doc) if doc and "dimensions" in doc else None


def _read_with_parent(path: str, up: str | None) -> tuple[dict, bool]:
    """The raw documents of ``path`` and of its parent ``up`` in one round, and whether the parent answered.

    A parent that answers something no document is (a redirect, a server's own page: an error that is neither
    transient nor a refusal) is not asked again; the path's documents are read alone, and False says so.
    """
    own = [(path, key) for key in _READ_KEYS]
    if up is None:
        return store.read_documents(own), False
    try:
        return store.read_documents(own + [(up, key) for key in _READ_KEYS]), True
    except OSError as error:
        if isinstance(error, (TimeoutError, PermissionError)) or is_transient(error.__cause__ or error):
            raise
        return store.read_documents(own), False  # raises again when it was the path's own answer


def _parent_docs(up: str | None, raw: Mapping) -> dict | None:
    """The parent's parsed documents; None when there is no parent or one of its answers is no JSON object."""
    if up is None:
        return None
    try:
        return _docs(up, raw, _READ_KEYS)
    except ValueError:
        return None


def _document_less_group(path: str) -> Node | None:
    """A directory with no document of its own that holds s0 is a group of s0's format."""
    below = store.join(path, "s0")
    raw = store.read_documents([(below, key) for key in _READ_KEYS])
    child = _classify(below, _docs(below, raw, _READ_KEYS))
    return None if child is None else Node(child.format, "group", path, {})


def detect(path, missing_ok: bool = False, *, retries: retry.Retry | None = None) -> Node | None:
    """Return what ``path`` is (format, kind, documents), or None when nothing is there and ``missing_ok``.

    The documents are read under ``retries`` (``wa.Retry()`` when None): attempt k waits its timeout (5 s by
    default) times k for an answer, and a server that never answers raises TimeoutError after ``max_attempts``.

    Raises
    ------
    FileNotFoundError
        When no probe key answers at the path, its parent names no precomputed scale, and no s0 is below.
    ValueError
        When a document is not a JSON object; the message names its URL.
    TimeoutError
        When documents are still unanswered after every attempt, naming their URLs and the attempts.

    Examples
    --------
    >>> detect("memory://nothing/here", missing_ok=True) is None
    True
    """
    with retry.governing(retries):
        found = probe(path) if missing_ok else gather(path)
    return None if found is None else found.node
