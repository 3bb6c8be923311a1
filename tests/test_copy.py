"""B6: a copy writes exactly a world box of a source, placed, one write unit at a time.

Every expectation is computed from the source handle (``read(box)``, ``read_index``, ``index_box``) or from an
uninterrupted, threaded or local copy of the same source: the target must hold what ``read`` would return, placed
where the source voxels were.
"""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from servers import s3_client
from worldarray import cli
from worldarray.copy import IN_FLIGHT, aligned_box

SHAPE, VOXEL, SHIFT, CHUNKS = (6, 10, 12), (8.0, 4.0, 4.0), (4.0, 2.0, 2.0), (2, 4, 4)
#: boxes in the source's world (nm): inside and off every chunk boundary, across chunk boundaries, half outside
#: the level (on every axis, on both sides), and the whole level
BOXES = {
    "inside": ((10, 7, 9), (40, 33, 41)),
    "one_voxel": ((19, 9, 13), (21, 11, 15)),
    "half_outside_low": ((-30, -20, -10), (20, 11, 15)),
    "half_outside_high": ((30, 21, 33), (100, 90, 80)),
}


def fill(vol: wa.WorldArray) -> wa.WorldArray:
    """Write the arange values into every voxel of a new array; return it opened for reading."""
    vol.write_index((0,) * len(vol.shape), vol.shape, np.arange(math.prod(vol.shape)).reshape(vol.shape)
                    .astype(vol.dtype))
    return wa.open(vol.path)


@pytest.fixture
def vol(tmp_path) -> wa.WorldArray:
    """A zarr v3 source of 6 x 10 x 12 uint16 voxels, 8 x 4 x 4 nm, chunks 2 x 4 x 4."""
    return fill(wa.create(tmp_path / "src.zarr" / "s0", SHAPE, "uint16", VOXEL, SHIFT, chunks=CHUNKS))


def whole(vol: wa.WorldArray) -> np.ndarray:
    return vol.read_index((0,) * len(vol.shape), vol.shape)


def files(root: Path) -> dict[str, bytes]:
    """Every file under a target, by its path relative to it: the documents and the chunks."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(Path(root).rglob("*")) if p.is_file()}


def clipped(vol: wa.WorldArray, box) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The source voxels a box selects, clipped to the level (as read(box) with no padding would take)."""
    lo, hi = vol.index_box(box)
    return (tuple(max(0, b) for b in lo), tuple(min(n, e) for n, e in zip(vol.shape, hi, strict=True)))


# -- extent="box": the box's voxels, placed at the source voxel's centre -----------------------------------------


@pytest.mark.parametrize("name", ["inside", "one_voxel"])
def test_a_box_copy_holds_exactly_the_voxels_read_returns(vol, tmp_path, name):
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=BOXES[name])
    expected = vol.read(BOXES[name])
    assert out.shape == expected.shape
    np.testing.assert_array_equal(whole(out), expected)


@pytest.mark.parametrize(("lo", "hi"), [((1, 2, 3), (5, 9, 11)), ((0, 0, 0), (1, 1, 1)), ((3, 5, 7), (6, 10, 12))])
def test_a_box_on_voxel_corners_copies_exactly_the_voxels_lo_to_hi(vol, tmp_path, lo, hi):
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=wa.Box.from_index(lo, hi, vol.voxel_size, vol.translation))
    assert out.shape == tuple(e - b for b, e in zip(lo, hi, strict=True))
    np.testing.assert_array_equal(whole(out), vol.read_index(lo, hi))


@pytest.mark.parametrize("name", ["half_outside_low", "half_outside_high"])
def test_a_box_half_outside_the_level_is_clipped_to_it_never_padded(vol, tmp_path, name):
    lo, hi = clipped(vol, BOXES[name])
    assert vol.index_box(BOXES[name]) != (lo, hi)  # the box does reach outside
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=BOXES[name])
    assert out.shape == tuple(e - b for b, e in zip(lo, hi, strict=True))
    np.testing.assert_array_equal(whole(out), vol.read_index(lo, hi))


