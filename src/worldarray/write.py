"""Writing is reading inverted: what this module writes, ``wa.metadata`` reads back as the same placement, and it
never deletes, truncates or overwrites anything.

The package writes OME-NGFF zarr only: 0.4 in zarr v2, 0.5 in zarr v3 (never 0.4 in zarr v3; the documents are built
by ``ome``). ``create_level`` makes the array first (create-if-absent) and only then, its creator alone, writes
the level's dataset entry into the group document; an existing array is refused (``exists="error"``) or
adopted when identical (``exists="adopt"``), and one that appears under a creation (a lost race) is compared with
its winner's entry. Group documents are written conditionally on the generation read and merged again on a
conflict, so concurrent creators lose no entry. ``write_index`` writes whole write units, so writers in different
processes need no lock (``aligned``). ``level_placement`` and ``level_shape`` place and size a level made by
whole-block factors.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TYPE_CHECKING, TypeAlias

import numpy as np
import tensorstore as ts

from . import conditional, consolidated, retry, rounds, store
from .context import locking_context, shared_context
from .detect import Gathered, Node, array_above, gather, probe, source_of
from .formats import FORMATS, WRITTEN
from .diagnostics import quiet
from .fields import exact_value, json_fill, stored_fill
from .geometry import Sizes, default_axes, isclose, over_axes, positive_steps, spatial_indices
from .factors import level_placement, level_shape
from .blocks import whole_numbers
from .grid import shard_shape
from .metadata import ArrayMeta, parse
from .paths import PathLike, plain_name
from .ome import first_listing, walk
from .ome_write import (AXIS_TYPES, OME_VERSIONS, axis_units, check_dimension_names, group_axis_types, listed_axes,
                        ome_multiscales, type_differences, with_entry)
from .units import NANOMETER, UnitsArgument, convert

if TYPE_CHECKING:  # numpy.typing only annotates here
    from numpy.typing import DTypeLike

__all__ = ["OME_VERSIONS", "AXIS_TYPES", "ome_multiscales", "level_placement", "level_shape", "codecs_of",
           "axis_units", "ensure_group_entry"]

EXISTS = ("error", "adopt")
#: A codec choice of ``create``: "zstd", "none", a zarr v2 compressor dict or a zarr v3 codecs list.
Codecs: TypeAlias = "str | Mapping[str, Any] | Sequence[Mapping[str, Any]]"
_ZSTD_LEVEL = 3  # what zarr-python's default zstd(level=0) means
#: The array attribute that records ``create(store_fill=True)``.
STORE_FILL_KEY = "worldarray"


# ---------------------------------------------------------------- one level to create, checked


@dataclass(frozen=True)
class Level:
    """One level to create, every argument checked before anything is written."""

    path: str
    shape: tuple[int, ...]
    dtype: np.dtype
    axes: tuple[str, ...]
    units: UnitsArgument
    voxel_size: tuple[float, ...]  # over every axis
    translation: tuple[float, ...]
    chunks: tuple[int, ...]
    shards: tuple[int, ...] | None
    fill_value: Any
    codecs: Any
    format: str | None
    attrs: Mapping[str, Any]
    group_attrs: Mapping[str, Any]
    exists: str
    axis_types: tuple[str | None, ...] | None = None  # per axis; None entries: the type the name implies

    @property
    def group(self) -> str:
        return store.parent(self.path) or self.path

    @property
    def name(self) -> str:
        return store.basename(self.path)

    @property
    def spatial(self) -> tuple[int, ...]:
        return spatial_indices(self.axes)


def plan_level(path: str, *, shape: int | Sequence[int], dtype: DTypeLike, voxel_size: Sizes, translation: Sizes,
               axes: Sequence[str] | None = None, units: UnitsArgument = NANOMETER,
               chunks: int | Sequence[int] | None = None, shards: int | Sequence[int] | None = None,
               fill_value: float = 0, codecs: Codecs = "zstd", format: str | None = None,
               attrs: Mapping[str, Any] | None = None, group_attrs: Mapping[str, Any] | None = None,
               exists: str = "error", axis_types: Sequence[str | None] | None = None) -> Level:
    """Check every argument of create, naming the argument and the value found when one is wrong."""
    path = store.normalize(path)
    if store.parent(path) is None:
        raise ValueError(f"path is {path!r}; expected a level under a group, such as '.../volume.zarr/s0'")
    shape = whole_numbers("shape", shape, 1 if isinstance(shape, int) else len(tuple(shape)), low=0)
    ndim = len(shape)
    try:
        dtype = np.dtype(dtype)
    except TypeError as error:
        raise ValueError(f"dtype is {dtype!r}; expected a numpy data type") from error
    axes = tuple(default_axes(ndim) if axes is None else axes)
    if len(axes) != ndim or len(set(axes)) != ndim or not all(isinstance(a, str) and a for a in axes):
        raise ValueError(f"axes is {axes!r}; expected {ndim} distinct names, one per axis")
    spatial = spatial_indices(axes)
    axis_units(axes, units, axis_types)  # every axis typed, and its unit one OME writes on that type
    if chunks is None:
        raise ValueError("chunks is required: the storage chunk (the inner chunk when sharded); the package never "
                         "picks one")
    chunks = whole_numbers("chunks", chunks, ndim)
    if format not in (None, *OME_VERSIONS.values()):
        raise ValueError(f"format is {format!r}; expected 'zarr3', 'zarr2' or None (follow the group)")
    shards = shard_shape(shards, chunks, axes, format)
    if exists not in EXISTS:
        raise ValueError(f"exists is {exists!r}; expected one of {EXISTS}")
    if not (isinstance(codecs, str) and codecs in ("zstd", "none")) and not isinstance(codecs, (list, tuple, Mapping)):
        raise ValueError(f"codecs is {codecs!r}; expected 'zstd', 'none', a zarr v2 compressor dict or a zarr v3 "
                         "codecs list")
    fill_value = exact_value("fill_value", stored_fill(fill_value), dtype)
    try:
        signed = over_axes(voxel_size, ndim, spatial, 1.0, "voxel_size")
    except ValueError:
        signed = ()  # not numbers at all: the check below names the value
    positive_steps(signed, voxel_size, axes[:len(signed)])
    return Level(path, shape, dtype, axes, units,
                 over_axes(voxel_size, ndim, spatial, 1.0, "voxel_size", positive=True),
                 over_axes(translation, ndim, spatial, 0.0, "translation"), chunks, shards, fill_value, codecs,
                 format, dict(attrs or {}), dict(group_attrs or {}), exists,
                 None if axis_types is None else tuple(axis_types))


# ---------------------------------------------------------------- the format, and the groups above


def _probe(path: str) -> Gathered | None:
    """What is at a path, None when nothing is (a seam the race test replaces)."""
    return probe(path)


def _zarr_node(found: Gathered | None, path: str, role: str) -> Node | None:
    if found is None:
        return None
    node = found.node
    if node.format not in OME_VERSIONS.values():
        raise ValueError(f"{path}: the {role} is {node.format}; the package writes OME-NGFF zarr (v2 or v3) only")
    return node


def resolve_format(level: Level) -> tuple[str, Node | None, list[str]]:
    """The zarr format to write, the group node when it has documents, and the bare groups to write above it.

    The group's own document decides; else the nearest existing ancestor's; else ``format``, else zarr v3.
    A format that contradicts the group (or that ancestor) raises ValueError.
    """
    group = _zarr_node(_probe(level.group), level.group, "group")
    if group is not None and group.kind != "group":
        raise ValueError(f"{level.group}: is a {group.format} array; a level's parent must be a group")
    found: str | None = group.format if group is not None else None
    missing: list[str] = []
    if group is None or not group.docs:
        found, missing = _ancestors(level.group, found)
    fmt = found or level.format or WRITTEN["0.5"]
    if level.format is not None and level.format != fmt:
        raise ValueError(f"format is {level.format!r}; the group {level.group} (or its nearest existing ancestor) is "
                         f"{fmt}, and the package does not mix zarr versions in one hierarchy")
    if level.shards is not None and not FORMATS[fmt].sharded:
        raise ValueError(f"shards is {level.shards}; {level.group} is {fmt}, and sharding is zarr v3 only")
    return fmt, (group if group is not None and group.docs else None), missing


def _ancestors(group: str, known: str | None) -> tuple[str | None, list[str]]:
    """Walk up to the nearest existing zarr node; return its format and the directories above the group to make
    groups of.

    Bare groups are written from the nearest existing ancestor, or from the ``.zarr`` directory, down; on a local
    disk with neither, only the level's own group is made.
    """
    chain: list[str] = []
    current = store.parent(group)
    while current is not None and not store.is_root(current):
        node = _zarr_node(_probe(current), current, "nearest existing ancestor")
        if node is not None:
            return known or node.format, chain[::-1] if node.kind == "group" else []
        chain.append(current)
        if store.basename(current).endswith(".zarr"):
            return known, chain[::-1]
        current = store.parent(current)
    return known, chain[::-1] if store.scheme(group) != "file" else []


def _group_document(fmt: str) -> tuple[str, Mapping[str, Any]]:
    """The bare group document of a format the package writes, and its key."""
    document = FORMATS[fmt].group_document
    if document is None:
        raise ValueError(f"format is {fmt!r}; the package writes OME-NGFF zarr only, one of {tuple(WRITTEN.values())}")
    return document


def bare_group(directory: str, fmt: str) -> None:
    """Write a bare group document where none is (create-if-absent: a document another writer made is kept)."""
    key, bare = _group_document(fmt)
    conditional.update_document(directory, key, lambda found: bare if found is None else found)


def _merged_group_attrs(attrs: dict, extra: Mapping[str, Any], group: str) -> dict:
    for key, value in extra.items():
        if key in attrs and attrs[key] != value:
            raise ValueError(f"{group}: group_attrs {key!r} is {value!r}; the group already holds {attrs[key]!r}, "
                             "and the package rewrites no one else's key")
        attrs.setdefault(key, value)
    return attrs


def _listed(attrs: Mapping[str, Any], name: str) -> bool:
    return any(path == name for _, path, _ in walk(attrs))


def entry_attrs(level: Level, fmt: str, attrs: Mapping[str, Any], *, replace: bool = True) -> dict:
    """The group's attributes with this level's dataset entry added (or replaced, unless ``replace`` is False and
    one is listed) and ``group_attrs`` merged; nothing else changed."""
    if not replace and _listed(attrs, level.name):
        merged = json.loads(json.dumps(attrs))
    else:
        merged = with_entry(attrs, fmt, level.axes, level.units, level.name, level.voxel_size, level.translation,
                            level.axis_types)
    return _merged_group_attrs(merged, level.group_attrs, level.group)


def _with_attributes(fmt: str, group: str, attributes: Any, change: Any) -> Any:
    """The group's attribute document (``zarr.json`` or ``.zattrs``) with ``change`` applied to its attributes."""
    if FORMATS[fmt].attributes_apart:
        return change(attributes or {})
    document = dict(attributes or _group_document(fmt)[1])
    if document.get("node_type") != "group":
        raise ValueError(f"{store.url(group, 'zarr.json')}: node_type is {document.get('node_type')!r}, "
                         "wanted 'group'")
    return {**document, "attributes": change(dict(document.get("attributes") or {}))}


