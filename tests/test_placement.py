"""Placement (spec section 5 "Placement:", Convention 1): one cube stored every way sits in one place.

The cube has voxels (8, 4, 2) nm in (z, y, x), voxel 0's corner at (16, 8, 4) and so its centre, the translation, at
(20, 10, 5). Each way below writes that placement in its own format's words, x-first where the format is, with a
corner where the format stores one; every store holds the same ``arange_values``, so the same world box must read
the same bytes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS, arange_values, bigstitcher_n5

SHAPE, SIZE, CORNER = (6, 7, 9), (8.0, 4.0, 2.0), (16.0, 8.0, 4.0)
# (20, 10, 5), written out by hand in each way
TRANSLATION = tuple(c + s / 2 for c, s in zip(CORNER, SIZE, strict=True))
VALUES = arange_values(SHAPE, "uint16")
NM = ["nm"] * 3


def _array(path: str, fmt_attrs: dict | None = None, document: dict | None = None) -> dict:
    return {"path": path, "shape": list(SHAPE), "dtype": "uint16", "chunks": [3, 4, 5],
            "attrs": fmt_attrs or {}, "document": document or {}}


def _ome(version: str) -> dict:
    multiscale = {"axes": [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"],
                  "datasets": [{"path": "s0", "coordinateTransformations": [
                      {"type": "scale", "scale": [8, 4, 2]}, {"type": "translation", "translation": [20, 10, 5]}]}]}
    return {"ome": {"version": "0.5", "multiscales": [multiscale]}} if version == "0.5" else {
        "multiscales": [{"version": "0.4", **multiscale}]}


def ome_zarr3(root):
    GROUP_BUILDERS["zarr3"](root, {"path": "cube.zarr", "attrs": _ome("0.5")})
    BUILDERS["zarr3"](root, _array("cube.zarr/s0", document={"dimension_names": ["z", "y", "x"]}))
    return root / "cube.zarr" / "s0"


def ome_zarr2(root):
    GROUP_BUILDERS["zarr2"](root, {"path": "cube.zarr", "attrs": _ome("0.4")})
    BUILDERS["zarr2"](root, _array("cube.zarr/s0"))
    return root / "cube.zarr" / "s0"


def n5_resolution_offset(root):
    # N5's resolution and offset are x-first; the offset is voxel 0's corner
    BUILDERS["n5"](root, _array("cube.n5/raw", {"resolution": [2, 4, 8], "offset": [4, 8, 16], "units": NM}))
    return root / "cube.n5" / "raw"


def n5_funlib_voxel_size_offset(root):
    # funlib's voxel_size and offset, as zarr-python's N5 store leaves them: C order, the offset a corner
    BUILDERS["n5"](root, _array("cube.n5/raw", {"voxel_size": [8, 4, 2], "offset": [16, 8, 4], "units": NM}))
    return root / "cube.n5" / "raw"


def n5_cosem(root):
    # COSEM's transform: C order (no "ordering"), translate is voxel 0's centre
    transform = {"axes": ["z", "y", "x"], "scale": [8, 4, 2], "translate": [20, 10, 5], "units": NM}
    BUILDERS["n5"](root, _array("cube.n5/raw", {"transform": transform}))
    return root / "cube.n5" / "raw"


def precomputed(root):
    # x-first resolution; voxel_offset is voxel 0's corner in voxels: 4 / 2, 8 / 4, 16 / 8
    scale = {"key": "s0", "size": list(SHAPE[::-1]), "resolution": [2, 4, 8], "voxel_offset": [2, 2, 2],
             "chunk_sizes": [[5, 4, 3]], "encoding": "raw"}
    info = {"@type": "neuroglancer_multiscale_volume", "type": "image", "data_type": "uint16", "num_channels": 1,
            "scales": [scale]}
    BUILDERS["precomputed"](root, {"path": "cube", "info": info})
    return root / "cube" / "s0"


WAYS = {f.__name__: f for f in (ome_zarr3, ome_zarr2, n5_resolution_offset, n5_funlib_voxel_size_offset, n5_cosem,
                                  precomputed)}
BOXES = [
    (CORNER, tuple(c + n * s for c, n, s in zip(CORNER, SHAPE, SIZE, strict=True))),  # the cube's own extent
    ((24.0, 12.0, 6.0), (48.0, 28.0, 20.0)),  # voxel corners: z 1:4, y 1:5, x 1:8
    ((1.0, -3.3, 9.9), (70.7, 20.05, 31.0)),  # aligned to nothing, reaching past the data on z and y
]


@pytest.fixture(params=sorted(WAYS))
def way(request, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)  # every way states its units; none should warn
        return request.param, wa.open(WAYS[request.param](tmp_path))


def test_the_cube_stored_every_way_reads_back_the_same_voxel_size_and_translation(way):
    name, vol = way
    assert vol.voxel_size == pytest.approx(SIZE, rel=1e-9), name
    assert np.all(np.abs(np.subtract(vol.translation, TRANSLATION)) <= 0.1 * np.asarray(SIZE)), (name, vol.translation)
    assert vol.corner == pytest.approx(CORNER) and vol.shape == SHAPE


def test_the_cube_stored_every_way_reads_its_stored_bytes_for_a_corner_aligned_box(way):
    _, vol = way
    np.testing.assert_array_equal(vol.read(BOXES[0]), VALUES)
    np.testing.assert_array_equal(vol.read(BOXES[1]), VALUES[1:4, 1:5, 1:8])


@pytest.mark.parametrize("box", BOXES, ids=["extent", "corners", "unaligned"])
def test_the_cube_stored_every_way_reads_the_same_bytes_for_the_same_world_box(tmp_path, box):
    reads = {}
    for name, build in WAYS.items():
        (tmp_path / name).mkdir()
        reads[name] = wa.open(build(tmp_path / name)).read(box, padding=0)
    reference = reads.pop("ome_zarr3")
    for name, got in reads.items():
        np.testing.assert_array_equal(got, reference, err_msg=name)


def _pyramids(root):
    """The same two-level pyramid as N5 with downsamplingFactors and as OME, s0's corner at the origin in both."""
    GROUP_BUILDERS["n5"](root, {"path": "p.n5", "attrs": {"pixelResolution": {"dimensions": [2, 4, 8], "unit": "nm"},
                                                         "scales": [[1, 1, 1], [2, 2, 2]]}})
    levels = (("s0", SHAPE, [1, 1, 1], (8, 4, 2), (4, 2, 1)), ("s1", (3, 4, 5), [2, 2, 2], (16, 8, 4), (8, 4, 2)))
    for name, shape, factors, _, _ in levels:
        BUILDERS["n5"](root, {"path": f"p.n5/{name}", "shape": list(shape), "dtype": "uint16", "chunks": [2, 2, 2],
                              "attrs": {"downsamplingFactors": factors}})
    # OME level 1 by hand: voxel 16 x 8 x 4 whose corner is at the origin, so centred half of it above: (8, 4, 2)
    multiscale = {"axes": [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"],
                  "datasets": [{"path": name, "coordinateTransformations": [
                      {"type": "scale", "scale": list(scale)}, {"type": "translation", "translation": list(shift)}]}
                      for name, _, _, scale, shift in levels]}
    GROUP_BUILDERS["zarr3"](root, {"path": "p.zarr", "attrs": {"ome": {"version": "0.5", "multiscales": [multiscale]}}})
    for name, shape, _, _, _ in levels:
        BUILDERS["zarr3"](root, {"path": f"p.zarr/{name}", "shape": list(shape), "dtype": "uint16",
                                 "chunks": [2, 2, 2]})
    return root / "p.n5", root / "p.zarr"


def test_an_n5_level_1_with_downsampling_factors_sits_where_the_equivalent_ome_level_1_does(tmp_path):
    n5_group, ome_group = _pyramids(tmp_path)
    n5 = [wa.open(n5_group, level=level) for level in (0, 1)]
    ome = [wa.open(ome_group, level=level) for level in (0, 1)]
    assert n5[0].corner == pytest.approx((0, 0, 0)) and ome[0].corner == pytest.approx((0, 0, 0))
    assert n5[1].voxel_size == pytest.approx(ome[1].voxel_size) == (16, 8, 4)
    gap = np.abs(np.subtract(n5[1].translation, ome[1].translation))
    assert np.all(gap <= 0.1 * np.asarray(ome[1].voxel_size)), (n5[1].translation, ome[1].translation)
    assert n5[1].box == ome[1].box
    np.testing.assert_array_equal(n5[1].read(((0, 8, 4), (48, 24, 20))), ome[1].read(((0, 8, 4), (48, 24, 20))))


# ---------------------------------------------------------------- placement rules named in section 5 "Reads:"


@pytest.mark.parametrize("fmt,key", [("zarr2", "voxel_size"), ("zarr2", "resolution"), ("n5", "voxel_size")])
def test_funlib_keys_on_the_parent_group_place_an_attribute_less_array(tmp_path, fmt, key):
    GROUP_BUILDERS[fmt](tmp_path, {"path": "vol", "attrs": {key: [8, 4, 2], "offset": [16, 8, 4], "units": NM}})
    BUILDERS[fmt](tmp_path, _array("vol/raw"))
    vol = wa.open(tmp_path / "vol" / "raw")
    assert (vol.meta.placed_by, vol.voxel_size, vol.translation) == ("funlib", SIZE, TRANSLATION)


def test_funlib_voxel_size_and_offset_on_an_n5_array_are_in_c_order(tmp_path):
    vol = wa.open(n5_funlib_voxel_size_offset(tmp_path))
    assert (vol.meta.placed_by, vol.voxel_size, vol.translation, vol.shape) == ("funlib", SIZE, TRANSLATION, SHAPE)
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), SHAPE), VALUES)


