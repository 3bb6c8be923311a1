"""create writes the group document first and then the array, and never deletes, truncates or overwrites anything.

The group document is created when absent; when present only this level's dataset entry is added or
replaced, the datasets kept in order of voxel size, every other key kept as it was (Behaviour 12).
An existing array is refused (exists="error") or adopted when identical (exists="adopt"); a creation
that loses a race is re-read with backoff and then adopted (Behaviour 11). Group documents, and
create and add_level with them, are read-modify-written without a lock: one process at a time.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import tensorstore as ts

from . import store
from .detect import Gathered, Node, gather, source_of
from .geometry import default_axes, spatial_indices, spread
from .meta import ArrayMeta, MetadataWarning, isclose
from .metadata import multiscales_of, parse
from .ome import compose
from .reading import holds_exactly
from .retry import Retry
from . import units as unit_table
from .write import axis_units, ome_multiscales

__all__ = ["Level", "plan_level", "create_level", "ensure_group_entry", "differences", "EXISTS"]

EXISTS = ("error", "adopt")
_WRITTEN = {"zarr3": "0.5", "zarr2": "0.4"}  # the zarr format and the OME version that goes with it
_RACE_ATTEMPTS, _RACE_DELAY = 5, 0.5
_ZSTD_LEVEL = 3  # what zarr-python's default zstd(level=0) means


@dataclass(frozen=True)
class Level:
    """One level to create, every argument checked before anything is written."""

    path: str
    shape: tuple[int, ...]
    dtype: np.dtype
    axes: tuple[str, ...]
    units: Any
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
        return store.parent(self.path)

    @property
    def name(self) -> str:
        return store.basename(self.path)

    @property
    def spatial(self) -> tuple[int, ...]:
        return spatial_indices(self.axes)


def _whole(label, values, ndim, positive=True) -> tuple[int, ...]:
    items = tuple(values) if not isinstance(values, (int, np.integer)) else (values,) * ndim
    low = 1 if positive else 0
    if len(items) != ndim or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= low for v in items):
        raise ValueError(f"{label} is {values!r}; expected {ndim} whole numbers >= {low}, one per axis")
    return tuple(int(v) for v in items)


def _placement(label, values, ndim, spatial, fill, positive) -> tuple[float, ...]:
    items = (values,) if isinstance(values, (int, float)) and not isinstance(values, bool) else tuple(values)
    if len(items) == 1 and len(spatial) > 1:
        items = items * len(spatial)
    ok = all(isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool) and math.isfinite(v) and (v > 0 or not positive) for v in items)
    if not ok or len(items) not in (len(spatial), ndim):
        wanted = "finite sizes > 0" if positive else "finite numbers"
        raise ValueError(f"{label} is {values!r}; expected {wanted}, one per spatial axis ({len(spatial)}) or per axis ({ndim})")
    return spread((float(v) for v in items), ndim, spatial, fill)


def plan_level(path, shape, dtype, voxel_size, translation, axes=None, units="nanometer", chunks=None, shards=None,
               fill_value=0, codecs="zstd", format=None, attrs=None, group_attrs=None, exists="error") -> Level:
    """Check every argument of create, naming the argument and the value found when one is wrong."""
    path = store.normalize(path)
    if store.parent(path) is None:
        raise ValueError(f"path is {path!r}; expected a level under a group, such as '.../volume.zarr/s0'")
    shape = _whole("shape", shape, len(tuple(shape)) if not isinstance(shape, int) else 1, positive=False)
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
        raise ValueError("chunks is required: the storage chunk (the inner chunk when sharded); the package never picks one")
    chunks = _whole("chunks", chunks, ndim)
    if shards is not None:
        shards = _whole("shards", shards, ndim)
        bad = [f"axis {axes[i]}: {s} is not a multiple of {c}" for i, (s, c) in enumerate(zip(shards, chunks)) if s % c]
        if bad:
            raise ValueError(f"shards is {shards}; expected a whole number of chunks {chunks} per axis ({'; '.join(bad)})")
    if format not in (None, "zarr3", "zarr2"):
        raise ValueError(f"format is {format!r}; expected 'zarr3', 'zarr2' or None (follow the group)")
    if shards is not None and format == "zarr2":
        raise ValueError("shards is set, and format is 'zarr2'; sharding is zarr v3 only")
    if exists not in EXISTS:
        raise ValueError(f"exists is {exists!r}; expected one of {EXISTS}")
    if not (isinstance(codecs, str) and codecs in ("zstd", "none")) and not isinstance(codecs, (list, tuple, Mapping)):
        raise ValueError(f"codecs is {codecs!r}; expected 'zstd', 'none', a zarr v2 compressor dict or a zarr v3 codecs list")
    fill_value = stored_fill(fill_value)
    _check_fill(fill_value, dtype)
    return Level(path, shape, dtype, axes, units, _placement("voxel_size", voxel_size, ndim, spatial, 1.0, True),
                 _placement("translation", translation, ndim, spatial, 0.0, False), chunks, shards, fill_value, codecs,
                 format, dict(attrs or {}), dict(group_attrs or {}), exists)


def stored_fill(value):
    """A fill value as a number: the JSON spellings "NaN", "Infinity" and "-Infinity" decoded."""
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(value, value) if isinstance(value, str) else value


def _check_fill(value, dtype: np.dtype) -> None:
    if np.ndim(value) != 0 or not holds_exactly(value, dtype):
        raise ValueError(f"fill_value is {value!r}, which dtype {dtype} cannot hold exactly")


# ---------------------------------------------------------------- the format, and the groups above


def _probe(path: str) -> Gathered | None:
    """What is at a path, None when nothing is (a seam the race test replaces)."""
    return gather(path, missing_ok=True)


def _zarr_node(found: Gathered | None, path: str, role: str) -> Node | None:
    if found is None:
        return None
    node = found.node
    if node.format not in _WRITTEN:
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
    found, missing = (group.format if group is not None else None), []
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
    """Walk up to the nearest existing zarr node; return its format and the directories above the group to make groups of.

    Bare groups are written from the nearest existing ancestor, or from the ``.zarr`` directory, down;
    on a local disk with neither, only the level's own group is made.
    """
    chain, current = [], store.parent(group)
    while current is not None and not store.is_root(current):
        node = _zarr_node(_probe(current), current, "nearest existing ancestor")
        if node is not None:
            return known or node.format, chain[::-1] if node.kind == "group" else []
        chain.append(current)
        if store.basename(current).endswith(".zarr"):
            return known, chain[::-1]
        current = store.parent(current)
    return known, chain[::-1] if store.scheme(group) != "file" else []


# ---------------------------------------------------------------- documents


def _put(directory: str, documents: Mapping[str, Any], retries: Retry | None = None) -> None:
    """Write JSON documents into a directory, each whole (a temporary file renamed into place), timed out and retried."""
    policy = retries or Retry()
    timeout = policy.document_timing()[0]

    def attempt(way: store.Way):
        kvstore = store.open_kvstore(way.spec, timeout=timeout)
        for key, doc in documents.items():
            data = json.dumps(doc, indent=2, ensure_ascii=False).encode()
            policy.run(lambda: kvstore.write(key, data), timeout, f"write {store.url(directory, key)}")

    store.with_fallback(directory, attempt)


def _bare_group(directory: str, fmt: str) -> None:
    _put(directory, {"zarr.json": {"zarr_format": 3, "node_type": "group", "attributes": {}}} if fmt == "zarr3"
         else {".zgroup": {"zarr_format": 2}})


def _scale_of(dataset) -> float:
    for transform in dataset.get("coordinateTransformations") or []:
        if isinstance(transform, Mapping) and transform.get("type") == "scale":
            return math.prod(float(v) for v in transform.get("scale") or [1.0])
    return math.inf


def _multiscales_container(merged: dict, fmt: str) -> dict:
    """Where the multiscales list lives: under ``ome`` in zarr v3 (OME 0.5), at the top in zarr v2 (OME 0.4).

    A zarr v3 group whose attributes hold OME 0.4 at the top (written by others) has its levels carried
    into ``ome.multiscales``, so none of them is lost; the 0.4 key itself is left as it was.
    """
    if fmt != "zarr3":
        return merged
    container = merged.setdefault("ome", {})
    if not isinstance(container, dict):
        raise ValueError(f"group attributes 'ome' is {container!r}; expected an object")
    legacy = merged.get("multiscales")
    if not container.get("multiscales") and isinstance(legacy, list) and legacy:
        carried = json.loads(json.dumps(legacy))
        for multiscale in carried:
            if isinstance(multiscale, dict):
                multiscale.pop("version", None)
        container["multiscales"] = carried
    container.setdefault("version", _WRITTEN[fmt])
    return container


def with_entry(attrs: Mapping[str, Any], fmt: str, axes, units, name: str, voxel_size, translation) -> dict:
    """Group attributes with this level's dataset entry added or replaced, datasets in order of voxel size; nothing else changed.

    The entry is written so that it reads back at the placement asked for: in the units the group's
    multiscales already uses, and under its multiscale-level transforms when it has them.
    """
    version = _WRITTEN[fmt]
    merged = json.loads(json.dumps(attrs))  # a deep copy: the caller's document is never edited in place
    container = _multiscales_container(merged, fmt)
    existing = container.get("multiscales")
    if not existing:
        fresh = ome_multiscales(axes, units, [(name, voxel_size, translation)], version)
        container["multiscales"] = (fresh["ome"] if fmt == "zarr3" else fresh)["multiscales"]
        return merged
    multiscale = existing[0]
    listed = tuple(a.get("name") if isinstance(a, Mapping) else a for a in multiscale.get("axes") or [])
    if listed and listed != tuple(axes):
        raise ValueError(f"the group's multiscales axes are {list(listed)}; the level's axes {list(axes)} differ, "
                         "and one multiscales lists levels of one set of axes")
    voxel_size, translation = _in_group_units(multiscale, axes, units, voxel_size, translation)
    voxel_size, translation = _under_multiscale_transforms(multiscale, voxel_size, translation)
    fresh = ome_multiscales(axes, units, [(name, voxel_size, translation)], version)
    entry = (fresh["ome"] if fmt == "zarr3" else fresh)["multiscales"][0]["datasets"][0]
    datasets = [d for d in multiscale.get("datasets") or [] if not (isinstance(d, Mapping) and d.get("path") == name)]
    multiscale["datasets"] = sorted(datasets + [entry], key=_scale_of)
    return merged


def _under_multiscale_transforms(multiscale, voxel_size, translation):
    """The dataset-level placement that the multiscale's own transforms (scale S, then translation T) carry to the one asked for."""
    scale, shift = compose(multiscale.get("coordinateTransformations"), len(voxel_size), "group attributes",
                           "multiscales[0].coordinateTransformations")
    return (tuple(v / s for v, s in zip(voxel_size, scale)),
            tuple((t - m) / s for t, m, s in zip(translation, shift, scale)))


