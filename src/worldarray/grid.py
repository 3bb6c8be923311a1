"""A handle's world grid is computed once, at open, and never changes: one frozen ``Frame``.

It starts from the stored level's placement in the units asked for (``base_voxel_size`` rescaling it when given),
applies the level policy when the level is not at the voxel size asked for (keep, relabel, resample onto Behaviour
4's target grid, or refuse), and drops the axes ``select`` pins. Every question about where a handle's voxels lie
(its box, the voxels a world box selects, a resample target, the write units a box touches) is answered here, and
so is the grid of a level made from another by whole-block factors (``level_placement``, ``level_shape``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .fields import Placement
from .geometry import (RTOL, Box, as_box, ceil_snapped, centre_of, centre_rule, centres, corners, default_axes, floats,
                       on_grid, one_number, over_axes, per_axis, same, spatial_indices)
from .metadata import ArrayMeta
from .resample import plan_read, target_extent
from .units import NANOMETER, Request, UnitsArgument, convert

__all__ = ["Frame", "frame_of", "rescaled", "base_rescale", "target_grid", "resample_target", "anchor_of", "pins_of",
           "box_bounds", "spatial_placement", "level_placement", "level_shape", "derived_level", "level_factors"]

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
        """The extent on the spatial axes: [corner, corner + shape * voxel_size)."""
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
        index = tuple(index)
        if len(index) != len(grid) or not all(isinstance(i, (int, np.integer)) and 0 <= i < g
                                              for i, g in zip(index, grid, strict=True)):
            raise ValueError(f"index is {index!r}; expected {len(grid)} whole numbers inside the write-unit grid "
                             f"{grid} (write_shape {unit} over shape {shape})")
        begin = tuple(int(i) * u for i, u in zip(index, unit, strict=True))
        return begin, tuple(min(b + u, n) for b, u, n in zip(begin, unit, shape, strict=True))

    def index_box(self, box: Any, target: Target | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in a world box (Behaviour 2), on the axes the box covers: the spatial axes,
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
        if len(begin) != len(shape) or len(end) != len(shape):
            raise ValueError(f"{self.meta.path}: begin {tuple(begin)} and end {tuple(end)} must have {len(shape)} "
                             f"entries, one per axis {self.meta.axes}")
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
    axes = first.axes or tuple(f"d{i}" for i in range(len(first.voxel_size)))
    spatial = spatial_indices(axes)
    if len(base_voxel_size) != len(spatial):
        raise ValueError(f"base_voxel_size is {tuple(base_voxel_size)}; expected {len(spatial)} entries, one per "
                         "spatial axis")
    return tuple(b / first.voxel_size[i] for b, i in zip(base_voxel_size, spatial, strict=True))


def spatial_placement(placement: Placement, units: UnitsArgument, rescale: Sequence[float] | None = None,
                      base_unit: str | None = None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A level's spatial voxel size and translation in the units asked for, for choosing and listing levels.

    ``rescale`` multiplies the stored spatial sizes (``base_voxel_size`` over level 0's), which are then in
    ``base_unit``. Nothing warns or raises here: the level opened is converted, with its warnings, afterwards.
    """
    ndim = len(placement.voxel_size)
    spatial = spatial_indices(placement.axes or default_axes(ndim))
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
    """Behaviour 4's target grid over ``grid``: the target voxels that meet the data, anchored at the grid's corner or
    at ``anchor``."""
    corner = anchor_of(anchor, grid)
    source = corners(grid.translation, grid.voxel_size)
    shape, sizes, shifts = list(grid.shape), list(grid.voxel_size), list(grid.translation)
    for k, i in enumerate(grid.spatial):
        first, last = target_extent(grid.shape[i], grid.voxel_size[i], source[i], target[k], corner[k])
        shape[i], sizes[i], shifts[i] = last - first, target[k], centre_of(corner[k], target[k], first)
    return dataclasses.replace(grid, shape=tuple(shape), voxel_size=tuple(sizes), translation=tuple(shifts))


def _relabelled(grid: ArrayMeta, target: Sequence[float]) -> ArrayMeta:
    """Voxel i stays voxel i; every world quantity on a spatial axis scales by the ratio of the sizes."""
    sizes, shifts = list(grid.voxel_size), list(grid.translation)
    for k, i in enumerate(grid.spatial):
        ratio = target[k] / sizes[i]
        sizes[i], shifts[i] = target[k], shifts[i] * ratio
    return dataclasses.replace(grid, voxel_size=tuple(sizes), translation=tuple(shifts))


