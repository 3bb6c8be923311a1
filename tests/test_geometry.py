"""Convention 1 and Behaviour 2: the half voxel, and the centre rule with snap_integral."""

import numpy as np
import pytest

import worldarray as wa
from worldarray.geometry import centre_to_corner, snap_integral, spatial_indices


def test_corner_to_centre_adds_half_a_voxel():
    assert wa.corner_to_centre((0.0, 10.0, -4.0), (4.0, 4.0, 8.0)) == (2.0, 12.0, 0.0)


def test_the_half_voxel_never_moves_channel_or_time():
    assert wa.corner_to_centre((0.0, 0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 8.0, 4.0, 4.0), ("t", "c", "z", "y", "x")) == (
        0.0, 0.0, 4.0, 2.0, 2.0,
    )


def test_unnamed_axes_shift_the_last_three_only():
    assert wa.corner_to_centre((0.0,) * 4, (2.0,) * 4) == (0.0, 1.0, 1.0, 1.0)


def test_centre_to_corner_inverts_corner_to_centre():
    corner = (3.7, -1.25, 0.0)
    voxel = (10.48, 4.0, 0.5)
    assert centre_to_corner(wa.corner_to_centre(corner, voxel), voxel) == pytest.approx(corner)


def test_default_axes_are_the_last_of_tczyx():
    assert wa.default_axes(3) == ("z", "y", "x")
    assert wa.default_axes(5) == ("t", "c", "z", "y", "x")
    assert wa.default_axes(1) == ("x",)
    assert len(set(wa.default_axes(7))) == 7


def test_spatial_axes_are_those_named_zyx_else_the_last_three():
    assert spatial_indices(("c", "z", "y", "x")) == (1, 2, 3)
    assert spatial_indices(("a", "lat", "lon", "band")) == (1, 2, 3)
    assert spatial_indices(("a", "b")) == (0, 1)
    assert spatial_indices(None, 4) == (1, 2, 3)


def test_time_and_channel_axes_are_never_spatial():
    assert spatial_indices(("time", "lat", "lon")) == (1, 2)
    assert wa.corner_to_centre((0.0, 0.0, 0.0), (60.0, 1.0, 1.0), ("time", "lat", "lon")) == (0.0, 0.5, 0.5)


def test_snap_integral_absorbs_float_noise_only():
    assert snap_integral(2.9999999999) == 3.0
    assert snap_integral(3 + 1e-12) == 3.0
    assert snap_integral(2.5) == 2.5
    assert snap_integral(2.99) == 2.99


def test_a_voxel_is_read_iff_its_centre_lies_in_the_box():
    # voxel i is centred at 2 + 4 i: centres 2, 6, 10, 14; the box [5, 11) holds centres 6 and 10
    assert wa.index_range((5.0,), (11.0,), (4.0,), (2.0,)) == ((1,), (3,))


@pytest.mark.parametrize("begin", [0.0, 0.3, 1.9, 2.0, 2.1, 3.99])
def test_a_box_of_m_voxels_returns_m_voxels_whatever_its_alignment(begin):
    first, last = wa.index_range((begin,), (begin + 5 * 4.0,), (4.0,), (2.0,))
    assert last[0] - first[0] == 5


def test_a_centre_aligned_box_maps_to_voxels_k_to_k_plus_m():
    size, shift = 10.48, 3.7
    for k in (0, 7, 99_999, 100_003):
        begin = shift + k * size
        first, last = wa.index_range((begin,), (begin + 3 * size,), (size,), (shift,))
        assert (first[0], last[0]) == (k, k + 3)


def test_a_corner_aligned_box_maps_to_the_voxels_it_covers():
    size, shift = 10.48, 3.7
    corner = shift - size / 2
    for k in (0, 12, 100_000):
        begin = corner + k * size
        first, last = wa.index_range((begin,), (begin + 4 * size,), (size,), (shift,))
        assert (first[0], last[0]) == (k, k + 4)


def test_index_range_rejects_lists_of_different_lengths():
    with pytest.raises(ValueError, match="one entry per axis"):
        wa.index_range((0.0, 0.0), (1.0,), (1.0,), (0.5,))


@pytest.mark.parametrize("size", [0.0, -1.0, float("nan"), float("inf")])
def test_index_range_rejects_a_voxel_size_that_is_not_positive_and_finite(size):
    with pytest.raises(ValueError, match="voxel_size"):
        wa.index_range((0.0,), (1.0,), (size,), (0.5,))


# ---------------------------------------------------------------- index bounds are whole numbers, never truncated


def _written(tmp_path):
    vol = wa.create(tmp_path / "bounds.zarr" / "s0", (16, 16, 16), "uint8", 4, 2, chunks=8)
    vol.write_index((0, 0, 0), (16, 16, 16), np.arange(16**3, dtype="uint8").reshape(16, 16, 16) % 251)
    return vol


# each call with bounds (begin, end) or a unit index
_CALLS = {
    "read_index": lambda vol, begin, end: vol.read_index(begin, end),
    "write_index": lambda vol, begin, end: vol.write_index(begin, end, 0),
    "chunks_covering": lambda vol, begin, end: vol.chunks_covering(begin, end),
    "write_chunk": lambda vol, begin, end: vol.write_chunk(begin, 0),
    "grid chunks_covering": lambda vol, begin, end: wa.Grid.from_meta(vol.meta).chunks_covering(begin, end),
}


@pytest.mark.parametrize("call", sorted(_CALLS))
@pytest.mark.parametrize("bad", [0.9, float("nan"), float("inf")])
def test_a_bound_that_is_not_a_whole_number_raises_and_writes_nothing(tmp_path, call, bad):
    vol = _written(tmp_path)
    before = vol.read_index((0, 0, 0), (16, 16, 16)).copy()
    with pytest.raises(ValueError, match=r"not a whole number.*never truncated"):
        _CALLS[call](vol, (bad, 0, 0), (8, 8, 8))
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), (16, 16, 16)), before)


@pytest.mark.parametrize("call", sorted(_CALLS))
@pytest.mark.parametrize("bad", ["8", None])
def test_a_bound_that_is_a_string_or_none_is_a_type_error_naming_it(tmp_path, call, bad):
    vol = _written(tmp_path)
    with pytest.raises(TypeError, match=r"(begin|index) is .*expected whole numbers"):
        _CALLS[call](vol, (bad, 0, 0), (8, 8, 8))


def test_a_whole_float_bound_is_that_whole_number(tmp_path):
    vol = _written(tmp_path)
    np.testing.assert_array_equal(vol.read_index((0.0, 8.0, np.int64(0)), (8, 16.0, 8)),
                                  vol.read_index((0, 8, 0), (8, 16, 8)))


def test_chunks_covering_refuses_a_begin_after_its_end(tmp_path):
    with pytest.raises(ValueError, match="after end"):
        _written(tmp_path).chunks_covering((8, 0, 0), (0, 8, 8))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_world_box_edge_that_is_not_finite_raises_naming_the_box(tmp_path, bad):
    vol = _written(tmp_path)
    for call in (lambda: vol.read(((bad, 0, 0), (8, 8, 8))), lambda: wa.index_range((bad,), (8,), (4,), (2,)),
                 lambda: wa.Box((bad, 0, 0), (8, 8, 8))):
        with pytest.raises(ValueError, match=r"box is .*NaN or infinite"):
            call()