def write_entry(level: Level, fmt: str, *, replace: bool = True) -> None:
    """Write this level's dataset entry into its group's document (made when absent), conditional on the generation
    read and merged again when another writer changed the document first; an unchanged document is not
    written. Every consolidated copy above the level (the group's own and its ancestors') then gains the array,
    each group on the way it did not list, and the group's new attributes, each copy conditionally too."""
    def change(attrs: dict) -> dict:
        return entry_attrs(level, fmt, attrs, replace=replace)

    bare_group(level.group, fmt)
    added = consolidated.added(fmt, level.group, level.path, change)
    conditional.update_document(level.group, FORMATS[fmt].attrs_document, lambda found: added.own(_with_attributes(
        fmt, level.group, found, change)))
    added.keep_true()


def ensure_group_entry(group: PathLike, name: str, voxel_size: Sizes, translation: Sizes,
                       axes: Sequence[str] | None = None, units: UnitsArgument = NANOMETER,
                       axis_types: Sequence[str | None] | None = None) -> None:
    """List an array the package did not create (a symlinked or hand-made level) in its group's multiscales.

    The group's axes are kept when it lists levels already; else ``axes`` (default: the array's own names, else
    the default names), ``units`` and ``axis_types`` (as ``wa.ome_multiscales`` takes them; an axis whose name
    implies no type takes the type the group lists, unless given). As for create: only this entry
    changes, and every consolidated copy of the group's metadata that covers the array is kept true. The
    array is never changed.

    Raises
    ------
    FileNotFoundError
        When there is no array at ``group/name``.
    ValueError
        When the group is zarr v3 (OME 0.5) and the array is a zarr v3 array whose ``dimension_names`` are missing
        or differ from the multiscale's axis names, which OME-NGFF 0.5 requires them to equal.
    """
    group = store.normalize(group)
    path = store.join(group, plain_name("name", name))
    node = _zarr_node(_probe(group), group, "group")
    array = _zarr_node(_probe(path), path, "level")
    if array is None or array.kind != "array":
        raise FileNotFoundError(f"{path}: no array to list in {group}")
    with quiet():  # the array is about to be listed: its parent not listing it is the point
        meta = parse(source_of(gather(path)))
    attrs = node.attrs if node is not None else {}
    if axes is None:
        listing = first_listing(attrs)
        axes = listed_axes(listing[0])[0] if listing and listing[0].get("axes") else meta.axes
    level = plan_level(path, shape=meta.shape, dtype=meta.dtype, voxel_size=voxel_size, translation=translation,
                       axes=axes, units=units, chunks=meta.chunk_shape,
                       axis_types=group_axis_types(attrs, axes, axis_types))
    fmt = array.format if node is None or not node.docs else node.format
    if FORMATS[fmt].dimension_names and FORMATS[array.format].dimension_names:
        document = FORMATS[array.format].array_document
        check_dimension_names(store.url(path, document), array.docs[document], level.axes, group)
    write_entry(level, fmt)