def _in_group_units(multiscale, axes, units, voxel_size, translation):
    """A level's placement converted into the units the group's multiscales already uses, axis by axis."""
    listed = [a.get("unit") or "" if isinstance(a, Mapping) else "" for a in multiscale.get("axes") or []]
    if len(listed) != len(axes):
        return voxel_size, translation
    given = axis_units(axes, units)
    sizes, shifts = list(voxel_size), list(translation)
    for i, (have, want) in enumerate(zip(given, listed)):
        if have and want and have != want:
            scale = unit_table.factor(have, want)  # ValueError names both when they cannot convert
            sizes[i], shifts[i] = sizes[i] * scale, shifts[i] * scale
    return tuple(sizes), tuple(shifts)


def _merged_group_attrs(attrs: dict, extra: Mapping[str, Any], group: str) -> dict:
    for key, value in extra.items():
        if key in attrs and attrs[key] != value:
            raise ValueError(f"{group}: group_attrs {key!r} is {value!r}; the group already holds {attrs[key]!r}, "
                             "and the package rewrites no one else's key")
        attrs.setdefault(key, value)
    return attrs


def write_group(level: Level, fmt: str, node: Node | None, units) -> None:
    """Create the group document, or add this level's entry to the one there (Behaviour 12)."""
    attrs = dict(node.attrs) if node is not None else {}
    new = _merged_group_attrs(with_entry(attrs, fmt, level.axes, units, level.name, level.voxel_size, level.translation),
                              level.group_attrs, level.group)
    if fmt == "zarr3":
        document = dict(node.docs.get("zarr.json", {})) if node is not None else {}
        document.update({"zarr_format": 3, "node_type": "group", "attributes": new})
        _put(level.group, {"zarr.json": document})
    else:
        documents = {".zattrs": new}
        if node is None or ".zgroup" not in node.docs:
            documents[".zgroup"] = {"zarr_format": 2}
        _put(level.group, documents)


