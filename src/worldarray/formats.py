"""A storage format is one record: the documents that hold an array's metadata and its user attributes, the probe
key that names it, and the tensorstore spec that opens an array of it from the documents already read, in C order.

``FORMATS`` holds the records by name; ``PROBES`` the probe keys in the order that decides a path's format. How a
format places an array is ``metadata.RULES``; how it spells a chunk key, ``keys``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import tensorstore as ts

from .fields import mapping
from .precomputed import scale_keys

class Held(Protocol):
    """What a format's opener reads of a node: its documents, and for a precomputed scale its key and where its
    attributes are (``nodes.Node`` is one)."""

    @property
    def docs(self) -> Mapping[str, Any]: ...

    @property
    def scale_key(self) -> str | None: ...

    @property
    def attrs_url(self) -> str: ...

__all__ = ["Format", "FORMATS", "PROBES", "PROBE_KEYS", "clean_zarr2_metadata", "scale_index"]


_N5_ARRAY_MEMBERS = ("dimensions", "blockSize", "dataType", "compression")
# The members tensorstore's zarr v2 driver accepts per compressor id; any other member fails the open.
_ZARR2_COMPRESSOR_MEMBERS = {
    "zstd": frozenset({"id", "level"}),
    "blosc": frozenset({"id", "cname", "clevel", "shuffle", "blocksize"}),
    "gzip": frozenset({"id", "level"}),
    "zlib": frozenset({"id", "level"}),
    "bz2": frozenset({"id", "level"}),
}


def clean_zarr2_metadata(zarray: Mapping[str, Any]) -> dict:
    """Return a copy of a parsed .zarray whose compressor lacks the members tensorstore rejects.

    Only the compressor changes: it loses the members tensorstore does not accept for its id (zstd's
    ``checksum``, written by newer numcodecs; ``typesize``). A compressor id it does not know is kept whole.

    >>> clean_zarr2_metadata({"compressor": {"id": "zstd", "level": 3, "checksum": True}})
    {'compressor': {'id': 'zstd', 'level': 3}}
    """
    cleaned = dict(zarray)
    compressor = zarray.get("compressor")
    if isinstance(compressor, dict) and compressor.get("id") in _ZARR2_COMPRESSOR_MEMBERS:
        accepted = _ZARR2_COMPRESSOR_MEMBERS[compressor["id"]]
        cleaned["compressor"] = {name: value for name, value in compressor.items() if name in accepted}
    return cleaned


def scale_index(node: Held) -> int:
    """The position of a precomputed scale node's scale among its info's scales."""
    return scale_keys(node.docs["info"], node.attrs_url).index(str(node.scale_key))


_PRECOMPUTED_SCALE = ("key", "size", "voxel_offset", "resolution", "encoding", "sharding")
# the members tensorstore's scale_metadata accepts only beside their encoding
_PRECOMPUTED_ENCODING = {"jpeg": "jpeg_quality", "png": "png_level",
                         "compressed_segmentation": "compressed_segmentation_block_size"}


def _precomputed_spec(node: Held) -> dict:
    """The scale's metadata as tensorstore takes it, so the info read already is not read again (its first chunk
    size, as tensorstore takes it too)."""
    info, index = node.docs["info"], scale_index(node)
    scale = info["scales"][index]
    metadata = {key: scale[key] for key in _PRECOMPUTED_SCALE if key in scale}
    if isinstance(scale.get("chunk_sizes"), list) and scale["chunk_sizes"]:
        metadata["chunk_size"] = scale["chunk_sizes"][0]
    extra = _PRECOMPUTED_ENCODING.get(str(scale.get("encoding")))
    if extra is not None and extra in scale:
        metadata[extra] = scale[extra]
    multiscale = {key: info[key] for key in ("type", "data_type", "num_channels") if key in info}
    return {"driver": "neuroglancer_precomputed", "scale_index": index, "assume_metadata": True,
            "multiscale_metadata": multiscale, "scale_metadata": metadata}


def _precomputed_c_order(view: ts.TensorStore) -> ts.TensorStore:
    view = view[ts.d["channel", "z", "y", "x"].transpose[:]]
    if view.shape[0] == 1:
        view = view[ts.d["channel"][0]]
    return view


@dataclass(frozen=True)
class Format:
    """What one format is to detection and opening.

    ``array_document`` holds an array's metadata and ``attrs_document`` its user attributes (``user_attrs``
    reads them from the parsed documents); ``spec`` is the tensorstore spec, kvstore aside, that opens an array
    node from the documents already read, and ``c_order`` the view that puts its axes in C order.
    """

    name: str
    array_document: str
    attrs_document: str
    user_attrs: Callable[[Mapping[str, Any]], dict]
    spec: Callable[[Held], dict]
    c_order: Callable[[ts.TensorStore], ts.TensorStore]


#: Per format, its documents and its opener; the rules that place its arrays are ``metadata.RULES``.
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("zarr3", "zarr.json", "zarr.json",
           lambda docs: dict(docs.get("zarr.json", {}).get("attributes") or {}),
           lambda node: {"driver": "zarr3", "assume_metadata": True,
                         "metadata": {k: v for k, v in node.docs["zarr.json"].items() if k != "attributes"}},
           lambda view: view),
    Format("zarr2", ".zarray", ".zattrs",
           lambda docs: dict(docs.get(".zattrs") or {}),
           lambda node: {"driver": "zarr", "assume_metadata": True,
                         "metadata": clean_zarr2_metadata(node.docs[".zarray"])},
           lambda view: view),
    # tensorstore is given only the array members of an N5 document, so attributes it would reject do not stop it
    Format("n5", "attributes.json", "attributes.json",
           lambda docs: dict(docs.get("attributes.json") or {}),
           lambda node: {"driver": "n5", "assume_metadata": True, "metadata": {
               k: v for k, v in node.docs["attributes.json"].items() if k in _N5_ARRAY_MEMBERS}},
           lambda view: view.T),
    Format("precomputed", "info", "info",
           lambda docs: {k: v for k, v in (docs.get("info") or {}).items() if k != "scales"},
           _precomputed_spec, _precomputed_c_order),
)}



def _zarr3_kind(doc: Mapping[str, Any], url: str) -> Any:
    mapping(doc.get("attributes"), url, "attributes")  # the node's user attributes, read as an object everywhere
    return doc.get("node_type")


# The probe keys in the order that decides the format, each with its format and the kind it makes the node (from
# the document and its URL).
PROBES: tuple[tuple[str, str, Callable[[Mapping[str, Any], str], Any]], ...] = (
    ("zarr.json", "zarr3", _zarr3_kind),
    (".zarray", "zarr2", lambda doc, url: "array"),
    (".zgroup", "zarr2", lambda doc, url: "group"),
    ("info", "precomputed", lambda doc, url: "group"),
    ("attributes.json", "n5", lambda doc, url: "array" if "dimensions" in doc else "group"),
)

#: Probe keys, in the order that decides the format.
PROBE_KEYS = tuple(key for key, _, _ in PROBES)
