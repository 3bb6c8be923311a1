"""Stores other tools write are placed where those tools put them: an N5 group's factor list (A12), COSEM's order (A13).

The stores are the fixture's own cases (fixtures/metadata.json), built by conftest's builders as n5-viewer,
Neuroglancer and cellmap-schemas write them, document by document; every array holds its C-order flat index, so a
world box read back is checked against numpy slicing of the same values.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS, arange_values
from metadata_cases import CASES, assert_floats
from worldarray.metadata import parse_documents


def _case(name: str) -> dict:
    return next(case for case in CASES if case["name"] == name)


@pytest.fixture
def viewer_group(build_case):
    """n5-viewer's group: pixelResolution [4,4,40] nm and scales [[1,1,1],[2,2,1],[4,4,2]], levels s0, s1, s2."""
    return build_case(_case("n5_viewer_group_scales_s0")) / "vol.n5"


@pytest.fixture
def own_factors_differ(build_case):
    """The same group, s1 carrying downsamplingFactors [2,2,2] of its own against the group's [2,2,1]."""
    return build_case(_case("n5_group_scales_win_over_the_levels_own_factors")) / "vol.n5"


def _placement(vol) -> tuple[tuple[float, ...], tuple[float, ...]]:
    return vol.voxel_size, vol.translation


# ---------------------------------------------------------------- A12: the N5 group's factors, on every way in


def test_a_level_path_opens_at_the_voxel_size_the_group_factors_give(viewer_group):
    vol = wa.open(viewer_group / "s1")
    assert_floats(vol.voxel_size, (40, 8, 8), "voxel_size")
    assert_floats(vol.translation, (20, 4, 4), "translation")


def test_a_level_named_under_the_group_opens_at_the_voxel_size_the_group_factors_give(viewer_group):
    assert _placement(wa.open(viewer_group, level="s1")) == ((40.0, 8.0, 8.0), (20.0, 4.0, 4.0))


def test_a_level_by_position_takes_the_factors_at_that_position(viewer_group):
    assert _placement(wa.open(viewer_group, level=2)) == ((80.0, 16.0, 16.0), (40.0, 8.0, 8.0))


def test_a_voxel_size_picks_the_level_the_group_factors_put_there(viewer_group):
    vol = wa.open(viewer_group, voxel_size=(40, 8, 8))
    assert vol.level_name == "s1"
    assert _placement(vol) == ((40.0, 8.0, 8.0), (20.0, 4.0, 4.0))


def test_the_pyramid_lists_each_level_at_the_voxel_size_the_group_factors_give(viewer_group):
    pyramid = wa.open_pyramid(viewer_group)
    assert pyramid.names == ("s0", "s1", "s2")
    assert pyramid.voxel_sizes() == [(40.0, 4.0, 4.0), (40.0, 8.0, 8.0), (80.0, 16.0, 16.0)]
    assert pyramid.translations() == [(20.0, 2.0, 2.0), (20.0, 4.0, 4.0), (40.0, 8.0, 8.0)]


@pytest.mark.parametrize("level", ["s1", "s2"])
def test_the_group_list_places_a_level_where_its_own_factors_would(tmp_path, viewer_group, level):
    # the same levels with the factors on each level and none on the group: Convention 1's own-factor rule
    own = tmp_path / "own.n5"
    GROUP_BUILDERS["n5"](tmp_path, {"path": "own.n5", "attrs": {
        "n5": "2.5.1", "pixelResolution": {"dimensions": [4, 4, 40], "unit": "nm"}}})
    for name, shape, factors in (("s0", [4, 8, 8], [1, 1, 1]), ("s1", [4, 4, 4], [2, 2, 1]),
                                 ("s2", [2, 2, 2], [4, 4, 2])):
        BUILDERS["n5"](tmp_path, {"path": f"own.n5/{name}", "shape": shape, "dtype": "uint16", "chunks": shape,
                                  "attrs": {"downsamplingFactors": factors}})
    listed, carried = wa.metadata(viewer_group / level), wa.metadata(own / level)
    assert (listed.voxel_size, listed.translation) == (carried.voxel_size, carried.translation)


def test_a_world_box_of_a_level_reads_the_voxels_the_group_factors_put_there(viewer_group):
    vol = wa.open(viewer_group / "s1")
    values = arange_values(vol.shape, vol.dtype)
    # corner at the origin, voxels of (40, 8, 8): z [40, 80) is voxel 1, y [8, 24) voxels 1..2, x [16, 32) voxels 2..3
    got = vol.read(wa.Box((40, 8, 16), (80, 24, 32)))
    np.testing.assert_array_equal(got, values[1:2, 1:3, 2:4])


def test_a_world_box_reads_the_same_voxels_whichever_way_the_level_is_opened(viewer_group):
    box = wa.Box((0, 0, 0), (80, 16, 32))
    by_path = wa.open(viewer_group / "s2").read(box)
    by_voxel_size = wa.open(viewer_group, voxel_size=(80, 16, 16)).read(box)
    np.testing.assert_array_equal(by_path, by_voxel_size)
    np.testing.assert_array_equal(by_path, arange_values((2, 2, 2), "uint16")[:1, :1, :2])


def test_an_open_of_a_level_whose_own_factors_differ_warns_once(own_factors_differ):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", wa.MetadataWarning)
        vol = wa.open(own_factors_differ, voxel_size=(40, 8, 8))
    messages = [str(w.message) for w in caught if issubclass(w.category, wa.MetadataWarning)]
    assert len(messages) == 1, messages
    assert "downsamplingFactors is [2.0, 2.0, 2.0]" in messages[0] and "scales[1] is [2.0, 2.0, 1.0]" in messages[0]
    assert _placement(vol) == ((40.0, 8.0, 8.0), (20.0, 4.0, 4.0))


