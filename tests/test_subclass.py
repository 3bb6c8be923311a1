"""WorldArray stays a class to subclass: a subclass with its own arguments, defaults and attributes pickles, reopens
and crosses a spawn process boundary as itself, with its attributes.

The two subclasses here are the two kinds our users ship: one sets padding, on_mismatch and its own method rule in
``__init__`` and applies a normalisation chain at read time; the other owns an integer-scaled frame built from
corner, voxel_size and shape and delegates its reads to ``read``.
"""

from __future__ import annotations

import multiprocessing
import pickle
from dataclasses import dataclass

import numpy as np
import pytest

import worldarray as wa

SHAPE = (6, 8, 10)


@dataclass(frozen=True)
class Scale:
    """A normalisation step that pickles: multiply by a factor."""

    factor: float

    def __call__(self, data: np.ndarray) -> np.ndarray:
        return data * self.factor


class ModelInput(wa.WorldArray):
    """Edge padding and relabelling by default, a method chosen from the dtype, and a chain applied at read time."""

    def __init__(self, path, norms=(), **options):
        self.norms = tuple(norms)
        options = {"padding": "edge", "on_mismatch": "relabel", **options}
        super().__init__(path, **options)
        self.method = "nearest" if self.dtype.kind in "iub" else "linear"

    def read(self, box, voxel_size=None, **options):
        data = super().read(box, voxel_size, **options)
        for norm in self.norms:
            data = norm(data)
        return data


class IntegerFrame(wa.WorldArray):
    """An integer-scaled frame: corner, voxel size and shape times ``scale``, whole numbers; reads through ``read``."""

    def __init__(self, path, scale: int, **options):
        super().__init__(path, **options)
        self.scale = scale
        self.frame_corner = tuple(round(c * scale) for c in self.corner)
        self.frame_voxel_size = tuple(round(v * scale) for v in self.voxel_size)
        self.frame_shape = tuple(self.shape[i] for i in self.spatial)

    def read_frame(self, begin, end):
        """Read a box given in the integer frame."""
        return self.read((tuple(b / self.scale for b in begin), tuple(e / self.scale for e in end)))


def _values() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)


@pytest.fixture
def volume(tmp_path):
    """A float32 level with 2.5 nm voxels and its corner at 10 nm, filled with its flat index."""
    vol = wa.create(tmp_path / "v.zarr" / "s0", SHAPE, "float32", 2.5, 11.25, chunks=SHAPE)
    vol.write_index((0, 0, 0), SHAPE, _values())
    return str(tmp_path / "v.zarr" / "s0")


def _state(handle) -> dict:
    return {k: v for k, v in vars(handle).items() if not k.startswith("_")}


def test_a_subclass_that_changes_defaults_pickles_as_itself_with_its_attributes(volume):
    handle = ModelInput(volume, norms=(Scale(2.0),), voxel_size=5.0)
    copy = pickle.loads(pickle.dumps(handle))
    assert type(copy) is ModelInput
    assert _state(copy) == _state(handle) == {"norms": (Scale(2.0),)}
    assert (copy.padding, copy.method, copy.voxel_size) == ("edge", "linear", (5.0, 5.0, 5.0))
    box = ((-5.0, 0.0, 0.0), (10.0, 10.0, 10.0))
    np.testing.assert_array_equal(copy.read(box), handle.read(box))


def test_a_subclass_read_applies_its_chain_after_the_base_read(volume):
    handle = ModelInput(volume, norms=(Scale(2.0), Scale(0.5), Scale(3.0)))
    base = wa.open(volume, padding="edge")
    np.testing.assert_array_equal(handle.read(handle.box), base.read(base.box) * 3.0)


def test_a_subclass_with_its_own_frame_pickles_and_reopens_as_itself(volume):
    handle = IntegerFrame(volume, scale=4)
    assert (handle.frame_corner, handle.frame_voxel_size) == ((40, 40, 40), (10, 10, 10))
    for copy in (pickle.loads(pickle.dumps(handle)), handle.reopen(), handle.reopen(context=wa.capped_context())):
        assert type(copy) is IntegerFrame
        assert _state(copy) == _state(handle)
        np.testing.assert_array_equal(copy.read_frame((40, 40, 40), (80, 60, 50)), _values()[:4, :2, :1])


def test_reopen_with_other_arguments_keeps_the_subclass_and_its_attributes(volume):
    handle = ModelInput(volume, norms=(Scale(2.0),))
    coarse = handle.reopen(voxel_size=5.0)
    assert type(coarse) is ModelInput and coarse.norms == (Scale(2.0),)
    assert coarse.voxel_size == (5.0, 5.0, 5.0) and coarse.padding == "edge"


def test_a_subclass_attribute_set_after_open_pickles_and_the_handles_own_state_does_not(volume):
    handle = IntegerFrame(volume, scale=4)
    handle.note = "added later"
    restore, (cls, path, options, context, extra) = handle.__reduce__()
    assert cls is IntegerFrame and context is None
    assert set(extra) == {"scale", "frame_corner", "frame_voxel_size", "frame_shape", "note"}
    assert restore(cls, path, options, context, extra).note == "added later"


@pytest.fixture(scope="module")
def worker():
    """One spawn worker process for the module's crossings (one interpreter start, not one per case)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        yield pool


def _read_in_a_worker(handle) -> tuple[str, dict, np.ndarray]:
    return type(handle).__name__, _state(handle), handle.read(handle.box)


@pytest.mark.parametrize("make", [lambda path: ModelInput(path, norms=(Scale(2.0),)),
                                  lambda path: IntegerFrame(path, scale=4)], ids=["model_input", "integer_frame"])
def test_a_subclass_crosses_a_spawn_process_boundary_as_itself(volume, make, worker):
    handle = make(volume)
    name, state, data = worker.apply(_read_in_a_worker, (handle,))
    assert (name, state) == (type(handle).__name__, _state(handle))
    np.testing.assert_array_equal(data, handle.read(handle.box))
