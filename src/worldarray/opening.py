"""A level opens as a tensorstore with C-order axes and origin 0, from the documents already read.

zarr and N5 arrays open with ``assume_metadata``: tensorstore is handed the array document the
package has parsed, so it reads nothing again and attributes it would reject do not stop the open.
"""

from __future__ import annotations

from typing import Callable

import tensorstore as ts

from . import store
from .context import shared_context
from .detect import Gathered, Node, source_of
from .retry import Retry

__all__ = ["open_array", "clean_zarr2_metadata"]

_N5_ARRAY_MEMBERS = ("dimensions", "blockSize", "dataType", "compression")
# The members tensorstore's zarr v2 driver accepts per compressor id; any other member fails the open.
_ZARR2_COMPRESSOR_MEMBERS = {
    "zstd": frozenset({"id", "level"}),
    "blosc": frozenset({"id", "cname", "clevel", "shuffle", "blocksize"}),
    "gzip": frozenset({"id", "level"}),
    "zlib": frozenset({"id", "level"}),
    "bz2": frozenset({"id", "level"}),
}


def clean_zarr2_metadata(zarray: dict) -> dict:
    """Return a copy of a parsed .zarray whose compressor lacks the members tensorstore rejects.

    Only the compressor changes: it loses the members tensorstore does not accept for its id (zstd's
    ``checksum``, written by newer numcodecs; ``typesize``). A compressor id it does not know is kept whole.

    >>> clean_zarr2_metadata({"compressor": {"id": "zstd", "level": 3, "checksum": True}})
    {'compressor': {'id': 'zstd', 'level': 3}}
    """
    cleaned = dict(zarray)
    compressor = zarray.get("compressor")
    accepted = _ZARR2_COMPRESSOR_MEMBERS.get(compressor.get("id")) if isinstance(compressor, dict) else None
    if accepted is not None:
        cleaned["compressor"] = {name: value for name, value in compressor.items() if name in accepted}
    return cleaned



def _zarr2_spec(node: Node) -> dict:
    return {"driver": "zarr", "metadata": clean_zarr2_metadata(node.docs[".zarray"]), "assume_metadata": True}


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


def open_array(found: Gathered, context: ts.Context | None, write: bool = False, store_fill: bool = False,
               retries: Retry | None = None) -> ts.TensorStore:
    """Open an array node through its store's access ways; the result has C-order axes and origin 0.

    ``write`` opens it for writing too; ``store_fill`` stores write units equal to the fill value
    (by default they are left absent, and a stored unit written to all-fill loses its key).
    """
    node = found.node
    source_of(found)  # raises for a group
    make_spec, view = _OPENERS[node.format]
    spec = make_spec(node)
    context = context if context is not None else shared_context()
    policy = retries or Retry()
    timeout = policy.document_timing()[0]  # opening reads no voxels: Behaviour 6's formula at no bytes

    def attempt(way: store.Way) -> ts.TensorStore:
        options = {"store_data_equal_to_fill_value": True} if store_fill else {}
        opening = {**spec, **options, "kvstore": way.spec, "open": True}
        return policy.run(lambda: ts.open(opening, context=context, read=True, write=write), timeout, f"open {node.path}")

    opened = store.with_fallback(node.path, attempt)
    opened = view(opened)
    # the origin reset lives here and nowhere else; bounds are made explicit so reads past them fail
    return opened[ts.d[:].translate_to[0]][ts.d[:].mark_bounds_implicit[False]]
