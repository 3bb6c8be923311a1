"""Behaviour 17 and A11: blocks tile, context grows, nothing runs; ArrayMeta.write_shape plans write units."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import worldarray as wa


def _covered(tiling, shape) -> np.ndarray:
    """How many write boxes cover each voxel."""
    count = np.zeros(shape, int)
    for b in tiling:
        count[tuple(map(slice, b.begin, b.end))] += 1
    return count


@pytest.mark.parametrize(("shape", "block_shape"), [((10, 7), (4, 3)), ((8, 8, 8), 4), ((5, 9, 2), (5, 2, 3))])
def test_write_boxes_partition_the_shape_with_no_gap_or_overlap(shape, block_shape):
    assert (_covered(wa.blocks(shape, block_shape), shape) == 1).all()


def test_write_boxes_partition_a_box_anchored_at_its_begin():
    tiling = wa.blocks((20, 20), 4, box=((3, 5), (14, 20)))
    count = _covered(tiling, (20, 20))
    assert (count[3:14, 5:20] == 1).all() and count.sum() == 11 * 15
    assert tiling[0].begin == (3, 5) and tiling[1].begin == (3, 9)


def test_the_last_block_on_an_axis_is_clipped():
    last = wa.blocks((10, 7), (4, 3))[-1]
    assert (last.begin, last.end) == ((8, 6), (10, 7))


def test_blocks_come_in_c_order():
    tiling = wa.blocks((9, 9), 3)
    assert [b.index for b in tiling] == list(itertools.product(range(3), range(3)))


@pytest.mark.parametrize(("context", "pairs"), [
    (2, ((2, 2), (2, 2))),
    ((1, 3), ((1, 1), (3, 3))),
    (((0, 2), (3, 1)), ((0, 2), (3, 1))),
])
def test_context_grows_the_read_box_as_one_int_per_axis_or_before_after_pairs(context, pairs):
    middle = wa.blocks((40, 40), 10, context=context, clip=False)[5]  # index (1, 1): [10, 20) on both axes
    assert middle.read_begin == tuple(b - before for b, (before, _) in zip(middle.begin, pairs, strict=True))
    assert middle.read_end == tuple(e + after for e, (_, after) in zip(middle.end, pairs, strict=True))


def test_read_boxes_are_clipped_to_the_array_unless_clip_is_false():
    clipped, unclipped = wa.blocks((10, 10), 5, context=2)[0], wa.blocks((10, 10), 5, context=2, clip=False)[0]
    assert (clipped.read_begin, clipped.read_end) == ((0, 0), (7, 7))
    assert (unclipped.read_begin, unclipped.read_end) == ((-2, -2), (7, 7))


def test_read_boxes_of_a_box_tiling_are_clipped_to_the_array_not_the_box():
    first = wa.blocks((20, 20), 4, context=2, box=((3, 5), (14, 20)))[0]
    assert first.read_begin == (1, 3)


def test_len_blocks_by_id_index_of_and_index_agree():
    tiling = wa.blocks((10, 7, 5), (4, 3, 5), context=1)
    assert len(tiling) == 3 * 3 * 1 == len(list(tiling))
    for b in tiling:
        assert tiling[b.id] == b and tiling.index_of(b.begin) == b.id
        assert b.id == np.ravel_multi_index(b.index, (3, 3, 1))


def test_inner_crops_a_read_box_result_to_the_write_box():
    values = np.arange(12 * 12).reshape(12, 12)
    for b in wa.blocks(values.shape, 5, context=(1, (2, 0))):
        read = values[tuple(map(slice, b.read_begin, b.read_end))]
        assert np.array_equal(read[b.inner], values[tuple(map(slice, b.begin, b.end))])


def test_at_start_and_at_end_say_where_a_write_box_touches_the_tiled_box():
    tiling = wa.blocks((10, 10), (4, 10), box=((2, 0), (10, 10)))
    assert [(b.at_start, b.at_end) for b in tiling] == [((True, True), (False, True)),
                                                        ((False, True), (True, True))]


def test_blocks_and_their_records_are_plain_and_picklable():
    tiling = wa.blocks((10, 7), (4, 3), context=1)
    assert pickle.loads(pickle.dumps(tiling)) == tiling
    assert pickle.loads(pickle.dumps(tiling[4])) == tiling[4]


@pytest.mark.parametrize(("call", "named"), [
    (lambda: wa.blocks((10, 10), 0), "block_shape"),
    (lambda: wa.blocks((10, 10), (4,)), "block_shape"),
    (lambda: wa.blocks((10, 10), 4, context=-1), "context"),
    (lambda: wa.blocks((10, 10), 4, context=((1, -1), 0)), "context"),
    (lambda: wa.blocks((10, 10), 4, box=((5, 0), (4, 10))), "box"),
])
def test_bad_block_arguments_raise_naming_the_argument(call, named):
    with pytest.raises(ValueError, match=rf"^{named}"):
        call()


def test_index_of_a_voxel_that_begins_no_block_raises():
    with pytest.raises(ValueError, match=r"no block starts at \(1, 0\)"):
        wa.blocks((10, 10), 4).index_of((1, 0))


def test_a_block_id_past_the_end_raises_index_error():
    with pytest.raises(IndexError, match="block id 9"):
        wa.blocks((10, 10), 4)[9]


# ---------------------------------------------------------------- on an array


def test_vol_blocks_default_to_the_write_shape_so_default_blocks_are_aligned_writes(tmp_path):
    vol = wa.create(tmp_path / "a.zarr" / "s0", (10, 12, 14), "uint8", 4, 2, chunks=2, shards=(4, 6, 14))
    tiling = vol.blocks(context=1)
    assert tiling.block_shape == vol.write_shape == (4, 6, 14)
    expected = np.zeros(vol.shape, np.uint8)
    for b in tiling:
        vol.write_index(b.begin, b.end, np.full(b.shape, b.id + 1, np.uint8))  # raises unless whole units
        expected[tuple(map(slice, b.begin, b.end))] = b.id + 1
    assert np.array_equal(vol.read_index((0, 0, 0), vol.shape), expected) and expected.all()


@pytest.mark.parametrize(("shards", "wanted"), [(None, (2, 3, 4)), ((4, 6, 8), (4, 6, 8))])
def test_arraymeta_write_shape_is_the_shard_shape_when_sharded_else_the_chunk_shape(tmp_path, shards, wanted):
    wa.create(tmp_path / "a.zarr" / "s0", (8, 12, 16), "uint8", 4, 2, chunks=(2, 3, 4), shards=shards)
    assert wa.metadata(tmp_path / "a.zarr" / "s0", open=False).write_shape == wanted


# ---------------------------------------------------------------- write_chunk


def _array(tmp_path, **kwargs) -> wa.WorldArray:
    args = dict(shape=(10, 12, 14), dtype="uint16", voxel_size=4, translation=2, chunks=(4, 4, 4))
    args.update(kwargs)
    return wa.create(tmp_path / "a.zarr" / "s0", **args)


def test_write_chunk_writes_a_middle_unit_whole(tmp_path):
    vol = _array(tmp_path)
    data = np.arange(64, dtype="uint16").reshape(4, 4, 4)
    vol.write_chunk((1, 1, 2), data)
    written = vol.read_index((0, 0, 0), vol.shape)
    assert np.array_equal(written[4:8, 4:8, 8:12], data) and written.sum() == data.sum()


def test_write_chunk_of_a_clipped_last_unit_takes_its_clipped_shape(tmp_path):
    vol = _array(tmp_path)
    vol.write_chunk((2, 2, 3), np.full((2, 4, 2), 7, "uint16"))
    assert (vol.read_index((8, 8, 12), (10, 12, 14)) == 7).all()


def test_write_chunk_of_a_scalar_fills_the_unit(tmp_path):
    vol = _array(tmp_path)
    vol.write_chunk((0, 0, 0), 9)
    assert (vol.read_index((0, 0, 0), (4, 4, 4)) == 9).all() and vol.read_index((4, 0, 0), (5, 1, 1)).item() == 0


def test_write_chunk_on_a_sharded_array_writes_the_shard(tmp_path):
    vol = _array(tmp_path, chunks=(2, 2, 2), shards=(4, 4, 4))
    vol.write_chunk((1, 0, 0), np.ones((4, 4, 4), "uint16"))
    assert vol.list_chunks() == [(1, 0, 0)]


@pytest.mark.parametrize(("index", "data", "named"), [
    ((3, 0, 0), 1, r"index is \(3, 0, 0\).*grid \(3, 3, 4\)"),
    ((0, 0), 1, r"index is \(0, 0\)"),
    ((0, 0, 0), np.ones((4, 4, 3), "uint16"), r"data has shape \(4, 4, 3\).*wants \(4, 4, 4\)"),
])
def test_write_chunk_with_a_bad_index_or_shape_raises_naming_them_and_writes_nothing(tmp_path, index, data, named):
    vol = _array(tmp_path)
    with pytest.raises(ValueError, match=named) as raised:
        vol.write_chunk(index, data)
    assert str(raised.value).startswith(vol.level_path)
    assert vol.list_chunks() == []


def test_write_chunk_on_a_select_handle_takes_the_handles_own_index(tmp_path):
    _array(tmp_path, shape=(3, 8, 8, 8), axes=("c", "z", "y", "x"), chunks=(1, 4, 4, 4))
    channel = wa.open(tmp_path / "a.zarr" / "s0", mode="r+", select={"c": 2})
    channel.write_chunk((1, 0, 1), np.full((4, 4, 4), 5, "uint16"))
    whole = wa.open(tmp_path / "a.zarr" / "s0").read_index((0, 0, 0, 0), (3, 8, 8, 8))
    assert (whole[2, 4:8, 0:4, 4:8] == 5).all() and whole.sum() == 5 * 64


def test_numpy_integers_are_whole_numbers_wherever_blocks_take_them():
    plain = wa.blocks((10, 9), (4, 3), context=1, box=((1, 0), (10, 9)))
    numpy = wa.blocks(np.array([10, 9]), np.array([4, 3]), context=np.int64(1),
                      box=(np.array([1, 0]), np.array([10, 9])))
    assert numpy == plain and list(numpy) == list(plain)
    assert numpy[np.int64(3)] == plain[3]
    assert numpy.index_of(np.array([5, 3])) == plain.index_of((5, 3))
    assert all(type(v) is int for v in (*numpy[4].begin, *numpy[4].read_end, numpy[4].id))


def test_a_block_id_that_is_not_a_whole_number_raises_type_error_naming_it():
    with pytest.raises(TypeError, match=r"block id '3' is a str"):
        wa.blocks((9, 9), 3)["3"]  # type: ignore[index]


# ---------------------------------------------------------------- a box that reaches past the array


def test_write_boxes_tile_a_box_that_starts_below_0_and_ends_past_the_array_exactly_as_given():
    tiling = wa.blocks((10,), 4, box=((-2,), (14,)))
    assert [(b.begin, b.end) for b in tiling] == [((-2,), (2,)), ((2,), (6,)), ((6,), (10,)), ((10,), (14,))]
    assert tiling.index_of((6,)) == 2


def test_only_read_boxes_are_clipped_to_the_array_under_clip():
    clipped = wa.blocks((10,), 4, context=1, box=((-2,), (14,)))
    assert [(b.read_begin, b.read_end) for b in clipped] == [((0,), (3,)), ((1,), (7,)), ((5,), (10,)), ((9,), (10,))]
    padded = wa.blocks((10,), 4, context=1, box=((-2,), (14,)), clip=False)
    assert [(b.read_begin, b.read_end) for b in padded] == [((-3,), (3,)), ((1,), (7,)), ((5,), (11,)), ((9,), (15,))]


def test_a_block_wholly_outside_the_array_is_still_yielded_reading_nothing_when_clipped():
    tiling = wa.blocks((10, 10), 4, box=((-8, 0), (4, 4)))
    outside = tiling[0]
    assert (outside.begin, outside.end) == ((-8, 0), (-4, 4))
    assert outside.read_begin[0] == outside.read_end[0] == 0
    assert len(tiling) == 3 and tiling.index_of((-8, 0)) == 0
