"""Blocks tile a voxel box and grow by context; nothing runs.

``blocks(shape, block_shape, context, box, clip)`` is a plain, picklable sequence of ``Block`` records in C order:
their write boxes partition ``[0, shape)`` (or ``box``, the grid anchored at its begin, which may start below 0 or
end past the array) with no gap or overlap, the last block on an axis clipped; each read box is its write box grown
by ``context``, clipped to the array unless ``clip=False``. A scheduler of any kind takes the blocks as they are.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Block", "Blocks", "blocks", "whole_numbers"]


@dataclass(frozen=True)
class Block:
    """One block: its place in the block grid, its write box ``[begin, end)`` and its read box
    ``[read_begin, read_end)``, in voxels; ``result[b.inner]`` crops a read-box result to the write box."""

    index: tuple[int, ...]
    id: int
    begin: tuple[int, ...]
    end: tuple[int, ...]
    read_begin: tuple[int, ...]
    read_end: tuple[int, ...]
    at_start: tuple[bool, ...]  # per axis: the write box starts where the tiled box starts
    at_end: tuple[bool, ...]  # per axis: the write box ends where the tiled box ends

    @property
    def inner(self) -> tuple[slice, ...]:
        """Per axis, the slice of the read box that is the write box."""
        return tuple(slice(b - r, e - r) for b, e, r in zip(self.begin, self.end, self.read_begin, strict=True))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(e - b for b, e in zip(self.begin, self.end, strict=True))


def _is_whole(value: Any) -> bool:
    """A Python or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def whole_numbers(label: str, value: Any, ndim: int, low: int | None = 1) -> tuple[int, ...]:
    """One whole number for every axis, or one per axis, each >= ``low`` (any when None); ValueError naming the
    argument else."""
    values = [value] * ndim if _is_whole(value) else value
    try:
        found = tuple(values)
    except TypeError:
        found = ()
    if len(found) != ndim or not all(_is_whole(v) and (low is None or v >= low) for v in found):
        wanted = "whole numbers" + (f" >= {low}" if low is not None else "")
        raise ValueError(f"{label} is {value!r}; expected {wanted}: one, or {ndim} (one per axis)")
    return tuple(int(v) for v in found)


def _context(context: Any, ndim: int) -> tuple[tuple[int, int], ...]:
    """``context`` as a (before, after) pair per axis: one int, one int per axis, or one pair per axis."""
    if _is_whole(context):
        context = [context] * ndim
    wanted = f"context is {context!r}; expected whole numbers >= 0: one, one per axis, or a (before, after) pair " \
             f"per axis, for {ndim} axes"
    try:
        entries = list(context)
    except TypeError:
        raise ValueError(wanted) from None
    if len(entries) != ndim:
        raise ValueError(wanted)
    pairs = []
    for entry in entries:
        try:
            pair = (entry, entry) if _is_whole(entry) else tuple(entry)
        except TypeError:
            raise ValueError(wanted) from None
        if len(pair) != 2 or not all(_is_whole(v) and v >= 0 for v in pair):
            raise ValueError(wanted)
        pairs.append((int(pair[0]), int(pair[1])))
    return tuple(pairs)


