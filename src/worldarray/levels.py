"""``level=`` means one thing everywhere: a name, a position (0 or "first"), a precomputed scale key, or an array path under the group.

An array path (or a precomputed path naming a scale) is that array: level None, 0 or "first" is
silently the array, any other level warns and is ignored. A group path needs a level.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

from . import store
from .detect import Gathered, Node, gather, scale_key_of, source_of
from .metadata import multiscales_of

__all__ = ["level_names", "resolve"]

_PROBE_BATCH = 8


def _listed(node: Node) -> tuple[str, ...] | None:
    """Level names the group's own document lists: precomputed scale keys, or multiscales[0] dataset paths."""
    if node.format == "precomputed":
        return tuple(str(s.get("key")) for s in node.docs["info"].get("scales") or [] if isinstance(s, Mapping))
    for multiscale in multiscales_of(node.attrs) or []:
        datasets = multiscale.get("datasets") if isinstance(multiscale, Mapping) else None
        names = [d.get("path") for d in datasets or [] if isinstance(d, Mapping) and isinstance(d.get("path"), str)]
        if names:
            return tuple(n.strip("/").removeprefix("./") for n in names)
    return None


def _probed(path: str) -> tuple[str, ...]:
    """A group listing no levels is probed for s0, s1, ... in batches, until one is missing."""
    names: list[str] = []
    while True:
        batch = [f"s{len(names) + i}" for i in range(_PROBE_BATCH)]
        raw = store.read_documents([(store.join(path, n), key) for n in batch for key in _ARRAY_KEYS])
        for name in batch:
            if not any(raw.get((store.join(path, name), key)) is not None for key in _ARRAY_KEYS):
                return tuple(names)
            names.append(name)


_ARRAY_KEYS = ("zarr.json", ".zarray", "attributes.json")


def level_names(node: Node) -> tuple[str, ...]:
    """The levels of a group, in the order its document lists them (else s0, s1, ... as found)."""
    listed = _listed(node)
    return listed if listed is not None else _probed(node.path)


def _scale_text(node: Node, name: str) -> str:
    for multiscale in multiscales_of(node.attrs) or []:
        for dataset in multiscale.get("datasets") or []:
            if isinstance(dataset, Mapping) and str(dataset.get("path", "")).strip("/") == name:
                scales = [t.get("scale") for t in dataset.get("coordinateTransformations") or [] if isinstance(t, Mapping) and t.get("type") == "scale"]
                return f"{name} (scale {scales[0]})" if scales else name
    if node.format == "precomputed":
        for scale in node.docs["info"].get("scales") or []:
            if scale.get("key") == name:
                return f"{name} (resolution {scale.get('resolution')} nm, xyz)"
    return name


def describe_levels(node: Node, names) -> str:
    """The levels of a group with the voxel sizes its document gives, for error messages."""
    return ", ".join(_scale_text(node, n) for n in names) or "none"


def _pick(node: Node, level: Any, names: tuple[str, ...]) -> str:
    if level is None:
        raise ValueError(f"{node.path}: is a group; name a level (level=) from: {describe_levels(node, names)}")
    if isinstance(level, bool):
        raise ValueError(f"{node.path}: level is {level!r}; expected a name, a position or 'first'")
    if level == "first":
        level = 0
    if isinstance(level, int):
        if not -len(names) <= level < len(names):
            raise ValueError(f"{node.path}: level {level} does not exist; the levels are {describe_levels(node, names)}")
        return names[level]
    if isinstance(level, str):
        name = level.strip("/")
        if name in names:
            return name
        if node.format == "precomputed":
            key = scale_key_of(node, name)
            if key is not None:
                return key
        return name  # an array path under the group; gather() says when nothing is there
    raise ValueError(f"{node.path}: level is {level!r}; expected a name, a position or 'first'")


def resolve(path, level: Any = None, found: Gathered | None = None) -> Gathered:
    """Return the documents of the array that ``path`` and ``level`` name.

    Raises
    ------
    ValueError
        For a group path without a level, or a level that does not exist (listing the levels).
    FileNotFoundError
        When nothing is at ``path``.
    """
    found = found or gather(path)
    node = found.node
    if node.kind == "array":
        if level not in (None, 0, "first"):
            warnings.warn(f"{node.path}: is an array; level={level!r} is ignored", UserWarning, stacklevel=3)
        return found
    names = level_names(node)
    name = _pick(node, level, names)
    if node.format == "precomputed":
        return Gathered(Node("precomputed", "array", node.path, node.docs, name), ())
    try:
        chosen = gather(store.join(node.path, name), above=found)
    except FileNotFoundError as error:
        raise ValueError(
            f"{node.path}: level {level!r} names {name!r}, where there is no array; the levels are {describe_levels(node, names)}"
        ) from error
    source_of(chosen)  # a level must be an array
    return chosen
