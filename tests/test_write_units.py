"""Write units and chunk indices of select and resampled handles (Behaviours 13, 15 and 16), and what a refused
write names.

A select handle indexes its own axes (pinned axes gone) everywhere; the pinned axes count in the alignment rule and
are filled in by chunk_key. A resampled handle's chunk indices are the stored level's. Expected keys are the files
tensorstore writes, expected chunks come from the geometry or from what a read still returns once the other chunks
are gone, never from the implementation.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa

#: (c, z, y, x): two channels per write unit on c
SHAPE, CHUNKS = (4, 8, 8, 8), (2, 4, 4, 4)
AXES = ("c", "z", "y", "x")


def _make(path: Path, shape=SHAPE, chunks=CHUNKS, **kwargs) -> wa.WorldArray:
    return wa.create(path, shape=shape, dtype="uint8", voxel_size=4, translation=2, axes=AXES, chunks=chunks,
                     **kwargs)


def _values(shape) -> np.ndarray:
    return (np.arange(np.prod(shape)) % 251 + 1).reshape(shape).astype("uint8")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*") if p.is_file()
            and not p.name.startswith((".z", "zarr.json"))}


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _grid(shape, unit):
    return list(itertools.product(*(range(-(-n // u)) for n, u in zip(shape, unit, strict=True))))


# ---------------------------------------------------------------- select: the pinned axis counts in the alignment


def test_a_select_handle_refuses_a_write_covering_part_of_a_pinned_axis_unit(tmp_path):
    _make(tmp_path / "a.zarr" / "s0").write_index((0, 0, 0, 0), SHAPE, _values(SHAPE))
    before = _tree(tmp_path)
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    with pytest.raises(ValueError, match="axis 'c'") as raised:
        vol.write_index((0, 0, 0), (4, 4, 4), np.zeros((4, 4, 4), np.uint8))
    assert re.search(rf"write unit {CHUNKS[0]}\b", str(raised.value)), raised.value
    assert _tree(tmp_path) == before


def test_a_select_handle_refuses_a_scalar_write_covering_part_of_a_pinned_axis_unit(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    with pytest.raises(ValueError, match=rf"axis 'c'.*write unit {CHUNKS[0]}\b"):
        vol.write_index((0, 0, 0), (4, 4, 4), 7)


def test_a_select_handle_refuses_a_world_box_write_covering_part_of_a_pinned_axis_unit(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    with pytest.raises(ValueError, match=rf"axis 'c'.*write unit {CHUNKS[0]}\b"):
        vol.write(((0, 0, 0), (16, 16, 16)), np.zeros((4, 4, 4), np.uint8))


def test_partial_lifts_the_pinned_axis_check_and_keeps_the_units_other_index(tmp_path):
    expected = _values(SHAPE)
    _make(tmp_path / "a.zarr" / "s0").write_index((0, 0, 0, 0), SHAPE, expected)
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    vol.write_index((0, 0, 0), (4, 4, 4), 0, partial=True)
    expected[1, :4, :4, :4] = 0
    assert np.array_equal(wa.open(tmp_path / "a.zarr" / "s0").read_index((0,) * 4, SHAPE), expected)


@pytest.mark.parametrize("shape, chunks, pin", [(SHAPE, (1, 4, 4, 4), 1), ((3, 8, 8, 8), CHUNKS, 2)],
                         ids=["a unit of one index", "the clipped last unit holding one index"])
def test_a_select_handle_whose_pinned_unit_holds_one_index_writes_whole_units(tmp_path, shape, chunks, pin):
    _make(tmp_path / "a.zarr" / "s0", shape=shape, chunks=chunks)
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": pin})
    vol.write_index((0, 0, 0), (4, 4, 4), 9)
    vol.write(((16, 0, 0), (32, 16, 16)), 8)
    expected = np.zeros(shape, np.uint8)
    expected[pin, :4, :4, :4], expected[pin, 4:, :4, :4] = 9, 8
    assert np.array_equal(wa.open(tmp_path / "a.zarr" / "s0").read_index((0,) * 4, shape), expected)


# ---------------------------------------------------------------- select: one indexing, the handle's own


def test_write_shape_and_chunks_covering_of_a_select_handle_are_over_its_own_axes(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", select={"c": 1})
    assert vol.write_shape == CHUNKS[1:]
    assert vol.chunks_covering((0, 0, 0), (8, 4, 5), write=True) == [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]


def test_list_chunks_of_a_select_handle_lists_its_own_units_over_its_own_axes(tmp_path):
    _make(tmp_path / "a.zarr" / "s0").write_index((2, 0, 0, 0), (4, 4, 8, 8), 1)  # channels 2, 3: unit 1 on c
    _make(tmp_path / "b.zarr" / "s0").write_index((0, 4, 0, 0), (2, 8, 4, 8), 1)  # channels 0, 1: unit 0 on c
    assert wa.open(tmp_path / "a.zarr" / "s0", select={"c": 1}).list_chunks() == []
    assert wa.open(tmp_path / "a.zarr" / "s0", select={"c": 3}).list_chunks() == [(0, 0, 0), (0, 0, 1), (0, 1, 0),
                                                                                  (0, 1, 1)]
    assert wa.open(tmp_path / "b.zarr" / "s0", select={"c": 1}).list_chunks() == [(1, 0, 0), (1, 0, 1)]


def test_chunk_key_of_a_full_select_handle_index_is_the_stored_units_whole_key(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 3})
    vol.write_index((0, 0, 0), vol.shape, 5, partial=True)  # every unit of channel 3 and nothing else
    keys = {vol.chunk_key(index) for index in vol.chunks_covering((0, 0, 0), vol.shape, write=True)}
    assert keys == _files(tmp_path / "a.zarr" / "s0")


def test_parse_chunk_key_of_a_select_handle_inverts_its_chunk_key_and_refuses_other_pinned_units(tmp_path):
    full = _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", select={"c": 1})
    units = _grid(vol.shape, vol.write_shape)
    assert [vol.parse_chunk_key(vol.chunk_key(index)) for index in units] == units
    assert vol.parse_chunk_key(full.chunk_key((1, 0, 0, 0))) is None  # channels 2, 3


def test_a_select_handles_key_prefix_counts_its_own_axes(tmp_path):
    whole, slab = _make(tmp_path / "a.zarr" / "s0"), _make(tmp_path / "b.zarr" / "s0")
    whole.write_index((0, 0, 0, 0), SHAPE, 1)
    slab.write_index((2, 4, 0, 0), (4, 8, 8, 8), 1)  # the units holding channel 3 with z in [4, 8)
    prefix = wa.open(tmp_path / "a.zarr" / "s0", select={"c": 3}).chunk_key((1,))
    under = {key for key in _files(tmp_path / "a.zarr" / "s0") if key.startswith(prefix + "/")}
    assert under == _files(tmp_path / "b.zarr" / "s0")


# ---------------------------------------------------------------- resampled: indices name the stored chunks


def _source(tmp_path, **kwargs) -> Path:
    path = tmp_path / "r.zarr" / "s0"
    shape = (16, 16, 16)
    vol = wa.create(path, shape=shape, dtype="uint8", voxel_size=4, translation=2, chunks=4, **kwargs)
    vol.write_index((0, 0, 0), shape, _values(shape))
    return path


def test_chunks_covering_of_a_resampled_handle_names_the_source_chunks_under_its_target_voxels(tmp_path):
    vol = wa.open(_source(tmp_path), voxel_size=8, on_mismatch="resample")
    # target voxels [0, 4) at 8 nm span [0, 32) nm from the common corner: source voxels [0, 8), chunks 0 and 1
    last = 4 * 8 // 4 // 4
    assert vol.chunks_covering((0, 0, 0), (4, 4, 4)) == list(itertools.product(range(last), repeat=3))


def test_chunks_covering_of_a_resampled_handle_with_write_names_the_source_write_units(tmp_path):
    vol = wa.open(_source(tmp_path, shards=8), voxel_size=8, on_mismatch="resample")
    # target voxels [3, 5) at 8 nm: [24, 40) nm, source voxels [6, 10), shards of 8 voxels 0 and 1
    assert vol.chunks_covering((3, 0, 0), (5, 1, 1), write=True) == [(0, 0, 0), (1, 0, 0)]


def test_the_chunks_covering_a_whole_resampled_handle_are_the_chunks_it_lists(tmp_path):
    vol = wa.open(_source(tmp_path), voxel_size=8, on_mismatch="resample")
    assert vol.chunks_covering((0, 0, 0), vol.shape, write=True) == vol.list_chunks()
    assert all((tmp_path / "r.zarr" / "s0" / vol.chunk_key(i)).is_file() for i in vol.chunks_covering((0,) * 3,
                                                                                                     vol.shape))


@pytest.mark.parametrize("size, method", [(8, "nearest"), (8, "linear"), (6, "nearest"), (6, "linear"),
                                          (12, "nearest")])
def test_a_resampled_read_needs_no_chunk_that_chunks_covering_leaves_out(tmp_path, size, method):
    path = _source(tmp_path)
    vol = wa.open(path, voxel_size=size, on_mismatch="resample", method=method)
    begin, end = (1, 0, 2), (3, 2, 4)
    expected = vol.read_index(begin, end)
    needed = {vol.chunk_key(index) for index in vol.chunks_covering(begin, end)}
    for key in _files(path) - needed:
        (path / key).unlink()
    assert len(_files(path)) == len(needed)
    assert np.array_equal(vol.read_index(begin, end), expected)


# ---------------------------------------------------------------- a refused write names the array


def _box(vol, begin, end, data):
    return vol.write((begin, end), data)


#: case -> the refused write
REFUSED = {
    "another dtype": lambda vol: vol.write_index((0,) * 4, CHUNKS, np.zeros(CHUNKS, np.int64)),
    "another shape": lambda vol: vol.write_index((0,) * 4, CHUNKS, np.zeros((2, 4, 4, 3), np.uint8)),
    "another number of axes": lambda vol: vol.write_index((0,) * 3, CHUNKS[1:], 0),
    "a misaligned bound": lambda vol: vol.write_index((0, 0, 0, 1), (2, 4, 4, 5), np.zeros(CHUNKS, np.uint8)),
    "an index box past the end": lambda vol: vol.write_index((0, 0, 0, 4), (2, 4, 4, 12), 0),
    "a scalar the dtype cannot hold": lambda vol: vol.write_index((0,) * 4, CHUNKS, 300),
    "a string": lambda vol: vol.write_index((0,) * 4, CHUNKS, "1"),
    "a world box outside": lambda vol: _box(vol, (-8, 0, 0), (0, 16, 16), 0),
    "a world box of another number of axes": lambda vol: _box(vol, (0, 0), (16, 16), 0),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_write_names_the_array(tmp_path, case):
    vol = _make(tmp_path / "a.zarr" / "s0")
    with pytest.raises(ValueError) as raised:
        REFUSED[case](vol)
    assert str(raised.value).startswith(f"{vol.level_path}: "), raised.value
