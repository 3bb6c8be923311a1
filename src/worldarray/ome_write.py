"""OME-NGFF written: ``ome_multiscales`` builds a group's attributes (0.4 in zarr v2, 0.5 in zarr v3), and
``with_entry`` adds or replaces one level's dataset entry in attributes that exist, changing nothing else.

What is written here, ``ome`` reads back as the same placement: the dataset walk, its paths and its scales are
``ome``'s. Axis types and units are checked here once, for ``create``, ``ensure_group_entry`` and ``add_level``.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from . import units as unit_table
from .diagnostics import warn
from .formats import FORMATS, WRITTEN
from .geometry import floats, spatial_indices, spread, voxel_volume
from .ome import compose, dataset_path, dataset_scale, multiscales_of, walk

__all__ = ["OME_VERSIONS", "AXIS_TYPES", "ome_multiscales", "axis_units", "version_of", "with_entry", "listed_axes",
           "group_axis_types", "type_differences", "check_dimension_names"]

#: The OME-NGFF versions written, each with the one zarr format it goes with.
OME_VERSIONS = dict(sorted(WRITTEN.items()))  # {"0.4": "zarr2", "0.5": "zarr3"}: each format's record says
OME_ZARR3_VERSION = "0.5"

#: The axis types OME names. A name implies one (``_TYPE_OF_NAME``); ``axis_types`` overrides it, and may name a
#: custom type (OME allows types of its own on axes that are neither space nor time nor channel).
AXIS_TYPES = ("space", "time", "channel")
_TYPE_OF_NAME = {**dict.fromkeys("zyx", "space"), "t": "time", "time": "time", "c": "channel", "channel": "channel"}
_WITH_UNIT = ("space", "time")  # OME writes a unit on these axis types only

# ---------------------------------------------------------------- writing


def _parse_axes(axes) -> tuple[str, ...]:
    names = tuple(axes) if not isinstance(axes, str) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"axes is {axes!r}; expected axis names in C order, such as ('z', 'y', 'x')")
    if len(set(names)) != len(names):
        raise ValueError(f"axes is {list(names)!r}; expected distinct names")
    return names


def _parse_axis_types(axis_types, axes, spatial) -> tuple[str, ...]:
    """Each axis's OME type: the one given, else the one its name implies (``_TYPE_OF_NAME``), else "space" when the
    reader counts the axis spatial; "space" exactly on the axes the reader counts spatial (those named z, y or x,
    else the last three not named t or c)."""
    given = [None] * len(axes) if axis_types is None or isinstance(axis_types, str) else list(axis_types)
    if (isinstance(axis_types, str) or len(given) != len(axes)
            or not all(t is None or (isinstance(t, str) and t) for t in given)):
        raise ValueError(f"axis_types is {axis_types!r}; expected one type per axis of {list(axes)}: one of "
                         f"{AXIS_TYPES}, a custom type's name, or None (the type the name implies)")
    types = []
    for i, (name, kind) in enumerate(zip(axes, given, strict=True)):
        # A name that implies no type is a space axis when the reader counts it spatial (Convention 1's last
        # three), so writer and reader agree; any other is ambiguous, and OME allows at most three space axes.
        kind = kind or _TYPE_OF_NAME.get(name) or ("space" if i in spatial else None)
        if kind is None:
            raise ValueError(f"axes[{i}] is {name!r}, whose name implies no type; pass axis_types, one of {AXIS_TYPES} "
                             "or a custom type's name per axis")
        if (kind == "space") != (i in spatial):
            raise ValueError(f"axis_types is {axis_types!r}: axis {name!r} is {kind!r}; expected "
                             f"{'space' if i in spatial else 'a type other than space'}, as every reader of this "
                             f"package counts the spatial axes of {list(axes)} to be {[axes[j] for j in spatial]} "
                             "(those named z, y or x when any is, else the last three not named t or c)")
        types.append(kind)
    return tuple(types)


def _ome_unit(label: str, unit, axis: str, kind: str) -> str:
    if unit is None or unit == "":
        return ""
    if kind not in _WITH_UNIT:
        raise ValueError(f"{label} is {unit!r} on the {kind} axis {axis!r}; expected '' (OME writes units on space "
                         "and time axes only)")
    if not isinstance(unit, str) or unit_table.kind(unit) != kind:
        raise ValueError(f"{label} is {unit!r} on the {kind} axis {axis!r}; expected a {kind} unit the unit table "
                         f"knows, such as {unit_table.NANOMETER if kind == 'space' else 'second'!r}")
    return unit_table.ome_name(unit)


def _parse_units(units, axes, types) -> tuple[str, ...]:
    """OME's spelling of each axis's unit, "" where none: one unit per axis, by kind, or one space unit."""
    request = unit_table.Request.of(units)
    if request.per_axis is not None and len(request.per_axis) != len(axes):
        raise ValueError(f"units is {units!r}; expected one unit per axis of {list(axes)} ('' on a channel axis) "
                         "or a dict such as {'space': 'nanometer', 'time': 'second'}")
    labels = [f"units[{i}]" if request.per_axis is not None else f"units[{kind!r}]" for i, kind in enumerate(types)]
    return tuple(_ome_unit(label, request.by_kind(i, kind), axis, kind)
                 for i, (label, axis, kind) in enumerate(zip(labels, axes, types, strict=True)))


def axis_units(axes: Sequence[str], units, axis_types=None) -> tuple[str, ...]:
    """OME's spelling of each axis's unit ("" where none), from one unit per axis, by kind, or one space unit; each
    axis typed by ``axis_types`` or by its name.

    >>> axis_units(("c", "y", "x"), "um")
    ('', 'micrometer', 'micrometer')
    """
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
    scale = floats(f"levels[{n}] ({path!r}) voxel_size", voxel_size, lengths, positive=True)
    shift = floats(f"levels[{n}] ({path!r}) translation", translation, lengths)
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


def ome_multiscales(axes: Sequence[str], units: unit_table.UnitsArgument,
                    levels: Sequence[tuple[str, Sequence[float], Sequence[float]]], version: str = "0.5",
                    axis_types: Sequence[str | None] | None = None, name: str = "",
                    metadata: Mapping[str, Any] | None = None,
                    type: str | None = None) -> dict[str, Any]:  # noqa: A002 - OME's key
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
    axis_types : per axis ``"space"``, ``"time"``, ``"channel"``, a custom type's name (OME allows them) or None
        (from the name: z y x space, t time, c channel; another name is space when it is among the spatial axes,
        else it must be given). "space" goes on the spatial axes exactly (z, y, x when named, else the last three
        not named t or c), so every reader of this package places what was written.
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
        paths, an axis with no type, "space" on an axis that is not spatial (or another type on one that is), a
        voxel size or translation of the wrong length, a voxel size not finite and > 0, an unknown unit on a space
        or time axis, a unit on any other axis.

    Examples
    --------
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
    multiscale: dict[str, Any] = {"version": version} if version == "0.4" else {}
    multiscale["name"] = name
    multiscale["axes"] = [{"name": a, "type": t, **({"unit": u} if u else {})}
                          for a, t, u in zip(axes, types, ome_units, strict=True)]
    multiscale["datasets"] = datasets
    if type is not None:
        multiscale["type"] = type
    if metadata is not None:
        multiscale["metadata"] = copy.deepcopy(dict(metadata))
    if version == "0.4":
        return {"multiscales": [multiscale]}
    return {"ome": {"version": version, "multiscales": [multiscale]}}


def version_of(format: str) -> str:
    """The OME-NGFF version written in a zarr format: "0.5" in zarr v3, "0.4" in zarr v2."""
    found = FORMATS[format].ome_version if format in FORMATS else None
    if found is None:
        raise ValueError(f"format is {format!r}; the package writes OME-NGFF zarr, one of "
                         f"{tuple(OME_VERSIONS.values())}")
    return found


# ---------------------------------------------------------------- one entry merged into a group's attributes


def _container(merged: dict, fmt: str) -> dict:
    """Where the multiscales list lives: under ``ome`` in zarr v3 (OME 0.5), at the top in zarr v2 (OME 0.4).

    A zarr v3 group whose attributes hold OME 0.4 at the top (written by others) has its levels carried
    into ``ome.multiscales``, so none of them is lost; the 0.4 key itself is left as it was.
    """
    if version_of(fmt) == "0.4":
        return merged
    container = merged.setdefault("ome", {})
    if not isinstance(container, dict):
        raise ValueError(f"group attributes 'ome' is {container!r}; expected an object")
    legacy = merged.get("multiscales")
    if not container.get("multiscales") and isinstance(legacy, list) and legacy:
        carried = json.loads(json.dumps(legacy))
        for multiscale in carried:
            if isinstance(multiscale, dict):
                multiscale.pop("version", None)
        container["multiscales"] = carried
    container.setdefault("version", version_of(fmt))
    return container


def _scale_of(dataset) -> float:
    scale = dataset_scale(dataset)
    return voxel_volume(float(v) for v in scale or [1.0]) if scale is not None else math.inf


def _under_multiscale_transforms(multiscale, voxel_size, translation):
    """The dataset-level placement that the multiscale's own transforms (scale S, then translation T) carry to the
    one asked for."""
    scale, shift = compose(multiscale.get("coordinateTransformations"), len(voxel_size), "group attributes",
                           "multiscales[0].coordinateTransformations")
    return (tuple(v / s for v, s in zip(voxel_size, scale, strict=True)),
            tuple((t - m) / s for t, m, s in zip(translation, shift, scale, strict=True)))


def _in_group_units(multiscale, axes, units, axis_types, voxel_size, translation):
    """A level's placement converted into the units the group's multiscales already uses, axis by axis."""
    listed = [a.get("unit") or "" if isinstance(a, Mapping) else "" for a in multiscale.get("axes") or []]
    if len(listed) != len(axes):
        return voxel_size, translation
    given = axis_units(axes, units, axis_types)
    sizes, shifts, _ = unit_table.convert(voxel_size, translation, given, [want or None for want in listed],
                                          spatial_indices(axes), where="group attributes", axes=axes, quiet=True)
    return sizes, shifts


def listed_axes(multiscale: Mapping[str, Any]) -> tuple[tuple[Any, ...], tuple[str | None, ...]]:
    """A multiscale's axis names and types (None where no type is written), in order."""
    items = [a if isinstance(a, Mapping) else {"name": a} for a in multiscale.get("axes") or []]
    types = tuple(a.get("type") if isinstance(a.get("type"), str) else None for a in items)
    return tuple(a.get("name") for a in items), types


