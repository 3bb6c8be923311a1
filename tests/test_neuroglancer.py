"""A Neuroglancer layer puts every stored voxel where the handle places it, and writes a transform only where
Neuroglancer's own reading of the store differs.

Where Neuroglancer itself puts voxel j is written here by hand, per case, from the table in
``worldarray.neuroglancer``'s docstring (its sources are Neuroglancer's datasources): the lower corner of voxel j at
``corner + j * size`` in Neuroglancer's own numbers (metres, or bare numbers for a unitless dimension). A transform is
checked by applying its matrix to those numbers, as Neuroglancer does: the linear part times the input position over
the output scale, plus the last column (in output coordinates).
"""

from __future__ import annotations

import json
import urllib.parse
import warnings

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, DEGREE_GRID, GROUP_BUILDERS, UTM_ZONE, geospatial_group, ome_pyramid
from worldarray import neuroglancer

NM = 1e-9
# metres or seconds per output unit, as Neuroglancer reads a unit in a layer's JSON (src/util/si_units.ts)
OUTPUT_UNITS = {"": 1.0, "m": 1.0, "nm": NM, "\u00b5m": 1e-6, "um": 1e-6, "s": 1.0, "ms": 1e-3}
J = np.arange(5)


def landed(source: dict, neuroglancer_voxels: dict[str, tuple[float, float]], j=J) -> dict[str, np.ndarray]:
    """Output name (without a local or channel suffix) -> the centre of voxels ``j`` in the output unit, under the
    source's transform, from Neuroglancer's own (corner, size) of each input dimension, in the matrix's column order:
    each voxel's centre in Neuroglancer's input is mapped, so a negative step lands where it points."""
    transform = source["transform"]
    matrix = np.asarray(transform["matrix"], dtype=float)
    outputs = list(transform["outputDimensions"].items())
    names = [name.rstrip("'^") for name, _ in outputs]
    values = np.array([value for _, (value, _) in outputs])
    assert (values > 0).all(), f"Neuroglancer refuses a scale that is not positive: {outputs}"
    scales = values * np.array([OUTPUT_UNITS[unit] for _, (_, unit) in outputs])
    inputs = np.array([[neuroglancer_voxels[n][0] + (i + 0.5) * neuroglancer_voxels[n][1] for n in names] for i in j])
    centres = (inputs @ matrix[:, :-1].T) / scales + matrix[:, -1]  # output coordinates of voxel j's centre
    return {n: centres[:, k] * values[k] for k, n in enumerate(names)}


def assert_places_every_voxel(vol, source, neuroglancer_voxels):
    """Under the transform, voxel j's centre lands at translation + j * voxel_size on every spatial axis."""
    found = landed(source, neuroglancer_voxels)
    for k, i in enumerate(vol.spatial):
        wanted = vol.translation[k] + J * vol.voxel_size[k]
        np.testing.assert_allclose(found[vol.axes[i]], wanted, rtol=1e-9, atol=1e-9)


def assert_neuroglancer_agrees(vol, neuroglancer_voxels, metres_per_unit=NM):
    """Without a transform, Neuroglancer's own corner of voxel j is the handle's, on every spatial axis."""
    for k, i in enumerate(vol.spatial):
        corner, size = neuroglancer_voxels[vol.axes[i]]
        wanted = (vol.corner[k] + J * vol.voxel_size[k]) * metres_per_unit
        np.testing.assert_allclose(corner + J * size, wanted, rtol=1e-9, atol=1e-15)


def quiet_open(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wa.MetadataWarning)
        return wa.open(*args, **kwargs)


# ---------------------------------------------------------------- OME: Neuroglancer reads the group, no transform


def test_an_ome_04_level_names_its_zarr2_group_with_no_transform(tmp_path):
    path = ome_pyramid(tmp_path, "ome.zarr", [("s0", (4, 6, 8), (2, 4, 4), (1, 2, 2)),
                                             ("s1", (2, 3, 4), (4, 8, 8), (2, 4, 4))], fmt="zarr2")
    vol = wa.open(path + "/s1")
    assert vol.neuroglancer_layer(url="https://host/data/ome.zarr/s1") == {
        "type": "image", "source": "zarr2://https://host/data/ome.zarr", "name": "s1"}


