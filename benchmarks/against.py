"""First opens of the working tree against a commit's, interleaved in one process, beside tensorstore's open.

    python benchmarks/against.py f8ad79a            # the working tree's worldarray against f8ad79a's
    python benchmarks/against.py HEAD --rounds 1000

A change of a few percent is lost in the noise between two runs of ``run.py`` on a shared machine: the floor
itself moves by a quarter from one run to the next. Here the commit's package is unpacked from git as
``worldarray_base`` (the package imports itself by relative imports only), and every round runs tensorstore's
open, ours and the commit's, each of a level path and of a group with the level named, in a random order. Each
open forgets the opens its package kept first (a first open). Printed: tenth percentiles (the least disturbed
rounds), ours over the commit's, and each over the floor.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable

import tensorstore as ts

import worldarray as wa

BENCHMARKS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))
from run import MANY_OPEN, OPEN_FORMATS, build_opens, level_spec  # noqa: E402
from timing import interleaved  # noqa: E402

BASE = "worldarray_base"


def unpack(commit: str, into: str) -> object:
    """The package as ``commit`` has it, unpacked into ``into`` and imported as ``worldarray_base``."""
    archive = subprocess.run(["git", "-C", str(BENCHMARKS.parent), "archive", commit, "src/worldarray"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    (pathlib.Path(into) / "src/worldarray").rename(pathlib.Path(into) / BASE)
    sys.path.insert(0, into)
    return importlib.import_module(BASE)


def first(package, forget: Callable[[], None], *args, **kwargs) -> Callable[[], object]:
    """A first open of ``package``: its kept opens forgotten, then ``package.open(*args, **kwargs)``."""
    return lambda: (forget(), package.open(*args, **kwargs))


def tenth(series: list[int]) -> float:
    return statistics.quantiles(series, n=10)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("commit", help="the commit to compare with (HEAD: the working tree's changes)")
    parser.add_argument("--rounds", type=int, default=600)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as unpacked, tempfile.TemporaryDirectory() as root:
        base = unpack(options.commit, unpacked)
        ours_forget = importlib.import_module("worldarray.handle").forget_opens
        base_forget = importlib.import_module(f"{BASE}.handle").forget_opens
        build_opens(root)
        context = wa.shared_context()
        cases = {**OPEN_FORMATS, "32 levels": MANY_OPEN}
        print(f"first opens, tenth percentiles of {options.rounds} rounds: ours, {options.commit}'s, ours / theirs, "
              "and each / tensorstore's open")
        for name, (group, level, driver) in cases.items():
            spec = level_spec(f"file://{root}", group, level, driver)
            calls = [lambda spec=spec: ts.open(spec, context=context, read=True).result()]
            for args, kwargs in (((f"{root}/{group}/{level}",), {}), ((f"{root}/{group}",), {"level": level})):
                calls += [first(wa, ours_forget, *args, **kwargs), first(base, base_forget, *args, **kwargs)]
            floor, *times = map(tenth, interleaved(calls, options.rounds, warmup=20))
            for label, (ours, theirs) in zip(("level path", "group + level"), (times[:2], times[2:]), strict=True):
                print(f"{name:12s} {label:14s} {ours / 1e3:6.0f} us {theirs / 1e3:6.0f} us {ours / theirs:6.3f}"
                      f"   {ours / floor:5.2f}x {theirs / floor:5.2f}x   (floor {floor / 1e3:.0f} us)")


if __name__ == "__main__":
    main()
