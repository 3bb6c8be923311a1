"""Each format places an array by the first of its ordered rules that finds something; that rule's name is placed_by.

Parsing is pure: documents (dicts) in, an ArrayMeta out, no I/O. ``RULES`` holds, per format,
the rules in precedence order; reading the tuple tells the order (spec Conventions 4 to 7).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from .geometry import corner_to_centre, default_axes, spatial_indices
from .meta import ArrayMeta, MetadataWarning, isclose

__all__ = ["ArrayMeta", "MetadataWarning", "Document", "Source", "Placement", "Rule", "RULES", "parse", "multiscales_of"]


@dataclass(frozen=True)
class Document:
    """One node's user attributes and the URL of the document that held them."""

    path: str
    url: str
    attrs: Mapping[str, Any]


@dataclass(frozen=True)
class Source:
    """The documents one array is placed from: its own, and its ancestors' (parent first, up to four)."""

    format: str
    path: str
    array: Mapping[str, Any]
    array_url: str
    own: Document
    ancestors: tuple[Document, ...] = ()
    scale_index: int | None = None  # precomputed: which entry of array["scales"]

    @property
    def parent(self) -> Document | None:
        return self.ancestors[0] if self.ancestors else None


@dataclass(frozen=True)
class Facts:
    """What the array document says apart from placement."""

    shape: tuple[int, ...]
    dtype: str
    chunk_shape: tuple[int, ...]
    shard_shape: tuple[int, ...] | None
    fill_value: Any
    names: tuple[str, ...] | None  # axis names the array document itself gives


@dataclass(frozen=True)
class Placement:
    """A rule's answer, one entry per axis: voxel size, voxel 0's centre, units, and axis names when it found some."""

    voxel_size: tuple[float, ...]
    translation: tuple[float, ...]
    units: tuple[str, ...]
    axes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Rule:
    """One placement rule: ``find(source, facts, ndim)`` returns a Placement or None."""

    name: str
    find: Callable[..., Placement | None]


# ---------------------------------------------------------------- parsing at the edge


def _where(doc_url: str, key: str) -> str:
    return f"{doc_url}: {key}"


def _list(value, url, key, length=None, kind="numbers"):
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise ValueError(f"{_where(url, key)} is {value!r}; expected a list of {kind}")
    if length is not None and len(value) != length:
        raise ValueError(f"{_where(url, key)} is {list(value)!r} ({len(value)} entries); expected {length} entries, one per axis")
    return list(value)


def _numbers(value, url, key, length=None, positive=False) -> tuple[float, ...]:
    """Parse a list of finite numbers (> 0 when ``positive``), naming the document and key on failure."""
    items = _list(value, url, key, length)
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item):
            raise ValueError(f"{_where(url, key)} is {items!r}; expected a list of finite numbers")
        if positive and item <= 0:
            raise ValueError(f"{_where(url, key)} is {items!r}; expected sizes > 0")
        out.append(float(item))
    return tuple(out)


def _ints(value, url, key, length=None) -> tuple[int, ...]:
    items = _list(value, url, key, length, kind="whole numbers")
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in items):
        raise ValueError(f"{_where(url, key)} is {items!r}; expected a list of whole numbers >= 0")
    return tuple(items)


def _strings(value, url, key, length=None) -> tuple[str, ...]:
    items = _list(value, url, key, length, kind="strings")
    return tuple("" if item is None else str(item) for item in items)


def _leading(values: tuple, ndim: int, fill, url: str, key: str) -> tuple:
    """A list shorter than the array covers its trailing axes; the leading ones get ``fill``."""
    if len(values) > ndim:
        raise ValueError(f"{_where(url, key)} is {list(values)!r} ({len(values)} entries); expected at most {ndim}, one per axis")
    return (fill,) * (ndim - len(values)) + tuple(values)


def _axes_list(values, ndim, url, key) -> tuple[str, ...]:
    names = _strings(values, url, key)
    covered = len(names)
    return tuple(default_axes(ndim)[: ndim - covered]) + _leading(names, ndim, "", url, key)[ndim - covered :]


def _dtype(value, url, key) -> str:
    try:
        spec = [tuple(v) for v in value] if isinstance(value, list) else value
        return np.dtype(spec).name
    except (TypeError, ValueError) as error:
        raise ValueError(f"{_where(url, key)} is {value!r}; expected a data type numpy knows") from error


