"""The arguments of ``open`` are checked once, at open, into one frozen record; units convert through one helper."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Mapping

from . import units as unit_table
from .documents import Placement
from .geometry import default_axes, spatial_indices
from .levels import LEVEL_MODES
from .meta import ArrayMeta
from .retry import Retry

__all__ = ["Options", "ON_MISMATCH", "METHODS", "one_of", "positive_sizes", "space_unit", "in_requested_units",
           "spatial_placement", "same_sizes"]

ON_MISMATCH = ("error", "resample", "relabel", "keep")
METHODS = ("nearest", "linear")
MODES = ("r", "r+")


@dataclasses.dataclass(frozen=True)
class Options:
    """The arguments of ``open`` other than path and context, checked once."""

    level: Any = None
    voxel_size: tuple[float, ...] | None = None
    level_mode: str = "floor"
    on_mismatch: str = "error"
    padding: Any = 0
    method: str = "nearest"
    select: Mapping[str, int] | None = None
    units: Any = "nanometer"
    retries: Retry | None = None
    metadata_conflicts: str = "error"
    base_voxel_size: tuple[float, ...] | None = None
    base_units: str | None = None
    anchor: tuple[float, ...] | None = None
    transform: Callable | None = None
    strict_units: bool = True
    mode: str = "r"
    store_fill: bool = False

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode is {self.mode!r}; expected one of {MODES} (the package never overwrites: there is no 'w')")
        one_of("level_mode", self.level_mode, LEVEL_MODES)
        one_of("on_mismatch", self.on_mismatch, ON_MISMATCH)
        one_of("method", self.method, METHODS)
        one_of("metadata_conflicts", self.metadata_conflicts, ("error", "warn"))
        for name in ("voxel_size", "base_voxel_size"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, positive_sizes(name, value))
        if self.retries is not None and not isinstance(self.retries, Retry):
            raise ValueError(f"retries is {self.retries!r}; expected a wa.Retry or None")
        if self.transform is not None and not callable(self.transform):
            raise ValueError(f"transform is {self.transform!r}; expected a callable or None")
        if self.select is not None and not isinstance(self.select, Mapping):
            raise ValueError(f"select is {self.select!r}; expected a dict of axis name to index")


def one_of(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"{name} is {value!r}; expected one of {allowed}")


def positive_sizes(name: str, value) -> tuple[float, ...]:
    values = (value,) if isinstance(value, (int, float)) else tuple(value)
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 for v in values):
        raise ValueError(f"{name} is {value!r}; expected finite sizes > 0")
    return tuple(float(v) for v in values)


def space_unit(units) -> str | None:
    return units if isinstance(units, str) else (units or {}).get("space")


def in_requested_units(meta: ArrayMeta, units, strict: bool = True) -> ArrayMeta:
    if units is None:
        return meta
    if isinstance(units, str):
        return meta.in_units(space=units, strict=strict)
    if isinstance(units, Mapping) and set(units) <= {"space", "time"}:
        return meta.in_units(space=units.get("space"), time=units.get("time"), strict=strict)
    raise ValueError(f"units is {units!r}; expected a unit name, a dict with 'space' and/or 'time', or None")


def spatial_placement(placement: Placement, units, rescale=None, base_unit=None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A level's spatial voxel size and translation in the requested units (a missing unit taken as nanometres).

    ``rescale`` multiplies the stored spatial sizes (base_voxel_size over level 0's), which are then in ``base_unit``.
    """
    axes = placement.axes or default_axes(len(placement.voxel_size))
    target = space_unit(units)
    sizes, shifts = [], []
    for k, i in enumerate(spatial_indices(axes)):
        scale = rescale[k] if rescale else 1.0
        unit = (base_unit if rescale else None) or placement.units[i] or "nanometer"
        if target and unit_table.kind(unit) == "space":
            scale *= unit_table.factor(unit, target)
        sizes.append(placement.voxel_size[i] * scale)
        shifts.append(placement.translation[i] * scale)
    return tuple(sizes), tuple(shifts)


def same_sizes(a, b) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-6) for x, y in zip(a, b))
