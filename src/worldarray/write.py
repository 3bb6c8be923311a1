"""Writing is reading inverted: what this module writes, ``wa.metadata`` reads back as the same placement, and it
never deletes, truncates or overwrites anything.

The package writes OME-NGFF zarr only: 0.4 in zarr v2, 0.5 in zarr v3 (spec Convention 9; the documents are built
by ``ome``). ``create_level`` writes the group document first (created when absent; else only this level's dataset
entry added or replaced) and then the array; an existing array is refused (``exists="error"``) or adopted when
identical (``exists="adopt"``), and one that appears under a creation (a lost race) is re-read and then adopted
(Behaviour 11). Group documents are read-modify-written without a lock: one process at a time. ``write_index``
writes whole write units, so writers in different processes need no lock (Behaviour 13). ``level_placement`` and
``level_shape`` place and size a level made by whole-block factors.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import tensorstore as ts
from numpy.typing import ArrayLike, DTypeLike

from . import retry, store
from .context import shared_context
from .detect import FORMATS, Gathered, Node, Reach, gather, probe, source_of
from .diagnostics import MetadataWarning
from .fields import exact_value, json_fill, stored_fill
from .geometry import BoxLike, Sizes, ceil_snapped, default_axes, floats, isclose, over_axes, per_axis, spatial_indices
from .grid import Frame
from .metadata import ArrayMeta, parse
from .paths import PathLike
from .ome import AXIS_TYPES, OME_VERSIONS, axis_units, first_listing, ome_multiscales, with_entry
from .units import NANOMETER, UnitsArgument, convert

__all__ = ["OME_VERSIONS", "AXIS_TYPES", "ome_multiscales", "level_placement", "level_shape", "codecs_of",
           "axis_units", "ensure_group_entry"]

EXISTS = ("error", "adopt")
#: A codec choice of ``create``: "zstd", "none", a zarr v2 compressor dict or a zarr v3 codecs list.
Codecs: TypeAlias = "str | Mapping[str, Any] | Sequence[Mapping[str, Any]]"
_ZSTD_LEVEL = 3  # what zarr-python's default zstd(level=0) means
#: The array attribute that records ``create(store_fill=True)``.
STORE_FILL_KEY = "worldarray"


# ---------------------------------------------------------------- a level made by whole-block factors (no I/O)


def _factors(label: str, value: Any, ndim: int, *, whole: bool = False) -> tuple[float, ...]:
    """One number for every axis, or one per axis: factors (> 0, whole or not) and origins (whole, >= 0)."""
    wanted = "whole numbers >= 0" if whole else "finite numbers > 0"
    try:
        values = per_axis(value, ndim, label, positive=not whole)
    except ValueError:
        values = ()
    if len(values) != ndim or (whole and not all(v >= 0 and v.is_integer() for v in values)):
        raise ValueError(f"{label} is {value!r}; expected {wanted}: one number, or {ndim} (one per axis)")
    return values


def level_placement(voxel_size: Sequence[float], translation: Sequence[float], factors: float | Sequence[float],
                    origin: int | Sequence[int] = 0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Return ``(voxel_size, translation)`` of the level whose voxel j covers source voxels origin + j f .. + f - 1.

    Per axis ``(voxel_size * f, translation + voxel_size * (origin + (f - 1) / 2))``: the centre a block mean
    produces (Convention 1's BigDataViewer rule inverted). ``voxel_size`` and ``translation`` are the source
    grid's, one entry per axis placed; ``factors`` one number or one per axis, > 0, whole or not; ``origin`` one
    whole number >= 0 or one per axis. Raises ValueError naming the argument and value otherwise.

    >>> level_placement((4.0,), (2.0,), 2)
    ((8.0,), (4.0,))
    """
    sizes = floats("voxel_size", voxel_size, positive=True)
    shifts = floats("translation", translation, (len(sizes),))
    f = _factors("factors", factors, len(sizes))
    o = _factors("origin", origin, len(sizes), whole=True)
    # a block of f source voxels from origin has its centre (f - 1) / 2 source voxels past the first one's
    return (tuple(s * k for s, k in zip(sizes, f, strict=True)),
            tuple(t + s * (p + (k - 1) / 2) for s, t, k, p in zip(sizes, shifts, f, o, strict=True)))


