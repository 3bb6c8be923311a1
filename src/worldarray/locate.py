"""The array a path and ``level=`` name is located: the path's documents gathered in one round (``detect``), the
level chosen among the group's (``levels``, which reads nothing), and the chosen level's documents gathered.

A group that lists no levels is probed for s0, s1, ... (``level_names``); a bioformats2raw root is refused naming
its images. ``choose`` is the one way from a path, a level and a voxel size to a ``Choice``.
"""

from __future__ import annotations


from collections.abc import Mapping

from . import rounds, store
from .detect import gather, probe, requests_for
from .diagnostics import quiet, warn
from .fields import Placement
from .formats import FORMATS
from .geometry import SizesOrNone
from .layout import asset_of, layout_of
from .levels import Choice, Level, describe_levels, group_source, listed_by_parent, listed_names, pick, select_level
from .metadata import FACTS, level_placements, listed_levels, parse
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


def resolve(path: str, level: Level = None, found: Gathered | None = None, array: str | None = None,
            names: tuple[str, ...] | None = None) -> Gathered:
    """Return the documents of the array that ``path`` and ``level`` name (``array``: the array inside a layout
    level that is a group holding several; ``names``: the group's level names, when the caller has them).

    Raises
    ------
    ValueError
        For a group path without a level, or a level that does not exist (listing the levels).
    FileNotFoundError
        When nothing is at ``path``.
    """
    with rounds.remembering():
        return _resolved(path, level, found or gather(path, level=level), array, names)


def _resolved(path: str, level: Level, found: Gathered, array: str | None = None,
              names: tuple[str, ...] | None = None) -> Gathered:
    node = found.node
    if node.kind == "group" and asset_of(found.ancestors, node.path) is not None:
        found = asset_array(found, array)  # a layout's level that is a group: the array in it
        node = found.node
    if node.kind == "array":
        if level not in (None, 0, "first"):
            warn(f"{node.path}: is an array; level={level!r} is ignored", UserWarning)
        return found
    names = level_names(node) if names is None else names
    if not names and not (isinstance(level, str) and level != "first"):  # a path under the group may still be one
        refuse_bioformats2raw(node)
    name = pick(node, level, names)
    if FORMATS[node.format].levels_in_info:
        return Gathered(Node(node.format, "array", node.path, node.docs, name), ())
    try:
        chosen = level_array(found, name, array)
    except FileNotFoundError as error:
        raise ValueError(
            f"{node.path}: level {level!r} names {name!r}, where there is no array; the levels are "
            f"{describe_levels(node, names)}"
        ) from error
    source_of(chosen)  # a level must be an array
    return chosen


def level_array(group: Gathered, name: str, array: str | None = None) -> Gathered:
    """The documents of the array a group's level ``name`` is: the array at that path, or, for a ``multiscales``
    layout's level that is a group, the array inside it (``asset_array``)."""
    found = gather(store.join(group.node.path, name), above=group)
    if found.node.kind == "group" and layout_of(group.node.attrs, group.node.attrs_url) is not None:
        return asset_array(found, array)
    return found


def _layout_dimensions(found: Gathered) -> tuple[str, ...]:
    """The ``spatial:dimensions`` an asset group's arrays inherit (the group's own, else the layout group's)."""
    layout = asset_of(found.ancestors, found.node.path)
    for attrs in (found.node.attrs, layout[0].attrs if layout else {}):
        names = attrs.get("spatial:dimensions")
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            return tuple(names)
    return ()


def _array_names(found: Gathered) -> tuple[str, ...]:
    """The names directly inside a group: the arrays of the consolidated copy its own document holds, else the
    directories below it."""
    node = found.node
    layout = FORMATS[node.format].consolidated
    copy = layout.copy_of(node.docs.get(layout.holder)) if layout is not None and layout.beside_attributes else None
    if copy is not None:
        return tuple(sorted(key for key, doc in copy.items()
                            if "/" not in key and isinstance(doc, Mapping) and doc.get("node_type") == "array"))
    try:
        return tuple(store.child_names(node.path))
    except OSError as error:
        raise ValueError(f"{node.path}: is a level of a multiscales layout and a group whose arrays cannot be listed "
                         f"({error}); pass array=NAME to name the level's array") from error


def _children(found: Gathered, names: tuple[str, ...]) -> list[Gathered | None]:
    """What each name below a group holds (None where nothing is), every child's documents read in one round."""
    paths = [store.join(found.node.path, name) for name in names]
    with rounds.remembering():
        store.read_documents([request for path in paths for request in requests_for(path, above=found)[0]])
        return [probe(path, above=found) for path in paths]


