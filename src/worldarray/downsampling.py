"""Linear reads at a whole factor through tensorstore's downsample driver, which averages each chunk as it decodes.

The rule: a linear read at a whole factor goes through tensorstore's "mean" downsampling of the source block read
(its origin moved to 0) when that gives exactly the block mean the numpy path gives (``factors``): every resampled
axis a block mean whose first block starts at the first voxel read, every other axis read as stored, no transform
before resampling, and boolean or integer data whose block sums stay below ``EXACT_SUM``. Elsewhere the numpy path
(``resample.apply``) stays: tensorstore sums float32 in float32 and float64 in its own order, so a float mean can
differ in its last bits; and a first block the data's start cuts short lies at an offset in the driver's block,
where tensorstore 0.1.86 averages past the voxels read when the data ends inside that block too. Only the part in
the data is averaged here; the take along axes read as stored, the fill and the mask are ``resample``'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorstore as ts

from . import resample
from .resample import AxisPlan

__all__ = ["EXACT_SUM", "factors", "read"]

#: Below this block sum the numpy path's float64 division rounds an integer mean exactly, half to even, as
#: tensorstore's integer division does at any sum: a mean that is no tie lies at least 1 / (2 count) from one,
#: farther than the quotient's rounding error.
EXACT_SUM = 2**52

#: The kinds of plan whose voxels the driver gives: a block mean, or voxels taken as stored (a factor of 1).
_FACTOR_OF = {"mean": lambda plan: plan.factor, "take": lambda plan: 1}

#: Where the driver rounds as the numpy path does: booleans and integers, whose means it divides exactly.
_EXACT_KINDS = "biu"


def factors(plans: Sequence[AxisPlan], dtype: np.dtype, transform: Callable | None) -> tuple[int, ...] | None:
    """The downsample factor of each axis when tensorstore's mean gives the voxels ``resample.apply`` does, else
    None: some axis a block mean whose first block starts at the first voxel read, every other axis taken as stored,
    no transform before resampling (the driver averages stored values), and a boolean or integer dtype whose largest
    block sum is below ``EXACT_SUM``."""
    if transform is not None or dtype.kind not in _EXACT_KINDS:
        return None
    if any(plan.kind not in _FACTOR_OF or plan.phase for plan in plans):
        return None
    if not any(plan.kind == "mean" for plan in plans):
        return None
    found = tuple(_FACTOR_OF[plan.kind](plan) for plan in plans)
    return found if math.prod(found) * (resample.magnitude(dtype) or 0) < EXACT_SUM else None


def read(plans: Sequence[AxisPlan], found: Sequence[int], fill: Any, mask: bool, post_transform: Callable | None,
         dtype: np.dtype, fetch: Callable[[Any, Callable[[ts.TensorStore], ts.TensorStore]], np.ndarray]):
    """``resample.read`` of plans that ``factors`` gave ``found`` for, the block means read through the driver.

    ``fetch(index, derive)`` reads ``derive`` of the source view under ``index`` (so a retry opens that view again
    and derives it anew). The driver starts its blocks at multiples of the factor, so with the source block's origin
    at 0 its blocks are the plan's and its output voxel k is the plan's k-th block holding data, which the plan's
    ``index`` then takes as ``resample.apply`` does.
    """
    if resample.nothing_read(plans):
        return resample.blank(plans, fill, mask, dtype)

    def derive(view: ts.TensorStore) -> ts.TensorStore:
        return ts.downsample(view[ts.d[:].translate_to[0]], list(found), method="mean")

    data = fetch(tuple(slice(p.lo, p.hi, p.step) for p in plans), derive)
    for axis, plan in enumerate(plans):
        if plan.index is not None:
            data = np.take(data, plan.index, axis=axis)
    return resample.placed(plans, data, fill, mask, post_transform)
