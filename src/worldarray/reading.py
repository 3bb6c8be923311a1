"""The read path after its checks: voxels fetched under the retry policy, padded past the data, or resampled.

Every read of a handle ends in ``voxels`` (stored voxels, Behaviour 1) or ``resampled`` (a target grid's voxels,
Behaviour 4). Attempt 1 of each fetch runs inline, so a read costs what tensorstore's own read costs until it fails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from tensorstore import TensorStore

from . import resample
from .geometry import padded
from .grid import Target
from .handle import Opened, Options, Padding, Transform, checked_padding
from .retry import Retry

__all__ = ["fetch", "voxels", "resampled"]

_NO_POLICY = Retry()


def fetch(opened: Opened, options: Options, view: TensorStore, nbytes: int, retries: Retry | None) -> np.ndarray:
    """Read a view of ``nbytes`` under the call's retry policy, else the handle's (Behaviour 6)."""
    return opened.fetch(view, nbytes, retries or options.retries or _NO_POLICY)


def voxels(opened: Opened, options: Options, view: TensorStore, shape: Sequence[int], begin: Sequence[int],
           end: Sequence[int], padding: Padding | None, mask: bool, retries: Retry | None,
           transform: Transform | None) -> Any:
    """Stored voxels [begin, end) of ``view`` (of ``shape``), the part outside the data padded: the one path every
    unresampled read takes. A box wholly inside is tensorstore's own array, without a copy."""
    if transform is None:
        transform = options.transform
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


def resampled(opened: Opened, options: Options, view: TensorStore, kept: Sequence[int] | None, begin: Sequence[int],
              end: Sequence[int], target: Target, method: str, padding: Padding | None, mask: bool,
              retries: Retry | None, transform: Transform | None, post_transform: Transform | None) -> Any:
    """Target voxels [begin, end) of the grid ``target``, read from the stored level (Behaviour 4)."""
    dtype = opened.frame.dtype
    fill = options.padding if padding is None else checked_padding(padding, dtype)
    source = opened.frame.source
    axes = kept if kept is not None else range(len(source.shape))
    plans = resample.plan_read(source.shape, source.voxel_size, source.translation, source.spatial, list(axes),
                               begin, end, target, method, fill == "edge")
    transform = transform if transform is not None else options.transform
    itemsize = dtype.itemsize

    def part(index):
        piece = view[index]
        return fetch(opened, options, piece, math.prod(piece.shape) * itemsize, retries)

    return resample.read(plans, fill, mask, transform, post_transform, dtype, part)
