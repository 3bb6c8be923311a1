"""Behaviours 11 and 12, A4 and A6: create makes a placed level, follows the group's format, never destroys anything.

Every store lives under tmp_path. Group documents that are not the package's own are written as JSON by hand;
documents are compared parsed, array documents byte for byte.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa

SHAPE, CHUNKS = (10, 12, 14), (4, 4, 4)
ZYX = [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"]


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _group_attrs(group: Path) -> dict:
    if (group / "zarr.json").exists():
        return _read_json(group / "zarr.json").get("attributes", {})
    return _read_json(group / ".zattrs")


def _entry(path: str, voxel_size, translation) -> dict:
    """A dataset entry as OME writes it, typed out by hand."""
    return {"path": path, "coordinateTransformations": [
        {"type": "scale", "scale": [float(v) for v in voxel_size]},
        {"type": "translation", "translation": [float(v) for v in translation]}]}


def _tree(root: Path) -> dict[str, str]:
    """Every path under root with a digest of its bytes (directories map to "dir")."""
    out = {}
    for path in sorted(root.rglob("*")):
        out[str(path.relative_to(root))] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _make(path: Path, **kwargs) -> wa.WorldArray:
    args = dict(shape=SHAPE, dtype="uint8", voxel_size=(4, 4, 4), translation=(2, 2, 2), chunks=CHUNKS)
    args.update(kwargs)
    return wa.create(path, **args)


def _v3_group(root: Path, attrs: dict) -> None:
    _write_json(root / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": attrs})


def _v2_group(root: Path, attrs: dict) -> None:
    _write_json(root / ".zgroup", {"zarr_format": 2})
    _write_json(root / ".zattrs", attrs)


# ---------------------------------------------------------------- the format follows the group


def test_create_follows_a_zarr3_group(tmp_path):
    _v3_group(tmp_path / "g.zarr", {})
    _make(tmp_path / "g.zarr" / "s0")
    assert _read_json(tmp_path / "g.zarr" / "s0" / "zarr.json")["node_type"] == "array"
    assert not (tmp_path / "g.zarr" / "s0" / ".zarray").exists()
    assert _group_attrs(tmp_path / "g.zarr")["ome"]["version"] == "0.5"


def test_create_follows_a_zarr2_group(tmp_path):
    _v2_group(tmp_path / "g.zarr", {})
    _make(tmp_path / "g.zarr" / "s0")
    assert _read_json(tmp_path / "g.zarr" / "s0" / ".zarray")["zarr_format"] == 2
    assert not (tmp_path / "g.zarr" / "s0" / "zarr.json").exists()
    assert _group_attrs(tmp_path / "g.zarr")["multiscales"][0]["version"] == "0.4"


@pytest.mark.parametrize("fmt, document", [(None, "zarr.json"), ("zarr3", "zarr.json"), ("zarr2", ".zarray")])
def test_format_decides_only_when_no_group_document_exists(tmp_path, fmt, document):
    _make(tmp_path / "g.zarr" / "s0", format=fmt)
    assert (tmp_path / "g.zarr" / "s0" / document).exists()


@pytest.mark.parametrize("builder, group, fmt", [(_v3_group, "zarr3", "zarr2"), (_v2_group, "zarr2", "zarr3")])
def test_a_format_that_contradicts_the_group_raises(tmp_path, builder, group, fmt):
    builder(tmp_path / "g.zarr", {})
    with pytest.raises(ValueError, match=rf"format is '{fmt}'; the group .*g\.zarr .*is {group}"):
        _make(tmp_path / "g.zarr" / "s0", format=fmt)


def test_a_format_that_contradicts_the_nearest_existing_ancestor_raises(tmp_path):
    _v2_group(tmp_path / "c.zarr", {})
    with pytest.raises(ValueError, match=r"format is 'zarr3'; .*nearest existing ancestor\) is zarr2"):
        _make(tmp_path / "c.zarr" / "a" / "img" / "s0", format="zarr3")


def test_a_level_inside_a_zarr2_container_is_zarr2_with_ome_0_4(tmp_path):
    _v2_group(tmp_path / "c.zarr", {"foreign": 1})
    _make(tmp_path / "c.zarr" / "a" / "img" / "s0")
    assert (tmp_path / "c.zarr" / "a" / ".zgroup").exists()
    assert (tmp_path / "c.zarr" / "a" / "img" / ".zgroup").exists()
    assert _group_attrs(tmp_path / "c.zarr" / "a" / "img")["multiscales"][0]["version"] == "0.4"
    assert _read_json(tmp_path / "c.zarr" / "a" / "img" / "s0" / ".zarray")["zarr_format"] == 2
    assert _read_json(tmp_path / "c.zarr" / ".zattrs") == {"foreign": 1}


def test_bare_group_documents_are_written_down_from_the_zarr_directory(tmp_path):
    _make(tmp_path / "out" / "c.zarr" / "a" / "img" / "s0")
    for bare in (tmp_path / "out" / "c.zarr", tmp_path / "out" / "c.zarr" / "a"):
        doc = _read_json(bare / "zarr.json")
        assert (doc["zarr_format"], doc["node_type"], doc.get("attributes", {})) == (3, "group", {})
    assert "ome" in _group_attrs(tmp_path / "out" / "c.zarr" / "a" / "img")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["c.zarr"]


# ---------------------------------------------------------------- arguments checked before anything is written


def test_chunks_are_required(tmp_path):
    with pytest.raises(ValueError, match="chunks is required"):
        _make(tmp_path / "g.zarr" / "s0", chunks=None)


def test_shards_that_are_not_a_whole_number_of_chunks_raise(tmp_path):
    with pytest.raises(ValueError, match=r"shards is \(4, 5, 4\); expected a whole number of chunks"):
        _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 2), shards=(4, 5, 4))


def test_shards_in_a_zarr2_group_raise(tmp_path):
    _v2_group(tmp_path / "g.zarr", {})
    with pytest.raises(ValueError, match=r"shards is \(4, 4, 4\); .* sharding is zarr v3 only"):
        _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 2), shards=(4, 4, 4))


def test_codecs_default_to_zstd_level_3_in_the_zarr3_dialect(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", format="zarr3")
    codecs = _read_json(tmp_path / "g.zarr" / "s0" / "zarr.json")["codecs"]
    assert [c["name"] for c in codecs] == ["bytes", "zstd"]
    assert codecs[1]["configuration"]["level"] == 3


def test_codecs_default_to_zstd_level_3_in_the_zarr2_dialect(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", format="zarr2")
    zarray = _read_json(tmp_path / "g.zarr" / "s0" / ".zarray")
    assert zarray["compressor"] == {"id": "zstd", "level": 3}
    assert zarray["dimension_separator"] == "/"


def test_codecs_of_returns_the_inner_codecs_and_the_shards(tmp_path):
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 6}}]
    _make(tmp_path / "g.zarr" / "s0", dtype="uint16", chunks=(2, 2, 2), shards=(4, 4, 4), codecs=codecs)
    found, shards = wa.codecs_of(tmp_path / "g.zarr" / "s0")
    assert shards == (4, 4, 4)
    assert [c["name"] for c in found] == ["bytes", "gzip"] and found[1]["configuration"]["level"] == 6


# ---------------------------------------------------------------- nothing is ever destroyed


def test_an_existing_path_raises_file_exists_error(tmp_path):
    _make(tmp_path / "g.zarr" / "s0")
    with pytest.raises(FileExistsError, match=r"s0: something is already there \(zarr3 array\)"):
        _make(tmp_path / "g.zarr" / "s0")


@pytest.mark.parametrize("exists", ["error", "adopt"])
def test_a_path_holding_a_group_raises_file_exists_error(tmp_path, exists):
    _v3_group(tmp_path / "g.zarr" / "s0", {"mine": 1})
    # exists="error" refuses anything there; exists="adopt" refuses a group: both messages name what is there
    with pytest.raises(FileExistsError, match="zarr3 group"):
        _make(tmp_path / "g.zarr" / "s0", exists=exists)


def test_adopt_opens_an_identical_array_for_writing(tmp_path):
    first = _make(tmp_path / "g.zarr" / "s0")
    first.write_index((0, 0, 0), CHUNKS, np.full(CHUNKS, 9, np.uint8))
    document = (tmp_path / "g.zarr" / "s0" / "zarr.json").read_bytes()
    # placement within rtol 1e-6 counts as the same
    again = _make(tmp_path / "g.zarr" / "s0", translation=(2 * (1 + 1e-8), 2, 2), exists="adopt")
    assert again.writable
    assert (again.read_index((0, 0, 0), CHUNKS) == 9).all()
    assert (tmp_path / "g.zarr" / "s0" / "zarr.json").read_bytes() == document


ADOPT_REFUSED = r"exists='adopt' found an array that differs from the one asked for"


def _mentions(message: str, field: str, found, wanted) -> bool:
    pattern = rf"{re.escape(field)}[^;]*?{re.escape(str(found))}[^;]*?{re.escape(str(wanted))}"
    return re.search(pattern, message) is not None


def test_adopt_lists_every_difference_with_the_value_found_and_wanted(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", chunks=(2, 2, 2), shards=(4, 4, 4))
    with pytest.raises(ValueError, match=ADOPT_REFUSED) as raised:
        _make(tmp_path / "g.zarr" / "s0", shape=(10, 12, 16), dtype="uint16", voxel_size=(8, 8, 8),
              translation=(3, 3, 3), chunks=(4, 4, 4), exists="adopt")
    message = str(raised.value)
    assert _mentions(message, "shape", (10, 12, 14), (10, 12, 16)), message
    assert _mentions(message, "dtype", "uint8", "uint16"), message
    assert _mentions(message, "chunks", (2, 2, 2), (4, 4, 4)), message
    assert _mentions(message, "shards", (4, 4, 4), None), message
    assert _mentions(message, "voxel_size", (4.0, 4.0, 4.0), (8.0, 8.0, 8.0)), message
    assert _mentions(message, "translation", (2.0, 2.0, 2.0), (3.0, 3.0, 3.0)), message


@pytest.mark.parametrize("fmt", ["zarr3", "zarr2"])
def test_adopt_compares_each_given_attrs_key(tmp_path, fmt):
    _make(tmp_path / "g.zarr" / "s0", format=fmt, attrs={"a": 1, "b": [1, 2]})
    with pytest.raises(ValueError, match=ADOPT_REFUSED) as raised:
        _make(tmp_path / "g.zarr" / "s0", format=fmt, attrs={"a": 5, "c": "new"}, exists="adopt")
    message = str(raised.value)
    assert "'a'" in message and "1" in message and "5" in message, message
    assert "'c'" in message and "missing" in message, message


@pytest.mark.parametrize("fmt", ["zarr3", "zarr2"])
def test_adopt_does_not_compare_attrs_keys_not_given(tmp_path, fmt):
    _make(tmp_path / "g.zarr" / "s0", format=fmt, attrs={"a": 1, "b": [1, 2]})
    vol = _make(tmp_path / "g.zarr" / "s0", format=fmt, attrs={"b": [1, 2]}, exists="adopt")
    assert vol.writable


def _foreign_v3(root: Path) -> dict:
    raw = {"name": "raw", "axes": ZYX, "type": "mean", "metadata": {"method": "np.mean"},
           "coordinateTransformations": [{"type": "scale", "scale": [1.0, 1.0, 1.0]}],
           "datasets": [_entry("s0", (4, 4, 4), (2, 2, 2)), _entry("s2", (16, 16, 16), (8, 8, 8))]}
    labels = {"name": "labels", "axes": ZYX, "datasets": [_entry("s1", (99, 99, 99), (0, 0, 0))]}
    attrs = {"fs": {"root": "/nrs"}, "registry": {"id": 7, "tags": ["a"]}, "y0": 0, "y1": 128,
             "ome": {"version": "0.5", "multiscales": [raw, labels], "omero": {"channels": []}}}
    _write_json(root / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": attrs, "extra": {"k": 1}})
    return attrs


def _foreign_v2(root: Path) -> dict:
    raw = {"version": "0.4", "name": "raw", "axes": ZYX,
           "datasets": [_entry("s0", (4, 4, 4), (2, 2, 2)), _entry("s2", (16, 16, 16), (8, 8, 8))]}
    labels = {"version": "0.4", "name": "labels", "axes": ZYX, "datasets": [_entry("s1", (99, 99, 99), (0, 0, 0))]}
    attrs = {"fs": {"root": "/nrs"}, "registry": {"id": 7}, "y0": 0, "y1": 128, "multiscales": [raw, labels]}
    _v2_group(root, attrs)
    return attrs


@pytest.mark.parametrize("builder", [_foreign_v3, _foreign_v2], ids=["zarr3", "zarr2"])
def test_group_attributes_before_and_after_a_create_differ_in_that_one_entry(tmp_path, builder):
    root = tmp_path / "g.zarr"
    before = builder(root)
    _make(root / "s1", voxel_size=(8, 8, 8), translation=(6, 6, 6))
    expected = copy.deepcopy(before)
    multiscales = expected["ome"]["multiscales"] if "ome" in expected else expected["multiscales"]
    multiscales[0]["datasets"].insert(1, _entry("s1", (8, 8, 8), (6, 6, 6)))
    assert _group_attrs(root) == expected


def test_create_keeps_the_group_documents_other_keys(tmp_path):
    _foreign_v3(tmp_path / "g.zarr")
    _make(tmp_path / "g.zarr" / "s1", voxel_size=(8, 8, 8), translation=(6, 6, 6))
    assert _read_json(tmp_path / "g.zarr" / "zarr.json")["extra"] == {"k": 1}


def test_group_attrs_are_merged_into_the_groups_own(tmp_path):
    before = _foreign_v3(tmp_path / "g.zarr")
    _make(tmp_path / "g.zarr" / "s1", voxel_size=(8, 8, 8), translation=(6, 6, 6), group_attrs={"y0": 0, "new": [1]})
    after = _group_attrs(tmp_path / "g.zarr")
    assert after["new"] == [1]
    kept = {k: v for k, v in before.items() if k != "ome"}
    assert {k: v for k, v in after.items() if k not in ("new", "ome")} == kept


def test_create_replaces_a_listed_entry_of_the_same_name(tmp_path):
    root = tmp_path / "g.zarr"
    _v3_group(root, {"ome": {"version": "0.5", "multiscales": [{"axes": ZYX, "datasets": [
        _entry("s0", (4, 4, 4), (2, 2, 2)), _entry("s1", (5, 5, 5), (1, 1, 1))]}]}})
    _make(root / "s1", voxel_size=(8, 8, 8), translation=(6, 6, 6))
    datasets = _group_attrs(root)["ome"]["multiscales"][0]["datasets"]
    assert datasets == [_entry("s0", (4, 4, 4), (2, 2, 2)), _entry("s1", (8, 8, 8), (6, 6, 6))]


@pytest.mark.parametrize("fmt", ["zarr3", "zarr2"])
def test_create_leaves_a_sibling_arrays_documents_byte_for_byte(tmp_path, fmt):
    _make(tmp_path / "g.zarr" / "s0", format=fmt, attrs={"registry": {"id": 3}, "y0": 0})
    sibling = {p.name: p.read_bytes() for p in (tmp_path / "g.zarr" / "s0").iterdir() if p.is_file()}
    _make(tmp_path / "g.zarr" / "s1", format=fmt, voxel_size=(8, 8, 8), translation=(6, 6, 6))
    assert {p.name: p.read_bytes() for p in (tmp_path / "g.zarr" / "s0").iterdir() if p.is_file()} == sibling


def test_create_merges_attrs_into_the_arrays_own(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", attrs={"registry": {"id": 3}})
    assert _read_json(tmp_path / "g.zarr" / "s0" / "zarr.json")["attributes"] == {"registry": {"id": 3}}


def test_ensure_group_entry_lists_a_hand_made_array_and_leaves_it_byte_for_byte(tmp_path):
    root = tmp_path / "g.zarr"
    _make(root / "s0")
    kvstore = {"driver": "file", "path": str(root / "s1")}
    metadata = {"shape": [5, 6, 7], "data_type": "uint8", "dimension_names": ["z", "y", "x"], "attributes": {"mine": 1}}
    ts.open({"driver": "zarr3", "kvstore": kvstore, "metadata": metadata}, create=True).result()
    document = (root / "s1" / "zarr.json").read_bytes()
    wa.ensure_group_entry(root, "s1", (8, 8, 8), (4, 4, 4))
    assert _group_attrs(root)["ome"]["multiscales"][0]["datasets"][1] == _entry("s1", (8, 8, 8), (4, 4, 4))
    assert (root / "s1" / "zarr.json").read_bytes() == document


# ---------------------------------------------------------------- a lost creation race


def test_a_lost_creation_race_adopts_the_identical_array_that_won(tmp_path, lost_race):
    won = _make(tmp_path / "g.zarr" / "s0")
    won.write_index((0, 0, 0), CHUNKS, np.full(CHUNKS, 3, np.uint8))
    lost_race(tmp_path / "g.zarr" / "s0")
    vol = _make(tmp_path / "g.zarr" / "s0")
    assert vol.writable and (vol.read_index((0, 0, 0), CHUNKS) == 3).all()


def test_a_lost_creation_race_with_a_different_array_raises_listing_the_difference(tmp_path, lost_race):
    _make(tmp_path / "g.zarr" / "s0", shape=(10, 12, 15))
    lost_race(tmp_path / "g.zarr" / "s0")
    with pytest.raises(ValueError, match=ADOPT_REFUSED) as raised:
        _make(tmp_path / "g.zarr" / "s0")
    assert _mentions(str(raised.value), "shape", (10, 12, 15), SHAPE), str(raised.value)


def test_a_lost_race_is_re_read_with_backoff_of_half_a_second_times_the_attempt(tmp_path, lost_race):
    _make(tmp_path / "g.zarr" / "s0")
    slept = lost_race(tmp_path / "g.zarr" / "s0", absent=5)  # the first probe and four re-reads miss it
    assert _make(tmp_path / "g.zarr" / "s0").writable
    assert slept == pytest.approx([0.5, 1.0, 1.5, 2.0])


# ---------------------------------------------------------------- the round trip through wa.metadata


@pytest.mark.parametrize("fmt", ["zarr3", "zarr2"])
def test_a_created_level_reads_back_as_placed(tmp_path, fmt):
    _make(tmp_path / "g.zarr" / "s1", format=fmt, voxel_size=(4, 5.5, 6.25), translation=(2, -1.5, 1e-3))
    meta = wa.metadata(tmp_path / "g.zarr" / "s1")
    assert (meta.voxel_size, meta.translation) == ((4.0, 5.5, 6.25), (2.0, -1.5, 1e-3))
    assert (meta.axes, meta.units, meta.placed_by) == (("z", "y", "x"), ("nanometer",) * 3, "ome")


@pytest.mark.parametrize("fmt", ["zarr3", "zarr2"])
def test_a_created_czyx_level_reads_back_with_its_units_per_axis(tmp_path, fmt):
    units = ["", "nanometer", "micrometer", "micrometer"]
    _make(tmp_path / "g.zarr" / "s0", format=fmt, shape=(2, 4, 5, 6), axes=("c", "z", "y", "x"), units=units,
          chunks=(1, 2, 2, 2), voxel_size=(4, 0.5, 0.5), translation=(2, 0.25, -0.75))
    meta = wa.metadata(tmp_path / "g.zarr" / "s0")
    assert meta.axes == ("c", "z", "y", "x") and meta.units == tuple(units)
    assert meta.voxel_size == (1.0, 4.0, 0.5, 0.5) and meta.translation == (0.0, 2.0, 0.25, -0.75)
    assert meta.placed_by == "ome"


def test_a_level_placed_in_nanometer_inside_a_micrometer_group_reads_back_at_its_placement(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", voxel_size=(0.004,) * 3, translation=(0.002,) * 3, units="micrometer")
    _make(tmp_path / "g.zarr" / "s1", shape=(5, 6, 7), voxel_size=(8, 8, 8), translation=(4, 4, 4), units="nanometer")
    meta = wa.metadata(tmp_path / "g.zarr" / "s1", units="nanometer")
    assert meta.voxel_size == pytest.approx((8, 8, 8)) and meta.translation == pytest.approx((4, 4, 4))


def test_adopting_in_another_unit_leaves_the_levels_placement_as_it_was(tmp_path):
    _make(tmp_path / "g.zarr" / "s0", voxel_size=(0.004,) * 3, translation=(0.002,) * 3, units="micrometer")
    _make(tmp_path / "g.zarr" / "s0", voxel_size=(4, 4, 4), translation=(2, 2, 2), units="nanometer", exists="adopt")
    meta = wa.metadata(tmp_path / "g.zarr" / "s0", units="nanometer")
    assert meta.voxel_size == pytest.approx((4, 4, 4)) and meta.translation == pytest.approx((2, 2, 2))


# ---------------------------------------------------------------- a refused create changes nothing


#: case -> (create's arguments, the error, what its message names)
REFUSED = {
    "existing path": (dict(), FileExistsError, "something is already there"),
    "contradicting format": (dict(path="g.zarr/s1", format="zarr2"), ValueError, "format is 'zarr2'"),
    "missing chunks": (dict(path="g.zarr/s1", chunks=None), ValueError, "chunks is required"),
    "shards not whole chunks": (dict(path="g.zarr/s1", chunks=(2, 2, 2), shards=(3, 4, 4)), ValueError,
                                r"shards is \(3, 4, 4\)"),
    "unknown codec name": (dict(path="g.zarr/s1", codecs="lz5"), ValueError, "codecs is 'lz5'"),
    "unknown codec in a codecs list": (dict(path="g.zarr/s1", codecs=[{"name": "lz5"}]), ValueError,
                                       "tensorstore refuses the array's metadata: .*lz5"),
    "a zarr2 compressor for a zarr3 group": (dict(path="g.zarr/s1", codecs={"id": "zstd", "level": 3}), ValueError,
                                             "a zarr v2 compressor; a zarr v3 array takes a codecs list"),
    "unknown zarr2 compressor in a new container": (dict(path="new.zarr/s0", format="zarr2", codecs={"id": "lz5"}),
                                                    ValueError, "tensorstore refuses the array's metadata: .*lz5"),
    "zero voxel size": (dict(path="g.zarr/s1", voxel_size=(0, 4, 4)), ValueError, r"voxel_size is \(0, 4, 4\)"),
    "negative voxel size": (dict(path="g.zarr/s1", voxel_size=(4, -4, 4)), ValueError,
                            r"voxel_size is \(4, -4, 4\)"),
    "not a dtype": (dict(path="g.zarr/s1", dtype="notatype"), ValueError, "dtype is 'notatype'"),
    "adopt of a different array": (dict(dtype="uint16", exists="adopt"), ValueError,
                                   "dtype: found uint8, wanted uint16"),
    "a fill value the dtype cannot hold": (dict(path="g.zarr/s1", fill_value=300), ValueError,
                                           "fill_value is 300, which dtype uint8 cannot hold"),
    "group_attrs rewriting a foreign key": (dict(path="g.zarr/s1", group_attrs={"y1": 64}), ValueError,
                                            "group_attrs 'y1' is 64; the group already holds 128"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_create_changes_nothing_in_the_store(tmp_path, case):
    root = tmp_path / "g.zarr"
    _foreign_v3(root)
    _make(root / "s0").write_index((0, 0, 0), CHUNKS, np.ones(CHUNKS, np.uint8))
    before = _tree(tmp_path)
    kwargs, error, match = REFUSED[case]
    kwargs = dict(kwargs)
    with pytest.raises(error, match=match):
        _make(tmp_path / kwargs.pop("path", "g.zarr/s0"), **kwargs)
    assert _tree(tmp_path) == before


def test_a_level_created_in_memory_without_a_context_is_the_one_read_back():
    # memory:// data lives in a context: the array is made in the one every later open shares
    vol = wa.create("memory://tests/create/no_context.zarr/s0", (4, 6), "uint8", 2, 1, axes=("y", "x"), chunks=2)
    vol.write_index((0, 0), (4, 6), np.full((4, 6), 9, np.uint8))
    again = wa.open("memory://tests/create/no_context.zarr", level="s0")
    assert (again.voxel_size, again.translation) == ((2.0, 2.0), (1.0, 1.0))
    assert (again.read_index((0, 0), (4, 6)) == 9).all()
