"""A16: a consolidated copy of a group's metadata stays true when create, add_level or ensure_group_entry add to it.

zarr-python is the oracle (a test dependency only): it builds the groups and consolidates them itself, and after the
package has written, it must see the new nodes through the consolidated copy it opens by default, and a consolidated
open must equal a plain one in every node's metadata. zarr v3 keeps the copy in the group's zarr.json, zarr v2 in
.zmetadata; both are tested, as is a copy held by an ancestor, which keys nodes by their path below it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import worldarray as wa
from conftest import together
from worldarray import conditional

zarr = pytest.importorskip("zarr", minversion="3")

FORMATS = pytest.mark.parametrize("fmt", [3, 2], ids=["zarr3", "zarr2"])
S0 = ("s0", (4.0, 4.0, 4.0), (2.0, 2.0, 2.0))


@pytest.fixture(autouse=True)
def _quiet_zarr():
    with warnings.catch_warnings():  # zarr-python warns that consolidated metadata is not in the v3 spec yet
        warnings.filterwarnings("ignore", message="Consolidated metadata", category=UserWarning)
        yield


def _ome(fmt: int) -> dict:
    return wa.ome_multiscales(("z", "y", "x"), "nanometer", [S0], version="0.5" if fmt == 3 else "0.4")


def _peer_group(path: Path, fmt: int, *, ome: bool = True):
    """A group with one array s0 written by zarr-python (an OME group when ``ome``), not yet consolidated."""
    group = zarr.open_group(str(path), mode="w-", zarr_format=fmt)
    extra = {"dimension_names": ["z", "y", "x"]} if fmt == 3 else {}
    group.create_array("s0", shape=(8, 8, 8), chunks=(4, 4, 4), dtype="uint8", **extra)
    if ome:
        group.attrs.update(_ome(fmt))
    return group


def _consolidated(path: Path, fmt: int, *, ome: bool = True) -> Path:
    _peer_group(path, fmt, ome=ome)
    zarr.consolidate_metadata(str(path), zarr_format=fmt)
    return path


def _plain(metadata) -> dict:
    found = metadata.to_dict()
    found.pop("consolidated_metadata", None)
    return found


def _tree(group) -> dict:
    """Every node's metadata below a group (and the group's own), as zarr-python sees it."""
    return {"": _plain(group.metadata), **{name: _plain(node.metadata) for name, node in group.members(max_depth=None)}}


def _agree(path: Path) -> None:
    """A consolidated open and a plain one see the same nodes with the same metadata."""
    assert _tree(zarr.open_consolidated(str(path))) == _tree(zarr.open_group(str(path), use_consolidated=False))


def _copy(path: Path, fmt: int) -> dict:
    """The consolidated copy held at ``path``, as stored."""
    if fmt == 3:
        return json.loads((path / "zarr.json").read_text())["consolidated_metadata"]["metadata"]
    return json.loads((path / ".zmetadata").read_text())["metadata"]


def _datasets(group) -> list[str]:
    attrs = group.attrs.asdict()
    return [d["path"] for d in (attrs.get("ome") or attrs)["multiscales"][0]["datasets"]]


# ---------------------------------------------------------------- the group's own copy


@FORMATS
def test_create_into_a_consolidated_group_is_seen_by_zarr_python(tmp_path, fmt):
    path = _consolidated(tmp_path / "vol.zarr", fmt)
    wa.create(path / "s1", (4, 4, 4), "uint16", 8, 4, chunks=4, attrs={"mine": 1})
    group = zarr.open_group(str(path), mode="r")  # consolidated by default
    assert (group["s1"].shape, group["s1"].dtype, group["s1"].attrs["mine"]) == ((4, 4, 4), "uint16", 1)
    assert _datasets(group) == ["s0", "s1"]


@FORMATS
def test_create_into_a_consolidated_group_leaves_the_consolidated_and_plain_opens_equal(tmp_path, fmt):
    path = _consolidated(tmp_path / "vol.zarr", fmt)
    wa.create(path / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    _agree(path)


@FORMATS
def test_add_level_into_a_consolidated_group_is_seen_by_zarr_python(tmp_path, fmt):
    path = _consolidated(tmp_path / "vol.zarr", fmt)
    wa.open_pyramid(path, mode="r+").add_level("s1", factors=2)
    group = zarr.open_group(str(path), mode="r")
    assert (group["s1"].shape, group["s1"].dtype) == ((4, 4, 4), "uint8")
    assert _datasets(group) == ["s0", "s1"]
    _agree(path)


@FORMATS
def test_ensure_group_entry_into_a_consolidated_group_is_seen_by_zarr_python(tmp_path, fmt):
    path = _consolidated(tmp_path / "vol.zarr", fmt)
    extra = {"dimension_names": ["z", "y", "x"]} if fmt == 3 else {}
    plain = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    plain.create_array("s1", shape=(4, 4, 4), chunks=(4, 4, 4), dtype="uint8", attributes={"theirs": 2}, **extra)
    with pytest.raises(KeyError):  # what the package is there to prevent: an array the copy does not know
        zarr.open_group(str(path), mode="r")["s1"]
    wa.ensure_group_entry(path, "s1", 8, 4)
    group = zarr.open_group(str(path), mode="r")
    assert (group["s1"].shape, group["s1"].attrs["theirs"]) == ((4, 4, 4), 2)
    assert _datasets(group) == ["s0", "s1"]
    _agree(path)


@FORMATS
def test_nothing_else_in_the_groups_copy_changes(tmp_path, fmt):
    path = _consolidated(tmp_path / "vol.zarr", fmt)
    before = _copy(path, fmt)
    wa.create(path / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    after = _copy(path, fmt)
    new = {"s1"} if fmt == 3 else {"s1/.zarray", "s1/.zattrs", ".zattrs"}
    assert {k: v for k, v in after.items() if k not in new} == {k: v for k, v in before.items() if k not in new}
    assert set(after) - set(before) == ({"s1"} if fmt == 3 else {"s1/.zarray", "s1/.zattrs"})


def test_a_zarr2_groups_own_copy_of_its_attributes_gains_the_entry(tmp_path):
    # zarr-python 3 reads a group's own .zattrs, not its copy in .zmetadata; zarr-python 2 and xarray read the copy
    path = _consolidated(tmp_path / "vol.zarr", 2)
    wa.create(path / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    assert _copy(path, 2)[".zattrs"] == json.loads((path / ".zattrs").read_text())
    assert [d["path"] for d in _copy(path, 2)[".zattrs"]["multiscales"][0]["datasets"]] == ["s0", "s1"]


@FORMATS
def test_an_array_made_where_the_copy_names_a_removed_one_replaces_its_entry(tmp_path, fmt):
    _peer_group(tmp_path / "vol.zarr", fmt).create_array("s1", shape=(2, 2, 2), chunks=(2, 2, 2), dtype="uint8")
    zarr.consolidate_metadata(str(tmp_path / "vol.zarr"), zarr_format=fmt)
    for stored in sorted((tmp_path / "vol.zarr" / "s1").rglob("*"), reverse=True):  # the caller's own removal
        stored.unlink() if stored.is_file() else stored.rmdir()
    (tmp_path / "vol.zarr" / "s1").rmdir()
    wa.create(tmp_path / "vol.zarr" / "s1", (4, 4, 4), "uint16", 8, 4, chunks=4)
    found = zarr.open_group(str(tmp_path / "vol.zarr"), mode="r")["s1"]
    assert (found.shape, found.dtype) == ((4, 4, 4), "uint16")
    _agree(tmp_path / "vol.zarr")


def test_a_zmetadata_nested_too_deep_to_read_is_left_as_it_is_and_the_level_is_added(tmp_path):
    path = _consolidated(tmp_path / "vol.zarr", 2)
    deep = '{"metadata": ' + "[" * 20000 + "]" * 20000 + ', "zarr_consolidated_format": 1}'
    (path / ".zmetadata").write_text(deep)
    wa.create(path / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    assert (path / ".zmetadata").read_text() == deep
    assert wa.open(path, level="s1").shape == (4, 4, 4)


@FORMATS
def test_a_group_without_consolidated_metadata_is_given_none(tmp_path, fmt):
    path = tmp_path / "vol.zarr"
    _peer_group(path, fmt)
    wa.create(path / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    assert not (path / ".zmetadata").exists()
    assert "consolidated_metadata" not in json.loads((path / ("zarr.json" if fmt == 3 else ".zgroup")).read_text())


def test_a_new_ome_group_under_a_plain_parent_is_given_no_consolidated_metadata(tmp_path):
    wa.create(tmp_path / "vol.zarr" / "s0", (4, 4, 4), "uint8", 8, 4, chunks=4)
    assert "consolidated_metadata" not in json.loads((tmp_path / "vol.zarr" / "zarr.json").read_text())


# ---------------------------------------------------------------- copies held above the group


def _root_with_volume(root: Path, fmt: int) -> Path:
    """A zarr-python root group holding the OME group ``vol``, consolidated at the root only."""
    zarr.open_group(str(root), mode="w-", zarr_format=fmt).attrs["project"] = "mine"
    _peer_group(root / "vol", fmt)
    zarr.consolidate_metadata(str(root), zarr_format=fmt)
    return root / "vol"


@FORMATS
def test_an_ancestors_copy_gains_the_array_under_its_nested_path(tmp_path, fmt):
    vol = _root_with_volume(tmp_path / "root.zarr", fmt)
    wa.create(vol / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    root = zarr.open_group(str(tmp_path / "root.zarr"), mode="r")
    assert root["vol/s1"].shape == (4, 4, 4)
    assert _datasets(root["vol"]) == ["s0", "s1"]  # the group's new attributes, in the root's copy too
    assert ("vol/s1" if fmt == 3 else "vol/s1/.zarray") in _copy(tmp_path / "root.zarr", fmt)
    _agree(tmp_path / "root.zarr")


@FORMATS
def test_the_groups_copy_and_its_ancestors_copy_both_gain_the_array(tmp_path, fmt):
    vol = _root_with_volume(tmp_path / "root.zarr", fmt)
    zarr.consolidate_metadata(str(vol), zarr_format=fmt)
    wa.open_pyramid(vol, mode="r+").add_level("s1", factors=2)
    assert zarr.open_group(str(vol), mode="r")["s1"].shape == (4, 4, 4)
    assert zarr.open_group(str(tmp_path / "root.zarr"), mode="r")["vol/s1"].shape == (4, 4, 4)
    _agree(vol)
    _agree(tmp_path / "root.zarr")


@FORMATS
def test_bare_groups_made_on_the_way_join_the_ancestors_copy(tmp_path, fmt):
    root = tmp_path / "root.zarr"
    _consolidated(root, fmt, ome=False)
    wa.create(root / "a" / "b" / "vol" / "s0", (4, 4, 4), "uint8", 8, 4, chunks=4)
    group = zarr.open_group(str(root), mode="r")
    assert group["a/b/vol/s0"].shape == (4, 4, 4)
    assert _datasets(group["a/b/vol"]) == ["s0"]
    _agree(root)


@FORMATS
def test_a_copy_that_does_not_list_the_group_gains_it_with_the_array(tmp_path, fmt):
    root = tmp_path / "root.zarr"
    _consolidated(root, fmt, ome=False)  # consolidated before vol existed: the copy does not know vol
    _peer_group(root / "vol", fmt)
    wa.create(root / "vol" / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    group = zarr.open_group(str(root), mode="r")  # "vol/s1" without "vol" would stop zarr-python opening the root
    assert group["vol/s1"].shape == (4, 4, 4)
    assert _datasets(group["vol"]) == ["s0", "s1"]
    assert ("vol/s0" if fmt == 3 else "vol/s0/.zarray") not in _copy(root, fmt)  # nothing else: not the peer's s0


def test_a_group_a_copy_above_gains_carries_no_copy_of_its_own(tmp_path):
    root = tmp_path / "root.zarr"
    _consolidated(root, 3, ome=False)
    _consolidated(root / "vol", 3)  # vol's own copy, which the root's copy does not know
    wa.create(root / "vol" / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    # what vol holds is the root copy's, flat ("vol/s0" is not, "vol/s1" is), as zarr-python records a child group
    assert _copy(root, 3)["vol"]["consolidated_metadata"]["metadata"] == {}
    assert zarr.open_group(str(root), mode="r")["vol/s1"].shape == (4, 4, 4)


@FORMATS
def test_a_copy_above_a_directory_that_is_no_group_is_left_as_it_is(tmp_path, fmt):
    outer = _consolidated(tmp_path / "outer.zarr", fmt, ome=False)
    _peer_group(outer / "plain" / "vol.zarr", fmt)  # "plain" holds no group document: the hierarchy ends there
    for document in ("zarr.json", ".zgroup", ".zattrs"):
        (outer / "plain" / document).unlink(missing_ok=True)
    holder = outer / ("zarr.json" if fmt == 3 else ".zmetadata")
    before = holder.read_bytes()
    wa.create(outer / "plain" / "vol.zarr" / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    assert holder.read_bytes() == before
    assert set(zarr.open_group(str(outer), mode="r").array_keys()) == {"s0"}


# ---------------------------------------------------------------- concurrent writers lose nothing


@FORMATS
def test_threads_adding_levels_to_a_consolidated_group_lose_nothing_in_its_copies(tmp_path, fmt):
    vol = _root_with_volume(tmp_path / "root.zarr", fmt)
    zarr.consolidate_metadata(str(vol), zarr_format=fmt)
    names = [f"s{i}" for i in range(1, 7)]
    calls = [lambda i=i, name=name: wa.create(vol / name, (4, 4, 4), "uint8", 8 * i, 4 * i, chunks=4)
             for i, name in enumerate(names, start=1)]
    outcomes = [value for _, value in together(calls)]
    assert all(isinstance(outcome, wa.WorldArray) for outcome in outcomes), outcomes
    assert set(zarr.open_group(str(vol), mode="r").array_keys()) == {"s0", *names}
    assert sorted(_datasets(zarr.open_group(str(tmp_path / "root.zarr"), mode="r")["vol"])) == ["s0", *names]
    _agree(vol)
    _agree(tmp_path / "root.zarr")


@FORMATS
def test_threads_making_one_new_group_under_a_consolidated_root_lose_no_entry_in_its_copy(tmp_path, fmt):
    root = _consolidated(tmp_path / "root.zarr", fmt, ome=False)
    names = [f"s{i}" for i in range(1, 7)]
    calls = [lambda i=i, name=name: wa.create(root / "vol" / name, (4, 4, 4), "uint8", 8 * i, 4 * i, chunks=4)
             for i, name in enumerate(names, start=1)]
    outcomes = [value for _, value in together(calls)]
    assert all(isinstance(outcome, wa.WorldArray) for outcome in outcomes), outcomes
    group = zarr.open_group(str(root), mode="r")
    assert sorted(_datasets(group["vol"])) == names
    _agree(root)


def test_a_zmetadata_changed_after_it_was_read_is_read_again_and_merged(tmp_path, monkeypatch):
    path = _consolidated(tmp_path / "vol.zarr", 2)
    real, written = conditional._write_if, []

    def another_writer_first(directory, key, document, generation):
        if key == ".zmetadata" and not written:  # between our read and our write, another writer adds a key
            theirs = json.loads((path / ".zmetadata").read_text())
            theirs["metadata"]["theirs/.zgroup"] = {"zarr_format": 2}
            (path / ".zmetadata").write_text(json.dumps(theirs))
        outcome = real(directory, key, document, generation)
        if key == ".zmetadata":
            written.append(outcome)
        return outcome

    monkeypatch.setattr(conditional, "_write_if", another_writer_first)
    wa.create(path / "s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    assert written == [False, True]
    assert {"theirs/.zgroup", "s1/.zarray"} <= set(_copy(path, 2))
