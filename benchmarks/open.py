"""How much worldarray adds to opening a level, against tensorstore's own open of the same level.

Builds, in a temporary directory, one two-level pyramid per format: an OME-NGFF 0.5 zarr v3 group ``g3.zarr``, an
OME-NGFF 0.4 zarr v2 group ``g2.zarr``, an N5 group ``g.n5`` (COSEM-style ``multiscales`` in its attributes) and a
precomputed volume ``vol`` (scales ``8_8_8`` and ``16_16_16``), each level 64^3 uint8 in 32^3 chunks. Then times
opening the second level two ways, each against its floor, ``ts.open`` of that level on ``wa.shared_context()``
(tensorstore reading the array document itself):

- the level path: ``wa.open(".../g3.zarr/s1")``, ``wa.open(".../vol/16_16_16")``;
- the group and a named level: ``wa.open(".../g3.zarr", level="s1")``; for precomputed ``level=1``.

Each twice: an open of a path opened before (what the tasks of a job do; worldarray reads again the documents that
decided the last open and, when they are unchanged, hands out what it found), and a first open (``, first``: what
worldarray kept of earlier opens forgotten before each).

Locally (a plain path), and over two loopback HTTP servers that hold every answer 10 ms: one speaking HTTP/1.1 with
keep-alive (as a store's server does), one made as ``python -m http.server`` makes it (HTTP/1.0, a connection per
request, a listen backlog of 5). For each HTTP case it also counts, in one open, the requests, the keys asked more
than once, and the waves (requests that arrive within 5 ms of the one before belong to one wave), and the most
connections ever seen waiting to be accepted (Linux TCP_INFO, read before each accept; 6 means the queue was full
and a connection attempt may have been dropped).

In each of R rounds every callable of a case runs once, in a freshly shuffled order (``timing.interleaved``); it
prints the median of each and two ratios to the floor: of the medians, and the median of per-round ratios (the
steadier number on a busy machine), with the target. Asserts nothing about timing.

Run: ``python benchmarks/open.py [--rounds SCALE] [--only WORD]``. Importable: ``with prepared() as table:`` builds
the volumes and starts the servers, and each ``Case`` of the table has ``name``, ``ours``, ``floor`` (callables),
``target`` (0: none) and ``rounds``; ``main()`` prints the table.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import http.server
import json
import pathlib
import random
import socket
import statistics
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
import tensorstore as ts

import worldarray as wa
from timing import interleaved, per_round, verdict
from worldarray.handle import forget_opens

SHAPE, CHUNK = (64, 64, 64), (32, 32, 32)
DELAY = 0.010  # seconds every answer of the loopback servers is held
WAVE_GAP = 0.005  # requests closer than this to the one before them are one wave


# ---------------------------------------------------------------- the volumes


def _scales(i: int) -> tuple[list[float], list[float]]:
    size = 8.0 * 2**i
    return [size] * 3, [size / 2] * 3


def _ome(version: str, names: list[str]) -> dict:
    axes = [{"name": a, "type": "space", "unit": "nanometer"} for a in "zyx"]
    datasets = [{"path": name, "coordinateTransformations": [
        {"type": "scale", "scale": _scales(i)[0]}, {"type": "translation", "translation": _scales(i)[1]}]}
        for i, name in enumerate(names)]
    multiscale = {"axes": axes, "datasets": datasets}
    if version == "0.5":
        return {"ome": {"version": "0.5", "multiscales": [multiscale]}}
    return {"multiscales": [{"version": "0.4", **multiscale}]}


def _write(spec: dict) -> None:
    array = ts.open(spec, create=True).result()
    array.write(np.random.default_rng(0).integers(0, 255, array.shape, dtype=np.uint8)).result()


def _file(path: pathlib.Path) -> dict:
    return {"driver": "file", "path": str(path)}


def build(root: pathlib.Path) -> None:
    """The four pyramids under ``root``."""
    names = ["s0", "s1"]
    g3 = root / "g3.zarr"
    g3.mkdir(parents=True)
    group = {"zarr_format": 3, "node_type": "group", "attributes": _ome("0.5", names)}
    (g3 / "zarr.json").write_text(json.dumps(group))
    g2 = root / "g2.zarr"
    g2.mkdir()
    (g2 / ".zgroup").write_text(json.dumps({"zarr_format": 2}))
    (g2 / ".zattrs").write_text(json.dumps(_ome("0.4", names)))
    n5 = root / "g.n5"
    n5.mkdir()
    datasets = [{"path": name, "transform": {"axes": list("zyx"), "scale": _scales(i)[0],
                                             "translate": _scales(i)[1], "units": ["nm"] * 3}}
                for i, name in enumerate(names)]
    (n5 / "attributes.json").write_text(json.dumps({"n5": "2.0.0", "multiscales": [{"datasets": datasets}]}))
    for i, name in enumerate(names):
        shape = [n // 2**i for n in SHAPE]
        _write({"driver": "zarr3", "kvstore": _file(g3 / name), "metadata": {
            "shape": shape, "data_type": "uint8", "dimension_names": list("zyx"),
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(CHUNK)}},
            "codecs": [{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 3}}]}})
        _write({"driver": "zarr", "kvstore": _file(g2 / name), "metadata": {
            "shape": shape, "dtype": "|u1", "chunks": list(CHUNK), "dimension_separator": "/",
            "compressor": {"id": "zstd", "level": 3}}})
        _write({"driver": "n5", "kvstore": _file(n5 / name), "metadata": {
            "dimensions": shape[::-1], "blockSize": list(CHUNK), "dataType": "uint8",
            "compression": {"type": "raw"}}})
        scale = {"key": f"{int(_scales(i)[0][0])}_{int(_scales(i)[0][0])}_{int(_scales(i)[0][0])}",
                 "size": shape[::-1], "resolution": _scales(i)[0], "voxel_offset": [0, 0, 0],
                 "encoding": "raw", "chunk_size": list(CHUNK)}
        _write({"driver": "neuroglancer_precomputed", "kvstore": _file(root / "vol"),
                "multiscale_metadata": {"type": "image", "data_type": "uint8", "num_channels": 1},
                "scale_metadata": scale})


#: Per format: the group, the level path below it, the level= of a group open, tensorstore's spec of the level.
LAYOUT = {
    "zarr3": ("g3.zarr", "s1", "s1", lambda base: {"driver": "zarr3", "kvstore": f"{base}/g3.zarr/s1/"}),
    "zarr2": ("g2.zarr", "s1", "s1", lambda base: {"driver": "zarr", "kvstore": f"{base}/g2.zarr/s1/"}),
    "n5": ("g.n5", "s1", "s1", lambda base: {"driver": "n5", "kvstore": f"{base}/g.n5/s1/"}),
    "precomputed": ("vol", "16_16_16", 1, lambda base: {"driver": "neuroglancer_precomputed",
                                                        "kvstore": f"{base}/vol/", "scale_index": 1}),
}


# ---------------------------------------------------------------- the servers


@dataclasses.dataclass
class Log:
    """What a server was asked: (arrival time, path) per request, and the most connections ever pending accept."""

    arrivals: list = dataclasses.field(default_factory=list)
    most_pending: int = 0
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def clear(self) -> None:
        with self.lock:
            self.arrivals.clear()
            self.most_pending = 0

    def summary(self) -> tuple[int, int, int]:
        """(requests, keys asked more than once, waves) since the last ``clear``."""
        with self.lock:
            times = sorted(t for t, _ in self.arrivals)
            counts = collections.Counter(path for _, path in self.arrivals)
        waves = sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] > WAVE_GAP)
        return len(times), sum(1 for n in counts.values() if n > 1), waves


def _handler(root: pathlib.Path, log: Log, keep_alive: bool):
    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
        disable_nagle_algorithm = keep_alive  # a store's server answers at once; http.server leaves Nagle on

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def do_GET(self):  # noqa: N802 - the base class's name
            with log.lock:
                log.arrivals.append((time.monotonic(), self.path))
            time.sleep(DELAY)
            target = root / self.path.split("?")[0].lstrip("/")
            if keep_alive and not target.is_file():  # a store's 404 keeps the connection, http.server's closes it
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            super().do_GET()

        def log_message(self, format, *args):  # noqa: A002
            pass

    return Handler


class _CountingServer(http.server.ThreadingHTTPServer):
    """``python -m http.server``'s server, reading its accept queue's length before each accept."""

    daemon_threads = True
    request_queue_size = 5
    log: Log

    def get_request(self):
        pending = _queued(self.socket)
        with self.log.lock:
            self.log.most_pending = max(self.log.most_pending, pending)
        return super().get_request()


def _queued(listener: socket.socket) -> int:
    """Connections waiting in a listening socket's accept queue (Linux TCP_INFO's tcpi_unacked; 0 elsewhere)."""
    try:
        info = listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    except (AttributeError, OSError):
        return 0
    return struct.unpack_from("I", info, 24)[0]


@contextlib.contextmanager
def serving(root: pathlib.Path, keep_alive: bool) -> Iterator[tuple[str, Log]]:
    """A delayed loopback server over ``root``: its base URL and its log."""
    log = Log()
    server = _CountingServer(("127.0.0.1", 0), _handler(root, log, keep_alive), bind_and_activate=False)
    if keep_alive:
        server.request_queue_size = 128  # a store's server takes many connections; http.server's backlog is 5
    server.server_bind()
    server.server_activate()
    server.log = log
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# ---------------------------------------------------------------- the cases


@dataclasses.dataclass(frozen=True)
class Case:
    """One timed pair: ours against the floor, the target ratio, how many rounds, and the server's log (HTTP)."""

    name: str
    ours: Callable[[], object]
    floor: Callable[[], object]
    target: float
    rounds: int
    log: Log | None = None


