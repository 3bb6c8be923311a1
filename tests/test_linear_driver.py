"""Linear reads at a whole factor through tensorstore's downsample driver: the numpy block mean's voxels, faster.

A target voxel of "linear" at a whole factor is the mean of the source block it covers (of the voxels that exist
when the data's edge cuts the block short), integers rounded half to even, the target grid's corner on a source
voxel corner. Where tensorstore's downsample (mean) gives exactly that, worldarray reads through it; elsewhere
through the numpy path. Each comparison reads a zarr v3 array in memory twice: as worldarray reads it, and with the
driver refused (``downsampling.factors`` answering None), which is the numpy path (``resample.read``), and a spy on
``downsampling.read`` says whether the first read went through the driver.
"""

from __future__ import annotations

import contextlib
import time
import types
import uuid
from unittest import mock

import numpy as np
import pytest
import tensorstore as ts
from hypothesis import given, settings, strategies as st
from servers import HOLD, serve_directory, serve_gateway

import worldarray as wa
from worldarray import downsampling, resample

AXES = ("z", "y", "x")
SIZES = (4.0, 3.0, 5.0)  # source voxel sizes, nm: anisotropic, so no axis stands in for another


def volume(values: np.ndarray, sizes, corner, chunks, axes=AXES) -> wa.WorldArray:
    """An array in memory holding ``values``, voxel 0's corner at ``corner``; voxel sizes ``sizes`` on its spatial
    axes (the last three)."""
    translation = tuple(c + s / 2 for c, s in zip(corner, sizes, strict=True))
    vol = wa.create(f"memory://driver/{uuid.uuid4().hex}.zarr/s0", values.shape, values.dtype.name, sizes,
                    translation, axes=axes, chunks=chunks)
    vol.write_index((0,) * values.ndim, values.shape, values)
    return vol


