"""A large resampled read goes slab by slab along its first axis, and the slabs are the one read voxel for voxel."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

import worldarray as wa
from worldarray import reading, resample


@pytest.fixture
def vol():
    v = wa.create(f"memory://slabs/{uuid.uuid4().hex}.zarr/s0", (2, 40, 24, 20), "uint16", (4.0, 3.0, 5.0),
                  (2.0, 1.5, 2.5), axes=("c", "z", "y", "x"), chunks=(1, 8, 8, 8))
    v.write_index((0, 0, 0, 0), v.shape, np.random.default_rng(3).integers(0, 60000, v.shape, dtype=np.uint16))
    return v


def _read(monkeypatch, slab_bytes, call):
    """``call()`` with slabs of ``slab_bytes``, and how many slabs (resample.read calls) it took."""
    monkeypatch.setattr(reading, "SLAB_BYTES", slab_bytes)
    calls = []
    original = resample.read
    monkeypatch.setattr(resample, "read", lambda *args: calls.append(1) or original(*args))
    return call(), len(calls)


CASES = {
    "linear 2x": lambda v: v.read(v.box, voxel_size=8.0, method="linear"),
    "linear 1.3x": lambda v: v.read(v.box, voxel_size=(5.2, 3.9, 6.5), method="linear"),
    "nearest 0.7x, edge": lambda v: v.read(((-10.0, -3.0, 0.0), (170.0, 130.0, 90.0)), voxel_size=2.8,
                                           padding="edge"),
    "linear, mask, fill": lambda v: v.read(((-10.0, -3.0, 0.0), (170.0, 130.0, 90.0)), voxel_size=6.0,
                                           method="linear", padding=7, mask=True),
    "select": lambda v: v.read(v.box, voxel_size=(8.0, 6.0, 10.0), method="linear", select={"c": 1}),
    "read_onto": lambda v: v.read_onto(wa.Grid((30, 20, 10), (5.0, 4.0, 9.0), (1.0, 2.0, 3.0), axes=("z", "y", "x")),
                                       method="linear"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_read_by_slabs_equals_the_read_at_once(vol, monkeypatch, case):
    at_once, one = _read(monkeypatch, 2**40, lambda: CASES[case](vol))
    by_slabs, many = _read(monkeypatch, 2048, lambda: CASES[case](vol))
    assert one == 1 and many > 2  # the second read really went by slabs
    for a, b in zip(at_once if isinstance(at_once, tuple) else (at_once,),
                    by_slabs if isinstance(by_slabs, tuple) else (by_slabs,), strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