def _centred(corner, voxel_size, axes, covered) -> tuple[float, ...]:
    """Move a stored corner to voxel 0's centre on the spatial axes a list covered (the trailing ``covered``)."""
    ndim = len(corner)
    centre = corner_to_centre(corner, voxel_size, axes)
    return tuple(centre[i] if i >= ndim - covered else float(corner[i]) for i in range(ndim))


# ---------------------------------------------------------------- array facts, one function per format


def _zarr2_facts(source: Source) -> Facts:
    doc, url = source.array, source.array_url
    shape = _ints(doc.get("shape"), url, "shape")
    names = source.own.attrs.get("_ARRAY_DIMENSIONS")
    return Facts(
        shape=shape,
        dtype=_dtype(doc.get("dtype"), url, "dtype"),
        chunk_shape=_ints(doc.get("chunks"), url, "chunks", len(shape)),
        shard_shape=None,
        fill_value=doc.get("fill_value"),
        names=_strings(names, source.own.url, "_ARRAY_DIMENSIONS", len(shape)) if names is not None else None,
    )


def _zarr3_facts(source: Source) -> Facts:
    doc, url = source.array, source.array_url
    shape = _ints(doc.get("shape"), url, "shape")
    grid = _ints((doc.get("chunk_grid") or {}).get("configuration", {}).get("chunk_shape"), url, "chunk_grid.configuration.chunk_shape", len(shape))
    codecs = doc.get("codecs") or []
    inner, shard = grid, None
    if codecs and isinstance(codecs[0], Mapping) and codecs[0].get("name") == "sharding_indexed":
        inner = _ints(codecs[0].get("configuration", {}).get("chunk_shape"), url, "codecs[0].configuration.chunk_shape", len(shape))
        shard = grid
    names = doc.get("dimension_names")
    if names is not None and all(n is not None for n in names):
        names = _strings(names, url, "dimension_names", len(shape))
    elif source.own.attrs.get("_ARRAY_DIMENSIONS") is not None:
        names = _strings(source.own.attrs["_ARRAY_DIMENSIONS"], source.own.url, "_ARRAY_DIMENSIONS", len(shape))
    else:
        names = None
    return Facts(shape, _dtype(doc.get("data_type"), url, "data_type"), inner, shard, doc.get("fill_value"), names)


def _n5_facts(source: Source) -> Facts:
    doc, url = source.array, source.array_url
    shape = _ints(doc.get("dimensions"), url, "dimensions")[::-1]
    names = doc.get("axes")
    return Facts(
        shape=shape,
        dtype=_dtype(doc.get("dataType"), url, "dataType"),
        chunk_shape=_ints(doc.get("blockSize"), url, "blockSize", len(shape))[::-1],
        shard_shape=None,
        fill_value=0,
        names=_strings(names, url, "axes", len(shape))[::-1] if names is not None else None,
    )


def _precomputed_scale(source: Source) -> Mapping[str, Any]:
    scales = _list(source.array.get("scales"), source.array_url, "scales", kind="scale objects")
    index = source.scale_index or 0
    if not 0 <= index < len(scales) or not isinstance(scales[index], Mapping):
        raise ValueError(f"{_where(source.array_url, 'scales')} has {len(scales)} entries; expected an object at index {index}")
    return scales[index]


def _precomputed_facts(source: Source) -> Facts:
    info, url = source.array, source.array_url
    scale = _precomputed_scale(source)
    key = f"scales[{source.scale_index or 0}]"
    channels = int(info.get("num_channels", 1))
    size = _ints(scale.get("size"), url, f"{key}.size", 3)[::-1]
    chunks = _ints((scale.get("chunk_sizes") or [None])[0], url, f"{key}.chunk_sizes[0]", 3)[::-1]
    lead = (channels,) if channels != 1 else ()
    return Facts(
        shape=lead + size,
        dtype=_dtype(info.get("data_type"), url, "data_type"),
        chunk_shape=(channels,) * len(lead) + chunks,
        shard_shape=None,
        fill_value=0,
        names=("c", "z", "y", "x")[-len(lead + size):],
    )


FACTS: dict[str, Callable[[Source], Facts]] = {
    "zarr2": _zarr2_facts,
    "zarr3": _zarr3_facts,
    "n5": _n5_facts,
    "precomputed": _precomputed_facts,
}


# ---------------------------------------------------------------- OME-NGFF (zarr v2 and v3)


