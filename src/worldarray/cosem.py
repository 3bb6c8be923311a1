"""A COSEM transform places an array by a scale and a translate (voxel 0's centre) per axis, in C order unless its
axis order, spelled ``ordering`` or ``order``, is "F".

The transform is read from the array's own attributes, else from the parent's ``multiscales[].datasets[]`` entry
for this path (every N5 entry; a zarr entry only when it holds no OME transform, ``ome.cosem_entry``). The rule is
``cosem_placement``; ``cosem_transform`` places a group's listed levels too. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from .fields import Facts, Placement, Source, axes_list, leading, numbers, strings, where
from .formats import FORMATS
from .ome import cosem_entry, walk

__all__ = ["cosem_transform", "cosem_placement", "dataset_label"]


#: COSEM's axis orders: "C" lists the transform's entries in the array's C order, "F" reversed (x-first).
_COSEM_ORDERS = {"C": 1, "F": -1}


def _cosem_order(transform, url, label) -> int:
    """COSEM's axis order, spelled ``ordering`` or ``order`` (cellmap-schemas), "C" when absent; both spelled and
    different is a ValueError naming the document and both values."""
    given = {key: transform[key] for key in ("ordering", "order") if transform.get(key) is not None}
    if len(set(map(repr, given.values()))) > 1:
        raise ValueError(f"{where(url, label)} has ordering {given['ordering']!r} and order {given['order']!r}; "
                         "expected one axis order, 'C' or 'F' (spell it once)")
    key, value = next(iter(given.items()), ("order", "C"))
    if not isinstance(value, str) or value not in _COSEM_ORDERS:
        raise ValueError(f"{where(url, f'{label}.{key}')} is {value!r}; expected 'C' or 'F'")
    return _COSEM_ORDERS[value]


def cosem_transform(transform, ndim, url, label="transform") -> Placement:
    """One COSEM transform's placement over ``ndim`` axes; ``label`` is where in the document ``url`` it sits."""
    order = _cosem_order(transform, url, label)
    scale = numbers(transform.get("scale", [1.0] * ndim), url, f"{label}.scale", positive=True)[::order]
    move = numbers(transform.get("translate", [0.0] * len(scale)), url, f"{label}.translate", len(scale))[::order]
    units = strings(transform.get("units", [""] * len(scale)), url, f"{label}.units", len(scale))[::order]
    axes = transform.get("axes")
    return Placement(
        leading(scale, ndim, 1.0, url, f"{label}.scale"),
        leading(move, ndim, 0.0, url, f"{label}.translate"),  # COSEM's translate is voxel 0's centre
        leading(units, ndim, "", url, f"{label}.units"),
        axes_list(strings(axes, url, f"{label}.axes", len(scale))[::order], ndim, url, f"{label}.axes")
        if axes else None,
    )


def dataset_label(path: str) -> str:
    """Where a group's transform for the level ``path`` sits in its document, for messages."""
    return f"multiscales[].datasets[path={path}].transform"


def cosem_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """COSEM: the array's transform, else the parent's multiscales dataset transform for this path."""
    transform = source.own.attrs.get("transform")
    if isinstance(transform, Mapping):
        return cosem_transform(transform, ndim, source.own.url)
    parent = source.parent
    if parent is None:
        return None
    name = source.path.rstrip("/").rsplit("/", 1)[-1]
    for multiscale, path, dataset in walk(parent.attrs, parent.url):
        if path == name and (FORMATS[source.format].cosem_datasets or cosem_entry(multiscale, dataset)):
            if isinstance(dataset.get("transform"), Mapping):
                return cosem_transform(dataset["transform"], ndim, parent.url, dataset_label(path))
    return None
