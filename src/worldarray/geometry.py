"""A translation is where the centre of voxel 0 is; the corner is half a voxel below it.

This module is the only place a half voxel is added or removed, the only place the centre rule (a voxel is read iff
its centre lies in the box) is computed, and the only place that says what "one number" means (every axis it stands
for) and when two sizes are the same (a relative 1e-6). It owns the sign of a step: only here is a voxel size divided
by, compared or ordered, or an extent ``[min, max)`` taken from it. Clipping a voxel box to the data and padding the
rest, which takes no voxel size, is ``padding``'s, re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from numbers import Real
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

import numpy as np

from .axes import DEFAULT_AXES, default_axes, spatial_indices
from .padding import clip, padded

__all__ = [
    "SNAP_TOLERANCE",
    "RTOL",
    "DEFAULT_AXES",
    "default_axes",
    "spatial_indices",
    "snap_integral",
    "isclose",
    "same",
    "floats",
    "per_axis",
    "one_number",
    "sizes_or_none",
    "over_axes",
    "spread",
    "corners",
    "centres",
    "centre_of",
    "corner_to_centre",
    "centre_to_corner",
    "centre_rule",
    "index_range",
    "voxel_extent",
    "in_voxels",
    "from_centre",
    "holding",
    "inside",
    "target_span",
    "directed",
    "magnitudes",
    "size_ratio",
    "no_coarser",
    "voxel_volume",
    "finite_box",
    "ceil_snapped",
    "on_grid",
    "clip",
    "padded",
    "Box",
    "BoxLike",
    "Sizes",
    "SizesOrNone",
    "as_box",
]

#: A quotient within this many voxels of a whole number is that whole number.
SNAP_TOLERANCE = 1e-6

#: Voxel sizes and placements compare as floats with this relative tolerance: 10.48 is not 10.
RTOL = 1e-6

def snap_integral(value: float, tolerance: float = SNAP_TOLERANCE) -> float:
    """Return the nearest whole number when ``value`` is within ``tolerance`` of it, else ``value``."""
    nearest = round(value)
    return float(nearest) if abs(value - nearest) <= tolerance else value


def ceil_snapped(quotient: float) -> int:
    """ceil(q) after snapping q to a whole number within 1e-6 of it: the same as ceil(q - 1e-6)."""
    return math.ceil(quotient - SNAP_TOLERANCE)


def isclose(a: float, b: float, rtol: float = RTOL) -> bool:
    """Two voxel sizes or placements are the same within a relative ``rtol`` (1e-6 by default).

    >>> isclose(10.48, 10.48 + 1e-9), isclose(10.48, 10.0)
    (True, False)
    """
    return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol * 1e-3)


def same(a: Sequence[float], b: Sequence[float], rtol: float = RTOL) -> bool:
    """Two lists of sizes or placements are the same: as long as each other, and close entry by entry."""
    return len(a) == len(b) and all(isclose(x, y, rtol) for x, y in zip(a, b, strict=True))


def _number(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "iuf"
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def floats(label: str, values, lengths=None, positive=False) -> tuple[float, ...]:
    """Finite numbers (> 0 when ``positive``) as Python floats, unchanged in value; ``label`` names the argument."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
        raise ValueError(f"{label} is {values!r}; expected a list of numbers")
    items = list(values)
    wanted = "finite numbers > 0" if positive else "finite numbers"
    for item in items:
        if isinstance(item, bool) or not isinstance(item, Real) or not math.isfinite(item) or (positive and item <= 0):
            raise ValueError(f"{label} is {items!r}; expected {wanted}")
    if lengths is not None and len(items) not in lengths:
        wanted = " or ".join(str(n) for n in sorted(set(lengths)))
        raise ValueError(f"{label} is {items!r} ({len(items)} entries); expected {wanted} entries")
    return tuple(float(item) for item in items)


