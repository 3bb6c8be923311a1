"""Behaviour 10: written OME documents equal tests/fixtures/write.json and read back as written, and the levels made
by create, add_level and ensure_group_entry list the fixture's document in their group.

The expected documents in the fixture were derived by hand from the spec's rules. Every store is built under
tmp_path through tensorstore; documents go in as JSON files. Where a level sits and its shape are test_factors'.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import tensorstore as ts

import worldarray as wa
from worldarray.geometry import spatial_indices
from worldarray.write import ome_multiscales

FIXTURE = Path(__file__).parent / "fixtures" / "write.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
BY_NAME = pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])


def _normal(doc):
    return json.loads(json.dumps(doc))


def _write(call: dict) -> dict:
    call = dict(call)
    axes, units = call.pop("axes"), call.pop("units")
    levels = [tuple(level) for level in call.pop("levels")]
    return ome_multiscales(axes, units, levels, **call)


def _write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _store_beside_arrays(root: Path, doc: dict, call: dict) -> None:
    """The group attributes written in the version's own zarr format, with one small array per level."""
    axes, v05 = call["axes"], call["version"] == "0.5"
    if v05:
        _write_json(root / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": doc})
    else:
        _write_json(root / ".zgroup", {"zarr_format": 2})
        _write_json(root / ".zattrs", doc)
    for path, _, _ in call["levels"]:
        kvstore = {"driver": "file", "path": str(root / path)}
        if v05:
            metadata = {"shape": [2] * len(axes), "data_type": "uint8", "dimension_names": axes}
            ts.open({"driver": "zarr3", "kvstore": kvstore, "metadata": metadata}, create=True).result()
        else:
            metadata = {"shape": [2] * len(axes), "chunks": [2] * len(axes), "dtype": "|u1"}
            ts.open({"driver": "zarr", "kvstore": kvstore, "metadata": metadata}, create=True).result()


def _every_axis(values, fill, axes):
    """A list given over the spatial axes, put in place among all axes; a full list as it is."""
    if len(values) == len(axes):
        return tuple(values)
    out = [fill] * len(axes)
    for k, i in enumerate(spatial_indices(axes)):
        out[i] = values[k]
    return tuple(out)


# ---------------------------------------------------------------- documents


@BY_NAME
def test_a_written_document_equals_the_fixture_document(case):
    assert _normal(_write(case["call"])) == _normal(case["expect"])


def test_the_fixture_covers_both_versions_and_the_three_axis_sets():
    covered = {(c["call"]["version"], tuple(c["call"]["axes"])) for c in CASES}
    axis_sets = (("z", "y", "x"), ("c", "z", "y", "x"), ("t", "c", "z", "y", "x"))
    wanted = {(v, axes) for v in ("0.4", "0.5") for axes in axis_sets}
    assert wanted <= covered
    assert any(isinstance(c["call"]["units"], dict) for c in CASES)
    assert any(isinstance(c["call"]["units"], list) for c in CASES)


@BY_NAME
def test_every_level_reads_back_the_placement_axes_and_units_it_was_given(case, tmp_path):
    call, root = case["call"], tmp_path / "image.zarr"
    _store_beside_arrays(root, _write(call), call)
    axes = tuple(call["axes"])
    # OME's spelling of each axis's unit, as the hand-written fixture document states it
    multiscale = (case["expect"].get("ome") or case["expect"])["multiscales"][0]
    units = tuple(axis.get("unit", "") for axis in multiscale["axes"])
    for path, voxel_size, translation in call["levels"]:
        meta = wa.metadata(str(root), level=path)
        assert (meta.placed_by, meta.axes, meta.units) == ("ome", axes, units)
        assert meta.voxel_size == _every_axis(voxel_size, 1.0, axes)
        assert meta.translation == _every_axis(translation, 0.0, axes)


def test_the_name_is_written_even_when_empty():
    doc = ome_multiscales(("y", "x"), {"space": "nm"}, [("0", (1.0, 1.0), (0.5, 0.5))])
    assert doc["ome"]["multiscales"][0]["name"] == ""


def test_type_and_metadata_are_written_only_when_given():
    doc = ome_multiscales(("y", "x"), {"space": "nm"}, [("0", (1.0, 1.0), (0.5, 0.5))], version="0.4")
    assert not {"type", "metadata"} & set(doc["multiscales"][0])


def test_numbers_are_written_as_the_floats_given():
    given = (0.1 + 0.2, 10.48, 1e-300)
    doc = ome_multiscales(("z", "y", "x"), {"space": "nm"}, [("s0", given, given)])
    scale, translation = doc["ome"]["multiscales"][0]["datasets"][0]["coordinateTransformations"]
    assert json.loads(json.dumps(scale["scale"])) == list(given) == translation["translation"]


def test_a_unit_on_a_space_axis_is_written_in_ome_spelling():
    doc = ome_multiscales(("z", "y", "x"), ["\u03bcm", "km", "\u00c5"], [("s0", (1, 1, 1), (0, 0, 0))])
    assert [a["unit"] for a in doc["ome"]["multiscales"][0]["axes"]] == ["micrometer", "kilometer", "angstrom"]


# ---------------------------------------------------------------- bad input

S0 = ("s0", (4.0, 4.0, 4.0), (2.0, 2.0, 2.0))
ZYX = ("z", "y", "x")
NM = {"space": "nm"}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(version="0.6"), r"version is '0\.6'"),
        (dict(version="0.5", levels=[S0, ("s1", (8.0, 8.0), (4.0, 4.0))]),
         r"levels\[1\] \('s1'\) voxel_size is \[8\.0, 8\.0\]"),
        (dict(levels=[("s0", (4.0, 4.0, 4.0), (2.0,))]), r"levels\[0\] \('s0'\) translation is \[2\.0\]"),
        (dict(levels=[("s0", (4.0, 0.0, 4.0), (2.0, 2.0, 2.0))]),
         r"voxel_size is \[4\.0, 0\.0, 4\.0\]; expected finite numbers > 0"),
        (dict(levels=[("s0", (4.0, -1.0, 4.0), (2.0, 2.0, 2.0))]), r"voxel_size is \[4\.0, -1\.0"),
        (dict(levels=[("s0", (4.0, math.inf, 4.0), (2.0, 2.0, 2.0))]), r"voxel_size is \[4\.0, inf"),
        (dict(levels=[("s0", (4.0, 4.0, 4.0), (2.0, math.nan, 2.0))]), r"translation is \[2\.0, nan"),
        (dict(axes=("z", "y", "y")), r"axes is \['z', 'y', 'y'\]; expected distinct"),
        (dict(levels=[S0, S0]), r"levels paths are \['s0', 's0'\]"),
        (dict(levels=[]), r"levels is \[\]"),
        (dict(units={"space": "furlong"}), r"units\['space'\] is 'furlong'"),
        (dict(units=["nm", "second", "nm"]), r"units\[1\] is 'second' on the space axis 'y'"),
        (dict(units={"length": "nm"}), r"units is \{'length': 'nm'\}"),
        (dict(axes=("c", "z", "y", "x"), units=["nm", "nm", "nm", "nm"]),
         r"units\[0\] is 'nm' on the channel axis 'c'"),
        (dict(axes=("b", "z", "y", "x")), r"axes\[0\] is 'b', whose name implies no type; pass axis_types"),
        (dict(axis_types=["space", "spatial", None]), r"axis_types is \['space', 'spatial', None\]"),
        (dict(name=None), r"name is None"),
    ],
)
def test_a_bad_ome_multiscales_argument_raises_value_error_naming_it(kwargs, match):
    call = {"axes": ZYX, "units": NM, "levels": [S0], **kwargs}
    with pytest.raises(ValueError, match=match):
        ome_multiscales(call.pop("axes"), call.pop("units"), call.pop("levels"), **call)