# ---------------------------------------------------------------- the array


def _zarr3_codecs(level: Level) -> list:
    if isinstance(level.codecs, (list, tuple)):
        inner = [dict(c) for c in level.codecs]
    elif isinstance(level.codecs, Mapping):
        raise ValueError(f"codecs is {level.codecs!r}, a zarr v2 compressor; a zarr v3 array takes a codecs list")
    else:
        inner = [{"name": "bytes", "configuration": {"endian": "little"}}]
        if level.codecs == "zstd":  # the default: bytes then zstd, as zarr-python writes it
            inner.append({"name": "zstd", "configuration": {"level": _ZSTD_LEVEL, "checksum": False}})
    if level.shards is None:
        return inner
    index = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
    return [{"name": "sharding_indexed", "configuration": {"chunk_shape": list(level.chunks), "codecs": inner,
                                                           "index_codecs": index, "index_location": "end"}}]


def _zarr2_compressor(level: Level) -> dict | None:
    if isinstance(level.codecs, Mapping):
        return dict(level.codecs)
    if isinstance(level.codecs, (list, tuple)):
        raise ValueError(f"codecs is {level.codecs!r}, a zarr v3 codecs list; a zarr v2 array takes a compressor dict")
    return {"id": "zstd", "level": _ZSTD_LEVEL} if level.codecs == "zstd" else None