def per_axis(value: Any, n: int, name: str, *, positive: bool = False, finite: bool = True) -> tuple[float, ...]:
    """One number for every one of ``n`` axes, or ``n`` numbers, as floats: finite unless ``finite=False``, and > 0
    when ``positive``.

    >>> per_axis(4, 3, "voxel_size"), per_axis((1, 2), 2, "shift")
    ((4.0, 4.0, 4.0), (1.0, 2.0))
    """
    items = [value] * n if _number(value) else list(value) if np.ndim(value) == 1 else None
    wanted = "finite numbers > 0" if positive else "finite numbers"
    if items is None or len(items) != n or not all(_number(v) for v in items):
        raise ValueError(f"{name} is {value!r}; expected one number or {n}, one per axis, {wanted}")
    values = tuple(float(v) for v in items)
    if not all((math.isfinite(v) or not finite) and (v > 0 or not positive) for v in values):
        raise ValueError(f"{name} is {value!r}; expected {wanted}")
    return values


def sizes_or_none(value: Any, n: int | None, name: str) -> tuple[float | None, ...]:
    """Voxel sizes that choose a level: as ``per_axis`` takes them (> 0), or one entry per axis, each a size > 0 or
    None for an axis that takes no part in the choice, not every entry None; ``n`` None takes any length.

    >>> sizes_or_none((None, 8, 8), 3, "voxel_size")
    (None, 8.0, 8.0)
    """
    count = n if n is not None else len(value) if np.ndim(value) == 1 else 1
    try:  # the common case, without a None, is per_axis's own and costs nothing more
        return per_axis(value, count, name, positive=True)
    except ValueError:
        if np.ndim(value) != 1 or not any(v is None for v in value):
            raise
    items = list(value)
    if len(items) != count or not all(v is None or (_number(v) and math.isfinite(v) and v > 0) for v in items):
        raise ValueError(f"{name} is {value!r}; expected one number or {count}, one per axis, each a finite number "
                         "> 0 or None")
    if all(v is None for v in items):
        raise ValueError(f"{name} is {value!r}; expected a number on at least one axis (None leaves an axis out of "
                         "the level choice, and some axis must choose it)")
    return tuple(None if v is None else float(v) for v in items)


def one_number(value: Any) -> Any:
    """A list holding one number is that number (a voxel size given as ``[8]``); anything else as it is."""
    return value[0] if np.ndim(value) == 1 and len(value) == 1 and _number(value[0]) else value


def over_axes(value: Any, ndim: int, spatial: Sequence[int], fill: float, name: str, *,
              positive: bool = False) -> tuple[float, ...]:
    """Spatial values put among ``ndim`` axes: one number means every spatial axis, a list one entry per spatial
    axis or per axis; other axes get ``fill``.

    >>> over_axes(8, 4, (1, 2, 3), 1.0, "voxel_size")
    (1.0, 8.0, 8.0, 8.0)
    """
    if _number(value) or (np.ndim(value) == 1 and len(value) == len(spatial) != ndim):
        return spread(per_axis(value, len(spatial), name, positive=positive), ndim, spatial, fill)
    if np.ndim(value) == 1 and len(value) == ndim:
        return per_axis(value, ndim, name, positive=positive)
    raise ValueError(f"{name} is {value!r}; expected one number, {len(spatial)} (one per spatial axis) or {ndim} "
                     "(one per axis)")


def spread(values: Sequence[Any], ndim: int, spatial: Sequence[int], fill: Any) -> tuple:
    """A list over the spatial axes put in place among ``ndim`` axes, ``fill`` elsewhere; a full list as it is."""
    values = tuple(values)
    if len(values) == ndim:
        return values
    if len(values) != len(spatial):
        raise ValueError(f"{list(values)} has {len(values)} entries; expected {len(spatial)} (one per spatial axis) "
                         f"or {ndim}")
    out = [fill] * ndim
    for k, i in enumerate(spatial):
        out[i] = values[k]
    return tuple(out)


