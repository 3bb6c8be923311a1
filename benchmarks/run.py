"""One command for the performance targets: every benchmark against its floor, in one run, printed as one table.

Builds its volumes in a temporary directory with the other scripts' builders, checks that each operation returns
(or writes) exactly its floor's voxels, then times each case in rounds, every round running the floor, ours and
the peers once each in a freshly shuffled order (``timing.interleaved``). The cases:

- read (``read.py``): one voxel, 32^3 in one chunk, a 4 MiB chunk-aligned slab, ``read_index`` and ``read``
  against a raw tensorstore read of the same voxels on ``wa.shared_context()``;
- pad (``read.py``): a box half outside the data with ``padding=0`` and ``padding="edge"``, against the raw read
  of the inside part plus ``np.pad``;
- resample (``resample.py``): the whole 256^3 volume read at twice its voxel size, "nearest" against
  tensorstore's strided read, "linear" against tensorstore's downsample driver (mean) of the same box;
- write (``write.py``): ``write_index`` of 8 whole chunks against a raw tensorstore write in a context with
  ``file_io_sync`` off and no locks;
- open: ``wa.open`` of a level path and of a group plus a level name, zarr v3, zarr v2 and precomputed, against
  tensorstore's own ``ts.open`` of the level on ``wa.shared_context()``; locally, and over a loopback HTTP server
  (``slow_http.py``) that waits 10 ms before every answer, where the requests and rounds of each open are counted;
  locally also a first open of a level of a 32-level zarr v3 group, by its path and by the group and its name;
- list (``listing.py``): ``vol.list_chunks()`` of a zarr v3 array of 32^3 stored chunks against tensorstore's own
  kvstore listing of the array's keys;
- fresh (``fresh.py``): a new Python process that runs ``import worldarray; wa.open(level)`` against one that runs
  ``import tensorstore; ts.open(level)``, with bytecode cached as an installed package has it;
- memory (``memory.py``): the growth of peak RSS of a linear 2x resample of a 384^3 uint8 array in a fresh
  process, beside a plain read's, as a multiple of the source block;
- copy (``copies.py``): ``wa.copy`` of a whole 512^3 uint8 array against tensorstore's ``dst.write(src)``, a 2x
  linear resampled copy against a resampled read plus a raw write, and the growth of peak RSS of the whole copy in a
  fresh process, in write units.

Peers, when installed (``pip install .[bench]``, never a dependency of worldarray): zarr-python 3 for reads,
writes and zarr opens, ``scipy.ndimage.zoom`` after the raw read for resampling. Each row prints as its case
completes, then the whole table: the floor's and our median, the median of the per-round ratios to the floor, the
target, whether it was met ("yes": the ratio of medians and the median of ratios both; "one of two": one of them),
the peer's ratio to the same floor, and over HTTP the requests and rounds of ours and of the floor. Asserts
nothing about timing.

Run: ``python benchmarks/run.py [--quick] [--json PATH] [--only SECTION ...] [--seed N]``
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import pathlib
import platform
import random
import statistics
import warnings
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

import numpy as np
import tensorstore as ts

import worldarray as wa
from worldarray.handle import forget_opens

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import copies  # noqa: E402
import fresh  # noqa: E402
import listing  # noqa: E402
import memory  # noqa: E402
import read  # noqa: E402
import resample  # noqa: E402
import write  # noqa: E402
from slow_http import SlowServer  # noqa: E402
from timing import interleaved, per_round, verdict  # noqa: E402

try:  # a peer, never a dependency of worldarray
    import zarr
except ImportError:
    zarr = None

SECTIONS = ("read", "pad", "resample", "write", "open", "open-http", "list", "fresh", "memory", "copy")
#: rounds per case by default; --quick multiplies them by QUICK (and takes at least MIN_ROUNDS)
ROUNDS = {"small": 2000, "large": 500, "resample": 80, "write": 1500, "open": 1000, "open-http": 150,
          "list": 15, "fresh": 20, "copy": 15}
QUICK, MIN_ROUNDS = 0.2, 5
MEMORY_REPEAT = {"full": 5, "quick": 3}  # fresh processes per memory figure; the median is shown
OPEN_TARGETS = {"local": (2.0, 2.5), "http": (1.3, 1.4)}  # (level path, group + level)
MANY_LEVELS, MANY_TARGET = 32, 2.5  # a first open of a level of a group of this many levels, and its target


@dataclasses.dataclass(frozen=True)
class Ours:
    """One operation of ours in a case, its target ratio to the case's floor, and the peer doing the same."""

    operation: str
    call: Callable
    target: float
    peer: tuple[str, Callable] | None = None