@pytest.mark.parametrize("name", list(BOXES))
def test_the_target_translation_is_the_source_voxel_centre_at_the_box_first_voxel(vol, tmp_path, name):
    lo, _ = clipped(vol, BOXES[name])
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=BOXES[name])
    assert out.voxel_size == vol.voxel_size
    assert out.translation == tuple(t + b * s for t, b, s in zip(vol.translation, lo, vol.voxel_size, strict=True))


def test_target_chunk_0_starts_at_the_box_first_voxel_not_at_a_source_chunk(vol, tmp_path):
    lo, hi = (1, 3, 2), (6, 10, 11)  # off the source's chunk grid on every axis
    target = tmp_path / "out.zarr" / "s0"
    out = wa.copy(vol, target, box=wa.Box.from_index(lo, hi, vol.voxel_size, vol.translation), codecs="none")
    # an uncompressed zarr v3 chunk is its voxels in C order, little endian: unit 0 holds source voxels lo .. lo+chunk
    stored = np.frombuffer((target / out.chunk_key((0, 0, 0))).read_bytes(), "<u2").reshape(out.write_shape)
    np.testing.assert_array_equal(stored, vol.read_index(lo, [b + c for b, c in zip(lo, out.write_shape, strict=True)]))


def test_edge_units_are_cut_short_at_the_box_not_rounded_to_whole_chunks(vol, tmp_path):
    lo, hi = (1, 3, 2), (6, 10, 11)  # 5 x 7 x 9 voxels: no axis a multiple of the 2 x 4 x 4 chunks
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=wa.Box.from_index(lo, hi, vol.voxel_size, vol.translation))
    shape = tuple(e - b for b, e in zip(lo, hi, strict=True))
    assert out.shape == shape and out.write_shape == CHUNKS
    units = out.blocks()
    assert sorted(out.list_chunks()) == sorted(unit.index for unit in units)
    last = units[-1]
    assert last.shape == tuple(n - (n - 1) // c * c for n, c in zip(shape, CHUNKS, strict=True))
    np.testing.assert_array_equal(out.read_index(last.begin, last.end),
                                  vol.read_index([b + o for b, o in zip(last.begin, lo, strict=True)],
                                                 [e + o for e, o in zip(last.end, lo, strict=True)]))


def test_a_copy_with_no_box_is_byte_for_byte_the_copy_of_the_level_box(vol, tmp_path):
    wa.copy(vol, tmp_path / "none.zarr" / "s0")
    wa.copy(vol, tmp_path / "level.zarr" / "s0", box=vol.box)
    assert files(tmp_path / "none.zarr") == files(tmp_path / "level.zarr")
    assert "s0/zarr.json" in files(tmp_path / "none.zarr")


@pytest.mark.parametrize("box", [((100, 100, 100), (200, 200, 200)), ((0, 0, 3), (48, 40, 3.5))],
                         ids=["outside", "between_centres"])
def test_a_box_holding_no_voxel_centre_raises_naming_the_path_and_the_level_box(vol, tmp_path, box):
    target = tmp_path / "out.zarr" / "s0"
    with pytest.raises(ValueError, match=re.escape(vol.level_path) + ".*" + re.escape(str(vol.box))):
        wa.copy(vol, target, box=box)
    assert not target.exists()


# -- voxel_size=: the resample grid ------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize("size", [(8.0, 8.0, 8.0), (12.0, 6.0, 6.0), (8.0, 2.0, 2.0)], ids=["x2", "x1.5", "half"])
def test_a_resampled_copy_equals_the_resampled_read_unit_by_unit(vol, tmp_path, method, size):
    box = BOXES["inside"]
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=box, voxel_size=size, method=method, chunks=(1, 2, 2))
    assert len(out.list_chunks()) > 1  # units computed independently, side by side
    np.testing.assert_array_equal(whole(out), vol.read(box, voxel_size=size, method=method))


@pytest.mark.parametrize("size", [(8.0, 8.0, 8.0), (12.0, 6.0, 6.0)], ids=["x2", "x1.5"])
def test_a_resampled_copy_is_placed_on_the_resample_grid(vol, tmp_path, size):
    box = BOXES["inside"]
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=box, voxel_size=size)
    grid = wa.Grid.from_meta(vol.meta, voxel_size=size)
    resampled = vol.reopen(voxel_size=size, on_mismatch="resample")
    assert (resampled.voxel_size, resampled.translation) == (grid.voxel_size, grid.translation)
    lo, _ = resampled.index_box(box)
    assert out.voxel_size == grid.voxel_size
    assert out.translation == tuple(t + b * s for t, b, s in zip(grid.translation, lo, grid.voxel_size, strict=True))