def finite_box(label: str, begin: Sequence[Any], end: Sequence[Any]) -> None:
    """Raise ValueError naming ``label`` unless every edge of a world box is a finite number (NaN and inf are not)."""
    for edge in (*begin, *end):
        if isinstance(edge, (bool, np.bool_)) or not isinstance(edge, (Real, np.floating, np.integer)):
            raise ValueError(f"{label} is ({tuple(begin)}, {tuple(end)}): {edge!r} is no number; expected finite "
                             "numbers")
        if not math.isfinite(edge):
            raise ValueError(f"{label} is ({tuple(begin)}, {tuple(end)}): {edge!r} is NaN or infinite; expected finite "
                             "numbers")


# ---------------------------------------------------------------- the half voxel


def corners(translation: Sequence[float], voxel_size: Sequence[float]) -> tuple[float, ...]:
    """The outer corner of voxel 0 on every axis given, half a voxel below the centre: its lower corner for a
    positive step, its upper one for a negative step.

    >>> corners((2.0, 4.0), (4.0, 8.0))
    (0.0, 0.0)
    """
    return tuple(float(t) - float(s) / 2 for t, s in zip(translation, voxel_size, strict=True))


def centres(corner: Sequence[float], voxel_size: Sequence[float]) -> tuple[float, ...]:
    """The centre of voxel 0 (the translation) on every axis given: half a voxel above the corner."""
    return tuple(float(c) + float(s) / 2 for c, s in zip(corner, voxel_size, strict=True))


def centre_of(corner: Any, voxel_size: Any, index: Any) -> Any:
    """The centre of voxel ``index`` on a grid whose voxel 0 has its lower corner at ``corner``."""
    return corner + (index + 0.5) * voxel_size


def _shifted(values, voxel_size, axes, shift: Callable, spatial: Sequence[int] | None = None) -> tuple[float, ...]:
    values = tuple(float(v) for v in values)
    voxel_size = tuple(float(v) for v in voxel_size)
    if len(values) != len(voxel_size):
        raise ValueError(
            f"{len(values)} coordinates {values} for {len(voxel_size)} voxel sizes {voxel_size}; expected one per axis"
        )
    if axes is not None and len(axes) != len(values):
        raise ValueError(f"axes {tuple(axes)} do not match {len(values)} coordinates {values}")
    shifted = set(spatial_indices(axes, len(values)) if spatial is None else spatial)
    moved = shift(values, voxel_size)
    return tuple(m if i in shifted else v for i, (v, m) in enumerate(zip(values, moved, strict=True)))


def corner_to_centre(corner, voxel_size, axes=None, spatial: Sequence[int] | None = None) -> tuple[float, ...]:
    """Return the translation (voxel 0's centre) of a grid whose voxel 0 has its lower corner at ``corner``.

    Half a voxel is added along the spatial axes only (``spatial`` when given; else named z, y, x; else the last
    three), never along channel or time.

    >>> corner_to_centre((0.0, 0.0), (4.0, 8.0))
    (2.0, 4.0)
    """
    return _shifted(corner, voxel_size, axes, centres, spatial)


def centre_to_corner(translation, voxel_size, axes=None, spatial: Sequence[int] | None = None) -> tuple[float, ...]:
    """Return the outer corner of voxel 0 of a grid whose voxel 0 is centred at ``translation`` (half a voxel
    below it along the spatial axes, as ``corner_to_centre`` chooses them).

    >>> centre_to_corner((2.0, 4.0), (4.0, 8.0))
    (0.0, 0.0)
    """
    return _shifted(translation, voxel_size, axes, corners, spatial)


# ---------------------------------------------------------------- the centre rule


