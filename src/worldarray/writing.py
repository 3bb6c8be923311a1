"""A write covers whole write units, so writers in different processes need no lock; nothing is padded or resampled on write.

A bound is aligned when it is a multiple of the write unit (the shard when sharded, else the chunk)
on its axis or the array's end there, so the clipped last unit is a whole unit too (Behaviour 13).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .keys import chunk_key, key_format, parse_chunk_key
from .reading import check_padding
from .retry import Retry

__all__ = ["WriteFace", "check_value"]

_WRITE_FLOOR_TIMEOUT = 5.0


def check_value(value, dtype: np.dtype):
    """A scalar write fills the box; it is cast only when it survives the cast exactly (A2)."""
    if isinstance(value, str):
        raise ValueError(f"data is {value!r}; expected an array or a number that dtype {dtype} holds")
    try:
        check_padding(value, dtype)
    except ValueError as error:
        raise ValueError(f"data is {value!r}, which dtype {dtype} cannot hold exactly") from error
    return np.asarray(value).astype(dtype)


class WriteFace:
    """The write side of a WorldArray opened with mode="r+" (or made by ``wa.create``)."""

    @property
    def writable(self) -> bool:
        """True when the handle was opened for writing (mode="r+")."""
        return self._options.mode == "r+"

    @property
    def write_shape(self) -> tuple[int, ...]:
        """The unit one writer may own: the shard shape when sharded, else the chunk shape."""
        return tuple(self.grid.shard_shape or self.grid.chunk_shape)

    def chunks_covering(self, begin, end, write: bool = False) -> list[tuple[int, ...]]:
        """The indices of the chunks (or with ``write=True`` the write units) that the voxel box [begin, end) touches."""
        units = self.write_shape if write else self.grid.chunk_shape
        ranges = []
        for b, e, n, c in zip(begin, end, self.shape, units):
            b, e = max(0, b), min(n, e)
            ranges.append(range(b // c, -(-e // c)) if e > b else range(0))
        return list(itertools.product(*ranges))

    def chunk_key(self, index) -> str:
        """The storage key, relative to the array, of the write unit at ``index``; fewer entries give a key prefix."""
        node = self._node
        return chunk_key(index, self.meta.format, **key_format(self.meta.format, node.docs, node.scale_key))

    def parse_chunk_key(self, key: str) -> tuple[int, ...] | None:
        """The write-unit index a storage key names, or None for a key that is not a chunk."""
        node = self._node
        return parse_chunk_key(key, self.meta.format, **key_format(self.meta.format, node.docs, node.scale_key))

    def write_index(self, begin, end, data, partial: bool = False, retries: Retry | None = None) -> None:
        """Write ``data`` into voxels [begin, end): exact shape and dtype, whole write units unless ``partial``.

        ``partial=True`` lifts the alignment check and does tensorstore's read-modify-write of the units it
        touches, which is unsafe while anything else writes the same unit. The write has committed when the
        call returns; it is timed out and retried under ``retries`` as reads are.
        """
        self._check_writable()
        begin, end = tuple(int(b) for b in begin), tuple(int(e) for e in end)
        if len(begin) != len(self.shape) or len(end) != len(self.shape):
            raise ValueError(f"begin {begin} and end {end} must have {len(self.shape)} entries, one per axis {self.axes}")
        for axis, (b, e, n) in enumerate(zip(begin, end, self.shape)):
            if not 0 <= b <= e <= n:
                raise ValueError(f"axis {self.axes[axis]!r}: [{b}, {e}) is not inside the array's [0, {n}); nothing is padded on write")
        wanted = tuple(e - b for b, e in zip(begin, end))
        if np.ndim(data) == 0:
            data = check_value(data, self.dtype)
        else:
            data = np.asarray(data)
            if data.shape != wanted:
                raise ValueError(f"data has shape {data.shape}; the box [{begin}, {end}) wants {wanted}")
            if data.dtype != self.dtype:
                raise ValueError(f"data has dtype {data.dtype}; the array's is {self.dtype} (no silent cast)")
        if not partial:
            self._check_aligned_write(begin, end)
        view = self._store[tuple(map(slice, begin, end))]
        policy = retries or self._retries
        nbytes = math.prod(wanted) * self._itemsize
        timeout = policy.timeout or (_WRITE_FLOOR_TIMEOUT if nbytes <= self._floor_bytes else policy.attempt_timeout(nbytes, self.remote))
        future = view.write(data)  # attempt 1 inline; the policy takes over only after a failure
        try:
            future.result(timeout=timeout)
        except Exception as error:
            policy.recover(error, future, lambda: view.write(data), timeout, f"write to {self.level_path}")

    def write(self, box, data, partial: bool = False, retries: Retry | None = None) -> None:
        """Write a world box: the voxels whose centres lie in it (Behaviour 2), then write_index; no padding, no resampling."""
        self._check_writable()
        begin, end = self.index_box(box)
        if len(begin) == len(self.spatial) < len(self.shape):
            begin, end = self._whole(begin, end)
        for axis, (b, e, n) in enumerate(zip(begin, end, self.shape)):
            if b < 0 or e > n:
                raise ValueError(f"box {box!r} reaches outside the array on axis {self.axes[axis]!r}: voxels [{b}, {e}) "
                                 f"of [0, {n}); nothing is padded on write")
        self.write_index(begin, end, data, partial, retries)

    def _check_writable(self) -> None:
        if not self.writable:
            raise ValueError(f"{self.level_path}: opened with mode={self._options.mode!r}; open with mode='r+' to write")
        if self.resampled:
            raise ValueError(f"{self.level_path}: a handle with a resample target is not written; nothing is resampled on write")

    def _check_aligned_write(self, begin, end) -> None:
        for axis, (unit, n) in enumerate(zip(self.write_shape, self.shape)):
            for bound in (begin[axis], end[axis]):
                if bound % unit and bound != n:
                    raise ValueError(
                        f"axis {self.axes[axis]!r}: bound {bound} is not a multiple of the write unit {unit} nor the "
                        f"array's end {n}; write whole units (vol.write_shape is {self.write_shape}) or pass partial=True"
                    )