def noise(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Values over the dtype's whole range (booleans half and half; floats about 0, a few thousand wide)."""
    if dtype.startswith("float"):
        return rng.normal(0, 1000, shape).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(int(info.min), int(info.max) + 1, shape, dtype=dtype)


@contextlib.contextmanager
def driver_reads():
    """A list that gains an entry for each read through the downsample driver while the block runs."""
    calls: list[tuple] = []
    original = downsampling.read
    with mock.patch.object(downsampling, "read", lambda *args: calls.append(args) or original(*args)):
        yield calls


def numpy_path(read):
    """``read()`` with the driver refused: the numpy block mean, as every read was before the driver."""
    with mock.patch.object(downsampling, "factors", lambda *args: None):
        return read()


def both(read):
    """Whether ``read()`` went through the driver, what it gave, and what the numpy path gives."""
    with driver_reads() as calls:
        got = read()
    return bool(calls), got, numpy_path(read)


def assert_same(got, expected) -> None:
    """Equal arrays (and masks) of equal dtypes and shapes, voxel for voxel."""
    got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def box_of(anchor, targets, begin, end):
    """The world box of target voxels [begin, end) of the grid anchored at ``anchor`` with voxel sizes ``targets``."""
    return (tuple(a + j * t for a, t, j in zip(anchor, targets, begin, strict=True)),
            tuple(a + j * t for a, t, j in zip(anchor, targets, end, strict=True)))


# ---------------------------------------------------------------- the driver gives the numpy path's voxels


@settings(max_examples=70, deadline=None)
@given(data=st.data())
def test_a_whole_factor_linear_read_gives_the_numpy_block_means_voxels_at_and_past_the_data_edges(data):
    dtype = data.draw(st.sampled_from(["uint8", "uint16", "int16", "bool", "float32"]), label="dtype")
    factors = data.draw(st.sampled_from([(2, 2, 2), (3, 3, 3), (1, 2, 2)]), label="factors")
    shape = data.draw(st.tuples(*[st.integers(1, 13)] * 3), label="shape")
    chunks = data.draw(st.tuples(*[st.integers(1, 7)] * 3), label="chunks")
    shift = data.draw(st.tuples(*[st.integers(-4, 4)] * 3), label="source corner, in source voxels")
    on_corner = data.draw(st.booleans(), label="a block starts at the data's corner")
    before = tuple(0 if on_corner else data.draw(st.integers(0, f - 1)) for f in factors)  # source voxels
    corner = tuple(k * s for k, s in zip(shift, SIZES, strict=True))
    anchor = tuple(c - b * s for c, b, s in zip(corner, before, SIZES, strict=True))
    targets = tuple(f * s for f, s in zip(factors, SIZES, strict=True))
    blocks = [-(-(b + n) // f) for b, n, f in zip(before, shape, factors, strict=True)]
    begin = [data.draw(st.integers(-3, m + 1)) for m in blocks]
    end = [b + data.draw(st.integers(1, m + 4)) for b, m in zip(begin, blocks, strict=True)]
    padding = data.draw(st.sampled_from([0, 1, "edge"] if dtype == "bool" else [0, 7, "edge"]), label="padding")
    mask = data.draw(st.booleans(), label="mask")
    vol = volume(noise(np.random.default_rng(list(shape) + list(chunks)), shape, dtype), SIZES, corner, chunks)

    taken, got, expected = both(lambda: vol.read(box_of(anchor, targets, begin, end), voxel_size=targets,
                                                 anchor=anchor, method="linear", padding=padding, mask=mask))
    assert (got[0] if mask else got).shape == tuple(e - b for b, e in zip(begin, end, strict=True))
    assert_same(got, expected)
    if dtype == "float32":  # the driver sums float32 in float32: the numpy path's float64 sums stay
        assert not taken
    elif on_corner:  # every block starts on the block grid at the data's corner: the driver's blocks are the plan's
        assert taken


@settings(max_examples=25, deadline=None)
@given(shape=st.tuples(st.integers(1, 3), *[st.integers(1, 11)] * 3), pin=st.booleans(),
       first=st.tuples(*[st.integers(-2, 3)] * 3), count=st.tuples(*[st.integers(1, 6)] * 3))
def test_a_channel_axis_is_read_as_stored_beside_the_driver_mean_whole_or_pinned(shape, pin, first, count):
    vol = volume(noise(np.random.default_rng(sum(shape)), shape, "uint16"), SIZES, (0.0, 8.0, -10.0),
                 (1, 4, 3, 5), axes=("c", *AXES))
    targets = (SIZES[0], 2 * SIZES[1], 2 * SIZES[2])  # factor (1, 2, 2)
    box = box_of(vol.corner, targets, first, [f + c for f, c in zip(first, count, strict=True)])
    select = {"c": shape[0] - 1} if pin else None
    taken, got, expected = both(lambda: vol.read(box, voxel_size=targets, method="linear", padding=3, select=select))
    assert taken
    assert_same(got, expected)


def test_post_transform_runs_on_the_driver_means_and_padding_is_not_transformed():
    vol = volume(noise(np.random.default_rng(5), (6, 7, 8), "int16"), SIZES, (0.0, 0.0, 0.0), 3)
    targets = tuple(2 * s for s in SIZES)
    box = box_of(vol.corner, targets, (-1, 0, 0), (4, 4, 5))
    taken, got, expected = both(lambda: vol.read(box, voxel_size=targets, method="linear", padding=-1,
                                                 post_transform=lambda a: a.astype(np.float64) / 4))
    assert taken and got.dtype == np.float64
    assert_same(got, expected)
    assert (got[0] == -1).all()  # the fill, not a quarter of it


# ---------------------------------------------------------------- the spec's rule, read through the driver


@pytest.mark.parametrize("dtype, values, means", [
    ("uint8", [1, 2, 2, 3, 5, 6, 6, 7, 0, 1], [2, 2, 6, 6, 0]),
    ("int16", [-1, -2, -2, -3, 3, 4, 4, 5, -1, 0], [-2, -2, 4, 4, 0]),
    ("uint16", [65535, 65534, 65533, 65534, 1, 0, 0, 0, 0, 0], [65534, 65534, 0, 0, 0]),
    ("bool", [True, False, True, True, False, False, True, True, False, True], [False, True, False, True, False]),
], ids=["uint8", "int16", "uint16", "bool"])
def test_integer_means_through_the_driver_round_half_to_even(dtype, values, means):
    vol = volume(np.array(values, dtype), (4.0,), (0.0,), 4, axes=("x",))
    with driver_reads() as calls:
        got = vol.read(vol.box, voxel_size=8.0, method="linear")
    assert calls and got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.array(means, dtype))


def test_a_block_the_datas_end_cuts_short_is_the_mean_of_the_voxels_that_exist():
    vol = volume(np.array([3, 4, 8, 10, 20, 31, 9], np.uint8), (2.0,), (6.0,), 5, axes=("x",))
    with driver_reads() as calls:
        got, valid = vol.read(((6.0,), (30.0,)), voxel_size=6.0, method="linear", padding=0, mask=True)
    assert calls
    np.testing.assert_array_equal(got, [5, 20, 9, 0])  # 15 / 3, 61 / 3 to 20, 9 alone; then padding
    np.testing.assert_array_equal(valid, [True, True, True, False])


# ---------------------------------------------------------------- where the driver is taken, and where not


def _case(name, dtype="uint8", **read):
    """A read of a (9, 10, 11) array whose corner is off the origin, by name, with ``read``'s keywords."""
    return pytest.param(dtype, read, id=name)


CORNER = (-8.0, 9.0, 25.0)  # the source grid off the origin: 2, 3 and 5 source voxels
DOUBLE = tuple(2 * s for s in SIZES)
TAKEN = [
    _case("a box inside the data", box=((0.0, 15.0, 35.0), (24.0, 39.0, 65.0))),
    _case("a box past the data's end, padded", box=((0.0, 15.0, 35.0), (48.0, 57.0, 105.0)), padding=5),
    _case("a box before the data, blocks from its corner", box=((-24.0, -3.0, 5.0), (16.0, 27.0, 55.0)), padding=0),
    _case("edge padding", box=((-24.0, -3.0, 5.0), (48.0, 57.0, 105.0)), padding="edge"),
    _case("factor 3", box=((-8.0, 9.0, 25.0), (40.0, 45.0, 85.0)), voxel_size=tuple(3 * s for s in SIZES)),
    _case("factor (1, 2, 2)", box=((-8.0, 9.0, 25.0), (28.0, 39.0, 85.0)), voxel_size=(SIZES[0], 6.0, 10.0)),
    _case("an anchor on the data's corner", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0)), anchor=CORNER),
    _case("int32", dtype="int32", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0))),
]
NOT_TAKEN = [
    _case("a non-whole factor", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0)), voxel_size=tuple(1.5 * s for s in SIZES)),
    _case("an anchor off the source grid", box=((-6.0, 10.5, 27.5), (26.0, 40.5, 77.5)),
          anchor=(-6.0, 10.5, 27.5)),
    _case("a first block the data's start cuts short", box=((-12.0, 6.0, 20.0), (28.0, 42.0, 80.0)),
          anchor=(-12.0, 6.0, 20.0), padding=0),
    _case("a transform before resampling", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0)),
          transform=lambda a: a // 2),
    _case("nearest", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0)), method="nearest"),
    _case("float32, summed in float32 by the driver", dtype="float32", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0))),
    _case("float64, summed in another order", dtype="float64", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0))),
    _case("int64, whose sums pass 2**52", dtype="int64", box=((-8.0, 9.0, 25.0), (32.0, 39.0, 85.0))),
]


