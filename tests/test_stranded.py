"""A10: every read, write and open on pools of one thread completes; an opt-in stress test that tries to strand one.

tensorstore runs a context's decoding and file I/O work on task groups of a shared thread pool. A group that has
had no work for about 20 ms gives its thread back; a task queued just as that thread leaves can be left with no
thread (reported for releases up to at least 0.1.85, most often with pools of one thread), and then waits until the
next task on the same pool, which may never come. A10 watches the package's contexts on releases that can do this;
this test is how a release is shown free of it. With the watchdog off it strands a read within minutes on 0.1.72
and 0.1.85, where one more task on the same context wakes it at once, and found none on 0.1.86; the README lists
the runs. On a release older than ``context.FREE_OF_STRANDS`` the watchdog runs, so the test then shows that it
wakes every strand; ``WORLDARRAY_STRESS_WATCHDOG=0`` turns it off to see the bug itself.

Several threads, each with a context of its own whose pools have one thread, run short bursts of creates, whole-chunk
writes, reads and opens through the public API, with idle gaps of varying length, most of them around that 20 ms
and a few long enough (20 s) for the shared pool's idle threads to exit. An operation not finished
``STRANDED_AFTER`` seconds after it started, once every other thread has stopped, is a stranded task: the test fails
naming the tensorstore release, the operation and how many operations ran. The bound is how long the test waits
before it says so, not a timing assertion.

Set ``WORLDARRAY_STRESS=1`` to run it, and ``WORLDARRAY_STRESS_SECONDS`` for how long it runs (default 120).
"""

from __future__ import annotations

import importlib.metadata
import os
import random
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from worldarray import context

pytestmark = pytest.mark.skipif(
    os.environ.get("WORLDARRAY_STRESS") != "1",
    reason="a stress test of minutes: set WORLDARRAY_STRESS=1 to run it (WORLDARRAY_STRESS_SECONDS: how long)")

# how long an operation may take before it counts as stranded: generous, since the machine may be busy
STRANDED_AFTER = 20.0
THREADS = 8
SHAPE, CHUNK = (32, 32, 64), (16, 16, 16)
# (operation, weight): whole-chunk writes and reads make most of the tasks; opens and creates read and write documents
OPERATIONS = (("write_index", 35), ("read_index", 35), ("open", 22), ("create", 8))


def _run_seconds() -> float:
    text = os.environ.get("WORLDARRAY_STRESS_SECONDS", "").strip() or "120"
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError(f"WORLDARRAY_STRESS_SECONDS is {text!r}; expected seconds > 0")
    return seconds


def _gap(rng: random.Random) -> float:
    """The idle time after one operation of a burst: mostly around the 20 ms after which a group's thread leaves."""
    draw = rng.random()
    if draw < 0.6:
        return rng.uniform(0.018, 0.024)
    if draw < 0.75:
        return rng.uniform(0.010, 0.040)
    if draw < 0.85:
        return 0.0
    return rng.uniform(0.040, 0.300)


def _rest(rng: random.Random, left: float) -> float:
    """The idle time between bursts; now and then long enough for the shared pool's idle threads to exit."""
    if rng.random() < 0.05 and left > 30.0:
        return rng.uniform(19.5, 21.5)
    return rng.uniform(0.05, 1.5)