def array_spec(level: Level, fmt: str) -> dict:
    """The tensorstore spec (without kvstore) that creates the level's array, and only creates it."""
    if fmt not in _ARRAY_SPECS:
        raise ValueError(f"format is {fmt!r}; the package writes OME-NGFF zarr only, one of {tuple(_ARRAY_SPECS)}")
    return _ARRAY_SPECS[fmt](level, json_fill(level.fill_value, level.dtype))


def _zarr3_spec(level: Level, fill: Any) -> dict:
    metadata = {
        "shape": list(level.shape), "data_type": level.dtype.name,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(level.shards or level.chunks)}},
        "chunk_key_encoding": {"name": "default"}, "codecs": _zarr3_codecs(level),
        "fill_value": fill, "dimension_names": list(level.axes),
    }
    if level.attrs:
        metadata["attributes"] = dict(level.attrs)
    return {"driver": "zarr3", "metadata": metadata, "create": True}


def _zarr2_spec(level: Level, fill: Any) -> dict:
    metadata = {
        "zarr_format": 2, "shape": list(level.shape), "chunks": list(level.chunks), "dtype": level.dtype.str,
        "compressor": _zarr2_compressor(level), "fill_value": fill,
        "order": "C", "filters": None, "dimension_separator": "/",  # OME-NGFF 0.4 asks for "/"
    }
    return {"driver": "zarr", "metadata": metadata, "create": True}


#: Per format the package writes, the tensorstore spec that creates a level's array (from the level and its fill).
_ARRAY_SPECS: dict[str, Callable[[Level, Any], dict]] = {"zarr3": _zarr3_spec, "zarr2": _zarr2_spec}


