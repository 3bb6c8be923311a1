"""A zarr-conventions ``multiscales`` layout is a pyramid: its assets are the levels, each placed by its entry's
``spatial:transform`` under the layout group's ``spatial:dimensions`` and ``proj:`` (B4).

The stores are the documents geotessera 0.11.0 and topozarr 0.2.1 write (the fixture cases carry them), and small
layouts built here whose levels are arrays or groups holding them.
"""

from __future__ import annotations

import io
import warnings
from contextlib import redirect_stdout

import numpy as np
import pytest

import worldarray as wa
from worldarray import cli
from worldarray.layout import Entry, asset_of, layout_of, transform_problems
from worldarray.fields import Document
from conftest import BUILDERS, GROUP_BUILDERS, arange_values, build_store
from metadata_cases import CASES

TOPOZARR = next(case for case in CASES if case["name"] == "zarr3_topozarr_level_of_a_multiscales_layout")
ZONE = next(case for case in CASES if case["name"] == "zarr3_geotessera_zone_embeddings")

DEGREES = {"spatial:dimensions": ["lat", "lon"], "proj:code": "EPSG:4326", "spatial:registration": "pixel"}


def _entry(asset: str, step: float, derived: str | None = None, scale=None, translation=None, corner=(-180, 90)):
    entry = {"asset": asset, "spatial:transform": [step, 0, corner[0], 0, -step, corner[1]]}
    if derived is not None:
        entry["derived_from"] = derived
        entry["transform"] = {"scale": scale or [2, 2], "translation": translation or [0, 0]}
    return entry


def degree_pyramid(root, levels=3, assets="{i}/rgb", entries=None, arrays=("rgb",)):
    """A geographic preview pyramid like geotessera's: level i at 0.5 * 2**i degrees, 8 / 2**i rows, rgb band last."""
    layout = entries or [_entry(assets.format(i=i), 0.5 * 2 ** i, None if i == 0 else assets.format(i=i - 1))
                         for i in range(levels)]
    GROUP_BUILDERS["zarr3"](root, {"path": "preview.zarr", "attrs": {**DEGREES, "multiscales": {"layout": layout}}})
    for i in range(levels):
        rows = 8 // 2 ** i
        GROUP_BUILDERS["zarr3"](root, {"path": f"preview.zarr/{i}", "attrs": {}})
        for name in arrays:
            BUILDERS["zarr3"](root, {"path": f"preview.zarr/{i}/{name}", "shape": [rows, 2 * rows, 3],
                                     "chunks": [rows, 2 * rows, 3], "dtype": "uint8",
                                     "document": {"dimension_names": ["lat", "lon", "band"]}})
        BUILDERS["zarr3"](root, {"path": f"preview.zarr/{i}/band", "shape": [3], "chunks": [3], "dtype": "uint8",
                                 "document": {"dimension_names": ["band"]}})
    return root / "preview.zarr"


# ---------------------------------------------------------------- which levels, placed how


def test_the_levels_of_a_layout_are_its_assets_in_order(tmp_path):
    pyramid = wa.open_pyramid(str(degree_pyramid(tmp_path)), units=None)
    assert pyramid.names == ("0/rgb", "1/rgb", "2/rgb")
    assert pyramid.voxel_sizes() == [(-0.5, 0.5), (-1.0, 1.0), (-2.0, 2.0)]


def test_each_level_is_placed_by_its_entrys_spatial_transform_under_the_groups_dimensions_and_crs(tmp_path):
    vol = wa.open(str(degree_pyramid(tmp_path)), level="1/rgb", units=None)
    assert vol.meta.placed_by == "spatial" and vol.spatial == (0, 1)
    assert vol.voxel_size == (-1.0, 1.0) and vol.translation == (89.5, -179.5)
    assert vol.meta.units == ("degree", "degree", "") and vol.crs == {"proj:code": "EPSG:4326"}


def test_a_level_opened_by_its_own_path_is_placed_alike_and_knows_its_pyramid(tmp_path):
    root = degree_pyramid(tmp_path)
    direct = wa.open(str(root / "2" / "rgb"), units=None)
    listed = wa.open(str(root), level=2, units=None)
    assert (direct.voxel_size, direct.translation) == (listed.voxel_size, listed.translation)
    assert direct.level_name == "2/rgb" and direct.levels == ("0/rgb", "1/rgb", "2/rgb")


