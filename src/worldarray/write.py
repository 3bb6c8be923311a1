"""Writing is reading inverted: what this module writes, ``wa.metadata`` reads back as the same placement.

The package writes OME-NGFF only, 0.4 in zarr v2 and 0.5 in zarr v3 (spec Convention 9). A written
translation is voxel 0's centre, written always, zeros included; a written scale is the voxel size; every
number is written as the float it was given, never rounded.
"""

from __future__ import annotations

import copy
import math
from numbers import Real
from typing import Any, Mapping, Sequence

from . import units as unit_table
from .detect import gather
from .geometry import ceil_snapped, spatial_indices, spread

__all__ = ["OME_VERSIONS", "AXIS_TYPES", "ome_multiscales", "level_placement", "level_shape", "codecs_of", "axis_units"]


# ---------------------------------------------------------------- OME documents and level placement (no I/O)

#: The OME-NGFF versions written, each with the one zarr format it goes with.
OME_VERSIONS = {"0.4": "zarr2", "0.5": "zarr3"}

#: The axis types written. A name implies one (``_TYPE_OF_NAME``); ``axis_types`` overrides it.
AXIS_TYPES = ("space", "time", "channel")
_TYPE_OF_NAME = {**dict.fromkeys("zyx", "space"), "t": "time", "time": "time", "c": "channel", "channel": "channel"}
_WITH_UNIT = ("space", "time")  # OME writes a unit on these axis types only