def differences(found: ArrayMeta, found_attrs: Mapping[str, Any], level: Level) -> list[str]:
    """Every field in which an existing array differs from the level asked for, with the value found and wanted.

    The placement is compared in the units asked for: each spatial axis of the array found is converted from its
    own unit (nanometres when it has none) into the level's.
    """
    out = []
    wanted: dict[str, Any] = {"shape": level.shape, "dtype": level.dtype, "chunks": level.chunks,
                              "shards": level.shards}
    have: dict[str, Any] = {"shape": found.shape, "dtype": found.dtype, "chunks": found.chunk_shape,
                            "shards": found.shard_shape}
    for key, value in wanted.items():
        if (value != have[key]) if key == "dtype" else tuple(value or ()) != tuple(have[key] or ()):
            out.append(f"{key}: found {have[key]}, wanted {value}")
    comparable = len(found.units) == len(level.axes)
    asked = axis_units(level.axes, level.units, level.axis_types) if comparable else ("",) * len(found.units)
    targets = [asked[i] or None if i in level.spatial else None for i in range(len(found.units))]
    sizes, shifts, _ = convert(found.voxel_size, found.translation, found.units, targets, found.spatial,
                               strict=False, quiet=True)
    in_units = ", ".join(asked[i] or "-" for i in level.spatial) if comparable else "the store units"
    for key, got in (("voxel_size", sizes), ("translation", shifts)):
        mine = tuple(got[i] if i < len(got) else math.nan for i in level.spatial)
        want = tuple(getattr(level, key)[i] for i in level.spatial)
        if not comparable or not all(isclose(a, b) for a, b in zip(mine, want, strict=True)):
            out.append(f"{key}: found {mine}, wanted {want} (in {in_units})")
    for key, value in level.attrs.items():
        if key not in found_attrs:
            out.append(f"attrs[{key!r}]: missing, wanted {value!r}")
        elif found_attrs[key] != value:
            out.append(f"attrs[{key!r}]: found {found_attrs[key]!r}, wanted {value!r}")
    return out


def adopt(level: Level, found: Gathered) -> None:
    """Accept an existing array only when it is the one asked for; else ValueError listing every difference."""
    node = found.node
    if node.kind != "array":
        raise FileExistsError(f"{level.path}: a {node.format} group is there; create makes arrays only")
    meta = parse(source_of(found), metadata_conflicts="warn")
    parent = found.ancestors[0].attrs if found.ancestors else {}
    listed = differences(meta, node.attrs, level) + type_differences(parent, level.name, level.axis_types)
    if listed:
        raise ValueError(f"{level.path}: exists='adopt' found an array that differs from the one asked for: "
                         + "; ".join(listed))


def _dry_run(spec: dict, level: Level) -> None:
    """Let tensorstore parse the array's metadata on a throwaway in-memory store, so a bad codec is refused before
    any write."""
    try:
        ts.open({**spec, "kvstore": {"driver": "memory"}}, context=ts.Context()).result()
    except ValueError as error:
        raise ValueError(f"{level.path}: tensorstore refuses the array's metadata: {error}") from error


def _is_listed(level: Level, found: Gathered) -> bool:
    """Whether the parent's documents gathered with ``found`` list the level (a group found counts as listed, for
    adopt to refuse)."""
    parent = found.ancestors[0] if found.ancestors else None
    return found.node.kind != "array" or (parent is not None and _listed(parent.attrs, level.name))


def _listed_array(level: Level) -> Gathered | None:
    """What is at the level's path once a dataset entry in its group lists it; None before."""
    found = _probe(level.path)
    return found if found is not None and _is_listed(level, found) else None


def _adopt_listed(level: Level, found: Gathered | None) -> None:
    """Adopt the array another creator made, once its creator's entry lists it (waiting with the creation race's
    backoff); FileExistsError when no entry comes."""
    if found is None or not _is_listed(level, found):
        found = retry.poll(lambda: _listed_array(level))
    if found is None:
        raise FileExistsError(
            f"{level.path}: an array is here that no dataset entry of {level.group} lists, after "
            f"{retry.RACE_ATTEMPTS} re-reads (a creation stopped between its array and its entry, or one still "
            "running); list it with wa.ensure_group_entry(group, name, voxel_size, translation), then adopt it")
    adopt(level, found)


