"""N5 places an array by ``pixelResolution`` or ``resolution`` times its level's ``downsamplingFactors``, plus
``offset`` (a corner, the origin without one), all x-first.

The base size and unit are the array's, else its group's; the factors are the level's own, unless its group lists
one x-first list per level (n5-viewer's ``scales``, BigDataViewer's ``downsamplingFactors``, as Neuroglancer's N5
datasource reads them): level ``sN`` (``level_position``) then takes entry N on the group's base, else s0's, its own
factors and resolution checked against them with a warning naming both, and its shape against ``ceil(s0's shape /
f)``. ``n5_group_factors`` says under which key a group lists them. No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .diagnostics import warn
from .fields import Document, Facts, Placement, Source, axes_list, centred, ints, leading, numbers, strings, where
from .geometry import ceil_snapped, default_axes, same

__all__ = ["n5_placement", "level_position", "n5_group_factors"]


def _n5_base(doc: Document):
    """pixelResolution ({dimensions, unit} or a bare list) or resolution, x-first, with its unit if it has one."""
    attrs, url = doc.attrs, doc.url
    if "pixelResolution" in attrs:
        value = attrs["pixelResolution"]
        if isinstance(value, Mapping):
            return numbers(value.get("dimensions"), url, "pixelResolution.dimensions", positive=True), value.get("unit")
        return numbers(value, url, "pixelResolution", positive=True), None
    if "resolution" in attrs:
        return numbers(attrs["resolution"], url, "resolution", positive=True), None
    return None


def _n5_units(docs, covered):
    for doc in docs:
        value = doc.attrs.get("units")
        if isinstance(value, str):  # one unit written once means that unit on every axis
            return (value,) * covered
        if value is not None:
            return strings(value, doc.url, "units", covered)
    return None


_LEVEL_NAME = re.compile(r"s(0|[1-9][0-9]*)")

#: The keys under which an N5 group lists its levels' factors, one x-first list per level: n5-viewer's ``scales``,
#: BigDataViewer's ``downsamplingFactors``, both read by Neuroglancer's N5 datasource.
_N5_GROUP_FACTOR_KEYS = ("scales", "downsamplingFactors")


def level_position(path: str) -> int | None:
    """A level's position N from its name ``sN``, as a group's probing for s0, s1, ... finds them; None for another.

    >>> level_position("vol.n5/s2"), level_position("vol.n5/raw")
    (2, None)
    """
    found = _LEVEL_NAME.fullmatch(path.rstrip("/").rsplit("/", 1)[-1])
    return int(found.group(1)) if found else None


def n5_group_factors(attrs: Mapping[str, Any]) -> str | None:
    """The key under which an N5 group lists its levels' factors, a list of per-level lists; None when it lists none."""
    for key in _N5_GROUP_FACTOR_KEYS:
        value = attrs.get(key)
        if isinstance(value, list) and any(isinstance(entry, list) for entry in value):
            return key
    return None


def _group_factors(source: Source) -> tuple[tuple[float, ...], str] | None:
    """The factors an N5 group lists for the level at position N (``sN``), with where they were found; None when
    the group lists none, or fewer than N + 1 levels."""
    parent, position = source.parent, level_position(source.path)
    key = n5_group_factors(parent.attrs) if parent is not None else None
    if parent is None or key is None or position is None or position >= len(parent.attrs[key]):
        return None
    label = f"{key}[{position}]"
    return numbers(parent.attrs[key][position], parent.url, label, positive=True), where(parent.url, label)


def _check_level_shape(source: Source, factors: tuple[float, ...], label: str) -> None:
    """A level the group's list places is ceil(s0's shape / f) within one voxel on every axis; else a warning naming
    both. The lists are x-first, as N5 stores them; the factors cover the leading (x-first) entries."""
    first = source.first_level
    if first is None or first.path == source.path:
        return
    dims = ints(source.array.get("dimensions"), source.array_url, "dimensions")
    base = ints(first.attrs.get("dimensions"), first.url, "dimensions")
    covered = min(len(factors), len(dims), len(base))
    wanted = [ceil_snapped(n / f) for n, f in zip(base[:covered], factors[:covered], strict=True)]
    if any(abs(n - w) > 1 for n, w in zip(dims[:covered], wanted, strict=True)):
        warn(f"{where(source.array_url, 'dimensions')} is {list(dims)}; expected {wanted} within one voxel: s0's "
             f"dimensions {list(base)} ({first.url}) over {label} {list(factors)}, rounded up (x-first)")


