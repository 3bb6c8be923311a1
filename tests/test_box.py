"""wa.Box: funlib's Roi vocabulary on half-open float boxes, snapping onto voxel corners, and the centre rule.

A grid with voxel size ``s`` and translation ``t`` has voxel ``i`` centred at ``t + i * s`` and its corners at
``t - s / 2 + k * s``. Every expected value below is worked out by hand from that rule (the working is in the
comments); stored voxel values are checked against numpy slicing of the values the store was written with.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, arange_values
from worldarray.geometry import as_box


class OffsetShapeRoi:
    """A funlib-Roi-like object: a corner ``offset`` and a ``shape``, nothing else."""

    def __init__(self, offset, shape):
        self.offset = tuple(offset)
        self.shape = tuple(shape)


class BeginEndRoi:
    """Any object with half-open ``begin`` and ``end``."""

    def __init__(self, begin, end):
        self.begin = tuple(begin)
        self.end = tuple(end)


# ---------------------------------------------------------------- construction


def test_a_box_is_built_from_begin_and_end_tuples_as_floats():
    box = wa.Box((0, 1), (4, 5.5))
    assert box.begin == (0.0, 1.0)
    assert box.end == (4.0, 5.5)
    assert all(isinstance(v, float) for v in box.begin + box.end)


def test_a_box_whose_begin_is_after_its_end_raises():
    with pytest.raises(ValueError, match="begin"):
        wa.Box((0, 5), (4, 4))


def test_a_box_holding_nan_raises():
    with pytest.raises(ValueError, match="NaN"):
        wa.Box((0, float("nan")), (4, 4))


def test_a_box_with_begin_and_end_of_different_lengths_raises():
    with pytest.raises(ValueError, match="length"):
        wa.Box((0, 0), (4, 4, 4))


def test_a_box_whose_begin_equals_its_end_is_allowed_and_empty():
    assert wa.Box((2, 0), (2, 4)).empty


# ---------------------------------------------------------------- shape, centre, empty


def test_shape_is_end_minus_begin_per_axis():
    assert wa.Box((1, -2), (4, 6)).shape == (3.0, 8.0)


def test_centre_is_the_midpoint_per_axis():
    assert wa.Box((0, -2), (4, 7)).centre == (2.0, 2.5)


def test_a_box_with_volume_on_every_axis_is_not_empty():
    assert not wa.Box((0, 0), (1, 4)).empty


# ---------------------------------------------------------------- intersect and union


def test_overlapping_boxes_intersect_in_their_shared_part():
    # x: [0, 8) and [4, 12) share [4, 8); y: [0, 8) and [-2, 6) share [0, 6)
    assert wa.Box((0, 0), (8, 8)).intersect(wa.Box((4, -2), (12, 6))) == wa.Box((4, 0), (8, 6))


def test_boxes_that_only_touch_intersect_in_an_empty_box():
    # half-open: [0, 4) and [4, 8) share no point
    assert wa.Box((0, 0), (4, 4)).intersect(wa.Box((4, 0), (8, 4))).empty


def test_disjoint_boxes_intersect_in_an_empty_box():
    assert wa.Box((0, 0), (2, 2)).intersect(wa.Box((5, 5), (8, 8))).empty


def test_intersect_takes_a_begin_end_pair():
    assert wa.Box((0, 0), (8, 8)).intersect(((4, -2), (12, 6))) == wa.Box((4, 0), (8, 6))


def test_union_is_the_smallest_box_holding_both():
    assert wa.Box((0, 2), (4, 4)).union(wa.Box((6, 0), (8, 3))) == wa.Box((0, 0), (8, 4))


def test_union_with_an_empty_box_is_the_other_box():
    # the empty box far away adds no point, so it must not stretch the union out to reach it
    assert wa.Box((0, 0), (4, 4)).union(wa.Box((10, 10), (10, 12))) == wa.Box((0, 0), (4, 4))


def test_an_empty_box_united_with_a_box_is_that_box():
    assert wa.Box((10, 10), (10, 12)).union(wa.Box((0, 0), (4, 4))) == wa.Box((0, 0), (4, 4))


# ---------------------------------------------------------------- contains


def test_contains_a_float_point_inside():
    assert wa.Box((0, 0), (4, 4)).contains((0.5, 3.9))


def test_contains_an_int_point_inside():
    assert wa.Box((0, 0), (4, 4)).contains((1, 1))


def test_contains_a_numpy_int_array_point():
    assert wa.Box((0, 0), (4, 4)).contains(np.array([1, 1]))


def test_contains_a_point_of_numpy_int_scalars():
    assert wa.Box((0, 0), (4, 4)).contains((np.int64(1), np.int64(2)))


def test_a_one_axis_box_contains_a_numpy_int_scalar_point():
    # one number is accepted for one axis by grow and shift; a one-axis point given as a bare scalar reads the same way
    assert wa.Box((0,), (4,)).contains(np.int64(2))


def test_contains_the_begin_corner():
    assert wa.Box((0, 0), (4, 4)).contains((0, 0))


def test_the_end_is_not_contained():
    # half-open: x = 4 lies outside [0, 4)
    assert not wa.Box((0, 0), (4, 4)).contains((4, 1))


def test_a_point_below_the_begin_is_not_contained():
    assert not wa.Box((0, 0), (4, 4)).contains((1, -0.5))


def test_contains_a_box_inside_it():
    assert wa.Box((0, 0), (4, 4)).contains(wa.Box((1, 1), (3, 3)))


def test_contains_a_box_that_shares_its_end():
    # half-open boxes: [1, 4) lies within [0, 4)
    assert wa.Box((0, 0), (4, 4)).contains(wa.Box((1, 1), (4, 4)))


def test_does_not_contain_a_box_partly_outside():
    assert not wa.Box((0, 0), (4, 4)).contains(wa.Box((2, 2), (6, 3)))


def test_contains_a_box_given_as_a_begin_end_pair():
    assert wa.Box((0, 0), (4, 4)).contains(((1, 1), (3, 3)))


def test_contains_an_offset_shape_roi_inside():
    assert wa.Box((0, 0), (4, 4)).contains(OffsetShapeRoi((1, 1), (2, 2)))


# ---------------------------------------------------------------- grow and shift


def test_grow_by_one_number_grows_every_axis_both_ways():
    assert wa.Box((0, 0), (8, 4)).grow(2) == wa.Box((-2, -2), (10, 6))


def test_grow_per_axis():
    assert wa.Box((0, 0), (8, 4)).grow((1, 2)) == wa.Box((-1, -2), (9, 6))


def test_grow_before_and_after_differ():
    assert wa.Box((0, 0), (8, 4)).grow(1, 3) == wa.Box((-1, -1), (11, 7))


def test_grow_before_and_after_per_axis():
    assert wa.Box((0, 0), (8, 4)).grow((1, 0), (0, 2)) == wa.Box((-1, 0), (8, 6))


def test_grow_takes_a_numpy_integer_as_one_number():
    assert wa.Box((0, 0), (8, 4)).grow(np.int64(2)) == wa.Box((-2, -2), (10, 6))


def test_shift_per_axis_moves_begin_and_end():
    assert wa.Box((0, 0), (8, 4)).shift((1.5, -2)) == wa.Box((1.5, -2), (9.5, 2))


def test_shift_by_one_number_moves_every_axis():
    assert wa.Box((0, 0), (8, 4)).shift(3) == wa.Box((3, 3), (11, 7))


# ---------------------------------------------------------------- snap onto voxel corners


def test_snap_grow_moves_begin_down_and_end_up_to_corners():
    # voxel 4, translation 2: corners at 2 - 2 + 4k = 0, 4, 8, ...; [1, 7) grows to [0, 8)
    assert wa.Box((1,), (7,)).snap(4, 2, mode="grow") == wa.Box((0,), (8,))


def test_snap_grow_is_the_default_mode():
    assert wa.Box((1,), (7,)).snap(4, 2) == wa.Box((0,), (8,))


def test_snap_shrink_moves_begin_up_and_end_down_to_corners():
    # corners 0, 4, 8, 12: [1, 11) shrinks to [4, 8)
    assert wa.Box((1,), (11,)).snap(4, 2, mode="shrink") == wa.Box((4,), (8,))


def test_snap_shrink_of_a_box_within_one_voxel_is_empty():
    # corners 0, 4, 8: [1, 3) holds no corner-to-corner voxel
    assert wa.Box((1,), (3,)).snap(4, 2, mode="shrink").empty


def test_snap_closest_moves_each_bound_to_its_nearest_corner():
    # corners 0, 4, 8, 12: 1 is nearest 0, 9 is nearest 8
    assert wa.Box((1,), (9,)).snap(4, 2, mode="closest") == wa.Box((0,), (8,))


def test_snap_grow_onto_corners_that_are_not_multiples_of_the_voxel():
    # voxel 4, translation 3: corners at 3 - 2 + 4k = 1 + 4k = -3, 1, 5, 9, 13; [2, 10) grows to [1, 13)
    assert wa.Box((2,), (10,)).snap(4, 3, mode="grow") == wa.Box((1,), (13,))


def test_snap_shrink_onto_corners_that_are_not_multiples_of_the_voxel():
    # corners 1, 5, 9, 13: [2, 10) shrinks to [5, 9)
    assert wa.Box((2,), (10,)).snap(4, 3, mode="shrink") == wa.Box((5,), (9,))


def test_snap_closest_onto_corners_that_are_not_multiples_of_the_voxel():
    # corners 1, 5, 9, 13: 2 is nearest 1 (1 away, 5 is 3 away); 10 is nearest 9 (1 away, 13 is 3 away)
    assert wa.Box((2,), (10,)).snap(4, 3, mode="closest") == wa.Box((1,), (9,))


def test_snap_per_axis_voxel_sizes_and_translations():
    # axis 0: voxel 4, translation 3, corners 1 + 4k; [2, 10) -> [1, 13)
    # axis 1: voxel 2, translation 0, corners -1 + 2k = -1, 1, 3, 5; [0, 4) -> [-1, 5)
    assert wa.Box((2, 0), (10, 4)).snap((4, 2), (3, 0)) == wa.Box((1, -1), (13, 5))


@pytest.mark.parametrize("mode", ["grow", "shrink", "closest"])
def test_a_box_already_on_corners_is_left_as_it_is(mode):
    # corners 1 + 4k: [1, 9) is on corners
    assert wa.Box((1,), (9,)).snap(4, 3, mode=mode) == wa.Box((1,), (9,))


def test_snap_grow_absorbs_float_noise_below_a_corner():
    # begin a hair below the corner 1 is on the corner, not a whole voxel lower at -3
    assert wa.Box((1 - 1e-9,), (9 + 1e-9,)).snap(4, 3, mode="grow") == wa.Box((1,), (9,))


@pytest.mark.parametrize("begin,end,snapped", [
    # corners at 4k (voxel 4, translation 2); begin 2 is 0.5 voxels from corner 0 -> index 0; end 14 is 3.5 -> index 3
    (2, 14, wa.Box((0,), (12,))),
    # the same box one voxel higher: 1.5 -> index 1 and 4.5 -> index 4, the same width wherever the box sits
    (6, 18, wa.Box((4,), (16,))),
])
def test_snap_closest_breaks_an_exact_tie_towards_the_lower_corner(begin, end, snapped):
    # funlib's rule for ties (round_division rounds them down), so a snapped box keeps its width at every position
    assert wa.Box((begin,), (end,)).snap(4, 2, mode="closest") == snapped


def test_snap_rejects_an_unknown_mode_naming_it():
    with pytest.raises(ValueError, match="outward"):
        wa.Box((1,), (7,)).snap(4, 2, mode="outward")


# ---------------------------------------------------------------- to_index and from_index


def test_to_index_selects_the_voxels_whose_centres_lie_in_the_box():
    # voxel 4, translation 3: centres 3, 7, 11, 15; [4, 12) holds 7 and 11 -> voxels 1 and 2
    assert wa.Box((4,), (12,)).to_index((4,), (3,)) == ((1,), (3,))


def test_to_index_leaves_out_a_centre_on_the_end():
    # centres 3, 7, 11: [3, 11) holds 3 and 7; 11 is on the half-open end
    assert wa.Box((3,), (11,)).to_index((4,), (3,)) == ((0,), (2,))


def test_to_index_per_axis():
    # axis 0: voxel 4, translation 3 (centres 3, 7, 11, 15), [4, 12) -> [1, 3)
    # axis 1: voxel 2, translation -1 (centres -1, 1, 3, 5, 7), [0, 6) holds 1, 3, 5 -> [1, 4)
    assert wa.Box((4, 0), (12, 6)).to_index((4, 2), (3, -1)) == ((1, 1), (3, 4))


def test_to_index_of_a_box_before_the_data_gives_negative_indices():
    # voxel 4, translation 2: centres -6, -2, 2 are voxels -2, -1, 0; [-8, 0) holds -6 and -2
    assert wa.Box((-8,), (0,)).to_index((4,), (2,)) == ((-2,), (0,))


def test_from_index_spans_from_the_first_voxels_lower_corner_to_the_last_voxels_upper_corner():
    # voxel 4, translation 3: voxel i covers [1 + 4i, 5 + 4i); voxels 1 and 2 cover [5, 13)
    assert wa.Box.from_index((1,), (3,), (4,), (3,)) == wa.Box((5,), (13,))


def test_to_index_inverts_from_index():
    begin, end, size, translation = (-1, 2), (3, 7), (4.0, 10.48), (3.0, 3.7)
    assert wa.Box.from_index(begin, end, size, translation).to_index(size, translation) == (begin, end)


# ---------------------------------------------------------------- as_box and reads of roi-like objects


def test_as_box_reads_offset_and_shape_as_corner_and_extent():
    assert as_box(OffsetShapeRoi((20, 0), (100, 13))) == wa.Box((20, 0), (120, 13))


def test_as_box_reads_begin_and_end():
    assert as_box(BeginEndRoi((1, 2), (3, 4))) == wa.Box((1, 2), (3, 4))


def test_as_box_reads_a_begin_end_pair():
    assert as_box(((1, 2), (3, 4))) == wa.Box((1, 2), (3, 4))


def test_as_box_rejects_a_box_with_the_wrong_number_of_axes():
    with pytest.raises(ValueError, match="axes"):
        as_box(((1, 2), (3, 4)), ndim=3)


def test_as_box_is_a_public_name():
    # the brief's `wa.as_box`; the README's Reading section promises the behaviour, not the name
    assert wa.as_box(((1, 2), (3, 4))) == wa.Box((1, 2), (3, 4))


# ---------------------------------------------------------------- repr


def test_repr_shows_half_open_intervals():
    text = repr(wa.Box((0, 1.5), (8, 4)))
    assert "[0, 8)" in text
    assert "[1.5, 4)" in text


# ---------------------------------------------------------------- the funlib migration recipe on a real store

SHAPE = (6, 8, 10)
VOXEL = (8.0, 4.0, 4.0)
TRANSLATION = (12.0, 6.0, 2.0)  # corners z 8, y 4, x 0; the box is [8, 56) x [4, 36) x [0, 40)


@pytest.fixture
def vol(tmp_path):
    """An OME 0.5 zarr v3 group with one level s0 holding arange values, opened at s0."""
    group = {
        "zarr_format": 3,
        "node_type": "group",
        "attributes": {"ome": {"version": "0.5", "multiscales": [{
            "axes": [{"name": a, "type": "space", "unit": "nanometer"} for a in ("z", "y", "x")],
            "datasets": [{"path": "s0", "coordinateTransformations": [
                {"type": "scale", "scale": list(VOXEL)},
                {"type": "translation", "translation": list(TRANSLATION)}]}],
        }]}},
    }
    (tmp_path / "vol.zarr").mkdir()
    (tmp_path / "vol.zarr" / "zarr.json").write_text(json.dumps(group), encoding="utf-8")
    BUILDERS["zarr3"](tmp_path, {"path": "vol.zarr/s0", "shape": list(SHAPE), "dtype": "uint16",
                                 "chunks": [3, 4, 5], "document": {"dimension_names": ["z", "y", "x"]}})
    return wa.open(str(tmp_path / "vol.zarr" / "s0"))


def test_the_recipe_box_is_the_roi_clipped_to_the_array_and_grown_onto_its_corners(vol):
    # roi [20, 120) x [0, 20) x [5, 18); clipped to the array: [20, 56) x [4, 20) x [5, 18)
    # grown onto corners z 8 + 8k, y 4 + 4k, x 4k: [16, 56) x [4, 20) x [4, 20)
    roi = OffsetShapeRoi((20, 0, 5), (100, 20, 13))
    assert vol.box.intersect(roi).snap(vol.voxel_size, vol.translation) == wa.Box((16, 4, 4), (56, 20, 20))


def test_the_funlib_recipe_reads_the_stored_voxels_numpy_slicing_gives(vol):
    # the snapped box [16, 56) x [4, 20) x [4, 20) holds the centres
    # z 12 + 8i for i in [ceil(0.5), ceil(5.5)) = [1, 6); y 6 + 4i for i in [ceil(-0.5), ceil(3.5)) = [0, 4);
    # x 2 + 4i for i in [ceil(0.5), ceil(4.5)) = [1, 5)
    roi = OffsetShapeRoi((20, 0, 5), (100, 20, 13))
    data = vol.read(vol.box.intersect(roi).snap(vol.voxel_size, vol.translation))
    np.testing.assert_array_equal(np.asarray(data), arange_values(SHAPE, "uint16")[1:6, 0:4, 1:5])


def test_read_takes_an_offset_shape_roi(vol):
    # [16, 56) x [4, 20) x [4, 20) as offset and shape: voxels [1, 6) x [0, 4) x [1, 5), as above
    data = vol.read(OffsetShapeRoi((16, 4, 4), (40, 16, 16)))
    np.testing.assert_array_equal(np.asarray(data), arange_values(SHAPE, "uint16")[1:6, 0:4, 1:5])


def test_read_takes_a_begin_end_roi(vol):
    data = vol.read(BeginEndRoi((16, 4, 4), (56, 20, 20)))
    np.testing.assert_array_equal(np.asarray(data), arange_values(SHAPE, "uint16")[1:6, 0:4, 1:5])


def test_the_array_box_runs_from_its_corner_over_shape_times_voxel_size(vol):
    # corner = translation - voxel / 2 = (8, 4, 0); extent = (6 * 8, 8 * 4, 10 * 4) = (48, 32, 40)
    assert vol.box == wa.Box((8, 4, 0), (56, 36, 40))
