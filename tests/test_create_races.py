"""A17: the array first, its entry written by its creator alone, and group documents written conditionally.

Concurrent creators are real threads on one local store; a lost race is also simulated by a probe that says
"absent" once, so the loser's path through the code is certain. Sleeps of the race backoff are recorded, not slept,
where a test patches them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from conftest import together
from worldarray import conditional, retry, write

SHAPE, CHUNKS = (8, 8, 8), (4, 4, 4)
THREADS = 8


def _make(path: Path, **kwargs) -> wa.WorldArray:
    args = dict(shape=SHAPE, dtype="uint8", voxel_size=(4, 4, 4), translation=(2, 2, 2), chunks=CHUNKS)
    args.update(kwargs)
    return wa.create(path, **args)


def _group_document(group: Path) -> dict:
    return json.loads((group / "zarr.json").read_text())


def _datasets(group: Path) -> list[dict]:
    return _group_document(group)["attributes"]["ome"]["multiscales"][0]["datasets"]


def _listed(group: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Each dataset entry's path with its scale and translation."""
    out = {}
    for dataset in _datasets(group):
        transforms = {t["type"]: t for t in dataset["coordinateTransformations"]}
        out[dataset["path"]] = (transforms["scale"]["scale"], transforms["translation"]["translation"])
    return out


# ---------------------------------------------------------------- the lost race compares with the winner's entry


@pytest.mark.parametrize(("field", "mine"), [("translation", (6, 2, 2)), ("voxel_size", (8, 4, 4))])
def test_a_lost_race_with_another_placement_raises_and_leaves_the_winners_entry(tmp_path, lost_race, field, mine):
    group = tmp_path / "g.zarr"
    _make(group / "s0")
    before = (group / "zarr.json").read_bytes()
    lost_race(group / "s0")
    with pytest.raises(ValueError, match=field) as raised:
        _make(group / "s0", **{field: mine})
    assert str(tuple(float(v) for v in mine)) in str(raised.value)
    assert (group / "zarr.json").read_bytes() == before


def test_threads_creating_one_path_with_different_placements_leave_one_winner_and_its_entry(tmp_path):
    group = tmp_path / "g.zarr"
    calls = [lambda i=i: _make(group / "s0", translation=(2 + i, 2, 2), exists="adopt") for i in range(THREADS)]
    outcomes = together(calls)
    won = [result for kind, result in outcomes if kind == "ok"]
    refused = [result for kind, result in outcomes if kind == "error"]
    assert len(won) == 1, outcomes
    assert all(isinstance(error, ValueError) and "translation" in str(error) for error in refused), refused
    assert _listed(group)["s0"][1] == list(won[0].translation)
    assert wa.metadata(group / "s0").translation == won[0].translation


def test_threads_adding_different_levels_to_one_group_lose_no_entry(tmp_path):
    group = tmp_path / "g.zarr"
    _make(group / "s0")
    calls = [lambda i=i: _make(group / f"s{i}", voxel_size=(4 * i, 4 * i, 4 * i)) for i in range(1, THREADS + 1)]
    outcomes = together(calls)
    assert [kind for kind, _ in outcomes] == ["ok"] * THREADS, outcomes
    assert sorted(_listed(group)) == sorted(["s0"] + [f"s{i}" for i in range(1, THREADS + 1)])
    assert [d["path"] for d in _datasets(group)] == ["s0"] + [f"s{i}" for i in range(1, THREADS + 1)]


def test_a_group_document_changed_after_it_was_read_is_read_again_and_merged(tmp_path, monkeypatch):
    group = tmp_path / "g.zarr"
    _make(group / "s0")
    real, written = conditional._write_if, []

    def another_writer_first(directory, key, document, generation):
        if not written:  # between our read and our write, another writer adds a key of its own
            theirs = _group_document(group)
            theirs["attributes"]["theirs"] = 1
            (group / "zarr.json").write_text(json.dumps(theirs))
        written.append(real(directory, key, document, generation))
        return written[-1]

    monkeypatch.setattr(conditional, "_write_if", another_writer_first)
    _make(group / "s1", voxel_size=(8, 8, 8))
    assert written == [False, True]
    assert _group_document(group)["attributes"]["theirs"] == 1
    assert sorted(_listed(group)) == ["s0", "s1"]


# ---------------------------------------------------------------- an identical adopt writes nothing


def test_an_identical_adopt_writes_nothing_and_keeps_the_order_of_equal_scales(tmp_path):
    group = tmp_path / "g.zarr"
    _make(group / "s0")
    _make(group / "alt", translation=(4, 4, 4))
    before = (group / "zarr.json").read_bytes()
    assert [d["path"] for d in _datasets(group)] == ["s0", "alt"]
    _make(group / "s0", exists="adopt")
    assert (group / "zarr.json").read_bytes() == before
    assert wa.open(group, level="first").level_path.endswith("s0")


