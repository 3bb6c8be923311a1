"""A8: contexts sized to the job's thread budget, writing without fsync or OS locks unless asked; the open that
creates an array keeps its locks; a forked worker is warned about.

Processes are started with the ``spawn`` method, as the README tells users to, so each one sizes itself.
"""

from __future__ import annotations

import importlib.metadata
import logging
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from worldarray import context, write

CHUNK = 4


@pytest.fixture
def no_budget_variables(monkeypatch):
    """None of the variables thread_budget reads is set."""
    for name in context.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _spec(ctx: ts.Context) -> dict:
    return ctx.spec.to_json()


def _member(spec: dict, name: str):
    """A kvstore spec's member ``name``, at the top or in its context (releases differ in where they put it)."""
    return spec[name] if name in spec else spec["context"][name]


def _locking(spec: dict) -> str:
    """The lock mode a spec's ``file_io_locking`` names; tensorstore spells its default, "os", as {}."""
    return _member(spec, "file_io_locking").get("mode", "os")


def _affinity() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# ---------------------------------------------------------------- the budget


@pytest.mark.parametrize("name", context.THREAD_VARIABLES)
def test_the_budget_is_read_from_each_variable(no_budget_variables, name):
    no_budget_variables.setenv(name, "5")
    assert wa.thread_budget() == 5


def test_the_first_variable_set_to_a_positive_number_wins(no_budget_variables):
    no_budget_variables.setenv("SLURM_CPUS_PER_TASK", "6")
    no_budget_variables.setenv("OMP_NUM_THREADS", "3")
    assert wa.thread_budget() == 3


def test_a_blank_variable_counts_as_unset(no_budget_variables):
    no_budget_variables.setenv("WORLDARRAY_THREADS", "  ")
    no_budget_variables.setenv("NSLOTS", "7")
    assert wa.thread_budget() == 7


def test_a_scheduler_variable_that_is_no_positive_number_is_passed_over(no_budget_variables):
    no_budget_variables.setenv("OMP_NUM_THREADS", "4,2")
    no_budget_variables.setenv("LSB_DJOB_NUMPROC", "0")
    no_budget_variables.setenv("NSLOTS", "2")
    assert wa.thread_budget() == 2


def test_without_variables_the_budget_is_the_cpus_the_process_may_run_on(no_budget_variables):
    assert wa.thread_budget() == _affinity()


@pytest.mark.parametrize("value", ["abc", "0", "-2", "1.5"])
def test_worldarray_threads_that_is_no_positive_number_raises_naming_the_variable(no_budget_variables, value):
    no_budget_variables.setenv("WORLDARRAY_THREADS", value)
    with pytest.raises(ValueError, match=rf"WORLDARRAY_THREADS is '{value}'"):
        wa.thread_budget()


# ---------------------------------------------------------------- the contexts' specs


def test_the_default_context_limits_decoding_to_the_budget_and_file_io_to_at_least_the_floor(no_budget_variables):
    no_budget_variables.setenv("WORLDARRAY_THREADS", "3")
    spec = _spec(wa.shared_context(123))  # a budget no other test uses, so the context is made here
    assert spec["data_copy_concurrency"] == {"limit": 3}
    assert spec["file_io_concurrency"] == {"limit": max(3, context.FILE_IO_FLOOR)}


def test_a_file_io_floor_raises_the_file_io_pool_only(no_budget_variables):
    no_budget_variables.setenv("WORLDARRAY_THREADS", "3")
    spec = _spec(wa.shared_context(124, file_io_floor=16))
    assert (spec["data_copy_concurrency"], spec["file_io_concurrency"]) == ({"limit": 3}, {"limit": 16})


def test_threads_n_limits_both_pools_to_n():
    spec = _spec(wa.shared_context(threads=2))
    assert (spec["data_copy_concurrency"], spec["file_io_concurrency"]) == ({"limit": 2}, {"limit": 2})


def test_threads_zero_sets_no_limit():
    spec = _spec(wa.shared_context(threads=0))
    assert "data_copy_concurrency" not in spec and "file_io_concurrency" not in spec


def test_contexts_the_package_makes_write_without_fsync_and_without_os_locks():
    for spec in (_spec(wa.shared_context()), _spec(wa.capped_context()), wa.capped_context_spec()):
        assert (spec["file_io_sync"], spec["file_io_locking"]) == (False, {"mode": "none"})


def test_fsync_and_os_locking_restore_tensorstores_defaults():
    spec = _spec(wa.shared_context(fsync=True, locking="os"))
    assert (spec["file_io_sync"], _locking(spec)) == (True, "os")
    assert _locking(wa.capped_context_spec(fsync=True, locking="os")) == "os"