# ---------------------------------------------------------------- the writers list the fixture's document
# The same levels written into a group under tmp_path three ways (create for each level; create then add_level;
# tensorstore arrays listed by ensure_group_entry): the group attributes read back from disk must equal the case's
# document after the same JSON normalisation.

FORMAT = {"0.5": "zarr3", "0.4": "zarr2"}  # OME 0.5 goes with zarr v3 and 0.4 with zarr v2, always
NOT_WRITTEN_BY_LEVEL = ("name", "type", "metadata")  # a multiscale's own keys, which no level-writer takes


def _finest_first(levels) -> bool:
    return all(math.prod(a[1]) <= math.prod(b[1]) for a, b in zip(levels, levels[1:], strict=False))


# Which cases the writers can reproduce:
# - the writers keep the datasets in order of voxel size (the product of the scale), so a case listing a coarser
#   level before a finer one would come back reordered and is not compared. Every case lists its levels finest
#   first today, so this excludes none of them;
# - name, type and metadata are the multiscale's own, not a level's: a case that sets them is compared on
#   everything but those keys (see _comparable).
# axis_types goes to create and ensure_group_entry as given; add_level takes the types the group lists.
WRITABLE = [case for case in CASES if _finest_first(case["call"]["levels"])]
WRITABLE_BY_NAME = pytest.mark.parametrize("case", WRITABLE, ids=[case["name"] for case in WRITABLE])


