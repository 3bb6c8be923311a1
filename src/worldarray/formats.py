"""A storage format is one record: the documents that hold an array's metadata and its user attributes, the probe
key that names it, and the tensorstore spec that opens an array of it from the documents already read, in C order.

``FORMATS`` holds the records by name; ``PROBES`` the probe keys in the order that decides a path's format. How a
format places an array is ``metadata.RULES``; how it spells a chunk key, ``keys``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


from .fields import (Facts, Source, entries, ints, mapping, names_or_none, native_dtype, strings, where,
                     whole)
from . import layouts
from .layouts import Layout
from .precomputed import chosen_scale, scale_keys
from .spellings import N5Keys, PrecomputedKeys, Spelling, Zarr2Keys, Zarr3Keys


class Held(Protocol):
    """What a format's opener reads of a node: its documents, and for a precomputed scale its key and where its
    attributes are (``nodes.Node`` is one)."""

    @property
    def docs(self) -> Mapping[str, Any]: ...

    @property
    def scale_key(self) -> str | None: ...

    @property
    def attrs_url(self) -> str: ...

__all__ = ["Format", "FORMATS", "WRITTEN", "PROBES", "PROBE_KEYS", "clean_zarr2_metadata", "scale_index"]


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


def _zarr2_facts(source: Source) -> Facts:
    doc, url = source.array, source.array_url
    shape = ints(doc.get("shape"), url, "shape")
    names = source.own.attrs.get("_ARRAY_DIMENSIONS")
    return Facts(
        shape=shape,
        dtype=native_dtype(doc.get("dtype"), where(url, "dtype")),
        chunk_shape=ints(doc.get("chunks"), url, "chunks", len(shape)),
        shard_shape=None,
        fill_value=doc.get("fill_value"),
        names=strings(names, source.own.url, "_ARRAY_DIMENSIONS", len(shape)) if names is not None else None,
    )


def _zarr3_facts(source: Source) -> Facts:
    doc, url = source.array, source.array_url
    shape = ints(doc.get("shape"), url, "shape")
    configuration = mapping(mapping(doc.get("chunk_grid"), url, "chunk_grid").get("configuration"), url,
                            "chunk_grid.configuration")
    grid = ints(configuration.get("chunk_shape"), url, "chunk_grid.configuration.chunk_shape", len(shape))
    codecs = entries(doc.get("codecs"), url, "codecs", kind="codec objects")
    inner, shard = grid, None
    if codecs and isinstance(codecs[0], Mapping) and codecs[0].get("name") == "sharding_indexed":
        sharding = mapping(codecs[0].get("configuration"), url, "codecs[0].configuration")
        inner = ints(sharding.get("chunk_shape"), url, "codecs[0].configuration.chunk_shape", len(shape))
        shard = grid
    names = names_or_none(doc.get("dimension_names"), url, "dimension_names", len(shape))
    if names is None and source.own.attrs.get("_ARRAY_DIMENSIONS") is not None:
        names = strings(source.own.attrs["_ARRAY_DIMENSIONS"], source.own.url, "_ARRAY_DIMENSIONS", len(shape))
    dtype = native_dtype(doc.get("data_type"), where(url, "data_type"))
    return Facts(shape, dtype, inner, shard, doc.get("fill_value"), names)


def _n5_facts(source: Source) -> Facts:
    doc, url = source.array, source.array_url
    shape = ints(doc.get("dimensions"), url, "dimensions")[::-1]
    names = doc.get("axes")
    return Facts(
        shape=shape,
        dtype=native_dtype(doc.get("dataType"), where(url, "dataType")),
        chunk_shape=ints(doc.get("blockSize"), url, "blockSize", len(shape))[::-1],
        shard_shape=None,
        fill_value=0,
        names=strings(names, url, "axes", len(shape))[::-1] if names is not None else None,
    )


def _precomputed_facts(source: Source) -> Facts:
    info, url = source.array, source.array_url
    scale = chosen_scale(source)
    key = f"scales[{source.scale_index or 0}]"
    channels = whole(info.get("num_channels", 1), url, "num_channels", minimum=1)
    size = ints(scale.get("size"), url, f"{key}.size", 3)[::-1]
    chunk_sizes = entries(scale.get("chunk_sizes"), url, f"{key}.chunk_sizes", kind="chunk shapes")
    chunks = ints((chunk_sizes or [None])[0], url, f"{key}.chunk_sizes[0]", 3)[::-1]
    lead = (channels,) if channels != 1 else ()
    return Facts(
        shape=lead + size,
        dtype=native_dtype(info.get("data_type"), where(url, "data_type")),
        chunk_shape=(channels,) * len(lead) + chunks,
        shard_shape=None,
        fill_value=0,
        names=("c", "z", "y", "x")[-len(lead + size):],
    )


@dataclass(frozen=True)
class Format:
    """What one storage format is, in one place: its documents, how it opens, and every way it differs.

    ``array_document`` holds an array's metadata and ``attrs_document`` its user attributes (``user_attrs``
    reads them from the parsed documents); ``spec`` is the tensorstore spec, kvstore aside, that opens an array
    node from the documents already read, ``facts`` what its array document says apart from placement, and
    ``stored_order`` how its axes are stored ("C"; "F", reversed; "xyzc",
precomputed's x, y, z and channel), which ``reach`` puts in C order. The rest says how
    the format differs from the others: where its levels are, what its groups list, what the package writes of it,
    and how Neuroglancer names it.
    """

    name: str
    array_document: str
    attrs_document: str
    user_attrs: Callable[[Mapping[str, Any]], dict]
    spec: Callable[[Held], dict]
    stored_order: str
    facts: Callable[[Source], Facts]
    #: how it spells a write unit's key (``keys``)
    keys: Spelling
    #: where a group keeps a consolidated copy of its hierarchy's metadata (``consolidated``), for a format written
    consolidated: Layout | None = None
    #: a volume's levels are the scales its one document lists (precomputed), not arrays below a group
    levels_in_info: bool = False
    #: a group's multiscales entries are COSEM transforms, every one (N5), not OME datasets
    cosem_datasets: bool = False
    #: a group may list its levels' factors, one list per level (N5's ``scales`` / ``downsamplingFactors``)
    factor_lists: bool = False
    #: the funlib keys that give a voxel size, and whether an ``offset`` alone places an array (voxels of 1)
    funlib_size_keys: tuple[str, ...] = ("voxel_size", "resolution", "scale")
    offset_alone_places: bool = True
    #: what the package writes of it: the OME-NGFF version, the bare group document, sharding, dimension names
    ome_version: str | None = None
    group_document: tuple[str, Mapping[str, Any]] | None = None
    sharded: bool = False
    dimension_names: bool = False
    #: Neuroglancer's scheme for it, and the name it gives an unnamed dimension (followed by its index)
    neuroglancer_scheme: str = ""
    neuroglancer_unnamed: str = "d"

    @property
    def attributes_apart(self) -> bool:
        """Whether user attributes live in a document of their own, beside the array's (zarr v2's ``.zattrs``)."""
        return self.attrs_document != self.array_document


#: Per format, its record; the rules that place its arrays are ``metadata.RULES``.
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("zarr3", "zarr.json", "zarr.json",
           lambda docs: dict(docs.get("zarr.json", {}).get("attributes") or {}),
           lambda node: {"driver": "zarr3", "assume_metadata": True,
                         "metadata": {k: v for k, v in node.docs["zarr.json"].items() if k != "attributes"}},
           "C", _zarr3_facts, Zarr3Keys(), consolidated=layouts.ZARR3, ome_version="0.5",
           group_document=("zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {}}),
           sharded=True, dimension_names=True, neuroglancer_scheme="zarr3", neuroglancer_unnamed="dim_"),
    Format("zarr2", ".zarray", ".zattrs",
           lambda docs: dict(docs.get(".zattrs") or {}),
           lambda node: {"driver": "zarr", "assume_metadata": True,
                         "metadata": clean_zarr2_metadata(node.docs[".zarray"])},
           "C", _zarr2_facts, Zarr2Keys(), consolidated=layouts.ZARR2, ome_version="0.4",
           group_document=(".zgroup", {"zarr_format": 2}),
           neuroglancer_scheme="zarr2"),
    # tensorstore is given only the array members of an N5 document, so attributes it would reject do not stop it
    Format("n5", "attributes.json", "attributes.json",
           lambda docs: dict(docs.get("attributes.json") or {}),
           lambda node: {"driver": "n5", "assume_metadata": True, "metadata": {
               k: v for k, v in node.docs["attributes.json"].items() if k in _N5_ARRAY_MEMBERS}},
           "F", _n5_facts, N5Keys(), cosem_datasets=True, factor_lists=True, funlib_size_keys=("voxel_size",),
           offset_alone_places=False, neuroglancer_scheme="n5"),
    Format("precomputed", "info", "info",
           lambda docs: {k: v for k, v in (docs.get("info") or {}).items() if k != "scales"},
           _precomputed_spec, "xyzc", _precomputed_facts, PrecomputedKeys(), levels_in_info=True,
           neuroglancer_scheme="precomputed"),
)}

#: The formats the package writes, by the OME-NGFF version it writes in each.
WRITTEN = {f.ome_version: f.name for f in FORMATS.values() if f.ome_version is not None}


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
