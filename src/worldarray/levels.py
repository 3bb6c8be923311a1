"""``level=`` means one thing everywhere: a name, a position (0 or "first"), a precomputed scale key, or an array
path under the group; ``level_mode`` and ``on_mismatch`` are read here too. Nothing here reads a document: the
choice is made from documents already read (``locate`` gathers them).

An array path (or a precomputed path naming a scale) is that array: level None, 0 or "first" is silently the array,
any other level warns and is ignored. A group path needs a level. A level's placement comes from the group's
document when it lists the levels (so choosing one opens nothing); when the level's own documents place it
differently, that is a conflict (``check_listing``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from .diagnostics import warn
from .fields import Document, Placement, Source
from .formats import FORMATS
from .layout import asset_of, layout_of
from .geometry import (SizesOrNone, isclose, magnitudes, no_coarser, one_number, same, size_ratio,
                       sizes_or_none, voxel_volume)
from .metadata import ArrayMeta, Placements, listed_levels
from .nodes import Gathered, Node, scale_key_of
from .ome import dataset_scale, first_listing, walk
from .precomputed import scale_keys, scales
from .units import NANOMETER, convert

__all__ = ["LEVEL_MODES", "ON_MISMATCH", "Level", "Choice", "Listing", "listed_names", "pick", "select_level",
           "mismatch_policy", "check_listing", "describe_levels", "group_source", "listed_by_parent"]

#: What ``level=`` may be: a name, a position (0 is the first listed), "first", or None.
Level: TypeAlias = "str | int | None"

def _scale_keys(node: Node) -> tuple[str, ...]:
    """A precomputed volume's levels: its info's scale keys, in order; ValueError naming the info when ``scales`` is
    missing, empty or malformed."""
    return scale_keys(node.docs["info"], node.attrs_url)


def listed_names(node: Node) -> tuple[str, ...] | None:
    """Level names the group's own document lists: precomputed scale keys, a ``multiscales`` layout's assets, or the
    first multiscale's dataset paths."""
    if FORMATS[node.format].levels_in_info:
        return _scale_keys(node)
    assets = layout_of(node.attrs, node.attrs_url)
    if assets is not None:
        return tuple(entry.asset for entry in assets)
    listing = first_listing(node.attrs, node.attrs_url)
    return tuple(path for path, _ in listing[1]) if listing else None


def _scale_text(node: Node, name: str) -> str:
    for _, path, dataset in walk(node.attrs, node.attrs_url):
        if path == name:
            scale = dataset_scale(dataset)
            return f"{name} (scale {scale})" if scale is not None else name
    if FORMATS[node.format].levels_in_info:
        for entry in scales(node.docs["info"], node.attrs_url):
            if entry.get("key") == name:
                return f"{name} (resolution {entry.get('resolution')} nm, xyz)"
    return name


def describe_levels(node: Node, names) -> str:
    """The levels of a group with the voxel sizes its document gives, for error messages."""
    return ", ".join(_scale_text(node, n) for n in names) or "none"


def pick(node: Node, level: Any, names: tuple[str, ...]) -> str:
    """The level name ``level`` means among a group's ``names``: a name, a position, "first", a precomputed scale
    key or ``s<N>``, or an array path under the group (returned as given, for the caller to find)."""
    if level is None:
        raise ValueError(f"{node.path}: is a group; name a level (level=) from: {describe_levels(node, names)}")
    if isinstance(level, bool):
        raise ValueError(f"{node.path}: level is {level!r}; expected a name, a position or 'first'")
    if isinstance(level, str) and level == "first":
        level = 0
    if isinstance(level, int):
        if not -len(names) <= level < len(names):
            raise ValueError(f"{node.path}: level {level} does not exist; the levels are "
                             f"{describe_levels(node, names)}")
        return names[level]
    if isinstance(level, str):
        name = level.strip("/")
        if name in names:
            return name
        if FORMATS[node.format].levels_in_info:
            key = scale_key_of(node, name)
            if key is None:  # a precomputed volume's levels are its scales and nothing else
                raise ValueError(f"{node.path}: level {level!r} does not exist; the levels are "
                                 f"{describe_levels(node, names)}")
            return key
        return name  # an array path under the group; gather() says when nothing is there
    raise ValueError(f"{node.path}: level is {level!r}; expected a name, a position or 'first'")