@dataclasses.dataclass(frozen=True)
class Case:
    """A floor and the operations measured against it, timed together in ``rounds`` interleaved rounds."""

    floor: Callable
    ours: tuple[Ours, ...]
    rounds: int
    warmup: int = 2
    arguments: Callable[[], tuple] = tuple
    server: SlowServer | None = None  # counts the requests and rounds of each call when set


@dataclasses.dataclass(frozen=True)
class Row:
    """One line of the table. ``floor`` and ``ours`` are medians in seconds, or MiB when ``unit`` says so."""

    section: str
    operation: str
    floor: float
    ours: float
    ratio: float  # the median of per-round ratios (memory: ours over the source block)
    ratio_of_medians: float
    target: float
    met: str
    unit: str = "s"
    rounds: int = 0
    peer: str = ""
    peer_ratio: float | None = None
    requests: tuple[int, int, int] | None = None  # over HTTP: requests, rounds, paths asked more than once
    floor_requests: tuple[int, int, int] | None = None
    note: str = ""


# ---------------------------------------------------------------- the cases


def read_cases(raw, vol, root: str, scale: Callable[[str], int]) -> dict[str, list[Case]]:
    """read.py's cases without the vol.ts rows, split into "read" (inside the data) and "pad" (half outside)."""
    peer = zarr.open_array(store=root + "/vol.zarr/s0", mode="r") if zarr else None
    boxes = {name: (begin, end) for name, _, _, begin, end in read.INSIDE}
    padded = {name: (padding, mode) for name, _, _, padding, mode in read.PADDED}

    def zarr_call(name):
        if name in boxes:
            return lambda: peer[tuple(map(slice, *boxes[name]))]
        return lambda: np.pad(peer[tuple(map(slice, *read.INSIDE_PART))], read.PAD_WIDTH, mode=padded[name][1])

    out: dict[str, list[Case]] = {"read": [], "pad": []}
    for name, key, targets, calls in read.cases(raw, vol):
        peer_call = ("zarr", zarr_call(name)) if peer is not None else None
        checked = calls[:1] + [c for c in calls if c[0] in targets] + ([peer_call] if peer_call else [])
        read.check(name, checked)
        section = "read" if name in boxes else "pad"
        title = f"read {name}" if name in boxes else f"pad half outside, padding={padded[name][0]!r}"
        ours = tuple(Ours(f"{title}: {label}", call, targets[label], peer_call)
                     for label, call in calls if label in targets)
        out[section].append(Case(calls[0][1], ours, scale(key), warmup=10))
    return out


def resample_cases(raw, vol, scale: Callable[[str], int]) -> list[Case]:
    """resample.py's two cases: the raw floor (a strided read; for linear, tensorstore's downsample driver), ours, and
    scipy's zoom as the peer when installed."""
    out = []
    for name, target, calls in resample.cases(raw, vol):
        for label, call, _ in calls[2:3]:
            resample.check(f"{name}: {label}", call(), calls[0][1]())
        zoom = next(((label, call) for label, call, _ in calls if label.startswith("ts + zoom")), None)
        peer = ("zoom", zoom[1]) if zoom else None
        ours = (Ours(f"resample {name}, 256^3 to 16 nm", calls[2][1], target, peer),)
        out.append(Case(calls[0][1], ours, scale("resample")))
    return out


def write_case(root: str, scale: Callable[[str], int], rng: np.random.Generator) -> Case:
    """write.py's case: the raw write in its own context, write_index, and zarr-python's write as the peer."""
    raw, vol = write.build(root)
    calls = write.calls(raw, vol)
    peer = None
    if zarr:
        array = zarr.open_array(store=root + "/out.zarr/s0", mode="r+")
        region = tuple(map(slice, write.BEGIN, write.END))

        def zarr_write(data):
            array[region] = data

        peer = ("zarr", zarr_write)
    for label, call in [calls[0], calls[2], *([peer] if peer else [])]:
        write.check(raw, label, call, rng)
    ours = (Ours("write_index 128^3, 8 whole chunks", calls[2][1], write.TARGET["write_index"], peer),)
    return Case(calls[0][1], ours, scale("write"), warmup=5, arguments=lambda: (write.noise(rng),))