def _agreed_types(multiscale, axes, axis_types) -> tuple[str | None, ...] | None:
    """The types of the level's axes: those given, else the listed type of a non-spatial axis whose name implies
    none. A type given that differs from the one listed raises: one multiscales lists levels of one set of axes."""
    names, listed = listed_axes(multiscale)
    given = (None,) * len(axes) if axis_types is None else tuple(axis_types)
    if len(listed) != len(axes) or len(given) != len(axes):
        return axis_types
    for name, mine, theirs in zip(names, given, listed, strict=True):
        if mine is not None and theirs is not None and mine != theirs:
            raise ValueError(f"axis_types is {list(given)!r}: axis {name!r} is {mine!r}; the group's multiscales "
                             f"lists it as {theirs!r}, and one multiscales lists levels of one set of axes")
    spatial = spatial_indices(axes)  # a type the name or the reader's spatial axes imply is not taken from others
    return tuple(mine or (theirs if name not in _TYPE_OF_NAME and i not in spatial else None)
                 for i, (name, mine, theirs) in enumerate(zip(names, given, listed, strict=True)))


def group_axis_types(attrs: Mapping[str, Any], axes: Sequence[str],
                     axis_types: Sequence[str | None] | None = None) -> tuple[str | None, ...] | None:
    """The types of a level's axes in a group whose attributes are ``attrs``: as ``with_entry`` takes them from the
    group's first multiscales, where it has one (``axis_types`` where given)."""
    multiscales = multiscales_of(attrs) or []
    first = multiscales[0] if multiscales and isinstance(multiscales[0], Mapping) else None
    found = axis_types if first is None else _agreed_types(first, axes, axis_types)
    return None if found is None else tuple(found)