def level_shape(shape: Sequence[int], factors: float | Sequence[float], origin: int | Sequence[int] = 0
                ) -> tuple[int, ...]:
    """Return the shape of the level made by ``factors`` from source voxel ``origin``: ``ceil((n - origin) / f)``.

    The quotient is snapped to a whole number within 1e-6 first, so float noise adds no voxel. Raises
    ValueError naming the argument and value for a shape not whole, a factor not > 0, or an origin not whole,
    negative, or at or past the end of its axis.

    >>> level_shape((10, 9), 2, origin=(0, 1))
    (5, 4)
    """
    sizes = floats("shape", shape)
    if not all(n >= 0 and n.is_integer() for n in sizes):
        raise ValueError(f"shape is {shape!r}; expected whole numbers >= 0")
    f = _factors("factors", factors, len(sizes))
    o = _factors("origin", origin, len(sizes), whole=True)
    for axis, (n, p) in enumerate(zip(sizes, o, strict=True)):
        if p >= n:
            raise ValueError(f"origin is {origin!r}; expected less than shape {tuple(shape)!r} on axis {axis}")
    return tuple(ceil_snapped((n - p) / k) for n, k, p in zip(sizes, f, o, strict=True))


def derived_level(source: ArrayMeta, factors: Any, origin: Any, voxel_size: Any, translation: Any,
                  shape: Any, name: str) -> tuple[Any, Any, Any]:
    """``add_level``'s placement and shape: as given, else by ``level_placement`` and ``level_shape`` over ``source``,
    factors and origin given over its spatial axes (one number meaning each) or over every axis."""
    if factors is not None:
        factors = over_axes(factors, source.ndim, source.spatial, 1.0, "factors", positive=True)
        origin = over_axes(origin, source.ndim, source.spatial, 0.0, "origin")
    if voxel_size is None or translation is None:
        if factors is None:
            raise ValueError(f"add_level {name!r}: give factors (with origin), or voxel_size and translation")
        placed = level_placement(source.voxel_size, source.translation, factors, origin)
        voxel_size = placed[0] if voxel_size is None else voxel_size
        translation = placed[1] if translation is None else translation
    if shape is None:
        if factors is None:
            raise ValueError(f"add_level {name!r}: give shape, or factors to derive it from the level it is made from")
        shape = level_shape(source.shape, factors, origin)
    return voxel_size, translation, shape


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

    @property
    def group(self) -> str:
        return store.parent(self.path) or self.path

    @property
    def name(self) -> str:
        return store.basename(self.path)

    @property
    def spatial(self) -> tuple[int, ...]:
        return spatial_indices(self.axes)


def _whole(label: str, values: Any, ndim: int, low: int = 1) -> tuple[int, ...]:
    items = (values,) * ndim if isinstance(values, (int, np.integer)) else tuple(values)
    if len(items) != ndim or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= low
                                     for v in items):
        raise ValueError(f"{label} is {values!r}; expected {ndim} whole numbers >= {low}, one per axis")
    return tuple(int(v) for v in items)


def _shards(shards: int | Sequence[int] | None, chunks: tuple[int, ...], axes: tuple[str, ...],
            format: str | None) -> tuple[int, ...] | None:
    """The shard shape: whole chunks on every axis, and zarr v3 only."""
    if shards is None:
        return None
    found = _whole("shards", shards, len(chunks))
    bad = [f"axis {axes[i]}: {s} is not a multiple of {c}"
           for i, (s, c) in enumerate(zip(found, chunks, strict=True)) if s % c]
    if bad:
        raise ValueError(f"shards is {found}; expected a whole number of chunks {chunks} per axis ({'; '.join(bad)})")
    if format == "zarr2":
        raise ValueError("shards is set, and format is 'zarr2'; sharding is zarr v3 only")
    return found