def multiscales_of(attrs: Mapping[str, Any]) -> list | None:
    """The OME multiscales list of a node's attributes, under ``ome`` (0.5 and later) or at the top (0.4)."""
    ome = attrs.get("ome")
    found = ome.get("multiscales") if isinstance(ome, Mapping) else None
    if found is None:
        found = attrs.get("multiscales")
    return found if isinstance(found, list) else None


def _dataset_path(entry) -> str | None:
    path = entry.get("path") if isinstance(entry, Mapping) else None
    return path.strip("/").removeprefix("./") if isinstance(path, str) else None


def _find_dataset(source: Source, key: str = "coordinateTransformations"):
    """Find this array's dataset entry by path in the parent, else in an ancestor up to four levels above.

    Returns (document, multiscale, dataset) or None; warns when the parent lists levels but not this array.
    """
    parts = source.path.rstrip("/").split("/")
    parent_lists = False
    for depth, doc in enumerate(source.ancestors[:4], start=1):
        relative = "/".join(parts[-depth:])
        for multiscale in multiscales_of(doc.attrs) or []:
            datasets = multiscale.get("datasets") if isinstance(multiscale, Mapping) else None
            for dataset in datasets or []:
                if _dataset_path(dataset) == relative:
                    return doc, multiscale, dataset
            parent_lists = parent_lists or (depth == 1 and bool(datasets))
    if parent_lists:
        warnings.warn(
            f"{source.path}: the parent group {source.ancestors[0].url} lists levels in its multiscales "
            "but not this array; placing it by its own attributes",
            MetadataWarning,
            stacklevel=4,
        )
    return None


def _compose(transforms, ndim, url, key, voxel=None, shift=None):
    """Apply a list of scale/translation transforms after (voxel, shift); OME lists match the array exactly."""
    voxel = list(voxel or (1.0,) * ndim)
    shift = list(shift or (0.0,) * ndim)
    for n, transform in enumerate(_list(transforms or [], url, key, kind="transforms")):
        kind = transform.get("type") if isinstance(transform, Mapping) else None
        where = f"{key}[{n}]"
        if kind == "scale":
            scale = _numbers(transform.get("scale"), url, f"{where}.scale", ndim, positive=True)
            voxel = [v * s for v, s in zip(voxel, scale)]
            shift = [t * s for t, s in zip(shift, scale)]
        elif kind == "translation":
            move = _numbers(transform.get("translation"), url, f"{where}.translation", ndim)
            shift = [t + m for t, m in zip(shift, move)]
        elif kind != "identity":
            raise ValueError(f"{_where(url, where)} is {transform!r}; expected a scale, translation or identity transform")
    return tuple(voxel), tuple(shift)


def _ome_axes(multiscale, ndim, url):
    axes = multiscale.get("axes")
    if axes is None:
        return None, ("",) * ndim
    items = _list(axes, url, "multiscales[].axes", kind="axes")
    if len(items) != ndim:
        raise ValueError(f"{_where(url, 'multiscales[].axes')} names {len(items)} axes {items!r}; the array has {ndim} axes")
    names = tuple(a.get("name") if isinstance(a, Mapping) else a for a in items)
    if not all(isinstance(n, str) for n in names):
        raise ValueError(f"{_where(url, 'multiscales[].axes')} is {items!r}; expected axis objects with a name")
    units = tuple((a.get("unit") or "") if isinstance(a, Mapping) else "" for a in items)
    return names, units


def _ome(source: Source, facts: Facts, ndim: int, conflicts: str = "error") -> Placement | None:
    """OME-NGFF: the parent's (or an ancestor's) multiscales dataset whose path is this array."""
    found = _find_dataset(source)
    if found is None:
        return None
    doc, multiscale, dataset = found
    if "coordinateSystems" in multiscale:
        return _ome_intrinsic(multiscale, dataset, ndim)
    names, units = _ome_axes(multiscale, ndim, doc.url)
    key = f"datasets[path={_dataset_path(dataset)}].coordinateTransformations"
    voxel, shift = _compose(dataset.get("coordinateTransformations"), ndim, doc.url, key)
    voxel, shift = _compose(multiscale.get("coordinateTransformations"), ndim, doc.url, "multiscales[].coordinateTransformations", voxel, shift)
    _check_own_attributes(source, voxel, shift, units, conflicts)
    return Placement(voxel, shift, units, names)


