"""OME-Zarr as other tools write it: ngff-zarr's OME 0.6, ome-zarr-py's OME 0.3 and a bioformats2raw root.

Each store is built document by document as its tool writes it: ngff-zarr puts one ``sequence`` [scale, translation]
per dataset, from ``{"path": ...}`` to ``{"name": "intrinsic"}``, at the paths ``scale0/image``, ``scale1/image``;
ome-zarr-py's 0.3 lists axes by name and datasets by path alone; bioformats2raw writes a root that holds only
``bioformats2raw.layout`` and the images below it. Where the fixture (``fixtures/metadata.json``) pins one level's
placement, these tests pin what a group, a pyramid, a read and an open of a root do with it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS, arange_values

BASE = (0.5, 0.25, 0.25)  # micrometer: ngff-zarr's scale0
LEVELS = (("scale0/image", 1, (8, 8, 8)), ("scale1/image", 2, (4, 4, 4)))


def _sequence(path: str, scale, translation) -> dict:
    return {"input": {"path": path}, "output": {"name": "intrinsic"}, "name": f"{path.split('/')[0]}_to_intrinsic",
            "type": "sequence", "transformations": [{"type": "scale", "scale": list(scale)},
                                                    {"type": "translation", "translation": list(translation)}]}


def ngff_zarr_06(root: Path, version: str = "0.6rc0", scale0=BASE, array_attrs=None) -> Path:
    """An ngff-zarr OME 0.6 image: each factor-f level at f * scale0, its voxel 0 centred (f - 1) / 2 base voxels
    in, as ngff-zarr's downsampling places it; ``array_attrs`` are added to each level's own attributes."""
    axes = [{"name": name, "type": "space", "unit": "micrometer"} for name in "zyx"]
    datasets = [{"path": path, "coordinateTransformations": [_sequence(
        path, [s * f for s in scale0], [s * (f - 1) / 2 for s in scale0])]} for path, f, _ in LEVELS]
    multiscale = {"coordinateSystems": [{"name": "intrinsic", "axes": axes}], "datasets": datasets, "name": "image",
                  "type": "itkwasm_gaussian"}
    GROUP_BUILDERS["zarr3"](root, {"path": "img.ome.zarr", "attrs": {
        "ome": {"version": version, "multiscales": [multiscale]}}})
    for path, _, shape in LEVELS:
        GROUP_BUILDERS["zarr3"](root, {"path": f"img.ome.zarr/{path.split('/')[0]}", "attrs": {}})
        BUILDERS["zarr3"](root, {"path": f"img.ome.zarr/{path}", "shape": list(shape), "dtype": "uint16",
                                 "chunks": [4, 4, 4], "document": {"dimension_names": ["z", "y", "x"]},
                                 "attrs": array_attrs or {}})
    return root / "img.ome.zarr"


def ome_03(root: Path, name: str = "v03.zarr") -> Path:
    """An ome-zarr-py OME 0.3 image: axes by name, datasets by path, no transforms; y and x halved per level."""
    GROUP_BUILDERS["zarr2"](root, {"path": name, "attrs": {"multiscales": [
        {"version": "0.3", "name": "/", "axes": ["z", "y", "x"], "datasets": [{"path": "0"}, {"path": "1"}]}]}})
    for level, shape in (("0", [4, 8, 8]), ("1", [4, 4, 4])):
        BUILDERS["zarr2"](root, {"path": f"{name}/{level}", "shape": shape, "dtype": "uint16",
                                 "chunks": [1, *shape[1:]], "document": {"dimension_separator": "/"}})
    return root / name


def bioformats2raw(root: Path, fmt: str = "zarr2", series=("0", "1")) -> Path:
    """A bioformats2raw root (OME 0.4 in zarr v2, 0.5 in zarr v3): the layout key, the series in OME, and each series
    an OME group of one (t, c, z, y, x) level."""
    ome = (lambda attrs: {"ome": {"version": "0.5", **attrs}}) if fmt == "zarr3" else (lambda attrs: attrs)
    GROUP_BUILDERS[fmt](root, {"path": "bf.zarr", "attrs": ome({"bioformats2raw.layout": 3})})
    GROUP_BUILDERS[fmt](root, {"path": "bf.zarr/OME", "attrs": ome({"series": list(series)})})
    axes = [{"name": "t", "type": "time"}, {"name": "c", "type": "channel"},
            *({"name": name, "type": "space", "unit": "micrometer"} for name in "zyx")]
    for image in series:
        multiscale = {"axes": axes, "datasets": [
            {"path": "0", "coordinateTransformations": [{"scale": [1.0, 1.0, 0.5, 0.25, 0.25], "type": "scale"}]}]}
        attrs = ome({"multiscales": [multiscale]}) if fmt == "zarr3" else {"multiscales": [
            {**multiscale, "version": "0.4"}]}
        GROUP_BUILDERS[fmt](root, {"path": f"bf.zarr/{image}", "attrs": attrs})
        BUILDERS[fmt](root, {"path": f"bf.zarr/{image}/0", "shape": [1, 1, 2, 3, 4], "dtype": "uint16",
                             "chunks": [1, 1, 1, 3, 4]})
    return root / "bf.zarr"


def _ours(caught, text: str) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, wa.MetadataWarning) and text in str(w.message)]


# ---------------------------------------------------------------- ngff-zarr, OME 0.6


def test_an_ngff_zarr_06_level_opens_by_group_and_position(tmp_path):
    vol = wa.open(ngff_zarr_06(tmp_path), level=1, units="micrometer")
    assert vol.level_name == "scale1/image"
    assert vol.voxel_size == pytest.approx((1.0, 0.5, 0.5))
    assert vol.translation == pytest.approx((0.25, 0.125, 0.125))
    assert vol.axes == ("z", "y", "x")


@pytest.mark.parametrize("version", ["0.6.dev4", "0.6rc0", "0.6"])
def test_every_06_version_tag_ngff_zarr_has_written_reads_alike(tmp_path, version):
    vol = wa.open(ngff_zarr_06(tmp_path, version=version), level=0, units="micrometer")
    assert vol.voxel_size == pytest.approx(BASE)


def test_an_ngff_zarr_06_pyramid_lists_each_levels_voxel_size(tmp_path):
    pyramid = wa.open_pyramid(ngff_zarr_06(tmp_path))
    assert pyramid.names == ("scale0/image", "scale1/image")
    assert pyramid.voxel_sizes() == [pytest.approx((500.0, 250.0, 250.0)), pytest.approx((1000.0, 500.0, 500.0))]
    assert pyramid.translations()[1] == pytest.approx((250.0, 125.0, 125.0))


def test_a_voxel_size_picks_the_ngff_zarr_06_level_at_it(tmp_path):
    vol = wa.open(ngff_zarr_06(tmp_path), voxel_size=(1000.0, 500.0, 500.0))
    assert vol.level_name == "scale1/image"


def test_a_world_box_of_an_ngff_zarr_06_level_reads_the_voxels_whose_centres_it_holds(tmp_path):
    vol = wa.open(ngff_zarr_06(tmp_path), level=1)
    size = np.asarray(BASE) * 2 * 1000  # nanometres, as the store was written
    corner = np.asarray(BASE) * (2 - 1) / 2 * 1000 - size / 2  # voxel 0's centre less half a voxel
    # edges 0.1 voxel below centres, so a translation off by a quarter voxel reads other voxels
    data = vol.read((tuple(corner + size * (1.4, 1.4, 2.4)), tuple(corner + size * 3.4)))
    np.testing.assert_array_equal(data, arange_values((4, 4, 4), "uint16")[1:3, 1:3, 2:3])


def test_a_group_without_a_level_lists_each_06_levels_scale(tmp_path):
    with pytest.raises(ValueError, match=r"scale1/image \(scale \[1\.0, 0\.5, 0\.5\]\)"):
        wa.open(ngff_zarr_06(tmp_path))


def test_a_06_group_whose_document_places_no_level_lists_its_levels_by_their_own_documents(tmp_path):
    # two scale entries for three axes: the group document places no level, and each level's own attributes do
    group = ngff_zarr_06(tmp_path, scale0=(0.5, 0.25), array_attrs={"dimension_units": ["4 nm"] * 3})
    assert wa.open_pyramid(group).voxel_sizes() == [(4.0, 4.0, 4.0), (4.0, 4.0, 4.0)]


# ---------------------------------------------------------------- ome-zarr-py, OME 0.3


def test_an_ome_03_group_warns_once_however_many_of_its_levels_open(tmp_path):
    group = ome_03(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wa.open(group, level=0)
        wa.open(group, level=1)
        wa.open_pyramid(group).voxel_sizes()
    assert len(_ours(caught, "carries no voxel sizes")) == 1


def test_the_ome_03_warning_names_the_group_and_the_version(tmp_path):
    group = ome_03(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wa.open(group, level=1)
    (message,) = _ours(caught, "carries no voxel sizes")
    assert str(group) in message and "OME-NGFF 0.3" in message


@pytest.mark.parametrize("opening", [lambda group: wa.open(group, level=1),
                                     lambda group: wa.open_pyramid(group).levels[1]], ids=["open", "pyramid"])
def test_the_ome_03_warning_points_at_the_callers_line(tmp_path, opening):
    group = ome_03(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opening(group)
    ours = [w for w in caught if issubclass(w.category, wa.MetadataWarning) and "carries no" in str(w.message)]
    assert [Path(w.filename).name for w in ours] == [Path(__file__).name], [(w.filename, w.lineno) for w in ours]


def test_two_ome_03_groups_warn_once_each(tmp_path):
    groups = ome_03(tmp_path, "a.zarr"), ome_03(tmp_path, "b.zarr")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for group in groups * 2:
            wa.open(group, level=0)
    assert len(_ours(caught, "carries no voxel sizes")) == 2


# ---------------------------------------------------------------- bioformats2raw


@pytest.mark.parametrize("opening", [
    lambda root: wa.open(root), lambda root: wa.open(root, level=0), lambda root: wa.open_pyramid(root),
    lambda root: wa.open_tensorstore(root, level=0)], ids=["open", "open_level_0", "open_pyramid", "open_tensorstore"])
def test_opening_a_bioformats2raw_root_says_to_open_its_first_image(tmp_path, opening):
    root = bioformats2raw(tmp_path)
    with pytest.raises(ValueError, match=rf"bioformats2raw\.layout is 3; .* wa\.open\('{root}/0', level=0\)"):
        opening(root)


def test_the_bioformats2raw_error_lists_the_series_its_ome_group_names(tmp_path):
    with pytest.raises(ValueError, match=r"\(series 0, 1\)"):
        wa.open(bioformats2raw(tmp_path))


def test_a_bioformats2raw_root_in_zarr_v3_is_refused_alike(tmp_path):
    root = bioformats2raw(tmp_path, fmt="zarr3", series=("2",))
    with pytest.raises(ValueError, match=rf"bioformats2raw\.layout is 3; .*\(series 2\).* wa\.open\('{root}/2'"):
        wa.open(root, level=0)


def test_a_level_path_under_a_bioformats2raw_root_still_opens(tmp_path):
    root = bioformats2raw(tmp_path)
    vol = wa.open(root, level="1/0", units="micrometer")
    assert vol.level_path == str(root / "1" / "0")
    assert vol.voxel_size == pytest.approx((0.5, 0.25, 0.25))  # the spatial axes of (t, c, z, y, x)


# ---------------------------------------------------------------- writing into another OME version's group


def test_creating_a_level_in_an_ome_06_group_is_refused_and_writes_nothing(tmp_path):
    root = tmp_path / "six.zarr"
    system = {"name": "intrinsic", "axes": [{"name": a, "type": "space", "unit": "micrometer"} for a in "zyx"]}
    dataset = {"path": "s0", "coordinateTransformations": [{"type": "sequence", "input": "s0", "output": "intrinsic",
                                                           "transformations": [{"type": "scale", "scale": [1, 1, 1]}]}]}
    root.mkdir()
    (root / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {"ome": {
        "version": "0.6", "multiscales": [{"coordinateSystems": [system], "datasets": [dataset]}]}}}))
    before = (root / "zarr.json").read_text()
    with pytest.raises(ValueError, match=r"OME 0\.6 \(coordinateSystems\).*never mixes versions"):
        wa.create(str(root / "s1"), (4, 4, 4), "uint8", 2, 1, chunks=4, units="micrometer")
    assert not (root / "s1").exists() and (root / "zarr.json").read_text() == before


def test_adding_to_an_ome_03_group_is_refused_naming_the_version(tmp_path):
    root = tmp_path / "three.zarr"
    root.mkdir()
    (root / ".zgroup").write_text(json.dumps({"zarr_format": 2}))
    (root / ".zattrs").write_text(json.dumps({"multiscales": [{"version": "0.3", "axes": ["z", "y", "x"],
                                                               "datasets": [{"path": "0"}]}]}))
    with pytest.raises(ValueError, match=r"OME 0\.3; worldarray writes OME 0\.4"):
        wa.create(str(root / "1"), (4, 4, 4), "uint8", 2, 1, chunks=4)
    assert not (root / "1").exists()