def asset_array(found: Gathered, array: str | None = None) -> Gathered:
    """The array a ``multiscales`` layout's level that is a group stands for: the one ``array`` names, else the one
    array inside it whose dimension names hold the layout's ``spatial:dimensions`` (1-D coordinate arrays and a 0-d
    grid mapping do not count); ValueError naming the group and its arrays when none or several do."""
    node = found.node
    if array is not None:
        try:
            return gather(store.join(node.path, array), above=found)
        except FileNotFoundError:
            raise ValueError(f"{node.path}: array={array!r} names no array in this level; its arrays are "
                             f"{list(_array_names(found))}") from None
    wanted = set(_layout_dimensions(found))
    names = _array_names(found)
    held = []
    for name, child in zip(names, _children(found, names), strict=True):
        with quiet():
            facts = FACTS[child.node.format](source_of(child)) if child and child.node.kind == "array" else None
        if child is not None and facts is not None and len(facts.shape) >= 2 and wanted <= set(facts.names or ()):
            held.append((name, child))
    if len(held) == 1:
        return held[0][1]
    dims = f"the spatial dimensions {sorted(wanted)}" if wanted else "two or more dimensions"
    found_text = f"{[n for n, _ in held]} hold {dims}" if held else f"none of its arrays {list(names)} holds {dims}"
    raise ValueError(f"{node.path}: is a level of a multiscales layout and a group; {found_text}: pass "
                     "array=NAME to name the level's array")


def _placement_to_choose(found: Gathered) -> Placement:
    """A level's placement read only to choose a level or scale one, quietly: the level opened warns itself."""
    with quiet():
        return parse(source_of(found)).placement


def _first_beside(found: Gathered, array: str | None = None) -> Gathered:
    """The first level of the group an array path is a level of (found by probing when its document lists none);
    the array itself when its parent is no such group."""
    node = found.node
    layout = asset_of(found.ancestors, node.path)
    if layout is not None:
        group, _, _ = layout
        first = (layout_of(group.attrs, group.url) or ())[0].asset
        return level_array(gather(group.path), first, array)
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


def first_placement(choice: Choice, array: str | None = None) -> Placement:
    """Level 0's placement in the store's units: the group's first level wherever the path points, from the
    group document when it lists the levels."""
    if choice.listed:
        return choice.listed[0][1]
    if choice.group is None:
        return _placement_to_choose(_first_beside(choice.found, array))
    return _placement_to_choose(level_array(choice.group, choice.names[0], array))


def _placements_of(node: Node, found: Gathered, names, array: str | None) -> tuple[tuple[str, Placement], ...]:
    """Each level's placement from the group document, else by reading each level's documents."""
    listed = level_placements(group_source(node))
    if listed:
        return tuple(listed)
    return tuple((name, _placement_to_choose(level_array(found, name, array))) for name in names)


def choose(path: str, level: Level = None, voxel_size: SizesOrNone | None = None,
           level_mode: str = "floor", sizes=None, array: str | None = None) -> Choice:
    """Return the array that ``path``, ``level`` and ``voxel_size`` name.

    An array path is that array whatever the voxel size. A group path with a voxel size and no
    level picks by ``select_level(..., level_mode)`` over ``sizes(placement)``, each level's spatial
    voxel size in the caller's units, read from the group document when it lists them. A level given by name is
    read in the same round as the path. ``array`` names the array inside a ``multiscales`` layout's level that is
    a group holding several.
    """
    with rounds.remembering():
        return _choose(path, level, voxel_size, level_mode, sizes, array)


def _choose(path: str, level: Level, voxel_size: SizesOrNone | None, level_mode: str, sizes,
            array: str | None) -> Choice:
    found = gather(path, level=level)
    node = found.node
    if node.kind == "array" or asset_of(found.ancestors, node.path) is not None:
        found = resolve(path, level, found, array)
        above = listed_by_parent(found)
        if above is None or not above.names:
            own = found.node.scale_key or store.basename(found.node.path)
            return Choice(found, own, (own,), None, None)
        return Choice(found, above.name, above.names, None, above.levels or None)
    listed = listed_levels(group_source(node)) or None
    names = listed.names if listed is not None else level_names(node)  # the names the listing was placed by
    if level is None and voxel_size is not None and names:
        placements = listed or _placements_of(node, found, names, array)
        level = select_level([(n, sizes(p)) for n, p in placements], voxel_size, level_mode)[0]
    chosen = resolve(path, level, found, array, names)
    name = chosen.node.scale_key or chosen.node.path[len(node.path) :].strip("/")
    name = next((n for n in names if name.startswith(n + "/")), name)  # a layout level's array: the level's name
    group = found if not FORMATS[node.format].levels_in_info else None
    return Choice(chosen, name, names, group, listed)
