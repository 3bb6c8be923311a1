"""Reads (spec Behaviours 1, 2, 3, 6, 7, 8, 9 and section 5 "Reads:"): clip, read and pad; the centre rule; relabel;
a large resampled read slab by slab.

Every store is written in tmp_path by conftest's builders and holds ``arange_values``, so numpy slicing and np.pad
are the oracle for every read. Which level a path, level= or voxel_size picks is test_levels'.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import inspect
import math
import pickle
import uuid

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import worldarray as wa
from conftest import BUILDERS, arange_values, ome_pyramid
from worldarray import downsampling, reading, resample
from worldarray.handle import checked_padding

SHAPE, SIZE, TRANSLATION = (6, 7, 9), (8.0, 4.0, 2.0), (100.0, 50.0, 31.0)
VALUES = arange_values(SHAPE, "uint16")
FINE = 10.48, 3.7  # mesh-n-bone's float-noise grid: voxel size and translation on every axis


def padded(values, begin, end, **pad):
    """np.pad's answer for the voxels [begin, end) of values, however far outside they lie."""
    width = [(max(0, -b), max(0, e - n)) for b, e, n in zip(begin, end, values.shape, strict=True)]
    out = np.pad(values, width, **pad)
    return out[tuple(slice(b + w, e + w) for b, e, (w, _) in zip(begin, end, width, strict=True))]


@pytest.fixture(scope="module")
def grids(tmp_path_factory):
    """Two single-level volumes: an anisotropic one, and the 10.48 nm grid with translation 3.7."""
    root = tmp_path_factory.mktemp("grids")
    cube = ome_pyramid(root, "cube.zarr", [("s0", SHAPE, SIZE, TRANSLATION)])
    fine = ome_pyramid(root, "fine.zarr", [("s0", SHAPE, (FINE[0],) * 3, (FINE[1],) * 3)])
    return {"cube": wa.open(cube + "/s0"), "fine": wa.open(fine + "/s0")}


@pytest.fixture
def cube(grids):
    return grids["cube"]


boxes = st.tuples(*[st.integers(-4, n + 3) for n in SHAPE], *[st.integers(0, 8)] * 3).map(
    lambda v: (v[:3], tuple(b + m for b, m in zip(v[:3], v[3:], strict=True))))


# ---------------------------------------------------------------- Behaviour 1: clip, read, pad


@settings(max_examples=60, deadline=None)
@given(box=boxes)
def test_read_index_returns_stored_values_inside_and_the_padding_value_outside(grids, box):
    got = grids["cube"].read_index(*box, padding=7)
    np.testing.assert_array_equal(got, padded(VALUES, *box, mode="constant", constant_values=7))
    assert got.shape == tuple(e - b for b, e in zip(*box, strict=True)) and got.dtype == VALUES.dtype


@settings(max_examples=60, deadline=None)
@given(box=boxes)
def test_edge_padding_takes_the_nearest_stored_voxel(grids, box):
    np.testing.assert_array_equal(grids["cube"].read_index(*box, padding="edge"), padded(VALUES, *box, mode="edge"))


@pytest.mark.parametrize("dtype,fill", [("uint64", 2**64 - 1), ("float32", math.nan), ("int16", -32768)])
def test_padding_is_any_value_the_dtype_holds(tmp_path, dtype, fill):
    path = ome_pyramid(tmp_path, "v.zarr", [("s0", (2, 3, 4), (1, 1, 1), (0, 0, 0))], dtype=dtype)
    got = wa.open(path + "/s0").read_index((-1, 0, 0), (3, 3, 4), padding=fill)
    want = padded(arange_values((2, 3, 4), dtype), (-1, 0, 0), (3, 3, 4), mode="constant", constant_values=fill)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.dtype(dtype)


_EDGE_DTYPES = ("uint8", "int8", "uint16", "int16", "int32", "uint64", "int64", "float16", "float32", "float64")


def _survives_the_cast(value: int, dtype: np.dtype) -> bool:
    with np.errstate(all="ignore"):
        try:
            return np.asarray(value).astype(dtype).item() == value
        except OverflowError:
            return False