def _read_case(dtype, read):
    vol = volume(noise(np.random.default_rng(9), (9, 10, 11), dtype), SIZES, CORNER, (4, 3, 5))
    keywords = {"voxel_size": DOUBLE, "method": "linear", **read}
    box = keywords.pop("box")
    return both(lambda: vol.read(box, **keywords))


@pytest.mark.parametrize("dtype, read", TAKEN)
def test_the_driver_is_taken_where_its_blocks_are_the_plans(dtype, read):
    taken, got, expected = _read_case(dtype, read)
    assert taken
    assert_same(got, expected)


@pytest.mark.parametrize("dtype, read", NOT_TAKEN)
def test_the_numpy_path_stays_where_the_driver_could_give_other_voxels(dtype, read):
    taken, got, expected = _read_case(dtype, read)
    assert not taken
    assert_same(got, expected)


def test_factors_names_each_mean_axis_block_size_and_1_for_an_axis_read_as_stored():
    uint8 = np.dtype("uint8")
    mean = resample.plan_axis(0, 4, 8, 1.0, 0.0, 2.0, 0.0, "linear", False)  # blocks of 2 from the data's corner
    stored = resample.plan_identity(0, 3, 3, False)
    assert downsampling.factors([stored, mean], uint8, None) == (1, 2)
    cut = resample.plan_axis(-1, 4, 8, 1.0, 0.0, 2.0, -1.0, "linear", False)  # block -1 covers [-1, 1)
    assert cut.kind == "mean" and cut.phase == 1 and downsampling.factors([stored, cut], uint8, None) is None
    assert downsampling.factors([stored, mean], np.dtype("float32"), None) is None
    assert downsampling.factors([stored, mean], uint8, lambda a: a) is None
    assert downsampling.factors([stored], uint8, None) is None  # nothing to average: a plain read
    interp = resample.plan_axis(0, 4, 8, 1.0, 0.0, 1.5, 0.0, "linear", False)
    assert interp.kind == "interp" and downsampling.factors([interp, mean], uint8, None) is None