BASE = {"base_voxel_size": (1.0, 0.4, 0.4), "base_units": "micrometer"}  # level 0 is 1000 x 400 x 400 nm


def test_base_voxel_size_rescales_every_level_of_a_bigstitcher_style_n5_pyramid(tmp_path):
    group = bigstitcher_n5(tmp_path)
    # factors (1, 2, 2) and (2, 4, 4) in C order; every level's corner at the origin, so translation f / 2 * base
    for level, size in (("s1", (1000, 800, 800)), ("s2", (2000, 1600, 1600))):
        vol = wa.open(group, level=level, **BASE)
        assert vol.voxel_size == pytest.approx(size) and vol.translation == pytest.approx([s / 2 for s in size])



@pytest.mark.parametrize("level", ["s1", "s2"])
def test_base_voxel_size_on_a_level_path_scales_from_the_groups_first_level(tmp_path, level):
    # the group lists no levels (s0, s1, s2 are found by probing): level 0 is still s0, not the array opened
    group = bigstitcher_n5(tmp_path)
    by_path, by_level = wa.open(group / level, **BASE), wa.open(group, level=level, **BASE)
    assert by_path.voxel_size == pytest.approx(by_level.voxel_size)
    assert by_path.translation == pytest.approx(by_level.translation)


def test_base_voxel_size_on_an_array_that_is_no_level_of_its_group_scales_from_that_array(tmp_path):
    group = bigstitcher_n5(tmp_path)  # levels s0, s1, s2; "raw" beside them is none of them
    BUILDERS["n5"](tmp_path, {"path": "bdv.n5/raw", "shape": [4, 4, 4], "dtype": "uint8", "chunks": [4, 4, 4],
                              "attrs": {"downsamplingFactors": [2, 2, 1]}})
    vol = wa.open(group / "raw", **BASE)
    assert vol.voxel_size == pytest.approx((1000, 400, 400))
