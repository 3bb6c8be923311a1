"""A copy writes exactly a world box of a source into a new placed array, one write unit at a time.

The target is the box's voxels on the source handle's grid (the resample grid when a voxel size is asked for),
chosen by the centre rule exactly as ``read(box)`` chooses them and clipped to the level, never rounded to chunks:
its translation is the source voxel's centre at the box's first voxel, its chunks are counted from that voxel and
its edge units are cut short at the box. ``extent="level"`` keeps the level's shape and placement instead and writes
the units the box touches. Each unit is read from the source with ``read_index`` and written whole with
``write_index``, so memory holds a few units whatever the box, on the thread budget or on a given executor.
A unit already stored is skipped under ``exists="resume"``; a unit that fails raises naming it, and nothing
written is removed.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import itertools
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorstore as ts

from . import retry, store
from .arguments import context_or_none, one_of, retries_or_none
from .array import WorldArray
from .context import thread_budget
from .detect import detect
from .geometry import Box, BoxLike, as_box, voxel_volume
from .grid import Grid
from .keys import key_speller
from .levels import Level
from .paths import PathLike
from .units import NANOMETER, UnitsArgument, factor, kind

__all__ = ["copy", "Progress", "CopyError", "EXTENTS", "EXISTS_COPY"]

#: What a copy's target spans: the box's voxels, or the whole level with the box's units written.
EXTENTS = ("box", "level")
#: What a copy does when the target exists: refuse, adopt an identical empty one, or resume a copy into it.
EXISTS_COPY = ("error", "adopt", "resume")
#: How many units each worker may have in flight: the bound on memory is this times the workers, in units.
IN_FLIGHT = 2


class CopyError(RuntimeError):
    """A unit of a copy failed: ``{target} unit {index} (source box {lo}-{hi}): {why}``."""


@dataclass(frozen=True)
class Progress:
    """How far a copy is, in counts that only grow: units done of those ``needed`` (computed, or ``skipped``
    because already stored), units written (a unit all fill is computed but not stored) and bytes written."""

    needed: int
    computed: int = 0
    skipped: int = 0
    written: int = 0
    bytes: int = 0

    @property
    def done(self) -> int:
        """Units finished, computed or skipped."""
        return self.computed + self.skipped


@dataclass(frozen=True)
class _Plan:
    """One level's copy: the source handle, where the box starts in it, the target grid and the units to write."""

    source: WorldArray
    origin: tuple[int, ...]  # the source handle's index of target voxel 0
    grid: Grid
    box: tuple[tuple[int, ...], tuple[int, ...]]  # the target's voxels the box covers (all of them for "box")


def _source_handle(source: PathLike | WorldArray, voxel_size: Any, method: str | None,
                   options: Mapping[str, Any]) -> WorldArray:
    """The handle a copy reads: the source as opened (or as given, with the options given changed), resampled at
    ``voxel_size`` when one is given."""
    given = {key: value for key, value in options.items() if value is not None}
    if voxel_size is not None:
        given.update(voxel_size=voxel_size, on_mismatch="resample")
    if method is not None:
        given["method"] = method
    if isinstance(source, WorldArray):
        return source.reopen(**given) if given else source
    return WorldArray(source, **{"units": NANOMETER, **given})