#: The ways a voxel size picks a level (Behaviour 3).
LEVEL_MODES = ("floor", "finer", "exact", "nearest", "resample")

#: What happens when no level has the voxel size asked for (Behaviour 3).
ON_MISMATCH = ("error", "resample", "relabel", "keep")


def mismatch_policy(on_mismatch: str, level_mode: str) -> str:
    """What a handle does when its level is not at the voxel size asked for: ``level_mode="resample"`` resamples
    and ``"exact"`` refuses, whatever ``on_mismatch`` says; "keep" keeps the level's own size."""
    if on_mismatch == "keep":
        return "keep"
    if "resample" in (on_mismatch, level_mode):
        return "resample"
    if on_mismatch == "error" or level_mode == "exact":
        return "error"
    return on_mismatch


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


def _first_like(entries, best):
    """The first listed entry the same as ``best`` within rtol 1e-6: among equal levels the first listed wins."""
    return next(entry for entry in entries if same(entry[1], best[1]))


def _nearest(entries, target):
    """The entry closest to ``target`` on a log scale summed over axes; distances equal within ``RTOL`` (float
    rounding of the logs) are a tie, which the finer level wins."""
    def distance(entry) -> float:
        return sum(abs(math.log(size_ratio(s, t))) for s, t in zip(entry[1], target, strict=True))

    best = min(distance(entry) for entry in entries)
    tied = [entry for entry in entries if isclose(distance(entry), best)]
    return _first_like(tied, min(tied, key=lambda entry: voxel_volume(entry[1])))


def _chosen(entries, target, mode: str, asked: tuple, listing: Callable[[], str]):
    """The entry ``mode`` picks for ``target`` among (item, sizes) ``entries``, sizes and target on the axes that
    choose; ``asked`` (the voxel size as given) and ``listing`` (every level) are for the errors."""
    for entry in entries:
        if same(entry[1], target):
            return entry
    if mode == "exact":
        raise ValueError(f"no level has voxel size {asked}; the levels are {listing()}")
    if mode == "nearest":
        return _nearest(entries, target)
    finer = [entry for entry in entries if no_coarser(entry[1], target)]
    if finer:
        return _first_like(finer, max(finer, key=lambda entry: voxel_volume(entry[1])))
    if mode == "finer":
        raise ValueError(f"every level is coarser than voxel size {asked} on some axis; "
                         f"the levels are {listing()}")
    return entries[0]


def select_level(levels: Sequence[Any], voxel_size: SizesOrNone, mode: str = "floor") -> Any:
    """Pick the level for a voxel size: floor, finer, exact, nearest or resample.

    ``levels`` holds (name, voxel_size) pairs or objects with ``.voxel_size``; the chosen entry is
    returned as given. Voxel sizes compare as floats with rtol 1e-6; one number means that size on every
    axis. floor: the level at that size, else the coarsest no coarser than the target on any axis, else the
    first; finer: as floor but ValueError instead of the first; exact: that level or ValueError; nearest: the
    closest on a log scale summed over axes, the finer on a tie (distances within rtol 1e-6); resample: the
    level floor picks, to resample from. An axis whose entry is None takes no part: every mode compares the
    other axes only, and among levels equal on those the first listed wins.

    >>> select_level([("s0", (4, 4)), ("s1", (8, 8))], (6, 6))
    ('s0', (4, 4))
    >>> select_level([("s0", (40, 4, 4)), ("s1", (40, 8, 8))], (None, 8, 8))
    ('s1', (40, 8, 8))
    """
    if mode not in LEVEL_MODES:
        raise ValueError(f"level_mode is {mode!r}; expected one of {LEVEL_MODES}")
    entries = [(item, _sizes_of(item)) for item in levels]
    if not entries:
        raise ValueError("select_level: no levels to choose from")
    wanted = sizes_or_none(one_number(voxel_size), len(entries[0][1]), "voxel_size")
    for item, sizes in entries:
        if len(sizes) != len(wanted):
            raise ValueError(f"voxel_size {wanted} has {len(wanted)} entries; level {_name_of(item)} has {sizes}")
    axes = [k for k, size in enumerate(wanted) if size is not None]
    # the direction of a step is no part of the choice: a north-up level at -8 is a level at 8
    compared = [(index, magnitudes(sizes[k] for k in axes)) for index, (_, sizes) in enumerate(entries)]
    target = tuple(size for size in wanted if size is not None)
    index, _ = _chosen(compared, target, mode, wanted, lambda: _listing(entries))
    return entries[index][0]


