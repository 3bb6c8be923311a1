"""The zarr-conventions ``multiscales`` layout: a group whose ``multiscales`` is an object with a ``layout`` list is
a pyramid whose levels are the entries' ``asset`` paths, in order.

An asset is a path relative to the group (``"0"``, ``"0/rgb"``), never absolute and never climbing with ``..``. An
entry may carry the level's ``spatial:transform`` (its absolute placement) and a ``transform`` object whose
``scale`` is the ratio of its voxel size to the one of the level it is ``derived_from`` and whose ``translation``
is the shift of its outer corner from that level's, in world units. The group passes its ``spatial:dimensions``,
``spatial:registration`` and ``proj:`` attributes down to the arrays of its levels (``inherited``). Nothing here
reads a store.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .fields import Document, entries, mapping, numbers, text, where
from .geometry import isclose

__all__ = ["Entry", "layout_of", "asset_of", "inherited", "transform_problems", "INHERITED_KEYS"]

#: The group attributes the arrays of its levels inherit (each level's step and origin are its entry's own).
INHERITED_KEYS = ("spatial:dimensions", "spatial:registration", "spatial:transform_type")


@dataclass(frozen=True)
class Entry:
    """One level of a ``multiscales`` layout: its asset path, the asset it is derived from, its ``transform``
    scale and translation, and its own ``spatial:transform`` (None where the entry gives none)."""

    asset: str
    derived_from: str | None = None
    scale: tuple[float, ...] | None = None
    translation: tuple[float, ...] | None = None
    spatial_transform: tuple[float, ...] | None = None


def _asset(value: Any, url: str, key: str) -> str:
    """An asset path in one spelling: relative, no leading "./", no trailing "/"; ValueError for an absolute path,
    one that climbs with "..", or an empty one."""
    path = text(value, url, key)
    parts = path.removeprefix("./").strip("/").split("/")
    if path.startswith("/") or ".." in parts or not all(parts):
        raise ValueError(f"{where(url, key)} is {path!r}; expected a path relative to the group, without '..'")
    return "/".join(parts)


def _entry(item: Any, url: str, label: str) -> Entry:
    item = mapping(item, url, label, required=True)
    if "asset" not in item:
        raise ValueError(f"{where(url, label)} has no 'asset'; expected the level's path relative to the group")
    asset = _asset(item["asset"], url, f"{label}.asset")
    derived = item.get("derived_from")
    transform = mapping(item.get("transform"), url, f"{label}.transform")
    scale, translation = transform.get("scale"), transform.get("translation")
    placed = item.get("spatial:transform")
    return Entry(
        asset,
        None if derived is None else _asset(derived, url, f"{label}.derived_from"),
        None if scale is None else numbers(scale, url, f"{label}.transform.scale", positive=True),
        None if translation is None else numbers(translation, url, f"{label}.transform.translation"),
        None if placed is None else numbers(placed, url, f"{label}.spatial:transform", length=6))


def layout_of(attrs: Mapping[str, Any], url: str) -> tuple[Entry, ...] | None:
    """The layout entries of a group's attributes (held by the document ``url``), in order; None when its
    ``multiscales`` is no object with a ``layout`` (an OME list is not one). Malformed entries, an empty layout or
    an asset listed twice raise ValueError naming the document and key.

    >>> layout_of({"multiscales": {"layout": [{"asset": "0"}, {"asset": "1", "derived_from": "0",
    ...     "transform": {"scale": [2, 2]}}]}}, "g/zarr.json")[1]
    Entry(asset='1', derived_from='0', scale=(2.0, 2.0), translation=None, spatial_transform=None)
    """
    found = attrs.get("multiscales")
    if not isinstance(found, Mapping) or "layout" not in found:
        return None
    items = entries(found["layout"], url, "multiscales.layout", kind="layout objects")
    if not items:
        raise ValueError(f"{where(url, 'multiscales.layout')} is []; expected at least one level")
    out = tuple(_entry(item, url, f"multiscales.layout[{i}]") for i, item in enumerate(items))
    assets = [entry.asset for entry in out]
    twice = sorted({asset for asset in assets if assets.count(asset) > 1})
    if twice:
        raise ValueError(f"{where(url, 'multiscales.layout')} lists {twice!r} more than once; expected each asset "
                         "once")
    return out


def asset_of(ancestors: Sequence[Document], path: str) -> tuple[Document, Entry, str] | None:
    """The layout that lists the array at ``path`` among ``ancestors`` (parent first): the group's document, the
    entry, and the array's path below the entry's asset ("" when the asset is the array itself); None when no
    ancestor's layout lists the array or a group above it."""
    parts = path.rstrip("/").split("/")
    for depth, doc in enumerate(ancestors, start=1):
        found = layout_of(doc.attrs, doc.url)
        if found is None:
            continue
        relative = parts[-depth:]
        for entry in found:
            asset = entry.asset.split("/")
            if relative[:len(asset)] == asset:
                return doc, entry, "/".join(relative[len(asset):])
    return None


