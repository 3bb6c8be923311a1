"""How much ``vol.list_chunks()`` costs, against tensorstore's own listing of the same keys.

Builds a local zarr v3 array ``list.zarr/s0`` in a temporary directory: uint8, one voxel per chunk side of 2, so a
``CHUNKS``-per-axis grid of stored chunks (32^3 = 32,768 chunk files by default; ``--side 46`` gives about
100,000), every chunk written. Then lists it two ways:

- the floor: ``ts.KvStore.open("file://.../s0/").list()``, every key below the array as bytes, on
  ``wa.shared_context()``;
- ours: ``vol.list_chunks()``, the same listing parsed into the chunk indices, in C order, each checked against
  the array's key spelling and grid.

Before timing, ours is checked to hold every chunk index of the grid, and the floor's keys to be those chunks and
the array document. In each of R rounds both run once, in a freshly shuffled order. Prints the medians, the ratio
of medians and the median of per-round ratios, and the target. Asserts nothing about timing.

Run: ``python benchmarks/listing.py [--rounds N] [--side N]``
"""

from __future__ import annotations

import argparse
import itertools
import pathlib
import statistics
import tempfile
from collections.abc import Callable

import numpy as np
import tensorstore as ts

import worldarray as wa
from timing import interleaved, per_round, verdict

SIDE = 32  # chunks per axis
CHUNK = 2  # voxels per chunk side
ROUNDS = 15
TARGET = 1.5


def build(root: str, side: int = SIDE) -> str:
    """A zarr v3 array of ``side``^3 chunks, all written; returns its path."""
    path = f"{root}/list.zarr/s0"
    vol = wa.create(path, (side * CHUNK,) * 3, "uint8", 8, 4, chunks=CHUNK, format="zarr3")
    vol.ts.write(np.ones(vol.shape, np.uint8)).result()
    return path


def cases(path: str) -> tuple[Callable[[], object], Callable[[], object]]:
    """The floor (tensorstore's listing of the array's keys) and ours (``list_chunks``), each checked first."""
    vol = wa.open(path)
    kvstore = ts.KvStore.open(f"file://{path}/", context=wa.shared_context()).result()

    def floor() -> list[bytes]:
        return kvstore.list().result()

    side = vol.shape[0] // CHUNK
    grid = list(itertools.product(range(side), repeat=3))
    assert vol.list_chunks() == grid, "list_chunks does not list every chunk of the grid in C order"
    assert len(floor()) == len(grid) + 1, "the kvstore lists more than the chunks and zarr.json"
    return floor, vol.list_chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--side", type=int, default=SIDE, help="chunks per axis (the array has side^3 chunks)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        floor, ours = cases(build(pathlib.Path(tmp).as_posix(), args.side))
        times = interleaved([floor, ours], args.rounds)
    medians = [statistics.median(t) / 1e6 for t in times]
    of_medians, of_ratios = medians[1] / medians[0], per_round(times[1], times[0])
    print(f"{args.side ** 3} chunks, {args.rounds} rounds")
    print(f"kvstore listing (floor) {medians[0]:9.2f} ms")
    print(f"vol.list_chunks()       {medians[1]:9.2f} ms  ratio of medians {of_medians:.3f}x, median of ratios "
          f"{of_ratios:.3f}x, target {TARGET:.2f}x: {verdict(of_medians, of_ratios, TARGET)}")


if __name__ == "__main__":
    main()
