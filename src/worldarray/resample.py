"""A target voxel's value depends only on its index and the source: never on where a read starts or ends.

Target voxel j of a grid anchored at corner A with voxel size t is centred at A + (j + 1/2) t.
"nearest" takes the source voxel whose extent [min, max) holds that centre (a centre on a boundary
belongs to the voxel above it); "linear" takes the mean of the source block a whole factor >= 2 covers
when the grids align, else interpolates between the two nearest source centres with the border
repeated. An axis on the source grid itself (the same voxel size, anchored on a source voxel
corner) is read as stored under either method. Each spatial axis is planned on its own
(``plan_axis``), then the plans are applied to the block of source voxels they name (``apply``);
``read`` does both around the caller's fetch of that block. Pure numpy: the caller reads the block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .geometry import centre_of, corners, from_centre, holding, in_voxels, inside, snap_integral, target_span

__all__ = ["METHODS", "AxisPlan", "plan_axis", "plan_identity", "plan_read", "apply", "read", "target_extent",
           "output_dtype", "magnitude", "nothing_read", "blank", "placed"]

METHODS = ("nearest", "linear")
_NONE = np.zeros(0, np.int64)  # the arrays a plan of another kind does not use


@dataclass(frozen=True)
class AxisPlan:
    """One spatial axis of a resampled read: the source voxels to read and how target voxels come from them.

    ``lo:hi:step`` is the source range read (clamped to the data). ``kind`` is "take" (each target
    voxel one source voxel, ``index`` into the read block; None when the strided read already is
    the answer), "mean" (block sums from ``starts`` with ``counts`` voxels each) or "interp"
    (``index`` and ``index + 1`` weighted by ``1 - weight`` and ``weight``; arrays a kind does not use are
    empty); for "mean", ``index`` maps
    each target voxel to its block when blocks repeat (None when they do not), ``factor`` is the block size and
    ``phase`` how far ``lo`` lies into its block (past 0 when the data's start cuts the first block short; 1 and 0
    for the other kinds). ``valid`` marks the target voxels whose centre (or block) lies in the data.
    """

    lo: int
    hi: int
    step: int
    kind: str
    index: np.ndarray | None
    weight: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    valid: np.ndarray
    factor: int = 1
    phase: int = 0

    @property
    def empty(self) -> bool:
        return self.hi <= self.lo


def target_extent(n: int, size: float, corner: float, target: float, anchor: float) -> tuple[int, int]:
    """The target voxels [k0, k1) on the grid anchored at ``anchor`` whose extents meet the data's extent, from
    ``corner`` n voxels of ``size`` along (``geometry.target_span``: either sign of step)."""
    return target_span(n, size, corner, target, anchor)


def plan_axis(j0: int, j1: int, n: int, size: float, corner: float, target: float, anchor: float,
              method: str, edge: bool) -> AxisPlan:
    """Plan target voxels [j0, j1) of the grid (anchor, target) over a source axis of n voxels (corner, size)."""
    if method not in METHODS:
        raise ValueError(f"method is {method!r}; expected one of {METHODS}")
    j = np.arange(j0, j1)
    ratio = in_voxels(target, size)
    offset = in_voxels(anchor - corner, size)  # where the target grid starts, in source voxels from the source corner
    whole = snap_integral(ratio)
    aligned = snap_integral(offset)
    if whole == 1 and float(aligned).is_integer():  # the source grid itself: its voxels, under either method
        return _plan_take(j + int(aligned), n, edge)
    if method == "linear" and whole >= 2 and float(whole).is_integer() and float(aligned).is_integer():
        return _plan_mean(j, n, int(whole), int(aligned), edge)
    centres = centre_of(offset, ratio, j)  # target centres, in source voxels from the source corner
    if method == "nearest":
        return _plan_nearest(centres, n, size, edge)
    return _plan_interp(centres, n, size)


def _plan_nearest(centres: np.ndarray, n: int, size: float, edge: bool) -> AxisPlan:
    return _plan_take(holding(centres, size), n, edge)


def plan_identity(begin: int, end: int, n: int, edge: bool) -> AxisPlan:
    """A non-resampled axis in a resampled read: voxels [begin, end), the nearest stored voxel past the data under
    edge."""
    return _plan_take(np.arange(begin, end, dtype=np.int64), n, edge)


def _plan_take(index: np.ndarray, n: int, edge: bool) -> AxisPlan:
    valid = (index >= 0) & (index < n)
    read = np.clip(index, 0, n - 1) if edge else index[valid]
    if n == 0 or len(read) == 0:
        return AxisPlan(0, 0, 1, "take", np.zeros(len(index), np.int64), _NONE, _NONE, _NONE, valid)
    lo, hi = int(read.min()), int(read.max()) + 1
    steps = np.diff(index)
    if valid.all() and len(index) > 1 and steps[0] > 0 and (steps == steps[0]).all():
        return AxisPlan(lo, hi, int(steps[0]), "take", None, _NONE, _NONE, _NONE, valid)  # a stride, read as is
    if valid.all() and len(index) == 1:
        return AxisPlan(lo, hi, 1, "take", None, _NONE, _NONE, _NONE, valid)
    return AxisPlan(lo, hi, 1, "take", np.clip(index, lo, hi - 1) - lo, _NONE, _NONE, _NONE, valid)


def _plan_mean(j: np.ndarray, n: int, factor: int, aligned: int, edge: bool) -> AxisPlan:
    valid = (aligned + j * factor < n) & (aligned + (j + 1) * factor > 0)
    blocks = np.clip(j, (-aligned) // factor, (n - 1 - aligned) // factor) if edge and n > 0 else j
    begins = np.clip(aligned + blocks * factor, 0, n)
    ends = np.clip(aligned + (blocks + 1) * factor, 0, n)
    real = np.unique(blocks[ends > begins])  # the blocks holding data tile [lo, hi) without a gap
    if n == 0 or len(real) == 0:
        return AxisPlan(0, 0, 1, "mean", None, _NONE, np.zeros(0, np.int64), np.zeros(len(j), np.int64), valid)
    firsts = np.clip(aligned + real * factor, 0, n)
    lo, hi = int(firsts[0]), int(np.clip(aligned + (real[-1] + 1) * factor, 0, n))
    position = np.clip(np.searchsorted(real, blocks), 0, len(real) - 1)
    counts = np.where(ends > begins, ends - begins, 0)
    inverse = None if len(real) == len(blocks) and (real == blocks).all() else position
    phase = lo - (aligned + int(real[0]) * factor)
    return AxisPlan(lo, hi, 1, "mean", inverse, _NONE, firsts - lo, counts, valid, factor, phase)


def _plan_interp(centres: np.ndarray, n: int, size: float) -> AxisPlan:
    position = from_centre(centres)  # in source index units: source voxel i is centred at i
    valid = inside(centres, n, size)
    if n == 0 or len(centres) == 0:
        return AxisPlan(0, 0, 1, "interp", np.zeros(len(centres), np.int64), np.zeros(len(centres)), _NONE, _NONE,
                        valid)
    position = np.clip(position, 0, n - 1)  # past the first and last centre the border voxel repeats
    left = np.floor(position).astype(np.int64)
    left = np.minimum(left, n - 1)
    weight = position - left
    right = np.minimum(left + 1, n - 1)
    lo, hi = int(left.min()), int(right.max()) + 1
    return AxisPlan(lo, hi, 1, "interp", left - lo, weight, _NONE, _NONE, valid)


def magnitude(dtype: np.dtype) -> int | None:
    """The largest magnitude an integer (or boolean) dtype holds; None for floats."""
    if dtype.kind == "b":
        return 1
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return max(abs(int(info.min)), int(info.max))
    return None


def _accumulator(dtype: np.dtype, terms: int) -> np.dtype:
    """The narrowest dtype that holds a sum of ``terms`` values of ``dtype`` exactly."""
    largest = magnitude(dtype)
    if largest is None:
        return np.dtype(np.complex128 if dtype.kind == "c" else np.float64)
    signed = dtype.kind == "i"
    for candidate in ((np.int16, np.int32, np.int64) if signed else (np.uint16, np.uint32, np.uint64)):
        if terms * largest <= np.iinfo(candidate).max:
            return np.dtype(candidate)
    return np.dtype(np.int64 if signed else np.uint64)


def _full_blocks(plan: AxisPlan, length: int) -> int | None:
    """The factor when every block is whole and in order (a plain strided sum serves), else None."""
    if plan.index is not None or len(plan.counts) == 0:
        return None
    factor = int(plan.counts[0])
    if factor < 1 or (plan.counts != factor).any() or length != factor * len(plan.counts):
        return None
    return factor


def _block_sum(data: np.ndarray, axis: int, factor: int, acc: np.dtype) -> np.ndarray:
    """Sum whole blocks of ``factor`` along ``axis`` with one strided add per block offset."""
    def part(k):
        index = [slice(None)] * data.ndim
        index[axis] = slice(k, None, factor)
        return data[tuple(index)]

    total = part(0).astype(acc)
    for k in range(1, factor):
        total += part(k)
    return total


def _mean_axis(data, axis, plan, terms, block_dtype):
    factor = _full_blocks(plan, data.shape[axis])
    acc = _accumulator(block_dtype, terms)
    if factor is not None:
        return _block_sum(data, axis, factor, acc), factor
    summed = np.add.reduceat(data, plan.starts, axis=axis, dtype=acc)
    if plan.index is not None:
        summed = np.take(summed, plan.index, axis=axis)
    shape = [1] * data.ndim
    shape[axis] = len(plan.counts)
    return summed, plan.counts.reshape(shape)


def _interp_axis(data, axis, plan):
    left = np.take(data, plan.index, axis=axis).astype(np.float64, copy=False)
    right = np.take(data, np.minimum(plan.index + 1, data.shape[axis] - 1), axis=axis)
    shape = [1] * data.ndim
    shape[axis] = len(plan.weight)
    weight = plan.weight.reshape(shape)
    return left * (1 - weight) + right * weight


def apply(block: np.ndarray, plans: dict[int, AxisPlan], dtype: np.dtype) -> np.ndarray:
    """Apply the plans (by axis of ``block``) and cast back to ``dtype``, rounding to integers when it is one.

    Whole blocks are summed by strided adds; a mean or an interpolation stays within the values it
    combines, so the integer result is rounded (ties to even) and cast without clipping.
    """
    terms = 1
    for plan in plans.values():
        if plan.kind == "mean" and len(plan.counts):
            terms *= int(plan.counts.max())
    data, divisor, exact = block, 1, True
    for axis, plan in plans.items():
        if plan.kind == "mean":
            data, count = _mean_axis(data, axis, plan, terms, data.dtype)
            divisor = divisor * count
            exact = False
        elif plan.kind == "interp":
            data = _interp_axis(data, axis, plan)
            exact = False
        elif plan.index is not None:
            data = np.take(data, plan.index, axis=axis)
    if exact:
        return data
    if not isinstance(divisor, int) or divisor != 1:
        # float32 quotients round exactly as float64 ones while every sum is below 2 ** 23
        largest = magnitude(block.dtype)
        precise = np.float32 if largest is not None and terms * largest < 2**23 else np.float64
        with np.errstate(invalid="ignore", divide="ignore"):
            data = np.divide(data, np.maximum(divisor, 1), dtype=precise)
    if dtype.kind in "iub":
        return np.rint(data).astype(dtype)
    return data.astype(dtype, copy=False)


def plan_read(shape: Sequence[int], voxel_size: Sequence[float], translation: Sequence[float], spatial: Sequence[int],
              kept: Sequence[int], begin: Sequence[int], end: Sequence[int],
              target: tuple[Sequence[float], Sequence[float]], method: str, edge: bool) -> list[AxisPlan]:
    """One plan per kept axis of a source grid (shape, voxel size and translation per axis) for target voxels
    [begin, end) of the grid ``target`` = (voxel sizes, corner) over its spatial axes; other axes are taken as they
    are."""
    sizes, corner = target
    source_corner = corners(translation, voxel_size)
    plans = []
    for position, axis in enumerate(kept):
        if axis in spatial:
            k = list(spatial).index(axis)
            plans.append(plan_axis(begin[position], end[position], shape[axis], voxel_size[axis], source_corner[axis],
                                   sizes[k], corner[k], method, edge))
        else:
            plans.append(plan_identity(begin[position], end[position], shape[axis], edge))
    return plans


def output_dtype(dtype: np.dtype, transform: Callable | None) -> np.dtype:
    """The dtype a transform makes of stored values, learnt from an empty array so nothing is read."""
    return dtype if transform is None else np.asarray(transform(np.zeros((0,), dtype))).dtype


def read(plans: Sequence[AxisPlan], fill: Any, mask: bool, transform: Callable | None,
         post_transform: Callable | None, dtype: np.dtype, fetch: Callable[[tuple[slice, ...]], np.ndarray]):
    """Fetch the source voxels the per-axis plans name in one read, resample them, and fill what lies outside.

    ``plans`` holds one plan per axis read (an identity plan on axes that are not resampled); ``fetch`` reads a
    tuple of slices of the source. The transform runs before resampling, the cast back to the dtype (the
    transform's, else the stored one) after it, then ``post_transform``, then the fill (``placed``).
    """
    if nothing_read(plans):
        return blank(plans, fill, mask, output_dtype(dtype, transform))
    block = fetch(tuple(slice(p.lo, p.hi, p.step) for p in plans))
    if transform is not None:
        block = np.asarray(transform(block))
    return placed(plans, apply(block, dict(enumerate(plans)), block.dtype), fill, mask, post_transform)


def nothing_read(plans: Sequence[AxisPlan]) -> bool:
    """Whether the plans read no source voxel: some axis's plan is empty, or asks for no target voxel."""
    return any(plan.empty or len(plan.valid) == 0 for plan in plans)


def blank(plans: Sequence[AxisPlan], fill: Any, mask: bool, dtype: np.dtype):
    """The read of plans that read nothing: all fill (0 under "edge", which has no voxel to repeat)."""
    data = np.full(tuple(len(p.valid) for p in plans), 0 if fill == "edge" else fill, dtype)
    return (data, _mask(plans)) if mask else data


def placed(plans: Sequence[AxisPlan], data: np.ndarray, fill: Any, mask: bool, post_transform: Callable | None):
    """The resampled voxels ``data`` after ``post_transform``, the fill put where the plans say a voxel lies outside.

    Padding is never transformed. A voxel lies outside when it does on some axis, so the fill goes in axis by axis
    and the mask is built only when asked for.
    """
    if post_transform is not None:
        data = np.asarray(post_transform(data))
    if fill != "edge" and not all(plan.valid.all() for plan in plans):
        data = data if data.flags.writeable else np.array(data)
        for axis, plan in enumerate(plans):
            if not plan.valid.all():
                index: list[Any] = [slice(None)] * len(plans)
                index[axis] = ~plan.valid
                data[tuple(index)] = fill
    return (data, _mask(plans)) if mask else data


def _mask(plans: Sequence[AxisPlan]) -> np.ndarray:
    valid = np.ones(tuple(len(p.valid) for p in plans), bool)
    for axis, plan in enumerate(plans):
        shape = [1] * len(plans)
        shape[axis] = len(plan.valid)
        valid &= plan.valid.reshape(shape)
    return valid