def type_differences(attrs: Mapping[str, Any], name: str, axis_types: Sequence[str | None] | None) -> list[str]:
    """Each axis type given that the multiscales listing ``name`` in a group's ``attrs`` types otherwise."""
    multiscale = next((m for m, path, _ in walk(attrs) if path == name), None)
    if axis_types is None or multiscale is None:
        return []
    names, types = listed_axes(multiscale)
    return [f"axis_types[{i}] ({axis!r}): found {theirs!r}, wanted {mine!r}"
            for i, (axis, mine, theirs) in enumerate(zip(names, axis_types, types, strict=False))
            if mine is not None and theirs is not None and mine != theirs]


def check_dimension_names(url: str, array: Mapping[str, Any], axes: Sequence[str], group: str) -> None:
    """A zarr v3 array that an OME 0.5 multiscales lists has dimension_names equal to the axis names (OME-NGFF 0.5);
    ``array`` is its zarr.json at ``url``. Names that are present and differ are refused; missing ones (or all null)
    are listed with a MetadataWarning, since the package changes no array and nothing is at risk."""
    found = array.get("dimension_names")
    if found is None or (isinstance(found, list) and all(name is None for name in found)):
        warn(f"{url}: dimension_names is {found!r}; OME-NGFF 0.5 wants them equal to the axes {list(axes)} of the "
             f"multiscales of {group}. Listed all the same: the package changes no array (give it those "
             "dimension_names with your own code to make it valid OME-NGFF 0.5)")
        return
    if isinstance(found, list) and list(found) == list(axes):
        return
    raise ValueError(f"{url}: dimension_names is {found!r}; expected {list(axes)}, the axes of the OME 0.5 "
                     f"multiscales of {group}, which OME-NGFF 0.5 requires them to equal. The package changes no "
                     "array: give it those dimension_names with your own code, or list it with axes= equal to its "
                     "dimension_names in a group that lists no levels")


