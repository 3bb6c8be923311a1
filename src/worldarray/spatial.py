"""The zarr-conventions ``spatial:`` attributes place an array by an affine ``spatial:transform`` over the axes
``spatial:dimensions`` names, in the unit its ``proj:`` CRS tells.

``spatial:`` attributes on the array place it; else its parent group's place each array directly inside it that
has none of its own. ``spatial:dimensions`` names the spatial axes by the array's dimension names, and only those
are spatial (a ``band`` axis gets voxel 1, translation 0, no unit and no half voxel). ``spatial:transform``
``[a, b, c, d, e, f]`` is in Affine/rasterio order: x = a*col + b*row + c, y = d*col + e*row + f, col the last
spatial dimension and row the one before; under ``spatial:registration`` "pixel" (the default) ``(c, f)`` is the
outer corner of pixel (0, 0), under "node" its centre. A negative step (``e < 0``, north-up) is a negative voxel
size. A rotation or shear, or a ``spatial:transform_type`` other than "affine", warns and places nothing.

The unit comes from ``proj:code`` (a UTM zone or a CRS of ``CRS_UNITS``), else from the unit ``proj:wkt2`` or
``proj:projjson`` names; a CRS whose unit cannot be told leaves "" with a MetadataWarning. No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .diagnostics import warn
from .fields import Document, Facts, Placement, Source, numbers, strings, text, where
from .geometry import corner_to_centre
from .layout import asset_of, inherited

__all__ = ["spatial_placement", "axis_aligned", "crs_unit", "wkt_unit", "CRS_UNITS"]

#: The CRSs by ``proj:code`` whose unit the package knows beyond the UTM zones (EPSG:326NN and EPSG:327NN, metre).
CRS_UNITS: Mapping[str, str] = {
    "EPSG:4326": "degree",  # WGS 84, geographic
    "EPSG:4258": "degree",  # ETRS89, geographic
    "EPSG:3857": "meter",  # WGS 84 / Pseudo-Mercator
    "EPSG:3035": "meter",  # ETRS89-extended / LAEA Europe
}

_UTM = re.compile(r"EPSG:32[67](0[1-9]|[1-5][0-9]|60)")
_WKT_UNITS = ("LENGTHUNIT", "ANGLEUNIT", "UNIT")
_WKT_NODE = re.compile(r'"(?:[^"]|"")*"|([A-Za-z_][A-Za-z0-9_]*)\s*[\[(]|[\])]')
_UNIT_NAMES = {"metre": "meter", "meter": "meter", "degree": "degree", "radian": "radian"}
_REGISTRATIONS = ("pixel", "node")


def _projjson_unit(value: Any) -> str | None:
    """The unit a PROJJSON object names: the first ``unit`` found, depth first (a name or an object with one)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            unit = item.get("unit")
            name = unit.get("name") if isinstance(unit, Mapping) else unit
            if isinstance(name, str):
                return name
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def wkt_unit(wkt: str) -> str | None:
    """The unit name a WKT string gives its coordinates, WKT2 (``LENGTHUNIT``, ``ANGLEUNIT``) or WKT1 as a CF
    ``crs_wkt`` holds it (``UNIT``): the last unit directly inside the outermost node (a PROJCS's length unit, not
    its GEOGCS's angle unit), else the first inside one of its AXIS nodes; None when there is neither.

    >>> wkt_unit('PROJCS["UTM 30N", GEOGCS["WGS 84", UNIT["degree", 0.0174532925199433]], UNIT["metre", 1]]')
    'metre'
    >>> wkt_unit('GEOGCS["WGS 84", DATUM["WGS_1984", SPHEROID["WGS 84", 6378137, 298.257223563]], '
    ...          'UNIT["degree", 0.0174532925199433]]')
    'degree'
    """
    path: list[str] = []  # the keywords of the open nodes, outermost first
    top: list[str] = []
    in_axis: list[str] = []
    for match in _WKT_NODE.finditer(wkt):
        token = match.group(0)
        if token.startswith('"'):
            continue
        if match.group(1) is None:  # a closing bracket
            if path:
                path.pop()
            continue
        keyword = match.group(1).upper()
        if keyword in _WKT_UNITS:
            name = re.match(r'\s*"((?:[^"]|"")*)"', wkt[match.end():])
            if name is not None:
                if len(path) == 1:
                    top.append(name.group(1))
                elif len(path) == 2 and path[1] == "AXIS":
                    in_axis.append(name.group(1))
        path.append(keyword)
    return top[-1] if top else in_axis[0] if in_axis else None


