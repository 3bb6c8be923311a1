"""B3: a blockwise job of wa.Grid blocks and pickled handles runs unchanged on dask.distributed.

The example ``examples/blockwise_dask.py`` runs once, on a LocalCluster of two worker processes bound to 127.0.0.1;
its output must equal the one-process smoothing voxel for voxel and carry the grid it was planned on.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import sys
import time
from pathlib import Path

import cloudpickle
import numpy as np
import psutil  # a dependency of dask.distributed
import pytest

import worldarray as wa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import blockwise_dask as example  # noqa: E402  # imports dask.distributed, a declared test dependency: no skip


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The example run once: its input and output paths, the writers' process ids, and what it printed."""
    root = tmp_path_factory.mktemp("blockwise")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        input_path, output_path, pids = example.run(str(root), n_workers=2)
    return input_path, output_path, pids, printed.getvalue()


def test_the_blockwise_output_equals_the_one_process_smoothing_voxel_for_voxel(ran):
    input_path, output_path, _, _ = ran
    out = wa.open(output_path)
    expected = example.reference(input_path, example.RADIUS)
    assert expected.shape == out.shape and expected.dtype == out.dtype == np.float32
    np.testing.assert_array_equal(out.read_index((0, 0, 0), out.shape), expected)
    whole = wa.open(input_path).read_index((0, 0, 0), out.shape)
    assert not np.array_equal(expected, whole)  # the filter did something


def test_the_output_carries_the_grid_it_was_planned_on(ran):
    _, output_path, _, _ = ran
    grid, out = example.output_grid(), wa.open(output_path)
    assert (out.shape, out.voxel_size, out.translation, out.corner) == (grid.shape, grid.voxel_size,
                                                                         grid.translation, grid.corner)
    assert out.write_shape == grid.write_shape == example.OUT_CHUNKS
    assert wa.Grid.from_meta(out.meta) == grid


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:  # gone meanwhile
        return "resource_tracker"


def test_every_block_is_written_by_a_worker_process_and_none_is_left_running(ran):
    _, _, pids, _ = ran
    assert pids and os.getpid() not in pids

    def left():  # the writers, and any child of this process but multiprocessing's resource tracker, which stays
        return [pid for pid in pids if psutil.pid_exists(pid)] + [
            c.pid for c in psutil.Process().children(recursive=True) if "resource_tracker" not in _cmdline(c)]

    deadline = time.monotonic() + 10
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left()


def test_the_run_prints_its_progress_block_by_block(ran):
    _, _, _, printed = ran
    count = len(example.output_grid().blocks())
    assert printed.splitlines() == [f"{n}/{count} blocks" for n in range(1, count + 1)]


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_blocks_grids_and_handles_survive_a_pickle_round_trip(ran, dumps, tmp_path):
    input_path, output_path, _, _ = ran
    grid = example.output_grid()
    tiling = grid.blocks(context=example.RADIUS, clip=False)
    b = tiling[5]
    assert pickle.loads(dumps(tiling)) == tiling and pickle.loads(dumps(b)) == b
    assert pickle.loads(dumps(grid)) == grid
    inp, out = wa.open(input_path), wa.open(output_path, mode="r+")
    inp2, out2 = pickle.loads(dumps(inp)), pickle.loads(dumps(out))
    assert (inp2.level_path, inp2.writable, out2.level_path, out2.writable) == (inp.level_path, False,
                                                                                out.level_path, True)
    np.testing.assert_array_equal(inp2.read_index(b.begin, b.end), inp.read_index(b.begin, b.end))
    made = wa.create(tmp_path / "made.zarr" / "s0", grid=grid, dtype="float32")  # the handle create returns
    copy = pickle.loads(dumps(made))
    copy.write_index(b.begin, b.end, np.full(b.shape, 3, np.float32))  # writable after the round trip
    assert copy.writable and (made.read_index(b.begin, b.end) == 3).all()


def test_read_onto_the_output_grid_agrees_with_read_index_on_every_read_box(ran):
    input_path, _, _, _ = ran
    inp, grid = wa.open(input_path), example.output_grid()
    for b in grid.blocks(context=example.RADIUS, clip=False):
        np.testing.assert_array_equal(inp.read_onto(grid, b.read_begin, b.read_end, padding="edge"),
                                      inp.read_index(b.read_begin, b.read_end, padding="edge"))
