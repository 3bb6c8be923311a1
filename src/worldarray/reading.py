"""The read path after its checks: voxels fetched under the retry policy, padded past the data, or resampled.

Every read of a handle ends in ``voxels`` (stored voxels, clipped, read and padded) or ``resampled`` (a target
grid's voxels). Attempt 1 of each fetch runs inline, so a read costs what tensorstore's own read costs until it fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tensorstore import TensorStore

from . import downsampling, resample
from .geometry import padded
from .grid import Target
from .handle import Opened, Options, Padding, Transform, checked_padding, then
from .retry import Retry

__all__ = ["Read", "fetch", "voxels", "resampled"]

_NO_POLICY = Retry()


@dataclass(frozen=True)
class Read:
    """One read after its checks: the view it reads (``shape`` its extent; ``kept`` the handle's axes it keeps, None
    for all), the voxels [begin, end), and the call's own padding, mask, retry policy and transforms (None: the
    handle's)."""

    view: TensorStore
    shape: Sequence[int]
    begin: Sequence[int]
    end: Sequence[int]
    padding: Padding | None = None
    mask: bool = False
    retries: Retry | None = None
    transform: Transform | None = None
    post_transform: Transform | None = None
    kept: Sequence[int] | None = None


def fetch(opened: Opened, options: Options, view: TensorStore, nbytes: int, retries: Retry | None,
          derive: Callable[[TensorStore], TensorStore] | None = None) -> np.ndarray:
    """Read a view of ``nbytes`` (or ``derive`` of it) under the call's retry policy, else the handle's."""
    return opened.fetch(view, nbytes, retries or options.retries or _NO_POLICY, derive)


def voxels(opened: Opened, options: Options, read: Read) -> Any:
    """Stored voxels [begin, end) of the read's view, the part outside the data padded: the one path every
    unresampled read takes. A box wholly inside is tensorstore's own array, without a copy."""
    view, shape, begin, end = read.view, read.shape, read.begin, read.end
    padding, mask, retries = read.padding, read.mask, read.retries
    transform = read.transform if read.transform is not None else options.transform
    if read.post_transform is not None:
        transform = then(transform, read.post_transform)
    itemsize = opened.itemsize
    count = itemsize
    for b, e, n in zip(begin, end, shape, strict=True):
        if b < 0 or e > n:
            break
        count *= e - b
    else:  # wholly inside
        data = fetch(opened, options, view[tuple(map(slice, begin, end))], count, retries)
        data = transform(data) if transform is not None else data
        return (data, np.ones(data.shape, bool)) if mask else data

    def part(first, last):
        piece = view[tuple(map(slice, first, last))]
        block = fetch(opened, options, piece, math.prod(piece.shape) * itemsize, retries)
        return np.asarray(transform(block)) if transform is not None else block

    dtype = opened.frame.dtype
    fill = options.padding if padding is None else checked_padding(padding, dtype)
    return padded(begin, end, shape, fill, part, lambda: resample.output_dtype(dtype, transform), mask)


def resampled(opened: Opened, options: Options, read: Read, target: Target, method: str) -> Any:
    """Target voxels [begin, end) of the grid ``target``, read from the stored level with ``method``.

    A read whose source block is over ``SLAB_BYTES`` goes slab by slab along its first spatial axis, and a slab
    still over it along the next, each slab's source whole chunks where the plan allows: a target voxel depends only
    on its index, so the slabs are the one read, and the memory held is the output plus one slab of source. Through
    tensorstore's downsample driver a slab is ``DRIVER_SLABS`` times as large: the driver holds chunks in flight
    and their means, not the decoded source block and its sums.
    """
    view, begin, end, mask, retries, post_transform = (read.view, read.begin, read.end, read.mask, read.retries,
                                                       read.post_transform)
    dtype = opened.frame.dtype
    fill = options.padding if read.padding is None else checked_padding(read.padding, dtype)
    source = opened.frame.source
    axes = list(read.kept if read.kept is not None else range(len(source.shape)))
    transform = read.transform if read.transform is not None else options.transform
    itemsize = dtype.itemsize

    def part(index, derive=None):
        piece = view[index]
        return fetch(opened, options, piece, math.prod(piece.shape) * itemsize, retries, derive)

    spatial = [position for position, axis in enumerate(axes) if axis in source.spatial]

    def slabbed(first, last, depth):  # slabs along the spatial axes in turn (z, then y, ...) while over budget
        plans = resample.plan_read(source.shape, source.voxel_size, source.translation, source.spatial, axes, first,
                                   last, target, method, fill == "edge")
        factors = downsampling.factors(plans, dtype, transform)  # not None: tensorstore's driver gives these voxels
        budget = SLAB_BYTES * (DRIVER_SLABS if factors is not None else 1)
        k = spatial[depth] if depth < len(spatial) else None
        rows = _slab_rows(plans, k, itemsize, source.chunk_shape[axes[k]], budget) if k is not None else None
        if k is None or rows is None:
            if factors is not None:
                return downsampling.read(plans, factors, fill, mask, post_transform, dtype, part)
            return resample.read(plans, fill, mask, transform, post_transform, dtype, part)
        return _by_slabs(lambda lo, hi: slabbed(lo, hi, depth + 1), first, last, k, rows, mask)

    return slabbed(begin, end, 0)


def _by_slabs(read: Callable[[list[int], list[int]], Any], begin: Sequence[int], end: Sequence[int], k: int,
              rows: int, mask: bool) -> Any:
    """[begin, end) read as slabs of ``rows`` along axis ``k`` by ``read(first, last)`` and put together."""
    out: tuple[np.ndarray, ...] = ()
    count = end[k] - begin[k]
    for a in range(0, count, rows):
        b = min(a + rows, count)
        first, last = list(begin), list(end)
        first[k], last[k] = begin[k] + a, begin[k] + b
        pieces = read(first, last)
        pieces = pieces if mask else (pieces,)
        if not out:
            out = tuple(np.empty(p.shape[:k] + (count,) + p.shape[k + 1:], p.dtype) for p in pieces)
        for whole, slab in zip(out, pieces, strict=True):
            whole[(slice(None),) * k + (slice(a, b),)] = slab
    return out if mask else out[0]


#: A resampled read whose source block is larger than this reads slab by slab (about this much source at a time).
SLAB_BYTES = 8 * 2**20
#: How many times SLAB_BYTES of source a slab read through the downsample driver covers: a linear 2x read of a
#: 640^3 uint8 array grew peak memory by about 73 MiB so, against about 100 MiB by the numpy path's 8 MiB slabs
#: (``benchmarks/memory.py``'s measure).
DRIVER_SLABS = 2


def _slab_rows(plans: Sequence[resample.AxisPlan], k: int, itemsize: int, chunk: int, budget: int) -> int | None:
    """Target rows per slab along axis ``k``, each slab about ``budget`` bytes of source in whole chunks of
    ``chunk`` source rows; None when the source block is within the budget (or empty), so it is read at once."""
    spans = [max(0, -(-(p.hi - p.lo) // p.step)) for p in plans]
    total = math.prod(spans) * itemsize
    rows_out = len(plans[k].valid)
    if total <= budget or spans[k] <= 1 or rows_out <= 1:
        return None
    row_bytes = total // spans[k]
    source_rows = max(chunk, budget // max(row_bytes, 1) // chunk * chunk)
    return max(1, rows_out * source_rows // spans[k])