def test_the_geotessera_preview_levels_are_groups_each_standing_for_its_one_rgb_array(tmp_path):
    root = degree_pyramid(tmp_path, assets="{i}")
    pyramid = wa.open_pyramid(str(root), units=None)
    assert pyramid.names == ("0", "1", "2")
    vol = pyramid.by_name("1")
    assert vol.level_path.endswith("preview.zarr/1/rgb") and vol.shape == (4, 8, 3)
    by_group = wa.open(str(root / "1"), units=None)  # the level group's own path opens its array too
    assert by_group.level_path == vol.level_path and by_group.level_name == "1"


def test_a_level_group_holding_several_arrays_needs_array_and_the_error_lists_them(tmp_path):
    root = degree_pyramid(tmp_path, assets="{i}", arrays=("rgb", "nir"))
    with pytest.raises(ValueError, match=r"preview.zarr/0: .*\['nir', 'rgb'\].*array=NAME"):
        wa.open(str(root), level=0, units=None)
    vol = wa.open(str(root), level=0, units=None, array="nir")
    assert vol.level_path.endswith("preview.zarr/0/nir")
    pyramid = wa.open_pyramid(str(root), units=None, array="nir")
    assert [level.level_path.rsplit("/", 2)[-2:] for level in pyramid.levels] == [["0", "nir"], ["1", "nir"],
                                                                                  ["2", "nir"]]


def test_array_naming_no_array_of_the_level_lists_the_ones_there(tmp_path):
    root = degree_pyramid(tmp_path, assets="{i}")
    with pytest.raises(ValueError, match=r"array='red' names no array in this level; its arrays are \['band', 'rgb'\]"):
        wa.open(str(root), level=0, units=None, array="red")


@pytest.mark.parametrize("array", ["", "../rgb", "/rgb"])
def test_array_must_be_a_plain_name(tmp_path, array):
    with pytest.raises(ValueError, match="array is"):
        wa.open(str(degree_pyramid(tmp_path)), level=0, units=None, array=array)


# ---------------------------------------------------------------- level choice, Pyramid, info and check


@pytest.mark.parametrize(("wanted", "mode", "name"), [(1.0, "floor", "1/rgb"), (1.5, "floor", "1/rgb"),
                                                     (0.3, "nearest", "0/rgb"), (3.0, "nearest", "2/rgb")])
def test_a_voxel_size_chooses_a_level_by_magnitude_as_select_does(tmp_path, wanted, mode, name):
    root = str(degree_pyramid(tmp_path))
    vol = wa.open(root, voxel_size=wanted, level_mode=mode, on_mismatch="keep", units=None)
    assert vol.level_name == name
    assert wa.open_pyramid(root, units=None).select(wanted, mode).level_name == name


def test_a_degree_pyramid_resampled_at_a_size_keeps_its_north_up_direction(tmp_path):
    vol = wa.open(str(degree_pyramid(tmp_path)), voxel_size=1.5, on_mismatch="resample", units=None)
    assert vol.level_name == "1/rgb" and vol.voxel_size == (-1.5, 1.5)
    assert vol.read(vol.box).shape[:2] == vol.shape[:2]


def test_the_topozarr_pyramid_is_three_levels_at_10_20_40_metres(tmp_path):
    root = build_store(tmp_path, TOPOZARR) / "topo.zarr"
    GROUP_BUILDERS["zarr3"](tmp_path, {"path": "topo.zarr/2", "attrs": {}})
    BUILDERS["zarr3"](tmp_path, {"path": "topo.zarr/2/dem", "shape": [2, 2], "chunks": [2, 2], "dtype": "float32",
                                 "document": {"dimension_names": ["y", "x"]}})
    pyramid = wa.open_pyramid(str(root), units="meter")
    assert pyramid.names == ("0", "1", "2")
    assert pyramid.voxel_sizes() == [(-10.0, 10.0), (-20.0, 20.0), (-40.0, 40.0)]
    assert pyramid.translations() == [(6199995.0, 500005.0), (6199990.0, 500010.0), (6199980.0, 500020.0)]
    assert wa.open(str(root), voxel_size=20, units="meter").level_path.endswith("topo.zarr/1/dem")


