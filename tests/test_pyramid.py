"""Pyramids: levels listed and placed from the group document; and chunk listing by key.

Which level Pyramid.select picks is test_levels'.
"""

import shutil

import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS


def ome_pyramid(root, fmt="zarr3", levels=3, version="0.5"):
    """An OME pyramid of (z, y, x) levels s0.. at 4 * 2**i nm, each corner at the origin."""
    datasets = [{"path": f"s{i}", "coordinateTransformations": [
        {"type": "scale", "scale": [4.0 * 2**i] * 3}, {"type": "translation", "translation": [2.0 * 2**i] * 3}]}
        for i in range(levels)]
    multiscale = {"axes": [{"name": n, "type": "space", "unit": "nanometer"} for n in "zyx"], "datasets": datasets}
    if version == "0.5":
        attrs = {"ome": {"version": version, "multiscales": [multiscale]}}
    else:
        attrs = {"multiscales": [{"version": version, **multiscale}]}
    GROUP_BUILDERS[fmt](root, {"path": "pyr", "attrs": attrs})
    for i in range(levels):
        n = 16 // 2**i
        BUILDERS[fmt](root, {"path": f"pyr/s{i}", "shape": [n, n, n], "chunks": [4, 4, 4], "dtype": "uint8"})
    return root / "pyr"


def test_a_pyramid_lists_its_levels_in_the_group_documents_order(tmp_path):
    pyramid = wa.open_pyramid(ome_pyramid(tmp_path))
    assert pyramid.names == ("s0", "s1", "s2")
    assert len(pyramid) == 3


def test_placements_come_from_the_group_document(tmp_path):
    pyramid = wa.open_pyramid(ome_pyramid(tmp_path))
    assert pyramid.placements() == [
        ("s0", (4.0,) * 3, (2.0,) * 3), ("s1", (8.0,) * 3, (4.0,) * 3), ("s2", (16.0,) * 3, (8.0,) * 3),
    ]
    assert pyramid.voxel_sizes()[1] == (8.0,) * 3
    assert pyramid.translations()[2] == (8.0,) * 3


def test_a_pyramid_opened_by_a_level_path_places_every_level_while_one_array_is_missing(tmp_path):
    group = ome_pyramid(tmp_path)
    shutil.rmtree(group / "s2")
    pyramid = wa.open_pyramid(group / "s0")
    assert pyramid.path == str(group)
    assert pyramid.voxel_sizes() == [(4.0,) * 3, (8.0,) * 3, (16.0,) * 3]
    with pytest.raises(FileNotFoundError, match="level 's2' is listed but its array is missing"):
        pyramid.level_meta("s2")


def test_metas_read_each_level_from_its_documents_in_the_pyramids_units(tmp_path):
    metas = wa.open_pyramid(ome_pyramid(tmp_path), units="micrometer").metas()
    assert [m.shape for m in metas] == [(16,) * 3, (8,) * 3, (4,) * 3]
    assert metas[1].voxel_size == pytest.approx((0.008,) * 3)
    assert metas[1].units == ("micrometer",) * 3


def test_by_name_opens_a_level_once(tmp_path):
    pyramid = wa.open_pyramid(ome_pyramid(tmp_path))
    assert pyramid.by_name("s1") is pyramid.by_name("s1")
    assert [level.level_name for level in pyramid.levels] == ["s0", "s1", "s2"]
    with pytest.raises(ValueError, match="no level 's9'.*s0, s1, s2"):
        pyramid.by_name("s9")


def test_repr_names_the_path_and_every_level_with_its_voxel_size(tmp_path):
    text = repr(wa.open_pyramid(ome_pyramid(tmp_path, levels=2)))
    assert "pyr" in text and "s0 (4, 4, 4)" in text and "s1 (8, 8, 8)" in text


