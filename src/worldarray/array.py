"""The public calls: what a path's documents say (``metadata``) and its voxels as a C-order, origin-0 tensorstore."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

import tensorstore as ts

from . import store
from .context import shared_context
from .detect import Gathered, Node, source_of
from .levels import resolve
from .metadata import ArrayMeta, parse

__all__ = ["metadata", "open_tensorstore"]

_N5_ARRAY_MEMBERS = ("dimensions", "blockSize", "dataType", "compression")


def _zarr2_spec(node: Node) -> dict:
    return {"driver": "zarr", "metadata": store.clean_zarr2_metadata(node.docs[".zarray"]), "assume_metadata": True}


def _zarr3_spec(node: Node) -> dict:
    document = {k: v for k, v in node.docs["zarr.json"].items() if k != "attributes"}
    return {"driver": "zarr3", "metadata": document, "assume_metadata": True}


def _n5_spec(node: Node) -> dict:
    # tensorstore is given only the array members, so attributes it would reject do not stop the open
    members = {k: v for k, v in node.docs["attributes.json"].items() if k in _N5_ARRAY_MEMBERS}
    return {"driver": "n5", "metadata": members, "assume_metadata": True}


def _precomputed_spec(node: Node) -> dict:
    keys = [s.get("key") for s in node.docs["info"].get("scales") or []]
    return {"driver": "neuroglancer_precomputed", "scale_index": keys.index(node.scale_key)}


def _c_order(view: ts.TensorStore) -> ts.TensorStore:
    return view


def _reversed(view: ts.TensorStore) -> ts.TensorStore:
    return view.T


def _precomputed_c_order(view: ts.TensorStore) -> ts.TensorStore:
    view = view[ts.d["channel", "z", "y", "x"].transpose[:]]
    if view.shape[0] == 1:
        view = view[ts.d["channel"][0]]
    return view


#: Per format: the tensorstore spec (without kvstore) built from the documents, and the view that makes it C order.
_OPENERS: dict[str, tuple[Callable[[Node], dict], Callable[[ts.TensorStore], ts.TensorStore]]] = {
    "zarr2": (_zarr2_spec, _c_order),
    "zarr3": (_zarr3_spec, _c_order),
    "n5": (_n5_spec, _reversed),
    "precomputed": (_precomputed_spec, _precomputed_c_order),
}


def _open_array(found: Gathered, context: ts.Context | None) -> ts.TensorStore:
    """Open an array node through its store's access ways; the result has C-order axes and origin 0."""
    node = found.node
    source_of(found)  # raises for a group
    make_spec, view = _OPENERS[node.format]
    spec = make_spec(node)
    context = context if context is not None else shared_context()

    def attempt(way: store.Way) -> ts.TensorStore:
        return ts.open({**spec, "kvstore": way.spec, "open": True}, context=context, read=True).result()

    opened = store.with_fallback(node.path, attempt)
    opened = view(opened)
    # the origin reset lives here and nowhere else; bounds are made explicit so reads past them fail
    return opened[ts.d[:].translate_to[0]][ts.d[:].mark_bounds_implicit[False]]


def open_tensorstore(path, level: Any = None, context: ts.Context | None = None) -> ts.TensorStore:
    """Open the array ``path`` (and ``level``) names as a tensorstore with C-order axes and origin 0.

    Reads no world metadata, so an array with odd placement attributes still opens. N5 and
    precomputed are transposed to C order; a single-channel precomputed scale is (z, y, x).

    Raises
    ------
    FileNotFoundError
        When nothing is at ``path``.
    ValueError
        For a group path without a level, or a level that does not exist.

    >>> wa.open_tensorstore("memory://demo/volume.zarr", level="s0")  # doctest: +SKIP
    """
    return _open_array(resolve(path, level), context)


def _convert(meta: ArrayMeta, units, strict: bool = True) -> ArrayMeta:
    if units is None:
        return meta
    if isinstance(units, str):
        return meta.in_units(space=units, strict=strict)
    if isinstance(units, Mapping) and set(units) <= {"space", "time"}:
        return meta.in_units(space=units.get("space"), time=units.get("time"), strict=strict)
    raise ValueError(f"units is {units!r}; expected a unit name, a dict with 'space' and/or 'time', or None")


def metadata(
    path,
    level: Any = None,
    units: str | Mapping[str, str] | None = None,
    open: bool = True,
    *,
    metadata_conflicts: str = "error",
    strict_units: bool = True,
    context: ts.Context | None = None,
) -> ArrayMeta:
    """Return what the documents of the array ``path`` (and ``level``) say: shape, axes, units, voxel size, translation.

    Parameters
    ----------
    path : str or os.PathLike
        An array, a level under a multiscale group, or a group (then ``level`` names the level).
    level : str, int or None
        A level name, a position (0 or "first"), a precomputed scale key or an array path under the group.
    units : str, dict or None
        None keeps the store's units; "nanometer" converts the spatial axes; {"space": ..., "time": ...}
        converts per axis kind.
    open : bool
        True also opens the array through tensorstore and takes shape and chunks from it; False reads
        the documents alone.

    Raises
    ------
    ValueError
        On a malformed document (naming its URL, key and value) and on a voxel-size conflict between an OME
        scale and the array's own voxel size unless ``metadata_conflicts="warn"``.

    >>> wa.metadata("memory://demo/volume.zarr", level="s0").translation  # doctest: +SKIP
    (2.0, 2.0, 2.0)
    """
    found = resolve(path, level)
    meta = parse(source_of(found), metadata_conflicts=metadata_conflicts)
    if open:
        opened = _open_array(found, context)
        meta = dataclasses.replace(meta, shape=tuple(int(n) for n in opened.shape), dtype=opened.dtype.numpy_dtype.name)
    return _convert(meta, units, strict_units)