def test_an_ome_05_group_with_a_channel_axis_is_read_by_neuroglancer_as_it_stands(tmp_path):
    path = ome_pyramid(tmp_path, "ome.zarr", [("s0", (2, 4, 6, 8), (1, 2, 4, 4), (0, 1, 2, 2))],
                       axes=("c", "z", "y", "x"))
    vol = wa.open(path, level="s0")
    assert neuroglancer.layer(vol, url="gs://bucket/ome.zarr")["source"] == "zarr3://gs://bucket/ome.zarr"
    navigation = neuroglancer.navigation(vol)
    assert list(navigation["dimensions"]) == ["x", "y", "z"]  # c' is local: no global dimension
    assert navigation["dimensions"]["x"] == [pytest.approx(4 * NM), "m"]


def test_a_relabelled_ome_level_names_the_array_with_a_transform_channel_kept_local(tmp_path):
    path = ome_pyramid(tmp_path, "ome.zarr", [("s0", (2, 4, 6, 8), (1, 2, 4, 4), (0, 1, 2, 2))],
                       axes=("c", "z", "y", "x"))
    vol = wa.open(path, level="s0", voxel_size=(4, 8, 8), on_mismatch="relabel")
    source = neuroglancer.layer(vol, url="https://host/ome.zarr")["source"]
    assert source["url"] == "zarr3://https://host/ome.zarr/s0"  # a group transform would depend on the release
    assert source["transform"]["outputDimensions"] == {"c'": [1.0, ""], "z": [4.0, "nm"], "y": [8.0, "nm"],
                                                       "x": [8.0, "nm"]}
    # Neuroglancer reads the lone array (no dimension_units): unitless, voxel j's corner at j
    assert_places_every_voxel(vol, source, {n: (0.0, 1.0) for n in ("c", "z", "y", "x")})


def _series(root):
    """An OME 0.5 (t, c, z, y, x) group: 14 time points 2.5 s apart from 1 s, 8 channels, 4 x 4 x 4 nm voxels."""
    return ome_pyramid(root, "tc.zarr", [("s0", (14, 8, 4, 6, 8), (2.5, 1, 4, 4, 4), (1, 0, 2, 2, 2))],
                       axes=("t", "c", "z", "y", "x"), units=["second", "", "nanometer", "nanometer", "nanometer"])


def test_a_relabelled_ome_layer_keeps_time_and_channel_where_the_plain_layer_puts_them(tmp_path):
    vol = wa.open(_series(tmp_path), level="s0", voxel_size=(8, 8, 8), on_mismatch="relabel")
    source = neuroglancer.layer(vol, url="https://host/tc.zarr")["source"]
    assert source["url"] == "zarr3://https://host/tc.zarr/s0"
    # the lone array: unitless, voxel j's corner at j; Neuroglancer's OME reading centres sample j on its value
    found = landed(source, {n: (0.0, 1.0) for n in ("t", "c", "z", "y", "x")})
    np.testing.assert_allclose(found["t"], 1 + 2.5 * J)
    np.testing.assert_allclose(found["c"], J)
    assert_places_every_voxel(vol, source, {n: (0.0, 1.0) for n in ("t", "c", "z", "y", "x")})


@pytest.mark.parametrize("channel", [0, 2])
def test_a_selected_handles_layer_shows_the_selected_channel(tmp_path, channel):
    vol = wa.open(_series(tmp_path), level="s0", select={"c": channel})
    assert vol.selected == {"c": channel}
    layer = neuroglancer.layer(vol, url="https://host/tc.zarr")
    assert layer["source"] == "zarr3://https://host/tc.zarr"  # c' is local already: the group, no transform
    assert layer["localDimensions"] == {"c'": [1.0, ""]}
    # Neuroglancer's OME reading puts channel j's lower edge at j - 1/2: the position is inside the selected one
    (position,) = layer["localPosition"]
    assert np.floor(position + 0.5) == channel and abs(position - channel) < 0.5