def test_repr_prints_voxel_sizes_without_float_noise(tmp_path):
    wa.create(str(tmp_path / "noise.zarr" / "s0"), (9, 9), "uint8", 0.8, 0.4, chunks=3)
    wa.open_pyramid(str(tmp_path / "noise.zarr"), mode="r+").add_level("s1", factors=3)
    pyramid = wa.open_pyramid(str(tmp_path / "noise.zarr"))
    assert pyramid.voxel_sizes()[1] == (0.8 * 3, 0.8 * 3) and 0.8 * 3 != 2.4  # the float noise a repr must not show
    assert repr(pyramid).endswith("2 levels: s0 (0.8, 0.8), s1 (2.4, 2.4))"), repr(pyramid)


def test_a_group_without_multiscales_is_placed_by_opening_its_levels(tmp_path):
    for i in range(2):
        attrs = {"resolution": [3.0, 3.0], "downsamplingFactors": [2**i, 2**i], "units": ["nm", "nm"]}
        BUILDERS["n5"](tmp_path, {"path": f"bare.n5/s{i}", "shape": [4, 4], "chunks": [2, 2], "dtype": "uint8",
                                  "attrs": attrs})
    pyramid = wa.open_pyramid(tmp_path / "bare.n5")
    assert pyramid.names == ("s0", "s1")
    assert pyramid.voxel_sizes() == [(3.0, 3.0), (6.0, 6.0)]


def test_an_array_no_group_lists_is_not_a_pyramid(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "lone", "shape": [2, 2], "chunks": [2, 2], "dtype": "uint8"})
    with pytest.raises(ValueError, match="no parent multiscales lists"):
        wa.open_pyramid(tmp_path / "lone")


# ---------------------------------------------------------------- chunks present


@pytest.mark.parametrize("fmt,document", [
    ("zarr2", {}), ("zarr2", {"dimension_separator": "/"}), ("zarr3", {}), ("n5", {}),
])
def test_list_chunks_finds_the_stored_chunks_in_c_order(tmp_path, fmt, document):
    BUILDERS[fmt](tmp_path, {"path": "a", "shape": [4, 6, 8], "chunks": [2, 3, 8], "dtype": "uint8",
                             "document": document})
    volume = wa.open(tmp_path / "a", units=None)
    assert volume.list_chunks() == [(z, y, 0) for z in range(2) for y in range(2)]


def test_list_chunks_skips_chunks_that_were_never_written(tmp_path):
    BUILDERS["zarr3"](tmp_path, {"path": "a", "shape": [4, 4], "chunks": [2, 2], "dtype": "uint8"})
    for chunk in ("c/0/1", "c/1/0"):
        (tmp_path / "a" / chunk).unlink()
    assert wa.open(tmp_path / "a", units=None).list_chunks() == [(0, 0), (1, 1)]


def test_list_chunks_on_precomputed_names_voxel_ranges_with_the_offset(tmp_path):
    scale = {"key": "s", "size": [8, 4, 2], "resolution": [4, 4, 4], "voxel_offset": [10, 20, 30],
             "chunk_sizes": [[4, 4, 2]], "encoding": "raw"}
    info = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [scale]}
    BUILDERS["precomputed"](tmp_path, {"path": "img", "info": info})
    assert wa.open(tmp_path / "img", level=0, units=None).list_chunks() == [(0, 0, 0), (0, 0, 1)]


@pytest.mark.parametrize("separator,names", [
    (".", ["0.0", "0.1", "1.0", ".zarray"]), ("/", ["c/0/0", "c/1/1", "zarr.json"]),
])
def test_list_chunk_keys_needs_no_metadata_document(tmp_path, separator, names):
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    expected = sorted(tuple(int(p) for p in n.removeprefix("c/").split(separator)) for n in names if n[-1].isdigit())
    assert wa.list_chunk_keys(tmp_path, separator=separator) == expected
    assert wa.list_chunk_keys(tmp_path, separator=separator, ndim=3) == []


