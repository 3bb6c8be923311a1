"""A level written into a group that someone else laid out reads back where it was asked to be, and loses no level."""

import json

import pytest

import worldarray as wa
from conftest import BUILDERS, GROUP_BUILDERS

AXES = [{"name": n, "type": "space", "unit": "nanometer"} for n in "zyx"]


def level_of(group, name):
    meta = wa.metadata(group, level=name, units="nanometer")
    return meta.voxel_size, meta.translation


def test_a_level_reads_back_where_asked_under_the_groups_multiscale_level_transforms(tmp_path):
    transforms = [{"type": "scale", "scale": [4.0] * 3}, {"type": "translation", "translation": [2.0] * 3}]
    dataset = {"path": "s0", "coordinateTransformations": [{"type": "scale", "scale": [1.0] * 3},
                                                           {"type": "translation", "translation": [0.0] * 3}]}
    GROUP_BUILDERS["zarr3"](tmp_path, {"path": "g", "attrs": {"ome": {"version": "0.5", "multiscales": [
        {"axes": AXES, "datasets": [dataset], "coordinateTransformations": transforms}]}}})
    BUILDERS["zarr3"](tmp_path, {"path": "g/s0", "shape": [8, 8, 8], "chunks": [4, 4, 4], "dtype": "uint8"})
    wa.create(tmp_path / "g" / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    wa.open_pyramid(tmp_path / "g", mode="r+").add_level("s2", factors=4)
    assert level_of(tmp_path / "g", "s0") == ((4.0,) * 3, (2.0,) * 3)
    assert level_of(tmp_path / "g", "s1") == ((8.0,) * 3, (4.0,) * 3)
    assert level_of(tmp_path / "g", "s2") == ((16.0,) * 3, (8.0,) * 3)  # level_placement(4, 2, 4)
    wa.create(tmp_path / "g" / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4, exists="adopt")


def test_ome_0_4_inside_a_zarr_v3_group_keeps_its_levels_when_a_level_is_added(tmp_path):
    legacy = [{"version": "0.4", "axes": AXES, "datasets": [{"path": "s0", "coordinateTransformations": [
        {"type": "scale", "scale": [4.0] * 3}, {"type": "translation", "translation": [102.0] * 3}]}]}]
    GROUP_BUILDERS["zarr3"](tmp_path, {"path": "g", "attrs": {"multiscales": legacy}})
    BUILDERS["zarr3"](tmp_path, {"path": "g/s0", "shape": [8, 8, 8], "chunks": [4, 4, 4], "dtype": "uint8"})
    wa.create(tmp_path / "g" / "s1", (4, 4, 4), "uint8", 8, 104, chunks=4)
    attributes = json.loads((tmp_path / "g" / "zarr.json").read_text())["attributes"]
    assert attributes["multiscales"] == legacy  # the 0.4 key is someone else's, left as it was
    assert [d["path"] for d in attributes["ome"]["multiscales"][0]["datasets"]] == ["s0", "s1"]
    assert wa.open_pyramid(tmp_path / "g").names == ("s0", "s1")
    assert level_of(tmp_path / "g", "s0") == ((4.0,) * 3, (102.0,) * 3)


def test_ensure_group_entry_writes_in_the_groups_format_not_the_arrays(tmp_path):
    datasets = [{"path": "s0", "coordinateTransformations": [{"type": "scale", "scale": [4.0] * 3},
                                                             {"type": "translation", "translation": [2.0] * 3}]}]
    multiscales = [{"version": "0.4", "axes": AXES, "datasets": datasets}]
    GROUP_BUILDERS["zarr2"](tmp_path, {"path": "g", "attrs": {"multiscales": multiscales}})
    BUILDERS["zarr2"](tmp_path, {"path": "g/s0", "shape": [8, 8, 8], "chunks": [4, 4, 4], "dtype": "uint8"})
    BUILDERS["zarr3"](tmp_path, {"path": "g/s1", "shape": [4, 4, 4], "chunks": [4, 4, 4], "dtype": "uint8"})
    wa.ensure_group_entry(tmp_path / "g", "s1", 8, 4)
    assert not (tmp_path / "g" / "zarr.json").exists()
    assert wa.detect(tmp_path / "g").format == "zarr2"
    assert wa.open_pyramid(tmp_path / "g").names == ("s0", "s1")
    assert level_of(tmp_path / "g", "s1") == ((8.0,) * 3, (4.0,) * 3)


def test_adding_a_level_again_with_adopt_works_in_a_micrometre_pyramid(tmp_path):
    wa.create(tmp_path / "g" / "s0", (8, 8, 8), "uint8", 0.004, 0.002, units="micrometer", chunks=4)
    pyramid = wa.open_pyramid(tmp_path / "g", mode="r+")
    first = pyramid.add_level("s1", factors=2)
    again = pyramid.add_level("s1", factors=2, exists="adopt")
    assert first.voxel_size == again.voxel_size == (8.0,) * 3  # the pyramid's handles speak nanometres
    assert wa.metadata(tmp_path / "g", level="s1").units == ("micrometer",) * 3


@pytest.mark.parametrize("call", ["open", "metadata", "open_tensorstore", "create"])
def test_a_server_that_never_answers_times_out_under_the_calls_retries(silent_server, call):
    policy = wa.Retry(max_attempts=2, timeout=0.05, base_delay=0.0)  # attempts of 0.05 and 0.1 s: no answer comes
    path = f"{silent_server}/v.zarr/s0"
    calls = {
        "open": lambda: wa.open(path, retries=policy),
        "metadata": lambda: wa.metadata(path, retries=policy),
        "open_tensorstore": lambda: wa.open_tensorstore(path, retries=policy),
        "create": lambda: wa.create(path, (4,), "uint8", 1, 0.5, axes=("x",), chunks=4, retries=policy),
    }
    with pytest.raises(TimeoutError, match=r"127\.0\.0\.1.*zarr\.json.*2 attempts"):
        calls[call]()


def test_a_listed_dataset_path_spelt_with_dot_slash_is_the_level_ensure_group_entry_replaces(tmp_path):
    # a group listing "./s0" and ensure_group_entry(g, "s0") once ended with ['./s0', 's0'] and names ('s0', 's0')
    dataset = {"path": "./s0", "coordinateTransformations": [
        {"type": "scale", "scale": [4.0] * 3}, {"type": "translation", "translation": [2.0] * 3}]}
    GROUP_BUILDERS["zarr3"](tmp_path, {"path": "g", "attrs": {"ome": {"version": "0.5", "multiscales": [
        {"axes": AXES, "datasets": [dataset]}]}}})
    BUILDERS["zarr3"](tmp_path, {"path": "g/s0", "shape": [8, 8, 8], "chunks": [4, 4, 4], "dtype": "uint8",
                                 "document": {"dimension_names": ["z", "y", "x"]}})  # OME 0.5 asks for them
    wa.ensure_group_entry(tmp_path / "g", "s0", 8, 4)
    datasets = json.loads((tmp_path / "g" / "zarr.json").read_text())["attributes"]["ome"]["multiscales"][0]["datasets"]
    assert [d["path"] for d in datasets] == ["s0"]
    assert wa.open_pyramid(tmp_path / "g").names == ("s0",)
    assert level_of(tmp_path / "g", "s0") == ((8.0,) * 3, (4.0,) * 3)