def test_a_selected_time_point_is_made_local_and_held_at_that_sample(tmp_path):
    vol = wa.open(_series(tmp_path), level="s0", select={"t": 3})
    layer = neuroglancer.layer(vol, url="https://host/tc.zarr")
    source = layer["source"]
    assert source["url"] == "zarr3://https://host/tc.zarr/s0"  # a transform makes t local: on the array
    assert list(source["transform"]["outputDimensions"]) == ["t'", "c'", "z", "y", "x"]
    assert layer["localDimensions"] == {"t'": [2.5, "s"], "c'": [1.0, ""]}
    centres = landed(source, {n: (0.0, 1.0) for n in ("t", "c", "z", "y", "x")})
    position_t, position_c = np.multiply(layer["localPosition"], [2.5, 1.0])
    assert position_t == pytest.approx(centres["t"][3])  # time point 3, at its centre
    assert position_c == pytest.approx(4)  # an unpinned local dimension at its middle sample
    assert "t" not in neuroglancer.navigation(vol)["dimensions"]


def test_a_selected_channel_of_a_zarr_array_is_made_local_by_a_transform(tmp_path):
    BUILDERS["zarr3"](tmp_path, {"path": "cz.zarr", "shape": [3, 4, 6, 8], "chunks": [1, 4, 6, 8], "dtype": "uint8",
                                 "document": {"dimension_names": ["c", "z", "y", "x"]}})
    vol = quiet_open(tmp_path / "cz.zarr", select={"c": 1})
    layer = neuroglancer.layer(vol, url="https://host/cz.zarr")
    assert list(layer["source"]["transform"]["outputDimensions"]) == ["c'", "z", "y", "x"]
    (position,) = layer["localPosition"]
    assert np.floor(position) == 1  # the lone array: channel j from j to j + 1


def test_a_handle_with_nothing_selected_holds_no_local_position(tmp_path):
    vol = wa.open(_series(tmp_path), level="s0")
    assert vol.selected == {}
    assert "localPosition" not in neuroglancer.layer(vol, url="https://host/tc.zarr")


def test_a_resample_target_shows_the_stored_voxels_where_they_are_stored(tmp_path):
    path = ome_pyramid(tmp_path, "ome.zarr", [("s0", (4, 6, 8), (2, 4, 4), (1, 2, 2))])
    vol = wa.open(path, level="s0", voxel_size=(4, 8, 8), on_mismatch="resample")
    assert vol.resampled
    assert neuroglancer.layer(vol, url="https://host/ome.zarr")["source"] == "zarr3://https://host/ome.zarr"


# ---------------------------------------------------------------- zarr arrays: attributes Neuroglancer ignores


def test_a_funlib_offset_on_zarr_is_written_as_a_transform(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "fun.zarr", "shape": [4, 6, 8], "chunks": [4, 6, 8], "dtype": "uint8",
                                 "attrs": {"resolution": [40, 4, 4], "offset": [400, 40, 48]}})
    vol = quiet_open(tmp_path / "fun.zarr")
    layer = neuroglancer.layer(vol, url="s3://bucket/fun.zarr")
    source = layer["source"]
    assert source["url"] == "zarr2://s3://bucket/fun.zarr"
    assert source["transform"]["outputDimensions"] == {"z": [40.0, "nm"], "y": [4.0, "nm"], "x": [4.0, "nm"]}
    assert vol.translation == (420.0, 42.0, 50.0)
    assert_places_every_voxel(vol, source, {n: (0.0, 1.0) for n in "zyx"})


def test_a_cosem_transform_on_zarr_is_written_as_a_transform(tmp_path):
    transform = {"axes": ["z", "y", "x"], "scale": [8, 4, 4], "translate": [100, 10, 10], "units": ["nm"] * 3}
    BUILDERS["zarr3"](tmp_path, {"path": "cosem.zarr", "shape": [4, 6, 8], "chunks": [4, 6, 8], "dtype": "uint8",
                                 "attrs": {"transform": transform}})
    vol = wa.open(tmp_path / "cosem.zarr")
    assert vol.meta.placed_by == "cosem"
    source = neuroglancer.layer(vol, url="https://host/cosem.zarr")["source"]
    assert_places_every_voxel(vol, source, {n: (0.0, 1.0) for n in "zyx"})


