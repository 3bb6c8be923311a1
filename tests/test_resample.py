"""Resampling (spec Behaviour 4, section 5 "Resampling:", additions A3): reads onto another voxel grid.

Every store is a zarr v3 array placed by funlib attributes (``offset`` is the corner) written in tmp_path. The
oracles are plain numpy written from the spec's words: target voxel j of a grid anchored at A with voxel size t is
centred at A + (j + 1/2) t; "nearest" takes the source voxel whose half-open extent holds that centre; "linear" is
the reshape-mean of whole blocks, else interpolation at source index p = (j + 1/2) t / s - 1/2, border repeated.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import tensorstore as ts
from hypothesis import assume, given, settings, strategies as st

import worldarray as wa


def volume(root, name, values, voxel_size, corner) -> str:
    """A zarr v3 array holding ``values``, voxel 0's corner at ``corner`` (funlib's offset), in nm."""
    ndim = values.ndim
    metadata = {
        "shape": list(values.shape), "data_type": values.dtype.name,
        "chunk_grid": {"name": "regular",
                       "configuration": {"chunk_shape": [max(1, (n + 1) // 2) for n in values.shape]}},
        "attributes": {"voxel_size": [float(s) for s in voxel_size], "offset": [float(c) for c in corner],
                       "units": ["nm"] * ndim},
    }
    path = root / name
    store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}, "metadata": metadata},
                    create=True).result()
    store.write(values).result()
    return str(path)


# ---------------------------------------------------------------- oracles, one axis at a time


def centres_in_source(j, size, corner, target, anchor):
    """Target centres A + (j + 1/2) t, in source voxels from the source corner."""
    return (anchor - corner + (np.asarray(j) + 0.5) * target) / size


def nearest_oracle(values, sizes, corner, targets, anchor, ranges, fill):
    """The source voxel whose extent [corner + i s, corner + (i + 1) s) holds each centre; a boundary goes up."""
    picks, inside = [], []
    for n, s, c, t, a, (j0, j1) in zip(values.shape, sizes, corner, targets, anchor, ranges, strict=True):
        i = np.floor(centres_in_source(np.arange(j0, j1), s, c, t, a) + 1e-9).astype(int)
        picks.append(np.clip(i, 0, n - 1))
        inside.append((i >= 0) & (i < n))
    data = values[np.ix_(*picks)]
    valid = np.ones(data.shape, bool)
    for axis, part in enumerate(inside):
        valid &= part.reshape([-1 if k == axis else 1 for k in range(values.ndim)])
    if fill != "edge":
        data = np.where(valid, data, fill).astype(values.dtype)
    return data, valid


def interp_oracle(values, sizes, corner, targets, anchor, ranges):
    """Interpolation between the two neighbours at p = (j + 1/2) t / s - 1/2, the border repeated, axis by axis."""
    data = values.astype(np.float64)
    per_axis = zip(values.shape, sizes, corner, targets, anchor, ranges, strict=True)
    for axis, (n, s, c, t, a, (j0, j1)) in enumerate(per_axis):
        p = np.clip(centres_in_source(np.arange(j0, j1), s, c, t, a) - 0.5, 0, n - 1)
        left = np.floor(p).astype(int)
        right = np.minimum(left + 1, n - 1)
        shape = [1] * values.ndim
        shape[axis] = len(p)
        w = (p - left).reshape(shape)
        data = np.take(data, left, axis=axis) * (1 - w) + np.take(data, right, axis=axis) * w
    return data


def block_mean_oracle(values, factors, before=None):
    """numpy reshape-mean over blocks of ``factors`` starting ``before`` voxels ahead of the data.

    A block the data only partly fill is the mean of what it holds.
    """
    before = before or (0,) * values.ndim
    shape = [math.ceil((b + n) / f) * f for b, n, f in zip(before, values.shape, factors, strict=True)]
    grid = np.full(shape, np.nan)
    grid[tuple(slice(b, b + n) for b, n in zip(before, values.shape, strict=True))] = values
    split = [d for m, f in zip(shape, factors, strict=True) for d in (m // f, f)]
    return np.nanmean(grid.reshape(split), axis=tuple(range(1, 2 * values.ndim, 2)))


def as_dtype(data, dtype):
    """Integer results rounded like np.rint (ties to even), then cast back."""
    dtype = np.dtype(dtype)
    return (np.rint(data) if dtype.kind in "iu" else data).astype(dtype)


# ---------------------------------------------------------------- nearest


def test_nearest_at_factor_2_reads_source_voxels_1_3_5_7(tmp_path):
    values = np.arange(8, dtype=np.uint16) * 10 + 5
    path = volume(tmp_path, "a", values, (4,), (0,))
    vol = wa.open(path)
    np.testing.assert_array_equal(vol.read(([0], [32]), voxel_size=8), values[[1, 3, 5, 7]])
    handle = wa.open(path, voxel_size=8, on_mismatch="resample")
    np.testing.assert_array_equal(handle.read_index([0], [4]), values[[1, 3, 5, 7]])


def test_a_5nm_read_of_4nm_voxels_reads_0_1_3_4(tmp_path):
    values = np.arange(20, dtype=np.int32) * 3 - 7
    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    got = vol.read(([0], [80]), voxel_size=5)  # ceil(20 * 4 / 5) = 16 target voxels
    assert got.shape == (16,)
    np.testing.assert_array_equal(got[:4], values[[0, 1, 3, 4]])
    expected, _ = nearest_oracle(values, (4,), (0,), (5,), (0,), [(0, 16)], 0)
    np.testing.assert_array_equal(got, expected)


def test_an_8nm_array_read_onto_a_4nm_grid_with_corner_minus_2_gives_0_1_1_2_2_3_3_4(tmp_path):
    values = np.arange(5, dtype=np.uint8)  # 8 nm voxels, translation 0: the corner is -4
    vol = wa.open(volume(tmp_path, "a", values, (8,), (-4,)))
    assert vol.translation == (0.0,)
    np.testing.assert_array_equal(vol.read(([-2], [30]), voxel_size=4, anchor=(-2,)), [0, 1, 1, 2, 2, 3, 3, 4])
    np.testing.assert_array_equal(vol.read(([-4], [28]), voxel_size=4), [0, 0, 1, 1, 2, 2, 3, 3])


def test_the_two_halves_of_an_anchored_read_agree_with_the_whole(tmp_path):
    values = np.arange(5, dtype=np.uint8)
    vol = wa.open(volume(tmp_path, "a", values, (8,), (-4,)))
    whole = vol.read(([-2], [30]), voxel_size=4, anchor=(-2,))
    halves = [vol.read(box, voxel_size=4, anchor=(-2,)) for box in (([-2], [14]), ([14], [30]))]
    np.testing.assert_array_equal(np.concatenate(halves), whole)


def test_a_2x_nearest_read_of_a_label_volume_introduces_no_new_values_and_pads_outside(tmp_path):
    rng = np.random.default_rng(4)
    labels = np.array([0, 3, 17, 256, 70000], np.uint32)
    values = labels[rng.integers(0, len(labels), (6, 7, 5))]
    sizes, corner = (2.0, 3.0, 4.0), (10.0, -6.0, 1.0)
    vol = wa.open(volume(tmp_path, "a", values, sizes, corner))
    targets = tuple(2 * s for s in sizes)
    ranges = [(-2, 5), (-1, 6), (-3, 4)]  # reaches past the data on both sides of every axis
    box = ([c + j0 * t for c, t, (j0, _) in zip(corner, targets, ranges, strict=True)],
           [c + j1 * t for c, t, (_, j1) in zip(corner, targets, ranges, strict=True)])
    got, valid = vol.read(box, voxel_size=targets, padding=99, mask=True)
    expected, inside = nearest_oracle(values, sizes, corner, targets, corner, ranges, 99)
    assert set(np.unique(got[valid])) <= set(labels.tolist())
    assert (got[~valid] == 99).all() and 99 not in got[valid]
    np.testing.assert_array_equal(valid, inside)
    np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------- linear


def test_linear_at_a_whole_factor_is_the_block_mean_and_rounds_like_rint(tmp_path):
    values = np.array([0, 1, 2, 3, 4, 5, 7], np.uint8)  # means 0.5, 2.5, 4.5 round to even; the last block is 7 alone
    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    np.testing.assert_array_equal(vol.read(([0], [32]), voxel_size=8, method="linear"), [0, 2, 4, 7])


@pytest.mark.parametrize("dtype", ["uint16", "int16", "float32"])
@pytest.mark.parametrize("before", [(0, 0, 0), (1, 2, 1)], ids=["at-the-corner", "anchored-on-the-source-grid"])
def test_linear_at_a_whole_factor_equals_the_reshape_mean_with_short_last_blocks(tmp_path, dtype, before):
    rng = np.random.default_rng(7)
    low = -500 if dtype == "int16" else 0
    values = rng.integers(low, low + 1000, (7, 6, 9)).astype(dtype)
    if dtype == "float32":
        values = (values * np.float32(0.37)).astype(dtype)
    sizes, corner, factors = (2.0, 3.0, 4.0), (10.0, -6.0, 0.5), (2, 3, 2)
    targets = tuple(f * s for f, s in zip(factors, sizes, strict=True))
    anchor = tuple(c - b * s for c, b, s in zip(corner, before, sizes, strict=True))
    mean = block_mean_oracle(values, factors, before)
    if dtype != "float32":
        assert (np.abs(mean - np.floor(mean) - 0.5) < 1e-9).any()  # the data hold ties rint must break
    box = (anchor, tuple(a + m * t for a, m, t in zip(anchor, mean.shape, targets, strict=True)))
    path = volume(tmp_path, "a", values, sizes, corner)
    got = wa.open(path).read(box, voxel_size=targets, anchor=anchor, method="linear")
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, as_dtype(mean, dtype), rtol=1e-6)
    handle = wa.open(path, voxel_size=targets, on_mismatch="resample", method="linear", anchor=anchor)
    assert handle.shape == mean.shape
    np.testing.assert_allclose(handle.read_index((0, 0, 0), handle.shape), as_dtype(mean, dtype), rtol=1e-6)


@pytest.mark.parametrize("targets, anchor_shift", [
    ((3.0, 4.5, 10.0), (0, 0, 0)),     # non-whole factors 1.5
    ((1.25, 2.0, 2.5), (0, 0, 0)),     # finer than the source: 0.625, 0.667, 0.625
    ((4.0, 6.0, 8.0), (0.5, 0.25, 0.75)),  # whole factor 2, anchor off the source grid: interpolates
])
def test_linear_at_a_non_whole_factor_interpolates_at_p_with_the_border_repeated(tmp_path, targets, anchor_shift):
    rng = np.random.default_rng(11)
    values = rng.normal(size=(5, 4, 6)).astype(np.float64)
    sizes, corner = (2.0, 3.0, 4.0), (-3.0, 0.0, 5.0)
    anchor = tuple(c + k * s for c, k, s in zip(corner, anchor_shift, sizes, strict=True))
    ranges = [(-1, math.ceil(n * s / t) + 1) for n, s, t in zip(values.shape, sizes, targets, strict=True)]
    box = ([a + j0 * t for a, t, (j0, _) in zip(anchor, targets, ranges, strict=True)],
           [a + j1 * t for a, t, (_, j1) in zip(anchor, targets, ranges, strict=True)])
    got, valid = wa.open(volume(tmp_path, "a", values, sizes, corner)).read(
        box, voxel_size=targets, anchor=anchor, method="linear", padding=-1.0, mask=True)
    _, inside = nearest_oracle(values, sizes, corner, targets, anchor, ranges, 0)
    np.testing.assert_array_equal(valid, inside)
    expected = np.where(inside, interp_oracle(values, sizes, corner, targets, anchor, ranges), -1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_linear_interpolation_of_integers_rounds_back_to_their_dtype(tmp_path):
    values = np.array([0, 10, 3, 200, 255, 1], np.uint8)
    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    got = vol.read(([0], [24]), voxel_size=3, method="linear")
    expected = as_dtype(interp_oracle(values, (4,), (0,), (3,), (0,), [(0, 8)]), np.uint8)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("method", ["nearest", "linear"])
def test_at_the_source_voxel_size_an_anchor_resamples_nothing(tmp_path, method):
    # addition A1: at the array's own voxel size each grid voxel takes the stored voxel whose centre lies in it
    values = np.arange(6, dtype=np.float64) * 10
    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    got = vol.read(([2], [18]), voxel_size=4, anchor=(2,), method=method)
    np.testing.assert_array_equal(got, vol.read(([2], [18])))
    np.testing.assert_array_equal(got, values[0:4])  # stored centres 2, 6, 10, 14 lie in [2, 18)
    with pytest.raises(ValueError, match=r"anchor is \(2, 5\)"):
        vol.read(([2], [18]), voxel_size=4, anchor=(2, 5))


# ---------------------------------------------------------------- a resample target set at open


@pytest.mark.parametrize("targets", [(8.0, 9.0, 3.0), (5.0, 2.0, 10.0)])
def test_a_resample_target_set_at_open_reports_the_target_voxel_size_with_the_same_corner(tmp_path, targets):
    values = np.arange(7 * 6 * 9, dtype=np.uint16).reshape(7, 6, 9)
    sizes, corner = (4.0, 3.0, 2.0), (10.0, -6.0, 0.5)
    vol = wa.open(volume(tmp_path, "a", values, sizes, corner), voxel_size=targets, on_mismatch="resample")
    shape = tuple(math.ceil(n * s / t) for n, s, t in zip(values.shape, sizes, targets, strict=True))
    assert vol.resampled is True
    assert vol.voxel_size == targets and vol.corner == corner and vol.shape == shape
    assert vol.translation == tuple(c + t / 2 for c, t in zip(corner, targets, strict=True))
    assert tuple(vol.box.begin) == corner
    np.testing.assert_allclose(vol.box.end, [c + m * t for c, m, t in zip(corner, shape, targets, strict=True)])
    assert vol.source_voxel_size == sizes
    assert vol.source_translation == tuple(c + s / 2 for c, s in zip(corner, sizes, strict=True))
    expected, _ = nearest_oracle(values, sizes, corner, targets, corner, [(0, m) for m in shape], 0)
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), shape), expected)


def test_a_resampled_handle_reads_a_world_box_by_its_target_voxel_centres(tmp_path):
    values = np.arange(10, dtype=np.int16) * 7
    vol = wa.open(volume(tmp_path, "a", values, (4,), (2,)), voxel_size=6, on_mismatch="resample")
    got = vol.read(([2 + 6 * 2.5], [2 + 6 * 6.5]))  # the box runs from target centre 2 to centre 6
    np.testing.assert_array_equal(got, nearest_oracle(values, (4,), (2,), (6,), (2,), [(2, 6)], 0)[0])


# ---------------------------------------------------------------- padding with "edge"


@pytest.mark.parametrize("method, target", [("nearest", 8.0), ("linear", 6.0)])
def test_edge_padding_repeats_the_border_voxel_for_nearest_and_linear(tmp_path, method, target):
    values = np.array([3.0, 9.0, -2.0, 5.0, 11.0])
    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    ranges = [(-3, math.ceil(20 / target) + 3)]
    got = vol.read(([ranges[0][0] * target], [ranges[0][1] * target]), voxel_size=target, method=method, padding="edge")
    if method == "nearest":
        expected = nearest_oracle(values, (4,), (0,), (target,), (0,), ranges, "edge")[0]
    else:
        expected = interp_oracle(values, (4,), (0,), (target,), (0,), ranges)
    np.testing.assert_allclose(got, expected)
    assert got[0] == values[0] and got[-1] == values[-1]


def test_edge_padding_of_a_block_mean_repeats_the_nearest_block_holding_data(tmp_path):
    values = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0])  # blocks of 3: [1, 2, 4], [8, 16, 32], [64]
    vol = wa.open(volume(tmp_path, "a", values, (2,), (0,)))
    got = vol.read(([-12], [18]), voxel_size=6, method="linear", padding="edge")  # target voxels -2 .. 2
    means = block_mean_oracle(values, (3,))
    np.testing.assert_allclose(got, means[np.clip(np.arange(-2, 3), 0, len(means) - 1)])
    filled = vol.read(([-12], [18]), voxel_size=6, method="linear", padding=-5.0)
    np.testing.assert_allclose(filled, [-5.0, -5.0, *means])


# ---------------------------------------------------------------- transform and post_transform


def test_a_transform_runs_before_resampling_and_padding_is_not_transformed(tmp_path):
    values = np.array([1, 2, 5, 6, 9], np.int16)
    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    got = vol.read(([-8], [24]), voxel_size=8, method="linear", transform=lambda a: a.astype(np.float64) / 2)
    assert got.dtype == np.float64  # the output takes the transform's dtype: the means are not rounded
    np.testing.assert_allclose(got, [0.0, 0.75, 2.75, 4.5])


def test_post_transform_runs_after_resampling_and_the_cast_and_before_padding(tmp_path):
    values = np.array([1, 2, 5, 6, 9], np.int16)
    seen = []

    def post(a):
        seen.append(a.dtype)
        return a.astype(np.float64) + 100

    vol = wa.open(volume(tmp_path, "a", values, (4,), (0,)))
    got = vol.read(([-8], [24]), voxel_size=8, method="linear", padding=0, post_transform=post)
    assert seen == [np.dtype(np.int16)]
    np.testing.assert_allclose(got, [0.0, 102.0, 106.0, 109.0])  # rint(1.5) = 2, rint(5.5) = 6, then + 100


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("size", [0, -4.0, float("nan"), float("inf"), (4.0, 0.0, 4.0)])
def test_a_non_positive_or_non_finite_target_voxel_size_raises_naming_it(tmp_path, size):
    path = volume(tmp_path, "a", np.zeros((3, 3, 3), np.uint8), (4, 4, 4), (0, 0, 0))
    message = f"voxel_size.*{re.escape(repr(size))}"
    with pytest.raises(ValueError, match=message):
        wa.open(path).read(((0, 0, 0), (8, 8, 8)), voxel_size=size)
    with pytest.raises(ValueError, match=message):
        wa.open(path, voxel_size=size, on_mismatch="resample")


@pytest.mark.parametrize("anchor", [(0.0, 0.0), (0.0, 0.0, 0.0, 0.0)])
def test_an_anchor_of_the_wrong_length_raises_naming_it(tmp_path, anchor):
    path = volume(tmp_path, "a", np.zeros((3, 3, 3), np.uint8), (4, 4, 4), (0, 0, 0))
    message = f"anchor.*{re.escape(repr(anchor))}"
    with pytest.raises(ValueError, match=message):
        wa.open(path).read(((0, 0, 0), (8, 8, 8)), voxel_size=8, anchor=anchor)
    with pytest.raises(ValueError, match=message):
        wa.open(path, voxel_size=8, on_mismatch="resample", anchor=anchor)


def test_a_method_other_than_nearest_or_linear_raises_naming_it(tmp_path):
    path = volume(tmp_path, "a", np.zeros((3, 3, 3), np.uint8), (4, 4, 4), (0, 0, 0))
    with pytest.raises(ValueError, match="method.*'cubic'"):
        wa.open(path).read(((0, 0, 0), (8, 8, 8)), voxel_size=8, method="cubic")
    with pytest.raises(ValueError, match="method.*'cubic'"):
        wa.open(path, voxel_size=8, on_mismatch="resample", method="cubic")


# ---------------------------------------------------------------- chunk independence (hypothesis)

PREPARED = [  # (shape, dtype, voxel size, corner)
    ((11,), "uint16", (4.0,), (0.0,)),
    ((6,), "float32", (2.5,), (-7.5,)),
    ((5, 4, 7), "uint8", (4.0, 3.0, 2.0), (8.0, -6.0, 1.0)),
    ((3, 6, 5), "int16", (1.5, 2.0, 5.0), (0.0, 0.0, 0.0)),
]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    root, rng, out = tmp_path_factory.mktemp("resample"), np.random.default_rng(3), []
    for k, (shape, dtype, sizes, corner) in enumerate(PREPARED):
        values = rng.integers(-300 if dtype == "int16" else 0, 250, shape).astype(dtype)
        out.append((volume(root, f"v{k}", values, sizes, corner), sizes, corner, shape))
    return out


@st.composite
def split_reads(draw, prepared, method):
    path, sizes, corner, shape = draw(st.sampled_from(prepared))
    targets, anchor = [], []
    for s, c in zip(sizes, corner, strict=True):
        ratio = draw(st.sampled_from([1, 2, 3, 4]) | st.sampled_from([0.4, 0.75, 1.5, 2.5, 3.3]))
        targets.append(ratio * s)
        anchor.append(c + s * (draw(st.integers(-3, 3)) + draw(st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.7]))))
    assume(any(t != s for t, s in zip(targets, sizes, strict=True)))
    anchored = draw(st.booleans())
    anchor = tuple(anchor) if anchored else tuple(corner)
    lows, highs = [], []
    for n, s, c, t, a in zip(shape, sizes, corner, targets, anchor, strict=True):
        first, last = math.floor((c - a) / t + 1e-9), math.ceil((c + n * s - a) / t - 1e-9)
        b = draw(st.integers(first - 3, last + 1))
        lows.append(b)
        highs.append(draw(st.integers(b + 2, last + 4)))
    axis = draw(st.integers(0, len(shape) - 1))
    split = draw(st.integers(lows[axis] + 1, highs[axis] - 1))
    return dict(path=path, targets=tuple(targets), anchor=anchor if anchored else None, grid_anchor=anchor,
                lows=lows, highs=highs, axis=axis, split=split, method=method,
                padding=draw(st.sampled_from([0, 7, "edge"])))


def _halves(case):
    """The read [lows, highs) and its two parts along ``axis`` cut at ``split``.

    Each is a (begin, end) pair of target indices.
    """
    first_end, second_begin = list(case["highs"]), list(case["lows"])
    first_end[case["axis"]] = second_begin[case["axis"]] = case["split"]
    return (case["lows"], case["highs"]), (case["lows"], first_end), (second_begin, case["highs"])


def _assert_joined(whole, first, second, axis):
    for w, a, b in zip(whole, first, second, strict=True):  # the data, then the mask
        np.testing.assert_array_equal(np.concatenate([a, b], axis=axis), w)


@pytest.mark.parametrize("method", ["nearest", "linear"])
@pytest.mark.parametrize("surface", ["read-with-voxel_size", "read_index-on-a-resampled-handle"])
def test_two_adjoining_reads_agree_with_one_read_across_both(prepared, surface, method):
    @settings(max_examples=60, deadline=None, database=None)
    @given(case=split_reads(prepared, method))
    def check(case):
        t, a = case["targets"], case["grid_anchor"]
        if surface == "read-with-voxel_size":
            vol = wa.open(case["path"])

            def get(begin, end):
                box = ([x + j * s for x, j, s in zip(a, begin, t, strict=True)],
                       [x + j * s for x, j, s in zip(a, end, t, strict=True)])
                return vol.read(box, voxel_size=t, anchor=case["anchor"], method=case["method"],
                                padding=case["padding"], mask=True)
        else:
            vol = wa.open(case["path"], voxel_size=t, on_mismatch="resample", anchor=case["anchor"],
                          method=case["method"], padding=case["padding"])
            # the handle's index 0 on the grid
            offset = [round((c - x) / s) for c, x, s in zip(vol.corner, a, t, strict=True)]

            def get(begin, end):
                return vol.read_index([j - o for j, o in zip(begin, offset, strict=True)],
                                      [j - o for j, o in zip(end, offset, strict=True)], mask=True)

        whole, first, second = (get(*pair) for pair in _halves(case))
        _assert_joined(whole, first, second, case["axis"])

    check()


def test_one_anchor_number_stands_for_every_spatial_axis(tmp_path):
    values = np.arange(16, dtype=np.uint8).reshape(4, 4)
    vol = wa.open(volume(tmp_path, "a", values, (8, 8), (-4, -4)))
    box = ((-2, -2), (30, 30))
    np.testing.assert_array_equal(vol.read(box, voxel_size=4, anchor=-2), vol.read(box, voxel_size=4, anchor=(-2, -2)))
