"""Every open without a context shares one tensorstore context per argument set, sized to the job's thread budget.

A job is given a few cores (a cluster slot, a dask worker); tensorstore would size its pools by the machine's.
``thread_budget`` reads the job's share from the environment, and the contexts this module makes limit
tensorstore's decoding pool to it and its file I/O pool to ``max(budget, file_io_floor)``. They write without
fsync and without OS file locks (a whole write unit is a temporary file renamed into place, atomic without
either); ``fsync=True`` and ``locking="os"`` restore tensorstore's defaults, and ``locking_context`` gives the
opens that must stay atomic (creating an array, a conditional document write) their OS locks back.
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
import weakref
from collections.abc import Mapping
from typing import Any

import tensorstore as ts

from .diagnostics import logger

__all__ = ["shared_context", "capped_context", "capped_context_spec", "retry_context", "locking_context",
           "few_connections",
           "thread_budget", "one_request", "watch", "stop_watchdog", "strands_tasks", "FILE_IO_FLOOR",
           "THREAD_VARIABLES", "FREE_OF_STRANDS", "WATCH_PERIOD"]

#: Where ``thread_budget`` looks, in order: the first positive whole number wins.
THREAD_VARIABLES = ("WORLDARRAY_THREADS", "OMP_NUM_THREADS", "LSB_DJOB_NUMPROC", "SLURM_CPUS_PER_TASK", "NSLOTS")
#: The least file I/O pool of a default context: file reads and writes wait on the disk, not on a core.
FILE_IO_FLOOR = 8
LOCKING_MODES = ("none", "os", "lockfile")

_SHARED: dict[tuple, ts.Context] = {}
_LOCKING: dict[int, tuple[ts.Context, ts.Context]] = {}
_FEW: dict[tuple[int, int], tuple[ts.Context, ts.Context]] = {}
_LOCK = threading.Lock()
_CONCURRENCY = (
    "data_copy_concurrency",
    "file_io_concurrency",
    "gcs_request_concurrency",
    "s3_request_concurrency",
    "http_request_concurrency",
)
_NETWORK = frozenset({"gcs_request_concurrency", "s3_request_concurrency", "http_request_concurrency"})
# Resources a supported tensorstore release may lack: a context is then made without them, and a log line says so.
_OPTIONAL = ("file_io_sync", "file_io_locking")
_degraded: set[str] = set()
_state = {"made": False, "fork_warned": False}
#: The first tensorstore release the opt-in stress test (tests/test_stranded.py) found leaving no task stranded.
FREE_OF_STRANDS = (0, 1, 86)
#: Seconds between the watchdog's no-op tasks on each watched context (A10).
WATCH_PERIOD = 1.0
_WATCHED: weakref.WeakSet[ts.Context] = weakref.WeakSet()
_WATCH_LOCK = threading.Lock()  # not _LOCK: contexts are watched while _LOCK is held to make them
_watchdog: dict[str, Any] = {"thread": None, "rounds": 0}
# A retry's own requests: tensorstore asks again after an error answer for about five seconds (0.2 + 0.4 + 0.8 +
# 1.6 + 2 s), so an attempt the package gives up on stops asking soon after.
_RETRY_REQUESTS = {"max_retries": 5, "initial_delay": "0.2s", "max_delay": "2s"}
_REQUEST_RETRIES = ("http_request_retries", "s3_request_retries", "gcs_request_retries")


def thread_budget(environ: Mapping[str, str] | None = None) -> int:
    """The threads this job may use: the first positive whole number among ``THREAD_VARIABLES``, else the CPUs the
    process may run on.

    ``WORLDARRAY_THREADS`` set to anything but a positive whole number raises ValueError (blank counts as unset);
    the other variables are the schedulers' and are passed over when they hold something else.

    >>> thread_budget({"WORLDARRAY_THREADS": "", "SLURM_CPUS_PER_TASK": "3"})
    3
    """
    environ = os.environ if environ is None else environ
    for name in THREAD_VARIABLES:
        text = (environ.get(name) or "").strip()
        if not text:
            continue
        count = int(text) if text.isdigit() else 0
        if count >= 1:
            return count
        if name == "WORLDARRAY_THREADS":
            raise ValueError(f"WORLDARRAY_THREADS is {text!r}; expected a positive whole number of threads, or unset")
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _whole(label: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{label} is {value!r}; expected a whole number >= {low}")
    return value


def _budget(cache_bytes) -> int:
    if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
        raise ValueError(f"cache_bytes is {cache_bytes!r}; expected a whole number of bytes >= 0")
    return cache_bytes


def _writes(fsync: bool, locking: str) -> dict:
    """How files are written: fsync or not, and the lock mode (``LOCKING_MODES``)."""
    if not isinstance(fsync, bool):
        raise ValueError(f"fsync is {fsync!r}; expected True or False")
    if locking not in LOCKING_MODES:
        raise ValueError(f"locking is {locking!r}; expected one of {', '.join(map(repr, LOCKING_MODES))}")
    return {"file_io_sync": fsync, "file_io_locking": {"mode": locking}}


def _pools(threads: int | None, file_io_floor: int | None) -> dict:
    """The decoding and file I/O pool limits for ``threads`` (None: the budget; 0: tensorstore's own sizes)."""
    if threads is None:
        budget = thread_budget()
        floor = FILE_IO_FLOOR if file_io_floor is None else _whole("file_io_floor", file_io_floor, 1)
        return {"data_copy_concurrency": {"limit": budget}, "file_io_concurrency": {"limit": max(budget, floor)}}
    if _whole("threads", threads, 0) == 0:
        return {}
    floor = threads if file_io_floor is None else _whole("file_io_floor", file_io_floor, 1)
    return {"data_copy_concurrency": {"limit": threads}, "file_io_concurrency": {"limit": max(threads, floor)}}


def _made(spec: dict, parent: ts.Context | None = None) -> ts.Context:
    """``ts.Context(spec)``, without the optional resources the tensorstore in use does not know, each named once in
    a logged warning."""
    spec = dict(spec)
    _state["made"] = True
    while True:
        try:
            return watch(ts.Context(spec, parent=parent) if parent is not None else ts.Context(spec))
        except ValueError as error:
            missing = next((name for name in _OPTIONAL if name in spec and name in str(error)), None)
            if missing is None:
                raise
            del spec[missing]
            if missing not in _degraded:
                _degraded.add(missing)
                logger.warning("tensorstore %s has no context resource %r; contexts are made without it (%s)",
                               tensorstore_version(), missing, error)


@functools.cache
def one_request() -> dict:
    """The ``*_request_retries`` setting under which tensorstore sends a request once, leaving every retry to the
    package: ``max_retries`` 0, or 1 on releases before 0.1.86, which refuse 0 and count ``max_retries`` as attempts
    (measured on 0.1.72: a document answering 503 forever is asked six times in all, as on 0.1.86).

    >>> one_request()["max_retries"] in (0, 1)
    True
    """
    try:
        ts.Context({"http_request_retries": {"max_retries": 0}})
    except ValueError as error:
        logger.info("tensorstore %s refuses max_retries 0 (%s); requests the package retries itself use "
                    "max_retries 1, one attempt there", tensorstore_version(),
                    str(error).split(" [")[0])
        return {"max_retries": 1}
    return {"max_retries": 0}


def shared_context(cache_bytes: int = 0, threads: int | None = None, file_io_floor: int | None = None, *,
                   fsync: bool = False, locking: str = "none") -> ts.Context:
    """Return the process's one context for this argument set: a cache of ``cache_bytes`` (0: off), pools sized by
    ``threads``, and files written without fsync or OS locks unless asked.

    ``threads=None`` limits the decoding pool to ``thread_budget()`` and the file I/O pool to
    ``max(budget, file_io_floor)`` (floor ``FILE_IO_FLOOR``); ``threads=N`` limits both to N (file I/O to
    ``max(N, file_io_floor)`` when a floor is given); ``threads=0`` sets no limit.

    >>> shared_context() is shared_context(0)
    True
    """
    key = (_budget(cache_bytes), threads, file_io_floor, fsync, locking)
    with _LOCK:
        if key not in _SHARED:
            spec = {"cache_pool": {"total_bytes_limit": key[0]}, **_pools(threads, file_io_floor),
                    **_writes(fsync, locking)}
            _SHARED[key] = _made(spec)
        return _SHARED[key]


def capped_context_spec(cache_bytes: int = 0, concurrency: int = 1, network: bool = True,
                        file_io: int | None = None, *, fsync: bool = False, locking: str = "none") -> dict:
    """Return the context spec that limits every tensorstore concurrency resource to ``concurrency``, file I/O to
    ``file_io`` when given.

    ``network=False`` limits decoding and local file I/O only, leaving the request pools alone. Files are written
    without fsync or OS locks unless ``fsync`` or ``locking`` say otherwise.

    >>> capped_context_spec(concurrency=2, file_io=8)["file_io_concurrency"]
    {'limit': 8}
    """
    _whole("concurrency", concurrency, 1)
    spec: dict[str, Any] = {"cache_pool": {"total_bytes_limit": _budget(cache_bytes)}}
    for name in _CONCURRENCY:
        if network or name not in _NETWORK:
            spec[name] = {"limit": concurrency}
    if file_io is not None:
        spec["file_io_concurrency"] = {"limit": _whole("file_io", file_io, 1)}
    spec.update(_writes(fsync, locking))
    return spec


def capped_context(cache_bytes: int = 0, concurrency: int = 1, network: bool = True, file_io: int | None = None, *,
                   fsync: bool = False, locking: str = "none") -> ts.Context:
    """Return a new context with every concurrency resource capped (``capped_context_spec``); a new one each call."""
    return _made(capped_context_spec(cache_bytes, concurrency, network, file_io, fsync=fsync, locking=locking))


def locking_context(parent: ts.Context) -> ts.Context:
    """A child of ``parent`` that locks files the OS way, for the opens that must stay atomic (creating an array, a
    document written only if unchanged); one per parent, sharing every other resource of it.

    >>> locking_context(shared_context()) is locking_context(shared_context())
    True
    """
    with _LOCK:
        if id(parent) not in _LOCKING:  # the value keeps the parent alive, so its id is not reused
            _LOCKING[id(parent)] = (parent, _made({"file_io_locking": {"mode": "os"}}, parent))
        return _LOCKING[id(parent)][1]


def few_connections(parent: ts.Context, limit: int) -> ts.Context:
    """A child of ``parent`` that sends at most ``limit`` plain-http requests at once, for servers that close every
    connection (``connections``); one per parent and limit, sharing every other resource of it.

    >>> few_connections(shared_context(), 4) is few_connections(shared_context(), 4)
    True
    """
    with _LOCK:
        key = (id(parent), limit)
        if key not in _FEW:  # the value keeps the parent alive, so its id is not reused
            _FEW[key] = (parent, _made({"http_request_concurrency": {"limit": limit}}, parent))
        return _FEW[key][1]


def retry_context(parent: ts.Context) -> ts.Context:
    """Return a child of ``parent`` with a cache of its own, for one retry: its reads send new requests.

    tensorstore joins a read of a chunk that is still being fetched, through the cache of the context it was opened
    in, so a retry in the same context waits on the request that hung. The child shares every concurrency limit of
    ``parent`` (requests, file I/O, decoding: a capped context stays capped); only the cache and the request
    retries are its own, the latter about five seconds long.

    >>> retry_context(shared_context()) is retry_context(shared_context())
    False
    """
    spec: dict = {"cache_pool": {}}
    spec.update({name: dict(_RETRY_REQUESTS) for name in _REQUEST_RETRIES})
    return ts.Context(spec, parent=parent)


def _before_fork() -> None:
    """Warn once, at the first fork after the package made a context: tensorstore's threads make the child abort
    ("fork() use detected") as soon as it uses tensorstore."""
    if _state["made"] and not _state["fork_warned"]:
        _state["fork_warned"] = True
        warnings.warn("worldarray: this process forks after tensorstore started its threads, and tensorstore aborts "
                      "a forked child that uses it; start worker processes with the 'spawn' or 'forkserver' method "
                      "(multiprocessing.get_context('spawn'), concurrent.futures.ProcessPoolExecutor(mp_context=...))",
                      RuntimeWarning, stacklevel=2)



@functools.cache
def tensorstore_version() -> str:
    """The installed tensorstore's version: from the one ``tensorstore-*.dist-info`` directory beside the package (a
    directory listing), else as ``importlib.metadata`` finds it (which reads every installed distribution)."""
    site = os.path.dirname(os.path.dirname(os.path.realpath(ts.__file__)))
    found = [name for name in os.listdir(site) if name.startswith("tensorstore-") and name.endswith(".dist-info")]
    if len(found) == 1:
        return found[0][len("tensorstore-"):-len(".dist-info")]
    import importlib.metadata  # only where the listing does not tell: it costs tens of milliseconds

    return importlib.metadata.version("tensorstore")


def _release() -> tuple[int, ...]:
    return tuple(int(part) for part in tensorstore_version().split(".")[:3] if part.isdigit())


@functools.cache
def strands_tasks() -> bool:
    """Whether the tensorstore in use is older than ``FREE_OF_STRANDS``, so a queued task may be left with no thread
    (a pool's worker leaving just as the task arrives) and the watchdog runs; asked once per process, since every
    open asks it."""
    return _release() < FREE_OF_STRANDS


def _nudge(context: ts.Context) -> list:
    """One no-op task on each pool of ``context``: a copy on its decoding pool, a read of a key that is nowhere on its
    file I/O pool. Either arriving wakes a task stranded on that pool; the futures are not waited for."""
    copy = ts.open({"driver": "array", "array": [0], "dtype": "uint8"}, context=context).result().read()
    nowhere = ts.KvStore.open({"driver": "file", "path": "/nonexistent/worldarray-watchdog/"}, context=context)
    return [copy, nowhere.result().read("nothing")]


def _watch_until(stop: threading.Event) -> None:
    pending: list = []
    while not stop.wait(WATCH_PERIOD):
        with _WATCH_LOCK:
            contexts = list(_WATCHED)
        pending = []  # last round's futures are let go: their answers do not matter
        for context in contexts:
            try:
                pending.extend(_nudge(context))
            except Exception as error:  # a watchdog never stops on one context's failure
                logger.debug("watchdog: a no-op task failed: %s", error)
        _watchdog["rounds"] += 1
        del contexts


def watch(context: ts.Context) -> ts.Context:
    """Watch ``context`` when the tensorstore in use can strand a task: about every ``WATCH_PERIOD`` seconds a
    daemon thread gives each watched, still-living context's pools one no-op task; return ``context``.

    Every context the package makes, and every context a store is opened on, is watched; on a release free of
    stranded tasks (``FREE_OF_STRANDS`` and newer) nothing is watched and no thread starts.
    """
    if not strands_tasks():
        return context
    with _WATCH_LOCK:
        _WATCHED.add(context)
        if _watchdog["thread"] is None:
            stop = threading.Event()
            thread = threading.Thread(target=_watch_until, args=(stop,), name="worldarray-watchdog", daemon=True)
            _watchdog.update(thread=thread, stop=stop)
            thread.start()
            logger.info("tensorstore %s may strand a queued task: a watchdog gives each context's pools a no-op "
                        "task every %g s", tensorstore_version(), WATCH_PERIOD)
    return context


def _forget_watchdog() -> None:
    _watchdog["thread"] = None  # a forked child has no watchdog thread; the next watch starts one there


def stop_watchdog() -> None:
    """Stop the watchdog thread, if one runs (the next ``watch`` starts another); for tests and shutdown hooks."""
    with _WATCH_LOCK:
        thread, stop = _watchdog["thread"], _watchdog.get("stop")
        _watchdog["thread"] = None
    if thread is not None and stop is not None:
        stop.set()
        thread.join()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_forget_watchdog)
