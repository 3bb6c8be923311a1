"""A copy of a north-up raster keeps its signed steps: OME-NGFF scales are positive, so the target is written placed
by its own zarr-conventions ``spatial:`` attributes (and the source's ``proj:``), in the CRS's units."""

from __future__ import annotations

import json

import numpy as np
import pytest

import worldarray as wa
from conftest import DEGREE_GRID, UTM_ZONE, geospatial_group

BOX = wa.Box((6199950, 500010), (6199990, 500060))  # (northing, easting) in metres


@pytest.fixture
def zone(tmp_path):
    return wa.open(str(geospatial_group(tmp_path, "zone.zarr", UTM_ZONE, (6, 8, 3), ("northing", "easting", "band"))),
                   units="meter")


def test_a_copy_of_a_north_up_box_keeps_the_negative_step_and_the_box_voxels(tmp_path, zone):
    out = wa.copy(zone, str(tmp_path / "crop.zarr" / "s0"), box=BOX)
    lo, _ = zone.index_box(BOX)
    assert out.voxel_size == zone.voxel_size and out.voxel_size[0] < 0
    assert out.translation == tuple(t + i * s for t, i, s in zip(zone.translation, lo, zone.voxel_size, strict=True))
    assert np.array_equal(out.read(out.box), zone.read(BOX))


def test_the_north_up_target_is_placed_by_spatial_attributes_in_the_crs_units_with_the_sources_proj(tmp_path, zone):
    out = wa.copy(zone.reopen(units="nanometer"), str(tmp_path / "crop.zarr" / "s0"),
                  box=wa.Box(tuple(v * 1e9 for v in BOX.begin), tuple(v * 1e9 for v in BOX.end)))
    attrs = json.loads((tmp_path / "crop.zarr" / "s0" / "zarr.json").read_text())["attributes"]
    assert attrs["spatial:dimensions"] == ["northing", "easting"] and attrs["proj:code"] == "EPSG:32630"
    corner = wa.open(str(tmp_path / "crop.zarr" / "s0"), units="meter").corner
    np.testing.assert_allclose(attrs["spatial:transform"], [10, 0, corner[1], 0, -10, corner[0]], rtol=1e-12)
    assert out.meta.placed_by == "spatial" and "multiscales" not in json.loads(
        (tmp_path / "crop.zarr" / "zarr.json").read_text())["attributes"]


@pytest.mark.parametrize("method", ["nearest", "linear"])
def test_a_resampled_north_up_copy_equals_the_resampled_read_and_keeps_its_direction(tmp_path, zone, method):
    out = wa.copy(zone, str(tmp_path / "r.zarr" / "s0"), box=BOX, voxel_size=20, method=method)
    assert out.voxel_size == (-20.0, 20.0)
    assert np.array_equal(out.read(out.box), zone.read(BOX, voxel_size=20, method=method))


def test_a_copy_of_a_degree_grid_stays_in_degrees(tmp_path):
    grid = wa.open(str(geospatial_group(tmp_path, "deg.zarr", DEGREE_GRID, (6, 8), ("lat", "lon"))))
    box = ((87, -179), (90, -177))
    out = wa.copy(grid, str(tmp_path / "d.zarr" / "s0"), box=box)
    assert out.meta.units == ("degree", "degree") and out.crs == {"proj:code": "EPSG:4326"}
    assert np.array_equal(out.read(out.box), grid.read(box))


def test_resuming_onto_a_north_up_target_placed_elsewhere_raises_naming_the_transform(tmp_path, zone):
    wa.copy(zone, str(tmp_path / "crop.zarr" / "s0"), box=BOX)
    moved = wa.Box((6199950, 500010), (6199980, 500060))  # one row less at the top: another corner
    with pytest.raises(ValueError, match=r"shape: found .*spatial:transform"):
        wa.copy(zone, str(tmp_path / "crop.zarr" / "s0"), box=moved, exists="resume")
    again = wa.copy(zone, str(tmp_path / "crop.zarr" / "s0"), box=BOX, exists="resume")
    assert np.array_equal(again.read(again.box), zone.read(BOX))


def test_create_still_refuses_a_negative_voxel_size(tmp_path):
    with pytest.raises(ValueError, match="negative step"):
        wa.create(str(tmp_path / "n.zarr" / "s0"), (4, 4), "uint8", (-10, 10), (0, 0), axes=("y", "x"), chunks=4)
