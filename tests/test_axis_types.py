"""Axis types through the writers (create, add_level, ensure_group_entry) and the dimension_names an OME 0.5 group
asks of a zarr v3 array it lists.

An axis whose name implies no type (a "q", an "angle", a "band") is created with ``axis_types``, as
``wa.ome_multiscales`` takes them; a custom type's name is written as OME allows. The group documents are read from
disk as JSON, and what a reader sees through ``wa.open``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tensorstore as ts

import worldarray as wa

SHAPE, CHUNKS = (2, 4, 4, 4), (1, 4, 4, 4)


def _axes_listed(group: Path) -> list[dict]:
    return json.loads((group / "zarr.json").read_text())["attributes"]["ome"]["multiscales"][0]["axes"]


def _datasets(group: Path) -> list[str]:
    multiscale = json.loads((group / "zarr.json").read_text())["attributes"]["ome"]["multiscales"][0]
    return [d["path"] for d in multiscale["datasets"]]


def _angles(path: Path, **kwargs) -> wa.WorldArray:
    """A level whose first axis is an angle of a custom type."""
    call = dict(axes=("angle", "z", "y", "x"), axis_types=("angle", None, None, None), chunks=CHUNKS, **kwargs)
    return wa.create(path, SHAPE, "uint8", 8, 4, **call)


def _tensorstore_array(path: Path, dimension_names: list[str] | None) -> bytes:
    """A zarr v3 array made by tensorstore alone; returns its zarr.json as stored."""
    metadata: dict = {"shape": [4, 4, 4], "data_type": "uint8"}
    if dimension_names is not None:
        metadata["dimension_names"] = dimension_names
    ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}, "metadata": metadata},
            create=True).result()
    return (path / "zarr.json").read_bytes()


# ---------------------------------------------------------------- axis_types in create


def test_create_with_a_custom_axis_type_lists_it_without_a_unit(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    assert _axes_listed(tmp_path / "v.zarr")[0] == {"name": "angle", "type": "angle"}
    assert [a["type"] for a in _axes_listed(tmp_path / "v.zarr")[1:]] == ["space"] * 3


def test_a_created_custom_axis_reads_back_with_its_axes_and_units(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    meta = wa.open(tmp_path / "v.zarr", level="s0").meta
    assert meta.axes == ("angle", "z", "y", "x") and meta.spatial == (1, 2, 3)
    assert meta.units == ("", "nanometer", "nanometer", "nanometer")
    assert meta.voxel_size == (1.0, 8.0, 8.0, 8.0) and meta.translation == (0.0, 4.0, 4.0, 4.0)


def test_create_with_axis_types_channel_makes_a_band_axis(tmp_path):
    wa.create(tmp_path / "v.zarr" / "s0", SHAPE, "uint8", 8, 4, axes=("band", "z", "y", "x"),
              axis_types=("channel", None, None, None), chunks=CHUNKS)
    assert _axes_listed(tmp_path / "v.zarr")[0] == {"name": "band", "type": "channel"}


def test_create_refuses_an_axis_whose_name_implies_no_type_without_axis_types_and_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match=r"axes\[0\] is 'angle', whose name implies no type; pass axis_types"):
        wa.create(tmp_path / "v.zarr" / "s0", SHAPE, "uint8", 8, 4, axes=("angle", "z", "y", "x"), chunks=CHUNKS)
    assert not (tmp_path / "v.zarr").exists()


@pytest.mark.parametrize("axes, axis_types, axis", [
    (("q", "y", "x"), ("space", None, None), "'q' is 'space'; expected a type other than space"),
    (("c", "z", "y", "x"), (None, "channel", None, None), "'z' is 'channel'; expected space"),
])
def test_create_refuses_space_exactly_where_the_reader_counts_no_spatial_axis(tmp_path, axes, axis_types, axis):
    with pytest.raises(ValueError, match=rf"axis_types is .*: axis {axis}"):
        wa.create(tmp_path / "v.zarr" / "s0", (2, 4, 4)[: len(axes)] + (4,) * (len(axes) - 3), "uint8", 8, 4,
                  axes=axes, axis_types=axis_types, chunks=1)
    assert not (tmp_path / "v.zarr").exists()


def test_adopt_with_the_same_axis_types_opens_the_array(tmp_path):
    first = _angles(tmp_path / "v.zarr" / "s0")
    again = _angles(tmp_path / "v.zarr" / "s0", exists="adopt")
    assert again.meta == first.meta


def test_adopt_names_an_axis_type_that_differs_from_the_listed_one(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    with pytest.raises(ValueError, match=r"axis_types\[0\] \('angle'\): found 'angle', wanted 'channel'"):
        wa.create(tmp_path / "v.zarr" / "s0", SHAPE, "uint8", 8, 4, axes=("angle", "z", "y", "x"),
                  axis_types=("channel", None, None, None), chunks=CHUNKS, exists="adopt")


def test_create_refuses_an_axis_type_that_differs_from_the_one_its_group_lists(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    with pytest.raises(ValueError, match=r"axis 'angle' is 'channel'; the group's multiscales lists it as 'angle'"):
        wa.create(tmp_path / "v.zarr" / "s1", SHAPE, "uint8", 16, 8, axes=("angle", "z", "y", "x"),
                  axis_types=("channel", None, None, None), chunks=CHUNKS)
    assert _datasets(tmp_path / "v.zarr") == ["s0"]


# ---------------------------------------------------------------- axis types in add_level and ensure_group_entry


def test_add_level_takes_the_axis_types_its_group_lists(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    s1 = wa.open_pyramid(tmp_path / "v.zarr", mode="r+").add_level("s1", factors=2)
    assert _datasets(tmp_path / "v.zarr") == ["s0", "s1"]
    assert _axes_listed(tmp_path / "v.zarr")[0] == {"name": "angle", "type": "angle"}
    assert s1.meta.axes == ("angle", "z", "y", "x") and s1.meta.voxel_size == (1.0, 16.0, 16.0, 16.0)


def test_ensure_group_entry_lists_a_custom_axis_with_axis_types(tmp_path):
    array = tmp_path / "v.zarr" / "s0"
    metadata = {"shape": list(SHAPE), "data_type": "uint8", "dimension_names": ["angle", "z", "y", "x"]}
    ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(array)}, "metadata": metadata},
            create=True).result()
    wa.ensure_group_entry(tmp_path / "v.zarr", "s0", 8, 4, axis_types=("angle", None, None, None))
    assert _axes_listed(tmp_path / "v.zarr")[0] == {"name": "angle", "type": "angle"}
    meta = wa.open(tmp_path / "v.zarr", level="s0").meta
    assert meta.axes == ("angle", "z", "y", "x") and meta.units == ("", "nanometer", "nanometer", "nanometer")


def test_ensure_group_entry_takes_the_axis_types_its_group_lists(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    metadata = {"shape": list(SHAPE), "data_type": "uint8", "dimension_names": ["angle", "z", "y", "x"]}
    ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(tmp_path / "v.zarr" / "s1")},
             "metadata": metadata}, create=True).result()
    wa.ensure_group_entry(tmp_path / "v.zarr", "s1", 16, 8)
    assert _datasets(tmp_path / "v.zarr") == ["s0", "s1"]


# ---------------------------------------------------------------- dimension_names in an OME 0.5 group


def test_create_writes_dimension_names_equal_to_the_ome_axes(tmp_path):
    _angles(tmp_path / "v.zarr" / "s0")
    stored = json.loads((tmp_path / "v.zarr" / "s0" / "zarr.json").read_text())
    assert stored["dimension_names"] == [a["name"] for a in _axes_listed(tmp_path / "v.zarr")]


def test_ensure_group_entry_lists_a_zarr3_level_without_dimension_names_with_a_warning_changing_no_array(tmp_path):
    group = tmp_path / "v.zarr"
    wa.create(group / "s0", (8, 8, 8), "uint8", 4, 2, chunks=4)
    stored = _tensorstore_array(group / "s1", None)
    with pytest.warns(wa.MetadataWarning, match=r"s1/zarr\.json: dimension_names is None; OME-NGFF 0\.5 wants them "
                                                r"equal to the axes \['z', 'y', 'x'\]"):
        wa.ensure_group_entry(group, "s1", 8, 4)
    assert (group / "s1" / "zarr.json").read_bytes() == stored
    assert _datasets(group) == ["s0", "s1"]


def test_ensure_group_entry_refuses_dimension_names_that_differ_from_the_ome_axes(tmp_path):
    group = tmp_path / "v.zarr"
    wa.create(group / "s0", (8, 8, 8), "uint8", 4, 2, chunks=4)
    stored = _tensorstore_array(group / "s1", ["x", "y", "z"])
    with pytest.raises(ValueError, match=r"dimension_names is \['x', 'y', 'z'\]; expected \['z', 'y', 'x'\]"):
        wa.ensure_group_entry(group, "s1", 8, 4)
    assert (group / "s1" / "zarr.json").read_bytes() == stored
    assert _datasets(group) == ["s0"]


def test_ensure_group_entry_lists_a_zarr3_array_without_dimension_names_into_a_new_ome_group(tmp_path):
    _tensorstore_array(tmp_path / "v.zarr" / "s0", None)
    with pytest.warns(wa.MetadataWarning, match=r"dimension_names is None"):
        wa.ensure_group_entry(tmp_path / "v.zarr", "s0", 8, 4)
    assert _datasets(tmp_path / "v.zarr") == ["s0"]
