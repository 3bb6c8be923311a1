"""Behaviours 13, 14 and 16 and A2: aligned writes, world-box writes, add_level, write units and scalar writes.

Every store lives under tmp_path; expected arrays are built with numpy alone, and placements with the
spec's formulas typed out here.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import re
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa

SHAPE, CHUNKS = (8, 12, 14), (2, 4, 5)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _tree(root: Path) -> dict[str, str]:
    """Every path under root with a digest of its bytes (directories map to "dir")."""
    out = {}
    for path in sorted(root.rglob("*")):
        out[str(path.relative_to(root))] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _values(shape, dtype="uint16") -> np.ndarray:
    return np.arange(math.prod(shape)).reshape(shape).astype(dtype)


def _make(path: Path, **kwargs) -> wa.WorldArray:
    args = dict(shape=SHAPE, dtype="uint16", voxel_size=(4, 4, 4), translation=(2, 2, 2), chunks=CHUNKS)
    args.update(kwargs)
    return wa.create(path, **args)


def _units(shape, unit):
    """Every write unit's (begin, end), the last one on each axis clipped to the shape."""
    ranges = [[(b, min(b + u, n)) for b in range(0, n, u)] for n, u in zip(shape, unit, strict=True)]
    for box in itertools.product(*ranges):
        yield tuple(b for b, _ in box), tuple(e for _, e in box)


# ---------------------------------------------------------------- aligned writes


def test_write_index_accepts_whole_units_and_the_clipped_end(tmp_path):
    vol, expected = _make(tmp_path / "g.zarr" / "s0"), _values(SHAPE)
    for begin, end in _units(SHAPE, CHUNKS):
        vol.write_index(begin, end, expected[tuple(map(slice, begin, end))])
    assert np.array_equal(vol.read_index((0, 0, 0), SHAPE), expected)


def test_write_index_accepts_a_union_of_whole_units(tmp_path):
    vol, expected = _make(tmp_path / "g.zarr" / "s0"), _values(SHAPE)
    begin, end = (2, 4, 5), SHAPE
    vol.write_index(begin, end, expected[2:, 4:, 5:])
    assert np.array_equal(vol.read_index(begin, end), expected[2:, 4:, 5:])


@pytest.mark.parametrize("axis, begin, end, bound, unit", [
    ("z", (3, 0, 0), (4, 4, 5), 3, 2),
    ("y", (0, 0, 0), (2, 6, 5), 6, 4),
    ("x", (0, 0, 5), (2, 4, 7), 7, 5),
])
def test_a_misaligned_bound_raises_naming_the_axis_the_bound_and_the_unit(tmp_path, axis, begin, end, bound, unit):
    vol = _make(tmp_path / "g.zarr" / "s0")
    data = np.zeros(tuple(e - b for b, e in zip(begin, end, strict=True)), np.uint16)
    with pytest.raises(ValueError, match="is not a multiple of the write unit") as raised:
        vol.write_index(begin, end, data)
    message = str(raised.value)
    assert f"'{axis}'" in message and all(f"'{a}'" not in message for a in "zyx" if a != axis), message
    assert re.search(rf"\b{bound}\b", message) and re.search(rf"\b{unit}\b", message), message