def test_listing_a_pyramid_warns_nothing_about_a_level_it_does_not_open(own_factors_differ):
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        sizes = wa.open_pyramid(own_factors_differ).voxel_sizes()
    assert sizes[1] == (40.0, 8.0, 8.0)


def test_a_levels_own_resolution_beside_the_group_factors_is_checked_not_multiplied(viewer_group):
    # A19: the group's pixelResolution is the base; a level's own that is neither it nor base x factors warns
    attributes = viewer_group / "s1" / "attributes.json"
    resolution = {"dimensions": [2, 2, 20], "unit": "nm"}
    attributes.write_text(json.dumps({**json.loads(attributes.read_text()), "pixelResolution": resolution}))
    with pytest.warns(wa.MetadataWarning, match=r"pixelResolution is \[2.0, 2.0, 20.0\]; expected the base"):
        vol = wa.open(viewer_group / "s1")
    assert _placement(vol) == ((40.0, 8.0, 8.0), (20.0, 4.0, 4.0))


def test_a_level_named_under_the_group_is_checked_against_s0s_shape(build_case):
    root = build_case(_case("n5_group_scales_level_shape_off_by_more_than_a_voxel"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", wa.MetadataWarning)
        wa.open(root / "vol.n5", level="s1")
    messages = [str(w.message) for w in caught if issubclass(w.category, wa.MetadataWarning)]
    assert len(messages) == 1, messages
    assert "dimensions is [8, 8, 4]; expected [4, 4, 4] within one voxel" in messages[0], messages[0]


def test_a_shape_off_by_one_voxel_is_not_warned(tmp_path, viewer_group):
    # ceil(8 / 3) is 3; a writer that floors gives 2, one voxel off, which is not worth a warning
    GROUP_BUILDERS["n5"](tmp_path, {"path": "vol.n5", "format": "n5", "attrs": {
        "n5": "2.5.1", "pixelResolution": {"dimensions": [4, 4, 40], "unit": "nm"}, "scales": [[1, 1, 1], [3, 3, 1]]}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        meta = wa.metadata(viewer_group / "s1")  # s1 holds 4 x 4 where ceil(8 / 3) = 3
    assert meta.voxel_size == (40.0, 12.0, 12.0)


# ---------------------------------------------------------------- A13: COSEM's order


def test_an_f_ordered_cosem_array_reads_the_world_box_it_names(build_case):
    root = build_case(_case("cosem_order_f_on_an_n5_array"))
    vol = wa.open(root / "vol.n5" / "raw")
    assert vol.shape == (10, 60, 90) and vol.axes == ("z", "y", "x")
    # voxel (40, 4, 4) centred at (20, 2, 2): corner at the origin; z [80, 160) is voxels 2..3, y [40, 48) 10..11,
    # x [0, 12) 0..2
    got = vol.read(wa.Box((80, 40, 0), (160, 48, 12)))
    np.testing.assert_array_equal(got, arange_values((10, 60, 90), "uint16")[2:4, 10:12, 0:3])


def test_an_n5_cosem_group_lists_its_f_ordered_levels_in_c_order(build_case):
    root = build_case(_case("cosem_order_f_in_an_n5_group_multiscales"))
    pyramid = wa.open_pyramid(root / "vol.n5")
    assert pyramid.voxel_sizes() == [(40.0, 4.0, 4.0), (40.0, 8.0, 8.0)]
    assert pyramid.translations() == [(0.0, 0.0, 0.0), (0.0, 2.0, 2.0)]


def test_a_zarr_cosem_group_lists_its_f_ordered_levels_in_c_order(build_case):
    root = build_case(_case("cosem_order_f_in_a_zarr_group_multiscales"))
    pyramid = wa.open_pyramid(root / "vol.zarr")
    assert pyramid.voxel_sizes() == [(40.0, 4.0, 4.0), (40.0, 8.0, 8.0)]
    vol = pyramid.select((40, 8, 8), mode="exact")
    assert _placement(vol) == ((40.0, 8.0, 8.0), (0.0, 2.0, 2.0)) and vol.meta.placed_by == "cosem"


def test_a_zarr_entry_with_an_ome_transform_beside_a_cosem_one_stays_ome(tmp_path):
    entry = {"path": "s0", "coordinateTransformations": [{"type": "scale", "scale": [8, 4, 4]}],
             "transform": {"order": "F", "axes": ["x", "y", "z"], "scale": [1, 1, 1], "translate": [0, 0, 0]}}
    axes = [{"name": name, "type": "space", "unit": "nanometer"} for name in "zyx"]
    GROUP_BUILDERS["zarr2"](tmp_path, {"path": "vol.zarr", "attrs": {
        "multiscales": [{"version": "0.4", "axes": axes, "datasets": [entry]}]}})
    BUILDERS["zarr2"](tmp_path, {"path": "vol.zarr/s0", "shape": [2, 2, 2], "dtype": "uint16", "chunks": [2, 2, 2]})
    meta = wa.metadata(tmp_path / "vol.zarr" / "s0")
    assert meta.placed_by == "ome" and meta.voxel_size == (8.0, 4.0, 4.0)


def test_order_and_ordering_that_agree_are_read_as_one_order():
    array = {"dimensions": [8, 6, 4], "blockSize": [8, 6, 4], "dataType": "uint16", "compression": {"type": "raw"},
             "transform": {"ordering": "F", "order": "F", "axes": ["x", "y", "z"], "scale": [2, 4, 8],
                           "translate": [3, 2, 1]}}
    meta = parse_documents("n5", array)
    assert meta.voxel_size == (8.0, 4.0, 2.0) and meta.axes == ("z", "y", "x")