def _n5_factors(source: Source) -> tuple[tuple[float, ...], str] | None:
    """The level's downsamplingFactors (x-first) and where they were found: the group's list entry N for level
    ``sN``, which wins over the level's own with a warning naming both, else the level's own; None when neither."""
    own, url = source.own.attrs, source.own.url
    given = (numbers(own["downsamplingFactors"], url, "downsamplingFactors", positive=True)
             if "downsamplingFactors" in own else None)
    listed = _group_factors(source)
    if listed is None:
        return (given, where(url, "downsamplingFactors")) if given is not None else None
    factors, label = listed
    if given is not None and given != factors:
        warn(f"{where(url, 'downsamplingFactors')} is {list(given)}; the group's {label} is {list(factors)}; "
             "reading with the group's, as Neuroglancer does")
    _check_level_shape(source, factors, label)
    return listed


def _n5_level_base(source: Source, docs: list[Document], listed: bool):
    """The base voxel size an N5 level's factors multiply, with where it was found: without a group factor list the
    level's own pixelResolution / resolution, else the group's; with one, the group's, else level 0's (the
    level's own when it is level 0, or when level 0's document was not read)."""
    if not listed:
        return next(((b, d) for d in docs for b in (_n5_base(d),) if b is not None), (None, None))
    first = source.first_level
    order = [d for d in (source.parent, first if first is not None and first.path != source.path else None) if d]
    order.append(source.own)  # the last resort: level 0 unread, and the group states no resolution
    return next(((b, d) for d in order for b in (_n5_base(d),) if b is not None), (None, None))


def _check_level_resolution(source: Source, base, found_in: Document | None, factors) -> None:
    """A level's own resolution beside a group factor list is checked, never multiplied again: equal to the base
    (BigDataViewer's spelling) or to base x factors (cellmap-schemas') passes; anything else warns naming both."""
    own = _n5_base(source.own)
    if own is None or found_in is None or found_in.path == source.path:
        return
    sizes = tuple(s * f for s, f in zip(base[0], factors, strict=False))
    if same(own[0], base[0]) or same(own[0], sizes):
        return
    key = "pixelResolution" if "pixelResolution" in source.own.attrs else "resolution"
    warn(f"{where(source.own.url, key)} is {list(own[0])}; expected the base {list(base[0])} ({found_in.url}) or the "
         f"base times the group's factors {list(factors)}, {list(sizes)} (x-first); reading base x factors, as "
         "Neuroglancer does")


def n5_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """N5: pixelResolution or resolution times the level's factors (the group's list, else its own
    downsamplingFactors), plus offset; x-first lists. Beside a group factor list the base is the group's, else level
    0's, and the level's own resolution is checked against it."""
    docs = [d for d in (source.own, source.parent) if d is not None]
    own, url = source.own.attrs, source.own.url
    given = _n5_factors(source)
    listed = _group_factors(source) is not None
    base, found_in = _n5_level_base(source, docs, listed)
    if base is None and given is None:
        return None
    covered = len(base[0]) if base else len(given[0]) if given else 0
    sizes = base[0] if base else (1.0,) * covered
    factors = given[0] if given else (1.0,) * covered
    if len(factors) != covered:
        raise ValueError(f"{given[1] if given else url} is {list(factors)}; expected {covered} entries")
    if listed and base is not None:
        _check_level_resolution(source, base, found_in, factors)
    corner = numbers(own["offset"], url, "offset", covered) if "offset" in own else (0.0,) * covered
    units = _n5_units(docs, covered) or ((base[1],) * covered if base and base[1] else ("",) * covered)
    axes = next((d.attrs["axes"] for d in docs if "axes" in d.attrs), None)
    axes = axes_list(strings(axes, url, "axes", covered)[::-1], ndim, url, "axes") if axes is not None else None
    voxel = leading(tuple(s * f for s, f in zip(sizes, factors, strict=True))[::-1], ndim, 1.0, url, "resolution")
    corner = leading(corner[::-1], ndim, 0.0, url, "offset")  # without an offset the corner is the origin
    names = axes or facts.names or default_axes(ndim)
    return Placement(voxel, centred(corner, voxel, names, covered), leading(units[::-1], ndim, "", url, "units"), axes)