@pytest.mark.parametrize("dtype", _EDGE_DTYPES)
def test_a_whole_number_padding_is_taken_exactly_when_the_dtype_gives_it_back(dtype):
    dtype = np.dtype(dtype)
    reach = 2 ** (np.finfo(dtype).nmant + 1) if dtype.kind == "f" else None
    edges = (reach, -reach) if reach else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    for edge in edges:
        for value in (edge - 1, edge, edge + 1, 0, 1, -1):
            if _survives_the_cast(value, dtype):
                assert checked_padding(value, dtype) == value
            else:
                with pytest.raises(ValueError, match=f"padding is {value}, which dtype {dtype} cannot hold exactly"):
                    checked_padding(value, dtype)


def test_a_box_wholly_outside_returns_the_fill_without_touching_storage(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "v.zarr", "shape": [4, 6], "dtype": "uint16", "chunks": [2, 3],
                                 "document": {"compressor": None}})
    for chunk in (tmp_path / "v.zarr").glob("[0-9]*"):
        chunk.write_bytes(b"not a chunk")  # any read of a chunk now fails
    vol = wa.open(tmp_path / "v.zarr", units=None)
    with pytest.raises(ValueError, match=r"v\.zarr/0\.0"):  # tensorstore names the chunk it could not decode
        vol.read_index((0, 0), (1, 1))
    data, valid = vol.read_index((4, 0), (6, 6), padding=9, mask=True)  # outside on z only
    np.testing.assert_array_equal(data, np.full((2, 6), 9, "uint16"))
    assert not valid.any()
    np.testing.assert_array_equal(vol.read(((-10.0, 1.0), (-4.0, 5.0)), padding=3), np.full((6, 4), 3, "uint16"))


@pytest.mark.parametrize("box", [((1, 2, 3), (4, 5, 6)), ((-2, 5, -1), (3, 9, 12)), ((7, 0, 0), (9, 2, 2))])
def test_mask_is_true_exactly_inside_the_data(cube, box):
    data, valid = cube.read_index(*box, mask=True)
    np.testing.assert_array_equal(valid, padded(np.ones(SHAPE, bool), *box, mode="constant", constant_values=False))
    assert valid.dtype == bool and data.shape == valid.shape


def test_reads_of_a_big_endian_store_are_c_contiguous_in_native_byte_order(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "be.zarr", "shape": list(SHAPE), "dtype": ">u2", "chunks": [3, 4, 5]})
    vol = wa.open(tmp_path / "be.zarr", units=None)
    reads = [vol.read_index((1, 1, 1), (5, 6, 8)), vol.read_index((-1, 2, 0), (4, 9, 9), padding=1),
             vol.read_index((-1, -1, -1), (7, 8, 10), padding="edge"), vol.read(vol.box)]
    for got in reads:
        assert got.flags.c_contiguous and got.dtype.isnative and got.dtype == np.dtype("uint16")
    np.testing.assert_array_equal(reads[0], VALUES[1:5, 1:6, 1:8])
    np.testing.assert_array_equal(reads[3], VALUES)


def test_padding_and_the_box_are_per_read_arguments_and_open_sets_only_the_default(grids):
    vol = grids["cube"].reopen(padding=5)
    box = (-1, 0, 0), (2, 2, 2)
    assert vol.read_index(*box)[0].max() == 5
    np.testing.assert_array_equal(vol.read_index(*box, padding=9),
                                  padded(VALUES, *box, mode="constant", constant_values=9))
    np.testing.assert_array_equal(vol.read_index(*box, padding="edge"), padded(VALUES, *box, mode="edge"))
    assert vol.read_index(*box)[0].max() == 5  # a per-read padding leaves the handle's default alone
    vol.padding = 3
    np.testing.assert_array_equal(vol.read_index((0, 0, 7), (1, 1, 10)), [[[7, 8, 3]]])


def test_a_transform_is_applied_before_padding_and_sets_the_output_dtype(cube):
    def halve(a):
        return a.astype(np.float32) / 2

    box = (-1, 2, 6), (3, 5, 11)
    got = cube.read_index(*box, padding=3, transform=halve)
    np.testing.assert_array_equal(got, padded(VALUES.astype(np.float32) / 2, *box, mode="constant", constant_values=3))
    assert got.dtype == np.float32
    assert cube.read_index((7, 0, 0), (8, 1, 1), padding=3, transform=halve).dtype == np.float32
    world = cube.reopen(transform=halve).read(wa.Box.from_index(*box, SIZE, TRANSLATION), padding=3)
    np.testing.assert_array_equal(world, got)