def plan_level(path: str, shape: int | Sequence[int], dtype: DTypeLike, voxel_size: Sizes, translation: Sizes,
               axes: Sequence[str] | None = None, units: UnitsArgument = NANOMETER,
               chunks: int | Sequence[int] | None = None, shards: int | Sequence[int] | None = None,
               fill_value: float = 0, codecs: Codecs = "zstd", format: str | None = None,
               attrs: Mapping[str, Any] | None = None, group_attrs: Mapping[str, Any] | None = None,
               exists: str = "error") -> Level:
    """Check every argument of create, naming the argument and the value found when one is wrong."""
    path = store.normalize(path)
    if store.parent(path) is None:
        raise ValueError(f"path is {path!r}; expected a level under a group, such as '.../volume.zarr/s0'")
    shape = _whole("shape", shape, 1 if isinstance(shape, int) else len(tuple(shape)), low=0)
    ndim = len(shape)
    try:
        dtype = np.dtype(dtype)
    except TypeError as error:
        raise ValueError(f"dtype is {dtype!r}; expected a numpy data type") from error
    axes = tuple(default_axes(ndim) if axes is None else axes)
    if len(axes) != ndim or len(set(axes)) != ndim or not all(isinstance(a, str) and a for a in axes):
        raise ValueError(f"axes is {axes!r}; expected {ndim} distinct names, one per axis")
    spatial = spatial_indices(axes)
    if chunks is None:
        raise ValueError("chunks is required: the storage chunk (the inner chunk when sharded); the package never "
                         "picks one")
    chunks = _whole("chunks", chunks, ndim)
    if format not in (None, *OME_VERSIONS.values()):
        raise ValueError(f"format is {format!r}; expected 'zarr3', 'zarr2' or None (follow the group)")
    shards = _shards(shards, chunks, axes, format)
    if exists not in EXISTS:
        raise ValueError(f"exists is {exists!r}; expected one of {EXISTS}")
    if not (isinstance(codecs, str) and codecs in ("zstd", "none")) and not isinstance(codecs, (list, tuple, Mapping)):
        raise ValueError(f"codecs is {codecs!r}; expected 'zstd', 'none', a zarr v2 compressor dict or a zarr v3 "
                         "codecs list")
    fill_value = exact_value("fill_value", stored_fill(fill_value), dtype)
    return Level(path, shape, dtype, axes, units,
                 over_axes(voxel_size, ndim, spatial, 1.0, "voxel_size", positive=True),
                 over_axes(translation, ndim, spatial, 0.0, "translation"), chunks, shards, fill_value, codecs,
                 format, dict(attrs or {}), dict(group_attrs or {}), exists)


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
    fmt = found or level.format or "zarr3"
    if level.format is not None and level.format != fmt:
        raise ValueError(f"format is {level.format!r}; the group {level.group} (or its nearest existing ancestor) is "
                         f"{fmt}, and the package does not mix zarr versions in one hierarchy")
    if level.shards is not None and fmt != "zarr3":
        raise ValueError(f"shards is {level.shards}; {level.group} is zarr v2, and sharding is zarr v3 only")
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


def _bare_group(directory: str, fmt: str) -> None:
    store.write_documents(directory, {"zarr.json": {"zarr_format": 3, "node_type": "group", "attributes": {}}}
                          if fmt == "zarr3" else {".zgroup": {"zarr_format": 2}})


def _merged_group_attrs(attrs: dict, extra: Mapping[str, Any], group: str) -> dict:
    for key, value in extra.items():
        if key in attrs and attrs[key] != value:
            raise ValueError(f"{group}: group_attrs {key!r} is {value!r}; the group already holds {attrs[key]!r}, "
                             "and the package rewrites no one else's key")
        attrs.setdefault(key, value)
    return attrs


def write_group(level: Level, fmt: str, node: Node | None) -> None:
    """Create the group document, or add this level's entry to the one there (Behaviour 12)."""
    attrs = dict(node.attrs) if node is not None else {}
    new = _merged_group_attrs(with_entry(attrs, fmt, level.axes, level.units, level.name, level.voxel_size,
                                         level.translation), level.group_attrs, level.group)
    if fmt == "zarr3":
        document = dict(node.docs.get("zarr.json", {})) if node is not None else {}
        document.update({"zarr_format": 3, "node_type": "group", "attributes": new})
        store.write_documents(level.group, {"zarr.json": document})
    else:
        documents: dict[str, Any] = {".zattrs": new}
        if node is None or ".zgroup" not in node.docs:
            documents[".zgroup"] = {"zarr_format": 2}
        store.write_documents(level.group, documents)