def test_each_argument_set_is_one_context_per_process():
    assert wa.shared_context(threads=2) is wa.shared_context(0, threads=2)
    assert wa.shared_context(threads=2) is not wa.shared_context(threads=3)
    assert wa.shared_context() is not wa.shared_context(fsync=True)


def test_capped_context_sizes_file_io_apart_from_concurrency():
    spec = wa.capped_context_spec(concurrency=2, file_io=8)
    assert (spec["data_copy_concurrency"], spec["file_io_concurrency"]) == ({"limit": 2}, {"limit": 8})


@pytest.mark.parametrize(("call", "named"), [
    (lambda: wa.shared_context(threads=-1), "threads"),
    (lambda: wa.shared_context(file_io_floor=0), "file_io_floor"),
    (lambda: wa.shared_context(locking="fcntl"), "locking"),
    (lambda: wa.capped_context(file_io=0), "file_io"),
])
def test_a_bad_context_argument_raises_naming_it(call, named):
    with pytest.raises(ValueError, match=rf"^{named} is "):
        call()


def test_a_resource_the_tensorstore_in_use_lacks_is_left_out_with_a_logged_line(monkeypatch, caplog):
    real = ts.Context

    def without_locking(spec, parent=None):  # what a release without the resource answers
        if "file_io_locking" in spec:
            raise ValueError('Invalid context resource identifier: "file_io_locking"')
        return real(spec) if parent is None else real(spec, parent=parent)

    monkeypatch.setattr(context.ts, "Context", without_locking)
    monkeypatch.setattr(context, "_degraded", set())
    with caplog.at_level(logging.WARNING, logger="worldarray"):
        made = context.capped_context(concurrency=3)
    assert made.spec.to_json()["data_copy_concurrency"] == {"limit": 3}
    assert "file_io_locking" not in made.spec.to_json()
    assert any("file_io_locking" in record.getMessage() for record in caplog.records)


# ---------------------------------------------------------------- what handles and creation use


def _kvstore_spec(vol: wa.WorldArray) -> dict:
    return vol.ts.kvstore.spec(retain_context=True).to_json()


def test_a_handle_opened_without_a_context_writes_without_fsync_and_locks(tmp_path):
    vol = wa.create(tmp_path / "a.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",), chunks=CHUNK)
    spec = _kvstore_spec(vol)
    assert (_member(spec, "file_io_sync"), _locking(spec)) == (False, "none")


def test_the_open_that_creates_an_array_keeps_os_locks(tmp_path, monkeypatch):
    real, opened = write.ts.open, []

    def recording(spec, **kwargs):
        future = real(spec, **kwargs)
        if spec.get("create"):
            opened.append(future.result())
        return future

    monkeypatch.setattr(write.ts, "open", recording)
    wa.create(tmp_path / "a.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",), chunks=CHUNK)
    locks = [_locking(s.kvstore.spec(retain_context=True).to_json()) for s in opened
             if s.kvstore.spec().to_json()["driver"] == "file"]
    assert locks == ["os"]


WORKERS = 4
_together: list = []  # in a worker: the barrier every writer waits at


def _keep(barrier) -> None:
    _together.append(barrier)


@pytest.fixture(scope="module")
def workers(tmp_path_factory):
    """WORKERS spawn processes for the module, started once, with a thread budget 2 above this process's own:
    (the pool, that budget)."""
    made = wa.create(tmp_path_factory.mktemp("budget") / "a.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",),
                     chunks=CHUNK)
    theirs = {"limit": _decoding_limit(made)["limit"] + 2}
    spawn = multiprocessing.get_context("spawn")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORLDARRAY_THREADS", str(theirs["limit"]))  # the workers start with this environment
        pool = spawn.Pool(WORKERS, initializer=_keep, initargs=(spawn.Barrier(WORKERS),))
    with pool:
        yield pool, theirs


def _write_units(path: str, units: list[int]) -> int:
    _together[0].wait(timeout=120)  # every writer holds a task of its own, and they write at once
    vol = wa.open(path, mode="r+")
    for unit in units:
        vol.write_index((unit * CHUNK,), ((unit + 1) * CHUNK,), np.full(CHUNK, unit + 1, np.uint8))
    return os.getpid()


def test_processes_writing_disjoint_whole_units_under_the_lock_free_context_lose_nothing(tmp_path, workers):
    pool, units = workers[0], 32
    vol = wa.create(tmp_path / "a.zarr" / "s0", (units * CHUNK,), "uint8", 1, 0, axes=("x",), chunks=CHUNK)
    jobs = [(vol.level_path, list(range(w, units, WORKERS))) for w in range(WORKERS)]
    writers = pool.starmap_async(_write_units, jobs, chunksize=1).get(timeout=300)  # a lost worker fails, not hangs
    assert len(set(writers)) == WORKERS and os.getpid() not in writers
    assert np.array_equal(vol.read_index((0,), (units * CHUNK,)), np.repeat(np.arange(1, units + 1), CHUNK))


