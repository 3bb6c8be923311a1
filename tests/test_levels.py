"""Behaviour 3, the level rule (worldarray.levels): which array a path, level= and voxel_size name.

select_level's five modes and open's voxel_size under level_mode and on_mismatch; Pyramid.select; level= as a
name, a position or "first"; a group without multiscales probed for s0, s1, ...; and an array path (or a
precomputed path naming a scale) that stays that array. Every store is written in tmp_path by conftest's builders
and holds ``arange_values``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS, arange_values, bigstitcher_n5, ome_pyramid

LEVELS = [("s0", (8, 4, 4)), ("s1", (8, 8, 8)), ("s2", (16, 16, 16))]
FINE = 10.48, 3.7  # mesh-n-bone's float-noise grid: voxel size and translation on every axis


@pytest.fixture(scope="module")
def pyramid(tmp_path_factory):
    levels = [("s0", (8, 12, 12), (8, 4, 4), (4, 2, 2)), ("s1", (8, 6, 6), (8, 8, 8), (4, 4, 4)),
              ("s2", (4, 3, 3), (16, 16, 16), (8, 8, 8))]
    return ome_pyramid(tmp_path_factory.mktemp("pyramid"), "pyr.zarr", levels)


def yx_pyramid(root: Path) -> Path:
    """A zarr v2 OME 0.4 group of two (y, x) levels: s0 at 4 nm, s1 at 8 nm."""
    levels = [("s0", (4, 6), (4, 4), (2, 2)), ("s1", (2, 3), (8, 8), (4, 4))]
    return Path(ome_pyramid(root, "pyr.zarr", levels, fmt="zarr2", axes=("y", "x"), dtype="uint8"))


# ---------------------------------------------------------------- a voxel size picks a level


@pytest.mark.parametrize("mode,target,expected", [
    ("floor", (8, 8, 8), "s1"), ("floor", (10, 10, 10), "s1"), ("floor", (6, 6, 6), "s0"),
    ("floor", (99, 99, 99), "s2"),
    ("finer", (10, 10, 10), "s1"), ("exact", (16, 16, 16), "s2"), ("nearest", (12, 12, 12), "s2"),
    ("nearest", (6, 6, 6), "s1"), ("resample", (10, 10, 10), "s1"),
])
def test_select_level_and_open_pick_the_level_the_mode_names(pyramid, mode, target, expected):
    assert wa.select_level(LEVELS, target, mode)[0] == expected
    vol = wa.open(pyramid, voxel_size=target, level_mode=mode, on_mismatch="keep")
    assert vol.level_name == expected and vol.level_path == f"{pyramid}/{expected}"


@pytest.mark.parametrize("mode,target", [("finer", (6, 6, 6)), ("exact", (10, 10, 10))])
def test_finer_and_exact_raise_listing_the_levels_instead_of_falling_back(pyramid, mode, target):
    with pytest.raises(ValueError, match="s0.*s1.*s2"):
        wa.select_level(LEVELS, target, mode)
    with pytest.raises(ValueError, match="s0.*s1.*s2"):
        wa.open(pyramid, voxel_size=target, level_mode=mode, on_mismatch="keep")


def test_nearest_takes_the_finer_level_on_a_tie():
    assert wa.select_level([("a", (4.0,)), ("b", (16.0,))], (8.0,), "nearest")[0] == "a"


def test_nearest_takes_the_finer_level_when_the_summed_logs_differ_only_by_float_rounding():
    # |log(4/6)| and |log(9/6)| are both log(1.5); summed over three axes they differ in the last bit
    levels = [("s0", (4.0,) * 3), ("s1", (9.0,) * 3)]
    assert wa.select_level(levels, 6.0, "nearest")[0] == "s0"
    assert wa.select_level(levels[::-1], 6.0, "nearest")[0] == "s0"


def test_voxel_sizes_compare_with_rtol_1e_6_so_10_48_is_not_10(tmp_path):
    levels = [("ten", (10.0,) * 3), ("fine", (10.48,) * 3)]
    assert wa.select_level(levels, 10.48 * (1 + 1e-7), "exact")[0] == "fine"
    assert wa.select_level(levels, 10, "exact")[0] == "ten"
    with pytest.raises(ValueError, match="10.48"):
        wa.select_level(levels[1:], 10, "exact")
    path = ome_pyramid(tmp_path, "fine.zarr", [("s0", (6, 7, 9), (FINE[0],) * 3, (FINE[1],) * 3)]) + "/s0"
    assert wa.open(path, voxel_size=10.48 * (1 + 1e-7)).voxel_size == (10.48,) * 3
    with pytest.raises(ValueError, match="10.48"):
        wa.open(path, voxel_size=10)


def test_a_pyramid_chooses_a_level_from_the_group_document_without_opening_the_others(tmp_path):
    levels = [("s0", (8, 12, 12), (8, 4, 4), (4, 2, 2)), ("s1", (8, 6, 6), (8, 8, 8), (4, 4, 4)),
              ("s2", (4, 3, 3), (16, 16, 16), (8, 8, 8))]
    path = ome_pyramid(tmp_path, "pyr.zarr", levels, fmt="zarr2")
    for name in ("s0", "s2"):
        (tmp_path / "pyr.zarr" / name / ".zarray").write_text("{ not json")
    vol = wa.open(path, voxel_size=(10, 10, 10), on_mismatch="keep")
    assert (vol.level_name, vol.voxel_size) == ("s1", (8, 8, 8))
    np.testing.assert_array_equal(vol.read(vol.box), arange_values((8, 6, 6), "uint16"))


def test_choosing_a_level_opens_no_other_level(tmp_path):
    # (z, y, x) levels s0, s1, s2 at 4 * 2**i nm, each corner at the origin
    levels = [(f"s{i}", (16 // 2**i,) * 3, (4.0 * 2**i,) * 3, (2.0 * 2**i,) * 3) for i in range(3)]
    group = Path(ome_pyramid(tmp_path, "pyr", levels, dtype="uint8"))
    (group / "s0" / "zarr.json").write_text("{broken")  # any read of s0's document would fail
    pyramid = wa.open_pyramid(group)
    chosen = pyramid.select(10.0)
    assert (chosen.level_name, chosen.voxel_size) == ("s1", (8.0,) * 3)
    assert wa.open(group, voxel_size=(16, 16, 16)).level_name == "s2"


def test_opening_a_named_level_places_that_level_alone_and_a_malformed_sibling_raises_when_opened(tmp_path):
    levels = [(f"s{i}", (16 // 2**i,) * 3, (4.0 * 2**i,) * 3, (2.0 * 2**i,) * 3) for i in range(3)]
    group = Path(ome_pyramid(tmp_path, "pyr", levels, dtype="uint8"))
    document = json.loads((group / "zarr.json").read_text())
    datasets = document["attributes"]["ome"]["multiscales"][0]["datasets"]
    datasets[2]["coordinateTransformations"][0]["scale"] = [16.0, "wide", 16.0]
    (group / "zarr.json").write_text(json.dumps(document))
    assert wa.open(group, level="s1").voxel_size == (8.0,) * 3
    assert wa.open(group / "s0").voxel_size == (4.0,) * 3
    with pytest.raises(ValueError, match=r"pyr/zarr\.json: .*s2.*scale.* is \[16\.0, 'wide', 16\.0\]"):
        wa.open(group, level="s2")
    with pytest.raises(ValueError, match=r"pyr/zarr\.json: .*s2.*scale"):
        wa.open(group, voxel_size=(16, 16, 16))  # choosing by voxel size places every level


def test_base_voxel_size_in_base_units_chooses_the_level_by_voxel_size(tmp_path):
    # unscaled, the levels are (1, 1, 1), (1, 2, 2), (2, 4, 4) "nm" and floor would pick s2; rescaled, s1 is exact
    base = {"base_voxel_size": (1.0, 0.4, 0.4), "base_units": "micrometer"}  # level 0 is 1000 x 400 x 400 nm
    vol = wa.open(bigstitcher_n5(tmp_path), voxel_size=(1000, 800, 800), **base)
    assert vol.level_name == "s1"


# ---------------------------------------------------------------- level= names a level of a group


@pytest.mark.parametrize("level", [None, "s7"], ids=["no-level", "missing-name"])
def test_a_group_path_without_a_level_or_with_a_missing_one_raises_listing_the_levels(pyramid, level):
    with pytest.raises(ValueError, match="s0.*s1.*s2"):
        wa.open(pyramid, level=level)


@pytest.mark.parametrize("level,expected", [(0, "s0"), ("first", "s0"), (1, "s1"), (2, "s2"), ("s1", "s1")])
def test_a_level_is_a_name_or_a_position_with_first_the_first_listed(pyramid, level, expected):
    vol = wa.open(pyramid, level=level)
    assert vol.level_name == expected and vol.level_path == f"{pyramid}/{expected}"
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), vol.shape), arange_values(vol.shape, "uint16"))


def test_a_group_path_without_a_level_raises_listing_the_levels_with_their_scales(tmp_path):
    with pytest.raises(ValueError, match=r"name a level.*s0 \(scale \[4, 4\]\), s1 \(scale \[8, 8\]\)"):
        wa.metadata(yx_pyramid(tmp_path))


@pytest.mark.parametrize("level,voxel", [("s1", 8.0), (1, 8.0), (0, 4.0), ("first", 4.0), (-1, 8.0)])
def test_a_level_is_a_name_or_a_position(tmp_path, level, voxel):
    assert wa.metadata(yx_pyramid(tmp_path), level=level).voxel_size == (voxel, voxel)


@pytest.mark.parametrize("level", ["s7", 2])
def test_a_level_that_does_not_exist_raises_listing_the_levels(tmp_path, level):
    with pytest.raises(ValueError, match=r"s0 \(scale \[4, 4\]\), s1"):
        wa.metadata(yx_pyramid(tmp_path), level=level)


def test_a_document_less_n5_group_is_probed_through_s0(tmp_path):
    for name, shape, resolution in (("s0", [4, 6, 8], [2, 4, 8]), ("s1", [2, 3, 4], [4, 8, 16])):
        BUILDERS["n5"](tmp_path, {"path": f"vol.n5/{name}", "shape": shape, "dtype": "uint8", "chunks": [2, 3, 4],
                                  "attrs": {"resolution": resolution, "units": ["nm"] * 3}})
    assert not (tmp_path / "vol.n5" / "attributes.json").exists()
    with pytest.raises(ValueError, match="s0.*s1"):
        wa.open(tmp_path / "vol.n5")
    vol = wa.open(tmp_path / "vol.n5", level=1)
    assert (vol.level_name, vol.voxel_size, vol.levels) == ("s1", (16, 8, 4), ("s0", "s1"))
    assert wa.open(tmp_path / "vol.n5", voxel_size=(16, 8, 4)).level_name == "s1"
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), (2, 3, 4)), arange_values((2, 3, 4), "uint8"))


def test_a_group_without_multiscales_is_probed_for_s0_s1(tmp_path):
    for i in range(3):
        BUILDERS["n5"](tmp_path, {"path": f"bare.n5/s{i}", "shape": [4, 6], "dtype": "uint8", "chunks": [2, 3],
                                  "attrs": {"downsamplingFactors": [2**i, 2**i]}})
    assert wa.metadata(tmp_path / "bare.n5", level=-1, open=False).voxel_size == (4.0, 4.0)


def test_a_precomputed_scale_is_chosen_by_key_or_position(tmp_path):
    scale = {"key": "4_4_4", "size": [6, 4, 2], "resolution": [4, 4, 4], "voxel_offset": [0, 0, 0],
             "chunk_sizes": [[3, 2, 2]], "encoding": "raw"}
    info = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [scale]}
    BUILDERS["precomputed"](tmp_path, {"path": "img", "info": info})
    by_key = wa.metadata(tmp_path / "img", level="4_4_4")
    by_position = wa.metadata(tmp_path / "img", level=0)
    assert by_key == by_position
    assert by_key.shape == (2, 4, 6)


@pytest.mark.parametrize("level", ["8_8_8", "s1"])
def test_a_precomputed_level_name_that_does_not_exist_raises_listing_the_scales(tmp_path, level):
    scale = {"key": "4_4_4", "size": [6, 4, 2], "resolution": [4, 4, 4], "voxel_offset": [0, 0, 0],
             "chunk_sizes": [[3, 2, 2]], "encoding": "raw"}
    info = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [scale]}
    BUILDERS["precomputed"](tmp_path, {"path": "img", "info": info})
    with pytest.raises(ValueError, match=rf"img: level '{level}' does not exist; the levels are 4_4_4 \(resolution"):
        wa.open(tmp_path / "img", level=level)


# ---------------------------------------------------------------- an array path is that array


def test_an_array_path_is_that_array_silently_under_first_and_0_and_warns_for_another_level(pyramid):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert {wa.open(pyramid + "/s1", level=level).level_path for level in (0, "first")} == {pyramid + "/s1"}
    with pytest.warns(UserWarning, match="ignored"):
        assert wa.open(pyramid + "/s1", level="s2").level_path == pyramid + "/s1"


def test_an_array_path_is_that_array_under_first_and_warns_for_another_level(tmp_path):
    array = yx_pyramid(tmp_path) / "s1"
    assert wa.metadata(array, level="first").voxel_size == (8.0, 8.0)
    with pytest.warns(UserWarning, match="level='s0' is ignored"):
        assert wa.metadata(array, level="s0").voxel_size == (8.0, 8.0)


def test_an_array_path_is_kept_under_voxel_size_and_never_hops_to_a_sibling(pyramid):
    with pytest.raises(ValueError, match="on_mismatch"):
        wa.open(pyramid + "/s0", voxel_size=(8, 8, 8))
    kept = wa.open(pyramid + "/s0", voxel_size=(8, 8, 8), on_mismatch="keep")
    assert kept.level_path == pyramid + "/s0" and kept.voxel_size == (8, 4, 4)
    relabelled = wa.open(pyramid + "/s0", voxel_size=(8, 8, 8), on_mismatch="relabel")
    assert relabelled.level_path == pyramid + "/s0" and relabelled.shape == (8, 12, 12)


def test_a_precomputed_path_naming_a_scale_is_kept_under_level_first(tmp_path):
    scales = [{"key": key, "size": size, "resolution": [r] * 3, "voxel_offset": [0, 0, 0],
               "chunk_sizes": [[4, 3, 2]], "encoding": "raw"}
              for key, size, r in (("s0", [8, 6, 4], 4), ("s1", [4, 3, 2], 8))]
    info = {"@type": "neuroglancer_multiscale_volume", "type": "image", "data_type": "uint8", "num_channels": 1,
            "scales": scales}
    BUILDERS["precomputed"](tmp_path, {"path": "vol", "info": info})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vol = wa.open(tmp_path / "vol" / "s1", level="first")
    assert (vol.level_name, vol.voxel_size, vol.shape) == ("s1", (8, 8, 8), (2, 3, 4))
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), (2, 3, 4)), arange_values((2, 3, 4), "uint8"))


@pytest.mark.parametrize("scales,found", [(None, "missing"), ([], "empty")], ids=["missing", "empty"])
@pytest.mark.parametrize("level", [None, 0, "s0"])
def test_a_precomputed_info_without_scales_raises_saying_scales_is_missing_or_empty(tmp_path, scales, found, level):
    info = {"@type": "neuroglancer_multiscale_volume", "type": "image", "data_type": "uint8", "num_channels": 1}
    (tmp_path / "vol").mkdir()
    (tmp_path / "vol" / "info").write_text(json.dumps(info if scales is None else {**info, "scales": scales}))
    with pytest.raises(ValueError, match=rf"vol/info: scales is {found}; expected a non-empty list"):
        wa.open(tmp_path / "vol", level=level)


def test_a_precomputed_level_whose_scale_key_is_null_raises_naming_the_info_and_the_entry(tmp_path):
    info = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [
        {"key": None, "size": [4, 4, 4], "resolution": [4, 4, 4], "chunk_sizes": [[4, 4, 4]], "encoding": "raw"}]}
    (tmp_path / "vol").mkdir()
    (tmp_path / "vol" / "info").write_text(json.dumps(info))
    with pytest.raises(ValueError, match=r"vol/info: scales\[0\]\.key is None; expected a string$"):
        wa.open(tmp_path / "vol", level=0)


# ---------------------------------------------------------------- the group's listing and the level agree


def cosem_n5_group(root: Path, group_size: float, own_size: float | None) -> Path:
    """An N5 group whose multiscales dataset transform places s0 at ``group_size`` nm; s0's own COSEM transform, when
    given, says ``own_size``."""
    def transform(size):
        return {"axes": ["z", "y", "x"], "scale": [size] * 3, "translate": [size / 2] * 3, "units": ["nm"] * 3}

    GROUP_BUILDERS["n5"](root, {"path": "g.n5", "attrs": {"multiscales": [
        {"datasets": [{"path": "s0", "transform": transform(group_size)}]}]}})
    attrs = {"transform": transform(own_size)} if own_size is not None else {}
    BUILDERS["n5"](root, {"path": "g.n5/s0", "shape": [4, 4, 4], "chunks": [4, 4, 4], "dtype": "uint8",
                          "attrs": attrs})
    return root / "g.n5"


def test_a_level_placed_otherwise_than_its_group_lists_it_raises_naming_both(tmp_path):
    group = cosem_n5_group(tmp_path, 4.0, 8.0)
    assert wa.open_pyramid(group).voxel_sizes() == [(4.0,) * 3]  # the listing is the group document's alone
    for call in (lambda: wa.metadata(group, level="s0"), lambda: wa.open(group, voxel_size=4),
                 lambda: wa.open(group, level="s0"), lambda: wa.open(group / "s0")):
        with pytest.raises(ValueError, match=r"lists level 's0' at voxel size \(4\.0.*own document \(cosem\) places "
                                             r"it at voxel size \(8\.0"):
            call()


def test_metadata_conflicts_warn_reads_a_disagreeing_level_by_its_own_document(tmp_path):
    group = cosem_n5_group(tmp_path, 4.0, 8.0)
    with pytest.warns(wa.MetadataWarning, match="reading with the level's own"):
        vol = wa.open(group, level="s0", metadata_conflicts="warn")
    assert vol.voxel_size == (8.0,) * 3


def test_a_level_placed_by_its_group_entry_agrees_with_it(tmp_path):
    group = cosem_n5_group(tmp_path, 4.0, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert wa.open(group, voxel_size=4).voxel_size == (4.0,) * 3


@pytest.mark.parametrize("level,name", [(0, "s0"), ("first", "s0"), ("s1", "s1"), (-1, "s2")])
def test_pyramid_by_name_takes_what_level_takes(pyramid, level, name):
    assert wa.open_pyramid(pyramid).by_name(level).level_name == wa.open(pyramid, level=level).level_name == name


def test_pyramid_by_name_refuses_a_level_that_does_not_exist_listing_the_levels(pyramid):
    with pytest.raises(ValueError, match="no level 's9'; the levels are s0, s1, s2"):
        wa.open_pyramid(pyramid).by_name("s9")
