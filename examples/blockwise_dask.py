"""Blockwise on dask.distributed: the same ``wa.Grid`` blocks and pickled handles, run by worker processes.

The script makes a small float32 volume, plans the output as a store-less ``wa.Grid``, creates it, and smooths the
input with a box mean of radius 2 on a LocalCluster of worker processes: one task per block, each given the
pickled input and output handles and its ``wa.Block``. A task reads its block's read box (the write box grown by the
radius, clipped to the array) with ``read_onto``, filters it, crops the result to the write box with ``b.inner``
and writes that whole write unit. Nothing in the task is dask's: any engine that runs picklable calls could run it.
The result equals, voxel for voxel, the same smoothing of the whole array in one process.

Run it with ``python examples/blockwise_dask.py [directory]`` (a fresh temporary directory by default).
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
from dask.distributed import Client, LocalCluster, as_completed

import worldarray as wa

SHAPE = (48, 64, 64)
VOXEL_SIZE = (8.0, 4.0, 4.0)  # nanometres, z y x
TRANSLATION = (1004.0, 502.0, 2.0)  # the centre of voxel 0
IN_CHUNKS = (16, 16, 16)
OUT_CHUNKS = (16, 32, 32)  # the output's write unit, and so its blocks
RADIUS = 2


def output_grid() -> wa.Grid:
    """The output's grid: the input's voxels, in write units of OUT_CHUNKS."""
    return wa.Grid(SHAPE, VOXEL_SIZE, TRANSLATION, chunks=OUT_CHUNKS)


def make_input(path: str, seed: int = 0) -> wa.WorldArray:
    """A float32 volume of deterministic random values, written one chunk at a time."""
    vol = wa.create(path, SHAPE, "float32", VOXEL_SIZE, TRANSLATION, chunks=IN_CHUNKS)
    values = np.random.default_rng(seed).random(SHAPE, dtype=np.float32)
    for b in vol.blocks():  # by default one block per write unit
        vol.write_index(b.begin, b.end, values[tuple(map(slice, b.begin, b.end))])
    return vol


def box_mean(data: np.ndarray, radius: int) -> np.ndarray:
    """The mean over the (2 radius + 1)^ndim window of each voxel at least ``radius`` inside ``data`` (shape
    ``data.shape - 2 radius``), cast to float32. A plain sum of shifted slices in one fixed order, in float64: every
    voxel is the same operations on the same numbers wherever its block lies, so blocks agree with the whole array
    bit for bit (a running cumulative sum rounds differently per block, visibly so in float32)."""
    total = np.asarray(data, np.float64)
    width = 2 * radius + 1
    for axis in range(total.ndim):
        n = total.shape[axis] - 2 * radius
        shifted = [total[(slice(None),) * axis + (slice(k, k + n),)] for k in range(width)]
        total = shifted[0].copy()
        for part in shifted[1:]:
            total += part
    return (total / width**data.ndim).astype(np.float32)


def smooth(data: np.ndarray, radius: int) -> np.ndarray:
    """The box mean of radius ``radius`` at every voxel of ``data``, its edge values repeated past its sides."""
    return box_mean(np.pad(data, radius, mode="edge"), radius)


def smooth_block(inp: wa.WorldArray, out: wa.WorldArray, grid: wa.Grid, b: wa.Block, radius: int) -> tuple[int, int]:
    """One task: read the block's read box on the output grid, smooth it, crop it to the write box and write that
    (one whole unit). Returns the block id and the process that wrote it."""
    data = inp.read_onto(grid, b.read_begin, b.read_end)  # the write box grown by the radius, clipped to the array
    out.write_index(b.begin, b.end, smooth(data, radius)[b.inner])  # the context covers the radius: exact inside
    return b.id, os.getpid()


def run(root: str, n_workers: int = 2, radius: int = RADIUS) -> tuple[str, str, set[int]]:
    """Make the input under ``root``, smooth it blockwise on a LocalCluster of ``n_workers`` processes, and return
    the input and output paths and the ids of the processes that wrote the blocks."""
    input_path, output_path = f"{root}/in.zarr/s0", f"{root}/out.zarr/s0"
    inp = make_input(input_path)
    grid = output_grid()
    out = wa.create(output_path, grid=grid, dtype="float32")
    tiling = grid.blocks(context=radius)  # block_shape = grid.write_shape: each block one whole unit
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        futures = [client.submit(smooth_block, inp, out, grid, b, radius, pure=False) for b in tiling]
        pids = set()
        for done, future in enumerate(as_completed(futures), 1):
            pids.add(future.result()[1])
            print(f"{done}/{len(tiling)} blocks", flush=True)
    return input_path, output_path, pids


def reference(input_path: str, radius: int = RADIUS) -> np.ndarray:
    """The same smoothing in one process: the whole array, padded by its edge values, filtered at once."""
    vol = wa.open(input_path)
    return smooth(vol.read_index((0,) * len(vol.shape), vol.shape), radius)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", help="a directory without in.zarr or out.zarr (default: a fresh one)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        input_path, output_path, pids = run(args.directory or tmp, args.workers)
        out = wa.open(output_path)
        blockwise = out.read_index((0, 0, 0), out.shape)
        same = np.array_equal(blockwise, reference(input_path))
        print(f"output: {out!r}")
        print(f"written by worker processes {sorted(pids)} (this process is {os.getpid()})")
        print(f"the blockwise result equals the one-process smoothing voxel for voxel: {same}")


if __name__ == "__main__":
    main()
