"""A level made from another by whole-block factors: where it lies, its shape, and the schedule of factors.

Voxel j of a level made by factor f from source voxel ``origin`` covers source voxels origin + j f .. + f - 1, so
its centre is where a block mean puts it: the BigDataViewer rule, a level's voxel 0 centred half a block in, read
backwards. No I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .geometry import ceil_snapped, centres, corners, floats, magnitudes, no_coarser, over_axes, per_axis
from .metadata import ArrayMeta

__all__ = ["level_placement", "level_shape", "derived_level", "level_factors"]

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
    produces (the BigDataViewer rule read backwards). ``voxel_size`` and ``translation`` are the source
    grid's, one entry per axis placed (a negative size, a north-up raster's, keeps its direction); ``factors`` one
    number or one per axis, > 0, whole or not; ``origin`` one whole number >= 0 or one per axis. Raises ValueError
    naming the argument and value otherwise.

    >>> level_placement((4.0,), (2.0,), 2)
    ((8.0,), (4.0,))
    >>> level_placement((-10.0,), (6199995.0,), 2)
    ((-20.0,), (6199990.0,))
    """
    sizes = floats("voxel_size", voxel_size)
    if not all(s != 0 for s in sizes):
        raise ValueError(f"voxel_size is {list(voxel_size)}; expected finite numbers, not 0")
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
    of the level's smallest, 1 elsewhere; until ``max_levels`` levels, or until a level's shape
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
        smallest = min(magnitudes(sizes))
        factors = tuple(2 if no_coarser((s,), (smallest * ratio,)) else 1 for s in sizes)
        if current is not None:
            shrunk = list(level_shape(current, factors))
            if shrunk == current:
                break
            current = shrunk
        out.append(factors)
        sizes = [s * f for s, f in zip(sizes, factors, strict=True)]
    return out
