"""A handle's world grid is computed once, at open, and never changes: one frozen ``Frame``.

It starts from the stored level's placement in the units asked for (``base_voxel_size`` rescaling it when given),
applies the level policy when the level is not at the voxel size asked for (keep, relabel, resample onto Behaviour
4's target grid, or refuse), and drops the axes ``select`` pins. Every question about where a handle's voxels lie
(its box, the voxels a world box selects, a resample target, the write units a box touches) is answered here.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .arguments import index_bounds
from .fields import Placement
from .formats import FORMATS
from .blocks import Blocks, blocks, whole_numbers
from .geometry import (Box, SizesOrNone, as_box, centre_of, centre_rule, centres, corners, default_axes, directed,
                       in_voxels, nonzero, on_grid, one_number, over_axes, per_axis, same, size_ratio,
                       sizes_or_none, snap_integral, spatial_indices, voxel_extent)
from .metadata import ArrayMeta
from .ome_write import axis_units
from .resample import plan_read, target_extent
from .units import NANOMETER, Request, UnitsArgument, convert

__all__ = ["Frame", "frame_of", "rescaled", "base_rescale", "target_grid", "resample_target", "anchor_of", "pins_of",
           "box_bounds", "spatial_placement", "Grid", "shard_shape"]

#: A resample target: the target voxel sizes and the corner of target voxel 0, per spatial axis.
Target = tuple[tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True)
class Frame:
    """Where every voxel of a handle lies, in the units asked for.

    ``meta`` is the handle's grid (``vol.grid``): with a resample target, that target over the data; pinned axes
    gone. ``source`` is the stored level on the same axes, which a resampled read reads from. ``stored`` is the
    stored level on every axis, pinned ones too: the grid its write units and chunk keys are on. ``pins`` are the
    stored axes ``select`` pinned, with their index.

    A handle has one indexing, its own (pinned axes gone): write units and chunk indices are given and returned on
    the handle's axes, and ``unit_index`` fills in a pinned axis's unit where a stored index needs it. On a resampled
    handle they name the stored level's units, the only ones there are.
    """

    meta: ArrayMeta
    source: ArrayMeta
    stored: ArrayMeta
    resampled: bool = False
    pins: tuple[tuple[int, int], ...] = ()
    spatial: tuple[int, ...] = field(init=False)
    voxel_size: tuple[float, ...] = field(init=False)
    translation: tuple[float, ...] = field(init=False)
    corner: tuple[float, ...] = field(init=False)
    grid: tuple[tuple[float, float], ...] = field(init=False, repr=False)  # (translation, voxel size) per axis
    spatial_grid: tuple[tuple[float, float], ...] = field(init=False, repr=False)  # the same, spatial axes
    dtype: np.dtype = field(init=False, repr=False)

    def __post_init__(self) -> None:
        meta = self.meta
        spatial = meta.spatial
        voxel_size = tuple(meta.voxel_size[i] for i in spatial)
        translation = tuple(meta.translation[i] for i in spatial)
        for name, value in (("spatial", spatial), ("voxel_size", voxel_size), ("translation", translation),
                            ("corner", corners(translation, voxel_size)), ("dtype", meta.dtype),
                            ("grid", tuple(zip(meta.translation, meta.voxel_size, strict=True))),
                            ("spatial_grid", tuple(zip(translation, voxel_size, strict=True)))):
            object.__setattr__(self, name, value)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.meta.shape

    @property
    def box(self) -> Box:
        """The extent on the spatial axes, [min, max): from the corner to corner + shape * voxel_size."""
        shape = [self.meta.shape[i] for i in self.spatial]
        return Box.from_index((0,) * len(shape), shape, self.voxel_size, self.translation)

    @property
    def write_shape(self) -> tuple[int, ...]:
        """The unit one writer may own, on the handle's axes: the shard shape when sharded, else the chunk shape."""
        return _write_shape(self.meta)

    def unit_box(self, index: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels [begin, end) of the write unit at ``index`` (the handle's axes), the last unit on an axis
        clipped; ValueError naming the index and the unit grid when it is past the grid."""
        unit, shape = self.write_shape, self.meta.shape
        grid = tuple(-(-n // u) for n, u in zip(shape, unit, strict=True))
        index = index_bounds("index", index)
        if len(index) != len(grid) or not all(0 <= i < g for i, g in zip(index, grid, strict=True)):
            raise ValueError(f"index is {index!r}; expected {len(grid)} whole numbers inside the write-unit grid "
                             f"{grid} (write_shape {unit} over shape {shape})")
        begin = tuple(int(i) * u for i, u in zip(index, unit, strict=True))
        return begin, tuple(min(b + u, n) for b, u, n in zip(begin, unit, shape, strict=True))

    def index_box(self, box: Any, target: Target | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in a world box, on the axes the box covers: the spatial axes,
        or every axis. ``target`` reads the spatial axes on a resample target's grid instead."""
        begin, end = box if _is_pair(box) else box_bounds(box)
        spatial = self.spatial_grid if target is None else self.grid_of(target)
        if len(begin) == len(self.spatial):
            return centre_rule(begin, end, spatial)
        if len(begin) == len(self.meta.axes):
            every = list(self.grid)
            for k, i in enumerate(self.spatial):
                every[i] = spatial[k]
            return centre_rule(begin, end, every)
        raise ValueError(f"box {box!r} has {len(begin)} axes; expected {len(self.spatial)} (spatial "
                         f"{tuple(self.meta.axes[i] for i in self.spatial)}) or {len(self.meta.axes)} (every axis)")

    def grid_of(self, target: Target | None) -> tuple[tuple[float, float], ...]:
        """(translation, voxel size) per spatial axis: of this frame, or of a resample target."""
        if target is None:
            return self.spatial_grid
        sizes, corner = target
        return tuple(zip(centres(corner, sizes), sizes, strict=True))

    def whole(self, begin: Sequence[int], end: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A box over the spatial axes made a box over every axis, the others whole."""
        first, last = [0] * len(self.meta.shape), list(self.meta.shape)
        for k, i in enumerate(self.spatial):
            first[i], last[i] = begin[k], end[k]
        return tuple(first), tuple(last)

    def check_aligned(self, box: Any, target: Target | None = None) -> None:
        """Raise ValueError unless every edge of the box lies on a voxel corner or centre (``read(strict=True)``)."""
        begin, end = box_bounds(box)
        spatial = self.grid_of(target)
        grid = spatial if len(begin) == len(self.spatial) else [
            spatial[self.spatial.index(i)] if i in self.spatial else self.grid[i] for i in range(len(self.meta.axes))]
        for edge, (t, s) in (*zip(begin, grid, strict=True), *zip(end, grid, strict=True)):
            if not on_grid(edge, t, s):
                raise ValueError(f"box {box!r} edge {edge} lies on neither a voxel corner nor a voxel centre "
                                 "(strict=True)")

    def chunks_covering(self, begin: Sequence[int], end: Sequence[int], write: bool = False,
                        method: str = "nearest") -> list[tuple[int, ...]]:
        """The indices of the chunks (``write=True``: the write units) holding the voxels [begin, end) of the handle.

        On a resampled handle [begin, end) are target voxels and the chunks are the stored level's that a read of
        them with ``method`` takes voxels from (the padding aside).
        """
        shape = self.meta.shape
        begin, end = index_bounds("begin", begin), index_bounds("end", end)
        if len(begin) != len(shape) or len(end) != len(shape):
            raise ValueError(f"{self.meta.path}: begin {tuple(begin)} and end {tuple(end)} must have {len(shape)} "
                             f"entries, one per axis {self.meta.axes}")
        if any(b > e for b, e in zip(begin, end, strict=True)):
            raise ValueError(f"{self.meta.path}: begin {begin} is after end {end} on some axis")
        units = _write_shape(self.source) if write else self.source.chunk_shape
        if self.resampled:
            source = self.source
            plans = plan_read(source.shape, source.voxel_size, source.translation, source.spatial,
                              range(len(source.shape)), begin, end, (self.voxel_size, self.corner), method, False)
            voxels = [range(plan.lo, plan.hi, plan.step) for plan in plans]
        else:
            voxels = [range(max(0, b), min(n, e)) for b, e, n in zip(begin, end, shape, strict=True)]
        return list(itertools.product(*(_units_holding(read, c) for read, c in zip(voxels, units, strict=True))))

    @property
    def stored_write_shape(self) -> tuple[int, ...]:
        """The write unit on every stored axis, pinned ones too."""
        return _write_shape(self.stored)

    def stored_box(self, begin: Sequence[int], end: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A voxel box of the handle made a box over every stored axis: [index, index + 1) on each pinned axis."""
        first, last = list(begin), list(end)
        for axis, index in self.pins:
            first.insert(axis, index)
            last.insert(axis, index + 1)
        return tuple(first), tuple(last)

    def unit_index(self, index: Sequence[int]) -> tuple[int, ...]:
        """The stored write unit's index (or key prefix) of a handle's unit index: each pinned axis's unit filled in
        where it falls among the stored axes, before or right after the entries given."""
        pinned, units = dict(self.pins), self.stored_write_shape
        given, found = list(index), []
        for axis in range(len(units)):
            if axis in pinned:
                found.append(pinned[axis] // units[axis])
            elif given:
                found.append(given.pop(0))
            else:
                break
        if given:
            raise ValueError(f"{self.meta.path}: index {tuple(index)} has {len(index)} entries; the handle has "
                             f"{len(self.meta.shape)} axes {self.meta.axes}")
        return tuple(found)

    def handle_unit(self, index: Sequence[int] | None) -> tuple[int, ...] | None:
        """The handle's index of a stored write unit (every stored axis), or None when the unit does not hold the
        pinned indices."""
        pinned, units = dict(self.pins), self.stored_write_shape
        if index is None or any(index[axis] != value // units[axis] for axis, value in pinned.items()):
            return None
        return tuple(i for axis, i in enumerate(index) if axis not in pinned)

    def handle_units(self, indices: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """``handle_unit`` of every stored unit index of a listing, the ones outside the pinned indices left out."""
        if not self.pins:
            return list(indices)
        units = self.stored_write_shape
        wanted = {axis: value // units[axis] for axis, value in self.pins}
        kept = [axis for axis in range(len(units)) if axis not in wanted]
        return [tuple(index[axis] for axis in kept) for index in indices
                if all(index[axis] == unit for axis, unit in wanted.items())]

    def kept(self, select: Mapping[str, int] | None) -> tuple[tuple[tuple[int, int], ...], list[int]]:
        """The pins ``select`` makes on this frame for one read, and the axes left."""
        pins = pins_of(self.meta, select) if select else ()
        pinned = dict(pins)
        return pins, [i for i in range(len(self.meta.shape)) if i not in pinned]


def _write_shape(meta: ArrayMeta) -> tuple[int, ...]:
    """The unit one writer may own: the shard shape when sharded, else the chunk shape."""
    return tuple(meta.shard_shape or meta.chunk_shape)


def _units_holding(voxels: range, unit: int) -> Sequence[int]:
    """The indices of the units of ``unit`` voxels that hold one of ``voxels`` (a strided read skips some)."""
    if not voxels:
        return range(0)
    if voxels.step > unit:
        return sorted({v // unit for v in voxels})
    return range(voxels[0] // unit, voxels[-1] // unit + 1)


def _is_pair(box: Any) -> bool:
    """The common (begin, end) pair of lists, taken as it is on the read path."""
    return type(box) is tuple and len(box) == 2 and not isinstance(box[0], (int, float)) and len(box[0]) == len(box[1])


def box_bounds(box: Any) -> tuple[Sequence[float], Sequence[float]]:
    """A box's (begin, end): a (begin, end) pair of lists, a Box, or anything ``as_box`` takes."""
    if _is_pair(box):
        return box
    found = as_box(box)
    return found.begin, found.end


def base_rescale(first: ArrayMeta | Any, base_voxel_size: Sequence[float]) -> tuple[float, ...]:
    """Per spatial axis, ``base_voxel_size`` over level 0's stored voxel size (``first``: a placement or meta)."""
    spatial = first.spatial_indices if isinstance(first, Placement) else first.spatial
    if len(base_voxel_size) != len(spatial):
        raise ValueError(f"base_voxel_size is {tuple(base_voxel_size)}; expected {len(spatial)} entries, one per "
                         "spatial axis")
    return tuple(size_ratio(b, first.voxel_size[i]) for b, i in zip(base_voxel_size, spatial, strict=True))


def spatial_placement(placement: Placement, units: UnitsArgument, rescale: Sequence[float] | None = None,
                      base_unit: str | None = None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A level's spatial voxel size and translation in the units asked for, for choosing and listing levels.

    ``rescale`` multiplies the stored spatial sizes (``base_voxel_size`` over level 0's), which are then in
    ``base_unit``. Nothing warns or raises here: the level opened is converted, with its warnings, afterwards.
    """
    ndim = len(placement.voxel_size)
    spatial = placement.spatial_indices
    sizes, shifts, stored = list(placement.voxel_size), list(placement.translation), list(placement.units)
    for k, i in enumerate(spatial):
        if rescale is not None:
            sizes[i], shifts[i], stored[i] = sizes[i] * rescale[k], shifts[i] * rescale[k], base_unit or NANOMETER
    request = Request.of(units)
    targets = [request.by_kind(i, "space") or None if i in spatial else None for i in range(ndim)]
    sizes_, shifts_, _ = convert(sizes, shifts, stored, targets, spatial, strict=False, quiet=True)
    return tuple(sizes_[i] for i in spatial), tuple(shifts_[i] for i in spatial)


def rescaled(meta: ArrayMeta, rescale: Sequence[float] | None, unit: str) -> ArrayMeta:
    """The meta with each spatial voxel size and translation multiplied by ``rescale``, in ``unit``."""
    if rescale is None:
        return meta
    sizes, shifts, names = list(meta.voxel_size), list(meta.translation), list(meta.units)
    for k, i in enumerate(meta.spatial):
        sizes[i], shifts[i], names[i] = sizes[i] * rescale[k], shifts[i] * rescale[k], unit
    return dataclasses.replace(meta, voxel_size=tuple(sizes), translation=tuple(shifts), units=tuple(names))


def anchor_of(anchor: float | Sequence[float] | None, grid: ArrayMeta) -> tuple[float, ...]:
    """A target voxel corner per spatial axis: ``anchor`` when given (one number means every axis), else the grid's
    own corner."""
    corner = corners([grid.translation[i] for i in grid.spatial], [grid.voxel_size[i] for i in grid.spatial])
    return corner if anchor is None else per_axis(anchor, len(corner), "anchor")


def resample_target(grid: ArrayMeta, target: Sequence[float], anchor: float | Sequence[float] | None) -> ArrayMeta:
    """The resampling target grid over ``grid``: the target voxels that meet the data, anchored at the grid's corner or
    at ``anchor``."""
    corner = anchor_of(anchor, grid)
    source = corners(grid.translation, grid.voxel_size)
    target = directed(target, [grid.voxel_size[i] for i in grid.spatial])  # the target keeps the source's direction
    shape, sizes, shifts = list(grid.shape), list(grid.voxel_size), list(grid.translation)
    for k, i in enumerate(grid.spatial):
        first, last = target_extent(grid.shape[i], grid.voxel_size[i], source[i], target[k], corner[k])
        shape[i], sizes[i], shifts[i] = last - first, target[k], centre_of(corner[k], target[k], first)
    return dataclasses.replace(grid, shape=tuple(shape), voxel_size=tuple(sizes), translation=tuple(shifts))


def _relabelled(grid: ArrayMeta, target: Sequence[float]) -> ArrayMeta:
    """Voxel i stays voxel i; every world quantity on a spatial axis scales by the ratio of the sizes."""
    sizes, shifts = list(grid.voxel_size), list(grid.translation)
    for k, i in enumerate(grid.spatial):
        ratio = size_ratio(target[k], sizes[i])
        sizes[i], shifts[i] = target[k], shifts[i] * ratio
    return dataclasses.replace(grid, voxel_size=tuple(sizes), translation=tuple(shifts))


def _own_where_none(wanted: Sequence[float | None], grid: ArrayMeta, anchor: Sequence[float] | None,
                   base: Sequence[float]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """An axis whose voxel size is None keeps the grid's own voxel size and corner there, and an anchor entry on it
    must lie on the grid's voxel corners; elsewhere the size asked for and the anchor, or ``base`` without one.

    Returns the target voxel sizes and corner per spatial axis; ValueError naming the axis when the anchor is off
    the grid there.
    """
    sizes = [grid.voxel_size[i] for i in grid.spatial]
    own = corners([grid.translation[i] for i in grid.spatial], sizes)
    corner = list(base if anchor is None else anchor)
    for k, size in enumerate(wanted):
        if size is not None:
            continue
        if anchor is not None and not snap_integral(in_voxels(anchor[k] - own[k], sizes[k])).is_integer():
            axis = grid.axes[grid.spatial[k]]
            raise ValueError(f"anchor is {tuple(anchor)}; on axis {axis}, where voxel_size is None, it must lie on the "
                             f"source grid (a voxel corner, {own[k]:g} + i * {sizes[k]:g}), and {anchor[k]:g} does not")
        corner[k] = own[k]
    return tuple(s if w is None else w for w, s in zip(wanted, sizes, strict=True)), tuple(corner)


def target_grid(frame: Frame, voxel_size: Any, anchor: Any) -> Target | None:
    """The grid a ``read(voxel_size=, anchor=)`` resamples onto, or None when it reads the handle's own voxels.

    At the handle's own voxel size an anchor resamples nothing. An axis whose voxel size is None is the
    handle's own there.
    """
    corner = anchor_of(anchor, frame.source) if anchor is not None else None
    if voxel_size is not None:
        wanted = sizes_or_none(one_number(voxel_size), len(frame.spatial), "voxel_size")
        if None in wanted:
            sizes, corner = _own_where_none(wanted, frame.meta, corner, anchor_of(None, frame.source))
        else:
            sizes = cast(tuple[float, ...], wanted)
        sizes = directed(sizes, frame.voxel_size)  # sizes asked for by magnitude, the handle's direction kept
        if not same(sizes, frame.voxel_size):
            return sizes, corner or anchor_of(None, frame.source)
    if frame.resampled:
        return frame.voxel_size, frame.corner
    return None


def pins_of(grid: ArrayMeta, select: Mapping[str, int]) -> tuple[tuple[int, int], ...]:
    """The axes ``select`` pins to one index each: non-spatial, existing, and in range."""
    if not isinstance(select, Mapping):
        raise ValueError(f"select is {select!r}; expected a dict of axis name to index")
    pins = []
    for name, value in select.items():
        if name not in grid.axes:
            raise ValueError(f"select names axis {name!r}, which does not exist; the axes are {grid.axes}")
        index = grid.axes.index(name)
        if index in grid.spatial:
            raise ValueError(f"select names axis {name!r}, which is spatial; select pins non-spatial axes only")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < grid.shape[index]:
            raise ValueError(f"select {name!r} is {value!r}; expected an index in [0, {grid.shape[index]})")
        pins.append((index, int(value)))
    return tuple(sorted(pins))


def _dropped(grid: ArrayMeta, pins: Sequence[tuple[int, int]]) -> ArrayMeta:
    for index, _ in sorted(pins, reverse=True):
        grid = grid.drop_axis(index)
    return grid


def frame_of(source: ArrayMeta, voxel_size: SizesOrNone | None, policy: str, anchor: Any,
             select: Mapping[str, int] | None, refuse: Any) -> Frame:
    """The frame of a handle on the stored level ``source`` (in the units asked for), opened at ``voxel_size``.

    ``policy`` is what happens when the level is not at that size (``levels.mismatch_policy``): "keep", "relabel",
    "resample" or "error", which calls ``refuse(have, wanted)`` to raise. An axis whose voxel size is None keeps the
    level's own.
    """
    grid, base, resampled = source, source, False
    if voxel_size is not None:
        wanted = sizes_or_none(one_number(voxel_size), len(source.spatial), "voxel_size")
        have = tuple(source.voxel_size[i] for i in source.spatial)
        if None in wanted:
            given = None if anchor is None else anchor_of(anchor, source)
            target, anchor = _own_where_none(wanted, source, given, anchor_of(None, source))
        else:
            target = cast(tuple[float, ...], wanted)
        target = directed(target, have)  # sizes asked for by magnitude, the level's direction kept
        if not same(have, target) and policy != "keep":
            if policy == "resample":
                grid, resampled = resample_target(source, target, anchor), True
            elif policy == "relabel":
                grid = base = _relabelled(source, target)
            else:
                refuse(have, wanted)
    pins = pins_of(source, select) if select else ()
    return Frame(_dropped(grid, pins), _dropped(base, pins), base, resampled, pins)


# ---------------------------------------------------------------- a grid without a store (Behaviour 17)


def shard_shape(shards: int | Sequence[int] | None, chunks: tuple[int, ...] | None, axes: tuple[str, ...],
                format: str | None = None) -> tuple[int, ...] | None:
    """The shard shape: whole chunks on every axis, and zarr v3 only."""
    if shards is None:
        return None
    if chunks is None:
        raise ValueError(f"shards is {shards!r} and chunks is None; a shard is a whole number of chunks, so give both")
    found = whole_numbers("shards", shards, len(chunks))
    bad = [f"axis {axes[i]}: {s} is not a multiple of {c}"
           for i, (s, c) in enumerate(zip(found, chunks, strict=True)) if s % c]
    if bad:
        raise ValueError(f"shards is {found}; expected a whole number of chunks {chunks} per axis ({'; '.join(bad)})")
    if format is not None and format in FORMATS and not FORMATS[format].sharded:
        raise ValueError(f"shards is set, and format is {format!r}; sharding is zarr v3 only")
    return found


class Grid:
    """A WorldArray without a store: shape, placement, axes, units, chunks and shards, and every answer about where
    its voxels lie, given by the same ``Frame`` a handle of those facts has.

    ``voxel_size`` and ``translation`` are one number, one per spatial axis or one per axis, ``translation`` the
    centre of voxel 0; a voxel size may be negative (a north-up raster's row axis), never 0, though ``wa.create``
    writes only positive ones; ``units`` as ``wa.create`` takes them. Without ``chunks`` the whole grid is one write
    unit.
    Equal facts make equal grids; a grid pickles by its facts.

    >>> g = Grid((10, 10), 8, 4, chunks=4)
    >>> g.corner, g.write_shape, g.index_box(((0.0, 0.0), (16.0, 16.0)))
    ((0.0, 0.0), (4, 4), ((0, 0), (2, 2)))
    """

    __slots__ = ("frame", "chunks", "shards")
    frame: Frame
    chunks: tuple[int, ...] | None
    shards: tuple[int, ...] | None

    def __init__(self, shape: int | Sequence[int], voxel_size: Any, translation: Any, axes: Sequence[str] | None = None,
                 units: UnitsArgument = NANOMETER, chunks: int | Sequence[int] | None = None,
                 shards: int | Sequence[int] | None = None) -> None:
        found = whole_numbers("shape", shape, 1 if isinstance(shape, (int, np.integer)) else len(tuple(shape)), 0)
        ndim = len(found)
        names = tuple(default_axes(ndim) if axes is None else axes)
        if len(names) != ndim or len(set(names)) != ndim or not all(isinstance(a, str) and a for a in names):
            raise ValueError(f"axes is {axes!r}; expected {ndim} distinct names, one per axis")
        spatial = spatial_indices(names)
        unit_names = axis_units(names, units)
        units_of = tuple(NANOMETER if i in spatial and not u else u for i, u in enumerate(unit_names))
        chunk_shape = None if chunks is None else whole_numbers("chunks", chunks, ndim)
        shard_shape_ = shard_shape(shards, chunk_shape, names)
        meta = ArrayMeta(found, np.dtype("float64"), chunk_shape or tuple(max(n, 1) for n in found), names, True,
                         units_of, nonzero(over_axes(voxel_size, ndim, spatial, 1.0, "voxel_size"), voxel_size),
                         over_axes(translation, ndim, spatial, 0.0, "translation"), "zarr3", "",
                         placed_by="ome", shard_shape=shard_shape_)  # what create places it by
        for name, value in (("frame", Frame(meta, meta, meta)), ("chunks", chunk_shape), ("shards", shard_shape_)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Grid is immutable; {name} cannot be set")

    @classmethod
    def from_meta(cls, meta: ArrayMeta, voxel_size: Any = None) -> Grid:
        """The grid of an array (``wa.metadata(path)``, ``vol.meta`` or ``vol.grid``), its chunks and shards too; with
        ``voxel_size``, the grid a resampled read of it fills: anchored at its corner, ``ceil(n * s / t)`` voxels,
        each size a magnitude that keeps the array's direction on its axis (a north-up row axis stays negative)."""
        if not isinstance(meta, ArrayMeta):
            raise ValueError(f"meta is a {type(meta).__name__}; expected an ArrayMeta (wa.metadata(path) or vol.meta)")
        if voxel_size is not None:
            meta = resample_target(meta, per_axis(one_number(voxel_size), len(meta.spatial), "voxel_size",
                                                  positive=True), None)
        grid = cls(meta.shape, meta.voxel_size, meta.translation, meta.axes,
                   meta.units if meta.spatial_axes is None else NANOMETER, meta.chunk_shape, meta.shard_shape)
        return grid if meta.spatial_axes is None else grid._named_spatial(meta.spatial_axes, meta.units)

    def _named_spatial(self, spatial: Sequence[int], units: Sequence[str]) -> Grid:
        """This grid with the spatial axes a placing rule named (``spatial:dimensions``, so a ``band`` axis is not
        spatial) and the units on every axis as given."""
        meta = dataclasses.replace(self.frame.meta, spatial_axes=tuple(spatial), units=tuple(units))
        object.__setattr__(self, "frame", Frame(meta, meta, meta))
        return self

    def meta(self, dtype: Any) -> ArrayMeta:
        """The ArrayMeta ``wa.create(path, grid=self, dtype=dtype)`` gives, on every field a grid knows, placed_by
        "ome" as create places it; path "", format "zarr3", no attributes and no fill value, which are the store's."""
        return dataclasses.replace(self.frame.meta, dtype=dtype)

    # ------------------------------------------------------------ the answers a WorldArray of these facts gives

    shape = property(lambda self: self.frame.meta.shape, doc="The number of voxels per axis.")
    ndim = property(lambda self: self.frame.meta.ndim, doc="The number of axes.")
    axes = property(lambda self: self.frame.meta.axes, doc="The axis names.")
    units = property(lambda self: self.frame.meta.units, doc="The unit of each axis ('' where none).")
    spatial = property(lambda self: self.frame.spatial, doc="The indices of the spatial axes.")
    voxel_size = property(lambda self: self.frame.voxel_size, doc="The voxel size per spatial axis.")
    translation = property(lambda self: self.frame.translation, doc="Voxel 0's centre per spatial axis.")
    corner = property(lambda self: self.frame.corner, doc="Voxel 0's corner per spatial axis.")
    box = property(lambda self: self.frame.box, doc="The extent on the spatial axes.")
    write_shape = property(lambda self: self.frame.write_shape, doc="The shard shape, else the chunk shape.")

    def index_box(self, box: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in a world box, on the axes the box covers."""
        return self.frame.index_box(box)

    def chunks_covering(self, begin: Sequence[int], end: Sequence[int], write: bool = False) -> list[tuple[int, ...]]:
        """The indices of the chunks (``write=True``: the write units) holding the voxels [begin, end)."""
        return self.frame.chunks_covering(begin, end, write)

    def blocks(self, block_shape: int | Sequence[int] | None = None, context: Any = 0, box: Any = None,
               clip: bool = True) -> Blocks:
        """``wa.blocks`` over this grid's shape, ``block_shape`` by default its ``write_shape``."""
        return blocks(self.shape, self.write_shape if block_shape is None else block_shape, context, box, clip)

    def _facts(self) -> tuple[Any, ...]:
        meta = self.frame.meta
        return meta.shape, meta.voxel_size, meta.translation, meta.axes, meta.units, self.chunks, self.shards

    def __reduce__(self) -> tuple[Any, ...]:
        named = self.frame.meta.spatial_axes
        if named is None:
            return Grid, self._facts()
        return _named_grid, (self._facts(), named)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Grid) and self._facts() == other._facts()
                and self.frame.meta.spatial_axes == other.frame.meta.spatial_axes)

    def __hash__(self) -> int:
        return hash((self._facts(), self.frame.meta.spatial_axes))

    def __repr__(self) -> str:
        names = ("shape", "voxel_size", "translation", "axes", "units", "chunks", "shards")
        return "Grid(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self._facts(), strict=True)) + ")"


def _named_grid(facts: tuple[Any, ...], spatial: Sequence[int]) -> Grid:
    """A pickled grid whose spatial axes a placing rule named."""
    shape, voxel_size, translation, axes, units, chunks, shards = facts
    return Grid(shape, voxel_size, translation, axes, NANOMETER, chunks, shards)._named_spatial(spatial, units)


def onto(frame: Frame, grid: Grid, begin: Sequence[int] | None, end: Sequence[int] | None
         ) -> tuple[tuple[int, ...], tuple[int, ...], Target | None]:
    """What ``read_onto`` reads, on the handle's spatial axes: the stored voxels [first, last) that are the
    grid's voxels [begin, end) when the grid has the stored voxel size, each grid voxel taking the stored voxel whose
    centre lies in it (target None); else the grid's voxels [begin, end) and the target grid to resample onto."""
    if not isinstance(grid, Grid):
        raise ValueError(f"grid is a {type(grid).__name__}; expected a wa.Grid")
    mine = tuple(frame.meta.axes[i] for i in frame.spatial)
    theirs = tuple(grid.axes[i] for i in grid.spatial)
    if mine != theirs:
        raise ValueError(f"{frame.meta.path}: the grid's spatial axes are {theirs} and this array's are {mine}; "
                         "read_onto needs the same spatial axes in the same order")
    shape = tuple(grid.shape[i] for i in grid.spatial)
    first = (0,) * len(shape) if begin is None else _voxels("begin", begin, len(shape))
    last = shape if end is None else _voxels("end", end, len(shape))
    if any(b > e for b, e in zip(first, last, strict=True)):
        raise ValueError(f"begin {first} is after end {last}")
    meta = grid.frame.meta
    targets: list[str | None] = [None] * meta.ndim
    for k, i in enumerate(grid.spatial):  # a spatial axis with no unit is in nanometres, on either side
        targets[i] = frame.meta.units[frame.spatial[k]] or NANOMETER
    sizes_, shifts_, _ = convert(meta.voxel_size, meta.translation, meta.units, targets, grid.spatial,
                                 where="read_onto grid")
    sizes = tuple(sizes_[i] for i in grid.spatial)
    corner = corners(tuple(shifts_[i] for i in grid.spatial), sizes)
    if not same(sizes, tuple(frame.source.voxel_size[i] for i in frame.spatial)):
        return first, last, (sizes, corner)
    extents = [voxel_extent(c, s, b, b + 1) for c, s, b in zip(corner, sizes, first, strict=True)]  # grid voxel begin
    stored = tuple(zip((frame.source.translation[i] for i in frame.spatial), sizes, strict=True))
    at, _ = centre_rule([low for low, _ in extents], [high for _, high in extents], stored)
    return at, tuple(a + e - b for a, b, e in zip(at, first, last, strict=True)), None


def _voxels(label: str, values: Any, ndim: int) -> tuple[int, ...]:
    """One whole number per spatial axis, negative ones too (voxels before the grid are read as padding)."""
    return index_bounds(label, values, ndim)
