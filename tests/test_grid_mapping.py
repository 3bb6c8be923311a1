"""A CF ``grid_mapping`` variable with a GDAL ``GeoTransform`` places the arrays that name it, as rioxarray writes it.

The stores are rioxarray 0.19's own documents (tests/fixtures/rioxarray), their chunks written with zarr-python; the
oracle for reads is numpy indexing by the voxels whose centres (translation + i * voxel_size) lie in the box.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from conftest import RIOXARRAY, arange_values, rioxarray_store
from worldarray.grid_mapping import geo_transform, mapping_names
from worldarray.metadata import Document, Source, parse

PLACED_2D = ["v2_consolidated", "v3_consolidated", "v3_unconsolidated", "v3_nocoords"]
BAND_Y_X = ["v2_band_y_x", "v3_band_y_x"]
UTM_WKT = json.loads((RIOXARRAY / "v3_consolidated" / "spatial_ref" / "zarr.json").read_text())["attributes"]["crs_wkt"]


def _data_name(case: str) -> str:
    return "bands" if "band" in case else "elev"


def _open(root: Path, case: str, **kwargs) -> wa.WorldArray:
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        return wa.open(str(rioxarray_store(root, case) / _data_name(case)), units=None, **kwargs)


def _attributes_path(store: Path, name: str) -> Path:
    return store / name / (".zattrs" if (store / name / ".zattrs").exists() else "zarr.json")


def _edit_mapping(store: Path, change: dict) -> None:
    """Change the grid-mapping variable's attributes in its own document and in the root's consolidated copy."""
    for path in (store / "spatial_ref" / ".zattrs", store / "spatial_ref" / "zarr.json", store / "zarr.json"):
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        if path.parent.name == "spatial_ref":
            target = doc if path.name == ".zattrs" else doc["attributes"]
        elif "consolidated_metadata" in doc:
            target = doc["consolidated_metadata"]["metadata"]["spatial_ref"]["attributes"]
        else:
            continue
        target.update(change)
        path.write_text(json.dumps(doc))


def _source(mapping_attrs: dict, grid_mapping: str = "spatial_ref", names=("y", "x"), shape=(6, 8)) -> Source:
    """A zarr v3 array naming ``grid_mapping`` beside a grid-mapping variable of ``mapping_attrs``, as plain dicts."""
    array = {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": "float32",
             "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shape)}},
             "dimension_names": list(names), "attributes": {"grid_mapping": grid_mapping}}
    own = Document("t.zarr/elev", "t.zarr/elev/zarr.json", array["attributes"])
    related = {"spatial_ref": Document("t.zarr/spatial_ref", "t.zarr/spatial_ref/zarr.json", mapping_attrs)}
    return Source("zarr3", own.path, array, own.url, own, related=related)


@pytest.mark.parametrize("case", PLACED_2D)
def test_a_rioxarray_store_opens_north_up_at_its_geotransform(tmp_path, case):
    vol = _open(tmp_path, case)
    assert vol.meta.placed_by == "grid_mapping"
    assert vol.voxel_size == (-10.0, 10.0) and vol.translation == (6199995.0, 500005.0)
    assert vol.meta.units == ("meter", "meter") and vol.corner == (6200000.0, 500000.0)


@pytest.mark.parametrize("case", BAND_Y_X)
def test_the_band_axis_of_a_rioxarray_band_y_x_store_is_not_spatial(tmp_path, case):
    meta = _open(tmp_path, case).meta
    assert meta.spatial == (1, 2) and meta.axes == ("band", "y", "x")
    assert meta.voxel_size == (1.0, -10.0, 10.0) and meta.translation == (0.0, 6199995.0, 500005.0)
    assert meta.units == ("", "meter", "meter")


def test_a_world_box_reads_the_pixels_whose_centres_lie_in_it(tmp_path):
    vol = _open(tmp_path, "v3_consolidated")
    rows = np.flatnonzero((6199995 - 10 * np.arange(6) >= 6199960) & (6199995 - 10 * np.arange(6) < 6199990))
    cols = np.flatnonzero((500005 + 10 * np.arange(8) >= 500012) & (500005 + 10 * np.arange(8) < 500041))
    got = vol.read(wa.Box((6199960, 500012), (6199990, 500041)))
    assert np.array_equal(got, arange_values((6, 8), "float32")[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])


def test_vol_crs_of_a_grid_mapping_store_is_the_grid_mapping_variables_attributes_as_stored(tmp_path):
    vol = _open(tmp_path, "v3_consolidated")
    stored = json.loads((RIOXARRAY / "v3_consolidated" / "spatial_ref" / "zarr.json").read_text())["attributes"]
    assert vol.crs == stored and type(vol.crs) is dict


def test_the_grid_mapping_variable_is_read_from_the_parents_consolidated_copy(tmp_path):
    store = rioxarray_store(tmp_path, "v3_consolidated")
    (store / "spatial_ref" / "zarr.json").unlink()  # only the root's consolidated copy holds it now
    meta = wa.metadata(str(store / "elev"), units=None)
    assert meta.placed_by == "grid_mapping" and meta.translation == (6199995.0, 500005.0)


def test_a_rotated_geotransform_warns_and_places_nothing(tmp_path):
    store = rioxarray_store(tmp_path, "v3_nocoords")
    _edit_mapping(store, {"GeoTransform": "500000.0 10.0 2.0 6200000.0 0.0 -10.0"})
    with pytest.warns(wa.MetadataWarning, match=r"GeoTransform is '500000.0 10.0 2.0 6200000.0 0.0 -10.0', a rotation"):
        vol = wa.open(str(store / "elev"), units=None)
    assert vol.meta.placed_by is None and vol.voxel_size == (1.0, 1.0)


def test_a_malformed_geotransform_raises_naming_the_document_key_and_value(tmp_path):
    store = rioxarray_store(tmp_path, "v2_consolidated")
    _edit_mapping(store, {"GeoTransform": "1 2 3"})
    with pytest.raises(ValueError, match=r"spatial_ref/\.zattrs: GeoTransform is '1 2 3'; expected six finite numbers"):
        wa.open(str(store / "elev"))


def test_spatial_attributes_on_the_array_win_over_its_grid_mapping(tmp_path):
    store = rioxarray_store(tmp_path, "v3_nocoords")
    doc = json.loads((store / "elev" / "zarr.json").read_text())
    doc["attributes"].update({"spatial:dimensions": ["y", "x"], "spatial:transform": [20, 0, 0, 0, -20, 0],
                              "proj:code": "EPSG:32630"})
    (store / "elev" / "zarr.json").write_text(json.dumps(doc))
    assert wa.metadata(str(store / "elev"), units=None).placed_by == "spatial"


def test_the_unit_comes_from_spatial_ref_when_there_is_no_crs_wkt():
    meta = parse(_source({"spatial_ref": UTM_WKT, "GeoTransform": "0 10 0 0 0 -10"}))
    assert meta.units == ("meter", "meter")


def test_a_grid_mapping_variable_with_no_crs_warns_and_leaves_the_unit_empty():
    with pytest.warns(wa.MetadataWarning, match=r"spatial_ref/zarr.json: no CRS \(crs_wkt or spatial_ref\)"):
        meta = parse(_source({"GeoTransform": "0 10 0 0 0 -10"}))
    assert meta.units == ("", "") and meta.voxel_size == (-10.0, 10.0)


def test_a_grid_mapping_naming_no_variable_beside_the_array_places_nothing():
    meta = parse(_source({"GeoTransform": "0 10 0 0 0 -10"}, grid_mapping="missing"))
    assert meta.placed_by is None


def test_a_grid_mapping_variable_without_a_geotransform_places_nothing():
    assert parse(_source({"crs_wkt": UTM_WKT})).placed_by is None


def test_the_extended_grid_mapping_form_names_its_variables_before_the_colons():
    assert mapping_names("spatial_ref: x y crs_b: lat lon", "t/zarr.json") == ("spatial_ref", "crs_b")
    meta = parse(_source({"crs_wkt": UTM_WKT, "GeoTransform": "0 10 0 0 0 -10"}, grid_mapping="spatial_ref: x y"))
    assert meta.placed_by == "grid_mapping"


def test_a_geotransform_step_of_zero_raises_naming_the_document_and_value():
    with pytest.raises(ValueError, match=r"spatial_ref/zarr.json: GeoTransform is '0 0 0 0 0 -10'; expected steps"):
        parse(_source({"crs_wkt": UTM_WKT, "GeoTransform": "0 0 0 0 0 -10"}))


@pytest.mark.parametrize("value", ["1 2 3", "a b c d e f", "1 2 3 4 5 nan", 6, None])
def test_a_geotransform_that_is_not_six_finite_numbers_raises(value):
    with pytest.raises(ValueError, match=r"s/zarr.json: GeoTransform is .*; expected six finite numbers"):
        geo_transform(value, "s/zarr.json")


def test_a_one_dimensional_array_naming_a_grid_mapping_is_not_placed_by_it():
    meta = parse(_source({"crs_wkt": UTM_WKT, "GeoTransform": "0 10 0 0 0 -10"}, names=("x",), shape=(8,)))
    assert meta.placed_by is None
