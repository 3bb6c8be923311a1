"""One WorldArray reads one level by voxel index or by world box; everything it knows is computed once, at open.

``open`` chooses the level (Behaviour 3), places it (Conventions), converts it to the units asked
for, and keeps the tensorstore; ``read_index`` clips, reads and pads (Behaviour 1); ``read`` maps
a world box to voxels by their centres (Behaviour 2) and then reads them.
"""

from __future__ import annotations

import dataclasses
import math
from math import ceil
from typing import Any, Mapping

import numpy as np
import tensorstore as ts

from . import store
from .context import shared_context
from .options import (METHODS, Options, in_requested_units, one_of, positive_sizes, same_sizes, space_unit,
                      spatial_placement)
from .detect import source_of
from .documents import Placement
from .keys import chunk_indices
from .geometry import SNAP_TOLERANCE, Box, as_box, default_axes, snap_integral, spatial_indices
from .levels import choose, resolve
from .meta import ArrayMeta
from .metadata import parse
from .opening import open_array
from .reading import check_padding, read_clipped, read_resampled
from .resample import plan_axis, plan_identity, target_extent
from .retry import Retry
from .writing import WriteFace
from .creation import create_level, plan_level, world_units

__all__ = ["WorldArray", "open", "create", "metadata", "open_tensorstore"]

_FLOOR_TIMEOUT = 5.0  # Behaviour 6's shortest attempt: every read below the bytes it takes to exceed it waits this