def test_check_passes_a_layout_whose_transforms_agree_and_info_lists_its_levels(tmp_path):
    root = str(degree_pyramid(tmp_path))
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["check", root]) == 0
        assert cli.main(["info", root]) == 0
    text = out.getvalue()
    assert "3 level(s), consistent" in text and "0/rgb" in text and "2/rgb" in text and "EPSG:4326" in text


@pytest.mark.parametrize(("scale", "translation", "wrong"), [([3, 3], None, "transform.scale is [3.0, 3.0]"),
                                                            (None, [0.5, 0.5], "transform.translation is [0.5, 0.5]")])
def test_check_reports_a_transform_scale_or_translation_the_levels_contradict(tmp_path, capsys, scale, translation,
                                                                             wrong):
    entries = [_entry("0/rgb", 0.5), _entry("1/rgb", 1.0, "0/rgb", scale, translation), _entry("2/rgb", 2.0, "1/rgb")]
    root = str(degree_pyramid(tmp_path, entries=entries))
    assert cli.main(["check", root]) == 1
    shown = capsys.readouterr().out
    assert f"FAIL multiscales: {root}/zarr.json: multiscales.layout[1].{wrong}" in shown
    assert "'1/rgb' and '0/rgb' give" in shown


def test_transform_problems_compares_scale_with_the_step_ratio_and_translation_with_the_corner_shift():
    entries = (Entry("0"), Entry("1", "0", (2.0, 2.0), (0.0, 0.0)), Entry("2", "1", (2.0, 2.0), (-40.0, 40.0)))
    placed = {"0": (10, 0, 500000, 0, -10, 6200000), "1": (20, 0, 500000, 0, -20, 6200000),
              "2": (40, 0, 500040, 0, -40, 6199960)}
    assert list(transform_problems(entries, placed, "t/zarr.json")) == []
    moved = {**placed, "2": (40, 0, 500000, 0, -40, 6200000)}
    assert [p.split(" is ")[0] for p in transform_problems(entries, moved, "t/zarr.json")] == [
        "t/zarr.json: multiscales.layout[2].transform.translation"]


# ---------------------------------------------------------------- the documents


@pytest.mark.parametrize(("layout", "match"), [
    ({"layout": []}, r"multiscales.layout is \[\]"),
    ({"layout": [{"path": "0"}]}, r"multiscales.layout\[0\] has no 'asset'"),
    ({"layout": [{"asset": "/0"}]}, r"multiscales.layout\[0\].asset is '/0'; expected a path relative"),
    ({"layout": [{"asset": "../0"}]}, r"asset is '../0'"),
    ({"layout": [{"asset": "0"}, {"asset": "0/"}]}, r"lists \['0'\] more than once"),
    ({"layout": [{"asset": "0", "transform": {"scale": [0, 2]}}]}, r"multiscales.layout\[0\].transform.scale"),
    ({"layout": [{"asset": "0", "spatial:transform": [1, 0, 0]}]}, r"multiscales.layout\[0\].spatial:transform"),
])
def test_a_malformed_layout_raises_naming_the_document_and_key(layout, match):
    with pytest.raises(ValueError, match=match):
        layout_of({"multiscales": layout}, "g/zarr.json")


def test_an_ome_multiscales_list_is_no_layout():
    assert layout_of({"multiscales": [{"datasets": [{"path": "s0"}]}]}, "g/.zattrs") is None


def test_asset_of_finds_the_entry_listing_an_array_or_the_group_holding_it():
    group = Document("p.zarr", "p.zarr/zarr.json", {"multiscales": {"layout": [{"asset": "0"}, {"asset": "1/rgb"}]}})
    level = Document("p.zarr/0", "p.zarr/0/zarr.json", {})
    assert asset_of((level, group), "p.zarr/0/rgb")[1:] == (Entry("0"), "rgb")
    assert asset_of((Document("p.zarr/1", "", {}), group), "p.zarr/1/rgb")[1:] == (Entry("1/rgb"), "")
    assert asset_of((Document("p.zarr/2", "", {}), group), "p.zarr/2/rgb") is None