def test_float32_keeps_the_numpy_path_because_the_driver_sums_float32_in_float32():
    values = np.zeros((2, 2, 2), np.float32)
    values[0, 0, 0], values[0, 0, 1], values[0, 1, 0] = 1.0, 2.0**-24, 2.0**-24
    vol = volume(values, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), 2)
    mean = np.float32(values.astype(np.float64).sum() / 8)  # the block's mean, rounded once: 1/8 and one ulp
    with driver_reads() as calls:
        got = vol.read(vol.box, voxel_size=2.0, method="linear")
    assert not calls and got.item() == mean
    # 1 + 2**-24 is 1 again in float32, so the driver would lose both small terms
    assert ts.downsample(vol.ts, [2, 2, 2], method="mean").read().result().item() != mean


# ---------------------------------------------------------------- a retry of a driver read


def test_a_driver_read_whose_first_request_hangs_is_answered_by_a_new_request_on_retry(tmp_path, monkeypatch):
    monkeypatch.setattr(wa.retry, "time", types.SimpleNamespace(sleep=lambda s: None, monotonic=time.monotonic))
    values = np.arange(64, dtype="uint16").reshape(8, 8)
    wa.create(tmp_path / "a.zarr" / "s0", (8, 8), "uint16", 1, 0.5, axes=("y", "x"), chunks=4).write_index(
        (0, 0), (8, 8), values)

    def hold_first(asked):  # the first request for the first chunk is held unanswered; the rest pass
        return HOLD if (asked.method, asked.count) == ("GET", 1) and asked.path.endswith("/s0/c/0/0") else None

    with serve_directory(tmp_path) as served, serve_gateway(served.url, hold_first) as gateway:
        vol = wa.open(f"{gateway.url}/a.zarr/s0")
        with driver_reads() as calls:
            got = vol.read(vol.box, voxel_size=2, method="linear",
                           retries=wa.Retry(timeout=1.0, max_attempts=3, base_delay=0))
        assert calls
        np.testing.assert_array_equal(got, np.rint(values.reshape(4, 2, 4, 2).mean(axis=(1, 3))).astype("uint16"))
        assert gateway.count("GET", "/s0/c/0/0") == 2