def _refuse_inside_array(level: Level) -> None:
    above = array_above(level.path)
    if above is not None:
        raise FileExistsError(f"{level.path}: {above.path} above it is a {above.format} array; nothing is created "
                              "inside an array")


def make_array(level: Level, spec: dict, context: ts.Context | None) -> str:
    """Create the array if absent: "made", "lost" (another creator made it first) or "maybe" (it appeared on a
    retry after an attempt of ours timed out, so ours may have made it)."""
    # memory:// data lives in the context; OS locks keep create-if-absent atomic under a lock-free one
    opening = locking_context(context if context is not None else shared_context())
    tried: list[str] = []

    def start(way: store.Way) -> Any:
        tried.append(way.name)
        return ts.open({**spec, "kvstore": way.spec}, context=opening)

    try:
        store.on_ways(level.path, start, level.path)
    except Exception as error:
        if "ALREADY_EXISTS" not in str(error):
            raise
        return "maybe" if tried.count(tried[-1]) > 1 else "lost"
    return "made"


def create_level(level: Level, context: ts.Context | None) -> str:
    """Create the array, then (its creator alone) its dataset entry in the group; return the format written.

    Documents and the open are timed out and retried under the governing ``retry`` policy.
    """
    with rounds.remembering(own=True):  # the checks before anything is written read each document once
        existing = _probe(level.path)
        if existing is None:
            _refuse_inside_array(level)
            fmt, group, missing = resolve_format(level)
    if existing is not None:
        if level.exists == "error":
            raise FileExistsError(f"{level.path}: something is already there ({existing.node.format} "
                                  f"{existing.node.kind}); create never overwrites (pass exists='adopt' to open an "
                                  "identical array)")
        _adopt_listed(level, existing)
        return existing.node.format
    spec = array_spec(level, fmt)
    _dry_run(spec, level)
    entry_attrs(level, fmt, group.attrs if group is not None else {})  # refuse a bad entry before any write
    for directory in [*missing, level.group]:
        bare_group(directory, fmt)
    made = make_array(level, spec, context)
    if made == "lost":  # the store said absent, then the array appeared: the winner's entry decides (A17)
        _adopt_listed(level, None)
        return fmt
    if made == "maybe":  # ours or another creator's: a creator writes its entry at once, so wait for one first
        listed = retry.poll(lambda: _listed_array(level))
        if listed is not None:
            adopt(level, listed)
            return fmt
    if FORMATS[fmt].attributes_apart and level.attrs:
        conditional.update_document(level.path, FORMATS[fmt].attrs_document,
                                    lambda found: dict(level.attrs) if found is None else found)
    write_entry(level, fmt, replace=made == "made")
    if made == "maybe":
        adopt(level, gather(level.path))
    return fmt


def stores_fill(meta: ArrayMeta) -> bool:
    """Whether the array was created with ``store_fill=True``, which its attributes record."""
    recorded = meta.attrs.get(STORE_FILL_KEY)
    return isinstance(recorded, Mapping) and recorded.get("store_fill") is True


def codecs_of(path: PathLike) -> tuple[Codecs | None, tuple[int, ...] | None]:
    """An existing zarr array's codecs (a v3 codecs list, the inner one when sharded, or a v2 compressor) and shard
    shape, to create a sibling with the same compression.

    >>> vol = wa.create("memory://doc/codecs.zarr/s0", (4,), "uint8", 1, 0.5, axes=("x",), chunks=4)
    >>> [codec["name"] for codec in codecs_of(vol.level_path)[0]], codecs_of(vol.level_path)[1]
    (['bytes', 'zstd'], None)
    """
    node = gather(store.normalize(path)).node
    if FORMATS[node.format].ome_version is None or node.kind != "array":
        raise ValueError(f"{node.path}: is a {node.format} {node.kind}; codecs_of reads zarr arrays")
    document = node.docs[FORMATS[node.format].array_document]
    if "codecs" not in document:  # zarr v2: one compressor
        return document.get("compressor"), None
    codecs = document.get("codecs") or []
    if codecs and codecs[0].get("name") == "sharding_indexed":
        shards = tuple(document["chunk_grid"]["configuration"]["chunk_shape"])
        return list(codecs[0]["configuration"].get("codecs") or []), shards
    return list(codecs), None
