"""How much ``wa.copy`` adds to copying a whole array, against tensorstore's own copy of the same chunks.

Builds a zarr v3 level ``src.zarr/s0`` with ``wa.create``: 512^3 uint8 in 64^3 chunks, zstd level 3 (the default
codecs), 8 nm voxels, filled with 6 bits of noise per byte so that zstd does real work. Then times two cases in
interleaved rounds, each round writing to fresh paths (the last round's are removed outside the timing):

- whole copy: the floor opens the source with tensorstore, creates a zarr3 target from the array document
  ``wa.copy`` itself writes (its chunks and codecs) and runs ``dst.write(src).result()``; ours is
  ``wa.copy(src, dst)``. Target at most 1.15x.
- 2x linear resampled copy: the floor is ``vol.read(vol.box, voxel_size=16, method="linear")``, one read of the
  whole box, plus a raw tensorstore write of the result into a target of the document ``wa.copy`` writes for it;
  ours is ``wa.copy(src, dst, voxel_size=16, method="linear")``. Target at most 1.1x.

Both floors run on ``wa.shared_context()``, the context worldarray opens with. Before timing, each case checks that
ours stores exactly the floor's voxels. A third figure is memory: in a fresh process that opens the source and
makes one small copy first (so that code, tensorstore's pools and the allocator are warm), the growth of peak RSS
during the whole copy over the RSS just before it, as a multiple of one write unit (64^3 bytes = 256 KiB); target
at most 8 units. Asserts nothing about timing.

Run: ``python benchmarks/copies.py [--rounds N] [--repeat N]`` (``run.py --only copy`` runs the same cases). Not
``copy.py``: the scripts' directory comes first on ``sys.path``, where that name would hide the standard library's.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable

import numpy as np
import tensorstore as ts

import worldarray as wa
from timing import interleaved, per_round, verdict

SHAPE, CHUNK, SIZE = (512, 512, 512), 64, 8
UNIT = CHUNK**3  # bytes of one write unit of uint8
TARGET = {"whole": 1.15, "linear": 1.1, "memory": 8.0}
ROUNDS = 15
CHILD = """
import sys, worldarray as wa
def status(key):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(key))  # kB
vol = wa.open(sys.argv[1])
wa.copy(vol, "memory://warm/w.zarr/s0", box=((0, 0, 0), (1024, 1024, 1024)))  # 8 units: the same code paths, warm
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # the peak (VmHWM) starts again from the RSS now
before = status("VmRSS:")
wa.copy(vol, sys.argv[2])
print(status("VmHWM:") - before)
"""


def build(root: str) -> str:
    """Create the source level under ``root``; its path."""
    path = root + "/src.zarr/s0"
    vol = wa.create(path, SHAPE, "uint8", SIZE, SIZE / 2, chunks=CHUNK)
    rng = np.random.default_rng(0)
    vol.write_index((0, 0, 0), SHAPE, np.frombuffer(rng.bytes(int(np.prod(SHAPE))), np.uint8).reshape(SHAPE) & 63)
    return path


class Rounds:
    """Fresh target directories, one per round: ``next()`` removes the last round's and names this one's."""

    def __init__(self, root: str):
        self.root, self.count = root, 0

    def next(self) -> tuple[str]:
        shutil.rmtree(f"{self.root}/round{self.count}", ignore_errors=True)
        self.count += 1
        return (f"{self.root}/round{self.count}",)


def document(path: str) -> dict:
    """The array document at ``path`` (a zarr v3 level), for a floor's target of the same chunks and codecs."""
    return json.loads(pathlib.Path(path, "zarr.json").read_text())


def raw_target(path: str, metadata: dict) -> ts.TensorStore:
    """A zarr3 array created by tensorstore at ``path`` from ``metadata``, on the context worldarray uses."""
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": path + "/"}, "metadata": metadata}
    return ts.open(spec, create=True, write=True, context=wa.shared_context()).result()


def cases(source: str, root: str) -> list[tuple[str, float, Callable, Callable]]:
    """[(case, target, floor, ours)], each a callable of one round's directory; ``root`` takes the sample copies."""
    whole = document(wa.copy(source, root + "/sample.zarr/s0").level_path)
    linear = document(wa.copy(source, root + "/sample2.zarr/s0", voxel_size=2 * SIZE, method="linear").level_path)

    def floor_whole(out: str) -> None:
        src = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": source + "/"}}, read=True,
                      context=wa.shared_context()).result()
        raw_target(out + "/floor", whole).write(src).result()

    def floor_linear(out: str) -> None:
        vol = wa.open(source)
        data = vol.read(vol.box, voxel_size=2 * SIZE, method="linear")
        raw_target(out + "/floor", linear).write(data).result()

    return [("copy 512^3 uint8, whole", TARGET["whole"], floor_whole,
             lambda out: wa.copy(source, out + "/ours.zarr/s0")),
            ("copy 512^3 uint8, linear 2x", TARGET["linear"], floor_linear,
             lambda out: wa.copy(source, out + "/ours.zarr/s0", voxel_size=2 * SIZE, method="linear"))]


def check(name: str, floor: Callable, ours: Callable, out: str) -> None:
    """Assert that ours stores exactly the floor's voxels, or the timing proves nothing."""
    floor(out)
    ours(out)
    raw = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": out + "/floor/"}}).result()
    mine = wa.open(out + "/ours.zarr/s0")
    assert raw.shape == mine.shape, f"{name}: ours has shape {mine.shape}, the floor {raw.shape}"
    expected = raw.read().result()
    assert np.array_equal(mine.read_index((0,) * 3, mine.shape), expected), f"{name}: ours wrote other voxels"
    shutil.rmtree(out)


def memory(source: str, root: str, repeat: int) -> float:
    """The median growth of peak RSS over ``repeat`` fresh processes during a whole copy, in write units."""
    grown = []
    for k in range(repeat):
        out = f"{root}/memory{k}.zarr"
        run = subprocess.run([sys.executable, "-c", CHILD, source, out + "/s0"], capture_output=True, text=True,
                             check=True)
        grown.append(int(run.stdout.split()[0]) * 1024 / UNIT)
        shutil.rmtree(out, ignore_errors=True)
    return statistics.median(grown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"interleaved rounds per case (default {ROUNDS})")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes for the memory figure (median)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles (default: unseeded)")
    args = parser.parse_args()
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp).as_posix()
        source = build(root)
        print(f"{'case':30} {'rounds':>6} {'floor':>9} {'ours':>9} {'ratio':>7} {'of medians':>10} {'target':>7}  met")
        for name, target, floor, ours in cases(source, root):
            check(name, floor, ours, root + "/check")
            rounds = Rounds(root)
            times = interleaved([floor, ours], args.rounds, warmup=1, arguments=rounds.next)
            rounds.next()
            f, o = statistics.median(times[0]) / 1e9, statistics.median(times[1]) / 1e9
            ratio = per_round(times[1], times[0])
            print(f"{name:30} {args.rounds:6} {f:8.3f}s {o:8.3f}s {ratio:6.3f}x {o / f:9.3f}x {target:6.2f}x  "
                  f"{verdict(o / f, ratio, target)}")
        units = memory(source, root, args.repeat)
        print(f"{'peak RSS of the whole copy':30} {args.repeat:6} {'':>9} {units:8.1f}u {'':>7} {'':>10} "
              f"{TARGET['memory']:6.1f}u  {'yes' if units <= TARGET['memory'] else 'no'}")


if __name__ == "__main__":
    main()
