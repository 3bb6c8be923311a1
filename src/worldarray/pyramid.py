"""A pyramid is the levels a group lists, placed from the group's own document so that choosing one opens nothing.

Opened by its group path or by one of its level paths, a Pyramid reads the group document once; levels open as
WorldArrays only when asked for, and ``level=`` means here what it means to ``wa.open`` (``levels.pick``). A level is
added to a pyramid, new or existing, by ``create`` (or ``Pyramid.add_level``, which derives its placement and shape
from factors); the documents and the array are ``write``'s.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NoReturn, TYPE_CHECKING, overload

import tensorstore as ts

from . import retry, rounds, store, write
from .array import WorldArray
from .detect import Gathered, gather, probe, source_of
from .diagnostics import quiet
from .fields import Placement
from .formats import FORMATS
from .factors import derived_level
from .geometry import voxel_volume
from .grid import Grid, spatial_placement
from .arguments import context_or_none, flag, mapping_or_none, one_of, retries_or_none
from .handle import MODES, PathLike, Sizes, SizesOrNone
from .paths import plain_name, plain_target
from .levels import Level, group_source, listed_by_parent, pick, select_level
from .locate import level_array, level_names, refuse_bioformats2raw
from .metadata import ArrayMeta, level_placements, parse
from .ome import first_listing
from .ome_write import group_axis_types
from .units import NANOMETER, Request, UnitsArgument
from .write import Codecs, codecs_of

if TYPE_CHECKING:  # numpy.typing only annotates here
    from numpy.typing import DTypeLike

__all__ = ["Pyramid", "open_pyramid", "create"]


def _group_of(found: Gathered) -> Gathered:
    """The group a path names, or the group whose document lists the array a path names."""
    node = found.node
    if node.kind == "group":
        return found
    if FORMATS[node.format].levels_in_info:
        return gather(node.path)
    listing = listed_by_parent(found)
    if listing is not None:
        return gather(listing.group)
    raise ValueError(f"{node.path}: is an array that no parent multiscales lists; open it with wa.open, or open its "
                     "group")


def create(path: PathLike, shape: int | Sequence[int] | None = None, dtype: DTypeLike | None = None,
           voxel_size: Sizes | None = None, translation: Sizes | None = None, *, grid: Grid | None = None,
           axes: Sequence[str] | None = None, units: UnitsArgument = None,
           chunks: int | Sequence[int] | None = None,
           shards: int | Sequence[int] | None = None, fill_value: float = 0, codecs: Codecs = "zstd",
           format: str | None = None, attrs: Mapping[str, Any] | None = None,
           group_attrs: Mapping[str, Any] | None = None, exists: str = "error", store_fill: bool = False,
           axis_types: Sequence[str | None] | None = None, context: ts.Context | None = None,
           retries: retry.Retry | None = None) -> WorldArray:
    """Create a placed level of an OME-NGFF zarr pyramid and return it opened for writing.

    The array comes first, then its dataset entry in the group document, written conditionally (``write``); nothing
    is deleted, truncated or overwritten, and a consolidated copy above it stays true (``consolidated``).

    Parameters
    ----------
    path
        ".../vol.zarr/s0": the last component is the level, its parent the multiscale group, made if absent.
    shape, dtype, voxel_size, translation
        The array's shape (C order), numpy data type and spatial placement in ``units``: one number for every spatial
        axis, one per spatial axis, or one per axis. ``translation`` is the centre of voxel 0.
    grid
        A ``wa.Grid`` that gives shape, placement, axes, units, chunks and shards instead (none of them given too).
    axes, units
        Axis names (default ``wa.default_axes(ndim)``) and units (default "nanometer"), as ``wa.ome_multiscales``
        takes them.
    axis_types
        Per axis, its OME type: "space", "time", "channel", a custom type's name, or None for the type the name
        implies (z y x space, t time, c channel; another spatial axis space). Needed for an axis whose name implies
        no type (a "q", an "angle", a "band"); "space" goes on the spatial axes exactly, as ``wa.ome_multiscales``.
    chunks, shards
        The storage chunk, required (the inner chunk when sharded; the package never picks one), and the shard shape
        (zarr v3 only), a whole number of chunks per axis.
    fill_value, codecs
        The fill value, and "zstd" (level 3), "none", a zarr v2 compressor dict or a zarr v3 codecs list.
    format
        "zarr3" or "zarr2"; by default the group's (else its nearest existing ancestor's), else "zarr3".
    attrs, group_attrs
        Extra array and group attributes; no one else's group key is dropped or rewritten.
    exists
        "error": anything at ``path`` raises FileExistsError; "adopt": an identical array is opened, and a
        different one raises ValueError listing each difference with the value found and wanted.
    store_fill, context, retries
        Store write units equal to the fill value instead of leaving them absent (recorded with the array); the
        others as ``wa.open``.

    Returns
    -------
    WorldArray
        Writable, in ``units``.

    Examples
    --------
    >>> vol = wa.create("memory://doc/create.zarr/s0", (64, 64, 64), "uint8", 8, 4, chunks=32)
    >>> vol.writable, vol.write_shape, vol.corner
    (True, (32, 32, 32), (0.0, 0.0, 0.0))
    """
    path = plain_target("path", path)  # every argument is checked before anything is written
    context_or_none(context), retries_or_none(retries), flag("store_fill", store_fill)
    mapping_or_none("attrs", attrs), mapping_or_none("group_attrs", group_attrs)
    if grid is not None:
        shape, voxel_size, translation, axes, units, chunks, shards = _grid_facts(
            grid, shape=shape, voxel_size=voxel_size, translation=translation, axes=axes, units=units, chunks=chunks,
            shards=shards)
    if shape is None or dtype is None or voxel_size is None or translation is None:
        _refuse_missing(path, shape=shape, dtype=dtype, voxel_size=voxel_size, translation=translation)
    units = NANOMETER if units is None else units
    if store_fill:  # recorded with the array, so every later handle stores fill units too (A2)
        attrs = {**(attrs or {}), write.STORE_FILL_KEY: {"store_fill": True}}
    level = write.plan_level(path, shape=shape, dtype=dtype, voxel_size=voxel_size, translation=translation,
                             axes=axes, units=units, chunks=chunks, shards=shards, fill_value=fill_value,
                             codecs=codecs, format=format, attrs=attrs, group_attrs=group_attrs, exists=exists,
                             axis_types=axis_types)
    with retry.governing(retries):
        write.create_level(level, context)
    return WorldArray(level.path, mode="r+", units=units, context=context, retries=retries, store_fill=store_fill)


def _refuse_missing(path: str, **given: Any) -> NoReturn:
    """ValueError naming every fact ``create`` was not given (and no grid gave)."""
    missing = [name for name, value in given.items() if value is None]
    raise ValueError(f"create {path}: {', '.join(missing)} not given; give shape, dtype, voxel_size and "
                     "translation, or grid and dtype")


class _Levels(Sequence[WorldArray]):
    """A pyramid's levels as a sequence that opens a level when it is first indexed."""

    def __init__(self, pyramid: Pyramid) -> None:
        self._pyramid = pyramid

    def __len__(self) -> int:
        return len(self._pyramid.names)

    @overload
    def __getitem__(self, index: int) -> WorldArray: ...

    @overload
    def __getitem__(self, index: slice) -> list[WorldArray]: ...

    def __getitem__(self, index: int | slice) -> WorldArray | list[WorldArray]:
        names = self._pyramid.names
        if isinstance(index, slice):
            return [self._pyramid.by_name(name) for name in names[index]]
        return self._pyramid.by_name(names[index])

    def __iter__(self) -> Iterator[WorldArray]:
        return (self._pyramid.by_name(name) for name in self._pyramid.names)

    def __repr__(self) -> str:
        return f"<{len(self)} levels of {self._pyramid.path!r}, opened when indexed>"