def test_a_coordinate_array_inside_a_level_group_opens_unplaced(tmp_path):
    root = degree_pyramid(tmp_path, assets="{i}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        band = wa.open(str(root / "1" / "band"), units=None)
    assert band.meta.placed_by is None


# ---------------------------------------------------------------- a TESSERA zone read by easting and northing


def test_dequantised_embeddings_of_a_world_box_equal_those_read_by_plain_index(tmp_path):
    root = build_store(tmp_path, ZONE) / "tessera.zarr" / "utm30"
    embeddings = wa.open(str(root / "embeddings"), units=None, select={"time": 0})
    scales = wa.open(str(root / "scales"), units=None, select={"time": 0})
    box = wa.Box((6206050, 493760), (6206080, 493790))  # rows 1..3 (centres 6206075..6206055), columns 2..4
    got = embeddings.read(box).astype(np.float32) * scales.read(box)[None]
    stored = arange_values((1, 3, 4, 6), "int8")[0].astype(np.float32)
    factors = arange_values((1, 4, 6), "float32")[0]
    assert np.array_equal(got, stored[:, 1:4, 2:5] * factors[None, 1:4, 2:5])


# ---------------------------------------------------------------- topozarr 0.0.4: a layout that places nothing

#: The root attributes topozarr 0.0.4 writes: a layout and proj:code, no spatial: attributes at all.
TOPOZARR_004 = {
    "zarr_conventions": [
        {"schema_url": "https://raw.githubusercontent.com/zarr-conventions/multiscales/refs/tags/v1/schema.json",
         "spec_url": "https://github.com/zarr-conventions/multiscales/blob/v1/README.md",
         "uuid": "d35379db-88df-4056-af3a-620245f8e347", "name": "multiscales",
         "description": "Multiscale layout of zarr datasets"},
        {"schema_url": "https://raw.githubusercontent.com/zarr-experimental/geo-proj/refs/tags/v1/schema.json",
         "spec_url": "https://github.com/zarr-experimental/geo-proj/blob/v1/README.md",
         "uuid": "f17cb550-5864-4468-aeb7-f3180cfb622f", "name": "proj:",
         "description": "Coordinate reference system information for geospatial data"}],
    "multiscales": {"layout": [
        {"asset": "0", "transform": {"scale": [1.0, 1.0], "translation": [0.0, 0.0]}},
        {"asset": "1", "transform": {"scale": [2.0, 2.0], "translation": [0.5, 0.5]}, "derived_from": "0",
         "resampling_method": "mean"}], "resampling_method": "mean"},
    "proj:code": "EPSG:32630"}


def test_a_layout_with_no_spatial_attributes_lists_its_levels_and_warns_that_their_placement_is_not_read(tmp_path):
    GROUP_BUILDERS["zarr3"](tmp_path, {"path": "old.zarr", "attrs": TOPOZARR_004})
    for level, step in (("0", 10.0), ("1", 20.0)):
        GROUP_BUILDERS["zarr3"](tmp_path, {"path": f"old.zarr/{level}", "attrs": {}})
        n = int(80 / step)
        BUILDERS["zarr3"](tmp_path, {"path": f"old.zarr/{level}/dem", "shape": [n, n], "chunks": [n, n],
                                     "dtype": "float32", "document": {"dimension_names": ["y", "x"]},
                                     "attrs": {"_FillValue": "AAAAAAAA+H8="}})
        for name, first, sign in (("x", 500000, 1), ("y", 6200000, -1)):
            BUILDERS["zarr3"](tmp_path, {"path": f"old.zarr/{level}/{name}", "shape": [n], "chunks": [n],
                                         "dtype": "float64", "document": {"dimension_names": [name]},
                                         "values": [first + sign * step * (i + 0.5) for i in range(n)]})
    pyramid = wa.open_pyramid(str(tmp_path / "old.zarr"), units=None)
    assert pyramid.names == ("0", "1")
    with pytest.warns(wa.MetadataWarning, match="is unplaced, though coordinate arrays sit beside it"):
        vol = pyramid.by_name("1")
    assert vol.level_path.endswith("old.zarr/1/dem") and vol.meta.placed_by is None