def test_write_index_refuses_a_dtype_cast(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0")
    with pytest.raises(ValueError, match="data has dtype int32; the array's is uint16"):
        vol.write_index((0, 0, 0), CHUNKS, np.ones(CHUNKS, np.int32))


def test_write_index_refuses_data_of_another_shape(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0")
    with pytest.raises(ValueError, match=r"data has shape \(2, 4, 4\); .* wants \(2, 4, 5\)"):
        vol.write_index((0, 0, 0), CHUNKS, np.ones((2, 4, 4), np.uint16))


def test_partial_writes_an_arbitrary_box_and_keeps_the_rest_of_its_units(tmp_path):
    vol, expected = _make(tmp_path / "g.zarr" / "s0"), _values(SHAPE)
    vol.write_index((0, 0, 0), SHAPE, expected)
    patch = np.full((3, 5, 2), 9999, np.uint16)
    vol.write_index((1, 2, 3), (4, 7, 5), patch, partial=True)
    expected[1:4, 2:7, 3:5] = patch
    assert np.array_equal(vol.read_index((0, 0, 0), SHAPE), expected)


def test_a_handle_opened_read_only_refuses_writes(tmp_path):
    _make(tmp_path / "g.zarr" / "s0")
    vol = wa.open(tmp_path / "g.zarr" / "s0")
    assert not vol.writable
    with pytest.raises(ValueError, match="r\\+"):
        vol.write_index((0, 0, 0), CHUNKS, np.ones(CHUNKS, np.uint16))


def test_a_handle_opened_with_mode_r_plus_writes(tmp_path):
    _make(tmp_path / "g.zarr" / "s0")
    vol = wa.open(tmp_path / "g.zarr" / "s0", mode="r+")
    vol.write_index((0, 0, 0), CHUNKS, np.full(CHUNKS, 3, np.uint16))
    assert (wa.open(tmp_path / "g.zarr" / "s0").read_index((0, 0, 0), CHUNKS) == 3).all()


# ---------------------------------------------------------------- scalars and fill (A2)


def test_a_scalar_fills_the_box(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", dtype="uint8")
    vol.write_index((0, 4, 0), (2, 8, 5), 200)
    expected = np.zeros(SHAPE, np.uint8)
    expected[0:2, 4:8, 0:5] = 200
    assert np.array_equal(vol.read_index((0, 0, 0), SHAPE), expected)


@pytest.mark.parametrize("value", [300, -1, 0.5, float("nan")], ids=["300", "-1", "0.5", "nan"])
def test_a_scalar_that_does_not_survive_the_cast_exactly_raises(tmp_path, value):
    vol = _make(tmp_path / "g.zarr" / "s0", dtype="uint8")
    with pytest.raises(ValueError, match=rf"data is {re.escape(repr(value))}, which dtype uint8 cannot hold exactly"):
        vol.write_index((0, 0, 0), CHUNKS, value)


@pytest.mark.parametrize("value", [0.1, float("nan"), float("inf"), -float("inf"), 3, np.float64(0.3)])
def test_a_scalar_into_a_float_array_is_cast_as_numpy_casts_it(tmp_path, value):
    vol = _make(tmp_path / "g.zarr" / "s0", dtype="float32")
    vol.write_index((0, 0, 0), CHUNKS, value)
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), CHUNKS), np.full(CHUNKS, value, np.float32))


