"""Levels made by whole-block factors: where a level sits (level_placement), its shape (level_shape), and the
schedule of factors (level_factors).

Expected placements follow the spec's formulas, checked against a numpy block mean of each voxel's centre; expected
shapes against numpy reshapes.
"""

from __future__ import annotations

import numpy as np
import pytest

import worldarray as wa
from worldarray.write import level_placement, level_shape


# ---------------------------------------------------------------- level placement and shape


@pytest.mark.parametrize("factor", [2, 3, 4, 2.5])
def test_a_level_from_origin_0_keeps_its_corner_where_the_source_corner_is(factor):
    # the reader's BigDataViewer case: a 4 nm grid with translation 2 has its corner at 0, and so has every level
    voxel_size, translation = level_placement((4.0,), (2.0,), factor)
    assert voxel_size == (4.0 * factor,)
    assert translation[0] - voxel_size[0] / 2 == 0.0


def test_a_level_from_factor_2_of_a_4_nm_grid_at_2_is_8_nm_at_4():
    assert level_placement((4.0, 4.0, 4.0), (2.0, 2.0, 2.0), 2) == ((8.0, 8.0, 8.0), (4.0, 4.0, 4.0))


def test_an_origin_moves_the_level_by_that_many_source_voxels():
    at_0 = level_placement((4.0, 3.0), (2.0, -1.0), (2, 3))
    at_16 = level_placement((4.0, 3.0), (2.0, -1.0), (2, 3), origin=16)
    assert at_16[0] == at_0[0]
    assert at_16[1] == (at_0[1][0] + 16 * 4.0, at_0[1][1] + 16 * 3.0)


@pytest.mark.parametrize("origin", [0, 16])
@pytest.mark.parametrize("factors", [(2, 2, 2), (2, 3, 4)])
def test_a_block_mean_level_voxel_is_centred_where_level_placement_puts_it(origin, factors):
    shape, voxel_size, translation = (40, 27, 24), (4.0, 3.5, 10.48), (2.0, -1.75, 100.0)
    level_size, level_translation = level_placement(voxel_size, translation, factors, origin)
    counts = [(n - origin) // f for n, f in zip(shape, factors, strict=True)]  # whole blocks only
    for axis in range(3):
        # the source holds each voxel's centre along `axis`: translation + i * voxel_size
        centres = translation[axis] + np.arange(shape[axis]) * voxel_size[axis]
        source = np.broadcast_to(np.expand_dims(centres, [a for a in range(3) if a != axis]), shape)
        kept = source[tuple(slice(origin, origin + m * f) for m, f in zip(counts, factors, strict=True))]
        level = kept.reshape([d for m, f in zip(counts, factors, strict=True) for d in (m, f)]).mean(axis=(1, 3, 5))
        expected = level_translation[axis] + np.arange(counts[axis]) * level_size[axis]
        expected = np.expand_dims(expected, [a for a in range(3) if a != axis])
        np.testing.assert_allclose(level, np.broadcast_to(expected, counts), rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    "shape, factors, origin, expected",
    [
        ((10,), 2, 0, (5,)),
        ((11,), 2, 0, (6,)),
        ((11,), 2, 1, (5,)),
        ((100,), 3, 16, (28,)),
        ((9,), 1.5, 0, (6,)),
        ((10,), 1.5, 0, (7,)),
        ((64, 48, 20), (2, 3, 4), 16, (24, 11, 1)),
        ((64, 48, 20), 2, (16, 0, 3), (24, 24, 9)),
    ],
)
def test_a_level_has_ceil_of_the_remaining_voxels_over_the_factor(shape, factors, origin, expected):
    assert level_shape(shape, factors, origin) == expected


def test_level_shape_agrees_with_the_block_count_when_blocks_fit():
    source = np.zeros((48, 30))
    level = source[16:, :].reshape(16, 2, 10, 3).mean(axis=(1, 3))
    assert level_shape(source.shape, (2, 3), (16, 0)) == level.shape


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: level_placement((4.0,), (2.0,), 0), r"factors is 0; expected finite numbers > 0: one number, or 1"),
        (lambda: level_placement((4.0, 4.0), (2.0, 2.0), (2, -2)),
         r"factors is \(2, -2\); expected finite numbers > 0"),
        (lambda: level_placement((4.0, 4.0), (2.0, 2.0), (2, 2, 2)),
         r"factors is \(2, 2, 2\); expected finite numbers > 0: one number, or 2 \(one per axis\)"),
        (lambda: level_placement((4.0,), (2.0,), 2, origin=1.5),
         r"origin is 1\.5; expected whole numbers >= 0: one number, or 1"),
        (lambda: level_placement((4.0,), (2.0,), 2, origin=-1), r"origin is -1"),
        (lambda: level_placement((4.0, 4.0), (2.0,), 2), r"translation is \[2\.0\] \(1 entries\); expected 2"),
        (lambda: level_placement((0.0,), (2.0,), 2), r"voxel_size is \[0\.0\]"),
        (lambda: level_shape((10.5,), 2), r"shape is \(10\.5,\); expected whole numbers"),
        (lambda: level_shape((10,), 2, origin=10), r"origin is 10; expected less than shape \(10,\) on axis 0"),
        (lambda: level_shape((10, 4), 2, origin=(0, 7)),
         r"origin is \(0, 7\); expected less than shape \(10, 4\) on axis 1"),
    ],
)
def test_a_bad_level_argument_raises_value_error_naming_it(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------- level_factors (Behaviour 19)


def test_an_anisotropic_axis_stays_at_factor_1_until_the_others_reach_it():
    schedule = wa.level_factors((30, 8, 8), max_levels=4)  # z, y, x in nm
    sizes = [(30.0, 8.0, 8.0)]
    for factors in schedule:
        sizes.append(tuple(s * f for s, f in zip(sizes[-1], factors, strict=True)))
    assert [f[0] for f in schedule] == [1, 1, 2, 2]  # z waits while y and x go 8 -> 16 -> 32
    assert sizes[2] == (30.0, 32.0, 32.0) and sizes[3] == (60.0, 64.0, 64.0)


def test_isotropic_data_gives_all_2s_at_every_level():
    assert wa.level_factors((4, 4, 4), max_levels=5) == [(2, 2, 2)] * 5


def test_the_schedule_stops_at_the_first_level_that_fits_stop_shape():
    schedule = wa.level_factors((4, 4, 4), shape=(1000, 600, 300), stop_shape=(64, 64, 64))
    shape = (1000, 600, 300)
    for factors in schedule:
        shape = wa.level_shape(shape, factors)
    assert all(n <= 64 for n in shape) and len(schedule) == 4  # 1000 -> 500 -> 250 -> 125 -> 63


def test_max_levels_caps_the_schedule_before_stop_shape_is_reached():
    assert len(wa.level_factors((4, 4, 4), max_levels=2, shape=(1000,) * 3, stop_shape=(64,) * 3)) == 2


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"voxel_size": (4, 4), "ratio": 0.5, "max_levels": 2}, "ratio"),
    ({"voxel_size": (4, 4), "max_levels": -1}, "max_levels"),
    ({"voxel_size": (4, 4), "stop_shape": (8, 8)}, "stop_shape"),
    ({"voxel_size": (4, 4)}, "give max_levels"),
    ({"voxel_size": (4, 0), "max_levels": 1}, "voxel_size"),
])
def test_bad_level_factors_arguments_raise_naming_them(kwargs, named):
    with pytest.raises(ValueError, match=rf"^{named}"):
        wa.level_factors(**kwargs)