class WorldArray(WriteFace):
    """One level of a zarr v2, zarr v3, N5 or precomputed volume, read by voxel index or by world box.

    Construct through ``wa.open(path, ...)`` or ``WorldArray(path, ...)`` with the same keywords.
    Reads may run from several threads at once; a handle pickles by its arguments.
    """

    def __init__(self, path, *, context: ts.Context | None = None, **options):
        options = Options(**options)
        with store.document_timing(*(options.retries or Retry()).document_timing()):
            self._open(store.normalize(path), options, context)

    # ------------------------------------------------------------ opening

    def _open(self, path: str, options: Options, context: ts.Context | None) -> None:
        self._options, self._context = options, context
        self.path = path
        choice = choose(path, options.level, options.voxel_size, options.level_mode, self._sizer(options, None))
        rescale = self._base_rescale(choice, options) if options.base_voxel_size is not None else None
        if rescale and options.voxel_size is not None and choice.group is not None and options.level is None:
            # the level was chosen on unscaled sizes; choose again on the sizes the base voxel size gives
            choice = choose(path, None, options.voxel_size, options.level_mode, self._sizer(options, rescale))
        meta = parse(source_of(choice.found), options.metadata_conflicts)
        meta = self._rescaled(meta, rescale, options)
        source = in_requested_units(meta, options.units, options.strict_units)
        self.meta, self.level_name, self.levels = meta, choice.name, choice.names
        self._node, self._listed = choice.found.node, choice.listed
        self.level_path = store.join(choice.found.node.path, choice.found.node.scale_key) if choice.found.node.scale_key else choice.found.node.path
        self._store = open_array(choice.found, context if context is not None else shared_context(),
                                 write=options.mode == "r+", store_fill=options.store_fill or _stores_fill(meta),
                                 retries=options.retries)
        self.source_voxel_size = tuple(source.voxel_size[i] for i in source.spatial)
        self.source_translation = tuple(source.translation[i] for i in source.spatial)
        grid, base = self._target(source, options)
        pins = self._pins(grid, options.select) if options.select else {}
        self._store = self._pinned_view(self._store, pins)
        grid, self._source_grid = self._drop(grid, pins), self._drop(base, pins)
        self._set_grid(grid)
        self.padding, self.method = options.padding, options.method
        self.retries = options.retries
        self._transform = options.transform

    def _sizer(self, options: Options, rescale):
        base_unit = options.base_units or space_unit(options.units) or "nanometer"

        def sizes(placement: Placement) -> tuple[float, ...]:
            return spatial_placement(placement, options.units, rescale, base_unit)[0]

        return sizes

    def _base_rescale(self, choice, options: Options) -> tuple[float, ...]:
        """Per spatial axis, base_voxel_size over level 0's stored voxel size."""
        first = choice.first_placement()
        spatial = spatial_indices(first.axes or default_axes(len(first.voxel_size)))
        if len(options.base_voxel_size) != len(spatial):
            raise ValueError(f"base_voxel_size is {options.base_voxel_size}; expected {len(spatial)} entries, one per spatial axis")
        return tuple(b / first.voxel_size[i] for b, i in zip(options.base_voxel_size, spatial))

    def _rescaled(self, meta: ArrayMeta, rescale, options: Options) -> ArrayMeta:
        if rescale is None:
            return meta
        unit = options.base_units or space_unit(options.units) or "nanometer"
        sizes, shifts, names = list(meta.voxel_size), list(meta.translation), list(meta.units)
        for k, i in enumerate(meta.spatial):
            sizes[i], shifts[i], names[i] = sizes[i] * rescale[k], shifts[i] * rescale[k], unit
        return dataclasses.replace(meta, voxel_size=tuple(sizes), translation=tuple(shifts), units=tuple(names))

    def _target(self, grid: ArrayMeta, options: Options) -> ArrayMeta:
        """Apply on_mismatch when no level has the voxel size asked for."""
        target = options.voxel_size
        self.resampled, self._target_grid = False, None
        if target is None:
            return grid, grid
        spatial = grid.spatial
        if len(target) == 1 and len(spatial) > 1:
            target = target * len(spatial)
        have = tuple(grid.voxel_size[i] for i in spatial)
        if len(target) != len(spatial):
            raise ValueError(f"voxel_size is {options.voxel_size}; expected {len(spatial)} entries, one per spatial axis {tuple(grid.axes[i] for i in spatial)}")
        if same_sizes(have, target) or options.on_mismatch == "keep":
            return grid, grid
        if options.on_mismatch == "resample" or options.level_mode == "resample":
            return self._resample_target(grid, target, options.anchor), grid
        if options.on_mismatch == "error" or options.level_mode == "exact":
            raise ValueError(
                f"{self.path}: no level has voxel size {target}; level {self.level_name} has {have}"
                f" (on_mismatch='error'); the levels are {self._level_listing(options)}; pass on_mismatch='keep', 'relabel' or 'resample'"
            )
        sizes, shifts = list(grid.voxel_size), list(grid.translation)
        for k, i in enumerate(spatial):  # relabel: voxel i stays voxel i, every world quantity scales
            ratio = target[k] / sizes[i]
            sizes[i], shifts[i] = target[k], shifts[i] * ratio
        relabelled = dataclasses.replace(grid, voxel_size=tuple(sizes), translation=tuple(shifts))
        return relabelled, relabelled

    def _resample_target(self, grid: ArrayMeta, target, anchor) -> ArrayMeta:
        """The target grid of Behaviour 4 over this level: the target voxels that meet the data, anchored at the corner or ``anchor``."""
        spatial = grid.spatial
        anchor = self._anchor(anchor, grid)
        shape, sizes, shifts = list(grid.shape), list(grid.voxel_size), list(grid.translation)
        for k, i in enumerate(spatial):
            size = grid.voxel_size[i]
            first, last = target_extent(grid.shape[i], size, grid.translation[i] - size / 2, target[k], anchor[k])
            shape[i], sizes[i], shifts[i] = last - first, target[k], anchor[k] + (first + 0.5) * target[k]
        self.resampled = True
        return dataclasses.replace(grid, shape=tuple(shape), voxel_size=tuple(sizes), translation=tuple(shifts))

    @staticmethod
    def _anchor(anchor, grid: ArrayMeta) -> tuple[float, ...]:
        """A target voxel corner per spatial axis: ``anchor`` when given, else the source grid's corner."""
        corner = tuple(grid.translation[i] - grid.voxel_size[i] / 2 for i in grid.spatial)
        if anchor is None:
            return corner
        values = (anchor,) if isinstance(anchor, (int, float)) else tuple(anchor)
        if len(values) != len(corner) or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            raise ValueError(f"anchor is {anchor!r}; expected {len(corner)} finite numbers, one per spatial axis")
        return tuple(float(v) for v in values)

    def _level_listing(self, options: Options) -> str:
        if not self._listed:
            return ", ".join(self.levels)
        return ", ".join(f"{name} {spatial_placement(p, options.units)[0]}" for name, p in self._listed)

    @staticmethod
    def _pinned_view(view: ts.TensorStore, pins: dict[int, int]) -> ts.TensorStore:
        """Pin non-spatial axes to one index each; pinned axes leave the view."""
        for index in sorted(pins, reverse=True):
            view = view[ts.d[index][pins[index]]]
        return view

    @staticmethod
    def _drop(grid: ArrayMeta, pins: dict[int, int]) -> ArrayMeta:
        for index in sorted(pins, reverse=True):
            grid = grid.drop_axis(index)
        return grid

    def _pins(self, grid: ArrayMeta, select) -> dict[int, int]:
        pins = {}
        for name, value in select.items():
            if name not in grid.axes:
                raise ValueError(f"select names axis {name!r}, which does not exist; the axes are {grid.axes}")
            index = grid.axes.index(name)
            if index in grid.spatial:
                raise ValueError(f"select names axis {name!r}, which is spatial; select pins non-spatial axes only")
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < grid.shape[index]:
                raise ValueError(f"select {name!r} is {value!r}; expected an index in [0, {grid.shape[index]})")
            pins[index] = int(value)
        return pins

    def _set_grid(self, grid: ArrayMeta) -> None:
        self.grid = grid
        self.shape = grid.shape
        self.dtype = np.dtype(grid.dtype)
        self.axes = grid.axes
        self.spatial = grid.spatial
        self.voxel_size = tuple(grid.voxel_size[i] for i in self.spatial)
        self.translation = tuple(grid.translation[i] for i in self.spatial)
        self.corner = tuple(t - s / 2 for t, s in zip(self.translation, self.voxel_size))
        self.remote = store.is_remote(self.level_path)
        self._floor_bytes = (16 if self.remote else 256) * _FLOOR_TIMEOUT * (1 << 20)
        # per-read constants: the centre rule's (translation, size) per axis, and the bytes per voxel
        self._centres = tuple(zip(grid.translation, grid.voxel_size))
        self._spatial_centres = tuple(self._centres[i] for i in self.spatial)
        self._itemsize = self.dtype.itemsize

    # ------------------------------------------------------------ properties

    @property
    def ts(self) -> ts.TensorStore:
        """The tensorstore: C-order axes, origin 0, selected axes dropped."""
        return self._store

    @property
    def box(self) -> Box:
        """The array's extent on the spatial axes: [corner, corner + shape * voxel_size)."""
        shape = [self.shape[i] for i in self.spatial]
        return Box(self.corner, tuple(c + n * s for c, n, s in zip(self.corner, shape, self.voxel_size)))

    @property
    def padding(self):
        """The default fill of read_index and read: a value the dtype holds, or "edge"."""
        return self._padding

    @padding.setter
    def padding(self, value) -> None:
        self._padding = check_padding(value, self.dtype)

    @property
    def method(self) -> str:
        return self._method

    @method.setter
    def method(self, value: str) -> None:
        one_of("method", value, METHODS)
        self._method = value

    @property
    def retries(self) -> Retry:
        """The retry policy of data reads; settable, and overridden per read by ``retries=``."""
        return self._retries

    @retries.setter
    def retries(self, value: Retry | None) -> None:
        if value is not None and not isinstance(value, Retry):
            raise ValueError(f"retries is {value!r}; expected a wa.Retry or None")
        self._retries = value if value is not None else Retry()

    # ------------------------------------------------------------ reading

    def read_index(self, begin, end, padding=None, mask=False, retries=None, select=None, transform=None):
        """Read voxels [begin, end) on every axis of .ts, padding what lies outside the data (Behaviour 1).

        Returns an array of shape end - begin, C-contiguous in native byte order; with ``mask=True``
        also a boolean array, True inside the data. A box wholly outside touches no storage (unless
        padding is "edge"); a box wholly inside is tensorstore's own array, without a copy. On a
        handle opened with a resample target, the indices are the target grid's (Behaviour 4).
        """
        view, shape, keep = self._store, self.shape, None
        if select is not None:
            view, keep = self._pinned(select)
            shape = tuple(self.shape[i] for i in keep)
        if len(begin) != len(shape) or len(end) != len(shape):
            raise ValueError(f"begin {tuple(begin)} and end {tuple(end)} must have {len(shape)} entries, one per axis {self.axes}")
        for b, e in zip(begin, end):
            if b > e:
                raise ValueError(f"begin {tuple(begin)} is after end {tuple(end)}")
        if self.resampled:
            return self._resampled(view, keep, begin, end, (self.voxel_size, self.corner), self._method,
                                   padding, mask, retries, transform, None)
        return self._read_voxels(view, shape, begin, end, padding, mask, retries, transform)

    def _read_voxels(self, view, shape, begin, end, padding, mask, retries, transform):
        """read_index after its checks: the one path every unresampled read takes."""
        if transform is None:
            transform = self._transform
        count = self._itemsize
        inside = True
        for b, e, n in zip(begin, end, shape):
            if b < 0 or e > n:
                inside = False
                break
            count *= e - b
        if inside:
            data = self._fetch(view[tuple(map(slice, begin, end))], count, retries)
            if transform is not None:
                data = transform(data)
            return (data, np.ones(data.shape, bool)) if mask else data
        fill = self._padding if padding is None else check_padding(padding, self.dtype)
        return read_clipped(view, shape, begin, end, fill, mask, transform, self._fetcher(retries))

    def _fetcher(self, retries):
        def fetch(part):
            return self._fetch(part, math.prod(part.shape) * self._itemsize, retries)

        return fetch

    def _fetch(self, view: ts.TensorStore, nbytes: int, retries: Retry | None):
        """Read a view under the retry policy; attempt 1 runs inline, the policy takes over only after a failure."""
        policy = retries or self._retries
        timeout = policy.timeout or (_FLOOR_TIMEOUT if nbytes <= self._floor_bytes else policy.attempt_timeout(nbytes, self.remote))
        future = view.read()
        try:
            return future.result(timeout=timeout)
        except Exception as error:
            return policy.recover(error, future, view.read, timeout, self.level_path)

    def _resampled(self, view, keep, begin, end, target, method, padding, mask, retries, transform, post_transform):
        """Target voxels [begin, end) of the grid ``target`` = (voxel sizes, corner) read from the source level (Behaviour 4)."""
        fill = self._padding if padding is None else check_padding(padding, self.dtype)
        source, (sizes, corner) = self._source_grid, target
        plans = []
        for position, axis in enumerate(keep if keep is not None else range(len(source.shape))):
            n = source.shape[axis]
            if axis in self.spatial:
                k = self.spatial.index(axis)
                size = source.voxel_size[axis]
                plans.append(plan_axis(begin[position], end[position], n, size, source.translation[axis] - size / 2,
                                       sizes[k], corner[k], method, fill == "edge"))
            else:
                plans.append(plan_identity(begin[position], end[position], n, fill == "edge"))
        transform = transform if transform is not None else self._transform
        return read_resampled(view, plans, fill, mask, transform, post_transform, self.dtype, self._fetcher(retries))

    def _pinned(self, select):
        pins = self._pins(self.grid, select)
        return self._pinned_view(self._store, pins), [i for i in range(len(self.shape)) if i not in pins]

    def index_box(self, box) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in a world box (Behaviour 2), on the axes the box covers."""
        return self._indices(box, self._spatial_centres)

    def _indices(self, box, spatial_centres) -> tuple[tuple[int, ...], tuple[int, ...]]:
        begin, end = _pair(box)
        if len(begin) == len(self.spatial):
            centres = spatial_centres
        elif len(begin) == len(self.axes):
            centres = list(self._centres)
            for k, i in enumerate(self.spatial):
                centres[i] = spatial_centres[k]
        else:
            raise ValueError(
                f"box {box!r} has {len(begin)} axes; expected {len(self.spatial)} (spatial {tuple(self.axes[i] for i in self.spatial)}) or {len(self.axes)} (every axis)"
            )
        first, last = [], []
        for b, e, (t, s) in zip(begin, end, centres):
            if e < b:
                raise ValueError(f"box begin {tuple(begin)} is after its end {tuple(end)}")
            first.append(ceil((b - t) / s - SNAP_TOLERANCE))  # geometry.ceil_snapped, inlined on the read path
            last.append(ceil((e - t) / s - SNAP_TOLERANCE))
        return tuple(first), tuple(last)

    def read(self, box, voxel_size=None, padding=None, method=None, mask=False, retries=None, strict=False,
             anchor=None, transform=None, post_transform=None, select=None):
        """Read a world box: the voxels whose centres lie in it (Behaviour 2), padded past the data.

        The box covers the spatial axes (other axes are read whole unless ``select`` pins them) or
        every axis, each in its converted unit (Behaviour 9). ``voxel_size`` other than the handle's
        resamples onto a grid of that size anchored at the source corner or at ``anchor`` (Behaviour 4).
        """
        target = None
        corner = self._anchor(anchor, self._source_grid) if anchor is not None else None
        if voxel_size is not None:
            sizes = self._per_spatial(voxel_size)
            if not same_sizes(sizes, self.voxel_size):  # at the handle's own size an anchor resamples nothing (A1)
                target = (sizes, corner or self._anchor(None, self._source_grid))
        if target is None and self.resampled:
            target = (self.voxel_size, self.corner)
        if method is not None:
            one_of("method", method, METHODS)
        if strict:
            self._check_aligned(box, target)
        if target is None:
            begin, end = self.index_box(box)
        else:
            begin, end = self._indices(box, tuple((c + t / 2, t) for c, t in zip(target[1], target[0])))
        if len(begin) == len(self.spatial) < len(self.shape):
            begin, end = self._whole(begin, end)
        view, shape, keep = self._store, self.shape, None
        if select is not None:
            view, keep = self._pinned(select)
            begin, end = [begin[i] for i in keep], [end[i] for i in keep]
            shape = tuple(self.shape[i] for i in keep)
        if target is not None:
            return self._resampled(view, keep, begin, end, target, method or self._method, padding, mask, retries,
                                   transform, post_transform)
        if post_transform is not None:
            transform = _then(transform or self._transform, post_transform)
        return self._read_voxels(view, shape, begin, end, padding, mask, retries, transform)

    def _per_spatial(self, voxel_size) -> tuple[float, ...]:
        sizes = positive_sizes("voxel_size", voxel_size)
        if len(sizes) == 1:
            return sizes * len(self.spatial)
        if len(sizes) != len(self.spatial):
            raise ValueError(f"voxel_size is {voxel_size!r}; expected one number or {len(self.spatial)}, one per spatial axis")
        return sizes

    def _whole(self, begin, end):
        first, last = [0] * len(self.shape), list(self.shape)
        for k, i in enumerate(self.spatial):
            first[i], last[i] = begin[k], end[k]
        return tuple(first), tuple(last)

    def _check_aligned(self, box, target=None) -> None:
        begin, end = _pair(box)
        centres = self._spatial_centres if target is None else tuple((c + t / 2, t) for c, t in zip(target[1], target[0]))
        if len(begin) != len(self.spatial):
            centres = [centres[self.spatial.index(i)] if i in self.spatial else self._centres[i] for i in range(len(self.axes))]
        for edge, (t, s) in (*zip(begin, centres), *zip(end, centres)):
            quotient = (edge - t) / s
            on_corner = snap_integral(quotient + 0.5).is_integer()
            on_centre = snap_integral(quotient).is_integer()
            if not (on_corner or on_centre):
                raise ValueError(f"box {box!r} edge {edge} lies on neither a voxel corner nor a voxel centre (strict=True)")

    def list_chunks(self) -> list[tuple[int, ...]]:
        """The chunk indices stored for this level, in C order over every stored axis, by listing its keys."""
        node = self._node
        return chunk_indices(self.meta.format, node.docs, node.path, self.meta.ndim, node.scale_key)

    # ------------------------------------------------------------ copies

    def reopen(self, context: ts.Context | None = None, **overrides) -> "WorldArray":
        """The same array opened again, on another context or with other open arguments."""
        options = dataclasses.replace(self._current_options(), **overrides)
        return _restore(type(self), self.path, options, context, self._extra_state())

    def _extra_state(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in _OWN_STATE}

    def _current_options(self) -> Options:
        """The open arguments with the settable defaults as they are now."""
        return dataclasses.replace(self._options, padding=self._padding, method=self._method, retries=self._retries)

    def __reduce__(self):
        return _restore, (type(self), self.path, self._current_options(), None, self._extra_state())

    def __repr__(self) -> str:
        axes = ", ".join(
            f"{a}: {n}" + (f" x {self.grid.voxel_size[i]:g} {self.grid.units[i]}".rstrip() + f" @ {self.grid.translation[i]:g}" if i in self.spatial else "")
            for i, (a, n) in enumerate(zip(self.axes, self.shape))
        )
        return f"{type(self).__name__}({self.level_path!r}, {self.meta.format} {self.dtype}, {{{axes}}}, placed_by={self.meta.placed_by!r})"


#: The array attribute that records ``create(store_fill=True)``.
STORE_FILL_KEY = "worldarray"


def _stores_fill(meta: ArrayMeta) -> bool:
    recorded = meta.attrs.get(STORE_FILL_KEY)
    return isinstance(recorded, Mapping) and recorded.get("store_fill") is True


def _restore(cls, path: str, options: Options, context, extra: dict):
    obj = cls.__new__(cls)
    obj.__dict__.update(extra)
    with store.document_timing(*(options.retries or Retry()).document_timing()):
        WorldArray._open(obj, path, options, context)
    return obj


_OWN_STATE = frozenset({
    "_node", "_listed", "_options", "_context", "path", "meta", "level_name", "levels", "level_path", "_store", "source_voxel_size",
    "source_translation", "resampled", "grid", "shape", "dtype", "axes", "spatial", "voxel_size", "translation",
    "corner", "remote", "_floor_bytes", "_source_grid", "_target_grid", "_centres", "_spatial_centres", "_itemsize", "_padding", "_method", "_retries", "_transform",
})


def _pair(box):
    if type(box) is tuple and len(box) == 2 and not isinstance(box[0], (int, float)):
        begin, end = box
        if len(begin) == len(end):
            return begin, end
    box = as_box(box)
    return box.begin, box.end


def _then(first, second):
    if first is None:
        return second
    return lambda data: second(first(data))


def open(path, **options) -> WorldArray:  # noqa: A001 - the package's own name for it
    """Open one level of a volume for reading in world coordinates; keywords as ``WorldArray``.

    >>> vol = wa.open("memory://demo/volume.zarr", voxel_size=8)  # doctest: +SKIP
    """
    return WorldArray(path, **options)


def create(path, shape, dtype, voxel_size, translation, axes=None, units="nanometer", chunks=None, shards=None,
           fill_value=0, codecs="zstd", format=None, attrs=None, group_attrs=None, exists="error", store_fill=False,
           context: ts.Context | None = None, retries: Retry | None = None) -> WorldArray:
    """Create a placed level of an OME-NGFF zarr pyramid and return it opened for writing (Behaviours 11 and 12).

    The group document comes first (made when absent; else only this level's dataset entry is added or
    replaced), then the array. Nothing is ever deleted, truncated or overwritten: ``exists="error"``
    raises FileExistsError for anything already at ``path``; ``exists="adopt"`` opens an identical array
    and raises ValueError listing every difference of another. Call it from one process at a time per
    group (the coordinator, never block jobs): the group document is read-modify-written without a lock.

    >>> vol = wa.create("out.zarr/s0", (64, 64, 64), "uint8", 8, 4, chunks=32)  # doctest: +SKIP
    """
    if store_fill:  # recorded with the array, so every later handle stores fill units too (A2)
        attrs = {**(attrs or {}), STORE_FILL_KEY: {"store_fill": True}}
    level = plan_level(path, shape, dtype, voxel_size, translation, axes, units, chunks, shards, fill_value, codecs,
                       format, attrs, group_attrs, exists)
    with store.document_timing(*(retries or Retry()).document_timing()):
        create_level(level, context if context is not None else shared_context(), retries)
    world = world_units(level.axes, units)
    return WorldArray(level.path, mode="r+", units=world, context=context, retries=retries, store_fill=store_fill)


def open_tensorstore(path, level: Any = None, context: ts.Context | None = None, *,
                     retries: Retry | None = None) -> ts.TensorStore:
    """Open the array ``path`` (and ``level``) names as a tensorstore with C-order axes and origin 0.

    Reads no world metadata, so an array with odd placement attributes still opens. N5 and
    precomputed are transposed to C order; a single-channel precomputed scale is (z, y, x).

    Raises
    ------
    FileNotFoundError
        When nothing is at ``path``.
    ValueError
        For a group path without a level, or a level that does not exist.
    """
    with store.document_timing(*(retries or Retry()).document_timing()):
        return open_array(resolve(path, level), context, retries=retries)


def metadata(path, level: Any = None, units: str | Mapping[str, str] | None = None, open: bool = True, *,
             metadata_conflicts: str = "error", strict_units: bool = True, context: ts.Context | None = None,
             retries: Retry | None = None) -> ArrayMeta:
    """Return what the documents of the array ``path`` (and ``level``) say, in the store's units or in ``units``.

    ``open=True`` also opens the array through tensorstore and takes shape and dtype from it;
    ``open=False`` reads the documents alone. Raises ValueError on a malformed document (naming its
    URL, key and value) and on a voxel-size conflict unless ``metadata_conflicts="warn"``.
    """
    with store.document_timing(*(retries or Retry()).document_timing()):
        found = resolve(path, level)
        meta = parse(source_of(found), metadata_conflicts=metadata_conflicts)
        opened = open_array(found, context, retries=retries) if open else None
    if opened is not None:
        meta = dataclasses.replace(meta, shape=tuple(int(n) for n in opened.shape), dtype=opened.dtype.numpy_dtype.name)
    return in_requested_units(meta, units, strict_units)