def with_entry(attrs: Mapping[str, Any], fmt: str, axes: Sequence[str], units: unit_table.UnitsArgument, name: str,
               voxel_size: Sequence[float], translation: Sequence[float],
               axis_types: Sequence[str | None] | None = None) -> dict[str, Any]:
    """Group attributes with this level's dataset entry added or replaced, datasets in order of voxel size; nothing
    else changed.

    The entry is written so that it reads back at the placement asked for: in the units the group's multiscales
    already uses, and under its multiscale-level transforms when it has them. An entry whose path names the same
    level in another spelling (``"./s0"``) is the one replaced. ``axis_types`` types the axes of a new multiscales;
    into one that exists, an axis whose name implies no type takes the type listed unless given.
    """
    version = version_of(fmt)
    merged = json.loads(json.dumps(attrs))  # a deep copy: the caller's document is never edited in place
    container = _container(merged, fmt)
    existing = container.get("multiscales")
    _check_version(container, existing, version)
    if not existing:
        fresh = ome_multiscales(axes, units, [(name, voxel_size, translation)], version, axis_types)
        container["multiscales"] = fresh.get("ome", fresh)["multiscales"]
        return merged
    multiscale = existing[0]
    listed = listed_axes(multiscale)[0]
    if listed and listed != tuple(axes):
        raise ValueError(f"the group's multiscales axes are {list(listed)}; the level's axes {list(axes)} differ, "
                         "and one multiscales lists levels of one set of axes")
    axis_types = _agreed_types(multiscale, axes, axis_types)
    voxel_size, translation = _in_group_units(multiscale, axes, units, axis_types, voxel_size, translation)
    voxel_size, translation = _under_multiscale_transforms(multiscale, voxel_size, translation)
    fresh = ome_multiscales(axes, units, [(name, voxel_size, translation)], version, axis_types)
    entry = fresh.get("ome", fresh)["multiscales"][0]["datasets"][0]
    multiscale["datasets"] = _placed_in_order(multiscale.get("datasets") or [], name, entry)
    return merged


def _check_version(container: Mapping[str, Any], existing: Any, version: str) -> None:
    """Refuse to add an entry to multiscales of another OME version than the one written: versions never mix in one
    group, and an entry in 0.5's spelling inside 0.6's coordinate systems would be read elsewhere than asked."""
    multiscales = existing if isinstance(existing, list) else []
    in_container = version == OME_ZARR3_VERSION  # 0.5 keeps its version beside the multiscales, 0.4 in each one
    found = container.get("version") if in_container else next(
        (m.get("version") for m in multiscales if isinstance(m, Mapping) and "version" in m), None)
    systems = any(isinstance(m, Mapping) and "coordinateSystems" in m for m in multiscales)
    if systems or (found is not None and str(found) != version):
        raise ValueError(f"the group's multiscales are OME {found if found is not None else '0.6'}"
                         f"{' (coordinateSystems)' if systems else ''}; worldarray writes OME {version} here and "
                         "never mixes versions in one group; add this level with the tool that wrote the group, or "
                         "create it in a group of its own")


def _placed_in_order(datasets: list, name: str, entry: dict) -> list:
    """The datasets with ``entry`` in place of the one named ``name`` where that keeps the scales in order, else after
    the last entry of no larger scale; the other entries keep their order."""
    scale = _scale_of(entry)
    old = [i for i, dataset in enumerate(datasets) if dataset_path(dataset) == name]
    kept = [dataset for dataset in datasets if dataset_path(dataset) != name]
    if old:
        at = old[0]
        before, after = kept[:at], kept[at:]
        if all(_scale_of(d) <= scale for d in before) and all(_scale_of(d) >= scale for d in after):
            return before + [entry] + after
    at = max((i + 1 for i, dataset in enumerate(kept) if _scale_of(dataset) <= scale), default=0)
    return kept[:at] + [entry] + kept[at:]
