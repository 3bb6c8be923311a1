"""tensorstore's ``dimension_units`` attribute places a zarr v3 array by one quantity per axis, such as ``"4 nm"``
(its voxel size and unit), with voxel 0's corner at the origin.

A quantity is a number and a unit (``"4 nm"``), a number alone (``"4"``, no unit) or a unit alone (``"nm"``, size
1); a null is size 1 with no unit. Anything else raises naming the document. No I/O.
"""

from __future__ import annotations

from .fields import Facts, Placement, Source, list_of, numbers, where
from .geometry import corner_to_centre, default_axes

__all__ = ["dimension_units_placement"]


def _quantity(text, url, key) -> tuple[float, str]:
    if text is None:
        return 1.0, ""
    parts = str(text).split()
    try:
        if len(parts) == 2:
            return float(parts[0]), parts[1]
        if len(parts) == 1:
            try:
                return float(parts[0]), ""
            except ValueError:
                return 1.0, parts[0]
    except ValueError:
        pass
    raise ValueError(f"{where(url, key)} holds {text!r}; expected a quantity such as '4 nm'")


def dimension_units_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """tensorstore's dimension_units attribute: voxel size and unit per axis, voxel 0's corner at the origin."""
    value = source.own.attrs.get("dimension_units")
    if value is None:
        return None
    items = list_of(value, source.own.url, "dimension_units", ndim, kind="quantities")
    pairs = [_quantity(item, source.own.url, "dimension_units") for item in items]
    voxel = numbers([p[0] for p in pairs], source.own.url, "dimension_units", positive=True)
    names = facts.names or default_axes(ndim)
    return Placement(voxel, corner_to_centre((0.0,) * ndim, voxel, names), tuple(p[1] for p in pairs))