# ---------------------------------------------------------------- opens
# Open cases: level path and group + level per format, each also as a first open (nothing kept from the last open
# of the path). benchmarks/open.py times more kinds of opens (N5, an HTTP/1.0 server) on their own.
OPEN_SHAPE, OPEN_CHUNK = (256, 256, 256), 64
#: format -> (group path, level name, tensorstore driver of the floor); the level's path is group/level
OPEN_FORMATS = {
    "zarr v3": ("v3.zarr", "s0", "zarr3"),
    "zarr v2": ("v2.zarr", "s0", "zarr"),
    "precomputed": ("vol.precomputed", "8_8_8", "neuroglancer_precomputed"),
}
MANY_OPEN = ("many.zarr", "s0", "zarr3")  # the 32-level group's first level, as OPEN_FORMATS records a format


def level_spec(kvstore: str, group: str, level: str, driver: str) -> dict:
    """tensorstore's spec of the level ``group/level`` under the kvstore URL ``kvstore``, as the floor opens it: a
    precomputed scale by its key in the group's info, any other level by its own directory."""
    if driver == "neuroglancer_precomputed":
        return {"driver": driver, "kvstore": f"{kvstore}/{group}/", "scale_metadata": {"key": level}}
    return {"driver": driver, "kvstore": f"{kvstore}/{group}/{level}/"}


