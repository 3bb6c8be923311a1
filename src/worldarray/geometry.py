"""A translation is where the centre of voxel 0 is; the corner is half a voxel below it.

This module is the only place a half voxel is added or removed, and the only place the
centre rule (a voxel is read iff its centre lies in the box) is computed.
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = [
    "SNAP_TOLERANCE",
    "DEFAULT_AXES",
    "default_axes",
    "spatial_indices",
    "snap_integral",
    "corner_to_centre",
    "centre_to_corner",
    "index_range",
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


def snap_integral(value: float, tolerance: float = SNAP_TOLERANCE) -> float:
    """Return the nearest whole number when ``value`` is within ``tolerance`` of it, else ``value``."""
    nearest = round(value)
    return float(nearest) if abs(value - nearest) <= tolerance else value


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
        first.append(math.ceil(snap_integral((b - t) / s)))
        last.append(math.ceil(snap_integral((e - t) / s)))
    return tuple(first), tuple(last)
