"""A15: a handle behaves like a numpy array in index space: ndim, basic indexing, np.asarray, dask, coords."""

from __future__ import annotations

import uuid

import dask.array
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import worldarray as wa

SHAPE = (5, 7, 6)
VALUES = np.arange(np.prod(SHAPE), dtype=np.uint16).reshape(SHAPE)


@pytest.fixture(scope="module")
def vol():
    v = wa.create(f"memory://protocol/{uuid.uuid4().hex}.zarr/s0", SHAPE, "uint16", (40.0, 4.0, 4.0),
                  (20.0, 2.0, 2.0), chunks=(2, 3, 4))
    v.write_index((0, 0, 0), SHAPE, VALUES)
    return v


def test_ndim_and_len_are_numpys(vol):
    assert vol.ndim == 3 and len(vol) == 5


def _index(n):
    return st.integers(-n - 3, n + 3) | st.none()


def _slice(n):
    steps = st.integers(-4, 4).filter(lambda s: s != 0) | st.none()
    return st.builds(slice, _index(n), _index(n), steps)


keys = st.tuples(*[_slice(n) | st.integers(-n, n - 1) for n in SHAPE])


@settings(max_examples=150, deadline=None)
@given(key=keys)
def test_basic_indexing_returns_what_numpy_returns(vol, key):
    got = vol[key]
    np.testing.assert_array_equal(got, VALUES[key])
    assert got.shape == VALUES[key].shape and got.dtype == VALUES.dtype


@pytest.mark.parametrize("key", [..., (..., 2), (1, ...), (np.newaxis, 1, ..., np.newaxis), (slice(None), None, 3),
                                 (np.int64(-1), slice(None, None, -2)), 2, slice(-2, 6)],
                         ids=["ellipsis", "ellipsis first", "ellipsis last", "newaxis", "newaxis middle", "numpy int",
                              "int", "negative start"])
def test_ellipsis_newaxis_and_numpy_integers_index_as_in_numpy(vol, key):
    np.testing.assert_array_equal(vol[key], VALUES[key])
    assert vol[key].shape == VALUES[key].shape


def test_slices_clip_where_read_index_pads(vol):
    assert vol[-2:6].shape == VALUES[-2:6].shape == (2, 7, 6)  # numpy's slice: the last two, no padding
    assert vol.read_index((-2, 0, 0), (6, 7, 6), padding=0).shape == (8, 7, 6)  # read_index pads two voxels each side


@pytest.mark.parametrize(("key", "error"), [(5, IndexError), (-6, IndexError), ((0, 0, 0, 0), IndexError),
                                            ((..., ...), IndexError), ([0, 1], IndexError), (1.5, IndexError)])
def test_out_of_range_integers_and_other_keys_raise_index_error(vol, key, error):
    with pytest.raises(error):
        vol[key]


def test_np_asarray_reads_the_whole_array(vol):
    got = np.asarray(vol)
    np.testing.assert_array_equal(got, VALUES)
    assert np.asarray(vol, dtype="float32").dtype == np.float32


def test_array_with_copy_false_raises_since_a_read_is_a_copy(vol):
    with pytest.raises(ValueError, match="copy=False"):
        vol.__array__(copy=False)


def test_dask_from_array_in_write_units_equals_the_tensorstore_read(vol):
    lazy = dask.array.from_array(vol, chunks=vol.write_shape)
    assert lazy.chunksize == vol.write_shape
    np.testing.assert_array_equal(lazy.compute(scheduler="synchronous"), vol.ts.read().result())
    np.testing.assert_array_equal(lazy[1:4, ::2, 3].compute(scheduler="synchronous"), VALUES[1:4, ::2, 3])


def test_indices_of_a_resampled_handle_are_target_voxels(vol):
    coarse = wa.open(vol.level_path, voxel_size=(40.0, 8.0, 8.0), on_mismatch="resample", method="linear")
    np.testing.assert_array_equal(coarse[1:3, :, 1], coarse.read_index((1, 0, 1), (3, coarse.shape[1], 2))[:, :, 0])
    assert coarse.ndim == 3 and np.asarray(coarse).shape == coarse.shape


def test_indices_of_a_selected_handle_leave_the_pinned_axis_out(tmp_path):
    v = wa.create(str(tmp_path / "c.zarr" / "s0"), (2, 4, 4), "uint8", 4.0, 2.0, axes=("c", "y", "x"), chunks=2)
    data = np.arange(32, dtype=np.uint8).reshape(2, 4, 4)
    v.write_index((0, 0, 0), (2, 4, 4), data)
    one = wa.open(v.level_path, select={"c": 1})
    assert one.ndim == 2
    np.testing.assert_array_equal(one[1:, ::-1], data[1, 1:, ::-1])


def test_a_subclass_read_index_serves_indexing_too(vol):
    class Doubled(wa.WorldArray):
        def read_index(self, begin, end, *args, **kwargs):
            return super().read_index(begin, end, *args, **kwargs) * 2

    doubled = Doubled(vol.level_path)
    np.testing.assert_array_equal(doubled[1, 2:4], VALUES[1, 2:4] * 2)


def test_coords_are_the_voxel_centres_in_the_handles_units(tmp_path):
    v = wa.create(str(tmp_path / "t.zarr" / "s0"), (2, 3, 4), "uint8", (5.0, 4.0), (1.0, 2.0),
                  axes=("c", "y", "x"), chunks=2, units="micrometer")
    c, y, x = v.coords()
    assert c.tolist() == [0, 1]
    assert y.tolist() == pytest.approx([1.0, 6.0, 11.0]) and x.tolist() == pytest.approx([2.0, 6.0, 10.0, 14.0])
    in_nm = wa.open(v.level_path)  # nanometres by default
    assert in_nm.coords()[1].tolist() == pytest.approx([1000.0, 6000.0, 11000.0])
