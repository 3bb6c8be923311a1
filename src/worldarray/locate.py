"""The array a path and ``level=`` name is located: the path's documents gathered in one round (``detect``), the
level chosen among the group's (``levels``, which reads nothing), and the chosen level's documents gathered.

A group that lists no levels is probed for s0, s1, ... (``level_names``); a bioformats2raw root is refused naming
its images. ``choose`` is the one way from a path, a level and a voxel size to a ``Choice``.
"""

from __future__ import annotations


from . import rounds, store
from .detect import gather, probe
from .diagnostics import quiet, warn
from .fields import Placement
from .formats import FORMATS
from .geometry import SizesOrNone
from .levels import Choice, Level, describe_levels, group_source, listed_by_parent, listed_names, pick, select_level
from .metadata import ArrayMeta, level_placements, parse
from .nodes import Gathered, Node, source_of

__all__ = ["choose", "resolve", "level_names", "refuse_bioformats2raw", "first_placement", "BIOFORMATS2RAW_KEY"]

_PROBE_BATCH = 8


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
    listed = listed_names(node)
    return listed if listed is not None else _probed(node.path)


#: The attribute that marks a bioformats2raw root (at the top in OME 0.4, under ``ome`` in 0.5).
BIOFORMATS2RAW_KEY = "bioformats2raw.layout"


def refuse_bioformats2raw(node: Node) -> None:
    """A bioformats2raw root lists no levels: its images are the OME groups ``0``, ``1``, ... below it, each opened
    on its own, so choosing a level of the root is a ValueError naming the key, its value and the image to open."""
    layout = node.ome_attrs.get(BIOFORMATS2RAW_KEY)
    if layout is None:
        return
    series = _bioformats2raw_series(node.path)
    first = store.join(node.path, series[0] if series else "0")
    listing = f" (series {', '.join(series)})" if series else ""
    raise ValueError(f"{node.attrs_url}: {BIOFORMATS2RAW_KEY} is {layout!r}; expected an OME multiscales group. "
                     f"{node.path} is a bioformats2raw root, whose images are the groups below it{listing}: open one "
                     f"of them, such as wa.open({first!r}, level=0)")


def _bioformats2raw_series(path: str) -> tuple[str, ...]:
    """The image paths a bioformats2raw root's ``OME`` group lists in its ``series`` attribute; () when it lists none
    or cannot be read, since the list only helps an error message."""
    try:
        found = probe(store.join(path, "OME"))
    except (OSError, ValueError):
        return ()
    series = found.node.ome_attrs.get("series") if found is not None else None
    if not isinstance(series, list) or not all(isinstance(s, str) for s in series):
        return ()
    return tuple(series)


def resolve(path: str, level: Level = None, found: Gathered | None = None) -> Gathered:
    """Return the documents of the array that ``path`` and ``level`` name.

    Raises
    ------
    ValueError
        For a group path without a level, or a level that does not exist (listing the levels).
    FileNotFoundError
        When nothing is at ``path``.
    """
    with rounds.remembering():
        return _resolved(path, level, found or gather(path, level=level))


def _resolved(path: str, level: Level, found: Gathered) -> Gathered:
    node = found.node
    if node.kind == "array":
        if level not in (None, 0, "first"):
            warn(f"{node.path}: is an array; level={level!r} is ignored", UserWarning)
        return found
    names = level_names(node)
    if not names and not (isinstance(level, str) and level != "first"):  # a path under the group may still be one
        refuse_bioformats2raw(node)
    name = pick(node, level, names)
    if FORMATS[node.format].levels_in_info:
        return Gathered(Node(node.format, "array", node.path, node.docs, name), ())
    try:
        chosen = gather(store.join(node.path, name), above=found)
    except FileNotFoundError as error:
        raise ValueError(
            f"{node.path}: level {level!r} names {name!r}, where there is no array; the levels are "
            f"{describe_levels(node, names)}"
        ) from error
    source_of(chosen)  # a level must be an array
    return chosen


def _as_placement(meta: ArrayMeta) -> Placement:
    return Placement(meta.voxel_size, meta.translation, meta.units, meta.axes)


def _placement_to_choose(found: Gathered) -> Placement:
    """A level's placement read only to choose a level or scale one, quietly: the level opened warns itself."""
    with quiet():
        return _as_placement(parse(source_of(found)))


def _first_beside(found: Gathered) -> Gathered:
    """The first level of the group an array path is a level of (found by probing when its document lists none);
    the array itself when its parent is no such group."""
    node = found.node
    up = store.parent(node.path)
    if FORMATS[node.format].levels_in_info or not found.ancestors or up is None or store.is_root(up):
        return found
    parent = probe(up)
    if parent is None or parent.node.kind != "group":
        return found
    names = level_names(parent.node)
    if store.basename(node.path) not in names or names[0] == store.basename(node.path):
        return found
    return gather(store.join(up, names[0]), above=parent)


def first_placement(choice: Choice) -> Placement:
    """Level 0's placement in the store's units: the group's first level wherever the path points, from the
    group document when it lists the levels."""
    if choice.listed:
        return choice.listed[0][1]
    if choice.group is None:
        return _placement_to_choose(_first_beside(choice.found))
    return _placement_to_choose(gather(store.join(choice.group.node.path, choice.names[0]), above=choice.group))


def _placements_of(node: Node, found: Gathered, names) -> tuple[tuple[str, Placement], ...]:
    """Each level's placement from the group document, else by reading each level's documents."""
    listed = level_placements(group_source(node))
    if listed:
        return tuple(listed)
    out = []
    for name in names:
        out.append((name, _placement_to_choose(gather(store.join(node.path, name), above=found))))
    return tuple(out)


def choose(path: str, level: Level = None, voxel_size: SizesOrNone | None = None,
           level_mode: str = "floor", sizes=None) -> Choice:
    """Return the array that ``path``, ``level`` and ``voxel_size`` name.

    An array path is that array whatever the voxel size. A group path with a voxel size and no
    level picks by ``select_level(..., level_mode)`` over ``sizes(placement)``, each level's spatial
    voxel size in the caller's units, read from the group document when it lists them. A level given by name is
    read in the same round as the path.
    """
    with rounds.remembering():
        return _choose(path, level, voxel_size, level_mode, sizes)


def _choose(path: str, level: Level, voxel_size: SizesOrNone | None, level_mode: str, sizes) -> Choice:
    found = gather(path, level=level)
    node = found.node
    if node.kind == "array":
        found = resolve(path, level, found)
        above = listed_by_parent(found)
        if above is None or not above.levels:
            own = found.node.scale_key or store.basename(found.node.path)
            return Choice(found, own, (own,), None, None)
        return Choice(found, above.name, tuple(n for n, _ in above.levels), None, above.levels)
    names = level_names(node)
    listing = level_placements(group_source(node))
    listed = tuple(listing) if listing else None
    if level is None and voxel_size is not None and names:
        placements = listed or _placements_of(node, found, names)
        level = select_level([(n, sizes(p)) for n, p in placements], voxel_size, level_mode)[0]
    chosen = resolve(path, level, found)
    name = chosen.node.scale_key or chosen.node.path[len(node.path) :].strip("/")
    group = found if not FORMATS[node.format].levels_in_info else None
    return Choice(chosen, name, names, group, listed)
