"""funlib places an array by its ``voxel_size`` (or ``resolution``) and ``offset`` (a corner), in C order, on the
array, else on its parent group.

zarr reads ``voxel_size``, ``resolution`` or ``scale`` and places an array with an ``offset`` alone at voxels of 1;
N5 reads ``voxel_size`` alone (``resolution`` there is the N5 rule's), both in C order, as zarr-python's N5 store
leaves them. ``units`` written once as a string is that unit on every axis; a list shorter than the array covers
its trailing axes. ``axis_names`` name the axes whether or not a voxel size or offset stands beside them
(``funlib_axis_names``). No I/O.
"""

from __future__ import annotations

from .fields import Document, Facts, Placement, Source, axes_list, centred, leading, numbers, strings, where
from .formats import FORMATS
from .geometry import default_axes

__all__ = ["funlib_placement", "funlib_axis_names"]



def _funlib_from(doc: Document, size_keys, offset_alone: bool, ndim, known_names) -> Placement | None:
    attrs, url = doc.attrs, doc.url
    key = next((k for k in size_keys if k in attrs), None)
    if key is None and (not offset_alone or "offset" not in attrs):
        return None
    given = numbers(attrs[key], url, key, positive=True) if key else None
    offset = numbers(attrs["offset"], url, "offset") if "offset" in attrs else ()  # funlib's offset is a corner
    covered = len(given) if given is not None else len(offset)
    sizes = given if given is not None else (1.0,) * covered
    corner = offset if "offset" in attrs else (0.0,) * covered
    if len(corner) != covered:
        raise ValueError(f"{where(url, 'offset')} is {list(corner)}; expected {covered} entries, as {key} has")
    units = attrs.get("units")
    if isinstance(units, str):  # one unit written once means that unit on every axis
        units = (units,) * covered
    units = strings(units, url, "units", covered) if units is not None else ("",) * covered
    axes = axes_list(attrs["axis_names"], ndim, url, "axis_names") if "axis_names" in attrs else None
    voxel = leading(sizes, ndim, 1.0, url, key or "offset")
    corner = leading(corner, ndim, 0.0, url, "offset")
    names = axes or known_names or default_axes(ndim)
    return Placement(voxel, centred(corner, voxel, names, covered), leading(units, ndim, "", url, "units"), axes)


def funlib_axis_names(source: Source, ndim: int) -> tuple[str, ...] | None:
    """funlib's ``axis_names`` name the axes whether or not a voxel size or offset stands beside them: the
    array's, else its parent group's when the array has none; None when neither names them.

    >>> own = Document("v.zarr/s0", "v.zarr/s0/.zattrs", {"axis_names": ["y", "x"]})
    >>> funlib_axis_names(Source("zarr2", "v.zarr/s0", {}, "v.zarr/s0/.zarray", own), 3)
    ('z', 'y', 'x')
    """
    for doc in (source.own, source.parent):
        if doc is not None and "axis_names" in doc.attrs:
            return axes_list(doc.attrs["axis_names"], ndim, doc.url, "axis_names")
    return None


def funlib_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """funlib: voxel_size / resolution and offset (a corner) in C order, on the array, else on its parent group."""
    form = FORMATS[source.format]
    for doc in (source.own, source.parent):
        if doc is not None:
            found = _funlib_from(doc, form.funlib_size_keys, form.offset_alone_places, ndim, facts.names)
            if found is not None:
                return found
    return None