def test_zarr3_dimension_units_are_read_alike_so_no_transform(tmp_path):
    BUILDERS["zarr3"](tmp_path, {"path": "units.zarr", "shape": [4, 6, 8], "chunks": [4, 6, 8], "dtype": "uint8",
                                 "document": {"dimension_names": ["z", "y", "x"]},
                                 "attrs": {"dimension_units": ["40 nm", "4 nm", "4 nm"]}})
    vol = wa.open(tmp_path / "units.zarr")
    assert vol.meta.placed_by == "dimension_units"
    assert neuroglancer.layer(vol, url="https://host/units.zarr")["source"] == "zarr3://https://host/units.zarr"
    assert_neuroglancer_agrees(vol, {"z": (0.0, 40 * NM), "y": (0.0, 4 * NM), "x": (0.0, 4 * NM)})
    assert neuroglancer.navigation(vol)["dimensions"] == {"x": [pytest.approx(4 * NM), "m"],
                                                          "y": [pytest.approx(4 * NM), "m"],
                                                          "z": [pytest.approx(40 * NM), "m"]}


def test_dimension_units_neuroglancer_cannot_read_are_refused(tmp_path):
    BUILDERS["zarr3"](tmp_path, {"path": "um.zarr", "shape": [4], "chunks": [4], "dtype": "uint8",
                                 "document": {"dimension_names": ["x"]}, "attrs": {"dimension_units": ["4 um"]}})
    vol = wa.open(tmp_path / "um.zarr")
    with pytest.raises(ValueError, match="Neuroglancer refuses it"):
        neuroglancer.layer(vol, url="https://host/um.zarr")


def test_a_plain_zarr_array_with_nothing_is_read_alike(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "plain.zarr", "shape": [2, 4, 6], "chunks": [2, 4, 6], "dtype": "uint8"})
    vol = quiet_open(tmp_path / "plain.zarr")
    assert neuroglancer.layer(vol, url="https://host/plain.zarr")["source"] == "zarr2://https://host/plain.zarr"


# ---------------------------------------------------------------- N5


def _n5_pyramid(root, group_attrs, level_attrs=None):
    GROUP_BUILDERS["n5"](root, {"path": "vol.n5", "attrs": group_attrs})
    for name, shape in (("s0", [4, 8, 8]), ("s1", [2, 4, 4])):
        BUILDERS["n5"](root, {"path": f"vol.n5/{name}", "shape": shape, "chunks": shape, "dtype": "uint8",
                              "attrs": (level_attrs or {}).get(name, {})})
    return root / "vol.n5"


@pytest.mark.parametrize("key", ["downsamplingFactors", "scales"])
def test_an_n5_group_listing_its_factors_is_named_with_no_transform(tmp_path, key):
    path = _n5_pyramid(tmp_path, {key: [[1, 1, 1], [2, 2, 2]], "resolution": [4, 4, 40]})
    vol = quiet_open(path, level="s1")
    assert neuroglancer.layer(vol, url="https://host/vol.n5")["source"] == "n5://https://host/vol.n5"
    # Neuroglancer: voxel j of s1 at f * j * resolution, nanometres by default, x-first
    assert_neuroglancer_agrees(vol, {"x": (0.0, 8 * NM), "y": (0.0, 8 * NM), "z": (0.0, 80 * NM)})


def test_an_n5_offset_is_written_as_a_transform_on_the_group(tmp_path):
    path = _n5_pyramid(tmp_path, {"downsamplingFactors": [[1, 1, 1], [2, 2, 2]],
                                  "pixelResolution": {"dimensions": [4, 4, 40], "unit": "nm"}},
                       {"s1": {"offset": [16, 8, 400]}})
    vol = wa.open(path / "s1")
    source = neuroglancer.layer(vol, url="https://host/vol.n5/s1")["source"]
    assert source["url"] == "n5://https://host/vol.n5"
    assert list(source["transform"]["outputDimensions"]) == ["x", "y", "z"]  # Neuroglancer's x-first order
    assert_places_every_voxel(vol, source, {"x": (0.0, 8 * NM), "y": (0.0, 8 * NM), "z": (0.0, 80 * NM)})