@pytest.mark.parametrize("fill", [70000, -1, 0.5, math.nan, "mirror"])
def test_padding_the_dtype_cannot_hold_raises_naming_padding(cube, fill):
    with pytest.raises(ValueError, match="padding"):
        cube.read_index((-1, 0, 0), (1, 1, 1), padding=fill)
    with pytest.raises(ValueError, match="padding"):
        cube.reopen(padding=fill)


# ---------------------------------------------------------------- Behaviour 2: the centre rule


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(["cube", "fine"]), k=st.integers(-50, 10**5), frac=st.integers(0, 999),
       m=st.integers(0, 12))
def test_a_box_of_m_voxel_sizes_returns_m_voxels_at_any_alignment(grids, name, k, frac, m):
    vol = grids[name]
    begin = tuple(c + (k + frac / 1000) * s for c, s in zip(vol.corner, vol.voxel_size, strict=True))
    first, last = vol.index_box((begin, tuple(b + m * s for b, s in zip(begin, vol.voxel_size, strict=True))))
    assert [e - b for b, e in zip(first, last, strict=True)] == [m] * 3


@pytest.mark.parametrize("name", ["cube", "fine"])
def test_a_box_aligned_to_voxel_corners_reads_exactly_the_voxels_it_covers(grids, name):
    vol, begin, end = grids[name], (1, 0, 2), (4, 5, 9)
    corner = [t - s / 2 for t, s in zip(vol.translation, vol.voxel_size, strict=True)]
    box = [tuple(c + i * s for c, i, s in zip(corner, index, vol.voxel_size, strict=True)) for index in (begin, end)]
    np.testing.assert_array_equal(vol.read(box), VALUES[1:4, 0:5, 2:9])


@pytest.mark.parametrize("name", ["cube", "fine"])
def test_a_box_aligned_to_voxel_centres_reads_voxels_k_to_k_plus_m(grids, name):
    vol = grids[name]
    box = [tuple(t + i * s for t, i, s in zip(vol.translation, index, vol.voxel_size, strict=True))
           for index in ((2, 3, 1), (5, 7, 4))]
    np.testing.assert_array_equal(vol.read(box), VALUES[2:5, 3:7, 1:4])


@pytest.mark.parametrize("name", ["cube", "fine"])
def test_the_volumes_own_extent_reads_the_whole_array_unpadded(grids, name):
    vol = grids[name]
    extent = (vol.corner, tuple(c + n * s for c, n, s in zip(vol.corner, SHAPE, vol.voxel_size, strict=True)))
    data, valid = vol.read(extent, mask=True)
    np.testing.assert_array_equal(data, VALUES)
    assert valid.all()
    assert tuple(vol.box.begin) == pytest.approx(extent[0]) and tuple(vol.box.end) == pytest.approx(extent[1])


def test_strict_raises_on_a_box_aligned_to_neither_corners_nor_centres(cube):
    quarter = tuple(c + s / 4 for c, s in zip(cube.corner, SIZE, strict=True))
    with pytest.raises(ValueError, match="strict"):
        cube.read((quarter, tuple(q + 2 * s for q, s in zip(quarter, SIZE, strict=True))), strict=True)
    assert cube.read((quarter, tuple(q + 2 * s for q, s in zip(quarter, SIZE, strict=True)))).shape == (2, 2, 2)
    for start in (cube.corner, cube.translation):
        end = tuple(b + 2 * s for b, s in zip(start, SIZE, strict=True))
        assert cube.read((start, end), strict=True).shape == (2, 2, 2)


@pytest.mark.parametrize("k", range(99_995, 100_006))
@pytest.mark.parametrize("start", ["corner", "translation"])
def test_the_10_48_grid_with_translation_3_7_maps_boxes_exactly_near_index_1e5(grids, k, start):
    vol = grids["fine"]
    origin = FINE[1] - FINE[0] / 2 if start == "corner" else FINE[1]
    for m in (1, 2, 7):
        box = ((origin + k * FINE[0],) * 3, (origin + (k + m) * FINE[0],) * 3)
        assert vol.index_box(box) == ((k,) * 3, (k + m,) * 3)


@pytest.mark.parametrize("begin,end", [((0, 0), (8, 8)), ((50, 0, 0), (0, 8, 8))],
                         ids=["wrong-length", "begin-after-end"])