# -- extent="level": the level's shape and placement, the box's units written --------------------------------------


def test_a_level_extent_copy_keeps_the_level_shape_and_placement(vol, tmp_path):
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=BOXES["one_voxel"], extent="level")
    assert (out.shape, out.voxel_size, out.translation) == (vol.shape, vol.voxel_size, vol.translation)


def test_a_level_extent_copy_stores_only_the_units_the_box_touches(vol, tmp_path):
    box = BOXES["one_voxel"]
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=box, extent="level")
    touched = out.chunks_covering(*vol.index_box(box), write=True)
    assert 0 < len(touched) < len(out.blocks())
    assert sorted(out.list_chunks()) == sorted(touched)
    np.testing.assert_array_equal(out.read(box), vol.read(box))


def test_two_boxes_copied_into_one_level_target_both_hold_their_voxels(vol, tmp_path):
    first, second = ((4, 2, 2), (20, 14, 18)), ((20, 10, 14), (44, 30, 34))  # they share a unit
    target = tmp_path / "out.zarr" / "s0"
    wa.copy(vol, target, box=first, extent="level")
    out = wa.copy(vol, target, box=second, extent="level", exists="resume")
    for box in (first, second):
        np.testing.assert_array_equal(out.read(box), vol.read(box))


# -- a group source: every level, or the levels named, into one OME group -------------------------------------------


@pytest.fixture
def pyramid(tmp_path, vol) -> Path:
    """The source's group with s1, each voxel the mean of its 2 x 2 x 2 block of s0 (a level's values)."""
    group = tmp_path / "src.zarr"
    s1 = wa.open_pyramid(group, mode="r+").add_level("s1", factors=2)
    means = whole(vol).reshape(3, 2, 5, 2, 6, 2).mean(axis=(1, 3, 5)).round().astype(vol.dtype)
    s1.write_index((0, 0, 0), s1.shape, means)
    return group


def test_a_group_copy_copies_every_level_into_one_ome_group_each_as_read_returns(pyramid, tmp_path):
    box = BOXES["inside"]
    made = wa.copy(pyramid, tmp_path / "out.zarr", box=box)
    assert [level.level_name for level in made] == ["s0", "s1"]
    assert wa.open_pyramid(tmp_path / "out.zarr").names == ("s0", "s1")
    sources = [wa.open(pyramid, level=name) for name in ("s0", "s1")]
    grown = aligned_box(sources, box)  # the box grown to s1's voxel corners: every level starts on one corner
    for name, source in zip(("s0", "s1"), sources, strict=True):
        level = wa.open(tmp_path / "out.zarr", level=name)
        np.testing.assert_array_equal(whole(level), source.read(grown))
        assert level.voxel_size == source.voxel_size and level.corner == made[0].corner


def test_a_group_copys_box_is_grown_to_the_coarsest_levels_voxel_corners_and_no_further(pyramid):
    sources = [wa.open(pyramid, level=name) for name in ("s0", "s1")]
    box, grown = wa.as_box(BOXES["inside"]), aligned_box(sources, BOXES["inside"])
    coarse = sources[1]
    for lo, hi, g_lo, g_hi, c, s in zip(box.begin, box.end, grown.begin, grown.end, coarse.corner,
                                        coarse.voxel_size, strict=True):
        assert g_lo <= lo < g_lo + s and g_hi - s < hi <= g_hi
        assert ((g_lo - c) / s).is_integer() and ((g_hi - c) / s).is_integer()


def test_a_group_copy_of_named_levels_copies_only_those(pyramid, tmp_path):
    box = BOXES["inside"]
    made = wa.copy(pyramid, tmp_path / "out.zarr", box=box, levels=("s1",))
    assert [level.level_name for level in made] == ["s1"]
    assert wa.open_pyramid(tmp_path / "out.zarr").names == ("s1",)
    s1 = wa.open(pyramid, level="s1")
    np.testing.assert_array_equal(whole(wa.open(tmp_path / "out.zarr", level="s1")), s1.read(aligned_box([s1], box)))


