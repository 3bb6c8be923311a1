"""Behaviour 17 (a Grid is a WorldArray without a store), Behaviour 4's target grid, A1 (reading onto a grid), and
the write units and chunk indices of select and resampled handles (Behaviours 13, 15 and 16), with what a refused
write names.

A select handle indexes its own axes (pinned axes gone) everywhere; the pinned axes count in the alignment rule and
are filled in by chunk_key. A resampled handle's chunk indices are the stored level's. Expected keys are the files
tensorstore writes, expected chunks come from the geometry or from what a read still returns once the other chunks
are gone, never from the implementation.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import os
import pickle
import re
import uuid
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import worldarray as wa

# shape, voxel size, translation, axes, units, chunks, shards
FACTS = [
    ((10, 12), (8.0, 4.0), (4.0, 2.0), None, "nanometer", (5, 5), None),
    ((3, 10, 12), (8.0, 4.0), (4.3, -2.9), ("c", "y", "x"), "micrometer", (1, 5, 5), (1, 10, 10)),
    ((7, 9, 11), 3.5, 1.0, ("z", "y", "x"), "nm", (4, 4, 4), (8, 8, 4)),
]


def _grid_and_array(path, facts, dtype="uint16"):
    shape, voxel_size, translation, axes, units, chunks, shards = facts
    grid = wa.Grid(shape, voxel_size, translation, axes=axes, units=units, chunks=chunks, shards=shards)
    vol = wa.create(path, shape, dtype, voxel_size, translation, axes=axes, units=units, chunks=chunks,
                    shards=shards)
    return grid, vol


# ---------------------------------------------------------------- a Grid answers as a WorldArray of its facts


@pytest.mark.parametrize("facts", FACTS)
def test_a_grid_answers_box_corner_write_shape_and_blocks_as_the_array_of_its_facts(tmp_path, facts):
    grid, vol = _grid_and_array(str(tmp_path / "v.zarr" / "s0"), facts)
    assert (grid.shape, grid.axes, grid.spatial) == (vol.shape, vol.axes, vol.spatial)
    assert (grid.voxel_size, grid.translation, grid.corner) == (vol.voxel_size, vol.translation, vol.corner)
    assert grid.box == vol.box
    assert grid.write_shape == vol.write_shape
    assert list(grid.blocks()) == list(vol.blocks())
    assert list(grid.blocks(3, context=2, clip=False)) == list(vol.blocks(3, context=2, clip=False))


@pytest.mark.parametrize("facts", FACTS)
def test_a_grid_answers_index_box_and_chunks_covering_as_the_array_of_its_facts(tmp_path, facts):
    grid, vol = _grid_and_array(str(tmp_path / "v.zarr" / "s0"), facts)
    corner, size = np.array(vol.corner), np.array(vol.voxel_size)
    for begin, end in [(corner, corner + 3 * size), (corner - 7.3, corner + 5.1 * size), (corner + 0.5 * size,
                                                                                          corner + 100 * size)]:
        box = (tuple(begin), tuple(end))
        assert grid.index_box(box) == vol.index_box(box)
    for first, last in [((0,) * vol.meta.ndim, vol.shape), ((1,) * vol.meta.ndim, tuple(n - 1 for n in vol.shape))]:
        assert grid.chunks_covering(first, last) == vol.chunks_covering(first, last)
        assert grid.chunks_covering(first, last, write=True) == vol.chunks_covering(first, last, write=True)


@pytest.mark.parametrize(("facts", "fmt"), [(f, "zarr3") for f in FACTS] + [(f, "zarr2") for f in FACTS if not f[6]])
def test_grid_meta_equals_the_meta_of_the_array_created_from_it_on_every_field_a_grid_knows(tmp_path, facts, fmt):
    shape, voxel_size, translation, axes, units, chunks, shards = facts
    grid = wa.Grid(shape, voxel_size, translation, axes=axes, units=units, chunks=chunks, shards=shards)
    vol = wa.create(str(tmp_path / "v.zarr" / "s0"), grid=grid, dtype="int16", format=fmt)
    planned = dataclasses.asdict(grid.meta("int16"))
    made = dataclasses.asdict(vol.meta)
    stores = {"path", "parent", "format", "attrs", "group_attrs", "fill_value", "related"}
    assert {k: v for k, v in planned.items() if k not in stores} == {k: v for k, v in made.items() if k not in stores}
    assert set(planned) - stores == {"shape", "dtype", "chunk_shape", "shard_shape", "axes", "axes_named", "units",
                                     "voxel_size", "translation", "placed_by", "spatial_axes", "crs"}


def test_create_from_a_grid_makes_the_array_create_from_its_facts_makes(tmp_path):
    facts = FACTS[1]
    grid = wa.Grid(*facts[:3], axes=facts[3], units=facts[4], chunks=facts[5], shards=facts[6])
    from_grid = wa.create(str(tmp_path / "a.zarr" / "s0"), grid=grid, dtype="uint8")
    _, from_facts = _grid_and_array(str(tmp_path / "b.zarr" / "s0"), facts, "uint8")
    assert dataclasses.replace(from_grid.meta, path="", parent=None) == dataclasses.replace(from_facts.meta, path="",
                                                                                             parent=None)
    assert from_grid.voxel_size == (8.0, 4.0) and from_grid.meta.units[1:] == ("micrometer", "micrometer")


def test_grid_from_meta_is_the_arrays_own_grid(tmp_path):
    grid, vol = _grid_and_array(str(tmp_path / "v.zarr" / "s0"), FACTS[1])
    assert wa.Grid.from_meta(wa.metadata(vol.path)) == grid
    assert wa.Grid.from_meta(vol.meta) == grid


@pytest.mark.parametrize(("n", "s", "t"), [(10, 4.0, 8.0), (11, 4.0, 8.0), (10, 4.0, 3.0), (7, 5.0, 4.0), (9, 6, 15)])
def test_grid_from_meta_at_a_voxel_size_is_behaviour_4s_target_grid_anchored_at_the_corner(tmp_path, n, s, t):
    vol = wa.create(str(tmp_path / "v.zarr" / "s0"), (n, n), "uint8", s, 1.7, chunks=4)
    target = wa.Grid.from_meta(vol.meta, voxel_size=t)
    assert target.shape == (math.ceil(n * s / t),) * 2
    assert target.voxel_size == (t, t)
    assert target.corner == pytest.approx(vol.corner)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), s=st.sampled_from([1.0, 3.0, 4.0, 8.0, 10.48]), t=st.sampled_from([2.0, 5.0, 8.0, 16.0]),
       translation=st.floats(-100, 100, allow_nan=False))
def test_a_read_at_the_target_voxel_size_fills_the_target_grid_exactly(n, s, t, translation):
    vol = wa.create(f"memory://grid/fill-{uuid.uuid4().hex}.zarr/s0", (n,), "uint8", s, translation, axes=("x",),
                    chunks=8)
    vol.write_index((0,), (n,), np.arange(1, n + 1, dtype="uint8"))
    target = wa.Grid.from_meta(vol.meta, voxel_size=t)
    data, inside = vol.read(target.box, voxel_size=t, mask=True)
    assert data.shape == target.shape
    # anchored at the source corner: target voxel j is data exactly when its centre lies before the data's end
    assert inside.tolist() == [(j + 0.5) * t < n * s for j in range(target.shape[0])]


def test_a_grid_pickles_compares_and_hashes_by_its_facts():
    grid = wa.Grid(*FACTS[1][:3], axes=FACTS[1][3], units=FACTS[1][4], chunks=FACTS[1][5], shards=FACTS[1][6])
    again = pickle.loads(pickle.dumps(grid))
    assert again == grid and hash(again) == hash(grid)
    assert wa.Grid((10, 12), 8, 4, chunks=5) != wa.Grid((10, 12), 8, 4.5, chunks=5)
    with pytest.raises(AttributeError, match="immutable"):
        grid.chunks = (2, 2, 2)  # type: ignore[misc]


def test_a_grid_without_chunks_is_one_write_unit_and_create_refuses_it(tmp_path):
    grid = wa.Grid((10, 12), 8, 4)
    assert grid.write_shape == (10, 12) and len(grid.blocks()) == 1
    with pytest.raises(ValueError, match="no chunks"):
        wa.create(str(tmp_path / "v.zarr" / "s0"), grid=grid, dtype="uint8")
    assert not (tmp_path / "v.zarr").exists()


@pytest.mark.parametrize(("call", "named"), [
    (lambda: wa.Grid((10, -1), 8, 4), "shape is"),
    (lambda: wa.Grid((10, 10), 0, 4), "voxel_size"),
    (lambda: wa.Grid((10, 10), 8, (1, 2, 3)), "translation"),
    (lambda: wa.Grid((10, 10), 8, 4, axes=("y", "y")), "axes is"),
    (lambda: wa.Grid((10, 10), 8, 4, chunks=(0, 4)), "chunks is"),
    (lambda: wa.Grid((10, 10), 8, 4, shards=8), "shards is 8 and chunks is None"),
    (lambda: wa.Grid((10, 10), 8, 4, chunks=4, shards=6), "not a multiple of 4"),
    (lambda: wa.Grid((10, 10), 8, 4, units="pixel"), "pixel"),
    (lambda: wa.Grid.from_meta({"shape": (10, 10)}), "expected an ArrayMeta"),
])
def test_bad_grid_arguments_raise_naming_them(call, named):
    with pytest.raises(ValueError, match=named):
        call()


@pytest.mark.parametrize(("extra", "named"), [({"shape": (10, 12)}, "shape"), ({"chunks": 4}, "chunks"),
                                              ({"units": "nm"}, "units")])
def test_create_with_a_grid_and_its_facts_again_raises_and_makes_nothing(tmp_path, extra, named):
    grid = wa.Grid((10, 12), 8, 4, chunks=5)
    with pytest.raises(ValueError, match=f"grid is given with {named}"):
        wa.create(str(tmp_path / "v.zarr" / "s0"), grid=grid, dtype="uint8", **extra)
    assert not (tmp_path / "v.zarr").exists()


def test_create_without_a_grid_or_its_facts_names_what_is_missing(tmp_path):
    with pytest.raises(ValueError, match="voxel_size, translation not given"):
        wa.create(str(tmp_path / "v.zarr" / "s0"), (10, 12), "uint8", chunks=5)


# ---------------------------------------------------------------- reading onto a grid (A1)


def _line(path, n=12, voxel=4.0, translation=2.0, dtype="float32"):
    """A 1-D array x of n voxels holding 10, 11, 12, ..."""
    vol = wa.create(path, (n,), dtype, voxel, translation, axes=("x",), chunks=5)
    vol.write_index((0,), (n,), np.arange(10, 10 + n, dtype=dtype))
    return vol


def _centre_in(grid_corner, size, stored_translation, n_stored, j):
    """By search: the stored voxel whose centre lies in grid voxel j, or None."""
    lo, hi = grid_corner + j * size, grid_corner + (j + 1) * size
    found = [i for i in range(-50, n_stored + 50) if lo <= stored_translation + i * size < hi]
    return found[0]


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize("grid_translation", [3.3, 4.5, 0.1, 2.0 + 4.0, 1.999, -5.2])
def test_read_onto_at_the_arrays_own_voxel_size_resamples_nothing_whatever_the_sub_voxel_shift(grid_translation,
                                                                                               method):
    vol = _line(f"memory://onto/own-{uuid.uuid4().hex}.zarr/s0")
    grid = wa.Grid(8, 4.0, grid_translation, axes=("x",))
    got = vol.read_onto(grid, method=method, padding=-1)
    wanted = [_centre_in(grid.corner[0], 4.0, 2.0, 12, j) for j in range(8)]
    assert got.tolist() == [10 + i if 0 <= i < 12 else -1 for i in wanted]


def test_read_onto_half_a_voxel_off_takes_the_stored_voxel_whose_centre_starts_the_grid_voxel():
    vol = _line(f"memory://onto/half-{uuid.uuid4().hex}.zarr/s0")
    grid = wa.Grid(4, 4.0, 4.0, axes=("x",))  # grid voxel 0 is [2, 6): stored voxel 0's centre 2 starts it
    assert vol.read_onto(grid, method="linear").tolist() == [10, 11, 12, 13]


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize(("size", "translation"), [(8.0, 4.0), (6.0, 1.0), (3.0, 0.7), (12.0, -3.0)])
def test_read_onto_at_another_voxel_size_resamples_onto_the_grid(size, translation, method):
    vol = _line(f"memory://onto/other-{uuid.uuid4().hex}.zarr/s0", n=24)
    grid = wa.Grid(10, size, translation, axes=("x",))
    got = vol.read_onto(grid, method=method)
    wanted = vol.read(grid.box, voxel_size=size, anchor=grid.corner, method=method)
    np.testing.assert_array_equal(got, wanted)
    assert got.shape == (10,)


def test_read_onto_a_grid_twice_as_coarse_and_aligned_is_the_block_mean_under_linear():
    vol = _line(f"memory://onto/mean-{uuid.uuid4().hex}.zarr/s0", n=12)
    grid = wa.Grid(6, 8.0, 4.0, axes=("x",))  # corner 0, the array's corner
    assert vol.read_onto(grid, method="linear").tolist() == [10.5, 12.5, 14.5, 16.5, 18.5, 20.5]
    assert vol.read_onto(grid, method="nearest").tolist() == [11, 13, 15, 17, 19, 21]


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize(("size", "translation"), [(4.0, 3.3), (8.0, 4.0), (6.0, 1.0), (2.5, 0.2)])
@pytest.mark.parametrize("split", [1, 3, 4, 7])
def test_two_adjoining_read_onto_calls_equal_one(size, translation, method, split):
    vol = _line(f"memory://onto/adjoin-{uuid.uuid4().hex}.zarr/s0", n=20)
    grid = wa.Grid(12, size, translation, axes=("x",))
    whole = vol.read_onto(grid, method=method)
    parts = [vol.read_onto(grid, (0,), (split,), method=method), vol.read_onto(grid, (split,), (12,), method=method)]
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_read_onto_returns_exactly_end_minus_begin_voxels_when_sizes_agree_within_rtol():
    vol = _line(f"memory://onto/rtol-{uuid.uuid4().hex}.zarr/s0", n=2000, voxel=4.0)
    grid = wa.Grid(2000, 4.0 * (1 + 5e-7), 2.0, axes=("x",))
    got = vol.read_onto(grid, (1500,), (1990,))
    assert got.shape == (490,)
    assert got.tolist() == list(range(1510, 2000))


def test_read_onto_converts_the_grids_units_to_the_arrays():
    vol = _line(f"memory://onto/units-{uuid.uuid4().hex}.zarr/s0")
    in_nm = wa.Grid(6, 8.0, 3.0, axes=("x",))
    in_um = wa.Grid(6, 0.008, 0.003, axes=("x",), units="micrometer")
    np.testing.assert_array_equal(vol.read_onto(in_um, method="linear"), vol.read_onto(in_nm, method="linear"))
    own_um = wa.Grid(6, 0.004, 0.0033, axes=("x",), units="micrometer")
    assert vol.read_onto(own_um).tolist() == vol.read_onto(wa.Grid(6, 4.0, 3.3, axes=("x",))).tolist()


def test_read_onto_voxels_outside_the_grid_and_the_data_are_padded():
    vol = _line(f"memory://onto/pad-{uuid.uuid4().hex}.zarr/s0")
    grid = wa.Grid(12, 4.0, 2.0, axes=("x",))
    data, inside = vol.read_onto(grid, (-2,), (3,), padding=-7, mask=True)
    assert data.tolist() == [-7, -7, 10, 11, 12]
    assert inside.tolist() == [False, False, True, True, True]


def test_read_onto_reads_other_axes_as_read_does(tmp_path):
    vol = wa.create(str(tmp_path / "c.zarr" / "s0"), (3, 6, 8), "uint16", 4.0, 2.0, axes=("c", "y", "x"), chunks=4)
    values = np.arange(3 * 6 * 8, dtype="uint16").reshape(3, 6, 8)
    vol.write_index((0, 0, 0), (3, 6, 8), values)
    grid = wa.Grid((6, 8), 4.0, 2.0, axes=("y", "x"))
    np.testing.assert_array_equal(vol.read_onto(grid), values)
    np.testing.assert_array_equal(vol.read_onto(grid, (1, 2), (3, 5), select={"c": 1}), values[1, 1:3, 2:5])


@pytest.mark.parametrize("axes", [("z", "x"), ("y",), ("x", "y")])
def test_read_onto_a_grid_whose_spatial_axes_differ_raises_naming_both(tmp_path, axes):
    vol = wa.create(str(tmp_path / "v.zarr" / "s0"), (6, 8), "uint8", 4.0, 2.0, axes=("y", "x"), chunks=4)
    grid = wa.Grid((6,) * len(axes), 4.0, 2.0, axes=axes)
    with pytest.raises(ValueError, match=rf"grid's spatial axes are {re.escape(str(axes))} and this array's are "
                                         r"\('y', 'x'\)"):
        vol.read_onto(grid)


@pytest.mark.parametrize(("begin", "end", "named"), [((0, 0), (2,), "begin is"), ((0.5,), (2,), "begin is"),
                                                     ((3,), (2,), "after end")])
def test_read_onto_bad_voxel_bounds_raise_naming_them(begin, end, named):
    vol = _line(f"memory://onto/bad-{uuid.uuid4().hex}.zarr/s0")
    with pytest.raises(ValueError, match=named):
        vol.read_onto(wa.Grid(12, 4.0, 2.0, axes=("x",)), begin, end)


def test_read_onto_from_a_resampled_handle_at_the_stored_voxel_size_reads_stored_voxels():
    path = f"memory://onto/resampled-{uuid.uuid4().hex}.zarr/s0"
    plain = _line(path)
    coarse = wa.open(path, voxel_size=6.0, on_mismatch="resample", method="linear")
    grid = wa.Grid(10, 4.0, 3.3, axes=("x",))
    np.testing.assert_array_equal(coarse.read_onto(grid, padding=0), plain.read_onto(grid, padding=0))


def test_read_onto_another_handle_reads_onto_that_handles_grid_in_its_units(tmp_path):
    s0 = wa.create(str(tmp_path / "p.zarr" / "s0"), (8, 8), "float32", 4.0, 2.0, chunks=4)
    s0.write_index((0, 0), (8, 8), np.arange(64, dtype="float32").reshape(8, 8))
    s1 = wa.open_pyramid(str(tmp_path / "p.zarr"), mode="r+").add_level("s1", factors=2, units="micrometer")
    assert s1.voxel_size == (0.008, 0.008)
    got = s0.read_onto(s1, method="linear")
    assert got.tolist() == np.arange(64, dtype="float32").reshape(4, 2, 4, 2).mean(axis=(1, 3)).tolist()


# ---------------------------------------------------------------- write units of select and resampled handles

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


# ---------------------------------------------------------------- select: the pinned axis counts in the alignment


def test_a_select_handle_refuses_a_write_covering_part_of_a_pinned_axis_unit(tmp_path):
    _make(tmp_path / "a.zarr" / "s0").write_index((0, 0, 0, 0), SHAPE, _values(SHAPE))
    before = _tree(tmp_path)
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    with pytest.raises(ValueError, match="axis 'c'") as raised:
        vol.write_index((0, 0, 0), (4, 4, 4), np.zeros((4, 4, 4), np.uint8))
    assert re.search(rf"write unit {CHUNKS[0]}\b", str(raised.value)), raised.value
    assert _tree(tmp_path) == before


def test_a_select_handle_refuses_a_scalar_write_covering_part_of_a_pinned_axis_unit(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    with pytest.raises(ValueError, match=rf"axis 'c'.*write unit {CHUNKS[0]}\b"):
        vol.write_index((0, 0, 0), (4, 4, 4), 7)


def test_a_select_handle_refuses_a_world_box_write_covering_part_of_a_pinned_axis_unit(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    with pytest.raises(ValueError, match=rf"axis 'c'.*write unit {CHUNKS[0]}\b"):
        vol.write(((0, 0, 0), (16, 16, 16)), np.zeros((4, 4, 4), np.uint8))


def test_partial_lifts_the_pinned_axis_check_and_keeps_the_units_other_index(tmp_path):
    expected = _values(SHAPE)
    _make(tmp_path / "a.zarr" / "s0").write_index((0, 0, 0, 0), SHAPE, expected)
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 1})
    vol.write_index((0, 0, 0), (4, 4, 4), 0, partial=True)
    expected[1, :4, :4, :4] = 0
    assert np.array_equal(wa.open(tmp_path / "a.zarr" / "s0").read_index((0,) * 4, SHAPE), expected)


@pytest.mark.parametrize("shape, chunks, pin", [(SHAPE, (1, 4, 4, 4), 1), ((3, 8, 8, 8), CHUNKS, 2)],
                         ids=["a unit of one index", "the clipped last unit holding one index"])
def test_a_select_handle_whose_pinned_unit_holds_one_index_writes_whole_units(tmp_path, shape, chunks, pin):
    _make(tmp_path / "a.zarr" / "s0", shape=shape, chunks=chunks)
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": pin})
    vol.write_index((0, 0, 0), (4, 4, 4), 9)
    vol.write(((16, 0, 0), (32, 16, 16)), 8)
    expected = np.zeros(shape, np.uint8)
    expected[pin, :4, :4, :4], expected[pin, 4:, :4, :4] = 9, 8
    assert np.array_equal(wa.open(tmp_path / "a.zarr" / "s0").read_index((0,) * 4, shape), expected)


# ---------------------------------------------------------------- select: one indexing, the handle's own


def test_write_shape_and_chunks_covering_of_a_select_handle_are_over_its_own_axes(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", select={"c": 1})
    assert vol.write_shape == CHUNKS[1:]
    assert vol.chunks_covering((0, 0, 0), (8, 4, 5), write=True) == [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]


def test_list_chunks_of_a_select_handle_lists_its_own_units_over_its_own_axes(tmp_path):
    _make(tmp_path / "a.zarr" / "s0").write_index((2, 0, 0, 0), (4, 4, 8, 8), 1)  # channels 2, 3: unit 1 on c
    _make(tmp_path / "b.zarr" / "s0").write_index((0, 4, 0, 0), (2, 8, 4, 8), 1)  # channels 0, 1: unit 0 on c
    assert wa.open(tmp_path / "a.zarr" / "s0", select={"c": 1}).list_chunks() == []
    assert wa.open(tmp_path / "a.zarr" / "s0", select={"c": 3}).list_chunks() == [(0, 0, 0), (0, 0, 1), (0, 1, 0),
                                                                                  (0, 1, 1)]
    assert wa.open(tmp_path / "b.zarr" / "s0", select={"c": 1}).list_chunks() == [(1, 0, 0), (1, 0, 1)]


def test_chunk_key_of_a_full_select_handle_index_is_the_stored_units_whole_key(tmp_path):
    _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 3})
    vol.write_index((0, 0, 0), vol.shape, 5, partial=True)  # every unit of channel 3 and nothing else
    keys = {vol.chunk_key(index) for index in vol.chunks_covering((0, 0, 0), vol.shape, write=True)}
    assert keys == _files(tmp_path / "a.zarr" / "s0")


def test_parse_chunk_key_of_a_select_handle_inverts_its_chunk_key_and_refuses_other_pinned_units(tmp_path):
    full = _make(tmp_path / "a.zarr" / "s0")
    vol = wa.open(tmp_path / "a.zarr" / "s0", select={"c": 1})
    units = _grid(vol.shape, vol.write_shape)
    assert [vol.parse_chunk_key(vol.chunk_key(index)) for index in units] == units
    assert vol.parse_chunk_key(full.chunk_key((1, 0, 0, 0))) is None  # channels 2, 3


def test_a_select_handles_key_prefix_counts_its_own_axes(tmp_path):
    whole, slab = _make(tmp_path / "a.zarr" / "s0"), _make(tmp_path / "b.zarr" / "s0")
    whole.write_index((0, 0, 0, 0), SHAPE, 1)
    slab.write_index((2, 4, 0, 0), (4, 8, 8, 8), 1)  # the units holding channel 3 with z in [4, 8)
    prefix = wa.open(tmp_path / "a.zarr" / "s0", select={"c": 3}).chunk_key((1,))
    under = {key for key in _files(tmp_path / "a.zarr" / "s0") if key.startswith(prefix + "/")}
    assert under == _files(tmp_path / "b.zarr" / "s0")


# ---------------------------------------------------------------- resampled: indices name the stored chunks


def _source(tmp_path, **kwargs) -> Path:
    path = tmp_path / "r.zarr" / "s0"
    shape = (16, 16, 16)
    vol = wa.create(path, shape=shape, dtype="uint8", voxel_size=4, translation=2, chunks=4, **kwargs)
    vol.write_index((0, 0, 0), shape, _values(shape))
    return path


def test_chunks_covering_of_a_resampled_handle_names_the_source_chunks_under_its_target_voxels(tmp_path):
    vol = wa.open(_source(tmp_path), voxel_size=8, on_mismatch="resample")
    # target voxels [0, 4) at 8 nm span [0, 32) nm from the common corner: source voxels [0, 8), chunks 0 and 1
    last = 4 * 8 // 4 // 4
    assert vol.chunks_covering((0, 0, 0), (4, 4, 4)) == list(itertools.product(range(last), repeat=3))


def test_chunks_covering_of_a_resampled_handle_with_write_names_the_source_write_units(tmp_path):
    vol = wa.open(_source(tmp_path, shards=8), voxel_size=8, on_mismatch="resample")
    # target voxels [3, 5) at 8 nm: [24, 40) nm, source voxels [6, 10), shards of 8 voxels 0 and 1
    assert vol.chunks_covering((3, 0, 0), (5, 1, 1), write=True) == [(0, 0, 0), (1, 0, 0)]


def test_the_chunks_covering_a_whole_resampled_handle_are_the_chunks_it_lists(tmp_path):
    vol = wa.open(_source(tmp_path), voxel_size=8, on_mismatch="resample")
    assert vol.chunks_covering((0, 0, 0), vol.shape, write=True) == vol.list_chunks()
    assert all((tmp_path / "r.zarr" / "s0" / vol.chunk_key(i)).is_file() for i in vol.chunks_covering((0,) * 3,
                                                                                                     vol.shape))


@pytest.mark.parametrize("size, method", [(8, "nearest"), (8, "linear"), (6, "nearest"), (6, "linear"),
                                          (12, "nearest")])
def test_a_resampled_read_needs_no_chunk_that_chunks_covering_leaves_out(tmp_path, size, method):
    path = _source(tmp_path)
    vol = wa.open(path, voxel_size=size, on_mismatch="resample", method=method)
    begin, end = (1, 0, 2), (3, 2, 4)
    expected = vol.read_index(begin, end)
    needed = {vol.chunk_key(index) for index in vol.chunks_covering(begin, end)}
    for key in _files(path) - needed:
        (path / key).unlink()
    assert len(_files(path)) == len(needed)
    assert np.array_equal(vol.read_index(begin, end), expected)


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
