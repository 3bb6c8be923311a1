"""A14, axes that do not choose the level: an entry None of voxel_size= leaves its axis out of the level choice.

A serial-section stack at (40, 4, 4) nm (z, y, x) with levels at (40, 8, 8), (40, 16, 16) and (80, 32, 32) nm, made
by ``wa.create`` and ``add_level``; s0 holds ``arange_values``, so a read is checked against numpy indexing alone.
"""

from __future__ import annotations

import numpy as np
import pytest

import worldarray as wa
from conftest import arange_values

SHAPE = (8, 32, 32)
MODES = ("floor", "finer", "exact", "nearest", "resample")


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> str:
    """The group path of the four-level stack; s0's corner is at the origin."""
    path = str(tmp_path_factory.mktemp("any") / "stack.zarr")
    s0 = wa.create(path + "/s0", SHAPE, "uint16", (40, 4, 4), (20, 2, 2), chunks=(4, 16, 16))
    s0.write_index((0, 0, 0), SHAPE, arange_values(SHAPE, "uint16"))
    pyramid = wa.open_pyramid(path, mode="r+")
    for name, factors in (("s1", (1, 2, 2)), ("s2", (1, 4, 4)), ("s3", (2, 8, 8))):
        pyramid.add_level(name, factors=factors)
    return path


def holding(target: int, size: float, step: float, anchor: float = 0.0) -> np.ndarray:
    """The source voxel (corner at 0, ``size`` wide) holding each centre of ``target`` voxels ``step`` wide from
    ``anchor``: Behaviour 4's nearest, computed here on its own."""
    return np.floor((anchor + (np.arange(target) + 0.5) * step) / size).astype(int)