def _floor(spec: dict) -> Callable[[], object]:
    return lambda: ts.open(spec, context=wa.shared_context(), read=True).result()


#: Targets: (level path, group + named level), locally and over keep-alive HTTP; None: no target, measured only.
TARGETS = {"local": (2.0, 2.5), "http/1.1": (1.3, 1.4), "http/1.0": (None, None)}


def cases(bases: dict[str, tuple[str, Log | None]], rounds: int = 200) -> list[Case]:
    """Every case over the volumes each base (a directory path or a server URL) serves: an open of a path opened
    before (what a job's tasks do), and a first open (what worldarray kept of earlier opens forgotten first)."""
    out = []
    for where, (base, log) in bases.items():
        remote = log is not None
        for fmt, (group, level_path, level, floor_spec) in LAYOUT.items():
            spec = floor_spec(base if remote else "file://" + base)
            path_target, group_target = TARGETS[where]
            count = rounds // 4 if remote else rounds
            for form, target, args in (("level path", path_target, (f"{base}/{group}/{level_path}", None)),
                                       ("group + level", group_target if fmt != "precomputed" else path_target,
                                        (f"{base}/{group}", level))):
                out.append(Case(f"{where} {fmt} {form}", _ours(*args), _floor(spec), target or 0.0, count, log))
                out.append(Case(f"{where} {fmt} {form}, first", _ours(*args, first=True), _floor(spec), 0.0,
                                count // 2, log))
    return out


def _ours(path: str, level=None, first: bool = False) -> Callable[[], object]:
    if first:
        return lambda: (forget_opens(), wa.open(path, level=level))
    return lambda: wa.open(path, level=level)


@contextlib.contextmanager
def prepared(rounds: int = 200, only: str = "") -> Iterator[list[Case]]:
    """Build the volumes in a temporary directory, start the servers, and yield the cases (names holding ``only``)."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        root = pathlib.Path(tmp)
        build(root)
        bases: dict[str, tuple[str, Log | None]] = {"local": (root.as_posix(), None)}
        for where, keep_alive in (("http/1.1", True), ("http/1.0", False)):
            bases[where] = stack.enter_context(serving(root, keep_alive))
        yield [case for case in cases(bases, rounds) if only in case.name]


def counted(case: Case) -> str:
    """Requests, keys asked twice and waves of one open (and the most connections pending accept), for HTTP."""
    if case.log is None:
        return ""
    case.ours()  # warm
    time.sleep(0.05)  # requests the last open cancelled but had sent arrive before the count starts
    case.log.clear()
    case.ours()
    requests, twice, waves = case.log.summary()
    return f"{requests:3d} req {waves} waves{f' {twice} twice' if twice else ''}, queue {case.log.most_pending}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=float, default=1.0, help="scale the rounds (default 1: 200 local, 50 HTTP)")
    parser.add_argument("--only", default="", help="run the cases whose name holds this")
    parser.add_argument("--seed", type=int, default=None, help="seed of the shuffles (default: unseeded)")
    args = parser.parse_args()
    random.seed(args.seed)
    print("an open of level s1 against ts.open of it on wa.shared_context(); medians of interleaved rounds")
    print(f"{'case':43} {'rounds':>6} {'ours us':>9} {'floor us':>9} {'ratio of':>9} {'median of':>10} "
          f"{'target':>7}  reached  per open")
    print(f"{'':43} {'':>6} {'':>9} {'':>9} {'medians':>9} {'ratios':>10}")
    with prepared(max(1, round(200 * args.rounds)), args.only) as table:
        for case in table:
            times = interleaved([case.floor, case.ours], case.rounds, warmup=3)
            floor, ours = statistics.median(times[0]), statistics.median(times[1])
            of_medians, of_ratios = ours / floor, per_round(times[1], times[0])
            reached = verdict(of_medians, of_ratios, case.target) if case.target else "-"
            target = f"{case.target:6.2f}x" if case.target else f"{'-':>7}"
            print(f"{case.name:43} {case.rounds:6} {ours / 1e3:9.1f} {floor / 1e3:9.1f} {of_medians:8.2f}x "
                  f"{of_ratios:9.2f}x {target}  {reached:7}  {counted(case)}", flush=True)


if __name__ == "__main__":
    main()