def test_a_malformed_box_raises_naming_the_argument(cube, begin, end):
    with pytest.raises(ValueError, match="box"):
        cube.read((begin, end))
    with pytest.raises(ValueError, match="begin"):
        cube.read_index(begin, end)


# ---------------------------------------------------------------- Behaviour 3: relabel


def test_relabel_scales_translation_and_corner_by_the_ratio_and_reports_the_source(grids):
    source = grids["cube"]
    vol = wa.open(source.level_path, voxel_size=(16, 12, 2), on_mismatch="relabel")
    ratio = (2, 3, 1)
    assert vol.voxel_size == (16, 12, 2) and vol.resampled is False
    assert vol.translation == pytest.approx([t * r for t, r in zip(source.translation, ratio, strict=True)])
    assert vol.corner == pytest.approx([c * r for c, r in zip(source.corner, ratio, strict=True)])
    assert vol.source_voxel_size == SIZE and vol.source_translation == pytest.approx(TRANSLATION)
    box = wa.Box.from_index((1, 1, 1), (3, 4, 5), vol.voxel_size, vol.translation)
    np.testing.assert_array_equal(vol.read(box), VALUES[1:3, 1:4, 1:5])


# ---------------------------------------------------------------- Behaviour 9: non-spatial axes


@pytest.fixture(scope="module")
def channels(tmp_path_factory):
    path = ome_pyramid(tmp_path_factory.mktemp("czyx"), "c.zarr", [("s0", (3, 4, 5, 6), (1, 8, 4, 2), (0, 4, 2, 1))],
                       axes=("c", "z", "y", "x"))
    return path + "/s0"


CZYX = arange_values((3, 4, 5, 6), "uint16")
ZYX_BOX = ((8.0, 4.0, 2.0), (24.0, 16.0, 10.0))  # voxels z 1:3, y 1:4, x 1:5


def test_read_index_with_select_pins_an_axis_for_that_read_only(channels):
    vol = wa.open(channels)
    np.testing.assert_array_equal(vol.read_index((1, 1, 1), (3, 4, 5), select={"c": 2}), CZYX[2, 1:3, 1:4, 1:5])
    np.testing.assert_array_equal(vol.read_index((-1, 0, 0), (2, 2, 2), select={"c": 1}),
                                  padded(CZYX[1], (-1, 0, 0), (2, 2, 2), mode="constant", constant_values=0))
    np.testing.assert_array_equal(vol.read_index((0, 1, 1, 1), (3, 3, 4, 5)), CZYX[:, 1:3, 1:4, 1:5])


def test_read_keeps_non_spatial_axes_whole_unless_select_pins_them(channels):
    vol = wa.open(channels)
    np.testing.assert_array_equal(vol.read(ZYX_BOX), CZYX[:, 1:3, 1:4, 1:5])
    np.testing.assert_array_equal(vol.read(ZYX_BOX, select={"c": 1}), CZYX[1, 1:3, 1:4, 1:5])
    pinned = wa.open(channels, select={"c": 2})
    assert pinned.axes == ("z", "y", "x") and pinned.shape == pinned.ts.shape == (4, 5, 6)
    np.testing.assert_array_equal(pinned.read(ZYX_BOX), CZYX[2, 1:3, 1:4, 1:5])


@pytest.mark.parametrize("select", [{"z": 0}, {"q": 0}])
def test_select_on_a_spatial_or_missing_axis_raises(channels, select):
    name = next(iter(select))
    with pytest.raises(ValueError, match=repr(name)):
        wa.open(channels, select=select)
    with pytest.raises(ValueError, match=repr(name)):
        wa.open(channels).read(ZYX_BOX, select=select)