def ensure_group_entry(group, name: str, voxel_size, translation, axes=None, units="nanometer") -> None:
    """List an array the package did not create (a symlinked or hand-made level) in its group's multiscales.

    The group's axes are kept when it lists levels already; else ``axes`` (default: the array's own
    names, else the default names) and ``units``. Behaviour 12's rules apply: only this entry changes.
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
        listed = (multiscales_of(node.attrs) or [{}])[0].get("axes") if node is not None else None
        axes = tuple(a.get("name") for a in listed) if listed else meta.axes
    level = plan_level(store.join(group, name), meta.shape, meta.dtype, voxel_size, translation, axes, units,
                       chunks=meta.chunk_shape)
    group_node = node if node is not None and node.docs else None
    write_group(level, group_node.format if group_node is not None else array.format, group_node, units)


# ---------------------------------------------------------------- the array


def _json_fill(value, dtype: np.dtype):
    """The fill value as each format's JSON spells it for ``dtype`` (a boolean for bool, strings for non-finite floats)."""
    value = np.asarray(value).astype(dtype).item()
    if isinstance(value, complex):
        return [_json_fill(value.real, np.dtype(np.float64)), _json_fill(value.imag, np.dtype(np.float64))]
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


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


def _zarr2_compressor(level: Level):
    if isinstance(level.codecs, Mapping):
        return dict(level.codecs)
    if isinstance(level.codecs, (list, tuple)):
        raise ValueError(f"codecs is {level.codecs!r}, a zarr v3 codecs list; a zarr v2 array takes a compressor dict")
    return {"id": "zstd", "level": _ZSTD_LEVEL} if level.codecs == "zstd" else None