def test_a_unit_of_fill_values_is_not_stored(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", fill_value=5)
    vol.write_index((0, 0, 0), CHUNKS, np.full(CHUNKS, 5, np.uint16))
    vol.write_index((2, 0, 0), (4, 4, 5), 5)
    assert vol.list_chunks() == []


def test_a_stored_unit_written_to_fill_loses_its_key(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0")
    vol.write_index((0, 0, 0), CHUNKS, np.ones(CHUNKS, np.uint16))
    assert (tmp_path / "g.zarr" / "s0" / vol.chunk_key((0, 0, 0))).exists()
    vol.write_index((0, 0, 0), CHUNKS, 0)
    assert not (tmp_path / "g.zarr" / "s0" / vol.chunk_key((0, 0, 0))).exists()


def test_store_fill_stores_units_of_fill_values(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", store_fill=True)
    vol.write_index((0, 0, 0), CHUNKS, np.zeros(CHUNKS, np.uint16))
    assert vol.list_chunks() == [(0, 0, 0)]


def test_an_array_created_with_store_fill_stores_fill_units_through_a_handle_opened_by_path(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", store_fill=True)
    vol = wa.open(tmp_path / "g.zarr" / "s0", mode="r+")
    vol.write_index((0, 0, 0), CHUNKS, 0)
    assert vol.list_chunks() == [(0, 0, 0)]


# ---------------------------------------------------------------- two processes, disjoint units


def _write_units(target, boxes) -> None:
    vol = target if isinstance(target, wa.WorldArray) else wa.open(target, mode="r+")
    expected = _values(vol.shape)
    for begin, end in boxes:
        vol.write_index(begin, end, expected[tuple(map(slice, begin, end))])


def test_two_processes_writing_disjoint_units_produce_the_expected_array(tmp_path):
    path = tmp_path / "g.zarr" / "s0"
    vol = _make(path)
    boxes = list(_units(SHAPE, CHUNKS))
    spawn = multiprocessing.get_context("spawn")
    # one worker gets a pickled handle, the other the path, and opens it itself
    workers = [spawn.Process(target=_write_units, args=(vol, boxes[0::2])),
               spawn.Process(target=_write_units, args=(str(path), boxes[1::2]))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
    assert [w.exitcode for w in workers] == [0, 0]
    assert np.array_equal(wa.open(path).read_index((0, 0, 0), SHAPE), _values(SHAPE))


# ---------------------------------------------------------------- world boxes


def _centred_in(begin, end, vol) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The voxels whose centres lie in [begin, end), from the centres themselves."""
    first, last = [], []
    for b, e, n, s, t in zip(begin, end, vol.shape, vol.voxel_size, vol.translation, strict=True):
        inside = np.flatnonzero((t + s * np.arange(n) >= b) & (t + s * np.arange(n) < e))
        first.append(int(inside[0]))
        last.append(int(inside[-1]) + 1)
    return tuple(first), tuple(last)


def test_write_box_writes_the_voxels_whose_centres_lie_in_it(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", voxel_size=(4, 4, 4), translation=(10, 10, 10))
    begin, end = (17.5, 7.9, 29.0), (33.5, 24.0, 64.5)  # no edge on a voxel corner
    first, last = _centred_in(begin, end, vol)
    data = _values(tuple(e - b for b, e in zip(first, last, strict=True)))
    vol.write((begin, end), data)
    expected = np.zeros(SHAPE, np.uint16)
    expected[tuple(map(slice, first, last))] = data
    assert np.array_equal(vol.read_index((0, 0, 0), SHAPE), expected)


def test_write_box_accepts_a_scalar(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", voxel_size=(4, 4, 4), translation=(10, 10, 10))
    vol.write(((8, 8, 8), (16, 24, 28)), 7)  # voxels [0, 2) x [0, 4) x [0, 5)
    expected = np.zeros(SHAPE, np.uint16)
    expected[0:2, 0:4, 0:5] = 7
    assert np.array_equal(vol.read_index((0, 0, 0), SHAPE), expected)


@pytest.mark.parametrize("begin, end", [((8, 8, 8), (16, 16, 70)), ((4, 8, 8), (16, 16, 8 + 20))],
                         ids=["past the end", "before the start"])
def test_write_box_reaching_outside_the_array_raises(tmp_path, begin, end):
    vol = _make(tmp_path / "g.zarr" / "s0", voxel_size=(4, 4, 4), translation=(10, 10, 10))
    first, last = vol.index_box((begin, end))
    with pytest.raises(ValueError, match="reaches outside the array on axis"):
        vol.write((begin, end), np.zeros(tuple(e - b for b, e in zip(first, last, strict=True)), np.uint16))


# ---------------------------------------------------------------- write units (Behaviour 16)


def test_write_shape_is_the_chunk_shape_when_unsharded(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0")
    assert (vol.write_shape, vol.meta.shard_shape) == (CHUNKS, None)


def test_write_shape_is_the_shard_shape_when_sharded(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 5), shards=(4, 4, 10))
    assert (vol.write_shape, vol.meta.shard_shape, vol.meta.chunk_shape) == ((4, 4, 10), (4, 4, 10), (2, 2, 5))


@pytest.mark.parametrize("write, unit", [(True, (4, 4, 10)), (False, (2, 2, 5))])
def test_chunks_covering_with_write_runs_on_the_write_unit_grid(tmp_path, write, unit):
    vol = _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 5), shards=(4, 4, 10))
    begin, end = (3, 1, 9), (5, 9, 14)
    expected = list(itertools.product(*(range(b // u, -(-e // u)) for b, e, u in zip(begin, end, unit, strict=True))))
    assert vol.chunks_covering(begin, end, write=write) == expected


def test_a_sharded_array_refuses_a_write_of_one_inner_chunk(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 5), shards=(4, 4, 10))
    with pytest.raises(ValueError, match="bound 2 is not a multiple of the write unit 4"):
        vol.write_index((0, 0, 0), (2, 2, 5), np.ones((2, 2, 5), np.uint16))


def test_list_chunks_and_chunk_key_run_on_the_shard_grid(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 5), shards=(4, 4, 10))
    vol.write_index((4, 0, 10), (8, 4, 14), np.ones((4, 4, 4), np.uint16))
    assert vol.list_chunks() == [(1, 0, 1)]
    assert (tmp_path / "g.zarr" / "s0" / vol.chunk_key((1, 0, 1))).is_file()


def test_a_chunk_key_of_leading_axes_is_the_prefix_of_their_units_keys(tmp_path):
    vol = _make(tmp_path / "g.zarr" / "s0")
    assert vol.chunk_key((1,)) == "c/1"
    assert vol.chunk_key((1, 2, 0)).startswith(vol.chunk_key((1,)) + "/")


# ---------------------------------------------------------------- add_level (Behaviour 14)


PYRAMID = dict(shape=(20, 21, 22), voxel_size=(4, 4, 4), translation=(2, 2, 2), chunks=(4, 4, 4))


def _pyramid(tmp_path, **kwargs) -> Path:
    root = tmp_path / "g.zarr"
    vol = _make(root / "s0", **{**PYRAMID, **kwargs})
    vol.write_index((0, 0, 0), (4, 4, 4), np.ones((4, 4, 4), vol.dtype))
    return root


@pytest.mark.parametrize("factors, origin", [(2, 0), ((2, 3, 2), (0, 16, 4)), ((1.5, 2, 4), 2)])
def test_add_level_places_and_sizes_the_level_from_factors_and_origin(tmp_path, factors, origin):
    root = _pyramid(tmp_path)
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=factors, origin=origin)
    f = (factors,) * 3 if isinstance(factors, (int, float)) else factors
    o = (origin,) * 3 if isinstance(origin, int) else origin
    meta = wa.metadata(root / "s1")
    assert meta.voxel_size == pytest.approx([4 * k for k in f], rel=1e-12)
    assert meta.translation == pytest.approx([2 + 4 * (p + (k - 1) / 2) for k, p in zip(f, o, strict=True)], rel=1e-12)
    assert meta.shape == tuple(math.ceil((n - p) / k) for n, k, p in zip(PYRAMID["shape"], f, o, strict=True))
    assert (meta.voxel_size, meta.translation) == wa.level_placement((4, 4, 4), (2, 2, 2), factors, origin)
    assert meta.shape == wa.level_shape(PYRAMID["shape"], factors, origin)


def test_add_level_keeps_a_channel_axis_whole(tmp_path):
    root = tmp_path / "g.zarr"
    _make(root / "s0", shape=(3, 10, 12, 14), axes=("c", "z", "y", "x"),
          units=["", "nanometer", "nanometer", "nanometer"], chunks=(1, 4, 4, 4))
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2, origin=(0, 2, 0))
    meta = wa.metadata(root / "s1")
    expected = ((3, 5, 5, 7), (1.0, 8.0, 8.0, 8.0), (0.0, 4.0, 12.0, 4.0))
    assert (meta.shape, meta.voxel_size, meta.translation) == expected


def test_add_level_keeps_the_datasets_ordered_finest_to_coarsest(tmp_path):
    root = _pyramid(tmp_path)
    _make(root / "s3", shape=(3, 3, 3), voxel_size=(32, 32, 32), translation=(16, 16, 16), chunks=(4, 4, 4))
    pyramid = wa.open_pyramid(root, mode="r+")
    pyramid.add_level("s2", factors=4)
    pyramid.add_level("s1", factors=2)
    datasets = _read_json(root / "zarr.json")["attributes"]["ome"]["multiscales"][0]["datasets"]
    assert [d["path"] for d in datasets] == ["s0", "s1", "s2", "s3"]


def test_add_level_replaces_a_listed_entry_of_the_same_name(tmp_path):
    root = _pyramid(tmp_path)
    group = _read_json(root / "zarr.json")
    datasets = group["attributes"]["ome"]["multiscales"][0]["datasets"]
    stale = [{"type": "scale", "scale": [5.0, 5.0, 5.0]}, {"type": "translation", "translation": [0.0, 0.0, 0.0]}]
    datasets.append({"path": "s1", "coordinateTransformations": stale})
    (root / "zarr.json").write_text(json.dumps(group), encoding="utf-8")
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    datasets = _read_json(root / "zarr.json")["attributes"]["ome"]["multiscales"][0]["datasets"]
    assert [d["path"] for d in datasets] == ["s0", "s1"]
    assert datasets[1]["coordinateTransformations"][0]["scale"] == [8.0, 8.0, 8.0]


def test_add_level_over_an_existing_array_raises_file_exists_error(tmp_path):
    root = _pyramid(tmp_path)
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    with pytest.raises(FileExistsError, match=r"s1: something is already there \(zarr3 array\)"):
        wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)


def test_add_level_with_exists_adopt_opens_the_identical_level(tmp_path):
    root = _pyramid(tmp_path)
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    level = wa.open_pyramid(root, mode="r+").add_level("s1", factors=2, exists="adopt")
    assert level.writable and level.shape == (10, 11, 11)


def test_add_level_with_exists_adopt_refuses_a_different_level(tmp_path):
    root = _pyramid(tmp_path)
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    with pytest.raises(ValueError, match=r"shape: found \(10, 11, 11\), wanted \(7, 7, 8\)"):
        wa.open_pyramid(root, mode="r+").add_level("s1", factors=3, exists="adopt")


_V3_CODECS = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 6}}]
_V2_BLOSC = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}


def test_add_level_copies_dtype_chunks_shards_codecs_and_fill_in_zarr3(tmp_path):
    root = _pyramid(tmp_path, dtype="int16", chunks=(2, 2, 2), shards=(4, 4, 4), codecs=_V3_CODECS, fill_value=7)
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    source, level = _read_json(root / "s0" / "zarr.json"), _read_json(root / "s1" / "zarr.json")
    for key in ("data_type", "chunk_grid", "codecs", "fill_value", "chunk_key_encoding"):
        assert level[key] == source[key], key


def test_add_level_copies_dtype_chunks_compressor_and_fill_in_zarr2(tmp_path):
    root = _pyramid(tmp_path, dtype="int16", format="zarr2", codecs=_V2_BLOSC, fill_value=7)
    wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    source, level = _read_json(root / "s0" / ".zarray"), _read_json(root / "s1" / ".zarray")
    for key in ("dtype", "chunks", "compressor", "fill_value", "dimension_separator"):
        assert level[key] == source[key], key


@pytest.mark.parametrize("fmt", ["zarr3", "zarr2"])
def test_add_level_writes_no_voxel_data(tmp_path, fmt):
    root = _pyramid(tmp_path, format=fmt)
    before = _tree(root / "s0")
    level = wa.open_pyramid(root, mode="r+").add_level("s1", factors=2)
    assert level.list_chunks() == []
    assert all(p.name in ("zarr.json", ".zarray", ".zattrs") for p in (root / "s1").rglob("*"))
    assert _tree(root / "s0") == before


# ---------------------------------------------------------------- a refused write changes nothing


def _box_of(vol, begin, end):
    return vol.write((begin, end), np.zeros((2, 4, 5), np.uint16))


#: case -> (the refused write, what its message names)
REFUSED = {
    "another dtype": (lambda vol: vol.write_index((0, 0, 0), CHUNKS, np.zeros(CHUNKS, np.int64)),
                      "data has dtype int64"),
    "another shape": (lambda vol: vol.write_index((0, 0, 0), CHUNKS, np.zeros((2, 4, 4), np.uint16)),
                      r"data has shape \(2, 4, 4\)"),
    "a misaligned bound": (lambda vol: vol.write_index((0, 0, 1), (2, 4, 6), np.zeros(CHUNKS, np.uint16)),
                           "axis 'x': bound 1 is not a multiple of the write unit 5"),
    "an index box past the end": (lambda vol: vol.write_index((6, 0, 10), (8, 4, 15), np.zeros((2, 4, 5), np.uint16)),
                                  r"axis 'x': \[10, 15\) is not inside the array's \[0, 14\)"),
    "a world box outside": (lambda vol: _box_of(vol, (-8, 0, 0), (0, 16, 20)),
                            "reaches outside the array on axis 'z'"),
    "a scalar the dtype cannot hold": (lambda vol: vol.write_index((0, 0, 0), CHUNKS, -1),
                                       "data is -1, which dtype uint16 cannot hold exactly"),
    "a read-only handle": (lambda vol: wa.open(vol.path).write_index((0, 0, 0), CHUNKS, np.zeros(CHUNKS, np.uint16)),
                           r"opened with mode='r'; open with mode='r\+' to write"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_write_changes_nothing_in_the_store(tmp_path, case):
    vol = _make(tmp_path / "g.zarr" / "s0")
    vol.write_index((0, 0, 0), SHAPE, _values(SHAPE))
    before = _tree(tmp_path)
    write, match = REFUSED[case]
    with pytest.raises(ValueError, match=match):
        write(vol)
    assert _tree(tmp_path) == before
