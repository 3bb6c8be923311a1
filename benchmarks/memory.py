"""Peak memory of a read: how far one read raises the process's peak RSS, in a fresh process that only opens and reads.

Makes a 384^3 uint8 zarr v3 array at 8 nm (54 MiB stored, chunks 64^3) in a temporary directory, then for each
case starts a new Python process that opens it and reads ``vol.box``: plainly, resampled to 16 nm by "linear" and
by "nearest", and by ``read_onto`` a 16 nm grid. The figure is the growth of peak RSS over the RSS just before the
read: the peak (``VmHWM``) is reset to the RSS then through ``/proc/self/clear_refs`` (Linux), so the imports'
own peak does not hide the read's, and tensorstore's buffers, which tracemalloc does not see, count. Prints each
case's growth in MiB and as a multiple of the source block. Asserts nothing about memory.

Run: ``python benchmarks/memory.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import worldarray as wa

SHAPE = (384, 384, 384)
CASES = {
    "read, plain": "vol.read(vol.box)",
    "read, linear 2x": "vol.read(vol.box, voxel_size=16, method='linear')",
    "read, nearest 2x": "vol.read(vol.box, voxel_size=16, method='nearest')",
    "read_onto, linear 2x": "vol.read_onto(wa.Grid.from_meta(vol.grid, voxel_size=16), method='linear')",
}
CHILD = """
import sys, numpy as np, worldarray as wa
def status(key):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(key))  # kB
vol = wa.open(sys.argv[1])
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # the peak (VmHWM) starts again from the RSS now, not from the imports' peak
before = status("VmRSS:")
out = {read}
print((status("VmHWM:") - before) / 1024, out.nbytes / 2**20)
"""


def build(path: str) -> float:
    """Create the SHAPE array at ``path`` (a zarr level, 8 nm, chunks 64^3) filled with noise; its size in MiB."""
    vol = wa.create(path, SHAPE, "uint8", 8, 4, chunks=64)
    vol.write_index((0, 0, 0), SHAPE, np.random.default_rng(0).integers(0, 255, SHAPE, dtype=np.uint8))
    return float(np.prod(SHAPE)) / 2**20


def growth(path: str, read: str, repeat: int) -> tuple[float, float]:
    """The median growth of peak RSS over ``repeat`` fresh processes that open ``path`` and run ``read``, in MiB,
    and the size of what the read returns, in MiB."""
    runs = [subprocess.run([sys.executable, "-c", CHILD.format(read=read), path], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(repeat)]
    return statistics.median(float(r[0]) for r in runs), float(runs[0][1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per case (the median is printed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/m.zarr/s0"
        block = build(path)
        print(f"source block {block:.1f} MiB; growth of peak RSS per read, median of {args.repeat} fresh processes")
        print(f"{'case':<24}{'output MiB':>12}{'growth MiB':>12}{'x block':>9}")
        for name, read in CASES.items():
            grown, output = growth(path, read, args.repeat)
            print(f"{name:<24}{output:>12.2f}{grown:>12.1f}{grown / block:>9.2f}")


if __name__ == "__main__":
    main()