def array_spec(level: Level, fmt: str) -> dict:
    """The tensorstore spec (without kvstore) that creates the level's array, and only creates it."""
    if fmt == "zarr3":
        metadata = {
            "shape": list(level.shape), "data_type": level.dtype.name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(level.shards or level.chunks)}},
            "chunk_key_encoding": {"name": "default"}, "codecs": _zarr3_codecs(level),
            "fill_value": _json_fill(level.fill_value, level.dtype), "dimension_names": list(level.axes),
        }
        if level.attrs:
            metadata["attributes"] = dict(level.attrs)
        return {"driver": "zarr3", "metadata": metadata, "create": True}
    metadata = {
        "zarr_format": 2, "shape": list(level.shape), "chunks": list(level.chunks), "dtype": level.dtype.str,
        "compressor": _zarr2_compressor(level), "fill_value": _json_fill(level.fill_value, level.dtype),
        "order": "C", "filters": None, "dimension_separator": "/",  # OME-NGFF 0.4 asks for "/"
    }
    return {"driver": "zarr", "metadata": metadata, "create": True}


def differences(found: ArrayMeta, found_attrs: Mapping[str, Any], level: Level) -> list[str]:
    """Every field in which an existing array differs from the level asked for, with the value found and wanted.

    The placement is compared in the units asked for: each spatial axis of the array found is converted
    from its own unit (nanometres when it has none) into the level's.
    """
    out = []
    wanted = {"shape": level.shape, "dtype": level.dtype.name, "chunks": level.chunks, "shards": level.shards}
    have = {"shape": found.shape, "dtype": found.dtype, "chunks": found.chunk_shape, "shards": found.shard_shape}
    for key, value in wanted.items():
        if tuple(value or ()) != tuple(have[key] or ()) if key != "dtype" else value != have[key]:
            out.append(f"{key}: found {have[key]}, wanted {value}")
    asked_units = axis_units(level.axes, level.units) if len(found.units) == len(level.axes) else ()
    for key in ("voxel_size", "translation"):
        got, asked = [], []
        for i in level.spatial:
            value = getattr(found, key)[i] if i < len(found.units) else math.nan
            unit = (found.units[i] or "nanometer") if i < len(found.units) else ""
            target = asked_units[i] if asked_units else ""
            if target and unit != target and unit_table.kind(unit) == unit_table.kind(target) != "unknown":
                value *= unit_table.factor(unit, target)
            got.append(value)
            asked.append(getattr(level, key)[i])
        if len(got) != len(asked) or not all(isclose(a, b) for a, b in zip(got, asked)):
            out.append(f"{key}: found {tuple(got)}, wanted {tuple(asked)} (in {', '.join(asked_units[i] or '-' for i in level.spatial) if asked_units else 'the store units'})")
    for key, value in level.attrs.items():
        if key not in found_attrs:
            out.append(f"attrs[{key!r}]: missing, wanted {value!r}")
        elif found_attrs[key] != value:
            out.append(f"attrs[{key!r}]: found {found_attrs[key]!r}, wanted {value!r}")
    return out


