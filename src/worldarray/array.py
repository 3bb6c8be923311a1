"""One WorldArray reads one level by voxel index or by world box; everything it knows is computed once, at open.

Opening chooses the level (``levels``), places it (``metadata``), puts it in the units asked for and applies the
level policy (``grid``), and keeps the tensorstore (``reach.open_array``). ``read_index`` clips, reads and pads;
``read`` maps a world box to voxels by their centres and then reads them, resampling when asked (``resample``). The
write methods hand over to ``write``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TYPE_CHECKING, overload

import numpy as np
from tensorstore import Context, TensorStore

from . import aligned, reading, retry, store
from .blocks import Blocks, blocks
from .diagnostics import UnitsWarning, warn
from .geometry import Box, BoxLike
from .grid import Grid, onto, target_grid
from .slips import unit_slip
from .handle import (METHODS, Index, Masked, Opened, Options, Padding, PathLike, Sizes, SizesOrNone, Transform,
                     checked_padding, open_level, pinned)
from .arguments import context_or_none, flag, index_bounds, one_of
from .indexing import ArrayProtocol
from .keys import chunk_indices, chunk_key, hashed_shards, key_format, parse_chunk_key
from .levels import Level
from .metadata import ArrayMeta
from .retry import Retry
from .units import NANOMETER, UnitsArgument

if TYPE_CHECKING:  # numpy.typing only annotates here
    from numpy.typing import ArrayLike

__all__ = ["WorldArray", "open"]

class WorldArray(ArrayProtocol):
    """One level of a zarr v2, zarr v3, N5 or precomputed volume, read by voxel index or by world box.

    ``wa.open`` is this class. Reads may run from several threads at once; a handle pickles by its arguments
    (the path made absolute at open), and a subclass pickles as itself with its own attributes.

    Parameters
    ----------
    path
        An array, a level under a multiscale group, or a group.
    level
        A level name ("s1"), a position (0 or "first" for the first listed), or None; ignored, with a warning, for an
        array path.
    voxel_size
        The size to read at, in ``units``, one number or one per spatial axis: it picks the level by ``level_mode``.
        An entry None leaves that axis out of the choice; it keeps the chosen level's voxel size.
    level_mode
        "floor", "finer", "exact", "nearest" or "resample".
    on_mismatch
        When no level has ``voxel_size``: "error" (list the levels), "resample" (resample the level ``level_mode``
        picks), "relabel" (read it voxel for voxel and call its voxels ``voxel_size``) or "keep".
    padding
        What fills the part of a read outside the data: a value the dtype holds, or "edge"; settable.
    method
        The resampling kernel, "nearest" or "linear"; settable.
    select
        Non-spatial axes pinned to one index, such as ``{"c": 0}``; else they are kept whole.
    units
        What world coordinates are in on spatial axes (a unit name), by kind of axis
        (``{"space": "micrometer", "time": "second"}``), one per axis, or None for the store's own.
    context
        A tensorstore.Context; by default ``wa.shared_context()``, sized to the thread budget.
    retries
        The retry policy of reads and writes, and of the documents the open reads; settable.
    metadata_conflicts
        "error" or "warn": what a per-array voxel size that disagrees with the OME scale, or a level placed
        otherwise than its group lists it, does.
    base_voxel_size, base_units
        Level 0's true voxel size (in ``base_units``, by default the unit of ``units``): every level's spatial voxel
        size and translation scale with it, for stores whose metadata is in voxels or unitless.
    anchor
        Where a target voxel corner lies when resampling; the source corner by default.
    transform
        A function applied to stored values before resampling and padding (a normalisation chain).
    strict_units
        False: an unknown unit ("pixel") is taken as the target unit, with a warning.
    mode
        "r", or "r+" to write.
    store_fill
        Store write units whose values all equal the fill value (by default they are left absent).
    array
        The array inside each level of a ``multiscales`` layout whose level groups hold several.

    Raises
    ------
    FileNotFoundError
        When nothing is at ``path``.
    ValueError
        For a group path without a level, a level that does not exist, a voxel size no level has under
        ``on_mismatch="error"``, a malformed document (naming its URL, key and value), or a bad argument.

    Examples
    --------
    >>> _ = wa.create("memory://doc/open.zarr/s0", (8, 8, 8), "uint8", voxel_size=4, translation=2, chunks=4)
    >>> vol = wa.open("memory://doc/open.zarr", level="s0")
    >>> vol.voxel_size, vol.translation, vol.corner
    ((4.0, 4.0, 4.0), (2.0, 2.0, 2.0), (0.0, 0.0, 0.0))

    Subclasses may override ``read`` and ``read_index`` (call the base class for the voxels), set other defaults
    by passing them to ``super().__init__``, and keep attributes of their own, which pickle with the handle.
    """

    _opened: Opened
    _options: Options
    _context: Context | None

    def __init__(self, path: PathLike, *, level: Level = None, voxel_size: SizesOrNone | None = None,
                 level_mode: str = "floor", on_mismatch: str = "error", padding: Padding = 0, method: str = "nearest",
                 select: Mapping[str, int] | None = None, units: UnitsArgument = NANOMETER,
                 context: Context | None = None, retries: Retry | None = None, metadata_conflicts: str = "error",
                 base_voxel_size: Sizes | None = None, base_units: str | None = None, anchor: Sizes | None = None,
                 transform: Transform | None = None, strict_units: bool = True, mode: str = "r",
                 store_fill: bool = False, array: str | None = None) -> None:
        options = Options(level=level, voxel_size=voxel_size, level_mode=level_mode, on_mismatch=on_mismatch,
                          padding=padding, method=method, select=select, units=units, retries=retries,
                          metadata_conflicts=metadata_conflicts, base_voxel_size=base_voxel_size,
                          base_units=base_units, anchor=anchor, transform=transform, strict_units=strict_units,
                          mode=mode, store_fill=store_fill, array=array)
        self._open(store.normalize(path), options, context_or_none(context))

    def _open(self, path: str, options: Options, context: Context | None) -> None:
        with retry.governing(options.retries):
            opened = open_level(path, options, context)
        checked_padding(options.padding, opened.frame.dtype)
        self.__dict__.update(_opened=opened, _options=options, _context=context)
        if opened.frame.resampled:  # a resample target set at open
            self._warn_slip(opened.frame.voxel_size, opened.source_voxel_size)

    # ------------------------------------------------------------ what the handle is

    @property
    def path(self) -> str:
        """What the caller passed (a group, say), normalised; ``level_path`` is the array actually opened."""
        return self._opened.path

    @property
    def level_path(self) -> str:
        return self._opened.level_path

    @property
    def level_name(self) -> str:
        return self._opened.level_name

    @property
    def levels(self) -> tuple[str, ...]:
        """The names of the levels of the pyramid this array belongs to (itself alone when it has none)."""
        return self._opened.levels

    @property
    def meta(self) -> ArrayMeta:
        """The stored level's ArrayMeta, in the store's own units."""
        return self._opened.meta

    @property
    def crs(self) -> dict[str, Any] | None:
        """The CRS as the placing document stores it: the ``proj:`` attributes (``spatial``), or the grid-mapping
        variable's attributes (``grid_mapping``); None for an array neither rule placed."""
        return None if self._opened.meta.crs is None else dict(self._opened.meta.crs)

    @property
    def grid(self) -> ArrayMeta:
        """The handle's grid in the units asked for, every axis: a resample target's, pinned axes gone."""
        return self._opened.frame.meta

    @property
    def ts(self) -> TensorStore:
        """The tensorstore: C-order axes, origin 0, selected axes dropped."""
        return self._opened.store

    @property
    def shape(self) -> tuple[int, ...]:
        """The stored shape, or with a resample target the target voxels covering the data."""
        return self._opened.frame.meta.shape

    @property
    def dtype(self) -> np.dtype:
        return self._opened.frame.dtype

    @property
    def axes(self) -> tuple[str, ...]:
        return self._opened.frame.meta.axes

    @property
    def spatial(self) -> tuple[int, ...]:
        """Indices of the spatial axes (named z, y or x; else the last three not named time or channel)."""
        return self._opened.frame.spatial

    @property
    def voxel_size(self) -> tuple[float, ...]:
        """The voxel size on the spatial axes, in the units asked for."""
        return self._opened.frame.voxel_size

    @property
    def translation(self) -> tuple[float, ...]:
        """The centre of voxel 0 on the spatial axes, in the units asked for."""
        return self._opened.frame.translation

    @property
    def corner(self) -> tuple[float, ...]:
        """The lower corner of voxel 0 on the spatial axes: translation less half a voxel."""
        return self._opened.frame.corner

    @property
    def box(self) -> Box:
        """The extent on the spatial axes: [corner, corner + shape * voxel_size)."""
        return self._opened.frame.box

    @property
    def source_voxel_size(self) -> tuple[float, ...]:
        """The stored level's spatial voxel size in the units asked for (under relabel or a resample target too)."""
        return self._opened.source_voxel_size

    @property
    def source_translation(self) -> tuple[float, ...]:
        """The stored level's spatial translation in the units asked for."""
        return self._opened.source_translation

    @property
    def resampled(self) -> bool:
        """Whether reads resample to a target voxel size set at open."""
        return self._opened.frame.resampled

    @property
    def context(self) -> Context:
        """The tensorstore.Context the handle reads and writes through: the one given at open, else the process's
        ``wa.shared_context()`` (so a pickled handle on the default reports the receiving process's own)."""
        return self._opened.reach.context

    @property
    def selected(self) -> dict[str, int]:
        """The axes ``select`` pinned at open, each with its index; empty when none are."""
        stored = self._opened.frame.stored.axes
        return {stored[axis]: index for axis, index in self._opened.frame.pins}

    @property
    def remote(self) -> bool:
        """Whether the array is on s3, gs or an http(s) server."""
        return self._opened.remote

    @property
    def padding(self) -> Padding:
        """The default fill of read_index and read: a value the dtype holds, or "edge"."""
        return self._options.padding

    @padding.setter
    def padding(self, value: Padding) -> None:
        self._options = dataclasses.replace(self._options, padding=checked_padding(value, self.dtype))

    @property
    def method(self) -> str:
        """The default resampling kernel of read: "nearest" or "linear"."""
        return self._options.method

    @method.setter
    def method(self, value: str) -> None:
        self._options = dataclasses.replace(self._options, method=value)

    @property
    def retries(self) -> Retry:
        """The retry policy of reads and writes; settable, and overridden per call by ``retries=``."""
        return self._options.retries or Retry()

    @retries.setter
    def retries(self, value: Retry | None) -> None:
        self._options = dataclasses.replace(self._options, retries=value)

    # ------------------------------------------------------------ reading

    @overload
    def read_index(self, begin: Index, end: Index, padding: Padding | None = None, *, mask: Literal[False] = False,
                   retries: Retry | None = None, select: Mapping[str, int] | None = None,
                   transform: Transform | None = None) -> np.ndarray: ...

    @overload
    def read_index(self, begin: Index, end: Index, padding: Padding | None = None, *, mask: Literal[True],
                   retries: Retry | None = None, select: Mapping[str, int] | None = None,
                   transform: Transform | None = None) -> Masked: ...

    def read_index(self, begin: Index, end: Index, padding: Padding | None = None, *, mask: bool = False,
                   retries: Retry | None = None, select: Mapping[str, int] | None = None,
                   transform: Transform | None = None) -> np.ndarray | Masked:
        """Read voxels [begin, end) on every axis of ``.ts``, padding what lies outside the data.

        Parameters
        ----------
        begin, end
            The voxel box, one entry per axis of the handle (the target grid's, on a resampled handle).
        padding
            The fill outside the data for this read (a value the dtype holds, or "edge"); the handle's by default.
        mask
            Also return a boolean array, True inside the data.
        retries
            The retry policy of this read; the handle's by default.
        select
            Non-spatial axes pinned for this read only; ``begin`` and ``end`` then cover the rest.
        transform
            Applied to stored values before padding, instead of the handle's.

        Returns
        -------
        numpy.ndarray, or (array, mask) with ``mask=True``
            Shape ``end - begin``, C-contiguous in native byte order. A box wholly outside touches no storage
            (unless padding is "edge"); a box wholly inside is tensorstore's own array, without a copy.

        Examples
        --------
        >>> vol = wa.create("memory://doc/read_index.zarr/s0", (4, 4), "uint8", 1, 0.5, axes=("y", "x"), chunks=4)
        >>> vol.write_index((0, 0), (4, 4), 7)
        >>> vol.read_index((2, 2), (6, 6), padding=0)[:, 0]
        array([7, 7, 0, 0], dtype=uint8)
        """
        opened = self._opened
        begin, end = index_bounds("begin", begin), index_bounds("end", end)
        view, shape, kept = opened.store, opened.shape, None
        if select is not None:
            view, kept = self._pinned(select)
            shape = tuple(shape[i] for i in kept)
        if len(begin) != len(shape) or len(end) != len(shape):
            raise ValueError(f"begin {tuple(begin)} and end {tuple(end)} must have {len(shape)} entries, one per axis "
                             f"{self.axes}")
        for b, e in zip(begin, end, strict=True):
            if b > e:
                raise ValueError(f"begin {tuple(begin)} is after end {tuple(end)}")
        read = reading.Read(view, shape, begin, end, padding, mask, retries, transform, kept=kept)
        if opened.frame.resampled:
            target = (opened.frame.voxel_size, opened.frame.corner)
            return reading.resampled(opened, self._options, read, target, self._options.method)
        return reading.voxels(opened, self._options, read)

    def _pinned(self, select: Mapping[str, int]) -> tuple[TensorStore, list[int]]:
        pins, kept = self._opened.frame.kept(select)
        return pinned(self._opened.store, pins), kept

    def index_box(self, box: BoxLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The voxels whose centres lie in a world box, on the axes the box covers (spatial, or every
        axis).

        >>> vol = wa.create("memory://doc/index_box.zarr/s0", (8,), "uint8", 4, 2, axes=("x",), chunks=8)
        >>> vol.index_box(((0.0,), (16.0,)))
        ((0,), (4,))
        """
        return self._opened.frame.index_box(box)

    @overload
    def read(self, box: BoxLike, voxel_size: SizesOrNone | None = None, *, padding: Padding | None = None,
             method: str | None = None, mask: Literal[False] = False, retries: Retry | None = None,
             strict: bool = False, anchor: Sizes | None = None, transform: Transform | None = None,
             post_transform: Transform | None = None, select: Mapping[str, int] | None = None) -> np.ndarray: ...

    @overload
    def read(self, box: BoxLike, voxel_size: SizesOrNone | None = None, *, padding: Padding | None = None,
             method: str | None = None, mask: Literal[True], retries: Retry | None = None,
             strict: bool = False, anchor: Sizes | None = None, transform: Transform | None = None,
             post_transform: Transform | None = None, select: Mapping[str, int] | None = None) -> Masked: ...

    def read(self, box: BoxLike, voxel_size: SizesOrNone | None = None, *, padding: Padding | None = None,
             method: str | None = None, mask: bool = False, retries: Retry | None = None, strict: bool = False,
             anchor: Sizes | None = None, transform: Transform | None = None, post_transform: Transform | None = None,
             select: Mapping[str, int] | None = None) -> np.ndarray | Masked:
        """Read a world box: the voxels whose centres lie in it, padded past the data.

        Parameters
        ----------
        box
            A (begin, end) pair, a ``wa.Box`` or a funlib Roi, over the spatial axes (other axes are read whole
            unless ``select`` pins them) or over every axis, each in its converted unit.
        voxel_size
            Another size than the handle's resamples onto a grid of that size anchored at the source corner, or at
            ``anchor``. An entry None keeps the handle's own voxels on that axis, where an ``anchor``
            entry must lie on a voxel corner.
        padding, mask, retries, select, transform
            As ``read_index``.
        method
            The resampling kernel for this read, "nearest" or "linear"; the handle's by default.
        strict
            Raise unless every edge of the box lies on a voxel corner or centre.
        anchor
            A world position of a target voxel corner, one number or one per spatial axis.
        post_transform
            Applied after resampling and the cast back, before padding.

        Returns
        -------
        numpy.ndarray, or (array, mask) with ``mask=True``

        Examples
        --------
        >>> vol = wa.create("memory://doc/read.zarr/s0", (8,), "uint8", 4, 2, axes=("x",), chunks=8)
        >>> vol.write_index((0,), (8,), np.arange(8, dtype="uint8"))
        >>> vol.read(((8.0,), (24.0,))), vol.read(((0.0,), (16.0,)), voxel_size=8)
        (array([2, 3, 4, 5], dtype=uint8), array([1, 3], dtype=uint8))
        """
        opened = self._opened
        frame = opened.frame
        if method is not None:
            one_of("method", method, METHODS)
        target = None
        if voxel_size is not None or anchor is not None or frame.resampled:
            target = target_grid(frame, voxel_size, anchor)
            if voxel_size is not None and target is not None and "_slip" not in self.__dict__:
                self._warn_slip(target[0])
        if strict:
            frame.check_aligned(box, target)
        begin, end = frame.index_box(box, target)
        return self._read_box(begin, end, target, padding, method, mask, retries, transform, post_transform, select)

    @overload
    def read_onto(self, grid: Grid | WorldArray, begin: Index | None = None, end: Index | None = None, *,
                  padding: Padding | None = None, method: str | None = None, mask: Literal[False] = False,
                  retries: Retry | None = None, transform: Transform | None = None,
                  post_transform: Transform | None = None, select: Mapping[str, int] | None = None) -> np.ndarray: ...

    @overload
    def read_onto(self, grid: Grid | WorldArray, begin: Index | None = None, end: Index | None = None, *,
                  padding: Padding | None = None, method: str | None = None, mask: Literal[True],
                  retries: Retry | None = None, transform: Transform | None = None,
                  post_transform: Transform | None = None, select: Mapping[str, int] | None = None) -> Masked: ...

    def read_onto(self, grid: Grid | WorldArray, begin: Index | None = None, end: Index | None = None, *,
                  padding: Padding | None = None, method: str | None = None, mask: bool = False,
                  retries: Retry | None = None, transform: Transform | None = None,
                  post_transform: Transform | None = None, select: Mapping[str, int] | None = None
                  ) -> np.ndarray | Masked:
        """Read the voxels [begin, end) of a ``wa.Grid``'s spatial axes (the whole grid by default), exactly
        ``end - begin`` on each, from this array; other axes as ``read`` reads them. Another handle stands for
        its grid (``vol.grid``, in its units), so ``s0.read_onto(s1)`` fills level s1 from s0.

        At this array's voxel size nothing is resampled, whatever the sub-voxel shift between the grids: each grid
        voxel takes the stored voxel whose centre lies in it, under either method. At another size the array is
        resampled onto the grid. The grid's units are converted to the handle's; its spatial axis
        names must be the handle's (ValueError naming both). The keywords are ``read``'s.

        >>> vol = wa.create("memory://doc/onto.zarr/s0", (8,), "uint8", 4, 2, axes=("x",), chunks=8)
        >>> vol.write_index((0,), (8,), np.arange(8, dtype="uint8"))
        >>> vol.read_onto(wa.Grid(3, 4, 5.5, axes=("x",)))
        array([1, 2, 3], dtype=uint8)
        """
        if method is not None:
            one_of("method", method, METHODS)
        if isinstance(grid, WorldArray):
            grid = Grid.from_meta(grid.grid)
        begin, end, target = onto(self._opened.frame, grid, begin, end)
        return self._read_box(begin, end, target, padding, method, mask, retries, transform, post_transform, select)

    def _warn_slip(self, sizes: Sequence[float], have: Sequence[float] | None = None) -> None:
        """Warn once per handle of a voxel size that looks given in other units (``slips.unit_slip``)."""
        message = unit_slip(self._opened.frame, sizes, have)
        if message is not None:
            self.__dict__["_slip"] = True
            warn(message, UnitsWarning)

    def _read_box(self, begin, end, target, padding, method, mask, retries, transform, post_transform, select):
        """Voxels [begin, end) over the spatial axes or every axis: of ``target`` when given, else stored."""
        opened = self._opened
        frame = opened.frame
        if len(begin) < len(opened.shape):
            begin, end = frame.whole(begin, end)
        view, shape, kept = opened.store, opened.shape if not frame.resampled else frame.source.shape, None
        if select is not None:
            view, kept = self._pinned(select)
            begin, end = tuple(begin[i] for i in kept), tuple(end[i] for i in kept)
            shape = tuple(shape[i] for i in kept)
        read = reading.Read(view, shape, begin, end, padding, mask, retries, transform, post_transform, kept)
        if target is not None:
            return reading.resampled(opened, self._options, read, target, method or self._options.method)
        return reading.voxels(opened, self._options, read)

    def list_chunks(self) -> list[tuple[int, ...]]:
        """The write units stored for this level, by listing its keys, in C order over the handle's axes: under
        ``select`` the units holding the pinned indices, pinned axes gone (the stored level's units on a resampled
        handle, as ``chunks_covering`` names them)."""
        node, frame = self._opened.node, self._opened.frame
        listed = chunk_indices(self.meta.format, node.docs, node.path, self.meta.ndim, node.scale_key)
        return frame.handle_units(listed)

    # ------------------------------------------------------------ writing

    @property
    def writable(self) -> bool:
        """True when the handle was opened for writing (mode="r+")."""
        return self._options.mode == "r+"

    @property
    def write_shape(self) -> tuple[int, ...]:
        """The unit one writer may own: the shard shape when sharded, else the chunk shape."""
        return self._opened.frame.write_shape

    def blocks(self, block_shape: int | Sequence[int] | None = None, context: Any = 0,
               box: tuple[Index, Index] | None = None, clip: bool = True) -> Blocks:
        """``wa.blocks`` over this handle's shape, ``block_shape`` by default its ``write_shape``, so default blocks
        are aligned writes."""
        return blocks(self.shape, self.write_shape if block_shape is None else block_shape, context, box, clip)

    def chunks_covering(self, begin: Index, end: Index, write: bool = False) -> list[tuple[int, ...]]:
        """The indices of the chunks (with ``write=True`` the write units) that the voxel box [begin, end) touches,
        over the handle's axes; on a resampled handle, the stored chunks a read of those target voxels with
        ``vol.method`` takes voxels from."""
        return self._opened.frame.chunks_covering(begin, end, write, self._options.method)

    def chunk_key(self, index: Index) -> str:
        """The storage key, relative to the array, of the write unit at ``index`` (the handle's axes, each pinned
        axis's unit filled in); fewer entries give the key prefix of those leading axes."""
        node = self._opened.node
        unit = self._opened.frame.unit_index(index)
        return chunk_key(unit, self.meta.format, **key_format(self.meta.format, node.docs, node.scale_key))

    def parse_chunk_key(self, key: str) -> tuple[int, ...] | None:
        """The handle's index of the write unit a storage key names, or None for a key that is not one of its units."""
        node = self._opened.node
        index = parse_chunk_key(key, self.meta.format, **key_format(self.meta.format, node.docs, node.scale_key))
        return self._opened.frame.handle_unit(index)

    def write_index(self, begin: Index, end: Index, data: ArrayLike, partial: bool = False, *,
                    retries: Retry | None = None) -> None:
        """Write ``data`` into voxels [begin, end): exact shape and dtype, whole write units unless ``partial``.

        A scalar fills the box when the dtype holds it exactly. An axis ``select`` pinned counts as [index,
        index + 1), so one whose write unit holds more than one index needs ``partial``. ``partial=True`` lifts the
        alignment check and does tensorstore's read-modify-write of the units it touches, unsafe while anything else
        writes the same unit. The write has committed when the call returns; it is timed out and retried under
        ``retries`` as reads are. A refused write raises ValueError naming the array (``level_path``).
        """
        self._check_writable()
        flag("partial", partial)
        node = self._opened.node
        aligned.write_index(self._opened.frame, self._opened.store, begin, end, data, partial=partial,
                          policy=retries or self.retries, path=self.level_path, remote=self.remote,
                          reach=self._opened.reach, hashed=hashed_shards(node.format, node.docs, node.scale_key))

    def write_chunk(self, index: Index, data: ArrayLike, *, retries: Retry | None = None) -> None:
        """Write the write unit at ``index`` (the handle's axes) whole: ``data`` of that unit's clipped shape, or a
        scalar that fills it; timed out and retried as ``write_index`` is."""
        try:
            begin, end = self._opened.frame.unit_box(index)
        except ValueError as error:
            raise ValueError(f"{self.level_path}: {error}") from None
        self.write_index(begin, end, data, retries=retries)

    def write(self, box: BoxLike, data: ArrayLike, partial: bool = False, *,
              retries: Retry | None = None) -> None:
        """Write a world box: the voxels whose centres lie in it, then ``write_index``; nothing is
        padded or resampled on write."""
        self._check_writable()
        begin, end = aligned.box_voxels(self._opened.frame, box, self.level_path)
        self.write_index(begin, end, data, partial, retries=retries)

    def _check_writable(self) -> None:
        if not self.writable:
            raise ValueError(f"{self.level_path}: opened with mode={self._options.mode!r}; open with mode='r+' to "
                             "write")
        if self.resampled:
            raise ValueError(f"{self.level_path}: a handle with a resample target is not written; nothing is "
                             "resampled on write")

    # ------------------------------------------------------------ viewing, reopening, pickling

    def neuroglancer_layer(self, url: str | None = None, *, name: str | None = None) -> dict[str, Any]:
        """A Neuroglancer layer showing the stored voxels where this handle places them (``neuroglancer.layer``);
        ``url`` is the http(s), s3 or gs address ``path`` is served at, needed for a local store."""
        from . import neuroglancer  # imported when first asked: a process that never shows a layer never loads it
        return neuroglancer.layer(self, url, name=name)

    def reopen(self, context: Context | None = None, **overrides: Any) -> WorldArray:
        """The same array opened again, on another context or with other open arguments (``open``'s keywords)."""
        options = dataclasses.replace(self._options, **overrides)
        return _restore(type(self), self.path, options, context, self._own_attributes())

    def _own_attributes(self) -> dict[str, Any]:
        """The attributes a subclass added, which pickle and reopen with the handle."""
        return {k: v for k, v in self.__dict__.items() if k not in _STATE}

    def __reduce__(self) -> tuple[Any, ...]:
        return _restore, (type(self), self.path, self._options, None, self._own_attributes())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._opened.describe()})"


#: The attributes ``WorldArray._open`` sets; every other attribute is a subclass's and pickles with the handle.
_STATE = frozenset({"_opened", "_options", "_context", "_slip"})


def _restore(cls: type[WorldArray], path: str, options: Options, context: Context | None,
             extra: dict[str, Any]) -> WorldArray:
    obj = cls.__new__(cls)
    obj.__dict__.update(extra)
    WorldArray._open(obj, path, options, context)
    return obj


#: ``wa.open(path, ...)`` opens one level for reading in world coordinates: the WorldArray constructor itself.
open = WorldArray  # noqa: A001 - the package's own name for it

