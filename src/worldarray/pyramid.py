"""A pyramid is the levels a group lists, placed from the group's own document so that choosing one opens nothing.

Opened by its group path or by one of its level paths, a Pyramid reads the group document once;
levels open as WorldArrays only when asked for.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import tensorstore as ts

from . import store
from .array import WorldArray, create
from .detect import Gathered, gather, source_of
from .documents import Placement
from .geometry import spread
from .levels import group_source, level_names, listed_by_parent, select_level
from .meta import ArrayMeta
from .metadata import level_placements, parse
from .options import MODES, in_requested_units, one_of, spatial_placement
from .write import codecs_of, level_placement, level_shape

__all__ = ["Pyramid", "open_pyramid"]


def _group_of(found: Gathered) -> Gathered:
    """The group a path names, or the group whose document lists the array a path names."""
    node = found.node
    if node.kind == "group":
        return found
    if node.format == "precomputed":
        return gather(node.path)
    if listed_by_parent(found):
        return gather(found.ancestors[0].path)
    raise ValueError(f"{node.path}: is an array that no parent multiscales lists; open it with wa.open, or open its group")


class Pyramid:
    """The levels of one multiscale group, listed, placed and chosen from the group document."""

    def __init__(self, path, *, context: ts.Context | None = None, units: Any = "nanometer", select=None,
                 metadata_conflicts: str = "error", mode: str = "r"):
        one_of("mode", mode, MODES)
        self.mode = mode
        self._group = _group_of(gather(path))
        self.path = self._group.node.path
        self._context, self._units, self._select, self._conflicts = context, units, select, metadata_conflicts
        self.names: tuple[str, ...] = level_names(self._group.node)
        listed = level_placements(group_source(self._group.node))
        self._listed: dict[str, Placement] | None = dict(listed) if listed else None
        self._opened: dict[str, WorldArray] = {}

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        levels = ", ".join(f"{name} {sizes}" for name, sizes, _ in self.placements())
        return f"Pyramid({self.path!r}, {len(self)} levels: {levels})"

    @property
    def levels(self) -> tuple[WorldArray, ...]:
        """Every level opened as a WorldArray, finest first as listed."""
        return tuple(self.by_name(name) for name in self.names)

    def by_name(self, name: str) -> WorldArray:
        """One level opened as a WorldArray (opened once, then kept)."""
        if name not in self.names:
            raise ValueError(f"{self.path}: no level {name!r}; the levels are {', '.join(self.names)}")
        if name not in self._opened:
            self._opened[name] = WorldArray(self.path, level=name, context=self._context, units=self._units,
                                            select=self._select, metadata_conflicts=self._conflicts, mode=self.mode)
        return self._opened[name]

    def select(self, voxel_size, mode: str = "floor") -> WorldArray:
        """The level ``select_level`` picks for ``voxel_size`` (in this pyramid's units), opened."""
        chosen = select_level(list(zip(self.names, self.voxel_sizes())), voxel_size, "floor" if mode == "resample" else mode)
        return self.by_name(chosen[0])

    def level_meta(self, name: str) -> ArrayMeta:
        """One level's ArrayMeta from its documents alone, in this pyramid's units; raises when its array is missing."""
        if name not in self.names:
            raise ValueError(f"{self.path}: no level {name!r}; the levels are {', '.join(self.names)}")
        node = self._group.node
        if node.format == "precomputed":
            found = Gathered(dataclasses.replace(node, kind="array", scale_key=name), ())
        else:
            try:
                found = gather(store.join(self.path, name), above=self._group)
            except FileNotFoundError as error:
                raise FileNotFoundError(f"{self.path}: level {name!r} is listed but its array is missing: {error}") from error
        return in_requested_units(parse(source_of(found), metadata_conflicts=self._conflicts), self._units)

    def metas(self) -> list[ArrayMeta]:
        """Every level's ArrayMeta from the documents alone (shape, dtype, chunks, fill and placement)."""
        return [self.level_meta(name) for name in self.names]

    def placements(self) -> list[tuple[str, tuple[float, ...], tuple[float, ...]]]:
        """(name, spatial voxel size, spatial translation) per level, from the group document where it lists them."""
        if self._listed is not None:
            return [(name, *spatial_placement(self._listed[name], self._units)) for name in self.names]
        found = []
        for meta in self.metas():
            found.append((self.names[len(found)], tuple(meta.voxel_size[i] for i in meta.spatial),
                          tuple(meta.translation[i] for i in meta.spatial)))
        return found

    def add_level(self, name: str, factors=None, origin=0, voxel_size=None, translation=None, shape=None, dtype=None,
                  chunks=None, shards=None, codecs=None, fill_value=None, attrs=None, exists: str = "error",
                  from_level: str | None = None) -> WorldArray:
        """Add a level's dataset entry and its empty array to this pyramid (Behaviour 14); no voxel data is written.

        Placement by ``level_placement`` over ``from_level`` (the finest listed when None) unless
        ``voxel_size`` and ``translation`` are given; shape by ``level_shape``; dtype, chunks, shards,
        codecs and fill value copied from that level unless given. One process at a time per group.
        """
        if self.mode != "r+":
            raise ValueError(f"{self.path}: opened with mode={self.mode!r}; open_pyramid(..., mode='r+') to add a level")
        source_name = from_level or self.names[0]
        source = self.level_meta(source_name)
        if voxel_size is None or translation is None:
            if factors is None:
                raise ValueError(f"add_level {name!r}: give factors (with origin), or voxel_size and translation")
            placed = level_placement(source.voxel_size, source.translation, _spread(factors, source, 1.0),
                                     _spread(origin, source, 0))
            voxel_size = voxel_size if voxel_size is not None else placed[0]
            translation = translation if translation is not None else placed[1]
        if shape is None:
            if factors is None:
                raise ValueError(f"add_level {name!r}: give shape, or factors to derive it from level {source_name!r}")
            shape = level_shape(source.shape, _spread(factors, source, 1.0), _spread(origin, source, 0))
        if codecs is None or shards is None:
            found_codecs, found_shards = codecs_of(store.join(self.path, source_name))
            codecs = (found_codecs if found_codecs is not None else "none") if codecs is None else codecs
            shards = found_shards if shards is None else shards
        level = create(store.join(self.path, name), shape, dtype or source.dtype, voxel_size, translation,
                       axes=source.axes, units=list(source.units), chunks=chunks or source.chunk_shape, shards=shards,
                       fill_value=source.fill_value if fill_value is None else fill_value, codecs=codecs, attrs=attrs,
                       exists=exists, context=self._context)
        self._group = gather(self.path)
        self.names = level_names(self._group.node)
        listed = level_placements(group_source(self._group.node))
        self._listed = dict(listed) if listed else None
        return level

    def voxel_sizes(self) -> list[tuple[float, ...]]:
        return [sizes for _, sizes, _ in self.placements()]

    def translations(self) -> list[tuple[float, ...]]:
        return [shifts for _, _, shifts in self.placements()]


def _spread(value, meta: ArrayMeta, other):
    """A per-spatial-axis value (or one number) spread to every axis, ``other`` on the non-spatial ones."""
    if isinstance(value, (int, float)):
        value = (value,) * len(meta.spatial)
    return spread(value, meta.ndim, meta.spatial, other)


def open_pyramid(path, context: ts.Context | None = None, units: Any = "nanometer", select=None,
                 metadata_conflicts: str = "error", mode: str = "r") -> Pyramid:
    """Open the multiscale group at ``path``, or the one whose document lists the array at ``path``.

    >>> pyr = wa.open_pyramid("memory://demo/volume.zarr")  # doctest: +SKIP
    >>> pyr.placements()  # doctest: +SKIP
    [('s0', (4.0, 4.0, 4.0), (2.0, 2.0, 2.0)), ('s1', (8.0, 8.0, 8.0), (4.0, 4.0, 4.0))]
    """
    return Pyramid(path, context=context, units=units, select=select, metadata_conflicts=metadata_conflicts, mode=mode)