def centre_rule(begin: Sequence[float], end: Sequence[float],
                grid: Sequence[tuple[float, float]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The voxels ``[i0, i1)`` per axis whose centres lie in ``[begin, end)`` on a grid of (translation, voxel size).

    ``i0 = ceil((begin - t) / s)`` and ``i1 = ceil((end - t) / s)``, each quotient snapped to a whole number when
    within 1e-6 of one; a negative ``s`` counts down from ``end`` (``_counted``). Unchecked: the read path's one
    computation of the rule (see ``index_range``).
    """
    first, last = [], []
    try:
        for b, e, (t, s) in zip(begin, end, grid, strict=True):
            if e < b:
                raise ValueError(f"box begin {tuple(begin)} is after its end {tuple(end)}")
            i0, i1 = _counted(b, e, t, s)
            first.append(i0)
            last.append(i1)
    except (TypeError, OverflowError, ValueError):
        finite_box("box", begin, end)  # names a NaN, an inf or a string; else the error was another one
        raise
    return tuple(first), tuple(last)


def _counted(b: float, e: float, t: float, s: float) -> tuple[int, int]:
    """The voxels [i0, i1) of one axis whose centres ``t + i s`` lie in [b, e), whatever the sign of ``s``."""
    if s > 0:
        return math.ceil((b - t) / s - SNAP_TOLERANCE), math.ceil((e - t) / s - SNAP_TOLERANCE)
    # t + i s >= b and t + i s < e, divided by s < 0: (e - t) / s < i <= (b - t) / s, the quotients snapped alike
    return math.floor((e - t) / s + SNAP_TOLERANCE) + 1, math.floor((b - t) / s + SNAP_TOLERANCE) + 1


def index_range(begin, end, voxel_size, translation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the voxels ``[i0, i1)`` per axis whose centres lie in the world box ``[begin, end)``.

    On each axis ``i0 = ceil((begin - t) / s)`` and ``i1 = ceil((end - t) / s)``, each quotient
    first snapped to a whole number when within 1e-6 of one.

    >>> index_range((0.0,), (16.0,), (4.0,), (2.0,))
    ((0,), (4,))
    """
    finite_box("box", tuple(begin), tuple(end))
    lists = [tuple(float(v) for v in x) for x in (begin, end, voxel_size, translation)]
    if len({len(x) for x in lists}) != 1:
        raise ValueError(
            f"begin {lists[0]}, end {lists[1]}, voxel_size {lists[2]} and translation {lists[3]} "
            "must have one entry per axis"
        )
    if not all(s > 0 and math.isfinite(s) for s in lists[2]):
        raise ValueError(f"voxel_size {lists[2]} holds {lists[2]}; expected finite sizes > 0")
    return centre_rule(lists[0], lists[1], tuple(zip(lists[3], lists[2], strict=True)))


def on_grid(edge: float, translation: float, voxel_size: float) -> bool:
    """True when ``edge`` lies on a voxel corner or a voxel centre of the grid (within 1e-6 of a voxel)."""
    quotient = in_voxels(edge - translation, voxel_size)
    return snap_integral(quotient).is_integer() or snap_integral(quotient + 0.5).is_integer()


# ---------------------------------------------------------------- the sign of a step


def voxel_extent(corner: float, voxel_size: float, begin: float, end: float) -> tuple[float, float]:
    """The world extent [min, max) of voxels [begin, end) on an axis whose voxel 0 has its outer edge at ``corner``,
    whatever the sign of ``voxel_size`` (a negative one counts down, as a north-up raster's rows do).

    >>> voxel_extent(0.0, 4.0, 1, 3), voxel_extent(0.0, -4.0, 1, 3)
    ((4.0, 12.0), (-12.0, -4.0))
    """
    first, last = corner + begin * voxel_size, corner + end * voxel_size
    return (first, last) if voxel_size > 0 else (last, first)


def in_voxels(distance: Any, voxel_size: Any) -> Any:
    """A world distance counted in voxels along the index direction: ``distance / voxel_size``, negative when it
    runs against the steps."""
    return distance / voxel_size


def from_centre(position: Any) -> Any:
    """A position counted in voxels from the outer edge of voxel 0, counted instead from voxel 0's centre (half a
    voxel less), the index space where source voxel i sits at i."""
    return position - 0.5


def holding(position: np.ndarray, voxel_size: float) -> np.ndarray:
    """The voxel whose world extent [min, max) holds each position, positions counted in voxels from the outer edge
    of voxel 0 along the index direction and snapped within 1e-6: a position on a boundary belongs to the voxel
    above it in the world, which is the higher index for a positive step and the lower one for a negative step."""
    if voxel_size > 0:
        return np.floor(position + SNAP_TOLERANCE).astype(np.int64)
    return (np.ceil(position - SNAP_TOLERANCE) - 1).astype(np.int64)


def inside(position: np.ndarray, n: int, voxel_size: float) -> np.ndarray:
    """Whether each position (in voxels from the outer edge of voxel 0, as ``holding`` takes it) lies in the world
    extent [min, max) of ``n`` voxels."""
    if voxel_size > 0:
        return (position >= 0) & (position < n)
    return (position > 0) & (position <= n)


def target_span(n: int, voxel_size: float, corner: float, target: float, anchor: float) -> tuple[int, int]:
    """The voxels [k0, k1) of a target grid (step ``target``, a voxel's outer edge at ``anchor``) whose extents meet
    the extent of ``n`` source voxels (step ``voxel_size``, voxel 0's outer edge at ``corner``), either step of
    either sign; each quotient snapped within 1e-6 first.

    >>> target_span(8, 4.0, 0.0, 8.0, 0.0), target_span(8, -4.0, 0.0, -8.0, 0.0)
    ((0, 4), (0, 4))
    """
    near = snap_integral(in_voxels(corner - anchor, target))
    far = snap_integral(in_voxels(corner + n * voxel_size - anchor, target))
    first = math.floor(min(near, far))
    return first, max(first, math.ceil(max(near, far)))


def directed(sizes: Sequence[float], like: Sequence[float]) -> tuple[float, ...]:
    """Voxel sizes asked for by magnitude, each pointed the way ``like``'s step on its axis goes: a resample target
    or a relabel keeps the source's direction.

    >>> directed((8.0, 8.0), (4.0, -4.0))
    (8.0, -8.0)
    """
    return tuple(math.copysign(float(s), w) for s, w in zip(sizes, like, strict=True))


def nonzero(sizes: Sequence[float], given: Any, name: str = "voxel_size") -> tuple[float, ...]:
    """Signed voxel sizes (a north-up raster's negative step included), each not 0; ValueError naming the value
    as given otherwise."""
    if any(s == 0 for s in sizes):
        raise ValueError(f"{name} is {given!r}; expected finite numbers not 0 (a negative step is a north-up axis)")
    return tuple(sizes)


def positive_steps(sizes: Sequence[float], given: Any, axes: Sequence[str]) -> None:
    """Refuse a negative voxel size where the package writes (OME-NGFF scales are positive): ValueError naming the
    value as given and the first axis with a negative step."""
    for axis, size in zip(axes, sizes, strict=True):
        if size < 0:
            raise ValueError(f"voxel_size is {given!r}; axis {axis!r} has a negative step, and OME-NGFF scales are "
                             "positive: the package writes no north-up array")


def magnitudes(sizes: Any) -> tuple[float, ...]:
    """Voxel sizes without their direction: what level choice compares and orders."""
    return tuple(abs(float(s)) for s in sizes)


def size_ratio(size: float, other: float) -> float:
    """How many times ``other`` one voxel size is, by magnitude: ``|size| / |other|``."""
    return abs(size) / abs(other)


def no_coarser(sizes: Sequence[float], target: Sequence[float], rtol: float = RTOL) -> bool:
    """True when no size is coarser than ``target``'s on its axis (within a relative ``rtol``), by magnitude."""
    return all(abs(s) <= abs(t) * (1 + rtol) for s, t in zip(sizes, target, strict=True))


def voxel_volume(sizes: Any) -> float:
    """The product of the sizes' magnitudes: a voxel's volume, which orders levels whatever their directions."""
    return math.prod(abs(s) for s in sizes)


# ---------------------------------------------------------------- boxes


@dataclass(frozen=True)
class Box:
    """A half-open box ``[begin, end)`` per axis, in world units (floats), with funlib's Roi vocabulary.

    >>> Box((0, 0), (8, 4)).grow(2).shape
    (12.0, 8.0)
    """

    begin: tuple[float, ...]
    end: tuple[float, ...]

    def __post_init__(self):
        finite_box("box", tuple(self.begin), tuple(self.end))
        begin = tuple(float(v) for v in self.begin)
        end = tuple(float(v) for v in self.end)
        if len(begin) != len(end):
            raise ValueError(f"box begin {begin} and end {end} have different lengths")
        if any(e < b for b, e in zip(begin, end, strict=True)):
            raise ValueError(f"box begin {begin} is after its end {end} on some axis")
        object.__setattr__(self, "begin", begin)
        object.__setattr__(self, "end", end)

    @property
    def ndim(self) -> int:
        return len(self.begin)

    @property
    def shape(self) -> tuple[float, ...]:
        """The extent per axis, end - begin."""
        return tuple(e - b for b, e in zip(self.begin, self.end, strict=True))

    @property
    def centre(self) -> tuple[float, ...]:
        return tuple((b + e) / 2 for b, e in zip(self.begin, self.end, strict=True))

    @property
    def empty(self) -> bool:
        """True when the box holds no volume on some axis."""
        return any(e <= b for b, e in zip(self.begin, self.end, strict=True))

    def intersect(self, other) -> Box:
        """The part both boxes share (empty, at this box's clipped begin, when they are disjoint)."""
        other = as_box(other, self.ndim)
        begin = tuple(max(a, b) for a, b in zip(self.begin, other.begin, strict=True))
        end = tuple(max(b, min(a, c)) for a, b, c in zip(self.end, begin, other.end, strict=True))
        return Box(begin, end)

    def union(self, other) -> Box:
        """The smallest box holding both."""
        other = as_box(other, self.ndim)
        if other.empty:
            return self
        if self.empty:
            return other
        return Box(tuple(map(min, self.begin, other.begin)), tuple(map(max, self.end, other.end)))

    def contains(self, other) -> bool:
        """True for a point inside the box (half-open) or a box wholly inside it."""
        boxlike = hasattr(other, "begin") or hasattr(other, "offset")
        if boxlike or np.ndim(other) == 2 or (np.ndim(other) == 1 and len(other) == 2 and np.ndim(other[0]) == 1):
            other = as_box(other, self.ndim)
            pairs = zip(self.begin, self.end, other.begin, other.end, strict=True)
            return other.empty or all(b <= ob and oe <= e for b, e, ob, oe in pairs)
        point = per_axis(other, self.ndim, "point", finite=False)
        return all(b <= p < e for b, e, p in zip(self.begin, self.end, point, strict=True))

    def grow(self, before, after=None) -> Box:
        """Grow by ``before`` below and ``after`` (default ``before``) above, per axis or one number for all."""
        low = per_axis(before, self.ndim, "before", finite=False)
        high = low if after is None else per_axis(after, self.ndim, "after", finite=False)
        return Box(tuple(b - d for b, d in zip(self.begin, low, strict=True)),
                   tuple(e + d for e, d in zip(self.end, high, strict=True)))

    def shift(self, by) -> Box:
        move = per_axis(by, self.ndim, "shift", finite=False)
        return Box(tuple(b + d for b, d in zip(self.begin, move, strict=True)),
                   tuple(e + d for e, d in zip(self.end, move, strict=True)))

    def snap(self, voxel_size, translation, mode: str = "grow") -> Box:
        """Move begin and end onto the voxel corners of a grid: "grow" outward, "shrink" inward, or "closest"."""
        rounding = _SNAP_MODES.get(mode)
        if rounding is None:
            raise ValueError(f"snap mode is {mode!r}; expected one of {tuple(_SNAP_MODES)}")
        # the corners of a grid are the same whichever way its steps go, so it is snapped to by magnitude
        size = magnitudes(per_axis(voxel_size, self.ndim, "voxel_size", finite=False))
        corner = corners(per_axis(translation, self.ndim, "translation", finite=False), size)
        low, high = rounding
        begin = tuple(c + low(snap_integral((b - c) / s)) * s for b, c, s in zip(self.begin, corner, size, strict=True))
        end = tuple(c + high(snap_integral((e - c) / s)) * s for e, c, s in zip(self.end, corner, size, strict=True))
        return Box(begin, tuple(max(b, e) for b, e in zip(begin, end, strict=True)))

    def to_index(self, voxel_size, translation) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in the box, as index (begin, end)."""
        return index_range(self.begin, self.end, per_axis(voxel_size, self.ndim, "voxel_size", finite=False),
                           per_axis(translation, self.ndim, "translation", finite=False))

    @classmethod
    def from_index(cls, begin, end, voxel_size, translation) -> Box:
        """The world box of voxels [begin, end): from voxel begin's outer corner to voxel end's, as [min, max)."""
        ndim = len(tuple(begin))
        size = per_axis(voxel_size, ndim, "voxel_size", finite=False)
        corner = corners(per_axis(translation, ndim, "translation", finite=False), size)
        extents = [voxel_extent(c, s, b, e) for c, s, b, e in zip(corner, size, begin, end, strict=True)]
        return cls(tuple(low for low, _ in extents), tuple(high for _, high in extents))

    def __repr__(self) -> str:
        return "Box({" + ", ".join(f"[{b:g}, {e:g})" for b, e in zip(self.begin, self.end, strict=True)) + "})"


class _BeginEnd(Protocol):
    @property
    def begin(self) -> Sequence[float]: ...

    @property
    def end(self) -> Sequence[float]: ...


class _OffsetShape(Protocol):
    @property
    def offset(self) -> Sequence[float]: ...

    @property
    def shape(self) -> Sequence[float]: ...


#: A voxel size or world position: one number for every spatial axis, or one per spatial axis.
Sizes: TypeAlias = "float | Sequence[float]"

#: A voxel size that chooses a level: as ``Sizes``, or one entry per spatial axis with None on the axes that take no
#: part in the choice (A14).
SizesOrNone: TypeAlias = "float | Sequence[float | None]"

#: A world box: a Box, a (begin, end) pair of lists, or anything with .begin/.end or .offset/.shape (a funlib Roi).
BoxLike: TypeAlias = "Box | tuple[Sequence[float], Sequence[float]] | _BeginEnd | _OffsetShape"


_SNAP_MODES = {
    "grow": (math.floor, math.ceil),
    "shrink": (math.ceil, math.floor),
    "closest": (lambda q: math.ceil(q - 0.5), lambda q: math.ceil(q - 0.5)),  # a tie goes to the lower corner
}


def as_box(value: BoxLike, ndim: int | None = None) -> Box:
    """Accept a Box, anything with .begin/.end or .offset/.shape (a funlib Roi), or a (begin, end) pair."""
    given: Any = value  # duck-typed: a Roi has begin and end, or offset and shape
    if isinstance(given, Box):
        box = given
    elif hasattr(given, "begin") and hasattr(given, "end"):
        box = Box(tuple(given.begin), tuple(given.end))
    elif hasattr(given, "offset") and hasattr(given, "shape"):
        box = Box(tuple(given.offset), tuple(o + s for o, s in zip(given.offset, given.shape, strict=True)))
    else:
        try:
            begin, end = given
            box = Box(tuple(begin), tuple(end))
        except (TypeError, ValueError) as error:
            raise ValueError(f"box is {value!r}; expected a (begin, end) pair, a Box, or an object with begin/end or "
                             "offset/shape") from error
    if ndim is not None and box.ndim != ndim:
        raise ValueError(f"box {box!r} has {box.ndim} axes; expected {ndim}")
    return box