def _ome_intrinsic(multiscale, dataset, ndim) -> Placement | None:
    """OME 0.6: the intrinsic coordinate system, the dataset's own scale and translation; never raises."""
    try:
        systems = [s for s in multiscale["coordinateSystems"] if isinstance(s, Mapping)]
        transforms = list(dataset.get("coordinateTransformations") or [])
        output = transforms[0].get("output") if transforms else None
        output = output.get("name") if isinstance(output, Mapping) else output
        system = next((s for s in systems if s.get("name") == output), systems[0])
        names, units = _ome_axes(system, ndim, "coordinateSystems")
        flat = []
        for transform in transforms:
            if transform.get("type") == "sequence":
                flat.extend(transform.get("transformations") or [])
            else:
                flat.append(transform)
        kept = [t for t in flat if isinstance(t, Mapping) and t.get("type") in ("scale", "translation")]
        voxel, shift = _compose(kept, ndim, "coordinateSystems", "coordinateTransformations")
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, StopIteration):
        return None
    return Placement(voxel, shift, units, names)


def _check_own_attributes(source, voxel, shift, units, conflicts):
    """An array's own offset is checked against the OME translation, its voxel size against the OME scale."""
    attrs, url, ndim = source.own.attrs, source.own.url, len(voxel)
    own = next((k for k in ("voxel_size", "resolution") if k in attrs), None)
    if own is not None:
        sizes = _numbers(attrs[own], url, own, positive=True)
        wanted = voxel[ndim - len(sizes):]
        if len(sizes) > ndim or not all(isclose(a, b) for a, b in zip(sizes, wanted)):
            message = f"{url}: {own} is {list(sizes)}; the OME scale for {source.path} is {list(wanted)}"
            if conflicts != "warn":
                raise ValueError(message + " (pass metadata_conflicts='warn' to read with the OME scale)")
            warnings.warn(message + "; reading with the OME scale", MetadataWarning, stacklevel=5)
    if "offset" in attrs:
        corner = _numbers(attrs["offset"], url, "offset")  # funlib's offset is a corner
        covered = slice(ndim - len(corner), ndim)
        half = [s / 2 for s in voxel[covered]]
        centre = shift[covered]
        silent = all(isclose(o + h, t) for o, h, t in zip(corner, half, centre)) or all(
            isclose(o, t) for o, t in zip(corner, centre)
        )
        if len(corner) > ndim or not silent:
            warnings.warn(
                f"{url}: offset {list(corner)} disagrees with the OME translation {list(centre)} of {source.path}; "
                "reading the translation",
                MetadataWarning,
                stacklevel=5,
            )


# ---------------------------------------------------------------- COSEM, funlib, N5, dimension_units, precomputed


def _cosem_transform(transform, ndim, url) -> Placement:
    order = 1 if transform.get("ordering", "C") != "F" else -1
    scale = _numbers(transform.get("scale", [1.0] * ndim), url, "transform.scale", positive=True)[::order]
    move = _numbers(transform.get("translate", [0.0] * len(scale)), url, "transform.translate", len(scale))[::order]
    units = _strings(transform.get("units", [""] * len(scale)), url, "transform.units", len(scale))[::order]
    axes = transform.get("axes")
    return Placement(
        _leading(scale, ndim, 1.0, url, "transform.scale"),
        _leading(move, ndim, 0.0, url, "transform.translate"),  # COSEM's translate is voxel 0's centre
        _leading(units, ndim, "", url, "transform.units"),
        _axes_list(_strings(axes, url, "transform.axes", len(scale))[::order], ndim, url, "transform.axes") if axes else None,
    )


def _cosem(source: Source, facts: Facts, ndim: int, **_) -> Placement | None:
    """COSEM: the array's transform; on N5, else the parent's multiscales dataset transform for this path."""
    transform = source.own.attrs.get("transform")
    if isinstance(transform, Mapping):
        return _cosem_transform(transform, ndim, source.own.url)
    parent = source.parent
    if source.format != "n5" or parent is None:
        return None
    name = source.path.rstrip("/").rsplit("/", 1)[-1]
    for multiscale in parent.attrs.get("multiscales") or []:
        for dataset in (multiscale.get("datasets") or []) if isinstance(multiscale, Mapping) else []:
            if _dataset_path(dataset) == name and isinstance(dataset.get("transform"), Mapping):
                return _cosem_transform(dataset["transform"], ndim, parent.url)
    return None