# boxes whose own s1 voxels would start one s0 voxel after (origin 1) or before (origin -1) their own s0 voxels:
# grown to s1's corners, every level starts on one corner, so check's origin 0 holds
@pytest.mark.parametrize("box", [((10, 7, 9), (40, 33, 41)), ((22, 7, 9), (40, 33, 41))], ids=["after", "before"])
def test_a_cropped_pyramid_copy_passes_check(pyramid, tmp_path, box, capsys):
    wa.copy(pyramid, tmp_path / "out.zarr", box=box)
    assert cli.main(["check", str(tmp_path / "out.zarr")]) == 0, capsys.readouterr().out


def test_a_whole_pyramid_copy_passes_check(pyramid, tmp_path):
    wa.copy(pyramid, tmp_path / "out.zarr")
    assert cli.main(["check", str(tmp_path / "out.zarr")]) == 0


# -- select=, transform=, and the arguments that do not apply ---------------------------------------------------


def double(values: np.ndarray) -> np.ndarray:
    return values.astype("float32") * 2


def test_transform_runs_on_the_copied_values_as_read_runs_it(vol, tmp_path):
    box = BOXES["inside"]
    out = wa.copy(vol.path, tmp_path / "out.zarr" / "s0", box=box, transform=double)
    expected = wa.open(vol.path, transform=double).read(box)
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(whole(out), expected)


@pytest.fixture
def channels(tmp_path) -> wa.WorldArray:
    return fill(wa.create(tmp_path / "c.zarr" / "s0", (3, 4, 6, 8), "uint8", 4, 2, axes=("c", "z", "y", "x"),
                          chunks=(1, 2, 3, 4)))


def test_other_axes_are_copied_whole(channels, tmp_path):
    box = ((4, 6, 2), (16, 20, 26))
    out = wa.copy(channels, tmp_path / "out.zarr" / "s0", box=box)
    assert out.axes == channels.axes and out.shape[0] == channels.shape[0]
    np.testing.assert_array_equal(whole(out), channels.read(box))


def test_select_pins_an_axis_as_read_pins_it(channels, tmp_path):
    box = ((4, 6, 2), (16, 20, 26))
    out = wa.copy(channels.path, tmp_path / "out.zarr" / "s0", box=box, select={"c": 1})
    expected = wa.open(channels.path, select={"c": 1}).read(box)
    assert out.axes == ("z", "y", "x")
    np.testing.assert_array_equal(whole(out), expected)


def test_levels_with_an_array_source_raises(vol, tmp_path):
    with pytest.raises(ValueError, match="levels is"):
        wa.copy(vol, tmp_path / "out.zarr" / "s0", levels=("s0",))


def test_voxel_size_with_a_group_source_raises(pyramid, tmp_path):
    with pytest.raises(ValueError, match="voxel_size is"):
        wa.copy(pyramid, tmp_path / "out.zarr", voxel_size=16)
    assert not (tmp_path / "out.zarr").exists()


# -- exists= --------------------------------------------------------------------------------------------------------


def test_a_second_copy_onto_an_existing_target_raises_and_leaves_it_byte_for_byte(vol, tmp_path):
    target = tmp_path / "out.zarr" / "s0"
    wa.copy(vol, target, box=BOXES["inside"])
    before = files(tmp_path / "out.zarr")
    with pytest.raises(FileExistsError, match=re.escape(str(target))):
        wa.copy(vol, target)
    assert files(tmp_path / "out.zarr") == before


def test_resume_onto_a_target_of_another_shape_raises_naming_the_shape(vol, tmp_path):
    target, wider = tmp_path / "out.zarr" / "s0", ((10, 7, 9), (40, 33, 45))
    first = wa.copy(vol, target, box=BOXES["inside"])
    assert vol.read(wider).shape != first.shape
    with pytest.raises(ValueError, match=re.escape(f"shape: found {first.shape}, wanted {vol.read(wider).shape}")):
        wa.copy(vol, target, box=wider, exists="resume")