def _floats(label: str, values, lengths=None, positive=False) -> tuple[float, ...]:
    """Finite numbers (> 0 when ``positive``) as Python floats, unchanged in value; ``label`` names the argument."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
        raise ValueError(f"{label} is {values!r}; expected a list of numbers")
    items = list(values)
    wanted = "finite numbers > 0" if positive else "finite numbers"
    for item in items:
        if isinstance(item, bool) or not isinstance(item, Real) or not math.isfinite(item) or (positive and item <= 0):
            raise ValueError(f"{label} is {items!r}; expected {wanted}")
    if lengths is not None and len(items) not in lengths:
        wanted = " or ".join(str(n) for n in sorted(set(lengths)))
        raise ValueError(f"{label} is {items!r} ({len(items)} entries); expected {wanted} entries")
    return tuple(float(item) for item in items)


def _per_axis(label: str, value, ndim: int, positive=False, whole=False) -> tuple[float, ...]:
    """One number for every axis, or one per axis: factors (> 0, whole or not) and origins (whole, >= 0)."""
    wanted = "whole numbers >= 0" if whole else "finite numbers > 0"
    try:
        values = _floats(label, [value] * ndim if isinstance(value, Real) else value, (ndim,), positive)
    except ValueError:
        values = ()
    if len(values) != ndim or (whole and not all(v >= 0 and v.is_integer() for v in values)):
        raise ValueError(f"{label} is {value!r}; expected {wanted}: one number, or {ndim} (one per axis)")
    return values


def _parse_axes(axes) -> tuple[str, ...]:
    names = tuple(axes) if not isinstance(axes, str) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"axes is {axes!r}; expected axis names in C order, such as ('z', 'y', 'x')")
    if len(set(names)) != len(names):
        raise ValueError(f"axes is {list(names)!r}; expected distinct names")
    return names


def _parse_axis_types(axis_types, axes, spatial) -> tuple[str, ...]:
    given = [None] * len(axes) if axis_types is None else list(axis_types)
    if len(given) != len(axes) or not all(t is None or t in AXIS_TYPES for t in given):
        raise ValueError(f"axis_types is {axis_types!r}; expected one of {AXIS_TYPES} or None per axis of {list(axes)}")
    types = []
    for i, (name, kind) in enumerate(zip(axes, given)):
        # A name that implies no type is a space axis when the reader counts it spatial (Convention 1's last
        # three), so writer and reader agree; any other is ambiguous, and OME allows at most three space axes.
        kind = kind or _TYPE_OF_NAME.get(name) or ("space" if i in spatial else None)
        if kind is None:
            raise ValueError(f"axes[{i}] is {name!r}, whose name implies no type; pass axis_types, one of {AXIS_TYPES}")
        types.append(kind)
    return tuple(types)


def _ome_unit(label: str, unit, axis: str, kind: str) -> str:
    if unit is None or unit == "":
        return ""
    if kind not in _WITH_UNIT:
        raise ValueError(f"{label} is {unit!r} on the {kind} axis {axis!r}; expected '' (OME writes units on space and time axes only)")
    if not isinstance(unit, str) or unit_table.kind(unit) != kind:
        raise ValueError(f"{label} is {unit!r} on the {kind} axis {axis!r}; expected a {kind} unit the unit table knows, "
                         f"such as {'nanometer' if kind == 'space' else 'second'!r}")
    return unit_table.ome_name(unit)


def _parse_units(units, axes, types) -> tuple[str, ...]:
    """OME's spelling of each axis's unit, "" where none: from one unit per axis, or by kind."""
    if isinstance(units, str):  # one unit names the space axes' unit
        units = {"space": units}
    if isinstance(units, Mapping):
        if not set(units) <= set(_WITH_UNIT):
            raise ValueError(f"units is {dict(units)!r}; expected keys 'space' and/or 'time', or one unit per axis")
        return tuple(_ome_unit(f"units[{kind!r}]", units.get(kind), axis, kind) if kind in _WITH_UNIT else ""
                     for axis, kind in zip(axes, types))
    if units is None or not hasattr(units, "__len__") or len(units) != len(axes):
        raise ValueError(f"units is {units!r}; expected one unit per axis of {list(axes)} ('' on a channel axis) "
                         "or a dict such as {'space': 'nanometer', 'time': 'second'}")
    return tuple(_ome_unit(f"units[{i}]", unit, axis, kind) for i, (unit, axis, kind) in enumerate(zip(units, axes, types)))


def axis_units(axes: Sequence[str], units, axis_types=None) -> tuple[str, ...]:
    """OME's spelling of each axis's unit ("" where none), from one unit per axis, by kind, or one space unit."""
    axes = _parse_axes(axes)
    return _parse_units(units, axes, _parse_axis_types(axis_types, axes, spatial_indices(axes)))


def _dataset(n: int, level, ndim: int, spatial) -> dict:
    """One datasets entry: the path, then a scale and a translation, both over every axis."""
    if isinstance(level, (str, Mapping)) or not hasattr(level, "__len__") or len(level) != 3:
        raise ValueError(f"levels[{n}] is {level!r}; expected (path, voxel_size, translation)")
    path, voxel_size, translation = level
    if not isinstance(path, str) or not path.strip("/"):
        raise ValueError(f"levels[{n}] path is {path!r}; expected an array path relative to the group, such as 's0'")
    lengths = {len(spatial), ndim}
    scale = _floats(f"levels[{n}] ({path!r}) voxel_size", voxel_size, lengths, positive=True)
    shift = _floats(f"levels[{n}] ({path!r}) translation", translation, lengths)
    return {"path": path, "coordinateTransformations": [
        {"type": "scale", "scale": list(spread(scale, ndim, spatial, 1.0))},
        {"type": "translation", "translation": list(spread(shift, ndim, spatial, 0.0))},
    ]}


def _check_descriptions(name, kind, metadata) -> None:
    if not isinstance(name, str):
        raise ValueError(f"name is {name!r}; expected a string ('' when the image has none)")
    if kind is not None and not isinstance(kind, str):
        raise ValueError(f"type is {kind!r}; expected the downscaling method's name, such as 'mean', or None")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise ValueError(f"metadata is {metadata!r}; expected a dict describing the downscaling, or None")


def ome_multiscales(axes: Sequence[str], units, levels, version: str = "0.5", axis_types=None, name: str = "",
                    metadata: Mapping[str, Any] | None = None, type: str | None = None) -> dict:  # noqa: A002 - OME's key
    """Return the complete group attributes of an OME-NGFF multiscale image, to write beside its level arrays.

    Parameters
    ----------
    axes : axis names in the arrays' C order, such as ``("c", "z", "y", "x")``.
    units : one unit per axis (``""`` on a channel axis), or by kind ``{"space": "nanometer", "time": "second"}``
        (a single string is the space unit). Written in OME's spelling ("nm" is "nanometer").
    levels : ``[(path, voxel_size, translation), ...]``, finest first, each list over the spatial axes (z, y, x when
        named, else the last three not named t or c) or over every axis; other axes get scale 1 and translation 0.
    version : ``"0.5"`` (zarr v3: ``{"ome": {"version": "0.5", "multiscales": [...]}}``) or ``"0.4"`` (zarr v2
        ``.zattrs``: ``{"multiscales": [{"version": "0.4", ...}]}``).
    axis_types : per axis ``"space"``, ``"time"``, ``"channel"`` or None (from the name: z y x space, t time,
        c channel; another name is space when it is among the spatial axes, else it must be given).
    name : the multiscale's name, always written (OME says it SHOULD be present; "" is a valid string).
    metadata, type : the downscaling method's description and name, written when given.

    Returns
    -------
    dict
        The group attributes; ``wa.metadata(group, level=path)`` reads back each level's voxel size,
        translation, axes and units with ``placed_by == "ome"``.

    Raises
    ------
    ValueError
        Naming the argument and value: a version other than "0.4" or "0.5", repeated axis names or level
        paths, a voxel size or translation of the wrong length, a voxel size not finite and > 0, an unknown unit
        on a space or time axis, a unit on any other axis.

    >>> doc = ome_multiscales(("z", "y", "x"), {"space": "nm"}, [("s0", (4, 4, 4), (2, 2, 2))])
    >>> doc["ome"]["multiscales"][0]["axes"][0]
    {'name': 'z', 'type': 'space', 'unit': 'nanometer'}
    """
    if version not in OME_VERSIONS:
        raise ValueError(f"version is {version!r}; expected one of {tuple(OME_VERSIONS)}")
    axes = _parse_axes(axes)
    spatial = spatial_indices(axes)
    types = _parse_axis_types(axis_types, axes, spatial)
    ome_units = _parse_units(units, axes, types)
    if isinstance(levels, (str, Mapping)) or not levels:
        raise ValueError(f"levels is {levels!r}; expected a non-empty list of (path, voxel_size, translation)")
    datasets = [_dataset(n, level, len(axes), spatial) for n, level in enumerate(levels)]
    paths = [d["path"] for d in datasets]
    if len(set(paths)) != len(paths):
        raise ValueError(f"levels paths are {paths!r}; expected distinct paths")
    _check_descriptions(name, type, metadata)
    multiscale = {"version": version} if version == "0.4" else {}
    multiscale["name"] = name
    multiscale["axes"] = [{"name": a, "type": t, **({"unit": u} if u else {})} for a, t, u in zip(axes, types, ome_units)]
    multiscale["datasets"] = datasets
    if type is not None:
        multiscale["type"] = type
    if metadata is not None:
        multiscale["metadata"] = copy.deepcopy(dict(metadata))
    if version == "0.4":
        return {"multiscales": [multiscale]}
    return {"ome": {"version": version, "multiscales": [multiscale]}}


def level_placement(voxel_size, translation, factors, origin=0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Return ``(voxel_size, translation)`` of the level whose voxel j covers source voxels origin + j f .. + f - 1.

    Per axis ``(voxel_size * f, translation + voxel_size * (origin + (f - 1) / 2))``: the centre a block mean
    produces (Convention 1's BigDataViewer rule inverted). ``voxel_size`` and ``translation`` are the source
    grid's, one entry per axis placed; ``factors`` one number or one per axis, > 0, whole or not; ``origin`` one
    whole number >= 0 or one per axis. Raises ValueError naming the argument and value otherwise.

    >>> level_placement((4.0,), (2.0,), 2)
    ((8.0,), (4.0,))
    """
    sizes = _floats("voxel_size", voxel_size, positive=True)
    shifts = _floats("translation", translation, (len(sizes),))
    f = _per_axis("factors", factors, len(sizes), positive=True)
    o = _per_axis("origin", origin, len(sizes), whole=True)
    return (tuple(s * k for s, k in zip(sizes, f)),
            tuple(t + s * (p + (k - 1) / 2) for s, t, k, p in zip(sizes, shifts, f, o)))


