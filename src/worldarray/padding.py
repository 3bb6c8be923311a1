"""A voxel box is clipped to the data and the rest padded: with a fill value, or with the nearest stored voxel.

Index space only (no voxel size enters here), so it holds for either direction of a step. Imports nothing of ours.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["clip", "padded"]


def clip(begin: Sequence[int], end: Sequence[int], shape: Sequence[int]):
    """The part of the voxel box ``[begin, end)`` inside ``[0, shape)``, as (low, high), and where it sits in it."""
    low, high, inner = [], [], []
    for b, e, n in zip(begin, end, shape, strict=True):
        lo = min(max(b, 0), n)
        hi = max(min(e, n), lo)
        low.append(lo)
        high.append(hi)
        inner.append(slice(lo - b, hi - b))
    return low, high, tuple(inner)


def padded(begin: Sequence[int], end: Sequence[int], shape: Sequence[int], fill: Any,
           fetch: Callable[[Sequence[int], Sequence[int]], np.ndarray], empty: Callable[[], np.dtype],
           mask: bool = False):
    """The voxels ``[begin, end)`` of an array of ``shape``: what ``fetch(low, high)`` returns inside, ``fill``
    outside, or under ``fill == "edge"`` the nearest stored voxel.

    ``empty()`` gives the dtype when nothing is fetched (a box wholly outside: storage is not touched). With
    ``mask`` a boolean array, True inside the data, is returned as well.
    """
    out_shape = tuple(e - b for b, e in zip(begin, end, strict=True))
    low, high, inner = clip(begin, end, shape)
    if fill == "edge":
        data = _edge(begin, end, shape, out_shape, fetch, empty)
    elif any(map(operator.le, high, low)):  # wholly outside on some axis: storage is not touched
        data = np.full(out_shape, fill, empty())
    else:
        block = fetch(low, high)
        data = np.full(out_shape, fill, block.dtype)
        data[inner] = block
    if not mask:
        return data
    valid = np.zeros(out_shape, bool)
    valid[inner] = True
    return data, valid


def _edge(begin, end, shape, out_shape, fetch, empty) -> np.ndarray:
    """Each voxel outside takes the value of the nearest stored voxel: the stored part is fetched once (at least one
    voxel per axis) and copied in, then each axis's edge slab is broadcast outwards, axis by axis, as np.pad does."""
    if 0 in out_shape:
        return np.empty(out_shape, empty())
    if 0 in tuple(shape):
        raise ValueError(f"padding 'edge' needs stored voxels, and the array's shape is {tuple(shape)}")
    low = [min(max(b, 0), n - 1) for b, n in zip(begin, shape, strict=True)]
    high = [max(min(e, n), first + 1) for e, n, first in zip(end, shape, low, strict=True)]
    block = fetch(low, high)
    out = np.empty(out_shape, block.dtype)
    # where the block lands: at its own place, or against the near side when the box misses the data on an axis
    starts = [min(max(first - b, 0), o - 1) for first, b, o in zip(low, begin, out_shape, strict=True)]
    stops = [min(s + h - first, o) for s, h, first, o in zip(starts, high, low, out_shape, strict=True)]
    out[tuple(map(slice, starts, stops))] = block[tuple(slice(0, e - s) for s, e in zip(starts, stops, strict=True))]
    for axis, (start, stop) in enumerate(zip(starts, stops, strict=True)):
        before = (slice(None),) * axis
        if start > 0:
            out[before + (slice(0, start),)] = out[before + (slice(start, start + 1),)]
        if stop < out_shape[axis]:
            out[before + (slice(stop, None),)] = out[before + (slice(stop - 1, stop),)]
    return out