class _Worker(threading.Thread):
    """One thread and one context of pools of one thread, running bursts of operations on an array of its own."""

    def __init__(self, number: int, root: Path, deadline: float, stop: threading.Event) -> None:
        super().__init__(name=f"stress-{number}", daemon=True)
        self.root, self.deadline, self.stop = root / f"w{number}", deadline, stop
        self.rng = random.Random(number)
        self.context = wa.capped_context(concurrency=1, network=False)
        # one attempt: a retry would queue a new task on the same pool and so wake a stranded one, hiding it
        self.policy = wa.Retry(max_attempts=1, timeout=3 * STRANDED_AFTER)
        self.done: Counter[str] = Counter()
        self.current: tuple[str, float] | None = None
        self.error: BaseException | None = None
        self.volume: wa.WorldArray | None = None
        self.created = 0

    def _create(self) -> wa.WorldArray:
        self.created += 1
        return wa.create(self.root / f"v{self.created}.zarr" / "s0", SHAPE, "uint8", 1, 0.5, chunks=CHUNK,
                         context=self.context, retries=self.policy)

    def _operate(self, name: str, volume: wa.WorldArray) -> wa.WorldArray:
        if name == "create":
            return self._create()
        if name == "open":
            return wa.open(volume.path, mode="r+", context=self.context, retries=self.policy)
        corner = tuple(self.rng.randrange(n // c) * c for n, c in zip(SHAPE, CHUNK, strict=True))
        end = tuple(b + c for b, c in zip(corner, CHUNK, strict=True))
        if name == "write_index":
            volume.write_index(corner, end, np.full(CHUNK, self.rng.randrange(256), np.uint8), retries=self.policy)
        else:
            volume.read_index(corner, end, retries=self.policy)
        return volume

    def _timed(self, name: str, volume: wa.WorldArray | None) -> wa.WorldArray:
        self.current = (name, time.monotonic())
        volume = self._create() if volume is None else self._operate(name, volume)
        self.current = None
        self.done[name] += 1
        self.volume = volume
        return volume

    def run(self) -> None:
        names, weights = zip(*OPERATIONS, strict=True)
        try:
            volume = self._timed("create", None)
            while not self.stop.is_set() and time.monotonic() < self.deadline:
                for _ in range(self.rng.randint(20, 200)):
                    volume = self._timed(self.rng.choices(names, weights)[0], volume)
                    if self.stop.wait(_gap(self.rng)) or time.monotonic() >= self.deadline:
                        return
                self.stop.wait(min(_rest(self.rng, self.deadline - time.monotonic()),
                                   max(self.deadline - time.monotonic(), 0.0)))
        except BaseException as error:  # reported by the test, with the operation that raised it
            self.error = error


def _stranded(workers: list[_Worker]) -> _Worker | None:
    now = time.monotonic()
    for worker in workers:
        current = worker.current
        if current is not None and now - current[1] > STRANDED_AFTER:
            return worker
    return None


def _wake(worker: _Worker) -> str:
    """Queue one more task on the stranded worker's pools (a read through its context) and say whether that woke
    the operation: what a watchdog's no-op task would do."""
    assert worker.volume is not None
    woke_at = time.monotonic()
    worker.volume.read_index((0, 0, 0), CHUNK, retries=worker.policy)
    worker.join(timeout=STRANDED_AFTER)
    if worker.is_alive():
        return "one more task on the same context did not wake it"
    return f"one more task on the same context woke it in {time.monotonic() - woke_at:.3f} s"


def test_no_read_write_or_open_is_stranded_on_pools_of_one_thread(tmp_path, monkeypatch):
    release = importlib.metadata.version("tensorstore")
    if os.environ.get("WORLDARRAY_STRESS_WATCHDOG", "").strip() == "0":
        context.stop_watchdog()
        monkeypatch.setattr(context, "strands_tasks", lambda: False)
    seconds = _run_seconds()
    started = time.monotonic()
    stop = threading.Event()
    workers = [_Worker(number, tmp_path, started + seconds, stop) for number in range(THREADS)]
    for worker in workers:
        worker.start()
    stranded = None
    while any(w.is_alive() for w in workers) and stranded is None and not any(w.error for w in workers):
        time.sleep(0.25)
        stranded = _stranded(workers)
    stop.set()
    for worker in workers:
        if worker is not stranded:
            worker.join(timeout=3 * STRANDED_AFTER)
    done = sum((worker.done for worker in workers), Counter())
    counts = ", ".join(f"{name} {done[name]}" for name, _ in OPERATIONS)
    ran = f"{sum(done.values())} operations in {time.monotonic() - started:.0f} s ({counts})"
    errors = [f"{worker.name}: {worker.current and worker.current[0]}: {worker.error!r}" for worker in workers
              if worker.error is not None]
    assert not errors, f"tensorstore {release}: an operation failed after {ran}: {errors}"
    if stranded is not None and stranded.current is not None:  # still waiting, with every other thread stopped
        name, since = stranded.current
        waited = time.monotonic() - since
        pytest.fail(f"tensorstore {release}: a {name} on pools of one thread did not complete in {waited:.0f} s "
                    f"(a stranded task) after {ran}; {_wake(stranded)}")
    print(f"\ntensorstore {release}: nothing stranded: {ran}, {THREADS} threads on pools of one thread")
