"""A handle behaves like a numpy array in index space: ``vol.ndim``, ``vol[key]``, ``np.asarray(vol)``, and
``vol.coords()`` for the voxel centres.

``vol[key]`` takes integers, slices of any step, ``...`` and ``np.newaxis``, bounded as numpy bounds them (slices
clip to the shape, an integer out of range raises IndexError), and returns numpy: the voxels of the slices' bounding
box are read by ``read_index`` (so a subclass's ``read_index`` applies), then stepped. Padding is ``read_index``'s
and ``read``'s job, never this one's. On a resampled or selected handle the indices are the handle's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = ["Selection", "select", "ArrayProtocol"]


@dataclass(frozen=True)
class Selection:
    """What a key selects: the voxel box [begin, end) to read, then per axis the step (negative: reversed) and
    whether an integer dropped the axis, and where new axes of length 1 go in the result."""

    begin: tuple[int, ...]
    end: tuple[int, ...]
    steps: tuple[slice | int, ...]  # per axis, applied to the box read: a slice with a step, or 0 for an integer
    new_axes: tuple[int, ...]  # positions in the result

    @property
    def empty(self) -> bool:
        return any(e <= b for b, e in zip(self.begin, self.end, strict=True))


def _expanded(key: Any, ndim: int) -> list[Any]:
    """The key as one entry per axis and ``None`` for each new axis: ``...`` filled with whole slices."""
    items = list(key) if isinstance(key, tuple) else [key]
    if sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(item is not None and item is not Ellipsis for item in items)
    if used > ndim:
        raise IndexError(f"too many indices: the array has {ndim} axes and {used} were indexed")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (ndim - used)
    else:
        items += [slice(None)] * (ndim - used)
    return items


def _axis(item: Any, n: int, axis: int) -> tuple[int, int, slice | int]:
    """One axis: the box [lo, hi) read and how the read box is stepped (an int index drops the axis)."""
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        index = int(item) + n if item < 0 else int(item)
        if not 0 <= index < n:
            raise IndexError(f"index {int(item)} is out of bounds for axis {axis} with size {n}")
        return index, index + 1, 0
    if not isinstance(item, slice):
        raise IndexError(f"only integers, slices, '...' and np.newaxis index a WorldArray; axis {axis} got "
                         f"{item!r} (read_index and read take voxel and world boxes)")
    chosen = range(*item.indices(n))
    if not chosen:
        return 0, 0, slice(None)
    lo, hi = min(chosen[0], chosen[-1]), max(chosen[0], chosen[-1]) + 1
    return lo, hi, slice(None, None, chosen.step)  # from the box's first voxel, or its last when the step is < 0


def select(key: Any, shape: Sequence[int]) -> Selection:
    """Parse ``key`` against ``shape`` as numpy does (basic indexing only)."""
    items = _expanded(key, len(shape))
    begin, end, steps, new_axes = [], [], [], []
    axis, position = 0, 0
    for item in items:
        if item is None:
            new_axes.append(position)
            position += 1
            continue
        lo, hi, step = _axis(item, shape[axis], axis)
        begin.append(lo)
        end.append(hi)
        steps.append(step)
        axis += 1
        position += 0 if isinstance(step, int) else 1
    return Selection(tuple(begin), tuple(end), tuple(steps), tuple(new_axes))


class _Readable(Protocol):
    """What the array protocol needs of the class it is mixed into."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype: ...

    @property
    def spatial(self) -> tuple[int, ...]: ...

    @property
    def grid(self) -> Any: ...

    @property
    def ndim(self) -> int: ...

    def read_index(self, begin: Any, end: Any) -> Any: ...


class ArrayProtocol:
    """``ndim``, ``__getitem__``, ``__array__`` and ``coords`` for a class with ``shape``, ``dtype``, ``grid``,
    ``spatial`` and ``read_index``."""

    @property
    def ndim(self: _Readable) -> int:
        """The number of axes of ``shape`` (pinned axes gone)."""
        return len(self.shape)

    def __len__(self: _Readable) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d WorldArray")
        return self.shape[0]

    def __getitem__(self: _Readable, key: Any) -> np.ndarray:
        """The voxels a numpy basic index selects, in the handle's own indexing, as numpy; nothing is padded."""
        chosen = select(key, self.shape)
        if chosen.empty:
            block = np.empty([max(0, e - b) for b, e in zip(chosen.begin, chosen.end, strict=True)], self.dtype)
        else:
            block = np.asarray(self.read_index(chosen.begin, chosen.end))
        block = block[tuple(chosen.steps)]
        for position in chosen.new_axes:
            block = np.expand_dims(block, position)
        return block

    def __array__(self: _Readable, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """The whole array, read: ``np.asarray(vol)``. A read is always a copy, so ``copy=False`` raises."""
        if copy is False:
            raise ValueError("a WorldArray is read from storage, which is always a copy; copy=False cannot be met")
        data = np.asarray(self.read_index((0,) * self.ndim, self.shape))
        return data if dtype is None else data.astype(dtype, copy=False)

    def coords(self: _Readable) -> list[np.ndarray]:
        """Per axis, the positions of the voxel centres in the handle's units: ``translation + i * voxel_size`` on
        the spatial axes and on any axis with a unit, ``i`` elsewhere."""
        grid = self.grid
        out = []
        for axis, n in enumerate(self.shape):
            index = np.arange(n)
            placed = axis in self.spatial or grid.units[axis]
            out.append(grid.translation[axis] + index * grid.voxel_size[axis] if placed else index)
        return out