def _comparable(attrs: dict, call: dict) -> dict:
    """The group attributes after JSON normalisation, without the multiscale keys the call sets that levels cannot."""
    attrs = _normal(attrs)
    dropped = [key for key in NOT_WRITTEN_BY_LEVEL if key in call]
    for multiscale in (attrs.get("ome") or attrs)["multiscales"]:
        for key in dropped:
            multiscale.pop(key, None)
    return attrs


def _group_attributes(group: Path) -> dict:
    """The group's attributes as stored: zarr.json's attributes in zarr v3, .zattrs in zarr v2."""
    if (group / "zarr.json").exists():
        return json.loads((group / "zarr.json").read_text(encoding="utf-8"))["attributes"]
    return json.loads((group / ".zattrs").read_text(encoding="utf-8"))


def _shape(call: dict) -> tuple[int, ...]:
    return (2,) * len(call["axes"])


def _create(group: Path, call: dict, path: str, voxel_size, translation) -> None:
    wa.create(group / path, _shape(call), "uint8", voxel_size, translation, axes=call["axes"], units=call["units"],
              chunks=_shape(call), format=FORMAT[call["version"]], axis_types=call.get("axis_types"))


def _tensorstore_array(group: Path, call: dict, path: str) -> None:
    """An array made by tensorstore alone, in the version's zarr format: no placement and no group entry."""
    shape, kvstore = list(_shape(call)), {"driver": "file", "path": str(group / path)}
    if call["version"] == "0.5":
        spec = {"driver": "zarr3", "metadata": {"shape": shape, "data_type": "uint8", "dimension_names": call["axes"]}}
    else:
        spec = {"driver": "zarr", "metadata": {"shape": shape, "chunks": shape, "dtype": "|u1"}}
    ts.open({**spec, "kvstore": kvstore}, create=True).result()


@WRITABLE_BY_NAME
def test_levels_made_by_create_list_the_fixture_document(case, tmp_path):
    call, group = case["call"], tmp_path / "img.zarr"
    for path, voxel_size, translation in call["levels"]:
        _create(group, call, path, voxel_size, translation)
    assert _comparable(_group_attributes(group), call) == _comparable(case["expect"], call)


@WRITABLE_BY_NAME
def test_levels_added_by_add_level_after_create_list_the_fixture_document(case, tmp_path):
    call, group = case["call"], tmp_path / "img.zarr"
    (first, voxel_size, translation), *others = call["levels"]
    _create(group, call, first, voxel_size, translation)
    pyramid = wa.open_pyramid(group, mode="r+", units=None)  # the fixture's numbers are in the stored units
    for path, voxel_size, translation in others:
        pyramid.add_level(path, voxel_size=voxel_size, translation=translation, shape=_shape(call))
    assert _comparable(_group_attributes(group), call) == _comparable(case["expect"], call)


@WRITABLE_BY_NAME
def test_tensorstore_arrays_listed_by_ensure_group_entry_list_the_fixture_document(case, tmp_path):
    call, group = case["call"], tmp_path / "img.zarr"
    for path, _, _ in call["levels"]:
        _tensorstore_array(group, call, path)
    for path, voxel_size, translation in call["levels"]:
        wa.ensure_group_entry(group, path, voxel_size, translation, axes=call["axes"], units=call["units"],
                              axis_types=call.get("axis_types"))
    assert _comparable(_group_attributes(group), call) == _comparable(case["expect"], call)