def world_units(axes, units):
    """The units a created level's handle reports in: a kind dict as given, else the unit of its first spatial axis."""
    if isinstance(units, Mapping):
        return dict(units)
    if isinstance(units, str):
        return units or "nanometer"
    spatial = spatial_indices(axes)
    named = axis_units(axes, units)
    return (named[spatial[0]] if spatial and named[spatial[0]] else "nanometer")


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


def _after_lost_race(level: Level) -> None:
    """The store said absent, then the array appeared: re-read with backoff, then adopt (Behaviour 11)."""
    for attempt in range(1, _RACE_ATTEMPTS + 1):
        found = _probe(level.path)
        if found is not None and found.node.kind == "array":
            adopt(level, found)
            return
        time.sleep(_RACE_DELAY * attempt)
    raise FileExistsError(f"{level.path}: the store reports an array here that could not be read after {_RACE_ATTEMPTS} attempts")


def _dry_run(spec: dict, level: Level) -> None:
    """Let tensorstore parse the array's metadata on a throwaway in-memory store, so a bad codec is refused before any write."""
    try:
        ts.open({**spec, "kvstore": {"driver": "memory"}}, context=ts.Context()).result()
    except ValueError as error:
        raise ValueError(f"{level.path}: tensorstore refuses the array's metadata: {error}") from error


def create_level(level: Level, context: ts.Context, retries: Retry | None = None) -> str:
    """Create the group document (and bare groups above it), then the array; return the format written."""
    existing = _probe(level.path)
    if existing is not None:
        if level.exists == "error":
            raise FileExistsError(f"{level.path}: something is already there ({existing.node.format} {existing.node.kind}); "
                                  "create never overwrites (pass exists='adopt' to open an identical array)")
        adopt(level, existing)
    fmt, group, missing = resolve_format(level)
    spec = array_spec(level, fmt)
    _dry_run(spec, level)
    for directory in missing:
        _bare_group(directory, fmt)
    write_group(level, fmt, group, level.units)
    if existing is not None:
        return fmt
    policy = retries or Retry()
    try:
        store.with_fallback(level.path, lambda way: policy.run(
            lambda: ts.open({**spec, "kvstore": way.spec}, context=context), policy.timeout or 5.0, level.path))
    except Exception as error:
        if "ALREADY_EXISTS" not in str(error):
            raise
        _after_lost_race(level)
        return fmt
    if fmt == "zarr2" and level.attrs:
        _put(level.path, {".zattrs": dict(level.attrs)})
    return fmt
