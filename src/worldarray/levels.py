"""``level=`` means one thing everywhere: a name, a position (0 or "first"), a precomputed scale key, or an array path under the group.

An array path (or a precomputed path naming a scale) is that array: level None, 0 or "first" is
silently the array, any other level warns and is ignored. A group path needs a level.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Mapping

from . import store
from .detect import Gathered, Node, attrs_url, gather, scale_key_of, source_of
from .documents import Document, Placement, Source
from .metadata import level_placements, multiscales_of, parse
from .ome import dataset_path

__all__ = ["LEVEL_MODES", "Choice", "choose", "level_names", "resolve", "select_level"]

_PROBE_BATCH = 8


def _listed(node: Node) -> tuple[str, ...] | None:
    """Level names the group's own document lists: precomputed scale keys, or multiscales[0] dataset paths."""
    if node.format == "precomputed":
        return tuple(str(s.get("key")) for s in node.docs["info"].get("scales") or [] if isinstance(s, Mapping))
    for multiscale in multiscales_of(node.attrs) or []:
        datasets = multiscale.get("datasets") if isinstance(multiscale, Mapping) else None
        names = [dataset_path(d) for d in datasets or []]
        if any(names):
            return tuple(n for n in names if n)
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
            if dataset_path(dataset) == name:
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


#: The ways a voxel size picks a level (Behaviour 3).
LEVEL_MODES = ("floor", "finer", "exact", "nearest", "resample")


def _sizes_of(item) -> tuple[float, ...]:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        return tuple(float(v) for v in item[1])
    return tuple(float(v) for v in item.voxel_size)


def _name_of(item) -> str:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        return item[0]
    return str(getattr(item, "level_name", None) or getattr(item, "name", None) or getattr(item, "path", item))


def _listing(entries) -> str:
    return ", ".join(f"{_name_of(item)} {tuple(sizes)}" for item, sizes in entries) or "none"


def _same(a, b) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-6) for x, y in zip(a, b))


def select_level(levels, voxel_size, mode: str = "floor"):
    """Pick the level for a voxel size: floor, finer, exact, nearest or resample (Behaviour 3).

    ``levels`` holds (name, voxel_size) pairs or objects with ``.voxel_size``; the chosen entry is
    returned as given. Voxel sizes compare as floats with rtol 1e-6. floor: the level at that size,
    else the coarsest no coarser than the target on any axis, else the first; finer: as floor but
    ValueError instead of the first; exact: that level or ValueError; nearest: the closest on a log
    scale summed over axes, the finer on a tie; resample: the level floor picks, to resample from.

    >>> select_level([("s0", (4, 4)), ("s1", (8, 8))], (6, 6))
    ('s0', (4, 4))
    """
    if mode not in LEVEL_MODES:
        raise ValueError(f"level_mode is {mode!r}; expected one of {LEVEL_MODES}")
    entries = [(item, _sizes_of(item)) for item in levels]
    target = (float(voxel_size),) if isinstance(voxel_size, (int, float)) else tuple(float(v) for v in voxel_size)
    if not entries:
        raise ValueError("select_level: no levels to choose from")
    if not all(math.isfinite(v) and v > 0 for v in target):
        raise ValueError(f"voxel_size is {voxel_size!r}; expected finite sizes > 0")
    if len(target) == 1:  # one number means that size on every spatial axis
        target = target * len(entries[0][1])
    for item, sizes in entries:
        if len(sizes) != len(target):
            raise ValueError(f"voxel_size {target} has {len(target)} entries; level {_name_of(item)} has {sizes}")
        if _same(sizes, target):
            return item
    if mode == "exact":
        raise ValueError(f"no level has voxel size {target}; the levels are {_listing(entries)}")
    if mode == "nearest":
        def distance(entry):
            sizes = entry[1]
            return (sum(abs(math.log(s / t)) for s, t in zip(sizes, target)), math.prod(sizes))

        return min(entries, key=distance)[0]
    finer = [(item, sizes) for item, sizes in entries if all(s <= t * (1 + 1e-6) for s, t in zip(sizes, target))]
    if finer:
        return max(finer, key=lambda entry: math.prod(entry[1]))[0]
    if mode == "finer":
        raise ValueError(f"every level is coarser than voxel size {target} on some axis; the levels are {_listing(entries)}")
    return entries[0][0]


@dataclass(frozen=True)
class Choice:
    """The array a path, level and voxel size name, with the pyramid it belongs to."""

    found: Gathered
    name: str
    names: tuple[str, ...]
    group: Gathered | None  # the group holding the levels; None for a lone array or a precomputed scale
    listed: tuple[tuple[str, Placement], ...] | None  # every level's placement from the group document

    def first_placement(self) -> Placement:
        """Level 0's placement in the store's units, from the group document when it lists one."""
        if self.listed:
            return self.listed[0][1]
        if self.group is None:
            return _as_placement(parse(source_of(self.found)))
        first = gather(store.join(self.group.node.path, self.names[0]), above=self.group)
        return _as_placement(parse(source_of(first)))


def group_source(node: Node) -> Source:
    url = attrs_url(node)
    return Source(node.format, node.path, node.docs.get("info", {}), url, Document(node.path, url, node.attrs))


def listed_by_parent(found: Gathered) -> tuple[tuple[str, Placement], ...] | None:
    """The levels an array's parent document lists, when it lists this array among them."""
    node = found.node
    if node.format == "precomputed":
        return tuple(level_placements(group_source(node)) or ())
    if not found.ancestors:
        return None
    parent = found.ancestors[0]
    listed = level_placements(Source(node.format, parent.path, {}, parent.url, parent))
    if not listed or store.basename(node.path) not in [n for n, _ in listed]:
        return None
    return tuple(listed)


def _as_placement(meta) -> Placement:
    return Placement(meta.voxel_size, meta.translation, meta.units, meta.axes)


def _placements_of(node: Node, found: Gathered, names) -> tuple[tuple[str, Placement], ...]:
    """Each level's placement from the group document, else by reading each level's documents."""
    listed = level_placements(group_source(node))
    if listed:
        return tuple(listed)
    out = []
    for name in names:
        level = gather(store.join(node.path, name), above=found)
        out.append((name, _as_placement(parse(source_of(level)))))
    return tuple(out)


def choose(path, level: Any = None, voxel_size=None, level_mode: str = "floor", sizes=None) -> Choice:
    """Return the array that ``path``, ``level`` and ``voxel_size`` name (Behaviour 3).

    An array path is that array whatever the voxel size. A group path with a voxel size and no
    level picks by ``select_level(..., level_mode)`` over ``sizes(placement)``, each level's spatial
    voxel size in the caller's units, read from the group document when it lists them.
    """
    found = gather(path)
    node = found.node
    if node.kind == "array":
        found = resolve(path, level, found)
        name = found.node.scale_key or store.basename(found.node.path)
        listed = listed_by_parent(found)
        names = tuple(n for n, _ in listed) if listed else (name,)
        return Choice(found, name, names, None, listed or None)
    names = level_names(node)
    listed = level_placements(group_source(node))
    if level is None and voxel_size is not None and names:
        placements = listed or _placements_of(node, found, names)
        mode = "floor" if level_mode == "resample" else level_mode
        level = select_level([(n, sizes(p)) for n, p in placements], voxel_size, mode)[0]
    chosen = resolve(path, level, found)
    name = chosen.node.scale_key or chosen.node.path[len(node.path) :].strip("/")
    return Choice(chosen, name, names, found if node.format != "precomputed" else None, tuple(listed) if listed else None)
