"""A translation is where the centre of voxel 0 is; the corner is half a voxel below it.

This module is the only place a half voxel is added or removed, and the only place the
centre rule (a voxel is read iff its centre lies in the box) is computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from typing import Sequence

__all__ = [
    "SNAP_TOLERANCE",
    "DEFAULT_AXES",
    "default_axes",
    "spatial_indices",
    "snap_integral",
    "spread",
    "corner_to_centre",
    "centre_to_corner",
    "index_range",
    "ceil_snapped",
    "Box",
    "as_box",
]

#: A quotient within this many voxels of a whole number is that whole number.
SNAP_TOLERANCE = 1e-6

#: Names given to unnamed axes, the last ``ndim`` of them.
DEFAULT_AXES = ("t", "c", "z", "y", "x")

_SPATIAL_NAMES = frozenset("zyx")
_NEVER_SPATIAL = frozenset({"t", "time", "c", "channel"})


def default_axes(ndim: int) -> tuple[str, ...]:
    """Return the names of ``ndim`` unnamed axes: ``("t", "c", "z", "y", "x")[-ndim:]``.

    Beyond five axes the leading ones are called ``d0``, ``d1``, ...

    >>> default_axes(3)
    ('z', 'y', 'x')
    """
    if ndim < 0:
        raise ValueError(f"ndim is {ndim}; expected a whole number >= 0")
    extra = max(0, ndim - len(DEFAULT_AXES))
    named = DEFAULT_AXES[len(DEFAULT_AXES) - min(ndim, len(DEFAULT_AXES)):]
    return tuple(f"d{i}" for i in range(extra)) + named


def spatial_indices(axes: Sequence[str] | None, ndim: int | None = None) -> tuple[int, ...]:
    """Return the spatial axes: those named z, y or x when any are, else the last three that are not time or channel."""
    if axes is None:
        if ndim is None:
            raise ValueError("spatial_indices needs axes or ndim")
        return tuple(range(max(0, ndim - 3), ndim))
    named = tuple(i for i, name in enumerate(axes) if name in _SPATIAL_NAMES)
    if named:
        return named
    candidates = [i for i, name in enumerate(axes) if str(name).lower() not in _NEVER_SPATIAL]
    return tuple(candidates[-3:])


def spread(values, ndim: int, spatial: Sequence[int], fill) -> tuple:
    """A list over the spatial axes put in place among ``ndim`` axes, ``fill`` elsewhere; a full list as it is."""
    values = tuple(values)
    if len(values) == ndim:
        return values
    if len(values) != len(spatial):
        raise ValueError(f"{list(values)} has {len(values)} entries; expected {len(spatial)} (one per spatial axis) or {ndim}")
    out = [fill] * ndim
    for k, i in enumerate(spatial):
        out[i] = values[k]
    return tuple(out)


def snap_integral(value: float, tolerance: float = SNAP_TOLERANCE) -> float:
    """Return the nearest whole number when ``value`` is within ``tolerance`` of it, else ``value``."""
    nearest = round(value)
    return float(nearest) if abs(value - nearest) <= tolerance else value


def ceil_snapped(quotient: float) -> int:
    """ceil(q) after snapping q to a whole number within 1e-6 of it: the same as ceil(q - 1e-6)."""
    return math.ceil(quotient - SNAP_TOLERANCE)


def _shifted(values, voxel_size, axes, sign):
    values = tuple(float(v) for v in values)
    voxel_size = tuple(float(v) for v in voxel_size)
    if len(values) != len(voxel_size):
        raise ValueError(
            f"{len(values)} coordinates {values} for {len(voxel_size)} voxel sizes {voxel_size}; expected one per axis"
        )
    if axes is not None and len(axes) != len(values):
        raise ValueError(f"axes {tuple(axes)} do not match {len(values)} coordinates {values}")
    spatial = set(spatial_indices(axes, len(values)))
    return tuple(
        v + sign * s / 2 if i in spatial else v for i, (v, s) in enumerate(zip(values, voxel_size))
    )


def corner_to_centre(corner, voxel_size, axes=None) -> tuple[float, ...]:
    """Return the translation (voxel 0's centre) of a grid whose voxel 0 has its lower corner at ``corner``.

    Half a voxel is added along the spatial axes only (named z, y, x; else the last three),
    never along channel or time.

    >>> corner_to_centre((0.0, 0.0), (4.0, 8.0))
    (2.0, 4.0)
    """
    return _shifted(corner, voxel_size, axes, +1)


def centre_to_corner(translation, voxel_size, axes=None) -> tuple[float, ...]:
    """Return the lower corner of voxel 0 of a grid whose voxel 0 is centred at ``translation``."""
    return _shifted(translation, voxel_size, axes, -1)


def index_range(begin, end, voxel_size, translation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the voxels ``[i0, i1)`` per axis whose centres lie in the world box ``[begin, end)``.

    On each axis ``i0 = ceil((begin - t) / s)`` and ``i1 = ceil((end - t) / s)``, each quotient
    first snapped to a whole number when within 1e-6 of one.

    >>> index_range((0.0,), (16.0,), (4.0,), (2.0,))
    ((0,), (4,))
    """
    lists = [tuple(float(v) for v in x) for x in (begin, end, voxel_size, translation)]
    if len({len(x) for x in lists}) != 1:
        raise ValueError(
            f"begin {lists[0]}, end {lists[1]}, voxel_size {lists[2]} and translation {lists[3]} "
            "must have one entry per axis"
        )
    first, last = [], []
    for b, e, s, t in zip(*lists):
        if not (s > 0 and math.isfinite(s)):
            raise ValueError(f"voxel_size {lists[2]} holds {s}; expected finite sizes > 0")
        first.append(ceil_snapped((b - t) / s))
        last.append(ceil_snapped((e - t) / s))
    return tuple(first), tuple(last)


# ---------------------------------------------------------------- boxes


def _per_axis(value, ndim: int, name: str) -> tuple[float, ...]:
    if np.ndim(value) == 0 and not isinstance(value, (bool, str)):
        return (float(value),) * ndim
    values = tuple(float(v) for v in value)
    if len(values) != ndim:
        raise ValueError(f"{name} is {value!r}; expected one number or {ndim}, one per axis")
    return values


@dataclass(frozen=True)
class Box:
    """A half-open box ``[begin, end)`` per axis, in world units (floats), with funlib's Roi vocabulary.

    >>> Box((0, 0), (8, 4)).grow(2).shape
    (12.0, 8.0)
    """

    begin: tuple[float, ...]
    end: tuple[float, ...]

    def __post_init__(self):
        begin = tuple(float(v) for v in self.begin)
        end = tuple(float(v) for v in self.end)
        if len(begin) != len(end):
            raise ValueError(f"box begin {begin} and end {end} have different lengths")
        if any(math.isnan(v) for v in begin + end):
            raise ValueError(f"box [{begin}, {end}) holds NaN")
        if any(e < b for b, e in zip(begin, end)):
            raise ValueError(f"box begin {begin} is after its end {end} on some axis")
        object.__setattr__(self, "begin", begin)
        object.__setattr__(self, "end", end)

    @property
    def ndim(self) -> int:
        return len(self.begin)

    @property
    def shape(self) -> tuple[float, ...]:
        """The extent per axis, end - begin."""
        return tuple(e - b for b, e in zip(self.begin, self.end))

    @property
    def centre(self) -> tuple[float, ...]:
        return tuple((b + e) / 2 for b, e in zip(self.begin, self.end))

    @property
    def empty(self) -> bool:
        """True when the box holds no volume on some axis."""
        return any(e <= b for b, e in zip(self.begin, self.end))

    def intersect(self, other) -> "Box":
        """The part both boxes share (empty, at this box's clipped begin, when they are disjoint)."""
        other = as_box(other, self.ndim)
        begin = tuple(max(a, b) for a, b in zip(self.begin, other.begin))
        end = tuple(max(b, min(a, c)) for a, b, c in zip(self.end, begin, other.end))
        return Box(begin, end)

    def union(self, other) -> "Box":
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
            return other.empty or all(b <= ob and oe <= e for b, e, ob, oe in zip(self.begin, self.end, other.begin, other.end))
        point = _per_axis(other, self.ndim, "point")
        return all(b <= p < e for b, e, p in zip(self.begin, self.end, point))

    def grow(self, before, after=None) -> "Box":
        """Grow by ``before`` below and ``after`` (default ``before``) above, per axis or one number for all."""
        low = _per_axis(before, self.ndim, "before")
        high = low if after is None else _per_axis(after, self.ndim, "after")
        return Box(tuple(b - d for b, d in zip(self.begin, low)), tuple(e + d for e, d in zip(self.end, high)))

    def shift(self, by) -> "Box":
        move = _per_axis(by, self.ndim, "shift")
        return Box(tuple(b + d for b, d in zip(self.begin, move)), tuple(e + d for e, d in zip(self.end, move)))

    def snap(self, voxel_size, translation, mode: str = "grow") -> "Box":
        """Move begin and end onto the voxel corners of a grid: "grow" outward, "shrink" inward, or "closest"."""
        rounding = _SNAP_MODES.get(mode)
        if rounding is None:
            raise ValueError(f"snap mode is {mode!r}; expected one of {tuple(_SNAP_MODES)}")
        size = _per_axis(voxel_size, self.ndim, "voxel_size")
        corner = tuple(t - s / 2 for t, s in zip(_per_axis(translation, self.ndim, "translation"), size))
        low, high = rounding
        begin = tuple(c + low(snap_integral((b - c) / s)) * s for b, c, s in zip(self.begin, corner, size))
        end = tuple(c + high(snap_integral((e - c) / s)) * s for e, c, s in zip(self.end, corner, size))
        return Box(begin, tuple(max(b, e) for b, e in zip(begin, end)))

    def to_index(self, voxel_size, translation) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in the box (Behaviour 2), as index (begin, end)."""
        return index_range(self.begin, self.end, _per_axis(voxel_size, self.ndim, "voxel_size"), _per_axis(translation, self.ndim, "translation"))

    @classmethod
    def from_index(cls, begin, end, voxel_size, translation) -> "Box":
        """The world box of voxels [begin, end): from voxel begin's lower corner to voxel end's."""
        ndim = len(tuple(begin))
        size = _per_axis(voxel_size, ndim, "voxel_size")
        corner = tuple(t - s / 2 for t, s in zip(_per_axis(translation, ndim, "translation"), size))
        return cls(tuple(c + b * s for c, b, s in zip(corner, begin, size)), tuple(c + e * s for c, e, s in zip(corner, end, size)))

    def __repr__(self) -> str:
        return "Box({" + ", ".join(f"[{b:g}, {e:g})" for b, e in zip(self.begin, self.end)) + "})"


_SNAP_MODES = {
    "grow": (math.floor, math.ceil),
    "shrink": (math.ceil, math.floor),
    "closest": (lambda q: math.ceil(q - 0.5), lambda q: math.ceil(q - 0.5)),  # a tie goes to the lower corner
}


def as_box(value, ndim: int | None = None) -> Box:
    """Accept a Box, anything with .begin/.end or .offset/.shape (a funlib Roi), or a (begin, end) pair."""
    if isinstance(value, Box):
        box = value
    elif hasattr(value, "begin") and hasattr(value, "end"):
        box = Box(tuple(value.begin), tuple(value.end))
    elif hasattr(value, "offset") and hasattr(value, "shape"):
        box = Box(tuple(value.offset), tuple(o + s for o, s in zip(value.offset, value.shape)))
    else:
        try:
            begin, end = value
            box = Box(tuple(begin), tuple(end))
        except (TypeError, ValueError) as error:
            raise ValueError(f"box is {value!r}; expected a (begin, end) pair, a Box, or an object with begin/end or offset/shape") from error
    if ndim is not None and box.ndim != ndim:
        raise ValueError(f"box {box!r} has {box.ndim} axes; expected {ndim}")
    return box