def test_a_tczyx_series_reads_a_time_window_with_a_spatial_box_and_with_select(tmp_path):
    shape = (5, 2, 3, 4, 4)
    path = ome_pyramid(tmp_path, "t.zarr", [("s0", shape, (500, 1, 8, 4, 4), (250, 0, 4, 2, 2))],
                       axes=("t", "c", "z", "y", "x"), units=["millisecond", "", "nanometer", "nanometer", "nanometer"])
    vol = wa.open(path + "/s0", units={"space": "nanometer", "time": "second"})
    values = arange_values(shape, "uint16")
    assert vol.axes == ("t", "c", "z", "y", "x") and vol.grid.voxel_size[0] == pytest.approx(0.5)
    # times 0.25 + 0.5 i s: [0.4, 1.6) holds samples 1 and 2; channel centres 0, 1: [0.5, 1.5) holds channel 1
    every_axis = ((0.4, 0.5, 0.0, 4.0, 0.0), (1.6, 1.5, 16.0, 12.0, 8.0))
    np.testing.assert_array_equal(vol.read(every_axis), values[1:3, 1:2, 0:2, 1:3, 0:2])
    np.testing.assert_array_equal(vol.read(((0, 4, 0), (16, 12, 8)), select={"t": 3, "c": 1}),
                                  values[3, 1, 0:2, 1:3, 0:2])


# ---------------------------------------------------------------- Behaviours 6, 7, 8 and copies


def test_reads_from_several_threads_at_once_equal_single_threaded_reads(cube):
    rng = np.random.default_rng(0)
    jobs = [(tuple(b), tuple(b + rng.integers(0, 6, 3))) for b in rng.integers(-3, 8, (64, 3)).tolist()]
    serial = [cube.read_index(b, e, padding=1) for b, e in jobs]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        threaded = list(pool.map(lambda job: cube.read_index(*job, padding=1), jobs))
    for one, many in zip(serial, threaded, strict=True):
        np.testing.assert_array_equal(one, many)


def test_a_handle_pickles_by_its_arguments_and_reads_the_same(grids):
    vol = wa.open(grids["cube"].level_path, voxel_size=(16, 8, 4), on_mismatch="relabel", padding=5)
    copy = pickle.loads(pickle.dumps(vol))
    expected = (vol.level_path, vol.voxel_size, vol.translation, 5)
    assert (copy.level_path, copy.voxel_size, copy.translation, copy.padding) == expected
    np.testing.assert_array_equal(copy.read(vol.box.grow(16)), vol.read(vol.box.grow(16)))


def test_a_pickled_handle_keeps_the_defaults_set_on_it_after_open(cube):
    vol = cube.reopen()
    vol.padding, vol.retries = 9, wa.Retry(timeout=60.0)
    copy = pickle.loads(pickle.dumps(vol))
    assert (copy.padding, copy.retries) == (9, wa.Retry(timeout=60.0))


def test_a_handle_opened_from_a_relative_path_survives_a_change_of_directory(tmp_path, monkeypatch):
    ome_pyramid(tmp_path / "here", "v.zarr", [("s0", SHAPE, SIZE, TRANSLATION)])
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    vol = wa.open("v.zarr/s0")
    pickled = pickle.dumps(vol)
    monkeypatch.chdir(tmp_path / "elsewhere")
    for again in (pickle.loads(pickled), vol.reopen()):
        np.testing.assert_array_equal(again.read_index((0, 0, 0), SHAPE), VALUES)


def test_retry_is_a_frozen_dataclass_so_replace_derives_a_policy(cube):
    policy = dataclasses.replace(cube.retries, timeout=60)
    assert (policy.max_attempts, policy.timeout, policy.base_delay) == (10, 60, 1.0) and cube.retries == wa.Retry()
    with pytest.raises(dataclasses.FrozenInstanceError, match="'timeout'"):
        policy.timeout = 1


class Consulted(wa.Retry):
    """A Retry that notes, on a class-wide log, each time a read looks at it (any of its fields or methods)."""

    log: list = []

    def __getattribute__(self, name):
        if not name.startswith("__"):
            Consulted.log.append(self)
        return super().__getattribute__(name)


def test_the_retry_policy_is_a_handle_attribute_and_a_per_read_argument(cube):
    first, second, third = (Consulted(max_attempts=n) for n in (1, 2, 3))
    vol = cube.reopen(retries=first)

    def consulted_by(read):
        Consulted.log.clear()
        read()
        return {id(policy) for policy in Consulted.log}

    assert consulted_by(lambda: vol.read_index((0, 0, 0), (1, 1, 1))) == {id(first)}
    vol.retries = second
    assert consulted_by(lambda: vol.read_index((0, 0, 0), (1, 1, 1))) == {id(second)}
    assert consulted_by(lambda: vol.read(vol.box, retries=third)) == {id(third)}