def ensure_group_entry(group: PathLike, name: str, voxel_size: Sizes, translation: Sizes,
                       axes: Sequence[str] | None = None, units: UnitsArgument = NANOMETER) -> None:
    """List an array the package did not create (a symlinked or hand-made level) in its group's multiscales.

    The group's axes are kept when it lists levels already; else ``axes`` (default: the array's own names, else
    the default names) and ``units``. Behaviour 12's rules apply: only this entry changes.

    Raises
    ------
    FileNotFoundError
        When there is no array at ``group/name``.
    """
    group = store.normalize(group)
    node = _zarr_node(_probe(group), group, "group")
    array = _zarr_node(_probe(store.join(group, name)), store.join(group, name), "level")
    if array is None or array.kind != "array":
        raise FileNotFoundError(f"{store.join(group, name)}: no array to list in {group}")
    with warnings.catch_warnings():  # the array is about to be listed: its parent not listing it is the point
        warnings.simplefilter("ignore", MetadataWarning)
        meta = parse(source_of(gather(store.join(group, name))))
    if axes is None:
        listing = first_listing(node.attrs) if node is not None else None
        listed = listing[0].get("axes") if listing else None
        axes = tuple(a.get("name") for a in listed) if listed else meta.axes
    level = plan_level(store.join(group, name), meta.shape, meta.dtype, voxel_size, translation, axes, units,
                       chunks=meta.chunk_shape)
    group_node = node if node is not None and node.docs else None
    write_group(level, group_node.format if group_node is not None else array.format, group_node)


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
    fill = json_fill(level.fill_value, level.dtype)
    if fmt == "zarr3":
        metadata = {
            "shape": list(level.shape), "data_type": level.dtype.name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(level.shards or level.chunks)}},
            "chunk_key_encoding": {"name": "default"}, "codecs": _zarr3_codecs(level),
            "fill_value": fill, "dimension_names": list(level.axes),
        }
        if level.attrs:
            metadata["attributes"] = dict(level.attrs)
        return {"driver": "zarr3", "metadata": metadata, "create": True}
    metadata = {
        "zarr_format": 2, "shape": list(level.shape), "chunks": list(level.chunks), "dtype": level.dtype.str,
        "compressor": _zarr2_compressor(level), "fill_value": fill,
        "order": "C", "filters": None, "dimension_separator": "/",  # OME-NGFF 0.4 asks for "/"
    }
    return {"driver": "zarr", "metadata": metadata, "create": True}


def differences(found: ArrayMeta, found_attrs: Mapping[str, Any], level: Level) -> list[str]:
    """Every field in which an existing array differs from the level asked for, with the value found and wanted.

    The placement is compared in the units asked for: each spatial axis of the array found is converted from its
    own unit (nanometres when it has none) into the level's.
    """
    out = []
    wanted = {"shape": level.shape, "dtype": level.dtype.name, "chunks": level.chunks, "shards": level.shards}
    have = {"shape": found.shape, "dtype": found.dtype, "chunks": found.chunk_shape, "shards": found.shard_shape}
    for key, value in wanted.items():
        if (value != have[key]) if key == "dtype" else tuple(value or ()) != tuple(have[key] or ()):
            out.append(f"{key}: found {have[key]}, wanted {value}")
    comparable = len(found.units) == len(level.axes)
    asked = axis_units(level.axes, level.units) if comparable else ("",) * len(found.units)
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
    listed = differences(meta, node.attrs, level)
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


def create_level(level: Level, context: ts.Context | None) -> str:
    """Create the group document (and bare groups above it), then the array; return the format written.

    Documents and the open are timed out and retried under the governing ``retry`` policy.
    """
    existing = _probe(level.path)
    if existing is not None:
        if level.exists == "error":
            raise FileExistsError(f"{level.path}: something is already there ({existing.node.format} "
                                  f"{existing.node.kind}); create never overwrites (pass exists='adopt' to open an "
                                  "identical array)")
        adopt(level, existing)
    fmt, group, missing = resolve_format(level)
    spec = array_spec(level, fmt)
    _dry_run(spec, level)
    for directory in missing:
        _bare_group(directory, fmt)
    write_group(level, fmt, group)
    if existing is not None:
        return fmt
    opening = context if context is not None else shared_context()  # memory:// data lives in the context
    try:
        store.on_ways(level.path, lambda way: ts.open({**spec, "kvstore": way.spec}, context=opening), level.path)
    except Exception as error:
        if "ALREADY_EXISTS" not in str(error):
            raise
        # the store said absent, then the array appeared: re-read with backoff, then adopt (Behaviour 11)
        won = retry.poll(lambda: _array_at(level.path))
        if won is None:
            raise FileExistsError(f"{level.path}: the store reports an array here that could not be read after "
                                  f"{retry.RACE_ATTEMPTS} attempts") from error
        adopt(level, won)
        return fmt
    if fmt == "zarr2" and level.attrs:
        store.write_documents(level.path, {".zattrs": dict(level.attrs)})
    return fmt


