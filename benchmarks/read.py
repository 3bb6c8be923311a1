"""How much worldarray adds to reading voxels, against a bare tensorstore read of the same bytes.

Builds a local OME-NGFF 0.5 zarr v3 group ``vol.zarr`` in a temporary directory: one level ``s0``, a 256^3
uint8 volume in 64^3 chunks, zstd, voxel size (8, 8, 8) nm and translation (4, 4, 4), so the corner is at the
origin and voxel i spans [8i, 8i + 8) nm. Then times four cases, each against its floor:

- one voxel; a 32^3 block inside one chunk; a 4 MiB chunk-aligned slab: a slice of a raw ``ts.open`` of s0
  (on ``wa.shared_context()``, the cache policy worldarray uses) against ``read_index`` and ``read``;
- a box half outside the data: the raw read of the inside part plus ``np.pad`` against ``read_index`` and ``read``,
  with zeros (``padding=0``) and with the border voxels repeated (``padding="edge"``, ``np.pad(mode="edge")``).

Each case also times the same slice of ``vol.ts``, the handle worldarray itself reads through. It differs from
the raw open in how tensorstore was opened (the array document handed over, explicit bounds), which tensorstore
rewards per read, so the column "vs vol.ts" isolates the Python that worldarray runs around the read.

Before timing, each result is checked to equal its floor's. In each of R rounds every callable of a case runs
once, in a freshly shuffled order. Prints per callable the median microseconds, the ratio of medians to the
floor, the median of the per-round ratios (steadier on a busy machine), the per-round ratio to vol.ts and the
target, which is judged against the floor. Asserts nothing about timing.

Run: ``python benchmarks/read.py [--rounds SCALE]``
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import statistics
import tempfile

import numpy as np
import tensorstore as ts

import worldarray as wa
from timing import interleaved, per_round, verdict

SHAPE, CHUNK, SIZE, SHIFT = (256, 256, 256), (64, 64, 64), 8.0, 4.0
ROUNDS = {"small": 300, "large": 60}  # per case, by its rounds key


def build(group: pathlib.Path) -> None:
    """Write the group zarr.json by hand and the level s0 through tensorstore."""
    axes = [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"]
    datasets = [{"path": "s0", "coordinateTransformations": [
        {"type": "scale", "scale": [SIZE] * 3},
        {"type": "translation", "translation": [SHIFT] * 3},
    ]}]
    document = {"zarr_format": 3, "node_type": "group",
                "attributes": {"ome": {"version": "0.5", "multiscales": [{"axes": axes, "datasets": datasets}]}}}
    group.mkdir()
    (group / "zarr.json").write_text(json.dumps(document))
    array = ts.open({
        "driver": "zarr3",
        "kvstore": {"driver": "file", "path": str(group / "s0")},
        "metadata": {
            "shape": SHAPE, "data_type": "uint8", "dimension_names": list("zyx"),
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": CHUNK}},
            "codecs": [{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 3}}],
        },
    }, create=True).result()
    # 6 bits of noise per byte: zstd compresses it to about 3/4, so decoding does real entropy work
    array.write(np.random.default_rng(0).integers(0, 64, SHAPE, dtype=np.uint8)).result()


def world(begin, end):
    """The world box whose voxel centres are exactly voxels [begin, end)."""
    return tuple(b * SIZE for b in begin), tuple(e * SIZE for e in end)


SMALL, LARGE = {"read_index": 1.05, "read": 1.08}, {"read_index": 1.02, "read": 1.02}
#: (case name, rounds key, targets, begin, end): boxes wholly inside the data
INSIDE = (
    ("1 voxel", "small", SMALL, (10, 20, 30), (11, 21, 31)),
    ("32^3 in one chunk", "small", SMALL, (70, 70, 70), (102, 102, 102)),
    ("4 MiB aligned", "large", LARGE, (0, 0, 0), (64, 256, 256)),
)
#: (case name, rounds key, targets, padding, np.pad mode): the box OUTSIDE, its first half before the data
PADDED = (
    ("half outside", "large", LARGE, 0, "constant"),
    ("half outside, edge", "large", {"read_index": 1.05, "read": 1.05}, "edge", "edge"),
)
OUTSIDE = ((-32, 0, 0), (32, 64, 64))
#: the part of OUTSIDE inside the data, and the np.pad widths that make it OUTSIDE again
INSIDE_PART, PAD_WIDTH = ((0, 0, 0), (32, 64, 64)), ((32, 0), (0, 0), (0, 0))


def opened(root: str) -> tuple[ts.TensorStore, wa.WorldArray]:
    """The raw ``ts.open`` of ``root``/vol.zarr/s0 on ``wa.shared_context()``, and ``wa.open`` of the level."""
    raw = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": root + "/vol.zarr/s0/"}},
                  context=wa.shared_context(), read=True).result()
    return raw, wa.open(root + "/vol.zarr", level="s0")


def cases(raw, vol):
    """(case name, rounds key, target, [(callable name, callable)]): the floor first, then vol.ts, then ours."""
    def direct(store, begin, end):
        return lambda: store[tuple(map(slice, begin, end))].read().result()

    def ours(begin, end, padding=None):
        box = world(begin, end)
        return [("read_index", lambda: vol.read_index(begin, end, padding)),
                ("read", lambda: vol.read(box, padding=padding))]

    out = [(name, key, target, [("ts slice", direct(raw, b, e)), ("vol.ts slice", direct(vol.ts, b, e)), *ours(b, e)])
           for name, key, target, b, e in INSIDE]
    floor, tight = direct(raw, *INSIDE_PART), direct(vol.ts, *INSIDE_PART)
    for name, key, target, padding, mode in PADDED:
        out.append((name, key, target, [
            ("ts + np.pad", lambda mode=mode: np.pad(floor(), PAD_WIDTH, mode=mode)),
            ("vol.ts + np.pad", lambda mode=mode: np.pad(tight(), PAD_WIDTH, mode=mode)),
            *ours(*OUTSIDE, padding)]))
    return out


def check(name: str, calls) -> None:
    """Assert that every callable after the first returns the first's array: the same bytes, or it proves nothing."""
    expected = calls[0][1]()
    for label, call in calls[1:]:
        got = call()
        same = got.dtype == expected.dtype and got.shape == expected.shape and np.array_equal(got, expected)
        assert same, f"{name}: {label} differs from the floor"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=float, default=1.0,
                        help="scale the rounds (default 1: 300 for the small reads, 60 for 4 MiB and half outside)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles (default: unseeded)")
    args = parser.parse_args()
    random.seed(args.seed)
    rounds = {key: max(1, round(n * args.rounds)) for key, n in ROUNDS.items()}

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp).as_posix()
        build(pathlib.Path(root, "vol.zarr"))
        raw, vol = opened(root)
        table = cases(raw, vol)
        for name, _, _, calls in table:
            check(name, calls)

        print("per callable: median us over rounds; ratios to the floor (first row of a case) as ratio of medians")
        print("and median of per-round ratios; 'vs vol.ts' = median per-round ratio to a read through our own handle")
        print(f"{'case':18} {'callable':15} {'rounds':>6} {'median us':>10} {'ratio of':>9} {'median of':>10}"
              f" {'vs':>8} {'target':>7}  reached")
        print(f"{'':18} {'':15} {'':>6} {'':>10} {'medians':>9} {'ratios':>10} {'vol.ts':>8}")
        for name, key, target, calls in table:
            times = interleaved([call for _, call in calls], rounds[key], warmup=10)
            floor_median = statistics.median(times[0])
            for row, ((label, _), series) in enumerate(zip(calls, times, strict=True)):
                median = statistics.median(series)
                line = f"{name if row == 0 else '':18} {label:15} {rounds[key]:6} {median / 1e3:10.1f}"
                if row > 0:
                    of_medians = median / floor_median
                    of_ratios = per_round(series, times[0])
                    line += f" {of_medians:8.3f}x {of_ratios:9.3f}x"
                if label in target:
                    reached = verdict(of_medians, of_ratios, target[label])
                    line += f" {per_round(series, times[1]):7.3f}x {target[label]:6.2f}x  {reached}"
                print(line)


if __name__ == "__main__":
    main()
