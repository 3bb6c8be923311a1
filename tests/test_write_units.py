"""Write units and chunk indices of select and resampled handles (Behaviours 13, 15 and 16), and what a refused
write names.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa

#: (c, z, y, x): two channels per write unit on c
SHAPE, CHUNKS = (4, 8, 8, 8), (2, 4, 4, 4)
AXES = ("c", "z", "y", "x")


def _make(path: Path, shape=SHAPE, chunks=CHUNKS, **kwargs) -> wa.WorldArray:
    return wa.create(path, shape=shape, dtype="uint8", voxel_size=4, translation=2, axes=AXES, chunks=chunks,
                     **kwargs)


def _values(shape) -> np.ndarray:
    return (np.arange(np.prod(shape)) % 251 + 1).reshape(shape).astype("uint8")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)).replace(os.sep, "/") for p in root.rglob("*") if p.is_file()
            and not p.name.startswith((".z", "zarr.json"))}


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _grid(shape, unit):
    return list(itertools.product(*(range(-(-n // u)) for n, u in zip(shape, unit, strict=True))))


# ---------------------------------------------------------------- a refused write names the array


def _box(vol, begin, end, data):
    return vol.write((begin, end), data)


#: case -> the refused write
REFUSED = {
    "another dtype": lambda vol: vol.write_index((0,) * 4, CHUNKS, np.zeros(CHUNKS, np.int64)),
    "another shape": lambda vol: vol.write_index((0,) * 4, CHUNKS, np.zeros((2, 4, 4, 3), np.uint8)),
    "another number of axes": lambda vol: vol.write_index((0,) * 3, CHUNKS[1:], 0),
    "a misaligned bound": lambda vol: vol.write_index((0, 0, 0, 1), (2, 4, 4, 5), np.zeros(CHUNKS, np.uint8)),
    "an index box past the end": lambda vol: vol.write_index((0, 0, 0, 4), (2, 4, 4, 12), 0),
    "a scalar the dtype cannot hold": lambda vol: vol.write_index((0,) * 4, CHUNKS, 300),
    "a string": lambda vol: vol.write_index((0,) * 4, CHUNKS, "1"),
    "a world box outside": lambda vol: _box(vol, (-8, 0, 0), (0, 16, 16), 0),
    "a world box of another number of axes": lambda vol: _box(vol, (0, 0), (16, 16), 0),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_write_names_the_array(tmp_path, case):
    vol = _make(tmp_path / "a.zarr" / "s0")
    with pytest.raises(ValueError) as raised:
        REFUSED[case](vol)
    assert str(raised.value).startswith(f"{vol.level_path}: "), raised.value