def target_grid(frame: Frame, voxel_size: Any, anchor: Any) -> Target | None:
    """The grid a ``read(voxel_size=, anchor=)`` resamples onto, or None when it reads the handle's own voxels.

    At the handle's own voxel size an anchor resamples nothing (A1).
    """
    corner = anchor_of(anchor, frame.source) if anchor is not None else None
    if voxel_size is not None:
        sizes = per_axis(one_number(voxel_size), len(frame.spatial), "voxel_size", positive=True)
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


def frame_of(source: ArrayMeta, voxel_size: float | Sequence[float] | None, policy: str, anchor: Any,
             select: Mapping[str, int] | None, refuse: Any) -> Frame:
    """The frame of a handle on the stored level ``source`` (in the units asked for), opened at ``voxel_size``.

    ``policy`` is what happens when the level is not at that size (``levels.mismatch_policy``): "keep", "relabel",
    "resample" or "error", which calls ``refuse(have, wanted)`` to raise.
    """
    grid, base, resampled = source, source, False
    if voxel_size is not None:
        target = per_axis(one_number(voxel_size), len(source.spatial), "voxel_size", positive=True)
        have = tuple(source.voxel_size[i] for i in source.spatial)
        if not same(have, target) and policy != "keep":
            if policy == "resample":
                grid, resampled = resample_target(source, target, anchor), True
            elif policy == "relabel":
                grid = base = _relabelled(source, target)
            else:
                refuse(have, target)
    pins = pins_of(source, select) if select else ()
    return Frame(_dropped(grid, pins), _dropped(base, pins), base, resampled, pins)


# ---------------------------------------------------------------- a level made by whole-block factors (no I/O)


def _factors(label: str, value: Any, ndim: int, *, whole: bool = False) -> tuple[float, ...]:
    """One number for every axis, or one per axis: factors (> 0, whole or not) and origins (whole, >= 0)."""
    wanted = "whole numbers >= 0" if whole else "finite numbers > 0"
    try:
        values = per_axis(value, ndim, label, positive=not whole)
    except ValueError:
        values = ()
    if len(values) != ndim or (whole and not all(v >= 0 and v.is_integer() for v in values)):
        raise ValueError(f"{label} is {value!r}; expected {wanted}: one number, or {ndim} (one per axis)")
    return values


