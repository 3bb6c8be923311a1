"""A CF ``grid_mapping`` variable with a GDAL ``GeoTransform`` places the arrays that name it, as
``spatial:transform`` would place them.

An array's ``grid_mapping`` attribute names the grid-mapping variable beside it, a 0-d array such as
``spatial_ref`` (CF's extended form ``"crs: x y"`` names one or more, each followed by a colon). The first of them
whose attributes hold ``GeoTransform`` places the array: a string of six numbers ``"c a b f d e"`` in GDAL order,
x = c + a*col + b*row and y = f + d*col + e*row, where col indexes the array's last dimension and row the one
before (the two spatial axes; any other axis, such as ``band``, is not spatial). ``(c, f)`` is the outer corner of
pixel (0, 0) (pixel registration), so voxel 0's centre is ``(f + e/2, c + a/2)``; a negative step (``e < 0``,
north-up) is a negative voxel size. A rotation or shear (``b`` or ``d`` not 0) warns and places nothing. The unit
is the one the variable's WKT names (``crs_wkt``, else ``spatial_ref``); a CRS whose unit cannot be told leaves ""
with a MetadataWarning. The variable's documents reach the rule in ``Source.related``, by name; no I/O here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .diagnostics import warn
from .fields import Document, Facts, Placement, Source, text, where
from .geometry import default_axes
from .spatial import axis_aligned, wkt_unit
from .units import kind, ome_name

__all__ = ["grid_mapping_placement", "mapping_names", "geo_transform",
           "GRID_MAPPING_KEY", "GEO_TRANSFORM_KEY", "CRS_KEYS"]

#: The attribute of a data array that names its grid-mapping variables.
GRID_MAPPING_KEY = "grid_mapping"
#: The grid-mapping variable's attribute that holds GDAL's affine, six numbers "c a b f d e".
GEO_TRANSFORM_KEY = "GeoTransform"
#: The grid-mapping variable's attributes that hold its CRS as WKT, the first present giving the unit.
CRS_KEYS = ("crs_wkt", "spatial_ref")

_NAME = re.compile(r"[^\s:/]+")
_EXTENDED = re.compile(r"([^\s:/]+):")


def mapping_names(value: Any, url: str) -> tuple[str, ...]:
    """The grid-mapping variable names a ``grid_mapping`` attribute gives: the one name, or in CF's extended form
    each name followed by a colon (the coordinate names after it are not variables of the mapping).

    >>> mapping_names("spatial_ref", "a/zarr.json"), mapping_names("crs: x y crs_geo: lat lon", "a/zarr.json")
    (('spatial_ref',), ('crs', 'crs_geo'))
    >>> mapping_names("", "a/.zattrs")
    Traceback (most recent call last):
    ...
    ValueError: a/.zattrs: grid_mapping is ''; expected a variable name, or 'name: coordinates ...' (CF)
    """
    found = text(value, url, GRID_MAPPING_KEY).strip()
    names = tuple(_EXTENDED.findall(found)) if ":" in found else (found,)
    if not names or not all(_NAME.fullmatch(name) for name in names):
        raise ValueError(f"{where(url, GRID_MAPPING_KEY)} is {value!r}; expected a variable name, or "
                         "'name: coordinates ...' (CF)")
    return names


def geo_transform(value: Any, url: str) -> tuple[float, ...]:
    """GDAL's six numbers ``c a b f d e`` from a ``GeoTransform`` string (a list of six numbers is read alike).

    >>> geo_transform("500000.0 10.0 0.0 6200000.0 0.0 -10.0", "s/zarr.json")
    (500000.0, 10.0, 0.0, 6200000.0, 0.0, -10.0)
    >>> geo_transform("1 2 3", "s/.zattrs")
    Traceback (most recent call last):
    ...
    ValueError: s/.zattrs: GeoTransform is '1 2 3'; expected six finite numbers 'c a b f d e' (GDAL order)
    """
    items = value.replace(",", " ").split() if isinstance(value, str) else value
    wrong = ValueError(f"{where(url, GEO_TRANSFORM_KEY)} is {value!r:.120}; expected six finite numbers "
                       "'c a b f d e' (GDAL order)")
    if not isinstance(items, list) or len(items) != 6:
        raise wrong
    try:
        numbers = tuple(float(item) for item in items if not isinstance(item, bool))
    except (TypeError, ValueError):
        raise wrong from None
    if len(numbers) != 6 or not all(math.isfinite(number) for number in numbers):
        raise wrong
    return numbers


def _unit(doc: Document) -> str:
    """The unit the variable's WKT names ("meter", "degree", ...); "" with a warning when none tells it."""
    for key in CRS_KEYS:
        wkt = doc.attrs.get(key)
        name = wkt_unit(wkt) if isinstance(wkt, str) else None
        if name is not None and kind(name) in ("space", "angle"):
            return ome_name(name)
        if isinstance(wkt, str):
            break  # the first WKT present is the CRS; a second is not asked to overrule it
    told = {key: doc.attrs[key] for key in CRS_KEYS if key in doc.attrs}
    shown = f"the CRS {told!r:.80}" if told else f"no CRS ({' or '.join(CRS_KEYS)})"
    warn(f"{doc.url}: {shown} does not tell the unit of the spatial axes; they have no unit (pass base_units= to "
         "give it)")
    return ""