def test_replacing_an_entry_keeps_its_place_among_equal_scales(tmp_path):
    group = tmp_path / "g.zarr"
    _make(group / "s0")
    _make(group / "alt", translation=(4, 4, 4))
    wa.ensure_group_entry(group, "s0", (4, 4, 4), (6, 6, 6))
    assert [d["path"] for d in _datasets(group)] == ["s0", "alt"]
    assert _listed(group)["s0"][1] == [6.0, 6.0, 6.0]


# ---------------------------------------------------------------- an array without its entry


def test_an_array_no_entry_lists_is_readable_and_adopt_names_ensure_group_entry(tmp_path, monkeypatch):
    slept = []
    monkeypatch.setattr(retry.time, "sleep", slept.append)
    group = tmp_path / "g.zarr"
    _make(group / "s0")
    kvstore = {"driver": "file", "path": str(group / "s1")}
    metadata = {"shape": list(SHAPE), "data_type": "uint8", "dimension_names": ["z", "y", "x"],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(CHUNKS)}}}
    ts.open({"driver": "zarr3", "kvstore": kvstore, "metadata": metadata}, create=True).result()  # a job killed here
    with pytest.warns(wa.MetadataWarning) as warned:
        assert wa.open(group / "s1").shape == SHAPE
    assert any("lists levels in its multiscales but not this array" in str(w.message) for w in warned)
    with pytest.raises(FileExistsError, match="ensure_group_entry"):
        _make(group / "s1", voxel_size=(8, 8, 8), exists="adopt")
    assert len(slept) == retry.RACE_ATTEMPTS
    assert sorted(_listed(group)) == ["s0"]
    wa.ensure_group_entry(group, "s1", (8, 8, 8), (2, 2, 2))
    assert _make(group / "s1", voxel_size=(8, 8, 8), exists="adopt").voxel_size == (8.0, 8.0, 8.0)


# ---------------------------------------------------------------- nothing inside an array


@pytest.mark.parametrize("below", ["sub/s0", "s0"])
def test_create_under_an_existing_array_raises_naming_it_and_writes_nothing(tmp_path, below):
    array = _make(tmp_path / "a.zarr" / "s0")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(FileExistsError, match=str(tmp_path / "a.zarr" / "s0").replace("\\", "\\\\")):
        _make(tmp_path / "a.zarr" / "s0" / below)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert array.read_index((0, 0, 0), SHAPE).shape == SHAPE


# ---------------------------------------------------------------- add_level from the finest


def test_add_level_without_from_level_derives_from_the_finest_listed_level(tmp_path):
    group = tmp_path / "g.zarr"
    _make(group / "s1", voxel_size=(8, 8, 8), translation=(4, 4, 4))
    _make(group / "s0")
    document = _group_document(group)  # another tool listed the coarse level first
    datasets = document["attributes"]["ome"]["multiscales"][0]["datasets"]
    document["attributes"]["ome"]["multiscales"][0]["datasets"] = sorted(datasets, key=lambda d: d["path"])[::-1]
    (group / "zarr.json").write_text(json.dumps(document))
    assert wa.open_pyramid(group).names[0] == "s1"
    added = wa.open_pyramid(group, mode="r+").add_level("s2", factors=2)
    finest = wa.metadata(group / "s0")
    assert added.voxel_size == tuple(2 * v for v in finest.voxel_size)
    assert added.shape == tuple(int(np.ceil(n / 2)) for n in finest.shape)


# ---------------------------------------------------------------- a retry that finds its own array (A7)


class _Late:
    """A future whose answer never comes in time (the array behind it was made all the same)."""

    def result(self, timeout=None):
        raise TimeoutError("no answer")

    def cancel(self):
        return True


def test_a_retry_that_finds_the_array_its_timed_out_attempt_made_adopts_it_and_writes_its_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(retry.time, "sleep", lambda seconds: None)
    real, opened = write.ts.open, []

    def first_answer_lost(spec, **kwargs):
        if spec["kvstore"]["driver"] == "file" and not opened:
            opened.append(real(spec, **kwargs).result())  # the array is made, the answer is lost
            return _Late()
        return real(spec, **kwargs)

    monkeypatch.setattr(write.ts, "open", first_answer_lost)
    group = tmp_path / "g.zarr"
    vol = _make(group / "s0", translation=(6, 2, 2), retries=wa.Retry(timeout=5, max_attempts=3))
    assert opened and vol.translation == (6.0, 2.0, 2.0)
    assert _listed(group)["s0"] == ([4.0, 4.0, 4.0], [6.0, 2.0, 2.0])