@dataclass(frozen=True)
class Choice:
    """The array a path, level and voxel size name, with the pyramid it belongs to."""

    found: Gathered
    name: str
    names: tuple[str, ...]
    group: Gathered | None  # the group holding the levels; None for a lone array or a precomputed scale
    listed: Placements | None  # every level's placement from the group document, each placed when asked for

    def listed_placement(self) -> Placement | None:
        """The chosen level's placement as the group's document lists it, None when it lists none."""
        return self.listed.get(self.name) if self.listed else None


def group_source(node: Node) -> Source:
    """A group's documents as ``metadata.level_placements`` takes them."""
    url = node.attrs_url
    return Source(node.format, node.path, node.docs.get("info", {}), url, Document(node.path, url, node.attrs))


@dataclass(frozen=True)
class Listing:
    """The pyramid an array belongs to: the group whose document lists it, its name there, every listed level's
    placement when the document gives them (a ``multiscales`` layout gives none) and every level's name."""

    group: str
    name: str
    levels: Placements | tuple[()]
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.names and isinstance(self.levels, Placements):
            object.__setattr__(self, "names", self.levels.names)


def listed_by_parent(found: Gathered) -> Listing | None:
    """The pyramid an array belongs to, found by the walk that places it: its parent's document, else an ancestor's
    up to four levels above whose multiscales list it by its path from there ("seg/s0"); None when none lists it.
    Each listed level is placed when first asked for."""
    node = found.node
    if FORMATS[node.format].levels_in_info:
        return Listing(node.path, str(node.scale_key), listed_levels(group_source(node)) or ())
    layout = asset_of(found.ancestors[:4], node.path)
    if layout is not None:
        group, entry, _ = layout
        return Listing(group.path, entry.asset, (), tuple(e.asset for e in layout_of(group.attrs, group.url) or ()))
    parts = node.path.rstrip("/").split("/")
    for depth, doc in enumerate(found.ancestors[:4], start=1):
        relative = "/".join(parts[-depth:])
        listed = listed_levels(Source(node.format, doc.path, {}, doc.url, doc))
        if listed and relative in listed.names:
            return Listing(doc.path, relative, listed)
    return None


def _in_nanometres(placement: Placement, ndim: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A placement's trailing ``ndim`` entries, spatial axes in nanometres, to compare two placements of one level."""
    spatial = placement.spatial_indices
    targets = [NANOMETER if i in spatial else None for i in range(len(placement.voxel_size))]
    sizes, shifts, _ = convert(placement.voxel_size, placement.translation, placement.units, targets, spatial,
                               strict=False, quiet=True)
    return sizes[len(sizes) - ndim:], shifts[len(shifts) - ndim:]


def _placed_by_the_listing(choice: Choice, meta: ArrayMeta) -> bool:
    """Whether the rule that placed the level read the very entry the listing holds, so the two agree by
    construction: the OME rule, for a level its parent's document lists (the first multiscale listing a level is
    the one the rule finds it in), and the precomputed rule, whose listing is the level's own info."""
    return (meta.placed_by == "ome" and "/" not in choice.name) or meta.placed_by == "precomputed"


def check_listing(choice: Choice, meta: ArrayMeta, conflicts: str = "error") -> None:
    """The level's own documents and the group's entry for it must place it alike (rtol 1e-6); else ValueError naming
    both, or with ``conflicts="warn"`` a warning, the level's own placement kept."""
    if _placed_by_the_listing(choice, meta):
        return
    listed = choice.listed_placement()
    if listed is None:
        return
    own = meta.placement
    ndim = min(len(listed.voxel_size), meta.ndim)
    (a_size, a_shift), (b_size, b_shift) = _in_nanometres(listed, ndim), _in_nanometres(own, ndim)
    if same(a_size, b_size) and same(a_shift, b_shift):
        return
    message = (f"{meta.path}: the group's document lists level {choice.name!r} at voxel size {listed.voxel_size}, "
               f"translation {listed.translation}; the level's own document ({meta.placed_by}) places it at voxel "
               f"size {meta.voxel_size}, translation {meta.translation}")
    if conflicts != "warn":
        raise ValueError(message + " (pass metadata_conflicts='warn' to read with the level's own)")
    warn(message + "; reading with the level's own")
