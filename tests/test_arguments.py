"""Bad arguments are refused at the call, naming the argument, before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _pyramid(tmp_path):
    wa.create(tmp_path / "g.zarr" / "s0", (8, 8, 8), "uint8", 4, 2, chunks=4)
    return wa.open_pyramid(tmp_path / "g.zarr", mode="r+")


@pytest.mark.parametrize("name", ["../x", "/abs", "./s1", "s1/../s2", "", "a//b", 5, None])
def test_a_level_name_that_is_not_a_relative_path_of_plain_components_raises_writing_nothing(tmp_path, name):
    pyramid = _pyramid(tmp_path)
    before = _tree(tmp_path)
    with pytest.raises(ValueError, match=r"name is .*expected"):
        pyramid.add_level(name, factors=2)
    with pytest.raises(ValueError, match=r"name is .*expected"):
        wa.ensure_group_entry(tmp_path / "g.zarr", name, 8, 4)
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("path", ["", "   ", "g.zarr/../s0", "g.zarr/./s0"])
def test_create_refuses_an_empty_path_or_one_with_dot_components_writing_nothing(tmp_path, monkeypatch, path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"path is .*expected"):
        wa.create(path, (4,), "uint8", 1, 0.5, axes=("x",), chunks=4)
    assert _tree(tmp_path) == []


_BAD_CREATE = {
    "context": ("x", r"context is 'x'; expected a tensorstore\.Context"),
    "retries": (3, r"retries is 3; expected a wa\.Retry"),
    "store_fill": ("yes", r"store_fill is 'yes'; expected True or False"),
    "attrs": ([("a", 1)], r"attrs is \[\('a', 1\)\]; expected a dict"),
    "group_attrs": ("x", r"group_attrs is 'x'; expected a dict"),
    "codecs": (5, r"codecs is 5; expected"),
    "chunks": ((4, 0, 4), r"chunks is \(4, 0, 4\); expected whole numbers"),
    "units": ("parsec", r"units\['space'\] is 'parsec'"),
    "axes": (("z", "z", "x"), r"axes is \('z', 'z', 'x'\); expected 3 distinct names"),
    "exists": ("overwrite", r"exists is 'overwrite'; expected one of"),
}


@pytest.mark.parametrize("argument", sorted(_BAD_CREATE))
def test_a_refused_create_names_its_argument_and_writes_nothing(tmp_path, argument):
    value, message = _BAD_CREATE[argument]
    arguments = {"chunks": 4, argument: value}
    with pytest.raises(ValueError, match=message):
        wa.create(tmp_path / "c.zarr" / "s0", (8, 8, 8), "uint8", 4, 2, **arguments)
    assert _tree(tmp_path) == []


@pytest.mark.parametrize("argument,value", [("attrs", "x"), ("exists", "yes"), ("chunks", 0), ("codecs", 5)])
def test_a_refused_add_level_writes_nothing(tmp_path, argument, value):
    pyramid = _pyramid(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match=f"{argument} is"):
        pyramid.add_level("s1", factors=2, **{argument: value})
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_partial_takes_a_bool_only(tmp_path):
    vol = wa.create(tmp_path / "p.zarr" / "s0", (8,), "uint8", 1, 0.5, axes=("x",), chunks=4)
    with pytest.raises(ValueError, match="partial is 'yes'; expected True or False"):
        vol.write_index((0,), (2,), np.zeros(2, "uint8"), partial="yes")
    assert vol.list_chunks() == []


@pytest.mark.parametrize("argument,value", [("context", "x"), ("retries", 3), ("strict_units", "no"),
                                            ("store_fill", 1)])
def test_open_names_a_wrong_argument(tmp_path, argument, value):
    path = wa.create(tmp_path / "o.zarr" / "s0", (4,), "uint8", 1, 0.5, axes=("x",), chunks=4).level_path
    with pytest.raises(ValueError, match=f"{argument} is {value!r}"):
        wa.open(path, **{argument: value})


def test_create_of_a_relative_path_creates_below_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    vol = wa.create("rel.zarr/s0", (4,), "uint8", 1, 0.5, axes=("x",), chunks=4)
    assert vol.level_path == os.path.join(str(tmp_path), "rel.zarr", "s0")
