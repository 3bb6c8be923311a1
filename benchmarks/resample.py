"""How much worldarray's resampled read costs, against the cheapest way to get the same voxels from tensorstore.

Builds a local OME-NGFF 0.5 zarr v3 group ``vol.zarr`` in a temporary directory: one level ``s0``, a 256^3
uint8 volume in 64^3 chunks, zstd, voxel size (8, 8, 8) nm and translation (4, 4, 4), so the corner is at the
origin. Then reads the whole volume at voxel size 16 nm (factor 2 on every axis), two ways, each against its floor:

- "nearest": ``vol.read(vol.box, voxel_size=16)`` against tensorstore's own strided read of the same voxels,
  ``raw[1::2, 1::2, 1::2]`` (target voxel j is centred at 16 j + 8 nm, which lies in source voxel 2 j + 1);
- "linear": ``vol.read(vol.box, voxel_size=16, method="linear")`` against tensorstore's own block mean of the same
  box, ``ts.downsample(store, [2, 2, 2], method="mean")`` read, which reduces each chunk as it is decoded and
  rounds integers to nearest with ties to even: the voxels worldarray's linear read gives at a whole factor.

Each floor is timed twice: through a plain ``ts.open`` of s0 (on ``wa.shared_context()``) and through ``vol.ts``,
the handle worldarray reads through, opened with the array document handed over (``assume_metadata``), which
tensorstore serves some tens of microseconds faster per read (see read.py): nothing at these sizes, so the two
floors differ only by noise. The column "vs vol.ts" is the per-round ratio to the latter. As reference rows,
``scipy.ndimage.zoom(data, 0.5, order=0 / 1)`` after the same raw read: the same shape, not the same voxels (zoom
maps corners to corners), so they are timed only, and left out without scipy. And for linear, the numpy floor
this case had before worldarray read through the driver: a raw read of the whole volume plus the block mean in
numpy (2x2x2 sums accumulated in uint16, then ``np.rint(sum / 8)`` cast to uint8), the same voxels (checked; a
difference is printed, not fatal), reduced after the whole read instead of chunk by chunk.

Before timing, ours and the vol.ts floor are checked to equal the raw floor exactly. In each of R rounds every
callable of a case runs once, in a freshly shuffled order. Prints per callable the median milliseconds, the ratio
of medians to the floor, the median of the per-round ratios (steadier on a busy machine), the per-round ratio to
the vol.ts floor, the target, which is judged against the raw floor, and the issue's figure for that row: the
reader being replaced (old) or scipy. Asserts nothing about timing.

Run: ``python benchmarks/resample.py [--rounds N]``
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import tempfile

import numpy as np
import tensorstore as ts

from timing import interleaved, per_round, verdict

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from read import SHAPE, build, opened  # noqa: E402  the same volume, built and opened the same way

try:  # not a dependency of worldarray: without it the reference rows are left out
    import scipy.ndimage
except ImportError:
    scipy = None

FACTOR, TARGET = 2, 16.0  # source voxels are 8 nm
ROUNDS = 30  # per case


def block_mean(data: np.ndarray) -> np.ndarray:
    """The rounded mean of every FACTOR^3 block, in integers until the one division.

    The two leading axes are summed as whole planes of rows (contiguous adds), the last axis as strided
    slices of the smaller partial sum. uint16 holds FACTOR^3 * 255 for factors up to 6.
    """
    n0, n1, n2 = (n // FACTOR for n in data.shape)
    planes = data.reshape(n0, FACTOR, n1, FACTOR, FACTOR * n2)
    total = planes[:, 0, :, 0].astype(np.uint16)
    for i in range(FACTOR):
        for j in range(FACTOR):
            if i or j:
                total += planes[:, i, :, j]
    rows = total.reshape(n0, n1, n2, FACTOR)
    sums = rows[..., 0].copy()
    for k in range(1, FACTOR):
        sums += rows[..., k]
    return np.rint(sums / FACTOR**3).astype(data.dtype)


def cases(raw, vol):
    """(case name, target, [(callable name, callable, issue figure)]): the floor, vol.ts, ours, then references."""
    step = slice(FACTOR // 2, None, FACTOR)  # the source voxel holding each target centre: 1, 3, 5, ... at factor 2

    def strided(store):
        return lambda: store[step, step, step].read().result()

    def mean(store):
        return lambda: block_mean(store.read().result())

    def zoom(order):
        return lambda: scipy.ndimage.zoom(raw.read().result(), 1 / FACTOR, order=order)

    def downsample(store):
        return lambda: ts.downsample(store, [FACTOR] * 3, method="mean").read().result()

    nearest = [("ts [1::2]^3", strided(raw), ""), ("vol.ts [1::2]^3", strided(vol.ts), ""),
               ("read nearest", lambda: vol.read(vol.box, voxel_size=TARGET), "1.9x old"),
               *([("ts + zoom(0)", zoom(0), "3.0x")] if scipy else [])]
    linear = [("ts.downsample mean", downsample(raw), ""), ("vol.ts.downsample", downsample(vol.ts), ""),
              ("read linear", lambda: vol.read(vol.box, voxel_size=TARGET, method="linear"), "8.4x old"),
              ("ts + block mean", mean(raw), ""),
              *([("ts + zoom(1)", zoom(1), "3.5x")] if scipy else [])]
    return [("nearest x2", 1.1, nearest), ("linear x2", 1.1, linear)]


def check(name: str, got: np.ndarray, expected: np.ndarray) -> None:
    """Assert equal dtype, shape and values; on a mismatch first print how many voxels differ and by how much."""
    assert got.dtype == expected.dtype and got.shape == expected.shape, \
        f"{name}: {got.dtype} {got.shape} against the floor's {expected.dtype} {expected.shape}"
    differ = got != expected
    if differ.any():
        gap = np.abs(got.astype(np.int64) - expected.astype(np.int64))[differ]
        values, counts = np.unique(gap, return_counts=True)
        print(f"{name}: {int(differ.sum())} of {differ.size} voxels differ from the floor; |difference|: "
              + ", ".join(f"{v} x{c}" for v, c in zip(values, counts, strict=True)))
    assert not differ.any(), f"{name} differs from the floor"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds per case (default {ROUNDS})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles (default: unseeded)")
    args = parser.parse_args()
    random.seed(args.seed)

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp).as_posix()
        build(pathlib.Path(root, "vol.zarr"))
        raw, vol = opened(root)
        table = cases(raw, vol)
        for name, _, calls in table:  # ours must read the floor's voxels, or the ratio proves nothing
            expected = calls[0][1]()
            assert expected.shape == tuple(n // FACTOR for n in SHAPE), f"{name}: floor shape {expected.shape}"
            for label, call, _ in calls[1:3]:
                check(f"{name}: {label}", call(), expected)
            for label, call, _ in calls[3:]:
                if "block mean" in label and not np.array_equal(call(), expected):  # a reference row: reported only
                    print(f"note: {label} differs from the floor in {int((call() != expected).sum())} voxels")

        print(f"whole {SHAPE[0]}^3 uint8 volume at 8 nm read at {TARGET:g} nm; {args.rounds} rounds per case")
        print("per callable: median ms over rounds; ratios to the floor (first row of a case) as ratio of medians")
        print("and median of per-round ratios; 'vs vol.ts' = median per-round ratio to the floor read through our")
        print("own handle; 'issue' = the issue's figure for the reader being replaced (old) or scipy.ndimage.zoom")
        print(f"{'case':11} {'callable':20} {'median ms':>10} {'ratio of':>9} {'median of':>10}"
              f" {'vs':>8} {'target':>7}  {'reached':10} {'issue':>8}")
        print(f"{'':11} {'':20} {'':>10} {'medians':>9} {'ratios':>10} {'vol.ts':>8}")
        for name, target, calls in table:
            times = interleaved([call for _, call, _ in calls], args.rounds)
            floor_median = statistics.median(times[0])
            for row, ((label, _, issue), series) in enumerate(zip(calls, times, strict=True)):
                median = statistics.median(series)
                line = f"{name if row == 0 else '':11} {label:20} {median / 1e6:10.1f}"
                if row > 0:
                    of_medians = median / floor_median
                    of_ratios = per_round(series, times[0])
                    line += f" {of_medians:8.3f}x {of_ratios:9.3f}x {per_round(series, times[1]):7.3f}x"
                    if row == 2:
                        reached = verdict(of_medians, of_ratios, target)
                        line += f" {target:6.2f}x  {reached:10}"
                    else:
                        line += f" {'':7}  {'':10}"
                    line += f" {issue:>8}"
                print(line)


if __name__ == "__main__":
    main()