def _mapping(source: Source, names: tuple[str, ...]) -> Document | None:
    """The first named grid-mapping variable whose attributes hold a GeoTransform; None when none does."""
    return next((source.related[name] for name in names
                 if name in source.related and GEO_TRANSFORM_KEY in source.related[name].attrs), None)


def grid_mapping_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """CF ``grid_mapping``: the array's last two axes placed by the ``GeoTransform`` of the grid-mapping variable
    its attributes name; None when they name none or no named variable beside the array holds one.

    >>> own = Document("t.zarr/elev", "t.zarr/elev/zarr.json", {"grid_mapping": "spatial_ref"})
    >>> crs = Document("t.zarr/spatial_ref", "t.zarr/spatial_ref/zarr.json", {
    ...     "GeoTransform": "500000.0 10.0 0.0 6200000.0 0.0 -10.0", "crs_wkt": 'PROJCS["UTM 30N", UNIT["metre",1]]'})
    >>> facts = Facts((6, 8), "float32", (6, 8), None, 0, ("y", "x"))
    >>> found = grid_mapping_placement(Source("zarr3", own.path, {}, own.url, own, related={"spatial_ref": crs}),
    ...                                facts, 2, "error")
    >>> found.voxel_size, found.translation, found.units, found.spatial, sorted(found.crs)
    ((-10.0, 10.0), (6199995.0, 500005.0), ('meter', 'meter'), (0, 1), ['GeoTransform', 'crs_wkt'])
    """
    attrs, url = source.own.attrs, source.own.url
    if GRID_MAPPING_KEY not in attrs:
        return None
    doc = _mapping(source, mapping_names(attrs[GRID_MAPPING_KEY], url))
    if doc is None or ndim < 2:  # a 2-D affine places no array of fewer axes
        return None
    c, a, b, f, d, e = geo_transform(doc.attrs[GEO_TRANSFORM_KEY], doc.url)
    names = tuple(facts.names) if facts.names is not None else default_axes(ndim)
    row, col = ndim - 2, ndim - 1
    found = axis_aligned((a, b, c, d, e, f), where(doc.url, GEO_TRANSFORM_KEY), repr(doc.attrs[GEO_TRANSFORM_KEY]),
                         names, (row, col), (row, col))
    if found is None:
        return None
    sizes, translation = found
    unit = _unit(doc)
    units = tuple(unit if i in (row, col) else "" for i in range(ndim))
    return Placement(sizes, translation, units, facts.names, (row, col), dict(doc.attrs))