def test_n5_micrometres_are_converted_into_the_handles_nanometres(tmp_path):
    path = _n5_pyramid(tmp_path, {"scales": [[1, 1, 1], [2, 2, 2]], "units": ["um", "um", "um"],
                                  "resolution": [0.004, 0.004, 0.04]}, {"s0": {"offset": [0.02, 0, 0]}})
    vol = wa.open(path, level="s0")
    source = neuroglancer.layer(vol, url="https://host/vol.n5")["source"]
    assert source["transform"]["outputDimensions"]["x"] == [pytest.approx(4.0), "nm"]
    assert_places_every_voxel(vol, source, {"x": (0.0, 4 * NM), "y": (0.0, 4 * NM), "z": (0.0, 40 * NM)})


def _cosem_n5(root, translate):
    """A COSEM N5 array of 40, 4, 4 nm whose transform puts voxel 0's centre at ``translate`` (z, y, x)."""
    transform = {"axes": ["z", "y", "x"], "scale": [40, 4, 4], "translate": translate, "units": ["nm"] * 3}
    BUILDERS["n5"](root, {"path": "c.n5/s0", "shape": [4, 6, 8], "chunks": [4, 6, 8], "dtype": "uint8",
                          "attrs": {"transform": transform,
                                    "pixelResolution": {"dimensions": [4, 4, 40], "unit": "nm"}}})
    return wa.open(root / "c.n5" / "s0")


def test_a_cosem_n5_array_centred_at_half_a_voxel_needs_no_transform(tmp_path):
    vol = _cosem_n5(tmp_path, [20, 2, 2])
    assert neuroglancer.layer(vol, url="gs://b/c.n5/s0")["source"] == "n5://gs://b/c.n5/s0"


def test_a_cosem_n5_array_centred_at_the_origin_is_moved_half_a_voxel(tmp_path):
    vol = _cosem_n5(tmp_path, [0, 0, 0])
    source = neuroglancer.layer(vol, url="gs://b/c.n5/s0")["source"]
    assert source["transform"]["matrix"][0][-1] == pytest.approx(-0.5)
    assert_places_every_voxel(vol, source, {"x": (0.0, 4 * NM), "y": (0.0, 4 * NM), "z": (0.0, 40 * NM)})


# ---------------------------------------------------------------- precomputed


def _precomputed(root):
    info = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [
        {"key": "8_8_8", "size": [8, 6, 4], "resolution": [8, 8, 8], "voxel_offset": [1, 2, 3], "encoding": "raw",
         "chunk_sizes": [[8, 6, 4]]},
        {"key": "16_16_40", "size": [4, 3, 2], "resolution": [16, 16, 40], "voxel_offset": [0, 1, 1],
         "encoding": "raw", "chunk_sizes": [[4, 3, 2]]}]}
    BUILDERS["precomputed"](root, {"path": "pre", "info": info})
    return root / "pre"


def test_a_precomputed_scale_names_the_info_directory_with_no_transform(tmp_path):
    vol = wa.open(_precomputed(tmp_path) / "16_16_40")
    assert neuroglancer.layer(vol, url="https://host/pre/16_16_40")["source"] == "precomputed://https://host/pre"
    # Neuroglancer: (voxel_offset + j) * resolution nanometres
    assert_neuroglancer_agrees(vol, {"x": (0.0, 16 * NM), "y": (16 * NM, 16 * NM), "z": (40 * NM, 40 * NM)})


def test_a_relabelled_precomputed_scale_is_written_as_a_transform_on_the_info_directory(tmp_path):
    vol = wa.open(_precomputed(tmp_path), level="16_16_40", voxel_size=(20, 8, 8), on_mismatch="relabel")
    source = neuroglancer.layer(vol, url="https://host/pre")["source"]
    assert source["url"] == "precomputed://https://host/pre"
    assert_places_every_voxel(vol, source, {"x": (0.0, 16 * NM), "y": (16 * NM, 16 * NM), "z": (40 * NM, 40 * NM)})