def taken(data: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``data[:, y][:, :, x]``, the fill 0 where an index is past the data."""
    padded = np.pad(data, ((0, 0), (0, 1), (0, 1)))  # one voxel of fill past the end of y and x
    return padded[:, np.minimum(y, data.shape[1])][:, :, np.minimum(x, data.shape[2])]


def levels_of(stack: str) -> list[tuple[str, tuple[float, ...]]]:
    """(name, voxel size) per level, as select_level takes them."""
    pyramid = wa.open_pyramid(stack)
    return list(zip(pyramid.names, pyramid.voxel_sizes(), strict=True))


def test_the_stack_holds_the_levels_the_tests_assume(stack):
    assert levels_of(stack) == [("s0", (40.0, 4.0, 4.0)), ("s1", (40.0, 8.0, 8.0)), ("s2", (40.0, 16.0, 16.0)),
                                ("s3", (80.0, 32.0, 32.0))]


# ---------------------------------------------------------------- the choice


@pytest.mark.parametrize("mode", MODES)
def test_none_8_8_picks_s1_by_y_and_x_in_every_level_mode_at_open_select_level_and_pyramid_select(stack, mode):
    assert wa.select_level(levels_of(stack), (None, 8, 8), mode)[0] == "s1"
    assert wa.open(stack, voxel_size=(None, 8, 8), level_mode=mode).level_name == "s1"
    assert wa.open_pyramid(stack).select((None, 8, 8), mode).level_name == "s1"


def test_none_16_16_under_floor_picks_s2_at_open_select_level_and_pyramid_select(stack):
    assert wa.select_level(levels_of(stack), (None, 16, 16), "floor")[0] == "s2"
    assert wa.open(stack, voxel_size=(None, 16, 16), level_mode="floor").level_name == "s2"
    assert wa.open_pyramid(stack).select((None, 16, 16), "floor").level_name == "s2"


@pytest.mark.parametrize("mode", MODES)
def test_among_levels_equal_on_the_compared_axes_the_first_listed_wins(mode):
    levels = [("a", (40.0, 8.0, 8.0)), ("b", (80.0, 8.0, 8.0)), ("c", (40.0, 16.0, 16.0))]
    assert wa.select_level(levels, (None, 8, 8), mode)[0] == "a"
    assert wa.select_level([levels[1], levels[0], levels[2]], (None, 8, 8), mode)[0] == "b"


@pytest.mark.parametrize("mode", ("floor", "nearest", "resample"))
def test_a_tie_between_stored_levels_goes_to_the_first_listed_at_open_and_in_pyramid_select(stack, mode):
    # s0, s1 and s2 are all at 40 nm in z: all three are no coarser than 50 nm, and nearer to it than s3's 80
    assert wa.open(stack, voxel_size=(50, None, None), level_mode=mode, on_mismatch="keep").level_name == "s0"
    assert wa.open_pyramid(stack).select((50, None, None), mode).level_name == "s0"


# ---------------------------------------------------------------- the level policy keeps the None axes


def test_resample_with_none_6_6_resamples_y_and_x_only_and_keeps_z_voxels_exactly(stack):
    vol = wa.open(stack, voxel_size=(None, 6, 6), on_mismatch="resample")
    y = holding(-(-SHAPE[1] * 4 // 6), 4.0, 6.0)  # ceil(n s / t) target voxels
    expected = taken(arange_values(SHAPE, "uint16"), y, y)
    assert vol.level_name == "s0" and vol.voxel_size == (40.0, 6.0, 6.0)
    assert vol.translation[0] == 20.0 and vol.shape == expected.shape
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), vol.shape), expected)


def test_relabel_with_none_6_6_relabels_y_and_x_only(stack):
    vol = wa.open(stack, voxel_size=(None, 6, 6), on_mismatch="relabel")
    assert vol.voxel_size == (40.0, 6.0, 6.0) and vol.translation == (20.0, 3.0, 3.0) and vol.shape == SHAPE


def test_error_with_none_6_6_raises_listing_the_levels(stack):
    with pytest.raises(ValueError, match=r"voxel size \(None, 6.0, 6.0\).*s0 .*s1 .*s2 .*s3 "):
        wa.open(stack, voxel_size=(None, 6, 6), on_mismatch="error")


# ---------------------------------------------------------------- read(voxel_size=) keeps the None axes


def test_read_with_none_8_8_on_s0_resamples_y_and_x_only(stack):
    vol = wa.open(stack, level="s0")
    got = vol.read(vol.box, voxel_size=(None, 8, 8))
    y = holding(SHAPE[1] // 2, 4.0, 8.0)
    np.testing.assert_array_equal(got, taken(arange_values(SHAPE, "uint16"), y, y))


def test_an_anchor_on_the_source_grid_of_a_none_axis_reads_that_axis_as_stored(stack):
    vol = wa.open(stack, level="s0")
    got = vol.read(((0.0, 4.0, 4.0), (320.0, 124.0, 124.0)), voxel_size=(None, 8, 8), anchor=(80, 4, 4))
    y = holding(15, 4.0, 8.0, anchor=4.0)  # centres 8, 16, ..., 120 lie in [4, 124)
    np.testing.assert_array_equal(got, taken(arange_values(SHAPE, "uint16"), y, y))


@pytest.mark.parametrize("where", ("open", "read"))
def test_an_anchor_off_the_source_grid_of_a_none_axis_raises(stack, where):
    with pytest.raises(ValueError, match=r"anchor is \(20.0, 0.0, 0.0\); on axis z, where voxel_size is None"):
        if where == "open":
            wa.open(stack, voxel_size=(None, 6, 6), on_mismatch="resample", anchor=(20, 0, 0))
        else:
            vol = wa.open(stack, level="s0")
            vol.read(vol.box, voxel_size=(None, 8, 8), anchor=(20, 0, 0))


# ---------------------------------------------------------------- bad voxel sizes


@pytest.mark.parametrize("where", ("open", "select_level", "select", "read"))
def test_a_voxel_size_of_all_none_raises_naming_voxel_size_and_the_value(stack, where):
    with pytest.raises(ValueError, match=r"voxel_size is \(None, None, None\)"):
        if where == "open":
            wa.open(stack, voxel_size=(None, None, None))
        elif where == "select_level":
            wa.select_level(levels_of(stack), (None, None, None))
        elif where == "select":
            wa.open_pyramid(stack).select((None, None, None))
        else:
            vol = wa.open(stack, level="s0")
            vol.read(vol.box, voxel_size=(None, None, None))


@pytest.mark.parametrize("where", ("open", "select_level", "read"))
def test_a_voxel_size_with_none_of_the_wrong_length_raises_naming_voxel_size(stack, where):
    with pytest.raises(ValueError, match=r"voxel_size is \(None, 8\); expected one number or 3"):
        if where == "open":
            wa.open(stack, voxel_size=(None, 8))
        elif where == "select_level":
            wa.select_level(levels_of(stack), (None, 8))
        else:
            vol = wa.open(stack, level="s0")
            vol.read(vol.box, voxel_size=(None, 8))


def test_a_linear_read_keeps_a_none_axis_as_stored_so_a_nan_in_the_next_section_does_not_leak(tmp_path):
    data = np.arange(2 * 4 * 4, dtype="float32").reshape(2, 4, 4)
    data[1] = np.nan  # a missing section: at weight 0 an interpolation along z would still take nan * 0
    vol = wa.create(str(tmp_path / "nan.zarr/s0"), data.shape, "float32", (40, 4, 4), (20, 2, 2), chunks=(1, 4, 4))
    vol.write_index((0, 0, 0), data.shape, data)
    got = vol.read(vol.box, voxel_size=(None, 8, 8), method="linear")
    np.testing.assert_array_equal(got, data.reshape(2, 2, 2, 2, 2).mean(axis=(2, 4)))