def _grid_facts(grid: Grid, **given: Any) -> tuple[Any, ...]:
    """What a grid gives ``create``: shape, voxel size, translation, axes, units, chunks and shards, each once."""
    if not isinstance(grid, Grid):
        raise ValueError(f"grid is a {type(grid).__name__}; expected a wa.Grid")
    twice = [name for name, value in given.items() if value is not None]
    if twice:
        raise ValueError(f"grid is given with {', '.join(twice)}; the grid holds them, so give each once")
    if grid.chunks is None:
        raise ValueError(f"grid {grid!r} has no chunks; create needs the storage chunk: wa.Grid(..., chunks=...)")
    meta = grid.frame.meta
    return meta.shape, meta.voxel_size, meta.translation, meta.axes, meta.units, grid.chunks, grid.shards


class Pyramid:
    """The levels of one multiscale group, listed, placed and chosen from the group document.

    Built by ``wa.open_pyramid``; see there for the arguments.
    """

    def __init__(self, path: PathLike, *, context: ts.Context | None = None, units: UnitsArgument = NANOMETER,
                 select: Mapping[str, int] | None = None, metadata_conflicts: str = "error", mode: str = "r",
                 retries: retry.Retry | None = None, array: str | None = None) -> None:
        one_of("mode", mode, MODES)
        if array is not None:
            plain_name("array", array)
        one_of("metadata_conflicts", metadata_conflicts, ("error", "warn"))
        Request.checked(units)  # a unit converted to is checked before any placement is reported
        context_or_none(context), retries_or_none(retries)
        self.mode = mode
        self._context, self._units, self._select, self._conflicts = context, units, select, metadata_conflicts
        self._retries, self._array = retries, array
        self._read_group(store.normalize(path))
        self._opened: dict[str, WorldArray] = {}

    def _read_group(self, path: str) -> None:
        """Read the group's documents afresh; its levels are opened with them, never reading them again."""
        with retry.governing(self._retries), rounds.remembering(own=True) as answers:
            self._group = _group_of(gather(path))
        self._known = {request: value for request, value in answers.known.items()
                       if value is None or isinstance(value, bytes)}
        self.path = self._group.node.path
        self.names: tuple[str, ...] = level_names(self._group.node)
        if not self.names:
            refuse_bioformats2raw(self._group.node)
        listed = level_placements(group_source(self._group.node))
        self._listed: dict[str, Placement] | None = dict(listed) if listed else None

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        levels = ", ".join(f"{name} ({', '.join(f'{s:g}' for s in sizes)})" for name, sizes, _ in self.placements())
        return f"Pyramid({self.path!r}, {len(self)} levels: {levels})"

    @property
    def levels(self) -> Sequence[WorldArray]:
        """The levels as WorldArrays, finest first as listed; each opens when first indexed."""
        return _Levels(self)

    def _name(self, level: Level) -> str:
        name = pick(self._group.node, level, self.names)
        if name not in self.names:
            raise ValueError(f"{self.path}: no level {level!r}; the levels are {', '.join(self.names)}")
        return name

    def by_name(self, level: Level) -> WorldArray:
        """One level opened as a WorldArray (opened once, then kept): a name, a position, or "first", as ``level=``
        takes them."""
        name = self._name(level)
        if name not in self._opened:
            with rounds.remembering(self._known):
                self._opened[name] = WorldArray(self.path, level=name, context=self._context, units=self._units,
                                                select=self._select, metadata_conflicts=self._conflicts,
                                                mode=self.mode, retries=self._retries, array=self._array)
        return self._opened[name]

    def select(self, voxel_size: SizesOrNone, mode: str = "floor") -> WorldArray:
        """The level ``select_level`` picks for ``voxel_size`` (in this pyramid's units), opened: the level ``wa.open``
        picks for the same arguments (an entry None leaves that axis out of the choice)."""
        chosen = select_level(list(zip(self.names, self.voxel_sizes(), strict=True)), voxel_size, mode)
        return self.by_name(chosen[0])

    def level_meta(self, level: Level) -> ArrayMeta:
        """One level's ArrayMeta from its documents alone, in this pyramid's units; raises when its array is
        missing."""
        name = self._name(level)
        node = self._group.node
        if FORMATS[node.format].levels_in_info:
            found = Gathered(dataclasses.replace(node, kind="array", scale_key=name), ())
        else:
            try:
                with retry.governing(self._retries), rounds.remembering(self._known):
                    found = level_array(self._group, name, self._array)
            except FileNotFoundError as error:
                raise FileNotFoundError(f"{self.path}: level {name!r} is listed but its array is missing: "
                                        f"{error}") from error
        return parse(source_of(found), metadata_conflicts=self._conflicts).converted(self._units)

    def metas(self) -> list[ArrayMeta]:
        """Every level's ArrayMeta from the documents alone (shape, dtype, chunks, fill and placement)."""
        return [self.level_meta(name) for name in self.names]

    def placements(self) -> list[tuple[str, tuple[float, ...], tuple[float, ...]]]:
        """(name, spatial voxel size, spatial translation) per level, from the group document where it lists them."""
        if self._listed is not None:
            return [(name, *spatial_placement(self._listed[name], self._units)) for name in self.names]
        with quiet():  # listing and choosing warn nothing; a level opened warns itself
            metas = self.metas()
        found = []
        for name, meta in zip(self.names, metas, strict=True):
            found.append((name, tuple(meta.voxel_size[i] for i in meta.spatial),
                          tuple(meta.translation[i] for i in meta.spatial)))
        return found

    def voxel_sizes(self) -> list[tuple[float, ...]]:
        return [sizes for _, sizes, _ in self.placements()]

    def finest(self) -> str:
        """The name of the finest level (the least voxel volume), the first listed among equals; ValueError naming
        the group (and the groups below it that list levels, on a local disk) when it lists none."""
        if not self.names:
            raise self._no_levels()
        return min(zip(self.names, self.voxel_sizes(), strict=True), key=lambda level: voxel_volume(level[1]))[0]

    def _no_levels(self) -> ValueError:
        below = _listing_groups_below(self.path)
        where = (f"; the levels are listed in {', '.join(below)}: open_pyramid that group" if below else
                 "; open the group whose multiscales list the levels (create(.../group/s0) lists s0 in .../group)")
        return ValueError(f"{self.path}: lists no levels (no multiscales in its document, and no s0 below it), so no "
                          f"level is there to choose or to add one from{where}")

    def translations(self) -> list[tuple[float, ...]]:
        return [shifts for _, _, shifts in self.placements()]

    def add_level(self, name: str, *, factors: Sizes | None = None, origin: int | Sequence[int] = 0,
                  voxel_size: Sizes | None = None, translation: Sizes | None = None,
                  shape: Sequence[int] | None = None, dtype: DTypeLike | None = None,
                  chunks: int | Sequence[int] | None = None, shards: int | Sequence[int] | None = None,
                  codecs: Codecs | None = None, fill_value: float | None = None,
                  attrs: Mapping[str, Any] | None = None, exists: str = "error",
                  from_level: str | None = None, units: UnitsArgument = None) -> WorldArray:
        """Add a level's dataset entry and its empty array to this pyramid; no voxel data is written.

        Through ``wa.create``: consolidated metadata stays true, and the axis types are the ones the group lists.

        Parameters
        ----------
        name
            The new level's path under the group.
        factors, origin
            The level covers source voxels ``origin + j f .. origin + (j + 1) f - 1``: placed by
            ``wa.level_placement`` and sized by ``wa.level_shape`` over ``from_level``; one number or one per
            spatial axis (or per axis).
        voxel_size, translation, shape
            Given explicitly instead of derived from the factors.
        dtype, chunks, shards, codecs, fill_value
            Copied from ``from_level`` unless given.
        attrs, exists
            As ``wa.create``.
        from_level
            The level the factors apply to; the finest listed when None.
        units
            The units of an explicit ``voxel_size`` and ``translation`` and of the handle returned; the pyramid's
            (``open_pyramid``'s ``units``) when None.

        Examples
        --------
        >>> _ = wa.create("memory://doc/add_level.zarr/s0", (64, 64, 64), "uint8", 4, 2, chunks=32)
        >>> s1 = wa.open_pyramid("memory://doc/add_level.zarr", mode="r+").add_level("s1", factors=2)
        >>> s1.shape, s1.voxel_size, s1.translation
        ((32, 32, 32), (8.0, 8.0, 8.0), (4.0, 4.0, 4.0))

        """
        if self.mode != "r+":
            raise ValueError(f"{self.path}: opened with mode={self.mode!r}; open_pyramid(..., mode='r+') to add a "
                             "level")
        plain_name("name", name)
        source_name = self._name(from_level) if from_level is not None else self.finest()
        source = self.level_meta(source_name)
        if units is not None:
            source = source.converted(units)
        voxel_size, translation, shape = derived_level(source, factors, origin, voxel_size, translation, shape, name)
        found_codecs, found_shards = None, None
        if codecs is None or shards is None:  # copied from the source level: read only when something is copied
            with retry.governing(self._retries):
                found_codecs, found_shards = codecs_of(store.join(self.path, source_name))
        level = create(store.join(self.path, name), shape, source.dtype if dtype is None else dtype, voxel_size,
                       translation, axes=source.axes, units=list(source.units),
                       chunks=source.chunk_shape if chunks is None else chunks,
                       shards=found_shards if shards is None else shards,
                       fill_value=source.fill_value if fill_value is None else fill_value,
                       codecs=(found_codecs or "none") if codecs is None else codecs, attrs=attrs,
                       exists=exists, axis_types=group_axis_types(self._group.node.attrs, source.axes),
                       context=self._context, retries=self._retries)
        self._read_group(self.path)
        return level