def test_a_selected_precomputed_channel_is_made_local_by_a_transform_on_the_info_directory(tmp_path):
    info = {"type": "image", "data_type": "uint8", "num_channels": 3, "scales": [
        {"key": "8_8_8", "size": [8, 6, 4], "resolution": [8, 8, 8], "voxel_offset": [1, 2, 3], "encoding": "raw",
         "chunk_sizes": [[8, 6, 4]]}]}
    BUILDERS["precomputed"](tmp_path, {"path": "pre", "info": info})
    vol = wa.open(tmp_path / "pre" / "8_8_8", select={"c": 2})
    layer = neuroglancer.layer(vol, url="https://host/pre/8_8_8")
    source = layer["source"]
    assert source["url"] == "precomputed://https://host/pre"
    assert list(source["transform"]["outputDimensions"]) == ["x", "y", "z", "c'"]  # Neuroglancer's c^, made local
    (position,) = layer["localPosition"]
    assert np.floor(position) == 2
    assert_places_every_voxel(vol, source, {"x": (8 * NM, 8 * NM), "y": (16 * NM, 8 * NM), "z": (24 * NM, 8 * NM),
                                            "c": (0.0, 1.0)})


# ---------------------------------------------------------------- geospatial stores, signed steps


def _zone(root, units_asked):
    """The north-up UTM zone as an int8 (northing, easting, band) array, opened in ``units_asked``."""
    return wa.open(geospatial_group(root, "zone.zarr", UTM_ZONE, (5, 7, 4), ("northing", "easting", "band")),
                   units=units_asked)


def _degree_grid(root):
    return wa.open(geospatial_group(root, "grid.zarr", DEGREE_GRID, (6, 8), ("lat", "lon")))


def assert_every_pixel_centre_lands_on_coords(vol, source):
    """Under the transform, every stored pixel's centre lands on the handle's ``vol.coords()`` on its spatial axes."""
    centres = landed(source, {n: (0.0, 1.0) for n in vol.meta.axes}, j=np.arange(max(vol.meta.shape)))
    coords = vol.coords()
    for i in vol.spatial:
        n = vol.meta.shape[i]
        np.testing.assert_allclose(centres[vol.axes[i]][:n], coords[i], rtol=1e-12)


@pytest.mark.parametrize(("units_asked", "unit", "scale"), [(None, "m", 10.0), ("nanometer", "nm", 1e10)])
def test_a_north_up_zone_keeps_its_negative_step_in_the_matrix_under_a_positive_scale(tmp_path, units_asked, unit,
                                                                                      scale):
    vol = _zone(tmp_path, units_asked)
    assert vol.meta.placed_by == "spatial" and vol.voxel_size[0] < 0
    source = neuroglancer.layer(vol, url="https://host/zone.zarr/data")["source"]
    assert source["url"] == "zarr3://https://host/zone.zarr/data"
    outputs = source["transform"]["outputDimensions"]
    assert outputs == {"northing": [scale, unit], "easting": [scale, unit], "band": [1.0, ""]}
    assert source["transform"]["matrix"][0][0] < 0 < source["transform"]["matrix"][1][1]
    assert_every_pixel_centre_lands_on_coords(vol, source)


def test_a_zones_band_is_a_plain_unitless_dimension_each_sample_at_its_index(tmp_path):
    vol = _zone(tmp_path, None)
    source = neuroglancer.layer(vol, url="https://host/zone.zarr/data")["source"]
    found = landed(source, {n: (0.0, 1.0) for n in vol.meta.axes})["band"]
    np.testing.assert_allclose(found - 0.5, vol.coords()[2][0] + J)  # sample j from j to j + 1, as zarr reads it


def test_a_degree_grid_is_unitless_in_degree_numbers_its_rows_counting_south(tmp_path):
    vol = _degree_grid(tmp_path)
    assert vol.meta.units == ("degree", "degree")
    source = neuroglancer.layer(vol, url="https://host/grid.zarr/data")["source"]
    assert source["transform"]["outputDimensions"] == {"lat": [0.5, ""], "lon": [0.5, ""]}
    assert_every_pixel_centre_lands_on_coords(vol, source)
    assert vol.coords()[0][0] == 89.75  # the centre of the northmost row


@pytest.mark.parametrize("build", [lambda root: _zone(root, None), _degree_grid], ids=["utm zone", "degree grid"])
def test_the_viewer_of_a_geospatial_store_is_centred_on_its_box(tmp_path, build):
    vol = build(tmp_path)
    found = neuroglancer.navigation(vol)
    shown = {name: position * found["dimensions"][name][0] for name, position in
             zip(found["dimensions"], found["position"], strict=True)}
    for k, i in enumerate(vol.spatial):
        assert shown[vol.axes[i]] == pytest.approx((vol.box.begin[k] + vol.box.end[k]) / 2)
    assert all(scale > 0 for scale, _ in found["dimensions"].values())