def test_list_chunk_keys_agrees_with_list_chunks(tmp_path):
    BUILDERS["zarr2"](tmp_path, {"path": "a", "shape": [4, 4], "chunks": [2, 2], "dtype": "uint8"})
    assert wa.list_chunk_keys(tmp_path / "a") == wa.open(tmp_path / "a", units=None).list_chunks()


def test_levels_open_when_indexed_so_a_missing_levels_array_raises_only_there(tmp_path):
    group = ome_pyramid(tmp_path)
    shutil.rmtree(group / "s2")
    levels = wa.open_pyramid(group).levels
    assert len(levels) == 3 and levels[0].level_name == "s0" and [v.level_name for v in levels[:2]] == ["s0", "s1"]
    with pytest.raises(ValueError, match="level 's2' names 's2', where there is no array"):
        levels[2]


def test_add_level_units_are_those_of_its_explicit_placement_and_of_the_handle_it_returns(tmp_path):
    wa.create(str(tmp_path / "u.zarr" / "s0"), (8, 8), "uint8", 4.0, 2.0, chunks=4)
    pyramid = wa.open_pyramid(str(tmp_path / "u.zarr"), mode="r+")
    s1 = pyramid.add_level("s1", voxel_size=0.008, translation=0.004, shape=(4, 4), units="micrometer")
    assert (s1.voxel_size, s1.translation) == ((0.008, 0.008), (0.004, 0.004))
    in_nm = wa.open(str(tmp_path / "u.zarr"), level="s1")
    assert in_nm.voxel_size == pytest.approx((8.0, 8.0)) and in_nm.translation == pytest.approx((4.0, 4.0))
    s2 = pyramid.add_level("s2", factors=4)  # no units: the pyramid's, nanometres
    assert s2.voxel_size == (16.0, 16.0)


def _crop(root):
    """A crop group whose multiscales list levels two directories down: ``seg/s0`` and ``seg/s1``."""
    datasets = [{"path": f"seg/s{i}", "coordinateTransformations": [
        {"type": "scale", "scale": [4.0 * 2**i] * 3}, {"type": "translation", "translation": [2.0 * 2**i] * 3}]}
        for i in range(2)]
    axes = [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"]
    GROUP_BUILDERS["zarr2"](root, {"path": "crop.zarr", "attrs": {"multiscales": [
        {"version": "0.4", "axes": axes, "datasets": datasets}]}})
    GROUP_BUILDERS["zarr2"](root, {"path": "crop.zarr/seg"})
    for i in range(2):
        BUILDERS["zarr2"](root, {"path": f"crop.zarr/seg/s{i}", "shape": [8 >> i] * 3, "chunks": [4] * 3,
                                 "dtype": "uint8"})
    return root / "crop.zarr"


def test_the_pyramid_of_an_array_is_found_through_the_ancestor_walk_that_places_it(tmp_path):
    group = _crop(tmp_path)
    pyramid = wa.open_pyramid(group / "seg" / "s0")
    assert pyramid.path == str(group) and pyramid.names == ("seg/s0", "seg/s1")
    assert pyramid.voxel_sizes() == [(4.0, 4.0, 4.0), (8.0, 8.0, 8.0)]
    vol = wa.open(group / "seg" / "s0")
    assert vol.levels == ("seg/s0", "seg/s1") and vol.level_name == "seg/s0"
    assert pyramid.by_name("seg/s1").translation == (4.0, 4.0, 4.0)


def test_a_group_that_lists_no_levels_names_the_groups_below_it_that_do(tmp_path):
    root = tmp_path / "root.zarr"
    wa.create(root / "scale0" / "image", (8, 8, 8), "uint8", 4, 2, chunks=4)
    pyramid = wa.open_pyramid(root, mode="r+")
    assert pyramid.names == ()
    with pytest.raises(ValueError, match=r"root\.zarr: lists no levels .*listed in .*root\.zarr/scale0"):
        pyramid.add_level("s1", factors=2)
    assert sorted(p.name for p in root.iterdir()) == ["scale0", "zarr.json"]