def crs_unit(attrs: Mapping[str, Any], url: str) -> str:
    """The unit of the spatial axes from the ``proj:`` attributes: "meter", "degree", or "" (with a warning) when the
    CRS does not tell, or there is none.

    >>> crs_unit({"proj:code": "EPSG:32630"}, "t.zarr/zarr.json"), crs_unit({"proj:code": "EPSG:4326"}, "")
    ('meter', 'degree')
    >>> crs_unit({"proj:wkt2": 'PROJCRS["x", CS[Cartesian, 2], LENGTHUNIT["metre", 1]]'}, "")
    'meter'
    """
    code = attrs.get("proj:code")
    if isinstance(code, str):
        if _UTM.fullmatch(code):
            return "meter"
        if code in CRS_UNITS:
            return CRS_UNITS[code]
    found: str | None = None
    wkt = attrs.get("proj:wkt2")
    if isinstance(wkt, str):
        found = wkt_unit(wkt)
    if found is None and "proj:projjson" in attrs:
        found = _projjson_unit(attrs["proj:projjson"])
    if found is not None and found.lower() in _UNIT_NAMES:
        return _UNIT_NAMES[found.lower()]
    told = {key: attrs[key] for key in ("proj:code", "proj:wkt2", "proj:projjson") if key in attrs}
    shown = f"the CRS {told!r:.80}" if told else "no proj: CRS"
    warn(f"{url}: {shown} does not tell the unit of the spatial axes; they have no unit (pass base_units= to "
         "give it)")
    return ""


def _has_spatial(attrs: Mapping[str, Any]) -> bool:
    return any(isinstance(key, str) and key.startswith("spatial:") for key in attrs)