def level_placement(voxel_size: Sequence[float], translation: Sequence[float], factors: float | Sequence[float],
                    origin: int | Sequence[int] = 0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Return ``(voxel_size, translation)`` of the level whose voxel j covers source voxels origin + j f .. + f - 1.

    Per axis ``(voxel_size * f, translation + voxel_size * (origin + (f - 1) / 2))``: the centre a block mean
    produces (Convention 1's BigDataViewer rule inverted). ``voxel_size`` and ``translation`` are the source
    grid's, one entry per axis placed; ``factors`` one number or one per axis, > 0, whole or not; ``origin`` one
    whole number >= 0 or one per axis. Raises ValueError naming the argument and value otherwise.

    >>> level_placement((4.0,), (2.0,), 2)
    ((8.0,), (4.0,))
    """
    sizes = floats("voxel_size", voxel_size, positive=True)
    shifts = floats("translation", translation, (len(sizes),))
    f = _factors("factors", factors, len(sizes))
    o = _factors("origin", origin, len(sizes), whole=True)
    # the level's voxel 0 starts at source voxel origin's corner and is f source voxels wide; its centre is the
    # translation, by geometry's one corner-to-centre rule
    level_sizes = tuple(s * k for s, k in zip(sizes, f, strict=True))
    starts = tuple(c + s * p for c, s, p in zip(corners(shifts, sizes), sizes, o, strict=True))
    return level_sizes, centres(starts, level_sizes)


def level_shape(shape: Sequence[int], factors: float | Sequence[float], origin: int | Sequence[int] = 0
                ) -> tuple[int, ...]:
    """Return the shape of the level made by ``factors`` from source voxel ``origin``: ``ceil((n - origin) / f)``.

    The quotient is snapped to a whole number within 1e-6 first, so float noise adds no voxel. Raises
    ValueError naming the argument and value for a shape not whole, a factor not > 0, or an origin not whole,
    negative, or at or past the end of its axis.

    >>> level_shape((10, 9), 2, origin=(0, 1))
    (5, 4)
    """
    sizes = floats("shape", shape)
    if not all(n >= 0 and n.is_integer() for n in sizes):
        raise ValueError(f"shape is {shape!r}; expected whole numbers >= 0")
    f = _factors("factors", factors, len(sizes))
    o = _factors("origin", origin, len(sizes), whole=True)
    for axis, (n, p) in enumerate(zip(sizes, o, strict=True)):
        if p >= n:
            raise ValueError(f"origin is {origin!r}; expected less than shape {tuple(shape)!r} on axis {axis}")
    return tuple(ceil_snapped((n - p) / k) for n, k, p in zip(sizes, f, o, strict=True))


def derived_level(source: ArrayMeta, factors: Any, origin: Any, voxel_size: Any, translation: Any,
                  shape: Any, name: str) -> tuple[Any, Any, Any]:
    """``add_level``'s placement and shape: as given, else by ``level_placement`` and ``level_shape`` over ``source``,
    factors and origin given over its spatial axes (one number meaning each) or over every axis."""
    if factors is not None:
        factors = over_axes(factors, source.ndim, source.spatial, 1.0, "factors", positive=True)
        origin = over_axes(origin, source.ndim, source.spatial, 0.0, "origin")
    if voxel_size is None or translation is None:
        if factors is None:
            raise ValueError(f"add_level {name!r}: give factors (with origin), or voxel_size and translation")
        placed = level_placement(source.voxel_size, source.translation, factors, origin)
        voxel_size = placed[0] if voxel_size is None else voxel_size
        translation = placed[1] if translation is None else translation
    if shape is None:
        if factors is None:
            raise ValueError(f"add_level {name!r}: give shape, or factors to derive it from the level it is made from")
        shape = level_shape(source.shape, factors, origin)
    return voxel_size, translation, shape


def level_factors(voxel_size: Sequence[float], ratio: float = 1.5, max_levels: int | None = None,
                  stop_shape: Sequence[int] | None = None, shape: Sequence[int] | None = None
                  ) -> list[tuple[int, ...]]:
    """Per level to add, each level's factors over the level before: 2 on every axis whose voxel is within ``ratio``
    of the level's smallest, 1 elsewhere (Behaviour 19); until ``max_levels`` levels, or until a level's shape
    (from ``shape``) fits within ``stop_shape``, or until nothing would shrink.

    An anisotropic axis waits at 1 until the others catch up; isotropic data gives all 2s at every level.

    >>> level_factors((8, 8, 30), max_levels=3)
    [(2, 2, 1), (2, 2, 1), (2, 2, 2)]
    """
    sizes = list(floats("voxel_size", voxel_size, positive=True))
    if not (isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and ratio >= 1):
        raise ValueError(f"ratio is {ratio!r}; expected a number >= 1")
    if max_levels is not None and (isinstance(max_levels, bool) or not isinstance(max_levels, int) or max_levels < 0):
        raise ValueError(f"max_levels is {max_levels!r}; expected a whole number >= 0")
    if stop_shape is not None and shape is None:
        raise ValueError("stop_shape is given without shape; give the base level's shape to compare with it")
    if max_levels is None and shape is None:
        raise ValueError("give max_levels, or shape (with stop_shape) to stop at; the schedule has no end otherwise")
    current = list(level_shape(shape, 1)) if shape is not None else None
    goal = tuple(floats("stop_shape", stop_shape, (len(sizes),))) if stop_shape is not None else None
    out: list[tuple[int, ...]] = []
    while max_levels is None or len(out) < max_levels:
        if current is not None and (goal is not None and all(n <= g for n, g in zip(current, goal, strict=True))):
            break
        smallest = min(sizes)
        factors = tuple(2 if s <= smallest * ratio * (1 + RTOL) else 1 for s in sizes)
        if current is not None:
            shrunk = list(level_shape(current, factors))
            if shrunk == current:
                break
            current = shrunk
        out.append(factors)
        sizes = [s * f for s, f in zip(sizes, factors, strict=True)]
    return out