#: How many directories below a group that lists no levels are looked into for ones that do, for the error.
_LOOKED_BELOW = 64


def _listing_groups_below(path: str) -> list[str]:
    """The groups directly below a local ``path`` whose document lists levels (for an error message only: a local
    directory is listed cheaply; a remote store is not listed)."""
    if store.scheme(path) != "file" or not os.path.isdir(path):
        return []
    found = []
    with os.scandir(path) as entries:
        directories = sorted(entry.name for entry in entries if entry.is_dir())[:_LOOKED_BELOW]
    for name in directories:
        try:
            node = probe(store.join(path, name))
        except (OSError, ValueError):
            continue
        if node is not None and node.node.kind == "group" and first_listing(node.node.attrs, node.node.attrs_url):
            found.append(store.join(path, name))
    return found


def open_pyramid(path: PathLike, *, context: ts.Context | None = None, units: UnitsArgument = NANOMETER,
                 select: Mapping[str, int] | None = None, metadata_conflicts: str = "error", mode: str = "r",
                 retries: retry.Retry | None = None, array: str | None = None) -> Pyramid:
    """Open the multiscale group at ``path``, or the one whose document lists the array at ``path``.

    Parameters
    ----------
    path
        A multiscale group, or one of its levels.
    context, units, select, metadata_conflicts, retries, array
        As ``wa.open``; every level opens with them.
    mode
        "r", or "r+" to add levels and open levels for writing.

    Examples
    --------
    >>> _ = wa.create("memory://doc/pyramid.zarr/s0", (8, 8, 8), "uint8", 4, 2, chunks=8)
    >>> _ = wa.create("memory://doc/pyramid.zarr/s1", (4, 4, 4), "uint8", 8, 4, chunks=4)
    >>> pyramid = wa.open_pyramid("memory://doc/pyramid.zarr")
    >>> pyramid.names, pyramid.voxel_sizes()
    (('s0', 's1'), [(4.0, 4.0, 4.0), (8.0, 8.0, 8.0)])
    """
    return Pyramid(path, context=context, units=units, select=select, metadata_conflicts=metadata_conflicts, mode=mode,
                   retries=retries, array=array)