def test_resume_onto_a_target_placed_elsewhere_raises_naming_the_translation(vol, tmp_path):
    target, shifted = tmp_path / "out.zarr" / "s0", ((18, 7, 9), (48, 33, 41))  # one voxel on along z
    first = wa.copy(vol, target, box=BOXES["inside"])
    assert vol.read(shifted).shape == first.shape
    with pytest.raises(ValueError, match=re.escape(f"translation: found {first.translation}")):
        wa.copy(vol, target, box=shifted, exists="resume")


#: the child copies 256 units of 4 voxels, printing every Progress; past 20 units written it slows, so it is killed
#: with most units still to go
CHILD = """
import sys, time
import worldarray as wa

def progress(p):
    print(p.needed, p.done, p.written, flush=True)
    if p.written >= 20:
        time.sleep(0.02)

wa.copy(sys.argv[1], sys.argv[2], level="s0", chunks=(1, 2, 2), progress=progress)
"""


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A copy killed by SIGKILL mid-way, then resumed in-process, beside an uninterrupted copy of the same source:
    (source, resumed target, uninterrupted target, the chunk files and mtimes found after the kill, the Progress
    reports of the resume)."""
    root = tmp_path_factory.mktemp("killed")
    source = root / "src.zarr"
    fill(wa.create(source / "s0", (4, 16, 16), "uint8", 4, 2, chunks=(4, 8, 8)))
    env = {**os.environ, "PYTHONPATH": str(Path(wa.__file__).parents[1])}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(source), str(root / "resumed.zarr" / "s0")],
                             stdout=subprocess.PIPE, env=env, text=True)
    try:
        for line in child.stdout:
            if int(line.split()[2]) >= 20:
                break
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    at_kill = {key: path.stat().st_mtime_ns for key, path in files_by_path(root / "resumed.zarr" / "s0").items()}
    reports = []
    wa.copy(source, root / "resumed.zarr" / "s0", level="s0", chunks=(1, 2, 2), exists="resume",
            progress=reports.append)
    wa.copy(source, root / "whole.zarr" / "s0", level="s0", chunks=(1, 2, 2))
    return root / "resumed.zarr", root / "whole.zarr", at_kill, reports


def files_by_path(array: Path) -> dict[str, Path]:
    """The chunk files of an array, by key."""
    vol = wa.open(array)
    return {vol.chunk_key(index): array / vol.chunk_key(index) for index in vol.list_chunks()}


#: tensorstore's file kvstore writes a chunk to ``<key>_<hex>.__lock`` and renames it onto the key; a write the kill
#: cut short leaves that temporary file, which no reader takes for a chunk
_IN_FLIGHT = re.compile(r"(.+)_[0-9a-f]+\.__lock$")


def test_a_copy_resumed_after_a_kill_equals_an_uninterrupted_copy_byte_for_byte(killed):
    resumed, uninterrupted, at_kill, _ = killed
    assert 0 < len(at_kill) < 256  # killed mid-copy
    found = files(resumed)
    left = {name for name in found if _IN_FLIGHT.match(name)}
    assert {name: data for name, data in found.items() if name not in left} == files(uninterrupted)
    # whatever the kill left is a temporary file, empty, of a unit the resume then wrote whole
    assert all(found[name] == b"" and _IN_FLIGHT.match(name)[1] in found for name in left), sorted(left)


def test_a_resumed_copy_rewrites_no_unit_stored_before_the_kill(killed):
    resumed, _, at_kill, reports = killed
    assert {key: (resumed / "s0" / key).stat().st_mtime_ns for key in at_kill} == at_kill
    assert (reports[-1].skipped, reports[-1].computed) == (len(at_kill), 256 - len(at_kill))


# -- progress -------------------------------------------------------------------------------------------------------


@pytest.fixture
def reported(vol, tmp_path):
    """A copy of a box over several edge-cut units and every Progress it reported."""
    reports = []
    out = wa.copy(vol, tmp_path / "out.zarr" / "s0", box=BOXES["inside"], progress=reports.append)
    return out, reports


def test_progress_is_reported_once_before_the_first_unit_and_once_after_each(reported):
    out, reports = reported
    needed = len(out.blocks())
    assert reports[0] == wa.Progress(needed)
    assert len(reports) == needed + 1
    assert [r.done for r in reports] == list(range(needed + 1))


def test_progress_counts_never_decrease(reported):
    _, reports = reported
    for field in ("needed", "computed", "skipped", "written", "bytes"):
        counts = [getattr(r, field) for r in reports]
        assert counts == sorted(counts), field


def test_progress_ends_with_every_unit_done_and_the_bytes_of_every_unit(reported):
    out, reports = reported
    last = reports[-1]
    assert last.computed + last.skipped == last.needed == len(out.blocks())
    assert last.bytes == sum(math.prod(unit.shape) * out.dtype.itemsize for unit in out.blocks())


def test_a_unit_all_fill_is_computed_but_not_written(tmp_path):
    source = wa.create(tmp_path / "src.zarr" / "s0", (4, 8), "uint8", 1, 0, axes=("y", "x"), chunks=(2, 4))
    source.write_index((2, 0), (4, 8), np.full((2, 8), 7, "uint8"))  # the units of rows 0-1 stay all fill
    reports = []
    out = wa.copy(source, tmp_path / "out.zarr" / "s0", progress=reports.append)
    assert reports[-1].computed == len(out.blocks()) == 4
    assert reports[-1].written == len(out.list_chunks()) == 2


class CountingPool(concurrent.futures.ThreadPoolExecutor):
    """A thread pool that records the most units it ever held unfinished."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.unfinished, self.most, self.counting = 0, 0, threading.Lock()

    def submit(self, fn, /, *args, **kwargs):
        with self.counting:
            self.unfinished += 1
            self.most = max(self.most, self.unfinished)
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._finished)
        return future

    def _finished(self, _future) -> None:
        with self.counting:
            self.unfinished -= 1