def _decoding_limit(vol: wa.WorldArray) -> dict:
    return vol.ts.spec(retain_context=True).to_json()["context"]["data_copy_concurrency"]


def _limits(vol: wa.WorldArray) -> tuple[dict, dict]:
    """The decoding pool the handle's tensorstore has, and the one its ``context`` reports."""
    return _decoding_limit(vol), _spec(vol.context)["data_copy_concurrency"]


def test_vol_context_is_the_context_given_else_the_processs_shared_one(tmp_path):
    mine = wa.capped_context(concurrency=2)
    given = wa.create(tmp_path / "c.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",), chunks=CHUNK, context=mine)
    assert given.context is mine
    assert wa.open(given.level_path).context is wa.shared_context()
    with pytest.raises(AttributeError):
        given.context = wa.shared_context()  # read-only


def test_a_pickled_handle_is_sized_by_the_receiving_processs_budget(tmp_path, workers):
    vol = wa.create(tmp_path / "a.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",), chunks=CHUNK)
    pool, theirs = workers
    assert _decoding_limit(vol) != theirs  # the worker's budget is not this process's
    assert pool.apply(_limits, (vol,)) == (theirs, theirs)  # vol.context too reports the receiver's own


# ---------------------------------------------------------------- fork


def test_a_fork_after_the_package_made_a_context_warns_once_naming_spawn_and_forkserver(tmp_path):
    script = textwrap.dedent(f"""
        import os, warnings
        warnings.simplefilter("always")
        import worldarray as wa
        wa.create({str(tmp_path / "a.zarr" / "s0")!r}, (8,), "uint8", 1, 0, axes=("x",), chunks=4)
        for _ in range(2):
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    # releases before about 0.1.85 abort the forking process itself, after the warning
    assert done.returncode == 0 or "fork() is not allowed" in done.stderr, done.stderr
    ours = [line for line in done.stderr.splitlines() if "RuntimeWarning: worldarray:" in line]
    assert len(ours) == 1 and "'spawn'" in ours[0] and "'forkserver'" in ours[0], done.stderr


# ---------------------------------------------------------------- A10: the watchdog


def _watchdog_running() -> bool:
    return any(thread.name == "worldarray-watchdog" and thread.is_alive() for thread in threading.enumerate())


def test_the_watchdog_runs_exactly_on_releases_older_than_the_first_free_of_strands(tmp_path):
    release = tuple(int(p) for p in importlib.metadata.version("tensorstore").split(".")[:3])
    wa.create(tmp_path / "a.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",), chunks=CHUNK)
    assert context.strands_tasks() == (release < context.FREE_OF_STRANDS)
    assert _watchdog_running() == context.strands_tasks()


@pytest.fixture
def watching(monkeypatch):
    """The watchdog on, as on a release that strands tasks, with a short period; its no-op tasks recorded."""
    context.stop_watchdog()
    nudged: list[ts.Context] = []
    real = context._nudge
    monkeypatch.setattr(context, "strands_tasks", lambda: True)
    monkeypatch.setattr(context, "WATCH_PERIOD", 0.02)
    monkeypatch.setattr(context, "_nudge", lambda ctx: (nudged.append(ctx), real(ctx))[1])
    yield nudged
    context.stop_watchdog()


def test_the_watchdog_gives_every_context_the_package_makes_a_no_op_task(watching):
    made = wa.capped_context(concurrency=1)
    seen = threading.Event()
    for _ in range(500):  # rounds come about every WATCH_PERIOD; wait for one that includes this context
        if any(ctx is made for ctx in watching):
            seen.set()
            break
        seen.wait(0.02)
    assert seen.is_set()


def test_the_watchdog_gives_a_callers_own_context_a_no_op_task_once_a_store_is_opened_on_it(watching, tmp_path):
    vol = wa.create(tmp_path / "a.zarr" / "s0", (8,), "uint8", 1, 0, axes=("x",), chunks=CHUNK)
    theirs = ts.Context({"data_copy_concurrency": {"limit": 1}})
    wa.open(vol.level_path, context=theirs)
    seen = threading.Event()
    for _ in range(500):
        if any(ctx is theirs for ctx in watching):
            seen.set()
            break
        seen.wait(0.02)
    assert seen.is_set()


def test_a_stopped_watchdog_leaves_no_thread(watching):
    wa.capped_context(concurrency=1)
    assert _watchdog_running()
    context.stop_watchdog()
    assert not _watchdog_running()


def test_the_tensorstore_version_read_beside_the_package_is_the_installed_one():
    from worldarray.context import tensorstore_version

    assert tensorstore_version() == importlib.metadata.version("tensorstore")
