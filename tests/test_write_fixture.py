"""fixtures/write.json also drives the writers: levels made by create, add_level and ensure_group_entry list the
fixture's document in their group.

test_write_documents holds ``ome_multiscales`` to each case's expected document; here the same levels are written
into a group under tmp_path three ways (create for each level; create then add_level; tensorstore arrays listed
by ensure_group_entry) and the group attributes read back from disk must equal that document after the same JSON
normalisation.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import tensorstore as ts

import worldarray as wa

FIXTURE = Path(__file__).parent / "fixtures" / "write.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
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
BY_NAME = pytest.mark.parametrize("case", WRITABLE, ids=[case["name"] for case in WRITABLE])


def _normal(doc):
    return json.loads(json.dumps(doc))


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


@BY_NAME
def test_levels_made_by_create_list_the_fixture_document(case, tmp_path):
    call, group = case["call"], tmp_path / "img.zarr"
    for path, voxel_size, translation in call["levels"]:
        _create(group, call, path, voxel_size, translation)
    assert _comparable(_group_attributes(group), call) == _comparable(case["expect"], call)


@BY_NAME
def test_levels_added_by_add_level_after_create_list_the_fixture_document(case, tmp_path):
    call, group = case["call"], tmp_path / "img.zarr"
    (first, voxel_size, translation), *others = call["levels"]
    _create(group, call, first, voxel_size, translation)
    pyramid = wa.open_pyramid(group, mode="r+", units=None)  # the fixture's numbers are in the stored units
    for path, voxel_size, translation in others:
        pyramid.add_level(path, voxel_size=voxel_size, translation=translation, shape=_shape(call))
    assert _comparable(_group_attributes(group), call) == _comparable(case["expect"], call)


@BY_NAME
def test_tensorstore_arrays_listed_by_ensure_group_entry_list_the_fixture_document(case, tmp_path):
    call, group = case["call"], tmp_path / "img.zarr"
    for path, _, _ in call["levels"]:
        _tensorstore_array(group, call, path)
    for path, voxel_size, translation in call["levels"]:
        wa.ensure_group_entry(group, path, voxel_size, translation, axes=call["axes"], units=call["units"],
                              axis_types=call.get("axis_types"))
    assert _comparable(_group_attributes(group), call) == _comparable(case["expect"], call)
