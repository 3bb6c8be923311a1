"""A read past the data is clipped to it, read, and padded with the fill, or with the nearest stored voxel under "edge"."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .resample import apply

__all__ = ["check_padding", "holds_exactly", "read_clipped", "read_resampled"]


def check_padding(value, dtype: np.dtype):
    """Return ``value`` when it is "edge" or a value ``dtype`` holds exactly; else raise ValueError naming both."""
    if isinstance(value, str):
        if value != "edge":
            raise ValueError(f"padding is {value!r}; expected 'edge' or a value of dtype {dtype}")
        return value
    if np.ndim(value) != 0 or not holds_exactly(value, dtype):
        raise ValueError(f"padding is {value!r}, which dtype {dtype} cannot hold exactly")
    return value


def holds_exactly(value, dtype: np.dtype) -> bool:
    """True when ``value`` survives a cast to ``dtype`` and back unchanged (NaN into a float dtype counts)."""
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            back = np.asarray(value).astype(dtype).item()  # a Python scalar, compared at full precision
    except (TypeError, ValueError, OverflowError):
        return False
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        return isinstance(back, float) and math.isnan(back)
    try:
        return bool(back == value) and (dtype.kind != "b" or value in (0, 1, True, False))
    except (TypeError, ValueError):
        return False


def _output_dtype(dtype: np.dtype, transform) -> np.dtype:
    """The dtype a transform makes of stored values, learnt from an empty array so nothing is read."""
    return dtype if transform is None else np.asarray(transform(np.zeros((0,), dtype))).dtype


def read_clipped(view, shape, begin, end, fill, mask: bool, transform, fetch: Callable):
    """Read the part of [begin, end) inside ``shape`` through ``fetch`` and pad the rest (Behaviour 1)."""
    out_shape = tuple(e - b for b, e in zip(begin, end))
    low = [min(max(b, 0), n) for b, n in zip(begin, shape)]
    high = [max(min(e, n), lo) for e, n, lo in zip(end, shape, low)]
    inner = tuple(slice(lo - b, hi - b) for lo, hi, b in zip(low, high, begin))
    if fill == "edge":
        data = _edge(view, shape, begin, end, out_shape, transform, fetch)
    elif any(hi <= lo for lo, hi in zip(low, high)):  # wholly outside: the fill, storage untouched
        data = np.full(out_shape, fill, _output_dtype(view.dtype.numpy_dtype, transform))
    else:
        block = fetch(view[tuple(map(slice, low, high))])
        if transform is not None:
            block = np.asarray(transform(block))
        data = np.full(out_shape, fill, block.dtype)
        data[inner] = block
    if not mask:
        return data
    valid = np.zeros(out_shape, bool)
    valid[inner] = True
    return data, valid


def _edge(view, shape, begin, end, out_shape, transform, fetch):
    """Each voxel outside takes the value of the nearest stored voxel."""
    if 0 in out_shape:
        return np.empty(out_shape, _output_dtype(view.dtype.numpy_dtype, transform))
    if 0 in tuple(shape):
        raise ValueError(f"padding 'edge' needs stored voxels, and the array's shape is {tuple(shape)}")
    indices = [np.clip(np.arange(b, e), 0, n - 1) for b, e, n in zip(begin, end, shape)]
    first = [int(i[0]) for i in indices]
    last = [int(i[-1]) + 1 for i in indices]
    block = fetch(view[tuple(map(slice, first, last))])
    if transform is not None:
        block = np.asarray(transform(block))
    return np.ascontiguousarray(block[np.ix_(*(i - f for i, f in zip(indices, first)))])


def read_resampled(view, plans, fill, mask: bool, transform, post_transform, dtype: np.dtype, fetch: Callable):
    """Read the source voxels the per-axis plans name in one read, resample them, and fill what lies outside.

    ``plans`` holds one plan per axis of ``view`` (an identity plan on axes that are not resampled).
    The transform runs before resampling, the cast back to the dtype (the transform's, else the
    stored one) after it, then ``post_transform``, then the fill: padding is never transformed. A
    voxel lies outside when it does on some axis, so the fill goes in axis by axis and the mask is
    built only when asked for.
    """
    out_shape = tuple(len(p.valid) for p in plans)
    if any(plan.empty for plan in plans) or 0 in out_shape:
        data = np.full(out_shape, 0 if fill == "edge" else fill, _output_dtype(dtype, transform))
        return (data, _mask(plans)) if mask else data
    block = fetch(view[tuple(slice(p.lo, p.hi, p.step) for p in plans)])
    if transform is not None:
        block = np.asarray(transform(block))
    data = apply(block, dict(enumerate(plans)), block.dtype)
    if post_transform is not None:
        data = np.asarray(post_transform(data))
    if fill != "edge" and not all(plan.valid.all() for plan in plans):
        data = data if data.flags.writeable else np.array(data)
        for axis, plan in enumerate(plans):
            if not plan.valid.all():
                index = [slice(None)] * len(plans)
                index[axis] = ~plan.valid
                data[tuple(index)] = fill
    return (data, _mask(plans)) if mask else data


def _mask(plans) -> np.ndarray:
    valid = np.ones(tuple(len(p.valid) for p in plans), bool)
    for axis, plan in enumerate(plans):
        shape = [1] * len(plans)
        shape[axis] = len(plan.valid)
        valid &= plan.valid.reshape(shape)
    return valid