def _funlib_from(doc: Document, size_keys, ndim, known_names) -> Placement | None:
    attrs, url = doc.attrs, doc.url
    key = next((k for k in size_keys if k in attrs), None)
    if key is None and (size_keys != _ZARR_SIZE_KEYS or "offset" not in attrs):
        return None
    sizes = _numbers(attrs[key], url, key, positive=True) if key else None
    corner = _numbers(attrs["offset"], url, "offset") if "offset" in attrs else None  # funlib's offset is a corner
    covered = len(sizes if sizes is not None else corner)
    sizes = sizes if sizes is not None else (1.0,) * covered
    corner = corner if corner is not None else (0.0,) * covered
    if len(corner) != covered:
        raise ValueError(f"{_where(url, 'offset')} is {list(corner)}; expected {covered} entries, as {key} has")
    units = attrs.get("units")
    units = _strings(units, url, "units", covered) if units is not None else ("",) * covered
    axes = _axes_list(attrs["axis_names"], ndim, url, "axis_names") if "axis_names" in attrs else None
    voxel = _leading(sizes, ndim, 1.0, url, key or "offset")
    corner = _leading(corner, ndim, 0.0, url, "offset")
    names = axes or known_names or default_axes(ndim)
    return Placement(voxel, _centred(corner, voxel, names, covered), _leading(units, ndim, "", url, "units"), axes)


_ZARR_SIZE_KEYS = ("voxel_size", "resolution", "scale")
_N5_SIZE_KEYS = ("voxel_size",)


def _funlib(source: Source, facts: Facts, ndim: int, **_) -> Placement | None:
    """funlib: voxel_size / resolution and offset (a corner) in C order, on the array, else on its parent group."""
    keys = _N5_SIZE_KEYS if source.format == "n5" else _ZARR_SIZE_KEYS
    for doc in (source.own, source.parent):
        if doc is not None:
            found = _funlib_from(doc, keys, ndim, facts.names)
            if found is not None:
                return found
    return None


def _n5_base(doc: Document):
    """pixelResolution ({dimensions, unit} or a bare list) or resolution, x-first, with its unit if it has one."""
    attrs, url = doc.attrs, doc.url
    if "pixelResolution" in attrs:
        value = attrs["pixelResolution"]
        if isinstance(value, Mapping):
            return _numbers(value.get("dimensions"), url, "pixelResolution.dimensions", positive=True), value.get("unit")
        return _numbers(value, url, "pixelResolution", positive=True), None
    if "resolution" in attrs:
        return _numbers(attrs["resolution"], url, "resolution", positive=True), None
    return None


def _n5_units(docs, covered):
    for doc in docs:
        value = doc.attrs.get("units")
        if isinstance(value, str):  # one unit written once means that unit on every axis
            return (value,) * covered
        if value is not None:
            return _strings(value, doc.url, "units", covered)
    return None


def _n5(source: Source, facts: Facts, ndim: int, **_) -> Placement | None:
    """N5: pixelResolution or resolution (array, else group) times downsamplingFactors, plus offset; x-first lists."""
    docs = [d for d in (source.own, source.parent) if d is not None]
    own, url = source.own.attrs, source.own.url
    base = next((b for b in map(_n5_base, docs) if b is not None), None)
    if base is None and "downsamplingFactors" not in own:
        return None
    factors = _numbers(own["downsamplingFactors"], url, "downsamplingFactors", positive=True) if "downsamplingFactors" in own else None
    covered = len(base[0]) if base else len(factors)
    sizes = base[0] if base else (1.0,) * covered
    factors = factors or (1.0,) * covered
    if len(factors) != covered:
        raise ValueError(f"{_where(url, 'downsamplingFactors')} is {list(factors)}; expected {covered} entries")
    corner = _numbers(own["offset"], url, "offset", covered) if "offset" in own else (0.0,) * covered
    units = _n5_units(docs, covered) or ((base[1],) * covered if base and base[1] else ("",) * covered)
    axes = next((d.attrs["axes"] for d in docs if "axes" in d.attrs), None)
    axes = _axes_list(_strings(axes, url, "axes", covered)[::-1], ndim, url, "axes") if axes is not None else None
    voxel = _leading(tuple(s * f for s, f in zip(sizes, factors))[::-1], ndim, 1.0, url, "resolution")
    corner = _leading(corner[::-1], ndim, 0.0, url, "offset")  # without an offset the corner is the origin
    names = axes or facts.names or default_axes(ndim)
    return Placement(voxel, _centred(corner, voxel, names, covered), _leading(units[::-1], ndim, "", url, "units"), axes)


