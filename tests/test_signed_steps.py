"""A negative voxel size (a north-up raster's rows), which no reader produces yet, already follows the centre rule.

Index i sits at translation + i * voxel_size whatever the sign; every extent is [min, max); a world box selects the
voxels whose centres lie in it; a resampled read keeps the source's direction; level choice compares magnitudes.
The oracle throughout is the array's twin stored the other way up (the same voxels at the same places, in the
opposite index order, with a positive step), which the existing suite pins, together with numpy.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from worldarray import handle
from worldarray.grid import base_rescale, frame_of, resample_target, target_grid
from worldarray.levels import select_level
from worldarray.metadata import ArrayMeta
from worldarray.geometry import (Box, centre_rule, directed, holding, inside, magnitudes, no_coarser, size_ratio,
                                 target_span, voxel_extent, voxel_volume)

# a row axis of 7 voxels of -4 whose voxel 0 is centred at 26: centres 26, 22, ..., 2, extent [0, 28)
N, STEP, TOP = 7, -4.0, 26.0


INDICES = np.arange(-20, 30)  # the voxels of the data and those a box past it selects (read as padding)


def oracle(begin: float, end: float, step=STEP, translation=TOP) -> tuple[int, int] | None:
    """The voxels whose centres lie in [begin, end), found by looking at every centre (a range of indices)."""
    centres = translation + INDICES * step
    hits = INDICES[(centres >= begin) & (centres < end)]
    assert len(hits) == 0 or len(hits) == hits[-1] - hits[0] + 1  # contiguous
    return (int(hits[0]), int(hits[-1]) + 1) if len(hits) else None


EDGES = [-9.0, -2.0, 0.0, 1.0, 2.0, 3.9, 4.0, 6.0, 10.0, 13.0, 14.0, 22.0, 26.0, 27.99, 28.0, 30.0, 40.0]


@pytest.mark.parametrize("begin", EDGES)
@pytest.mark.parametrize("width", [0.0, 0.5, 4.0, 6.0, 8.0, 12.0, 28.0])
def test_a_world_box_selects_the_voxels_whose_centres_lie_in_it_on_a_negative_step(begin, width):
    (first,), (last,) = centre_rule((begin,), (begin + width,), ((TOP, STEP),))
    want = oracle(begin, begin + width)
    if want is None:
        assert first == last
    else:
        assert (first, last) == want


def test_a_centre_on_the_begin_is_in_and_one_on_the_end_is_out_within_float_noise():
    # centres 26 and 22: [22, 26) holds voxel 1 only, even with the edges a hair off the centres
    for noise in (0.0, 1e-12, -1e-12):
        assert centre_rule((22.0 + noise,), (26.0 + noise,), ((TOP, STEP),)) == ((1,), (2,))


def test_a_box_of_m_voxels_returns_m_voxels_on_a_negative_step_whatever_its_alignment():
    for begin in np.linspace(-3.0, 5.0, 33):
        for m in range(0, 5):
            (first,), (last,) = centre_rule((begin,), (begin + 4.0 * m,), ((TOP, STEP),))
            assert last - first == m


def test_the_extent_of_voxels_is_min_max_whatever_the_sign():
    corner = TOP - STEP / 2  # the outer edge of voxel 0: 28
    assert voxel_extent(corner, STEP, 0, N) == (0.0, 28.0)
    assert voxel_extent(corner, STEP, 2, 4) == (12.0, 20.0)
    assert voxel_extent(0.0, 4.0, 2, 4) == (8.0, 16.0)


def test_box_from_index_is_min_max_and_selects_back_the_same_voxels():
    box = Box.from_index((2,), (5,), STEP, TOP)
    assert (box.begin, box.end) == ((8.0,), (20.0,))
    assert centre_rule(box.begin, box.end, ((TOP, STEP),)) == ((2,), (5,))


@pytest.mark.parametrize("mode", ["grow", "shrink", "closest"])
def test_snapping_to_a_grid_is_the_same_whichever_way_its_steps_go(mode):
    for begin, end in ((1.0, 9.0), (-3.3, 17.2), (4.0, 4.0), (5.9, 6.1)):
        up = Box((begin,), (end,)).snap(4.0, TOP + STEP * (N - 1), mode)  # the twin: the same corners
        down = Box((begin,), (end,)).snap(STEP, TOP, mode)
        assert down == up
    assert Box((1.0,), (9.0,)).snap(STEP, TOP, "grow") == Box((0.0,), (12.0,))


def test_holding_puts_a_boundary_in_the_voxel_above_it_in_the_world():
    # positions in voxels from voxel 0's outer edge along the index direction; boundaries at whole numbers
    position = np.array([0.0, 0.25, 1.0, 1.0 - 1e-9, 2.5, 3.0 + 1e-9])
    np.testing.assert_array_equal(holding(position, 4.0), [0, 0, 1, 1, 2, 3])
    np.testing.assert_array_equal(holding(position, -4.0), [-1, 0, 0, 0, 2, 2])


def test_inside_is_the_data_extent_min_max_in_either_direction():
    position = np.array([-0.5, 0.0, 0.5, 6.5, 7.0, 7.5])
    np.testing.assert_array_equal(inside(position, N, 4.0), [False, True, True, True, False, False])
    np.testing.assert_array_equal(inside(position, N, -4.0), [False, False, True, True, True, False])


def test_a_resample_target_spans_the_data_in_magnitude_with_the_sources_direction():
    corner = TOP - STEP / 2
    # 7 voxels of 4 are 28 long: ceil(28 / 6) = 5 voxels of 6, counted down from the corner as the source is
    assert target_span(N, STEP, corner, -6.0, corner) == (0, 5)
    assert target_span(N, 4.0, 0.0, 6.0, 0.0) == (0, 5)
    # the grid met from either end, or anchored elsewhere, counts the same voxels
    assert target_span(N, STEP, corner, -6.0, corner + 3.0) == (0, 6)
    assert target_span(N, STEP, corner, 6.0, 0.0) == (0, 5)  # a target the other way up meets the same extent


def test_sizes_asked_for_by_magnitude_take_the_sources_direction():
    assert directed((8.0, 2.0, 3.0), (4.0, -4.0, -1.0)) == (8.0, -2.0, -3.0)
    assert directed((-8.0,), (-4.0,)) == (-8.0,)


def test_sizes_compare_and_order_by_magnitude():
    assert magnitudes((-4.0, 8.0)) == (4.0, 8.0)
    assert size_ratio(-8.0, 4.0) == size_ratio(8.0, -4.0) == 2.0
    assert no_coarser((-4.0, 4.0), (4.0, 8.0)) and not no_coarser((-8.0,), (4.0,))
    assert voxel_volume((-4.0, 4.0, 2.0)) == voxel_volume((4.0, 4.0, 2.0)) == 32.0
    assert math.isclose(size_ratio(-10.48, 10.48), 1.0)


# ---------------------------------------------------------------- a handle on a north-up raster and its twin
#
# No reader produces a negative voxel size yet, so a handle is given one here by the test alone: two zarr v3 arrays
# placed alike by funlib attributes, the "north" one holding the twin's rows in the opposite order, and the north
# one's placement turned the other way up once it is read (voxel 0 becomes the northmost row, at the twin's last
# centre, with a step of -4). Everything after that is the package's own read path.

ROWS, COLS = 12, 10
SIZE = (4.0, 3.0)
VALUES = (np.arange(ROWS * COLS, dtype=np.uint16).reshape(ROWS, COLS) * 7) % 251


def _store(path, values) -> str:
    metadata = {"shape": list(values.shape), "data_type": values.dtype.name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 5]}},
                "attributes": {"voxel_size": list(SIZE), "offset": [0.0, 0.0], "units": ["nm", "nm"]},
                "dimension_names": ["y", "x"]}
    store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}, "metadata": metadata},
                    create=True).result()
    store.write(values).result()
    return str(path)


def _north_up(meta: ArrayMeta) -> ArrayMeta:
    y = meta.axes.index("y")
    sizes, shifts = list(meta.voxel_size), list(meta.translation)
    shifts[y] += (meta.shape[y] - 1) * sizes[y]
    sizes[y] = -sizes[y]
    return dataclasses.replace(meta, voxel_size=tuple(sizes), translation=tuple(shifts))


@pytest.fixture
def pair(tmp_path, monkeypatch):
    """(north, twin): the north-up handle and its twin, opened by ``open(path, **options)``."""
    handle.forget_opens()
    real = handle.rescaled

    def turned(meta, rescale, unit):
        meta = real(meta, rescale, unit)
        return _north_up(meta) if meta.path.rstrip("/").endswith("north") else meta

    monkeypatch.setattr(handle, "rescaled", turned)
    north, twin = _store(tmp_path / "north", VALUES[::-1]), _store(tmp_path / "twin", VALUES)
    yield lambda **options: (wa.open(north, **options), wa.open(twin, **options))
    handle.forget_opens()


def test_a_north_up_handle_steps_down_from_its_corner_and_spans_min_max(pair):
    north, twin = pair()
    assert north.voxel_size == (-4.0, 3.0) and north.translation == (46.0, 1.5)
    assert north.corner == (48.0, 0.0)  # translation - voxel_size / 2: the outer edge of row 0
    assert north.box == twin.box == Box((0.0, 0.0), (48.0, 30.0))


def test_coords_of_a_north_up_handle_descend(pair):
    north, twin = pair()
    ys, xs = north.coords()
    np.testing.assert_array_equal(ys, 46.0 - 4.0 * np.arange(ROWS))
    np.testing.assert_array_equal(ys, twin.coords()[0][::-1])
    np.testing.assert_array_equal(xs, twin.coords()[1])


BOXES = [((0.0, 0.0), (48.0, 30.0)), ((8.0, 3.0), (20.0, 12.0)), ((9.0, 2.0), (21.5, 13.0)),
         ((-8.0, -6.0), (10.0, 9.0)), ((40.0, 20.0), (60.0, 40.0)), ((-20.0, 0.0), (-4.0, 6.0)),
         ((46.0, 1.5), (46.0, 7.5)), ((2.0, 0.0), (46.0, 30.0))]


def _centres_oracle(box, n, step, translation):
    indices = np.arange(-40, 60)
    centres = translation + indices * step
    hits = indices[(centres >= box[0]) & (centres < box[1])]
    return (int(hits[0]), int(hits[-1]) + 1) if len(hits) else None


@pytest.mark.parametrize("box", BOXES)
def test_a_world_box_on_a_north_up_handle_selects_the_voxels_whose_centres_lie_in_it(pair, box):
    north, _ = pair()
    begin, end = north.index_box(box)
    for axis in range(2):
        want = _centres_oracle((box[0][axis], box[1][axis]), north.shape[axis], north.voxel_size[axis],
                               north.translation[axis])
        assert (begin[axis], end[axis]) == want if want else begin[axis] == end[axis]


@pytest.mark.parametrize("padding", [0, 9, "edge"])
@pytest.mark.parametrize("box", BOXES)
def test_a_north_up_read_is_its_twins_read_the_other_way_up_padding_included(pair, box, padding):
    north, twin = pair()
    got, valid = north.read(box, padding=padding, mask=True)
    want, want_valid = twin.read(box, padding=padding, mask=True)
    np.testing.assert_array_equal(got, want[::-1])
    np.testing.assert_array_equal(valid, want_valid[::-1])


@pytest.mark.parametrize("padding", [0, 5, "edge"])
def test_read_index_pads_a_north_up_handle_past_its_data_as_np_pad_does(pair, padding):
    north, _ = pair()
    begin, end = (-3, -2), (ROWS + 4, COLS + 1)
    pad = ((3, 4), (2, 1))
    want = (np.pad(VALUES[::-1], pad, mode="edge") if padding == "edge"
            else np.pad(VALUES[::-1], pad, mode="constant", constant_values=padding))
    np.testing.assert_array_equal(north.read_index(begin, end, padding=padding), want)


def test_blocks_index_boxes_and_world_boxes_agree_on_a_north_up_handle(pair):
    north, _ = pair()
    for block in north.blocks((5, 4)):
        world = Box.from_index(block.read_begin, block.read_end, north.voxel_size, north.translation)
        assert north.index_box(world) == (tuple(block.read_begin), tuple(block.read_end))
        np.testing.assert_array_equal(north.read(world), north.read_index(block.read_begin, block.read_end))


def test_chunks_covering_a_north_up_world_box_are_the_chunks_of_its_voxels(pair):
    north, twin = pair()
    box = ((9.0, 2.0), (21.5, 13.0))
    begin, end = north.index_box(box)
    chunks = north.chunks_covering(begin, end)
    rows = {c[0] for c in chunks}
    assert rows == set(range(begin[0] // 4, (end[0] - 1) // 4 + 1))
    # the twin holds the same world box in the mirrored chunk rows (12 rows are 3 chunk rows of 4)
    twin_rows = {c[0] for c in twin.chunks_covering(*twin.index_box(box))}
    assert rows == {2 - r for r in twin_rows}


# ---------------------------------------------------------------- resampled reads keep the direction

# (target voxel size, an anchor putting both target grids on the same corners where the source corners do not: an
# anchor names a lattice of corners, the same whichever way the grid's steps go; (4, 3) at 50 puts every target
# centre on a source boundary, where "nearest" takes the voxel above it in the world)
TARGETS = [((8.0, 6.0), None), ((12.0, 3.0), None), ((6.0, 4.5), None), ((5.0, 2.0), (50.0, 0.0)),
           ((2.0, 1.5), None), ((4.0, 3.0), (50.0, 1.0))]


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize("target, anchor", TARGETS)
@pytest.mark.parametrize("box", BOXES)
def test_a_resampled_north_up_read_is_its_twins_the_other_way_up(pair, method, target, anchor, box):
    north, twin = pair()
    got, valid = north.read(box, target, method=method, anchor=anchor, mask=True, padding=0)
    want, want_valid = twin.read(box, target, method=method, anchor=anchor, mask=True, padding=0)
    np.testing.assert_array_equal(got, want[::-1])
    np.testing.assert_array_equal(valid, want_valid[::-1])


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize("target", [(8.0, 6.0), (6.0, 4.5), (5.0, 2.0), (2.0, 3.0)])
@pytest.mark.parametrize("cut", [24.0, 30.0, 18.0, 40.0])
def test_two_adjoining_resampled_north_up_reads_are_one_read_across_both(pair, method, target, cut):
    north, _ = pair()
    # a cut on the target grid (anchored at the corner, 48, stepping down by target[0]), the nearest one to ``cut``
    edge = 48.0 - round((48.0 - cut) / target[0]) * target[0]
    low, high = ((-10.0, 0.0), (edge, 30.0)), ((edge, 0.0), (60.0, 30.0))
    whole = north.read(((-10.0, 0.0), (60.0, 30.0)), target, method=method, padding=3)
    upper, lower = north.read(high, target, method=method, padding=3), north.read(low, target, method=method,
                                                                                   padding=3)
    np.testing.assert_array_equal(np.concatenate([upper, lower]), whole)  # index order runs north to south


def test_a_north_up_handle_opened_at_another_size_resamples_keeping_its_direction(pair):
    north, twin = pair(voxel_size=(8.0, 6.0), on_mismatch="resample")
    assert north.resampled and north.voxel_size == (-8.0, 6.0) and north.corner == (48.0, 0.0)
    assert north.box == twin.box
    np.testing.assert_array_equal(north.coords()[0], twin.coords()[0][::-1])
    np.testing.assert_array_equal(north.read_index((0, 0), north.shape), twin.read_index((0, 0), twin.shape)[::-1])
    m = north.shape[0]
    chunks = north.chunks_covering((1, 0), (3, north.shape[1]))
    mirrored = twin.chunks_covering((m - 3, 0), (m - 1, twin.shape[1]))
    assert sorted((2 - r, c) for r, c in chunks) == sorted(mirrored)


def test_a_north_up_handle_at_its_own_magnitude_reads_its_own_voxels(pair):
    north, _ = pair(voxel_size=(4.0, 3.0))
    assert not north.resampled and north.voxel_size == (-4.0, 3.0)
    assert north.read(((0.0, 0.0), (48.0, 30.0)), (4.0, 3.0)).shape == (ROWS, COLS)
    np.testing.assert_array_equal(north.read(((0.0, 0.0), (48.0, 30.0)), (4.0, 3.0)), VALUES[::-1])


def test_a_relabelled_north_up_handle_keeps_its_direction(pair):
    north, twin = pair(voxel_size=(8.0, 6.0), on_mismatch="relabel")
    assert north.voxel_size == (-8.0, 6.0) and north.translation == (92.0, 3.0)
    assert north.box == twin.box
    np.testing.assert_array_equal(north.read(twin.box), VALUES[::-1])


# ---------------------------------------------------------------- level choice and the grid without a store


@pytest.mark.parametrize("mode", ["floor", "finer", "nearest", "resample", "exact"])
@pytest.mark.parametrize("wanted", [(8.0, 8.0), (6.0, 6.0), (16.0, 4.0), (2.0, 2.0), (None, 8.0)])
def test_level_choice_compares_voxel_sizes_by_magnitude(mode, wanted):
    up = [("s0", (4.0, 4.0)), ("s1", (8.0, 8.0)), ("s2", (16.0, 16.0))]
    down = [(name, (-sizes[0], sizes[1])) for name, sizes in up]
    try:
        want = select_level(up, wanted, mode)[0]
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error).split(";")[0])):
            select_level(down, wanted, mode)
        return
    assert select_level(down, wanted, mode)[0] == want


def _meta(voxel_size, translation, shape=(ROWS, COLS)) -> ArrayMeta:
    return ArrayMeta(shape, np.dtype("uint16"), (4, 5), ("y", "x"), True, ("nm", "nm"), voxel_size, translation,
                     "zarr3", "north", placed_by="funlib")


def test_a_frame_with_a_negative_step_answers_as_its_twins_the_other_way_up():
    north = frame_of(_meta((-4.0, 3.0), (46.0, 1.5)), None, "keep", None, None, None)
    twin = frame_of(_meta((4.0, 3.0), (2.0, 1.5)), None, "keep", None, None, None)
    assert north.box == twin.box and north.corner == (48.0, 0.0)
    for box in BOXES:
        (b, bx), (e, ex) = north.index_box(box)
        (tb, tbx), (te, tex) = twin.index_box(box)
        assert (ROWS - e, ROWS - b, bx, ex) == (tb, te, tbx, tex)
    assert north.chunks_covering((0, 0), (5, 3)) == [(0, 0), (1, 0)]


def test_a_resample_target_over_a_negative_step_counts_ceil_n_s_over_t_voxels_down_from_the_corner():
    target = resample_target(_meta((-4.0, 3.0), (46.0, 1.5)), (5.0, 2.0), None)
    assert target.shape == (math.ceil(48 / 5), 15)
    assert target.voxel_size == (-5.0, 2.0)
    assert target.translation == (45.5, 1.0)  # the corner, 48, less half a target voxel
    frame = frame_of(_meta((-4.0, 3.0), (46.0, 1.5)), (5.0, 2.0), "resample", None, None, None)
    assert frame.meta == target and frame.resampled
    assert frame.box == Box((-2.0, 0.0), (48.0, 30.0))


def test_the_geometry_of_a_target_grid_read_over_a_negative_step_uses_the_centre_rule():
    frame = frame_of(_meta((-4.0, 3.0), (46.0, 1.5)), None, "keep", None, None, None)
    target = target_grid(frame, (8.0, 3.0), None)
    assert target == ((-8.0, 3.0), (48.0, 0.0))
    assert frame.index_box(((16.0, 0.0), (32.0, 30.0)), target) == ((2, 0), (4, 10))


def test_a_base_voxel_size_rescales_a_negative_step_by_magnitude_keeping_its_direction():
    assert base_rescale(_meta((-4.0, 3.0), (46.0, 1.5)), (8.0, 6.0)) == (2.0, 2.0)


def test_create_still_refuses_a_negative_voxel_size_and_a_grid_now_takes_one(tmp_path):
    # OME-NGFF scales are positive, so the package writes no north-up array; a grid plans one (a read_onto target)
    with pytest.raises(ValueError, match="voxel_size is .*axis 'y' has a negative step"):
        wa.create(str(tmp_path / "g" / "s0"), (4, 4), "uint8", (-4.0, 3.0), 0.0, axes=("y", "x"), chunks=4)
    assert wa.Grid((4, 4), (-4.0, 3.0), 0.0, axes=("y", "x")).voxel_size == (-4.0, 3.0)
    with pytest.raises(ValueError, match="voxel_size"):
        wa.Grid((4, 4), (0.0, 3.0), 0.0, axes=("y", "x"))