def test_capped_context_is_new_per_call_and_its_spec_caps_the_five_concurrency_resources(cube):
    assert wa.capped_context() is not wa.capped_context()
    spec = wa.capped_context_spec(cache_bytes=1 << 20, concurrency=3)
    names = ("data_copy_concurrency", "file_io_concurrency", "gcs_request_concurrency", "s3_request_concurrency",
             "http_request_concurrency")
    assert {name: spec[name] for name in names} == {name: {"limit": 3} for name in names}
    assert spec["cache_pool"] == {"total_bytes_limit": 1 << 20}
    assert set(wa.capped_context_spec(network=False)) & set(names) == {"data_copy_concurrency", "file_io_concurrency"}
    np.testing.assert_array_equal(cube.reopen(context=wa.capped_context(concurrency=2)).read(cube.box), VALUES)


# ---------------------------------------------------------------- the signature says every keyword


OPEN_KEYWORDS = ("level", "voxel_size", "level_mode", "on_mismatch", "padding", "method", "select", "units",
                 "context", "retries", "metadata_conflicts", "base_voxel_size", "base_units", "anchor", "transform",
                 "strict_units", "mode", "store_fill", "array")


def test_every_keyword_of_open_is_in_its_signature_typed_and_keyword_only():
    parameters = inspect.signature(wa.open).parameters
    assert tuple(parameters) == ("path", *OPEN_KEYWORDS)
    for name in OPEN_KEYWORDS:
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert parameters[name].annotation is not inspect.Parameter.empty, name


def test_a_misspelt_keyword_of_open_is_a_type_error_naming_it(cube):
    with pytest.raises(TypeError, match="unexpected keyword argument 'voxelsize'"):
        wa.open(cube.path, voxelsize=8)


# ---------------------------------------------------------------- slabs: a large resampled read goes slab by slab
# along its first axis, and the slabs are the one read voxel for voxel


@pytest.fixture
def vol():
    v = wa.create(f"memory://slabs/{uuid.uuid4().hex}.zarr/s0", (2, 40, 24, 20), "uint16", (4.0, 3.0, 5.0),
                  (2.0, 1.5, 2.5), axes=("c", "z", "y", "x"), chunks=(1, 8, 8, 8))
    v.write_index((0, 0, 0, 0), v.shape, np.random.default_rng(3).integers(0, 60000, v.shape, dtype=np.uint16))
    return v


def _read(monkeypatch, slab_bytes, call):
    """``call()`` with slabs of ``slab_bytes``, and how many slabs (resample.read or downsampling.read calls, the
    numpy path's or the downsample driver's) it took."""
    monkeypatch.setattr(reading, "SLAB_BYTES", slab_bytes)
    calls = []
    for module in (resample, downsampling):
        monkeypatch.setattr(module, "read", lambda *args, original=module.read: calls.append(1) or original(*args))
    return call(), len(calls)


CASES = {
    "linear 2x": lambda v: v.read(v.box, voxel_size=8.0, method="linear"),
    "linear 1.3x": lambda v: v.read(v.box, voxel_size=(5.2, 3.9, 6.5), method="linear"),
    "nearest 0.7x, edge": lambda v: v.read(((-10.0, -3.0, 0.0), (170.0, 130.0, 90.0)), voxel_size=2.8,
                                           padding="edge"),
    "linear, mask, fill": lambda v: v.read(((-10.0, -3.0, 0.0), (170.0, 130.0, 90.0)), voxel_size=6.0,
                                           method="linear", padding=7, mask=True),
    "select": lambda v: v.read(v.box, voxel_size=(8.0, 6.0, 10.0), method="linear", select={"c": 1}),
    "read_onto": lambda v: v.read_onto(wa.Grid((30, 20, 10), (5.0, 4.0, 9.0), (1.0, 2.0, 3.0), axes=("z", "y", "x")),
                                       method="linear"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_read_by_slabs_equals_the_read_at_once(vol, monkeypatch, case):
    at_once, one = _read(monkeypatch, 2**40, lambda: CASES[case](vol))
    by_slabs, many = _read(monkeypatch, 2048, lambda: CASES[case](vol))
    assert one == 1 and many > 2  # the second read really went by slabs
    for a, b in zip(at_once if isinstance(at_once, tuple) else (at_once,),
                    by_slabs if isinstance(by_slabs, tuple) else (by_slabs,), strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