def _full_box(vol: WorldArray, box: BoxLike | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The handle's voxels the box selects, every axis, clipped to the level; the whole level for no box."""
    shape = vol.shape
    if box is None:
        return (0,) * len(shape), tuple(shape)
    lo, hi = vol.index_box(box)
    begin, end = [0] * len(shape), list(shape)
    covered = vol.spatial if len(lo) == len(vol.spatial) else range(len(shape))
    for k, axis in enumerate(covered):
        begin[axis], end[axis] = max(0, lo[k]), min(shape[axis], hi[k])
    if any(e <= b for b, e in zip(begin, end, strict=True)):
        raise ValueError(f"{vol.level_path}: the box {box!r} holds no voxel centre of the level, whose box is "
                         f"{vol.box}")
    return tuple(begin), tuple(end)


def _per_axis(value: Any, ndim: int) -> tuple[int, ...] | None:
    """A chunk or shard shape as given: None, one number for every axis, or one per axis (``Grid`` checks it)."""
    if value is None:
        return None
    return tuple(value) if isinstance(value, Sequence) else (value,) * ndim


def _grid(vol: WorldArray, begin: Sequence[int], end: Sequence[int], chunks: Any, shards: Any) -> Grid:
    """The target grid of the handle's voxels ``begin`` to ``end``: voxel 0 at the centre of source voxel
    ``begin``, in the handle's units and spatial axes, chunked as the source (cut to the shape) unless ``chunks``
    says."""
    meta = vol.grid
    shape = tuple(e - b for b, e in zip(begin, end, strict=True))
    own = tuple(max(1, min(c, n)) for c, n in zip(meta.chunk_shape, shape, strict=True))
    cropped = dataclasses.replace(
        meta, shape=shape, chunk_shape=_per_axis(chunks, len(shape)) or own,
        shard_shape=_per_axis(shards, len(shape)),
        translation=tuple(t + b * s for t, b, s in zip(meta.translation, begin, meta.voxel_size, strict=True)))
    return Grid.from_meta(cropped)


def plan(vol: WorldArray, box: BoxLike | None, extent: str, chunks: Any, shards: Any) -> _Plan:
    """The target of one level's copy and the part of it the box covers."""
    begin, end = _full_box(vol, box)
    if extent == "level":
        return _Plan(vol, (0,) * len(begin), _grid(vol, (0,) * len(begin), vol.shape, chunks, shards), (begin, end))
    grid = _grid(vol, begin, end, chunks, shards)
    return _Plan(vol, begin, grid, ((0,) * len(begin), tuple(grid.shape)))


@dataclass(frozen=True)
class Unit:
    """One write unit of a copy's target: its place in the unit grid and its voxels ``[begin, end)``."""

    index: tuple[int, ...]
    begin: tuple[int, ...]
    end: tuple[int, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(e - b for b, e in zip(self.begin, self.end, strict=True))


def _units(plan_: _Plan, write_shape: Sequence[int]) -> list[Unit]:
    """The target's write units that hold a voxel of the box, in C order (only those are built), cut at its
    shape."""
    (begin, end), shape = plan_.box, plan_.grid.shape
    ranges = [range(b // s, -(-e // s)) for b, e, s in zip(begin, end, write_shape, strict=True)]
    units = []
    for index in itertools.product(*ranges):
        first = tuple(i * s for i, s in zip(index, write_shape, strict=True))
        units.append(Unit(index, first, tuple(min(f + s, n) for f, s, n in zip(first, write_shape, shape,
                                                                                strict=True))))
    return units


def copy_unit(source: WorldArray, target: WorldArray, origin: Sequence[int], begin: Sequence[int],
              end: Sequence[int]) -> tuple[int, bool]:
    """Read target voxels ``begin`` to ``end`` from the source (shifted by ``origin``) and write them as one unit;
    return the bytes read and written, and whether the unit is stored (tensorstore stores no unit all fill)."""
    data = source.read_index(tuple(b + o for b, o in zip(begin, origin, strict=True)),
                             tuple(e + o for e, o in zip(end, origin, strict=True)))
    target.write_index(tuple(begin), tuple(end), data)
    fill = np.asarray(target.meta.fill_value if target.meta.fill_value is not None else 0, dtype=data.dtype)
    return int(data.nbytes), not np.array_equal(data, np.broadcast_to(fill, data.shape),
                                                equal_nan=data.dtype.kind in "fc")


def _named(target: str, unit: Unit, origin: Sequence[int], error: BaseException) -> CopyError:
    """The error of a unit that failed: the target, the unit's index and its box in source voxels, and why."""
    lo = tuple(b + o for b, o in zip(unit.begin, origin, strict=True))
    hi = tuple(e + o for e, o in zip(unit.end, origin, strict=True))
    return CopyError(f"{target} unit {unit.index} (source box {lo}-{hi}): {error}")


def _first_done(pending: Mapping[Any, Unit]) -> Any:
    """A finished future among ``pending``: concurrent.futures' whichever ends first, any other kind (dask's) the
    oldest, waited for."""
    futures = list(pending)
    if all(isinstance(f, concurrent.futures.Future) for f in futures):
        return next(iter(concurrent.futures.wait(futures, return_when="FIRST_COMPLETED").done))
    _settled(futures[0])
    return futures[0]


def _settled(future: Any) -> None:
    """Wait for a future of any kind to finish, whether it failed or not (its ``result`` tells which later)."""
    try:
        future.result()
    except Exception:  # noqa: S110 - the caller reads the outcome from the future itself
        pass


def _run(plan_: _Plan, target: WorldArray, units: list[Unit], executor: Any, workers: int,
         report: Callable[[int, bool], None]) -> None:
    """Copy every unit, at most ``IN_FLIGHT * workers`` in flight, reporting each unit's bytes as it ends; the first
    failure cancels what has not started and raises naming its unit."""
    pending: dict[Any, Unit] = {}
    queue: Iterator[Unit] = iter(units)

    def submit() -> None:
        unit = next(queue, None)
        if unit is not None:
            pending[executor.submit(copy_unit, plan_.source, target, plan_.origin, unit.begin, unit.end)] = unit

    for _ in range(IN_FLIGHT * workers):
        submit()
    while pending:
        done = _first_done(pending)
        unit = pending.pop(done)
        try:
            nbytes, stored = done.result()
        except Exception as error:
            for other in pending:
                other.cancel()
            raise _named(target.level_path, unit, plan_.origin, error) from error
        report(nbytes, stored)
        submit()


#: How many units a direct copy keeps in flight as tensorstore futures (reads and writes overlapping, no threads).
DIRECT_IN_FLIGHT = 8


def direct(plan_: _Plan, target: WorldArray) -> bool:
    """Whether every unit is the stored voxels themselves, so tensorstore copies it alone: a source not resampled,
    no value transform, the same dtype (the units lie in the level by construction)."""
    source = plan_.source
    return (not source.resampled and source._options.transform is None and source.dtype == target.dtype
            and not source.remote and not target.remote)


def _holding(target: WorldArray) -> Callable[[Unit], bool]:
    """Whether the target stores a unit just written (one all fill is left absent): a local file's existence, else a
    read of its key."""
    node, keys = target._opened.node, target.ts.kvstore
    spell = key_speller(target.meta.format, node.docs, node.scale_key)
    if store.scheme(target.level_path) == "file":
        return lambda unit: os.path.exists(os.path.join(target.level_path, spell(unit.index)))
    return lambda unit: keys is None or keys.read(spell(unit.index)).result().state == "value"


def _run_direct(plan_: _Plan, target: WorldArray, units: list[Unit], report: Callable[[int, bool], None]) -> None:
    """Copy every unit as one tensorstore write of the source's view, ``DIRECT_IN_FLIGHT`` at a time, then tell
    whether the store holds it (``_holding``); a unit whose write fails is copied again through ``copy_unit`` (the
    retry policy's reads and writes) before it is named."""
    reading, writing, held = plan_.source.ts, target.ts, _holding(target)
    pending: collections.deque[tuple[Any, Unit]] = collections.deque()

    def finish() -> None:
        future, unit = pending.popleft()
        try:
            future.result()
            nbytes, stored = math.prod(unit.shape) * target.dtype.itemsize, held(unit)
        except Exception:
            try:
                nbytes, stored = copy_unit(plan_.source, target, plan_.origin, unit.begin, unit.end)
            except Exception as error:
                raise _named(target.level_path, unit, plan_.origin, error) from error
        report(nbytes, stored)

    for unit in units:
        into = tuple(slice(b, e) for b, e in zip(unit.begin, unit.end, strict=True))
        read = tuple(slice(b + o, e + o) for b, e, o in zip(unit.begin, unit.end, plan_.origin, strict=True))
        pending.append((writing[into].write(reading[read]), unit))
        if len(pending) >= DIRECT_IN_FLIGHT:
            finish()
    while pending:
        finish()


def _workers(executor: Any) -> int:
    """How many units an executor runs at once: a pool's workers, a dask client's threads, else the budget."""
    if hasattr(executor, "nthreads") and callable(executor.nthreads):  # a dask.distributed Client
        return max(1, sum(executor.nthreads().values()))
    return int(getattr(executor, "_max_workers", 0) or thread_budget())


def _fill(vol: WorldArray, dtype: np.dtype) -> Any:
    """The source's fill value in the target's dtype, 0 when it has none that dtype holds."""
    try:
        return np.asarray(0 if vol.meta.fill_value is None else vol.meta.fill_value).astype(dtype).item()
    except (TypeError, ValueError):
        return 0


def _placed_by_crs(vol: WorldArray, grid: Grid) -> bool:
    """Whether the target is written placed by ``spatial:`` attributes: a north-up step, or a CRS that placed the
    source (OME-NGFF holds neither)."""
    return vol.grid.crs is not None or any(size < 0 for size in grid.voxel_size)


def _stored(vol: WorldArray, grid: Grid) -> tuple[list[float], list[float]]:
    """The grid's voxel sizes and voxel 0's outer corner over every axis, spatial ones in the source's stored
    units (the units its CRS speaks)."""
    meta, level = vol.grid, vol.meta
    sizes, corner = list(grid.meta(np.uint8).voxel_size), list(grid.meta(np.uint8).corner)
    for i in meta.spatial:
        stored = level.units[level.axes.index(meta.axes[i])] or NANOMETER
        scale = factor(meta.units[i] or NANOMETER, stored)
        sizes[i], corner[i] = sizes[i] * scale, corner[i] * scale
    return sizes, corner


def _target(path: PathLike, plan_: _Plan, dtype: np.dtype, exists: str, create_options: Mapping[str, Any]
            ) -> WorldArray:
    """The target array, created from the plan's grid (adopted when it exists and ``exists="resume"``): OME-NGFF,
    or placed by ``spatial:`` attributes for a north-up or CRS-placed source."""
    from .pyramid import create  # the writing modules load with the first copy, not with the package
    from .spatial_write import create_spatial, spatial_attributes

    vol, grid = plan_.source, plan_.grid
    adopt = "adopt" if exists == "resume" else "error"
    if not _placed_by_crs(vol, grid):
        return create(path, grid=grid, dtype=dtype, fill_value=_fill(vol, dtype), exists=adopt, **create_options)
    attrs = spatial_attributes(vol.grid, *_stored(vol, grid))
    made = create_spatial(store.normalize(path), shape=grid.shape, dtype=dtype, axes=vol.grid.axes,
                          chunks=grid.chunks, shards=grid.shards, fill_value=_fill(vol, dtype),
                          codecs=create_options["codecs"], attrs=attrs, exists=adopt,
                          context=create_options["context"])
    unit = vol.grid.units[vol.spatial[0]]
    return WorldArray(made, mode="r+", units={kind(unit): unit} if kind(unit) in ("space", "angle") else None,
                      context=create_options["context"], retries=create_options["retries"])


def _copy_level(vol: WorldArray, target: PathLike, box: BoxLike | None, extent: str, exists: str,
                layout: Mapping[str, Any], create_options: Mapping[str, Any], executor: Any,
                progress: Callable[[Progress], None] | None) -> WorldArray:
    """One level's copy: plan, create (or resume), then every unit not yet stored."""
    plan_ = plan(vol, box, extent, layout.get("chunks"), layout.get("shards"))
    first = plan_.origin
    try:  # what a transform makes of the values: its dtype, from the first voxel of the first unit
        dtype = vol.read_index(first, tuple(b + 1 for b in first)).dtype
    except Exception as error:
        raise _named(store.normalize(target), _units(plan_, plan_.grid.write_shape)[0], plan_.origin,
                     error) from error
    out = _target(target, plan_, dtype, exists, create_options)
    units = _units(plan_, out.write_shape)
    stored = set(out.list_chunks()) if exists == "resume" else set()
    todo = [unit for unit in units if unit.index not in stored]
    state = Progress(len(units), skipped=len(units) - len(todo))
    if progress is not None:
        progress(state)

    def report(nbytes: int, stored: bool) -> None:
        nonlocal state
        state = Progress(state.needed, state.computed + 1, state.skipped, state.written + stored,
                         state.bytes + nbytes)
        if progress is not None:
            progress(state)

    if executor is None and direct(plan_, out):
        _run_direct(plan_, out, todo, report)
        return out
    owned = executor is None
    pool = concurrent.futures.ThreadPoolExecutor(thread_budget()) if owned else executor
    try:
        _run(plan_, out, todo, pool, _workers(pool), report)
    finally:
        if owned:
            pool.shutdown(wait=True, cancel_futures=True)
    return out


def copy(source: PathLike | WorldArray, target: PathLike, *, box: BoxLike | None = None,
         voxel_size: Any = None, method: str | None = None, level: Level = None,
         select: Mapping[str, int] | None = None, transform: Callable[[np.ndarray], np.ndarray] | None = None,
         units: UnitsArgument = None, levels: Sequence[str] | None = None, extent: str = "box",
         exists: str = "error", chunks: Any = None, shards: Any = None, codecs: Any = "zstd",
         format: str | None = None, progress: Callable[[Progress], None] | None = None, executor: Any = None,
         context: ts.Context | None = None, retries: retry.Retry | None = None) -> WorldArray | list[WorldArray]:
    """Copy the voxels a world box selects into a new placed array (every level of a group into a new group).

    Parameters
    ----------
    source
        A path (opened with ``level``, ``select``, ``transform``, ``units``, ``context``, ``retries``) or an open
        ``WorldArray`` (those that are given change it). A group path with no ``level`` copies every level, or
        those ``levels`` names, each under its own name below ``target``.
    target
        The new array's path (a level under a group, as ``create`` takes), or the new group's for a group source.
    box
        A world box in the handle's units; the whole level by default. Its voxels are those ``read(box)`` returns.
    voxel_size, method
        Copy onto the resample grid at this size, filled as ``read(box, voxel_size=..., method=...)`` fills it.
    extent
        "box": the target is the box's voxels; "level": the level's shape and placement, the box's units written.
    exists
        "error" (the default) or "resume": continue a copy into a target of the same shape and placement,
        skipping the units already stored.
    chunks, shards, codecs, format
        As ``create``; the chunks default to the source's, cut to the target's shape.
    progress
        Called with a ``Progress`` before the first unit and after each.
    executor
        A ``concurrent.futures``-style executor (``submit`` returning futures) the units run on, such as a
        ``ProcessPoolExecutor`` or a ``dask.distributed`` Client; threads on the thread budget by default.

    Returns
    -------
    WorldArray, writable, or for a group source the list of the new levels.

    Raises
    ------
    CopyError
        Naming the target, the unit and its source box, when a unit fails; what was written stays.

    Examples
    --------
    >>> vol = wa.create("memory://doc/copy.zarr/s0", (8, 8), "uint8", 4, 2, axes=("y", "x"), chunks=4)
    >>> vol.write_index((0, 0), (8, 8), np.arange(64, dtype="uint8").reshape(8, 8))
    >>> crop = wa.copy(vol, "memory://doc/crop.zarr/s0", box=((8, 8), (20, 24)))
    >>> crop.shape, crop.translation, bool((crop.read(crop.box) == vol.read(((8, 8), (20, 24)))).all())
    ((3, 4), (10.0, 10.0), True)
    """
    one_of("extent", extent, EXTENTS)
    one_of("exists", exists, EXISTS_COPY)
    context_or_none(context), retries_or_none(retries)
    options = {"level": level, "select": select, "transform": transform, "units": units, "context": context,
               "retries": retries}
    if isinstance(source, WorldArray):
        options.pop("level")
        if level is not None:
            raise ValueError(f"level is {level!r}; a WorldArray source is a level already (pass a path to choose)")
    create_options = {"codecs": codecs, "format": format, "context": context, "retries": retries}
    layout = {"chunks": chunks, "shards": shards}
    if not isinstance(source, WorldArray) and level is None and _is_group(source):
        if voxel_size is not None:
            raise ValueError(f"voxel_size is {voxel_size!r}; a group source copies each level at its own size "
                             "(pass level= to copy one level resampled)")
        from .pyramid import open_pyramid

        pyramid = open_pyramid(source, context=context, retries=retries)
        names = pyramid.names if levels is None else tuple(levels)
        handles = [_source_handle(source, voxel_size, method, {**options, "level": name}) for name in names]
        box = None if box is None else aligned_box(handles, box)
        return [_copy_level(vol, store.join(store.normalize(target), name), box, extent, exists, layout,
                            create_options, executor, progress) for vol, name in zip(handles, names, strict=True)]
    if levels is not None:
        raise ValueError(f"levels is {levels!r}; only a group source (a path, with no level) has levels to copy")
    vol = _source_handle(source, voxel_size, method, options)
    return _copy_level(vol, target, box, extent, exists, layout, create_options, executor, progress)


def aligned_box(levels: Sequence[WorldArray], box: BoxLike) -> Box:
    """The world box grown outward to the voxel corners of the coarsest of ``levels`` (on its spatial axes), so that
    every level's voxels of it start and end on the same world corners and the crop stays a pyramid; clipped to
    that level's box."""
    coarsest = max(levels, key=lambda vol: voxel_volume(vol.voxel_size))
    given, extent = as_box(box), coarsest.box
    corner, sizes = coarsest.corner, coarsest.voxel_size
    begin, end = [], []
    for lo, hi, c, s, first, last in zip(given.begin, given.end, corner, sizes, extent.begin, extent.end,
                                         strict=True):
        a, b = sorted(((lo - c) / s, (hi - c) / s))
        ends = sorted((c + math.floor(a) * s, c + math.ceil(b) * s))
        begin.append(max(ends[0], first))
        end.append(min(ends[1], last))
    return Box(tuple(begin), tuple(end))


def _is_group(path: PathLike) -> bool:
    node = detect(path)
    return node is not None and node.kind == "group"
