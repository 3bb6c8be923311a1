"""A write of voxels goes in whole write units: every bound a multiple of the unit or the array's end, so writers of
different units in different processes need no lock; ``partial`` lifts that and does tensorstore's
read-modify-write. Data is the box's exact shape and the array's dtype, never cast silently (a scalar fills the
box); nothing is padded, resampled or truncated on write, and every refusal names the array.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import tensorstore as ts

from . import retry
from .fields import exact_value
from .arguments import index_bounds
from .geometry import BoxLike
from .grid import Frame
from .reach import Reach

if TYPE_CHECKING:  # numpy.typing only annotates here
    from numpy.typing import ArrayLike

__all__ = ["write_index", "box_voxels"]


def write_index(frame: Frame, view: ts.TensorStore, begin: Sequence[int], end: Sequence[int], data: ArrayLike, *,
                partial: bool, policy: retry.Retry, path: str, remote: bool, reach: Reach,
                hashed: bool = False) -> None:
    """Write ``data`` into voxels [begin, end) of ``view`` (the handle's tensorstore on ``frame``, reached by
    ``reach``): exact shape and dtype, and whole write units on every stored axis, pinned ones too, unless
    ``partial``; timed out and retried under ``policy`` (``Reach.write``). Every refusal names the array, ``path``.
    A ``hashed`` array (a sharded precomputed scale) has no unit that is one put, so it takes ``partial`` writes only.
    """
    shape, axes = frame.meta.shape, frame.meta.axes
    begin, end = index_bounds("begin", begin), index_bounds("end", end)
    if len(begin) != len(shape) or len(end) != len(shape):
        raise ValueError(f"{path}: begin {begin} and end {end} must have {len(shape)} entries, one per axis {axes}")
    for axis, (b, e, n) in enumerate(zip(begin, end, shape, strict=True)):
        if not 0 <= b <= e <= n:
            raise ValueError(f"{path}: axis {axes[axis]!r}: [{b}, {e}) is not inside the array's [0, {n}); nothing "
                             "is padded on write")
    wanted = tuple(e - b for b, e in zip(begin, end, strict=True))
    data = _checked_data(frame, data, wanted, f"{path}: the box [{begin}, {end})")
    if hashed and not partial:
        raise ValueError(f"{path}: a sharded precomputed scale keeps its chunks in shards that are hashed sets of "
                         "chunks, not boxes, so no write of whole chunks is one put and writers of different chunks "
                         "may share a shard; pass partial=True, with one writer at a time per shard")
    if not partial:
        _check_aligned(frame, begin, end, path)
    part = view[tuple(map(slice, begin, end))]
    nbytes = math.prod(wanted) * frame.dtype.itemsize
    reach.write(part, data, policy, policy.attempt_timeout(nbytes, remote), f"write to {path}")


def _checked_data(frame: Frame, data: ArrayLike, wanted: tuple[int, ...], where: str) -> np.ndarray:
    """``data`` as an array of shape ``wanted`` and the array's dtype, never cast silently; a scalar fills the box:
    into a float array as numpy casts it (NaN and inf too), into an integer or boolean array only when the dtype holds
    it exactly. ``where`` starts every refusal: the array's path and the box."""
    if np.ndim(data) == 0:
        if isinstance(data, (str, bytes)):
            raise ValueError(f"{where}: data is {data!r}; expected an array or a number that dtype {frame.dtype} holds")
        if frame.dtype.kind in "fc" and isinstance(data, (int, float, np.number)) and not isinstance(data, bool):
            return np.asarray(data).astype(frame.dtype)  # a float array takes any number as numpy casts it, NaN too
        try:
            return np.asarray(exact_value("data", data, frame.dtype)).astype(frame.dtype)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    found = np.asarray(data)
    if found.shape != wanted:
        raise ValueError(f"{where}: data has shape {found.shape}; the box wants {wanted}")
    if found.dtype != frame.dtype:
        raise ValueError(f"{where}: data has dtype {found.dtype}; the array's is {frame.dtype} (no silent cast)")
    return found


def _check_aligned(frame: Frame, begin: Sequence[int], end: Sequence[int], path: str) -> None:
    """Every bound on every stored axis a multiple of the write unit or the array's end; a pinned axis counts as
    [index, index + 1), so a pinned axis whose unit holds more than one index is refused."""
    first, last = frame.stored_box(begin, end)
    pinned, axes = dict(frame.pins), frame.stored.axes
    for axis, (unit, n) in enumerate(zip(frame.stored_write_shape, frame.stored.shape, strict=True)):
        for bound in (first[axis], last[axis]):
            if bound % unit == 0 or bound == n:
                continue
            where, fix = f"axis {axes[axis]!r}", f"write whole units (vol.write_shape is {frame.write_shape})"
            if axis in pinned:
                where, fix = f"{where}, pinned by select to {pinned[axis]}", "open without select and write whole units"
            raise ValueError(f"{path}: {where}: bound {bound} is not a multiple of the write unit {unit} nor the "
                             f"array's end {n}; {fix}, or pass partial=True")


def box_voxels(frame: Frame, box: BoxLike, path: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The voxels a world box selects for a write, over every axis of the handle; ValueError naming the
    array, ``path``, when it reaches outside the array, since nothing is padded on write."""
    try:
        begin, end = frame.index_box(box)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    if len(begin) == len(frame.spatial) < len(frame.meta.shape):
        begin, end = frame.whole(begin, end)
    for axis, (b, e, n) in enumerate(zip(begin, end, frame.meta.shape, strict=True)):
        if b < 0 or e > n:
            raise ValueError(f"{path}: box {box!r} reaches outside the array on axis {frame.meta.axes[axis]!r}: "
                             f"voxels [{b}, {e}) of [0, {n}); nothing is padded on write")
    return begin, end