class Blocks(Sequence[Block]):
    """The blocks of one tiling, in C order: ``len``, ``blocks[id]`` and ``index_of(begin)`` in O(1), nothing kept
    per block."""

    def __init__(self, shape: Sequence[int], block_shape: int | Sequence[int], context: Any = 0,
                 box: tuple[Sequence[int], Sequence[int]] | None = None, clip: bool = True) -> None:
        self.shape = whole_numbers("shape", tuple(shape), len(tuple(shape)), 0)
        ndim = len(self.shape)
        self.block_shape = whole_numbers("block_shape", block_shape, ndim, 1)
        self.context = _context(context, ndim)
        self.clip = bool(clip)
        self.begin, self.end = self._box(box)
        self.counts = tuple(math.ceil((e - b) / s) if e > b else 0
                            for b, e, s in zip(self.begin, self.end, self.block_shape, strict=True))

    def _box(self, box: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if box is None:
            return (0,) * len(self.shape), self.shape
        if isinstance(box, (str, bytes)) or len(box) != 2:
            raise ValueError(f"box is {box!r}; expected a (begin, end) pair of voxel indices")
        begin = whole_numbers("box begin", box[0], len(self.shape), None)
        end = whole_numbers("box end", box[1], len(self.shape), None)
        if not all(b <= e for b, e in zip(begin, end, strict=True)):
            raise ValueError(f"box is ({begin}, {end}); expected begin <= end on every axis")
        return begin, end

    def __len__(self) -> int:
        return math.prod(self.counts)

    def __getitem__(self, id: int) -> Block:  # type: ignore[override]  # ids only, as a block grid has no slices
        if not _is_whole(id):
            raise TypeError(f"block id {id!r} is a {type(id).__name__}; expected a whole number")
        if not -len(self) <= id < len(self):
            raise IndexError(f"block id {id!r} is not in [0, {len(self)})")
        id = int(id) % len(self)
        index, left = [], id
        for count in reversed(self.counts):
            left, position = divmod(left, count)
            index.append(position)
        return self._block(tuple(reversed(index)), id)

    def __iter__(self) -> Iterator[Block]:
        return (self[id] for id in range(len(self)))

    def _block(self, index: tuple[int, ...], id: int) -> Block:
        begin = tuple(o + i * s for o, i, s in zip(self.begin, index, self.block_shape, strict=True))
        end = tuple(min(b + s, e) for b, s, e in zip(begin, self.block_shape, self.end, strict=True))
        read_begin = tuple(b - before for b, (before, _) in zip(begin, self.context, strict=True))
        read_end = tuple(e + after for e, (_, after) in zip(end, self.context, strict=True))
        if self.clip:  # a block wholly outside the array reads nothing there: read_begin == read_end
            read_begin = tuple(min(max(r, 0), n) for r, n in zip(read_begin, self.shape, strict=True))
            read_end = tuple(max(min(r, n), b) for r, n, b in zip(read_end, self.shape, read_begin, strict=True))
        return Block(index, id, begin, end, read_begin, read_end,
                     tuple(b == o for b, o in zip(begin, self.begin, strict=True)),
                     tuple(e == o for e, o in zip(end, self.end, strict=True)))

    def index_of(self, begin: Sequence[int]) -> int:
        """The id of the block whose write box starts at ``begin``; ValueError when no block starts there."""
        begin = tuple(begin)
        offsets = [b - o for b, o in zip(begin, self.begin, strict=True)] if len(begin) == len(self.shape) else []
        if not offsets or any(d < 0 or d % s or d // s >= c
                              for d, s, c in zip(offsets, self.block_shape, self.counts, strict=True)):
            raise ValueError(f"no block starts at {begin}; blocks start at {self.begin} plus whole multiples of "
                             f"{self.block_shape}, below {self.end}")
        return _linear(tuple(int(d) // s for d, s in zip(offsets, self.block_shape, strict=True)), self.counts)

    def __repr__(self) -> str:
        return (f"Blocks({len(self)} blocks of {self.block_shape} over [{self.begin}, {self.end}), "
                f"context {self.context}, clip={self.clip})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Blocks) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]


def _linear(index: tuple[int, ...], counts: tuple[int, ...]) -> int:
    """A C-order index's linear id."""
    id = 0
    for position, count in zip(index, counts, strict=True):
        id = id * count + position
    return id


def blocks(shape: Sequence[int], block_shape: int | Sequence[int], context: Any = 0,
           box: tuple[Sequence[int], Sequence[int]] | None = None, clip: bool = True) -> Blocks:
    """The blocks of ``block_shape`` that tile ``[0, shape)`` (or ``box``), in C order, each read box grown by
    ``context`` and clipped to the array unless ``clip=False``.

    >>> tiling = blocks((10, 10), 4, context=1)
    >>> len(tiling), tiling[2].begin, tiling[2].end, tiling[2].read_begin, tiling[2].read_end
    (9, (0, 8), (4, 10), (0, 7), (5, 10))
    >>> tiling.index_of((4, 8))
    5
    """
    return Blocks(shape, block_shape, context, box, clip)