def _array_at(path: str) -> Gathered | None:
    found = _probe(path)
    return found if found is not None and found.node.kind == "array" else None


def stores_fill(meta: ArrayMeta) -> bool:
    """Whether the array was created with ``store_fill=True`` (A2), which its attributes record."""
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
    if node.format == "zarr3" and node.kind == "array":
        codecs = node.docs["zarr.json"].get("codecs") or []
        if codecs and codecs[0].get("name") == "sharding_indexed":
            shards = tuple(node.docs["zarr.json"]["chunk_grid"]["configuration"]["chunk_shape"])
            return list(codecs[0]["configuration"].get("codecs") or []), shards
        return list(codecs), None
    if node.format == "zarr2" and node.kind == "array":
        return node.docs[FORMATS["zarr2"].array_document].get("compressor"), None
    raise ValueError(f"{node.path}: is a {node.format} {node.kind}; codecs_of reads zarr arrays")


# ---------------------------------------------------------------- writes of voxels


def write_index(frame: Frame, view: ts.TensorStore, begin: Sequence[int], end: Sequence[int], data: ArrayLike, *,
                partial: bool, policy: retry.Retry, what: str, remote: bool, reach: Reach) -> None:
    """Write ``data`` into voxels [begin, end) of ``view`` (the handle's tensorstore on ``frame``, reached by
    ``reach``): exact shape and dtype, and whole write units unless ``partial``; timed out and retried under
    ``policy`` (``Reach.write``)."""
    shape, axes = frame.meta.shape, frame.meta.axes
    begin, end = tuple(int(b) for b in begin), tuple(int(e) for e in end)
    if len(begin) != len(shape) or len(end) != len(shape):
        raise ValueError(f"begin {begin} and end {end} must have {len(shape)} entries, one per axis {axes}")
    for axis, (b, e, n) in enumerate(zip(begin, end, shape, strict=True)):
        if not 0 <= b <= e <= n:
            raise ValueError(f"axis {axes[axis]!r}: [{b}, {e}) is not inside the array's [0, {n}); nothing is padded "
                             "on write")
    wanted = tuple(e - b for b, e in zip(begin, end, strict=True))
    if np.ndim(data) == 0:  # a scalar fills the box when the dtype holds it exactly (A2)
        if isinstance(data, (str, bytes)):
            raise ValueError(f"data is {data!r}; expected an array or a number that dtype {frame.dtype} holds")
        data = np.asarray(exact_value("data", data, frame.dtype)).astype(frame.dtype)
    else:
        data = np.asarray(data)
        if data.shape != wanted:
            raise ValueError(f"data has shape {data.shape}; the box [{begin}, {end}) wants {wanted}")
        if data.dtype != frame.dtype:
            raise ValueError(f"data has dtype {data.dtype}; the array's is {frame.dtype} (no silent cast)")
    if not partial:
        _check_aligned(frame, begin, end)
    part = view[tuple(map(slice, begin, end))]
    nbytes = math.prod(wanted) * frame.dtype.itemsize
    reach.write(part, data, policy, policy.attempt_timeout(nbytes, remote), what)


def _check_aligned(frame: Frame, begin: Sequence[int], end: Sequence[int]) -> None:
    unit_shape, shape, axes = frame.write_shape, frame.meta.shape, frame.meta.axes
    for axis, (unit, n) in enumerate(zip(unit_shape, shape, strict=True)):
        for bound in (begin[axis], end[axis]):
            if bound % unit and bound != n:
                raise ValueError(
                    f"axis {axes[axis]!r}: bound {bound} is not a multiple of the write unit {unit} nor the "
                    f"array's end {n}; write whole units (vol.write_shape is {unit_shape}) or pass partial=True")


def box_voxels(frame: Frame, box: BoxLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The voxels a world box selects for a write (Behaviour 2), over every axis; ValueError when it reaches outside
    the array, since nothing is padded on write."""
    begin, end = frame.index_box(box)
    if len(begin) == len(frame.spatial) < len(frame.meta.shape):
        begin, end = frame.whole(begin, end)
    for axis, (b, e, n) in enumerate(zip(begin, end, frame.meta.shape, strict=True)):
        if b < 0 or e > n:
            raise ValueError(f"box {box!r} reaches outside the array on axis {frame.meta.axes[axis]!r}: voxels "
                             f"[{b}, {e}) of [0, {n}); nothing is padded on write")
    return begin, end