def test_a_copy_keeps_at_most_a_few_units_per_worker_in_flight(vol, tmp_path):
    with CountingPool(2) as pool:
        out = wa.copy(vol, tmp_path / "out.zarr" / "s0", chunks=(1, 2, 2), executor=pool)
    assert len(out.blocks()) > 4 * IN_FLIGHT * 2  # many more units than may be in flight
    assert 0 < pool.most <= IN_FLIGHT * 2


# -- executors ------------------------------------------------------------------------------------------------------


def test_a_process_pool_copy_writes_the_same_bytes_as_a_threaded_copy(vol, tmp_path):
    box = BOXES["inside"]
    wa.copy(vol, tmp_path / "threads.zarr" / "s0", box=box, chunks=(1, 2, 4))
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        wa.copy(vol, tmp_path / "processes.zarr" / "s0", box=box, chunks=(1, 2, 4), executor=pool)
    assert files(tmp_path / "processes.zarr") == files(tmp_path / "threads.zarr")


def test_a_dask_client_copy_writes_the_same_bytes_as_a_threaded_copy(vol, tmp_path):
    from dask.distributed import Client, LocalCluster

    box = BOXES["inside"]
    wa.copy(vol, tmp_path / "threads.zarr" / "s0", box=box, chunks=(1, 2, 4))
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        wa.copy(vol, tmp_path / "dask.zarr" / "s0", box=box, chunks=(1, 2, 4), executor=client)
    assert files(tmp_path / "dask.zarr") == files(tmp_path / "threads.zarr")


# -- a unit that fails ----------------------------------------------------------------------------------------------

FAILING = 500  # the source value whose unit fails


def refuse_failing(values: np.ndarray) -> np.ndarray:
    if (values == FAILING).any():
        raise ValueError(f"holds {FAILING}")
    return values


def failing_unit(vol: wa.WorldArray) -> wa.Block:
    """The target unit (the source's own units: a copy of the whole level) that holds the voxel of value FAILING."""
    where = np.unravel_index(FAILING, vol.shape)
    return next(u for u in vol.blocks() if all(b <= i < e for b, i, e in zip(u.begin, where, u.end, strict=True)))