def inherited(group: Mapping[str, Any]) -> dict[str, Any]:
    """What the arrays of a layout group's levels inherit from its attributes: ``spatial:dimensions``,
    ``spatial:registration``, ``spatial:transform_type`` and every ``proj:`` attribute.

    >>> inherited({"spatial:dimensions": ["y", "x"], "spatial:transform": [1, 0, 0, 0, -1, 0],
    ...            "proj:code": "EPSG:4326"})
    {'spatial:dimensions': ['y', 'x'], 'proj:code': 'EPSG:4326'}
    """
    return {key: value for key, value in group.items()
            if isinstance(key, str) and (key in INHERITED_KEYS or key.startswith("proj:"))}


def _corner(transform: Sequence[float]) -> tuple[float, float]:
    """The outer corner (row, column) of pixel (0, 0) an affine ``[a, b, c, d, e, f]`` gives: (f, c)."""
    return transform[5], transform[2]


def _steps(transform: Sequence[float]) -> tuple[float, float]:
    return transform[4], transform[0]


def transform_problems(entries_: Sequence[Entry], placed: Mapping[str, Sequence[float]], url: str) -> Iterator[str]:
    """Each entry whose ``transform.scale`` or ``translation`` (row then column, as ``spatial:dimensions`` orders
    them) disagrees, beyond rtol 1e-6, with the ``spatial:transform`` of it and of the level it is derived from
    (``placed``: each asset's transform, the entry's or the level's own): the scale is the ratio of their steps, the
    translation the shift of the outer corner in world units."""
    for index, entry in enumerate(entries_):
        if entry.derived_from is None or entry.asset not in placed or entry.derived_from not in placed:
            continue
        mine, base = placed[entry.asset], placed[entry.derived_from]
        label = f"{url}: multiscales.layout[{index}].transform"
        if entry.scale is not None:
            wanted = tuple(s / b for s, b in zip(_steps(mine), _steps(base), strict=True))
            if len(entry.scale) != 2 or not all(isclose(a, b) for a, b in zip(entry.scale, wanted, strict=True)):
                yield (f"{label}.scale is {list(entry.scale)}; the spatial:transform of {entry.asset!r} and "
                       f"{entry.derived_from!r} give {list(wanted)}")
        if entry.translation is not None:
            wanted = tuple(m - b for m, b in zip(_corner(mine), _corner(base), strict=True))
            steps = _steps(mine)
            if len(entry.translation) != 2 or not all(
                    isclose(a, b) or abs(a - b) <= 1e-6 * abs(s)
                    for a, b, s in zip(entry.translation, wanted, steps, strict=True)):
                yield (f"{label}.translation is {list(entry.translation)}; the spatial:transform of "
                       f"{entry.asset!r} and {entry.derived_from!r} give {list(wanted)}")