def build_opens(root: str) -> None:
    """Two-level pyramids of every open format, without data: a zarr v3 and a zarr v2 OME group made by
    ``wa.create``, a precomputed volume made by tensorstore (scales 8_8_8 and 16_16_16)."""
    for name, fmt in (("v3.zarr", "zarr3"), ("v2.zarr", "zarr2")):
        for i in range(2):
            shape = tuple(n >> i for n in OPEN_SHAPE)
            wa.create(f"{root}/{name}/s{i}", shape, "uint8", 8 * 2**i, 4 * 2**i, chunks=OPEN_CHUNK, format=fmt)
    multiscale = {"type": "image", "data_type": "uint8", "num_channels": 1}
    for i in range(2):
        size = 8 * 2**i
        scale = {"key": f"{size}_{size}_{size}", "size": [n >> i for n in OPEN_SHAPE[::-1]],
                 "resolution": [size] * 3, "voxel_offset": [0, 0, 0], "chunk_size": [OPEN_CHUNK] * 3,
                 "encoding": "raw"}
        ts.open({"driver": "neuroglancer_precomputed", "kvstore": f"file://{root}/vol.precomputed/",
                 "multiscale_metadata": multiscale, "scale_metadata": scale}, create=True).result()
    ts.open({"driver": "zarr3", "kvstore": f"file://{root}/unplaced.zarr/", "metadata": {  # no document places it
        "shape": list(OPEN_SHAPE), "data_type": "uint8", "chunk_grid": {
            "name": "regular", "configuration": {"chunk_shape": [OPEN_CHUNK] * 3}}}}, create=True).result()
    for i in range(MANY_LEVELS):  # level i at (i + 1) times s0's voxel size, corners at the origin
        shape = tuple(max(1, n // (i + 1)) for n in OPEN_SHAPE)
        wa.create(f"{root}/many.zarr/s{i}", shape, "uint8", 8 * (i + 1), 4 * (i + 1), chunks=OPEN_CHUNK, format="zarr3")


def opener(call: Callable, *args, **kwargs) -> Callable[[], object]:
    """``call(*args, **kwargs)`` as a callable of nothing, for a case."""
    return lambda: call(*args, **kwargs)


def ts_open(spec: dict, context: ts.Context) -> ts.TensorStore:
    """The floor of an open: tensorstore's own open of the level, on the context worldarray opens with."""
    return ts.open(spec, context=context, read=True).result()


def first_open(path: str, **kwargs) -> wa.WorldArray:
    """``wa.open`` with every kept open forgotten first, so nothing of an earlier open of the path is handed out."""
    forget_opens()
    return wa.open(path, **kwargs)


def zarr_member(group: str, name: str):
    """zarr-python's open of a group, then of its member ``name``."""
    return zarr.open_group(store=group, mode="r")[name]


def open_cases(base: str, kvstore: str, rounds: int, server: SlowServer | None = None) -> list[Case]:
    """Per format, tensorstore's open of the level (the floor), ``wa.open`` of the level path and of the group with
    the level named, and zarr-python's ``open_array`` and ``open_group(...)[level]`` as peers (local zarr only).

    ``base`` is where worldarray and zarr-python find the files (a directory or a URL), ``kvstore`` the same for
    tensorstore (a URL)."""
    context = wa.shared_context()
    over = " over HTTP" if server else ""
    level_target, group_target = OPEN_TARGETS["http" if server else "local"]
    out = []
    for fmt, (group, level, driver) in OPEN_FORMATS.items():
        floor = opener(ts_open, level_spec(kvstore, group, level, driver), context)
        level_path, group_path = f"{base}/{group}/{level}", f"{base}/{group}"
        peers: tuple = (None, None)
        if zarr and server is None and driver != "neuroglancer_precomputed":
            peers = (("zarr", opener(zarr.open_array, store=level_path, mode="r")),
                     ("zarr", opener(zarr_member, group_path, level)))
        level_name = f"open {fmt}{over}, level {'URL' if server else 'path'}"
        group_name = f"open {fmt}{over}, group + {'named ' if server else ''}level"
        ours = (Ours(level_name, opener(wa.open, level_path), level_target, peers[0]),
                Ours(group_name, opener(wa.open, group_path, level=level), group_target, peers[1]),
                # the same opens with nothing kept from the last: what a process's first open of a path costs
                Ours(f"{level_name}, first", opener(first_open, level_path), level_target, None),
                Ours(f"{group_name}, first", opener(first_open, group_path, level=level), group_target, None))
        # every open must find the same array, or the ratio proves nothing (the volumes are cubes: no axis order)
        shapes = {tuple(floor().domain.shape)[:3]} | {o.call().shape for o in ours}
        shapes |= {peer[1]().shape for peer in peers if peer}
        assert shapes == {OPEN_SHAPE}, f"open {fmt}{over}: shapes {shapes}, expected {OPEN_SHAPE}"
        out.append(Case(floor, ours, rounds, warmup=3, server=server))
    return out


def many_levels_case(root: str, rounds: int) -> Case:
    """A first open of s0 of the 32-level group, by its path and by the group with the level named, against
    tensorstore's open of s0."""
    floor = opener(ts_open, level_spec(f"file://{root}", *MANY_OPEN), wa.shared_context())
    name = f"open zarr v3, {MANY_LEVELS} levels"
    ours = (Ours(f"{name}, level path, first", opener(first_open, f"{root}/many.zarr/s0"), MANY_TARGET),
            Ours(f"{name}, group + level, first", opener(first_open, f"{root}/many.zarr", level="s0"), MANY_TARGET))
    shapes = {tuple(floor().domain.shape)} | {o.call().shape for o in ours}
    assert shapes == {OPEN_SHAPE}, f"{name}: shapes {shapes}, expected {OPEN_SHAPE}"
    return Case(floor, ours, rounds, warmup=3)


def unplaced_case(root: str, rounds: int) -> Case:
    """A repeat open of an array no document places, which warns on every open (its axes have no unit), against
    tensorstore's open of it; the warnings are given and ignored."""
    path = f"{root}/unplaced.zarr"
    floor = opener(ts_open, {"driver": "zarr3", "kvstore": f"file://{path}/"}, wa.shared_context())
    ours = (Ours("open an array no document places, level path", opener(wa.open, path), OPEN_TARGETS["local"][0]),)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shapes = {tuple(floor().domain.shape)} | {o.call().shape for o in ours}
    assert shapes == {OPEN_SHAPE}, f"unplaced open: shapes {shapes}, expected {OPEN_SHAPE}"
    assert caught, "the unplaced open gave no warning: the case no longer measures a warned open"
    return Case(floor, ours, rounds, warmup=3)


def list_case(root: str, rounds: int) -> Case:
    """listing.py's case: the kvstore listing of 32^3 chunk keys, and ``list_chunks``, checked first."""
    floor, ours = listing.cases(listing.build(root))
    return Case(floor, (Ours(f"list_chunks, {listing.SIDE ** 3} chunks", ours, listing.TARGET),), rounds, warmup=2)


def fresh_case(root: str, rounds: int) -> Case:
    """fresh.py's case: a new process's import and open of a level, ours against tensorstore's, checked first."""
    calls = list(fresh.cases(fresh.build(root)).items())
    return Case(calls[0][1], (Ours(f"new process: {calls[1][0]}", calls[1][1], fresh.TARGET),), rounds, warmup=2)


def copy_cases(root: str, scale: Callable[[str], int]) -> tuple[str, list[Case]]:
    """copies.py's two cases, each checked first to store exactly its floor's voxels; each round writes to fresh
    directories (the last round's removed outside the timing). Returns the source's path too."""
    source = copies.build(root)
    out = []
    for name, target, floor, ours in copies.cases(source, root):
        copies.check(name, floor, ours, root + "/check")
        rounds = copies.Rounds(f"{root}/{len(out)}")
        out.append(Case(floor, (Ours(name, ours, target),), scale("copy"), warmup=1, arguments=rounds.next))
    return source, out


def copy_memory_row(source: str, root: str, repeat: int) -> Row:
    """copies.py's memory figure: the growth of peak RSS during the whole copy, in write units (64^3 uint8)."""
    units = copies.memory(source, root, repeat)
    target = copies.TARGET["memory"]
    mib = units * copies.UNIT / 2**20
    return Row("copy", "peak RSS, whole copy of 512^3 uint8", 0.0, mib, units, units, target,
               "yes" if units <= target else "no", unit="MiB", rounds=repeat,
               note="ratio: in 256 KiB write units over the warm process's RSS; no floor")


# ---------------------------------------------------------------- timing and the table


def measure(section: str, case: Case) -> list[Row]:
    """Time ``case`` in interleaved rounds; one row per operation of ours."""
    peers = list({id(o.peer[1]): o.peer[1] for o in case.ours if o.peer}.values())
    calls = [case.floor, *(o.call for o in case.ours), *peers]
    times = interleaved(calls, case.rounds, warmup=case.warmup, arguments=case.arguments)
    floor_median = statistics.median(times[0])
    counted = {}
    if case.server is not None:  # after the timing, so that warm connections are what is counted
        for i, call in enumerate(calls[:1 + len(case.ours)]):
            counts = [case.server.count(call) for _ in range(3)]
            counted[i] = tuple(int(statistics.median(c[k] for c in counts)) for k in range(3))
    rows = []
    for i, ours in enumerate(case.ours, start=1):
        median = statistics.median(times[i])
        of_medians, of_ratios = median / floor_median, per_round(times[i], times[0])
        peer, peer_ratio = "", None
        if ours.peer:
            series = times[1 + len(case.ours) + peers.index(ours.peer[1])]
            peer, peer_ratio = ours.peer[0], per_round(series, times[0])
        rows.append(Row(section, ours.operation, floor_median / 1e9, median / 1e9, of_ratios, of_medians,
                        ours.target, verdict(of_medians, of_ratios, ours.target), rounds=case.rounds, peer=peer,
                        peer_ratio=peer_ratio, requests=counted.get(i), floor_requests=counted.get(0)))
    return rows


def memory_row(root: str, repeat: int) -> Row:
    """memory.py's linear 2x read of its 384^3 array, beside the plain read's figure, over the source block."""
    path = root + "/m.zarr/s0"
    block = memory.build(path)
    plain, _ = memory.growth(path, memory.CASES["read, plain"], repeat)
    linear, _ = memory.growth(path, memory.CASES["read, linear 2x"], repeat)
    return Row("memory", "peak RSS, linear 2x of 384^3 uint8", plain, linear, linear / block, linear / block, 1.2,
               "yes" if linear / block <= 1.2 else "no", unit="MiB", rounds=repeat,
               note=f"floor column: a plain read's; ratio: over the {block:.0f} MiB source block")


WIDTHS = (47, 10, 10, 7, 6, 10, 11)
HEADER = ("operation", "floor", "ours", "ratio", "target", "met", "peer")


def quantity(value: float, unit: str) -> str:
    """A median as a person reads it: in us, ms or s; or in MiB."""
    if unit == "MiB":
        return f"{value:.1f} MiB"
    if value < 1e-3:
        return f"{value * 1e6:.1f} us"
    return f"{value * 1e3:.2f} ms" if value < 1 else f"{value:.2f} s"


def line(cells: Sequence[str]) -> str:
    """Cells laid out in the table's columns: text to the left, numbers to the right; the rest after."""
    out = [f"{cells[0]:<{WIDTHS[0]}}"]
    for cell, width, head in zip(cells[1:], WIDTHS[1:], HEADER[1:], strict=False):
        out.append(f"{cell:<{width}}" if head in ("met", "peer") else f"{cell:>{width}}")
    return " ".join(out + list(cells[len(WIDTHS):])).rstrip()


def cells(row: Row) -> list[str]:
    """A row's cells, in HEADER's order, then its requests over HTTP or its note."""
    peer = f"{row.peer} {row.peer_ratio:.2f}x" if row.peer else ""  # a peer's ratio is seldom near a target
    extra = row.note
    if row.requests:
        (n, r, twice), (fn, fr, _) = row.requests, row.floor_requests
        again = f", {twice} asked twice" if twice else ""
        extra = f"{n} requests in {r} round{'s' * (r != 1)}{again}; floor {fn} in {fr}"
    return [row.operation, quantity(row.floor, row.unit), quantity(row.ours, row.unit), f"{row.ratio:.3f}x",
            f"{row.target:.2f}x", row.met, peer, extra]


def versions() -> dict[str, str]:
    """The versions of what the numbers depend on."""
    import importlib.metadata

    out = {"python": platform.python_version(), "worldarray": wa.__version__}
    for name in ("tensorstore", "numpy", "zarr", "scipy"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def run(sections: Sequence[str], root: str, scale: Callable[[str], int], repeat: int,
        rng: np.random.Generator) -> list[Row]:
    """Build what ``sections`` need under ``root`` and measure them, printing each row as it completes."""
    rows: list[Row] = []

    def report(new: Sequence[Row]) -> None:
        for row in new:
            print(line(cells(row)), flush=True)
        rows.extend(new)

    if {"read", "pad", "resample"} & set(sections):
        read.build(pathlib.Path(root, "vol.zarr"))
        raw, vol = read.opened(root)
        by_section = read_cases(raw, vol, root, scale)
        for section in ("read", "pad"):
            for case in by_section[section] if section in sections else ():
                report(measure(section, case))
        for case in resample_cases(raw, vol, scale) if "resample" in sections else ():
            report(measure("resample", case))
    if "write" in sections:
        report(measure("write", write_case(root, scale, rng)))
    if {"open", "open-http"} & set(sections):
        build_opens(root)
        for case in open_cases(root, f"file://{root}", scale("open")) if "open" in sections else ():
            report(measure("open", case))
        if "open" in sections:
            report(measure("open", many_levels_case(root, scale("open"))))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", wa.MetadataWarning)
                report(measure("open", unplaced_case(root, scale("open"))))
        if "open-http" in sections:
            with SlowServer(root) as server:
                for case in open_cases(server.url, server.url, scale("open-http"), server):
                    report(measure("open-http", case))
    if "list" in sections:
        report(measure("list", list_case(root, scale("list"))))
    if "fresh" in sections:
        report(measure("fresh", fresh_case(root, scale("fresh"))))
    if "memory" in sections:
        report([memory_row(root, repeat)])
    if "copy" in sections:
        source, copies = copy_cases(root + "/copy", scale)
        for case in copies:
            report(measure("copy", case))
        report([copy_memory_row(source, root + "/copy", repeat)])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK:g} of the rounds and 3 processes per memory figure: about 30 s, not 2 to 3 min")
    parser.add_argument("--json", type=pathlib.Path, metavar="PATH", help="also write the results to PATH as JSON")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, metavar="SECTION",
                        help=f"run only these sections, of: {', '.join(SECTIONS)}")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles and the data (default: unseeded)")
    args = parser.parse_args()
    random.seed(args.seed)
    factor = QUICK if args.quick else 1.0

    def scale(key: str) -> int:
        return max(MIN_ROUNDS, round(ROUNDS[key] * factor))

    sections = [s for s in SECTIONS if s in (args.only or SECTIONS)]
    found = versions()
    print(", ".join(f"{name} {version}" for name, version in found.items()))
    print("floor, ours: medians over rounds; ratio: median of per-round ratios to the floor; met: 'yes' when the")
    print("ratio of medians and the median of ratios are both within the target, 'one of two' when one is;")
    print("peer: its own median of per-round ratios to the same floor")
    print(line(HEADER))
    print("-" * (sum(WIDTHS) + len(WIDTHS) - 1), flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        rows = run(sections, pathlib.Path(tmp).as_posix(), scale, MEMORY_REPEAT["quick" if args.quick else "full"],
                   np.random.default_rng(args.seed))
    elapsed = time.perf_counter() - started

    print(f"\nall rows ({elapsed:.0f} s{', --quick' if args.quick else ''}):")
    print(line(HEADER))
    print("-" * (sum(WIDTHS) + len(WIDTHS) - 1))
    for row in rows:
        print(line(cells(row)))
    missed = [row.operation for row in rows if row.met != "yes"]
    print(f"targets missed: {len(missed)} of {len(rows)}" + "".join(f"\n  {name}" for name in missed))
    if args.json:
        document = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    "quick": args.quick, "seconds": round(elapsed, 1), "versions": found,
                    "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
                    "rows": [dataclasses.asdict(row) for row in rows]}
        args.json.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
