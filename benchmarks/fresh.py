"""What a new process pays to open one level: ``import worldarray; wa.open(level)`` against ``import tensorstore;
ts.open(level)``, each a fresh Python process.

Builds a local OME-NGFF zarr v3 group ``fresh.zarr`` (levels ``s0``, 256^3 uint8 in 64^3 chunks, and ``s1``) in a
temporary directory, then runs, in each of R rounds and in a freshly shuffled order:

- the floor: ``python -c "import tensorstore as ts; ts.open({'driver': 'zarr3', 'kvstore': 'file://.../s0/'},
  read=True).result()"``;
- ours: ``python -c "import worldarray as wa; wa.open('.../s0')"``;
- as references, ``python -c "import tensorstore"`` and ``python -c "import worldarray"``, whose difference is the
  package's own import.

Every process runs with its bytecode cached, as an installed package runs: the environment's
PYTHONDONTWRITEBYTECODE is dropped for these processes, and the warm-up rounds write the cache of any module
changed since. (With it set, Python compiles every module of ours from source in every process: tens of
milliseconds that no installed copy pays.) Prints the medians, the ratios to the floor and the target. Asserts
nothing about timing.

Run: ``python benchmarks/fresh.py [--rounds N]``
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable

import worldarray as wa
from timing import interleaved, per_round, verdict

ROUNDS = 20
TARGET = 1.08
#: the processes' environment: this one's, with bytecode caching allowed
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def build(root: str) -> str:
    """A two-level zarr v3 OME group; returns its first level's path."""
    for i in range(2):
        wa.create(f"{root}/fresh.zarr/s{i}", (256 >> i,) * 3, "uint8", 8 * 2**i, 4 * 2**i, chunks=64, format="zarr3")
    return f"{root}/fresh.zarr/s0"


def process(code: str) -> Callable[[], None]:
    """A callable that runs ``code`` in a new Python process and fails when it fails."""
    def run() -> None:
        subprocess.run([sys.executable, "-c", code], env=ENVIRONMENT, check=True)
    return run


def cases(level: str) -> dict[str, Callable[[], None]]:
    """The floor, ours and the two imports alone, in that order; the opens are checked to find the same shape."""
    spec = {"driver": "zarr3", "kvstore": f"file://{level}/"}
    check = "assert tuple({}.shape) == (256, 256, 256)"
    floor = f"import tensorstore as ts; s = ts.open({spec!r}, read=True).result()"
    ours = f"import worldarray as wa; s = wa.open({level!r})"
    for code in (floor, ours):
        process(code + "; " + check.format("s"))()
    return {"import tensorstore; ts.open(level)": process(floor), "import worldarray; wa.open(level)": process(ours),
            "import tensorstore": process("import tensorstore"), "import worldarray": process("import worldarray")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        calls = cases(build(pathlib.Path(tmp).as_posix()))
        times = interleaved(list(calls.values()), args.rounds)
    medians = [statistics.median(t) / 1e6 for t in times]
    for (name, _), median, series in zip(calls.items(), medians, times, strict=True):
        print(f"{name:36} {median:8.1f} ms  median of ratios to the floor {per_round(series, times[0]):.3f}x")
    of_medians, of_ratios = medians[1] / medians[0], per_round(times[1], times[0])
    print(f"ours: ratio of medians {of_medians:.3f}x, target {TARGET:.2f}x: {verdict(of_medians, of_ratios, TARGET)};"
          f" the package's own import: {medians[3] - medians[2]:.1f} ms (median of imports, difference)")


if __name__ == "__main__":
    main()