def level_shape(shape, factors, origin=0) -> tuple[int, ...]:
    """Return the shape of the level made by ``factors`` from source voxel ``origin``: ``ceil((n - origin) / f)``.

    The quotient is snapped to a whole number within 1e-6 first, so float noise adds no voxel. Raises
    ValueError naming the argument and value for a shape not whole, a factor not > 0, or an origin not whole,
    negative, or at or past the end of its axis.

    >>> level_shape((10, 9), 2, origin=(0, 1))
    (5, 4)
    """
    sizes = _floats("shape", shape)
    if not all(n >= 0 and n.is_integer() for n in sizes):
        raise ValueError(f"shape is {shape!r}; expected whole numbers >= 0")
    f = _per_axis("factors", factors, len(sizes), positive=True)
    o = _per_axis("origin", origin, len(sizes), whole=True)
    for axis, (n, p) in enumerate(zip(sizes, o)):
        if p >= n:
            raise ValueError(f"origin is {origin!r}; expected less than shape {tuple(shape)!r} on axis {axis}")
    return tuple(ceil_snapped((n - p) / k) for n, k, p in zip(sizes, f, o))


# ---------------------------------------------------------------- existing arrays


def codecs_of(path) -> tuple[Any, tuple[int, ...] | None]:
    """An existing zarr array's codecs (a v3 codecs list, the inner one when sharded, or a v2 compressor) and shard shape."""
    found = gather(path)
    node = found.node
    if node.format == "zarr3" and node.kind == "array":
        codecs = node.docs["zarr.json"].get("codecs") or []
        if codecs and codecs[0].get("name") == "sharding_indexed":
            shards = tuple(node.docs["zarr.json"]["chunk_grid"]["configuration"]["chunk_shape"])
            return list(codecs[0]["configuration"].get("codecs") or []), shards
        return list(codecs), None
    if node.format == "zarr2" and node.kind == "array":
        return node.docs[".zarray"].get("compressor"), None
    raise ValueError(f"{node.path}: is a {node.format} {node.kind}; codecs_of reads zarr arrays")