def _quantity(text, url, key) -> tuple[float, str]:
    if text is None:
        return 1.0, ""
    parts = str(text).split()
    try:
        if len(parts) == 2:
            return float(parts[0]), parts[1]
        if len(parts) == 1:
            try:
                return float(parts[0]), ""
            except ValueError:
                return 1.0, parts[0]
    except ValueError:
        pass
    raise ValueError(f"{_where(url, key)} holds {text!r}; expected a quantity such as '4 nm'")


def _dimension_units(source: Source, facts: Facts, ndim: int, **_) -> Placement | None:
    """tensorstore's dimension_units attribute: voxel size and unit per axis, voxel 0's corner at the origin."""
    value = source.own.attrs.get("dimension_units")
    if value is None:
        return None
    items = _list(value, source.own.url, "dimension_units", ndim, kind="quantities")
    pairs = [_quantity(item, source.own.url, "dimension_units") for item in items]
    voxel = _numbers([p[0] for p in pairs], source.own.url, "dimension_units", positive=True)
    names = facts.names or default_axes(ndim)
    return Placement(voxel, corner_to_centre((0.0,) * ndim, voxel, names), tuple(p[1] for p in pairs))


def _precomputed(source: Source, facts: Facts, ndim: int, **_) -> Placement:
    """precomputed: resolution (nm, xyz) and voxel_offset (the corner, in voxels) of the scale."""
    scale, url = _precomputed_scale(source), source.array_url
    key = f"scales[{source.scale_index or 0}]"
    resolution = _numbers(scale.get("resolution"), url, f"{key}.resolution", 3, positive=True)[::-1]
    first = _numbers(scale.get("voxel_offset", [0, 0, 0]), url, f"{key}.voxel_offset", 3)[::-1]
    lead = ndim - 3
    voxel = (1.0,) * lead + resolution
    corner = (0.0,) * lead + tuple(f * r for f, r in zip(first, resolution))
    return Placement(voxel, _centred(corner, voxel, facts.names, 3), ("",) * lead + ("nanometer",) * 3, facts.names)


_OME, _COSEM, _FUNLIB = Rule("ome", _ome), Rule("cosem", _cosem), Rule("funlib", _funlib)

#: Per format, the placement rules in precedence order; the first that finds something names placed_by.
RULES: dict[str, tuple[Rule, ...]] = {
    "zarr2": (_OME, _COSEM, _FUNLIB),
    "zarr3": (_OME, _COSEM, _FUNLIB, Rule("dimension_units", _dimension_units)),
    "n5": (_COSEM, _FUNLIB, Rule("n5", _n5)),
    "precomputed": (Rule("precomputed", _precomputed),),
}


def parse(source: Source, metadata_conflicts: str = "error") -> ArrayMeta:
    """Place one array from its documents: the first rule of its format that finds something wins.

    Raises ValueError naming the document, key and value when a document is malformed, and on
    a voxel-size conflict unless ``metadata_conflicts="warn"``.
    """
    if metadata_conflicts not in ("error", "warn"):
        raise ValueError(f"metadata_conflicts is {metadata_conflicts!r}; expected 'error' or 'warn'")
    if source.format not in FACTS:
        raise ValueError(f"{source.path}: format is {source.format!r}; expected one of {tuple(FACTS)}")
    facts = FACTS[source.format](source)
    ndim = len(facts.shape)
    placement, placed_by = None, None
    for rule in RULES[source.format]:
        placement = rule.find(source, facts, ndim, conflicts=metadata_conflicts)
        if placement is not None:
            placed_by = rule.name
            break
    ome = placed_by == "ome" and placement.axes is not None
    axes = (placement.axes if ome else None) or facts.names or (placement.axes if placement else None)
    named = axes is not None
    axes = tuple(axes) if named else default_axes(ndim)
    if placement is None:  # nothing placed it: voxels of 1, voxel 0's corner at the origin
        placement = Placement((1.0,) * ndim, corner_to_centre((0.0,) * ndim, (1.0,) * ndim, axes), ("",) * ndim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{source.path}: axis names are {list(axes)}; expected {ndim} distinct names")
    parent = source.parent
    return ArrayMeta(
        shape=facts.shape,
        dtype=facts.dtype,
        chunk_shape=facts.chunk_shape,
        axes=axes,
        axes_named=named,
        units=placement.units,
        voxel_size=placement.voxel_size,
        translation=placement.translation,
        format=source.format,
        path=source.path,
        parent=parent.path if parent else None,
        attrs=dict(source.own.attrs),
        group_attrs=dict(parent.attrs) if parent else {},
        placed_by=placed_by,
        fill_value=facts.fill_value,
        shard_shape=facts.shard_shape,
    )
