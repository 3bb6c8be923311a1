"""How much worldarray adds to writing whole chunks, against a bare tensorstore write of the same voxels.

Creates a placed level ``out.zarr/s0`` with ``wa.create`` in a temporary directory: a 256^3 uint8 volume in
64^3 chunks, zstd level 3 (the default codecs), voxel size 8 nm and translation 4 nm. Then times one case, a
128^3 chunk-aligned region (8 whole chunks, 2 MiB) at the origin, written three ways:

- ``ts slice``: the floor, ``raw[0:128, 0:128, 0:128].write(data).result()`` on a raw ``ts.open`` of s0 in a
  context of tensorstore's own with no cache, ``file_io_sync`` off and no OS file locks (``FLOOR_CONTEXT``);
- ``vol.ts slice``: the same slice of ``vol.ts``, the handle worldarray itself writes through (opened with the
  array document handed over as ``assume_metadata``);
- ``write_index``: ``vol.write_index((0, 0, 0), (128, 128, 128), data)``.

Every round draws fresh data (6 bits of noise per byte, so zstd does real work and shrinks each chunk to about
3/4) outside the timing, and each of the three writes that same array, in a freshly shuffled order. Every write
replaces the same 8 chunk files. Before timing, each writer is checked to leave exactly its data in the array.
Prints per callable the median milliseconds, the ratio of medians to the floor, the median of the per-round
ratios (steadier on a busy machine), the per-round ratio to vol.ts and the target, which is judged against
the floor. Asserts nothing about timing.

Run: ``python benchmarks/write.py [--rounds SCALE]``
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import tempfile

import numpy as np
import tensorstore as ts

import worldarray as wa
from timing import interleaved, per_round, verdict

SHAPE, CHUNK, SIZE, SHIFT = (256, 256, 256), 64, 8, 4
BEGIN, END = (0, 0, 0), (128, 128, 128)
TARGET = {"write_index": 1.03}
ROUNDS = 1000
# The floor: tensorstore writing with no cache, no fsync and no OS file locks, which a whole-unit write needs neither of
FLOOR_CONTEXT = {"cache_pool": {"total_bytes_limit": 0}, "file_io_sync": False, "file_io_locking": {"mode": "none"}}


def noise(rng: np.random.Generator) -> np.ndarray:
    """A fresh 128^3 uint8 block with 6 bits of noise per byte (random bytes are quicker to draw than integers)."""
    shape = tuple(e - b for b, e in zip(BEGIN, END, strict=True))
    return np.frombuffer(rng.bytes(int(np.prod(shape))), dtype=np.uint8).reshape(shape) & 63


def calls(raw, vol):
    """[(callable name, callable of the data)]: the floor first, then vol.ts, then ours."""
    region = tuple(map(slice, BEGIN, END))

    def direct(store):  # indexed on every call, as a caller of tensorstore would, and as write_index does
        return lambda data: store[region].write(data).result()

    return [("ts slice", direct(raw)), ("vol.ts slice", direct(vol.ts)),
            ("write_index", lambda data: vol.write_index(BEGIN, END, data))]


def build(root: str) -> tuple[ts.TensorStore, wa.WorldArray]:
    """Create ``root``/out.zarr/s0 with ``wa.create``; the floor's raw open of it and worldarray's handle."""
    vol = wa.create(root + "/out.zarr/s0", SHAPE, "uint8", voxel_size=SIZE, translation=SHIFT, chunks=CHUNK)
    raw = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": root + "/out.zarr/s0/"}, "open": True},
                  read=True, write=True, context=ts.Context(FLOOR_CONTEXT)).result()
    return raw, vol


def check(raw, label: str, call, rng: np.random.Generator) -> None:
    """Assert that ``call`` leaves exactly its data in the array, or the timing proves nothing."""
    data = noise(rng)
    call(data)
    assert np.array_equal(raw[tuple(map(slice, BEGIN, END))].read().result(), data), f"{label} did not write its data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=float, default=1.0,
                        help=f"scale the rounds (default 1: {ROUNDS} rounds of three 2 MiB writes)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles and the data (default: unseeded)")
    args = parser.parse_args()
    random.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    rounds = max(1, round(ROUNDS * args.rounds))

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp).as_posix()
        raw, vol = build(root)
        table = calls(raw, vol)
        for label, call in table:
            check(raw, label, call, rng)
        chunk = pathlib.Path(root, "out.zarr/s0/c/0/0/0").stat().st_size
        print(f"128^3 uint8 = 8 whole 64^3 chunks, zstd level 3, {chunk / CHUNK**3:.2f} of raw size on disk; "
              f"the same fresh data per round for all three")
        print("per callable: median ms over rounds; ratios to the floor (first row) as ratio of medians")
        print("and median of per-round ratios; 'vs vol.ts' = median per-round ratio to a write through our own handle")
        print(f"{'callable':15} {'rounds':>6} {'median ms':>10} {'ratio of':>9} {'median of':>10}"
              f" {'vs':>8} {'target':>7}  reached")
        print(f"{'':15} {'':>6} {'':>10} {'medians':>9} {'ratios':>10} {'vol.ts':>8}")
        times = interleaved([call for _, call in table], rounds, warmup=5, arguments=lambda: (noise(rng),))
        floor_median = statistics.median(times[0])
        for row, ((label, _), series) in enumerate(zip(table, times, strict=True)):
            median = statistics.median(series)
            line = f"{label:15} {rounds:6} {median / 1e6:10.2f}"
            if row > 0:
                of_medians = median / floor_median
                of_ratios = per_round(series, times[0])
                line += f" {of_medians:8.3f}x {of_ratios:9.3f}x"
            if label in TARGET:
                reached = verdict(of_medians, of_ratios, TARGET[label])
                line += f" {per_round(series, times[1]):7.3f}x {TARGET[label]:6.2f}x  {reached}"
            print(line)


if __name__ == "__main__":
    main()