# ---------------------------------------------------------------- URLs


def test_a_local_store_without_a_url_says_it_must_be_served(tmp_path):
    path = ome_pyramid(tmp_path, "ome.zarr", [("s0", (2, 2, 2), (1, 1, 1), (0, 0, 0))])
    vol = wa.open(path, level="s0")
    with pytest.raises(ValueError, match="serve the store .* pass url="):
        vol.neuroglancer_layer()


def test_a_url_neuroglancer_cannot_read_is_refused(tmp_path):
    path = ome_pyramid(tmp_path, "ome.zarr", [("s0", (2, 2, 2), (1, 1, 1), (0, 0, 0))])
    with pytest.raises(ValueError, match="expected an http, https, s3 or gs URL"):
        neuroglancer.layer(wa.open(path, level="s0"), url="memory://elsewhere")


@pytest.mark.parametrize("url", ["s3://bucket/a/ome.zarr", "gs://bucket/a/ome.zarr", "http://localhost:8000/ome.zarr",
                                 "https://host:8443/a/ome.zarr/"])
def test_a_memory_store_is_named_at_the_url_it_is_served_at(url):
    wa.create("memory://ng-urls/ome.zarr/s0", (2, 2, 2), "uint8", 4, 2, chunks=2, exists="adopt")
    vol = wa.open("memory://ng-urls/ome.zarr", level="s0")  # the path served at url is the group
    assert neuroglancer.layer(vol, url=url)["source"] == "zarr3://" + url.rstrip("/")


def test_a_remote_handle_names_its_own_path(http_server):
    ome_pyramid(http_server.root, "ome.zarr", [("s0", (2, 2, 2), (1, 1, 1), (0, 0, 0))])
    vol = wa.open(f"{http_server.url}/ome.zarr/s0")
    assert neuroglancer.layer(vol)["source"] == f"zarr3://{http_server.url}/ome.zarr"


# ---------------------------------------------------------------- the viewer URL


def test_a_viewer_url_carries_the_state_quoted_after_the_bang(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "fun.zarr", "shape": [4, 6, 8], "chunks": [4, 6, 8], "dtype": "uint8",
                                 "attrs": {"resolution": [40, 4, 4], "offset": [400, 40, 48]}})
    vol = quiet_open(tmp_path / "fun.zarr")
    layer = neuroglancer.layer(vol, url="https://host/fun.zarr", name="fun & games")
    navigation = neuroglancer.navigation(vol)
    url = neuroglancer.viewer_url(layer, "https://viewer.example/", **navigation)
    head, _, fragment = url.partition("#!")
    assert head == "https://viewer.example/"
    assert json.loads(urllib.parse.unquote(fragment)) == {**navigation, "layers": [layer]}
    assert " " not in url and '"' not in url


def test_the_viewer_is_centred_on_the_volume(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "fun.zarr", "shape": [4, 6, 8], "chunks": [4, 6, 8], "dtype": "uint8",
                                 "attrs": {"resolution": [40, 4, 4], "offset": [400, 40, 48]}})
    vol = quiet_open(tmp_path / "fun.zarr")
    navigation = neuroglancer.navigation(vol)
    assert navigation["dimensions"] == {"x": [4.0, "nm"], "y": [4.0, "nm"], "z": [40.0, "nm"]}
    centre = [(lo + hi) / 2 for lo, hi in zip(vol.box.begin[::-1], vol.box.end[::-1], strict=True)]
    assert np.multiply(navigation["position"], [4, 4, 40]).tolist() == centre


def test_several_layers_go_into_one_state():
    layers = [{"type": "image", "source": "zarr3://gs://b/a.zarr", "name": "a"},
              {"type": "segmentation", "source": "n5://gs://b/b.n5", "name": "b"}]
    fragment = neuroglancer.viewer_url(layers).partition("#!")[2]
    assert json.loads(urllib.parse.unquote(fragment)) == {"layers": layers}