def _proj(attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``proj:``-prefixed attributes as stored, as a plain dict; None when there are none."""
    found = {key: value for key, value in attrs.items() if isinstance(key, str) and key.startswith("proj:")}
    return found or None


def _level_document(source: Source) -> tuple[Document, bool] | None:
    """The attributes a level of a ``multiscales`` layout is placed by, when an ancestor's layout lists the array
    (or the group holding it): the layout group's ``spatial:dimensions``, registration and ``proj:``, under the
    level's own ``spatial:`` attributes (the asset group's, else the array's), under the entry's
    ``spatial:transform``. The bool says whether a dimension the document names must be the array's."""
    found = asset_of(source.ancestors, source.path)
    if found is None:
        return None
    group, entry, below = found
    layers = [inherited(group.attrs)]
    if below:  # the asset is a group: its own spatial: and proj: attributes, then the array's
        layers.append(_own_keys(source.ancestors[len(below.split("/")) - 1].attrs))
    layers.append(_own_keys(source.own.attrs))
    attrs = {key: value for layer in layers for key, value in layer.items()}
    url = source.own.url
    if entry.spatial_transform is not None:
        attrs["spatial:transform"], url = list(entry.spatial_transform), group.url
    return Document(source.path, url, attrs), "spatial:dimensions" in source.own.attrs


def _own_keys(attrs: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in attrs.items()
            if isinstance(key, str) and key.startswith(("spatial:", "proj:"))}


def _place(doc: Document, names: tuple[str, ...], ndim: int, own: bool) -> Placement | None:
    attrs, url = doc.attrs, doc.url
    if "spatial:dimensions" not in attrs or "spatial:transform" not in attrs:
        return None
    dimensions = strings(attrs["spatial:dimensions"], url, "spatial:dimensions")
    if len(dimensions) not in (2, 3) or len(set(dimensions)) != len(dimensions):
        raise ValueError(f"{where(url, 'spatial:dimensions')} is {list(dimensions)!r}; expected two or three "
                         "distinct dimension names")
    missing = [name for name in dimensions if name not in names]
    if missing:
        if own:
            raise ValueError(f"{where(url, 'spatial:dimensions')} names {missing!r}, which the array's dimensions "
                             f"{list(names)!r} do not have; expected names among them")
        return None  # a group's attributes place only the children that have its dimensions
    kind = attrs.get("spatial:transform_type", "affine")
    if kind != "affine":
        warn(f"{where(url, 'spatial:transform_type')} is {kind!r}; only 'affine' places an array, so it is unplaced")
        return None
    affine = numbers(attrs["spatial:transform"], url, "spatial:transform", length=6)
    registration = text(attrs.get("spatial:registration", "pixel"), url, "spatial:registration")
    if registration not in _REGISTRATIONS:
        raise ValueError(f"{where(url, 'spatial:registration')} is {registration!r}; expected one of "
                         f"{_REGISTRATIONS}")
    spatial = tuple(sorted(names.index(name) for name in dimensions))
    found = axis_aligned(affine, where(url, "spatial:transform"), repr(list(affine)), names,
                         (names.index(dimensions[-2]), names.index(dimensions[-1])),
                         spatial if registration == "pixel" else ())
    if found is None:
        return None
    sizes, translation = found
    unit = crs_unit(attrs, url)
    units = tuple(unit if i in spatial else "" for i in range(ndim))
    return Placement(sizes, translation, units, names, spatial, _proj(attrs))


def axis_aligned(affine: tuple[float, ...], label: str, shown: str, names: tuple[str, ...], axes: tuple[int, int],
                 centred: tuple[int, ...]) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """Voxel size and translation an affine ``[a, b, c, d, e, f]`` gives the ``(row, col)`` ``axes``: ``a`` and
    ``(c)`` on the column, ``e`` and ``(f)`` on the row, the origin moved half a step inward on the ``centred``
    axes (pixel registration), every other axis at voxel 1 and 0; None with a warning naming ``label`` and
    ``shown`` for a rotation or shear (``b`` or ``d`` not 0), ValueError for a step of 0.

    >>> axis_aligned((10, 0, 500000, 0, -10, 6200000), "t", "", ("y", "x", "band"), (0, 1), (0, 1))
    ((-10.0, 10.0, 1.0), (6199995.0, 500005.0, 0.0))
    """
    a, b, c, d, e, f = affine
    if b != 0 or d != 0:
        warn(f"{label} is {shown}, a rotation or shear (b or d not 0); only an axis-aligned transform places an "
             "array, so it is unplaced")
        return None
    if a == 0 or e == 0:
        raise ValueError(f"{label} is {shown}; expected steps a and e not 0")
    (row, col), ndim = axes, len(names)
    sizes, origin = [1.0] * ndim, [0.0] * ndim
    sizes[col], origin[col], sizes[row], origin[row] = float(a), float(c), float(e), float(f)
    # a third spatial dimension has no step in a 2-D affine: voxels of 1, its corner at 0
    return tuple(sizes), corner_to_centre(origin, sizes, names, spatial=centred)


def spatial_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """zarr-conventions ``spatial:``: a ``multiscales`` layout's level by its entry (``_level_document``), else the
    array's own attributes, else its parent group's, over the dimensions ``spatial:dimensions`` names; None when
    none has them or a group's name a dimension the array lacks.

    >>> group = Document("t.zarr", "t.zarr/zarr.json", {"spatial:dimensions": ["northing", "easting"],
    ...     "spatial:transform": [10, 0, 500000, 0, -10, 6200000], "proj:code": "EPSG:32630"})
    >>> facts = Facts((4, 6, 3), "int8", (4, 6, 3), None, 0, ("northing", "easting", "band"))
    >>> own = Document("t.zarr/embeddings", "t.zarr/embeddings/zarr.json", {})
    >>> found = spatial_placement(Source("zarr3", own.path, {}, own.url, own, (group,)), facts, 3, "error")
    >>> found.voxel_size, found.translation, found.units, found.spatial, found.crs
    ((-10.0, 10.0, 1.0), (6199995.0, 500005.0, 0.0), ('meter', 'meter', ''), (0, 1), {'proj:code': 'EPSG:32630'})
    """
    if facts.names is None:
        return None
    chosen = _level_document(source)
    if chosen is None:
        own = _has_spatial(source.own.attrs)
        doc = source.own if own else source.parent
        chosen = None if doc is None else (doc, own)
    if chosen is None:
        return None
    return _place(chosen[0], tuple(facts.names), ndim, chosen[1])