def test_a_failing_unit_raises_naming_the_target_the_unit_and_its_source_box(vol, tmp_path):
    target = tmp_path / "out.zarr" / "s0"
    unit = failing_unit(vol)
    message = f"{wa.store.normalize(target)} unit {unit.index} (source box {unit.begin}-{unit.end}): holds {FAILING}"
    with pytest.raises(wa.CopyError, match=f"^{re.escape(message)}$"):
        wa.copy(vol.path, target, transform=refuse_failing)


def test_a_failing_unit_in_a_box_copy_names_its_source_box_in_source_voxels(vol, tmp_path):
    lo = (1, 0, 1)
    box = wa.Box.from_index(lo, vol.shape, vol.voxel_size, vol.translation)
    target = tmp_path / "out.zarr" / "s0"
    with pytest.raises(wa.CopyError) as raised:
        wa.copy(vol.path, target, box=box, transform=refuse_failing)
    found = re.fullmatch(r".* unit \((.*)\) \(source box \((.*)\)-\((.*)\)\): .*", str(raised.value))
    index, begin, end = ([int(n) for n in group.split(",")] for group in found.groups())
    where = np.unravel_index(FAILING, vol.shape)
    assert all(b <= i < e for b, i, e in zip(begin, where, end, strict=True))
    shape = wa.open(target).write_shape
    assert begin == [o + k * c for o, k, c in zip(lo, index, shape, strict=True)]


def refuse_zero(values: np.ndarray) -> np.ndarray:
    if (values == 0).any():
        raise ValueError("holds 0")
    return values


# copy probes the transform's dtype on the box's first voxel before any unit runs: a failure there names unit 0
def test_a_failure_in_the_first_unit_at_its_first_voxel_is_named_too(vol, tmp_path):
    target = tmp_path / "out.zarr" / "s0"
    first = vol.blocks()[0]
    message = f"{wa.store.normalize(target)} unit {first.index} (source box {first.begin}-{first.end}): holds 0"
    with pytest.raises(wa.CopyError, match=f"^{re.escape(message)}$"):
        wa.copy(vol.path, target, transform=refuse_zero)


def test_the_units_written_before_a_failure_stay_stored(vol, tmp_path):
    target = tmp_path / "out.zarr" / "s0"
    before = [u for u in vol.blocks() if u.index < failing_unit(vol).index]  # one worker writes in C order
    with concurrent.futures.ThreadPoolExecutor(1) as pool, pytest.raises(wa.CopyError):
        wa.copy(vol.path, target, transform=refuse_failing, executor=pool)
    out = wa.open(target)
    assert {u.index for u in before} <= set(out.list_chunks())
    for unit in before:
        np.testing.assert_array_equal(out.read_index(unit.begin, unit.end), vol.read_index(unit.begin, unit.end))


# -- remote sources and targets -------------------------------------------------------------------------------------


def test_a_copy_from_an_http_source_equals_the_local_copy(vol, tmp_path, http_server):
    box = BOXES["inside"]
    served = fill(wa.create(http_server.root / "src.zarr" / "s0", SHAPE, "uint16", VOXEL, SHIFT, chunks=CHUNKS))
    assert np.array_equal(whole(served), whole(vol))
    wa.copy(f"{http_server.url}/src.zarr", tmp_path / "remote.zarr" / "s0", level="s0", box=box)
    wa.copy(vol, tmp_path / "local.zarr" / "s0", box=box)
    assert files(tmp_path / "remote.zarr") == files(tmp_path / "local.zarr")


def test_a_copy_to_an_s3_target_equals_the_local_copy(vol, tmp_path, s3_server, monkeypatch):
    bucket = f"copy-{uuid.uuid4().hex[:12]}"
    client = s3_client(s3_server)
    client.create_bucket(Bucket=bucket)
    for name, value in {"AWS_ENDPOINT_URL": s3_server, "AWS_REGION": "us-east-1",
                        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    box = BOXES["inside"]
    wa.copy(vol, f"s3://{bucket}/out.zarr/s0", box=box)
    wa.copy(vol, tmp_path / "local.zarr" / "s0", box=box)
    listed = client.list_objects_v2(Bucket=bucket, Prefix="out.zarr/")["Contents"]
    stored = {item["Key"].removeprefix("out.zarr/"): client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
              for item in listed}
    assert stored == files(tmp_path / "local.zarr")
