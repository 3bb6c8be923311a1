"""An ArrayMeta says, per axis in C order, how big a voxel is and where voxel 0's centre sits."""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import units as units_table
from .geometry import centre_to_corner, spatial_indices

__all__ = ["ArrayMeta", "MetadataWarning", "FORMATS", "PLACED_BY"]

#: The formats the package reads.
FORMATS = ("zarr2", "zarr3", "n5", "precomputed")

#: The rules that can place an array, by name; None means nothing placed it.
PLACED_BY = ("ome", "cosem", "funlib", "n5", "precomputed", "dimension_units", None)


class MetadataWarning(UserWarning):
    """A warning about the data: a missing unit, a disagreeing offset, a parent that does not list the array."""


def _floats(values) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


@dataclass(frozen=True)
class ArrayMeta:
    """What the documents say about one array, one entry per axis in C order, in the store's own units.

    ``translation`` is the centre of voxel 0; ``corner`` (derived) is half a voxel below it on
    the spatial axes.
    """

    shape: tuple[int, ...]
    dtype: str
    chunk_shape: tuple[int, ...]
    axes: tuple[str, ...]
    axes_named: bool
    units: tuple[str, ...]
    voxel_size: tuple[float, ...]
    translation: tuple[float, ...]
    format: str
    path: str
    parent: str | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict, compare=False)
    group_attrs: Mapping[str, Any] = field(default_factory=dict, compare=False)
    placed_by: str | None = None
    fill_value: Any = None
    shard_shape: tuple[int, ...] | None = None

    def __post_init__(self):
        n = len(self.shape)
        for name in ("chunk_shape", "axes", "units", "voxel_size", "translation"):
            value = getattr(self, name)
            if len(value) != n:
                raise ValueError(f"{self.path}: ArrayMeta.{name} is {tuple(value)}; expected {n} entries, one per axis")
        if len(set(self.axes)) != n:
            raise ValueError(f"{self.path}: axis names {tuple(self.axes)} repeat; expected {n} distinct names")
        if self.format not in FORMATS:
            raise ValueError(f"{self.path}: format is {self.format!r}; expected one of {FORMATS}")
        if self.placed_by not in PLACED_BY:
            raise ValueError(f"{self.path}: placed_by is {self.placed_by!r}; expected one of {PLACED_BY}")
        object.__setattr__(self, "voxel_size", _floats(self.voxel_size))
        object.__setattr__(self, "translation", _floats(self.translation))

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self.shape)

    @property
    def spatial(self) -> tuple[int, ...]:
        """Indices of the axes named z, y or x when any are; else the last three."""
        return spatial_indices(self.axes)

    @property
    def corner(self) -> tuple[float, ...]:
        """The lower corner of voxel 0: translation less half a voxel on the spatial axes."""
        return centre_to_corner(self.translation, self.voxel_size, self.axes)

    def in_units(self, space: str | None = None, time: str | None = None, strict: bool = True) -> "ArrayMeta":
        """Return this meta with length axes converted to ``space`` and time axes to ``time``.

        A spatial axis with no unit is taken as nanometres, with one MetadataWarning. An
        unknown unit on a spatial axis raises ValueError, or with ``strict=False`` is taken as
        ``space`` with a warning. Axes not asked about keep their units.
        """
        sizes, shifts, names = list(self.voxel_size), list(self.translation), list(self.units)
        spatial = set(self.spatial)
        missing = []
        for i, unit in enumerate(self.units):
            target = self._target(i, unit, space, time, spatial)
            if target is None:
                continue
            if unit == "" and i in spatial:
                missing.append(self.axes[i])
                unit = "nanometer"
            try:
                scale = units_table.factor(unit, target)
            except ValueError as error:
                if strict:
                    raise ValueError(
                        f"{self.path}: axis {self.axes[i]!r} has unit {unit!r}, which the unit table does not know; "
                        f"expected a length to convert to {target!r} (or pass strict_units=False)"
                    ) from error
                warnings.warn(
                    f"{self.path}: axis {self.axes[i]!r} unit {unit!r} is unknown; taken as {target!r}",
                    MetadataWarning,
                    stacklevel=2,
                )
                scale = 1.0
            sizes[i], shifts[i], names[i] = sizes[i] * scale, shifts[i] * scale, target
        if missing:
            warnings.warn(
                f"{self.path}: spatial axes {tuple(missing)} have no unit; taken as nanometres",
                MetadataWarning,
                stacklevel=2,
            )
        return dataclasses.replace(self, voxel_size=tuple(sizes), translation=tuple(shifts), units=tuple(names))

    @staticmethod
    def _target(i, unit, space, time, spatial):
        kind = units_table.kind(unit)
        if kind == "space" or (kind == "unknown" and i in spatial):
            return space
        if kind == "time":
            return time
        return None

    def in_nm(self) -> "ArrayMeta":
        """Return this meta with length axes in nanometres."""
        return self.in_units(space="nanometer")

    def drop_axis(self, axis: int | str) -> "ArrayMeta":
        """Return this meta without one axis (by index or name), as a selected axis is dropped."""
        if isinstance(axis, str) and axis not in self.axes:
            raise ValueError(f"{self.path}: axis {axis!r} does not exist; axes are {self.axes}")
        index = self.axes.index(axis) if isinstance(axis, str) else int(axis)
        if not -self.ndim <= index < self.ndim:
            raise ValueError(f"{self.path}: axis {axis!r} does not exist; axes are {self.axes}")
        index %= self.ndim

        def without(values):
            return None if values is None else tuple(v for j, v in enumerate(values) if j != index)

        return dataclasses.replace(
            self,
            shape=without(self.shape),
            chunk_shape=without(self.chunk_shape),
            shard_shape=without(self.shard_shape),
            axes=without(self.axes),
            units=without(self.units),
            voxel_size=without(self.voxel_size),
            translation=without(self.translation),
        )

    def __repr__(self) -> str:
        def axis(i):
            unit = f" {self.units[i]}" if self.units[i] else ""
            return f"{self.axes[i]}: {self.shape[i]} x {self.voxel_size[i]:g}{unit} @ {self.translation[i]:g}"

        body = ", ".join(axis(i) for i in range(self.ndim))
        return f"ArrayMeta({self.path!r}, {self.format}, {self.dtype}, {{{body}}}, placed_by={self.placed_by!r})"


def isclose(a: float, b: float, rtol: float = 1e-6) -> bool:
    """Voxel sizes and placements compare as floats with a relative tolerance (1e-6 by default)."""
    return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol * 1e-3)
