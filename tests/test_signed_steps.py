"""A negative voxel size (a north-up raster's rows), which no reader produces yet, already follows the centre rule.

Index i sits at translation + i * voxel_size whatever the sign; every extent is [min, max); a world box selects the
voxels whose centres lie in it; a resampled read keeps the source's direction; level choice compares magnitudes.
The oracle throughout is the array's twin stored the other way up (the same voxels at the same places, in the
opposite index order, with a positive step), which the existing suite pins, together with numpy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from worldarray.geometry import (Box, centre_rule, directed, holding, inside, magnitudes, no_coarser, size_ratio,
                                 target_span, voxel_extent, voxel_volume)

# a row axis of 7 voxels of -4 whose voxel 0 is centred at 26: centres 26, 22, ..., 2, extent [0, 28)
N, STEP, TOP = 7, -4.0, 26.0


INDICES = np.arange(-20, 30)  # the voxels of the data and those a box past it selects (read as padding)


def oracle(begin: float, end: float, step=STEP, translation=TOP) -> tuple[int, int] | None:
    """The voxels whose centres lie in [begin, end), found by looking at every centre (a range of indices)."""
    centres = translation + INDICES * step
    hits = INDICES[(centres >= begin) & (centres < end)]
    assert len(hits) == 0 or len(hits) == hits[-1] - hits[0] + 1  # contiguous
    return (int(hits[0]), int(hits[-1]) + 1) if len(hits) else None


EDGES = [-9.0, -2.0, 0.0, 1.0, 2.0, 3.9, 4.0, 6.0, 10.0, 13.0, 14.0, 22.0, 26.0, 27.99, 28.0, 30.0, 40.0]


@pytest.mark.parametrize("begin", EDGES)
@pytest.mark.parametrize("width", [0.0, 0.5, 4.0, 6.0, 8.0, 12.0, 28.0])
def test_a_world_box_selects_the_voxels_whose_centres_lie_in_it_on_a_negative_step(begin, width):
    (first,), (last,) = centre_rule((begin,), (begin + width,), ((TOP, STEP),))
    want = oracle(begin, begin + width)
    if want is None:
        assert first == last
    else:
        assert (first, last) == want


def test_a_centre_on_the_begin_is_in_and_one_on_the_end_is_out_within_float_noise():
    # centres 26 and 22: [22, 26) holds voxel 1 only, even with the edges a hair off the centres
    for noise in (0.0, 1e-12, -1e-12):
        assert centre_rule((22.0 + noise,), (26.0 + noise,), ((TOP, STEP),)) == ((1,), (2,))


def test_a_box_of_m_voxels_returns_m_voxels_on_a_negative_step_whatever_its_alignment():
    for begin in np.linspace(-3.0, 5.0, 33):
        for m in range(0, 5):
            (first,), (last,) = centre_rule((begin,), (begin + 4.0 * m,), ((TOP, STEP),))
            assert last - first == m


def test_the_extent_of_voxels_is_min_max_whatever_the_sign():
    corner = TOP - STEP / 2  # the outer edge of voxel 0: 28
    assert voxel_extent(corner, STEP, 0, N) == (0.0, 28.0)
    assert voxel_extent(corner, STEP, 2, 4) == (12.0, 20.0)
    assert voxel_extent(0.0, 4.0, 2, 4) == (8.0, 16.0)


def test_box_from_index_is_min_max_and_selects_back_the_same_voxels():
    box = Box.from_index((2,), (5,), STEP, TOP)
    assert (box.begin, box.end) == ((8.0,), (20.0,))
    assert centre_rule(box.begin, box.end, ((TOP, STEP),)) == ((2,), (5,))


@pytest.mark.parametrize("mode", ["grow", "shrink", "closest"])
def test_snapping_to_a_grid_is_the_same_whichever_way_its_steps_go(mode):
    for begin, end in ((1.0, 9.0), (-3.3, 17.2), (4.0, 4.0), (5.9, 6.1)):
        up = Box((begin,), (end,)).snap(4.0, TOP + STEP * (N - 1), mode)  # the twin: the same corners
        down = Box((begin,), (end,)).snap(STEP, TOP, mode)
        assert down == up
    assert Box((1.0,), (9.0,)).snap(STEP, TOP, "grow") == Box((0.0,), (12.0,))


def test_holding_puts_a_boundary_in_the_voxel_above_it_in_the_world():
    # positions in voxels from voxel 0's outer edge along the index direction; boundaries at whole numbers
    position = np.array([0.0, 0.25, 1.0, 1.0 - 1e-9, 2.5, 3.0 + 1e-9])
    np.testing.assert_array_equal(holding(position, 4.0), [0, 0, 1, 1, 2, 3])
    np.testing.assert_array_equal(holding(position, -4.0), [-1, 0, 0, 0, 2, 2])


def test_inside_is_the_data_extent_min_max_in_either_direction():
    position = np.array([-0.5, 0.0, 0.5, 6.5, 7.0, 7.5])
    np.testing.assert_array_equal(inside(position, N, 4.0), [False, True, True, True, False, False])
    np.testing.assert_array_equal(inside(position, N, -4.0), [False, False, True, True, True, False])


def test_a_resample_target_spans_the_data_in_magnitude_with_the_sources_direction():
    corner = TOP - STEP / 2
    # 7 voxels of 4 are 28 long: ceil(28 / 6) = 5 voxels of 6, counted down from the corner as the source is
    assert target_span(N, STEP, corner, -6.0, corner) == (0, 5)
    assert target_span(N, 4.0, 0.0, 6.0, 0.0) == (0, 5)
    # the grid met from either end, or anchored elsewhere, counts the same voxels
    assert target_span(N, STEP, corner, -6.0, corner + 3.0) == (0, 6)
    assert target_span(N, STEP, corner, 6.0, 0.0) == (0, 5)  # a target the other way up meets the same extent


def test_sizes_asked_for_by_magnitude_take_the_sources_direction():
    assert directed((8.0, 2.0, 3.0), (4.0, -4.0, -1.0)) == (8.0, -2.0, -3.0)
    assert directed((-8.0,), (-4.0,)) == (-8.0,)


def test_sizes_compare_and_order_by_magnitude():
    assert magnitudes((-4.0, 8.0)) == (4.0, 8.0)
    assert size_ratio(-8.0, 4.0) == size_ratio(8.0, -4.0) == 2.0
    assert no_coarser((-4.0, 4.0), (4.0, 8.0)) and not no_coarser((-8.0,), (4.0,))
    assert voxel_volume((-4.0, 4.0, 2.0)) == voxel_volume((4.0, 4.0, 2.0)) == 32.0
    assert math.isclose(size_ratio(-10.48, 10.48), 1.0)
