"""B4, first step: the zarr-conventions ``spatial:`` attributes place a TESSERA-like UTM zone, north-up.

The oracle is numpy: the stored values indexed by the voxels whose centres (translation + i * voxel_size, from the
zone's transform) lie in the world box.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest

import worldarray as wa
from worldarray import units
from worldarray.metadata import parse_documents
from worldarray.spatial import crs_unit
from conftest import arange_values, build_store
from metadata_cases import CASES

ZONE = next(case for case in CASES if case["name"] == "zarr3_spatial_tessera_utm_zone_group")


@pytest.fixture
def zone(tmp_path):
    return build_store(tmp_path, ZONE) / "zone.zarr" / "embeddings"


def _centres(translation: float, step: float, n: int) -> np.ndarray:
    return translation + np.arange(n) * step


@pytest.mark.parametrize("units_asked", [None, "meter"])
@pytest.mark.parametrize(("north", "east"), [((6199960, 6200000), (500000, 500060)),
                                             ((6199971, 6199990), (500012, 500031)),
                                             ((6199985, 6199995.0), (500005, 500015)),
                                             ((6199965, 6199990), (500020, 500050))])
def test_a_world_box_in_metres_reads_the_pixels_whose_centres_lie_in_it_north_row_first(zone, units_asked, north,
                                                                                        east):
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        vol = wa.open(str(zone), units=units_asked)
    assert vol.meta.placed_by == "spatial" and vol.meta.spatial == (0, 1)
    stored = arange_values((4, 6, 3), "int8")
    rows = np.flatnonzero((_centres(6199995, -10, 4) >= north[0]) & (_centres(6199995, -10, 4) < north[1]))
    cols = np.flatnonzero((_centres(500005, 10, 6) >= east[0]) & (_centres(500005, 10, 6) < east[1]))
    got = vol.read(wa.Box((north[0], east[0]), (north[1], east[1])), padding=0)
    want = stored[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1, :]
    assert np.array_equal(got, want)
    assert got.shape[2] == 3  # the band axis is read whole


def test_the_zone_is_north_up_with_band_not_spatial(zone):
    meta = wa.metadata(str(zone), units=None)
    assert meta.spatial == (0, 1)
    assert meta.corner == (6200000.0, 500000.0, 0.0)  # the outer corner; no half voxel on band


def test_the_default_nanometre_units_convert_the_metre_axes_and_leave_band_alone(zone):
    meta = wa.metadata(str(zone), units="nanometer")
    assert meta.units == ("nanometer", "nanometer", "")
    assert meta.voxel_size == (-1e10, 1e10, 1.0)
    assert wa.open(str(zone)).voxel_size == (-1e10, 1e10)


def _degrees(attrs=None):
    own = {"spatial:dimensions": ["lat", "lon"], "spatial:transform": [0.5, 0, 10, 0, -0.5, 50],
           "proj:code": "EPSG:4326", **(attrs or {})}
    return parse_documents("zarr3", {"zarr_format": 3, "node_type": "array", "shape": [2, 4], "data_type": "uint8",
                                     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 4]}},
                                     "dimension_names": ["lat", "lon"], "attributes": own})


def test_a_degree_axis_stays_in_degrees_unless_an_angle_unit_is_asked():
    meta = _degrees()
    assert meta.units == ("degree", "degree")
    assert meta.converted("nanometer") == meta
    radians = meta.converted({"angle": "radian"})
    assert radians.units == ("radian", "radian")
    assert radians.voxel_size == pytest.approx((-0.5 * math.pi / 180, 0.5 * math.pi / 180))
    assert meta.converted(["rad", "deg"]).units == ("rad", "deg")
    with pytest.raises(ValueError, match="'meter' is not an angle unit"):
        meta.converted({"angle": "meter"})


def test_the_angle_kind_of_the_unit_table():
    assert [units.kind(u) for u in ("degree", "degrees", "deg", "radian", "radians", "rad")] == ["angle"] * 6
    assert units.factor("degree", "deg") == 1
    assert units.factor("radian", "degree") == pytest.approx(180 / math.pi)
    with pytest.raises(ValueError, match="cannot convert"):
        units.factor("degree", "meter")


@pytest.mark.parametrize(("attrs", "unit"), [
    ({"proj:code": "EPSG:32733"}, "meter"),
    ({"proj:code": "EPSG:3035"}, "meter"),
    ({"proj:code": None, "proj:wkt2": 'GEOGCRS["WGS 84", CS[ellipsoidal, 2], ANGLEUNIT["degree", 0.0174532925199433]]'},
     "degree"),
    ({"proj:code": None, "proj:projjson": {"type": "ProjectedCRS", "coordinate_system": {
        "axis": [{"name": "Easting", "unit": "metre"}, {"name": "Northing", "unit": "metre"}]}}}, "meter"),
])
def test_units_from_proj(attrs, unit):
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        assert _degrees(attrs).units == (unit, unit)


def test_a_crs_whose_unit_cannot_be_told_warns_and_names_base_units():
    with pytest.warns(wa.MetadataWarning, match="base_units="):
        meta = _degrees({"proj:code": "EPSG:27700"})
    assert meta.units == ("", "") and meta.placed_by == "spatial"


def test_a_transform_type_other_than_affine_warns_and_places_nothing():
    with pytest.warns(wa.MetadataWarning, match="spatial:transform_type.*'projective'"):
        meta = _degrees({"spatial:transform_type": "projective"})
    assert meta.placed_by is None


# ---------------------------------------------------------------- vol.crs, and WKT1 as a CF crs_wkt holds it

UTM_30N_WKT1 = (
    'PROJCS["WGS 84 / UTM zone 30N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,'
    'AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],'
    'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],'
    'PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-3],'
    'PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],'
    'UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],'
    'AUTHORITY["EPSG","32630"]]')
WGS84_WKT1 = (
    'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],'
    'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],'
    'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],'
    'AUTHORITY["EPSG","4326"]]')


def test_vol_crs_is_the_zone_groups_proj_object_as_stored(zone):
    vol = wa.open(str(zone))
    assert vol.crs == {"proj:code": "EPSG:32630"} and type(vol.crs) is dict
    with pytest.raises(AttributeError):
        vol.crs = None  # read-only


def test_vol_crs_of_an_array_whose_own_attributes_place_it_is_its_own_proj_object_not_its_groups():
    meta = _degrees({"proj:code": None, "proj:wkt2": WGS84_WKT1})
    assert meta.placed_by == "spatial"
    assert meta.crs == {"proj:code": None, "proj:wkt2": WGS84_WKT1}


def test_vol_crs_is_none_for_an_array_the_spatial_rule_did_not_place(tmp_path):
    with pytest.warns(wa.MetadataWarning, match="no unit"):  # the coordinate array opens unplaced
        vol = wa.open(str(build_store(tmp_path, ZONE) / "zone.zarr" / "easting"))
    assert vol.meta.placed_by is None and vol.crs is None
    path = tmp_path / "ome.zarr" / "s0"
    wa.create(str(path), shape=(2, 2), dtype="uint8", voxel_size=1, translation=0, chunks=2, axes=("y", "x"),
              group_attrs={"proj:code": "EPSG:32630"})
    assert wa.open(str(path)).crs is None


@pytest.mark.parametrize(("wkt", "unit"), [(UTM_30N_WKT1, "meter"), (WGS84_WKT1, "degree")])
def test_wkt1_as_a_cf_crs_wkt_holds_it_gives_its_last_top_level_unit(wkt, unit):
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        assert _degrees({"proj:code": None, "proj:wkt2": wkt}).units == (unit, unit)
        assert crs_unit({"proj:wkt2": wkt}, "") == unit


# ---------------------------------------------------------------- signed steps through grids


@pytest.mark.parametrize("units_asked", [None, "nanometer"])
def test_grid_from_meta_of_the_north_up_zone_answers_as_the_zone_handle(zone, units_asked):
    vol = wa.open(str(zone), units=units_asked)
    grid = wa.Grid.from_meta(vol.grid)
    assert grid.spatial == vol.spatial == (0, 1) and grid.voxel_size == vol.voxel_size
    assert grid.voxel_size[0] < 0
    assert grid.box == vol.box and grid.corner == vol.corner and grid.translation == vol.translation
    scale = 1 if units_asked is None else 1e9
    for north, east in [((6199971, 6199990), (500012, 500031)), ((6199960, 6200000), (500000, 500060)),
                        ((6199985, 6199995.0), (500005, 500015))]:
        box = wa.Box((north[0] * scale, east[0] * scale), (north[1] * scale, east[1] * scale))
        assert grid.index_box(box) == vol.index_box(box)
    for begin, end in [((0, 0, 0), (4, 6, 3)), ((1, 2, 0), (3, 5, 1))]:
        assert grid.chunks_covering(begin, end) == vol.chunks_covering(begin, end)
    assert list(grid.blocks((2, 3, 3))) == list(vol.blocks((2, 3, 3)))
    assert pickle.loads(pickle.dumps(grid)) == grid


def test_a_north_up_grid_given_by_its_facts_has_a_min_max_box_and_refuses_a_zero_step():
    grid = wa.Grid((4, 6), (-10, 10), (6199995, 500005), axes=("y", "x"), units="meter", chunks=(2, 3))
    assert grid.box == wa.Box((6199960.0, 500000.0), (6200000.0, 500060.0))
    assert grid.corner == (6200000.0, 500000.0)
    assert grid.index_box(wa.Box((6199971, 500012), (6199990, 500031))) == ((1, 1), (3, 3))
    assert grid.chunks_covering((1, 1), (3, 3)) == [(0, 0), (1, 0)]
    with pytest.raises(ValueError, match="voxel_size is .*not 0"):
        wa.Grid((4, 6), (0, 10), 0, axes=("y", "x"))


def test_grid_from_meta_at_a_magnitude_keeps_the_north_up_direction(zone):
    vol = wa.open(str(zone), units="meter")
    grid = wa.Grid.from_meta(vol.grid, voxel_size=20)
    assert grid.voxel_size == (-20.0, 20.0) and grid.shape[:2] == (2, 3)
    assert grid.box == vol.box
    assert np.array_equal(vol.read_onto(grid, method="nearest").shape, (2, 3, 3))


def test_read_onto_another_north_up_handle_at_the_same_voxel_size_takes_the_voxel_whose_centre_lies_in_each(
        tmp_path):
    stored = arange_values((4, 6, 3), "int8")
    source = wa.open(str(build_store(tmp_path / "a", ZONE) / "zone.zarr" / "embeddings"), units="meter")
    shifted = dict(ZONE, store=dict(ZONE["store"], arrays=ZONE["store"]["arrays"][:1],  # no easting array to check
                                    groups=[dict(ZONE["store"]["groups"][0], attrs={
        **ZONE["store"]["groups"][0]["attrs"], "spatial:transform": [10, 0, 500013, 0, -10, 6199986]})]))
    other = wa.open(str(build_store(tmp_path / "b", shifted) / "zone.zarr" / "embeddings"), units="meter")
    got = source.read_onto(other, padding=0)
    # other's voxel (i, j) spans northing [6199976 - 10 i, 6199986 - 10 i), easting [500013 + 10 j, ...): the
    # stored centre inside it is row i + 1, column j + 1 (6199985 - 10 i, 500015 + 10 j)
    want = np.zeros((4, 6, 3), stored.dtype)
    want[:3, :5] = stored[1:, 1:]
    assert np.array_equal(got, want)


def test_grid_accepting_a_negative_step_does_not_let_create_write_one(tmp_path):
    grid = wa.Grid((4, 6), (-10, 10), (6199995, 500005), axes=("y", "x"), units="meter", chunks=(2, 3))
    with pytest.raises(ValueError, match=r"voxel_size is \(-10\.0, 10\.0\); axis 'y' has a negative step, and "
                                         "OME-NGFF scales are positive"):
        wa.create(str(tmp_path / "v.zarr" / "s0"), grid=grid, dtype="uint8")
    assert not (tmp_path / "v.zarr").exists()


def test_create_of_a_negative_voxel_size_raises_naming_the_axis_and_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match=r"voxel_size is \(4, 4, -4\); axis 'x' has a negative step"):
        wa.create(str(tmp_path / "v.zarr" / "s0"), (2, 2, 2), "uint8", (4, 4, -4), 0, chunks=2)
    assert not (tmp_path / "v.zarr").exists()
