"""A Neuroglancer layer shows every stored voxel where the handle places it, with a transform only where Neuroglancer's
own reading of the store would put it elsewhere.

How Neuroglancer places each format (files of google/neuroglancer):

=======================  ==============================================================================================
Neuroglancer reads       and puts the lower corner of voxel j of a level at
=======================  ==============================================================================================
zarr OME group,          T + S (j - 1/2) on every axis, time and channel too, so a stated position is a voxel's centre
versions 0.4, 0.5-dev,   (``src/datasource/zarr/ome.ts``: the dataset's transforms, then the multiscale's, then half a
0.5 (0.5 in zarr v3      voxel down). OME units must be long names (``nanometer``, not ``nm``); a channel axis becomes
only)                    a local dimension ``c'``. Other versions are refused, except 0.6 and 0.6.dev1, which read the
                         *last* coordinate system. Its model space is scaled by the first level's transform, so what a
                         source transform on the group means has changed between releases: none is written on one.
zarr array, v2 or v3     j times the ``dimension_units`` scale ("4 nm"; read from a v2 ``.zattrs`` too), else unitless
                         j; names ``dimension_names`` (v3) or ``_ARRAY_DIMENSIONS`` (v2), unnamed ``dim_<i>`` (v3) or
                         ``d<i>`` (v2). Every other attribute (funlib ``offset`` and ``resolution``, COSEM
                         ``transform``) is ignored; a zarr group without OME multiscales is refused
                         (``src/datasource/zarr/frontend.ts``, ``src/datasource/zarr/metadata/parse.ts``).
N5 group whose           f_k j times the resolution, f_k the list's entry for ``s<k>``; the level's own factors and any
``scales`` or            ``offset`` are ignored (``src/datasource/n5/frontend.ts``, ``src/datasource/n5/index.rst``).
``downsamplingFactors``
lists every level
N5 array                 f j times the resolution, f its flat ``downsamplingFactors`` else 1. Attributes are merged
                         from every ancestor's ``attributes.json``, the deeper winning: ``pixelResolution.dimensions``
                         (its ``unit`` required) over ``resolution``, else 1; ``units`` (a list of SI short forms) else
                         ``pixelResolution.unit`` else nanometres; ``axes`` else x, y, z, t, c; all x-first.
                         ``offset``, ``transform`` and ``voxel_size`` are ignored (same files).
precomputed              (voxel_offset + j) times the scale's resolution in nanometres; the source is the ``info``
                         directory with every scale; axes x, y, z and a channel dimension ``c^``
                         (``src/datasource/precomputed/frontend.ts``).
=======================  ==============================================================================================

How a source transform is read, and why a signed step is in its matrix, is ``coordinate_spaces``'s docstring. The
source URLs ``zarr2://``, ``zarr3://``, ``n5://`` and ``precomputed://`` before an http(s), s3 or gs URL are
Neuroglancer's legacy spellings, still read (``KvStoreBasedDataSourceLegacyUrlAdapter`` in
``src/datasource/index.ts``, ``src/datasource/zarr/register_default.ts``); a viewer URL holds the state as ``#!`` and
percent-quoted JSON (``python/neuroglancer/url_state.py``).

Decisions. On spatial axes voxel j's centre lands at translation + j * voxel_size. On time and channel axes, which
worldarray never moves by half a sample, a stated position is where the store's own reading puts it (a sample's
centre in an OME group, its lower edge elsewhere), and a written transform keeps it there: a relabelled level of an
OME group, read as its array, still has sample j centred on its stated position. A channel axis (``c`` or
``channel``) stays a local dimension (``c'``; ``c^`` in precomputed, as Neuroglancer names it). An axis ``select``
pinned is a local dimension of the layer (``c'``, ``t'``), and the layer's ``localPosition`` holds it at the centre of
the selected sample, so the layer shows that sample whatever the viewer's position (any other local dimension is held
at its middle sample); only a transform makes a dimension local, so a pinned time axis of an OME level is shown on
its array. A pyramid is named by its group where Neuroglancer reads the group's levels (OME, an N5 group's factor
list, precomputed); the transform, if any, places the handle's own level, and the other levels follow Neuroglancer's
reading of the group. A store placed by ``spatial:`` attributes is read by Neuroglancer as a plain array, so its
layer always has a transform: a negative step (a north-up raster's rows) is a positive output scale and a negative
matrix entry, since Neuroglancer's scales must be positive; metres are ``m``; degrees, which Neuroglancer has no unit
for (it names only m, s, Hz and rad/s), are a unitless dimension whose coordinates are the degree numbers; a ``band``
axis is a plain unitless dimension, each sample from its index to the next. Neuroglancer reads only what is served
over http(s), s3 or gs, so a local store needs ``url=``, the address its path is served at.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
import urllib.parse
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from . import paths, units
from .coordinate_spaces import (OME_UNITS, SHORT_UNITS, SI_NAMES, ZARR_UNITS, Dim, Output, output_name, power_of_ten,
                                transform)
from .geometry import centre_to_corner, centres, corners, in_voxels, isclose, same
from .formats import FORMATS
from .metadata import ArrayMeta
from .n5 import level_position, n5_group_factors

class Shown(Protocol):
    """What a layer is made from: a handle's stored level (``meta``), its grid in the units asked for, and its
    spatial placement (a ``WorldArray`` is one)."""

    @property
    def path(self) -> str: ...

    @property
    def meta(self) -> ArrayMeta: ...

    @property
    def grid(self) -> ArrayMeta: ...

    @property
    def resampled(self) -> bool: ...

    @property
    def selected(self) -> dict[str, int]: ...

    @property
    def voxel_size(self) -> tuple[float, ...]: ...

    @property
    def translation(self) -> tuple[float, ...]: ...

    @property
    def source_voxel_size(self) -> tuple[float, ...]: ...

    @property
    def source_translation(self) -> tuple[float, ...]: ...

__all__ = ["DEFAULT_VIEWER", "SCHEMES", "layer", "navigation", "viewer_url"]

#: The public Neuroglancer a viewer URL opens by default.
DEFAULT_VIEWER = "https://neuroglancer-demo.appspot.com/"

#: Neuroglancer's data source scheme for each format: zarr versions spelled out, since Neuroglancer's plain ``zarr``
#: refuses a directory holding both versions' documents.
SCHEMES = {name: form.neuroglancer_scheme for name, form in FORMATS.items()}

@dataclasses.dataclass(frozen=True)
class Reading:
    """What Neuroglancer opens for a handle (``directory``, read as ``scheme``) and where it puts the voxels."""

    scheme: str
    directory: str
    dims: tuple[Dim, ...]
    transformable: bool = True  # a transform written on this source means the same in every release
    channel_suffix: str = "'"


def _refused(where: str, key: str, value: Any, why: str) -> ValueError:
    return ValueError(f"{where}: {key} is {value!r}; Neuroglancer refuses it ({why}), so no layer can show this store")


# ---------------------------------------------------------------- how Neuroglancer reads each format


def _ome_multiscale(vol: Shown) -> Mapping[str, Any] | None:
    """The group's first multiscale when Neuroglancer reads it as this level's pyramid, as worldarray placed it."""
    meta = vol.meta
    attrs = meta.group_attrs
    ome = attrs.get("ome")
    multiscales = (ome if isinstance(ome, Mapping) else attrs).get("multiscales")
    if (meta.placed_by != "ome" or meta.parent is None or not isinstance(multiscales, list) or not multiscales
            or not isinstance(multiscales[0], Mapping)):
        return None
    first = multiscales[0]
    version = ome.get("version") if isinstance(ome, Mapping) else first.get("version")
    axes = first.get("axes")
    readable = (version in _OME_VERSIONS[meta.format] and "coordinateSystems" not in first
                and isinstance(axes, list) and len(axes) == meta.ndim
                and all(isinstance(a, Mapping) and a.get("unit", "") in OME_UNITS for a in axes)
                and any(isinstance(d, Mapping) and d.get("path") == paths.basename(meta.path)
                        for d in first.get("datasets") or ()))
    return first if readable else None


#: The OME versions Neuroglancer reads as a multiscale, per zarr format.
_OME_VERSIONS = {"zarr2": ("0.4", "0.5-dev"), "zarr3": ("0.4", "0.5-dev", "0.5")}


def _ome_group(vol: Shown) -> Reading | None:
    """The OME group, its voxels where worldarray's ``ome`` rule puts them (both compose the same transforms)."""
    multiscale = _ome_multiscale(vol)
    if multiscale is None:
        return None
    meta = vol.meta
    low = corners(meta.translation, meta.voxel_size)  # Neuroglancer's OME reader: every axis, half a voxel down
    dims = []
    for i, axis in enumerate(multiscale["axes"]):
        scale, base = OME_UNITS[axis.get("unit", "")]
        name = str(axis.get("name")) + ("'" if axis.get("type") == "channel" else "")
        dims.append(Dim(i, name, low[i] * scale, meta.voxel_size[i] * scale, base, centred=True))
    return Reading(SCHEMES[meta.format], str(meta.parent), tuple(dims), transformable=False)


def _zarr_unit(text: Any, where: str) -> tuple[float, str]:
    """A ``dimension_units`` entry as Neuroglancer reads it: a number, then one of ``ZARR_UNITS``."""
    if text is None:
        return 1.0, ""
    found = re.match(r"^([-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?\d+)?)\s*(.*)$", str(text).strip())
    number, unit = (float(found.group(1)), found.group(2)) if found else (1.0, str(text).strip())
    if unit not in ZARR_UNITS:
        raise _refused(where, "dimension_units entry", text, "an unknown unit; write '4 nm' or '4 \u00b5m', say")
    scale, base = ZARR_UNITS[unit]
    return number * scale, base


def _zarr_array(vol: Shown) -> Reading:
    """A lone zarr array: ``dimension_units`` or unitless 1 per voxel, voxel 0's corner at the origin."""
    meta = vol.meta
    given = meta.attrs.get("dimension_units")
    scales = [(1.0, "")] * meta.ndim
    if isinstance(given, list) and len(given) == meta.ndim:
        scales = [_zarr_unit(u, meta.path) for u in given]
    form = FORMATS[meta.format]
    unnamed = [f"{form.neuroglancer_unnamed}{i}" for i in range(meta.ndim)]
    if form.dimension_names:  # dimension_names, which worldarray reports as the axes when the array names them all
        names = list(meta.axes) if meta.axes_named else unnamed
    else:  # xarray's _ARRAY_DIMENSIONS, which Neuroglancer reads from a zarr v2 .zattrs
        listed = meta.attrs.get("_ARRAY_DIMENSIONS")
        names = ([str(n or unnamed[i]) for i, n in enumerate(listed)]
                 if isinstance(listed, list) and len(listed) == meta.ndim else unnamed)
    dims = tuple(Dim(i, names[i], 0.0, scale, base) for i, (scale, base) in enumerate(scales))
    return Reading(SCHEMES[meta.format], meta.path, dims)


def _zarr(vol: Shown) -> Reading:
    return _ome_group(vol) or _zarr_array(vol)


def _n5_resolution(attrs: Mapping[str, Any], rank: int, where: str) -> list[tuple[float, str]]:
    """Each x-first dimension's resolution and base unit, as Neuroglancer reads N5 attributes."""
    sizes = list(attrs.get("resolution") or [1.0] * rank)
    default = (power_of_ten(-9), "m")  # Neuroglancer takes a resolution with no unit as nanometres
    pixel = attrs.get("pixelResolution")
    if pixel is not None:
        unit = pixel.get("unit") if isinstance(pixel, Mapping) else None
        if unit not in SHORT_UNITS:
            raise _refused(where, "pixelResolution", pixel, "it needs a 'unit' such as 'nm'")
        default = SHORT_UNITS[unit]
        sizes = list(pixel.get("dimensions") or sizes)
    given = attrs.get("units")
    if given is not None and (not isinstance(given, list) or any(u not in SHORT_UNITS for u in given)):
        raise _refused(where, "units", given, "a list of SI short forms such as 'nm' is expected")
    found = [SHORT_UNITS[u] for u in given] if given is not None else [default] * rank
    if len(sizes) != rank or len(found) != rank:
        raise _refused(where, "resolution", sizes, f"{rank} entries, one per dimension, are expected")
    return [(float(s) * f, base) for s, (f, base) in zip(sizes, found, strict=True)]


def _n5_listed(vol: Shown) -> list[float] | None:
    """The level's factors from its group's ``scales`` or ``downsamplingFactors`` list, which Neuroglancer reads when
    it opens the group; None when the group lists none for this level."""
    meta, group = vol.meta, vol.meta.group_attrs
    key = n5_group_factors(group) if meta.parent is not None and "dimensions" not in group else None
    position = level_position(meta.path)
    if key is None or position is None or position >= len(group[key]):
        return None
    return [float(f) for f in group[key][position]]


def _n5(vol: Shown) -> Reading:
    """N5: the group when it lists the levels' factors, else the array with its own factors; x-first."""
    meta, rank = vol.meta, vol.meta.ndim
    listed = _n5_listed(vol)
    merged = meta.group_attrs if listed is not None else {**meta.group_attrs, **meta.attrs}  # the deeper document wins
    own = merged.get("downsamplingFactors")
    factors: list[float] = [1.0] * rank
    if listed is not None:
        factors = listed
    elif isinstance(own, list) and own and not isinstance(own[0], list):  # a flat list: the array's own
        factors = [float(f) for f in own]
    names = [str(n) for n in merged.get("axes") or ("x", "y", "z", "t", "c")[:rank]]
    names += [f"d{k + 1}" for k in range(len(names), rank)]
    where = str(meta.parent if listed is not None else meta.path)
    dims = tuple(Dim(rank - 1 - k, names[k], 0.0, float(factors[k]) * scale, base)
                 for k, (scale, base) in enumerate(_n5_resolution(merged, rank, where)))
    return Reading(SCHEMES[meta.format], where, dims)


def _precomputed(vol: Shown) -> Reading:
    """precomputed: the info directory; x, y, z at (voxel_offset + j) * resolution nm, then the channels ``c^``."""
    meta = vol.meta
    scale = meta.attrs  # the level's entry of the info's scales
    offset = scale.get("voxel_offset") or [0, 0, 0]
    metres = power_of_ten(-9)
    dims = [Dim(meta.ndim - 1 - k, "xyz"[k], float(offset[k]) * float(r) * metres, float(r) * metres, "m")
            for k, r in enumerate(scale["resolution"])]
    if meta.ndim == 4:
        dims.append(Dim(0, "c^", 0.0, 1.0, ""))
    return Reading(SCHEMES[meta.format], str(meta.parent), tuple(dims), channel_suffix="^")


#: Per format, how Neuroglancer reads a handle's store.
READERS = {"zarr2": _zarr, "zarr3": _zarr, "n5": _n5, "precomputed": _precomputed}


# ---------------------------------------------------------------- where the handle puts each stored voxel


@dataclasses.dataclass(frozen=True)
class Placed:
    """Where the handle puts each stored voxel, every stored axis in C order, in the handle's units."""

    voxel_size: tuple[float, ...]
    start: tuple[float, ...]  # voxel 0's lower edge; on axes the store's reading does not centre, its stated position
    units: tuple[str, ...]
    as_stored: bool  # the stored placement, in other units at most: no relabel, no base voxel size


def _placed(vol: Shown, centred: Collection[int]) -> Placed:
    """The handle's placement, voxel 0's lower edge half a voxel below its centre on the spatial axes and on the
    ``centred`` ones (where the store's own reading centres a sample on its stated position)."""
    meta, grid = vol.meta, vol.grid
    sizes, shifts, names = list(meta.voxel_size), list(meta.translation), list(meta.units)
    for i, axis in enumerate(meta.axes):
        if axis in grid.axes:  # an axis ``select`` pinned is not on the grid: it keeps its stored placement
            j = grid.axes.index(axis)
            sizes[i], shifts[i], names[i] = grid.voxel_size[j], grid.translation[j], grid.units[j]
    spatial_sizes = vol.source_voxel_size if vol.resampled else vol.voxel_size  # the stored voxels, not a target's
    spatial_shifts = vol.source_translation if vol.resampled else vol.translation
    for k, i in enumerate(meta.spatial):
        sizes[i], shifts[i] = spatial_sizes[k], spatial_shifts[k]
    targets = [None if new == old else new for new, old in zip(names, meta.units, strict=True)]
    stored = units.convert(meta.voxel_size, meta.translation, meta.units, targets, meta.spatial, quiet=True,
                           strict=False)
    as_stored = same(stored[0], sizes) and same(stored[1], shifts)
    edges = corners(shifts, sizes)
    start = tuple(edges[i] if i in meta.spatial or i in centred else shifts[i] for i in range(meta.ndim))
    return Placed(tuple(sizes), start, tuple(names), as_stored)


def _pins(vol: Shown) -> dict[int, int]:
    """The stored axes ``select`` pinned, each with its index."""
    return {vol.meta.axes.index(name): index for name, index in vol.selected.items()}


def _stored_in(vol: Shown, axis: int, base: str) -> tuple[float, float] | None:
    """The stored voxel size and start of one axis in Neuroglancer's ``base`` unit; None when it has another kind."""
    meta = vol.meta
    start = centre_to_corner(meta.translation, meta.voxel_size, meta.axes)[axis]
    unit = meta.units[axis]
    if base == "":  # Neuroglancer shows bare numbers: the store must have written no unit it knows either
        return (meta.voxel_size[axis], start) if units.kind(unit) == "unknown" else None
    try:  # a spatial axis with no unit is in nanometres, by the one rule units owns
        sizes, starts, _ = units.convert((meta.voxel_size[axis],), (start,), (unit,), (SI_NAMES[base],),
                                         (0,) if axis in meta.spatial else (), quiet=True)
    except (KeyError, ValueError):
        return None
    return sizes[0], starts[0]


def _agrees(vol: Shown, reading: Reading, placed: Placed) -> bool:
    """Whether Neuroglancer's own reading puts every stored voxel where the handle does."""
    if not placed.as_stored:
        return False
    pins = _pins(vol)
    if any(dim.axis in pins and not dim.name.endswith("'") for dim in reading.dims):
        return False  # a pinned axis must be local to the layer, which only a transform can make it
    for dim in reading.dims:
        stored = _stored_in(vol, dim.axis, dim.unit)
        if stored is None:
            return False
        size, start = stored
        stated = dim.corner
        if dim.centred and dim.axis not in vol.meta.spatial:
            stated = centres((dim.corner,), (dim.size,))[0]
        if not (isclose(size, dim.size) and isclose(in_voxels(start, size), in_voxels(stated, dim.size))):
            return False
    return True


def _reading(vol: Shown) -> tuple[Reading, Placed, bool]:
    """Neuroglancer's reading of the handle's store, the handle's placement, and whether they agree; where they do
    not and no transform can be written on the group, the array itself."""
    fmt = vol.meta.format
    if fmt not in READERS:
        raise ValueError(f"{vol.path}: format is {fmt!r}; expected one of {tuple(READERS)}")
    reading = READERS[fmt](vol)
    placed = _placed(vol, {dim.axis for dim in reading.dims if dim.centred})  # kept when the array is read instead
    agrees = _agrees(vol, reading, placed)
    if not agrees and not reading.transformable:
        reading = _zarr_array(vol)
        agrees = _agrees(vol, reading, placed)
    return reading, placed, agrees


# ---------------------------------------------------------------- the transform


def _outputs(vol: Shown, reading: Reading, placed: Placed) -> list[Output]:
    """The output dimensions of a written transform, one per input dimension of the source, in the handle's units
    as Neuroglancer names them: a positive scale, the step's sign kept for the matrix."""
    found: list[Output] = []
    pins = _pins(vol)
    for dim in reading.dims:
        axis = str(vol.meta.axes[dim.axis])
        local = dim.axis in pins or axis.lower() in ("c", "channel")
        suffix = "'" if dim.axis in pins else reading.channel_suffix
        name = output_name(axis, local, suffix, [o.name for o in found])
        found.append(Output.of(name, placed.voxel_size[dim.axis], placed.units[dim.axis], placed.start[dim.axis]))
    return found


def _shown(vol: Shown, reading: Reading, placed: Placed, agrees: bool) -> list[Output]:
    """The layer's output dimensions: Neuroglancer's own when it reads the store alike, else a transform's."""
    if agrees:
        return [Output(d.name, d.size, d.unit, in_voxels(d.corner, d.size)) for d in reading.dims]
    return _outputs(vol, reading, placed)


def _local_position(vol: Shown, reading: Reading, outputs: Sequence[Output]) -> dict[str, Any]:
    """For a handle ``select`` pinned, the layer's local dimensions and the position that shows the selected
    sample of each pinned axis (its centre), and the middle sample of any other; nothing for a handle with no pins."""
    pins = _pins(vol)
    if not pins:
        return {}
    local = [k for k, out in enumerate(outputs) if out.name.endswith("'")]
    position = []
    for k in local:
        axis = reading.dims[k].axis
        position.append(outputs[k].centre(pins.get(axis, vol.meta.shape[axis] // 2)))
    return {"localDimensions": {outputs[k].name: [outputs[k].scale, outputs[k].unit] for k in local},
            "localPosition": position}


# ---------------------------------------------------------------- the layer, and a viewer URL


def _url(vol: Shown, directory: str, url: str | None) -> str:
    """Where Neuroglancer reaches ``directory``: below ``url``, the address ``vol.path`` is served at, else below the
    handle's own remote path."""
    base = vol.path if url is None else paths.normalize(url)
    if paths.scheme(base) not in paths.REMOTE_SCHEMES:
        if url is None:
            raise ValueError(f"{vol.path}: Neuroglancer reads stores over http(s), s3 or gs only; serve the store "
                             "(with CORS allowed) and pass url= the address this path is served at, such as "
                             f"url='http://localhost:8000/{paths.basename(vol.path)}'")
        raise ValueError(f"url is {url!r}; expected an http, https, s3 or gs URL that Neuroglancer can read")
    return paths.join(base, posixpath.relpath(directory, vol.path))


def layer(vol: Shown, url: str | None = None, *, name: str | None = None,
          layer_type: str = "image") -> dict[str, Any]:
    """A Neuroglancer layer (a JSON-ready dict) that shows the handle's stored voxels where the handle places them.

    The source is the OME group, the N5 group listing its levels' factors, or the precomputed ``info`` directory
    when Neuroglancer reads that group as the handle's pyramid, else the array. A ``transform`` is written only
    where Neuroglancer's own reading would put a voxel elsewhere; its output dimensions are in the handle's units as
    Neuroglancer names them, each scale positive: a negative step (a north-up raster's rows) is a negative matrix
    entry, and an angle, which Neuroglancer names no unit for, is a unitless dimension in the handle's numbers
    (degrees, or radians when ``units=`` asked for them).

    Parameters
    ----------
    vol
        An open handle. With a resample target the stored voxels are shown where they are stored; under relabel,
        on the relabelled grid; with ``select``, the selected index of each pinned axis, held by the layer.
    url
        The http(s), s3 or gs address ``vol.path`` is served at (the group above it too, when the source is the
        group). By default the handle's own path, which must then be remote.
    name, layer_type
        The layer's name (the path's last segment by default) and type ("image" or "segmentation").

    Returns
    -------
    dict
        ``{"type", "source", "name"}``; ``source`` is a URL, or ``{"url", "transform"}``. A selected handle's layer
        also holds ``localDimensions`` and ``localPosition``, which show the selected index.

    Raises
    ------
    ValueError
        For a local or memory path without ``url``, a ``url`` Neuroglancer cannot read, and documents Neuroglancer
        refuses (a unit it does not know, say).

    Examples
    --------
    >>> vol = wa.create("memory://doc/ng.zarr/s0", (4, 4), "uint8", 8, 4, axes=("y", "x"), chunks=4)
    >>> layer(vol, url="s3://bucket/ng.zarr/s0")["source"]
    'zarr3://s3://bucket/ng.zarr'
    """
    reading, placed, agrees = _reading(vol)
    address = f"{reading.scheme}://{_url(vol, reading.directory, url)}"
    outputs = _shown(vol, reading, placed, agrees)
    source: str | dict[str, Any] = address
    if not agrees:
        source = {"url": address, "transform": transform(outputs, reading.dims)}
    return {"type": layer_type, "source": source, "name": name or paths.basename(vol.path) or "volume",
            **_local_position(vol, reading, outputs)}


def _display_order(reading: Reading, spatial: Sequence[int]) -> list[int]:
    """The source's dimensions in viewer order: spatial ones x first, then the others in the store's order."""
    def key(k: int) -> tuple[bool, int]:
        axis = reading.dims[k].axis
        return (axis not in spatial, -axis if axis in spatial else axis)

    return sorted(range(len(reading.dims)), key=key)


def navigation(vol: Shown) -> dict[str, Any]:
    """The ``dimensions`` and ``position`` of a viewer centred on the handle's stored voxels, named as the output
    dimensions of ``layer(vol)`` are, local and channel dimensions left out; ``viewer_url(..., **navigation(vol))``.

    >>> vol = wa.create("memory://doc/ng-centre.zarr/s0", (4, 4), "uint8", 8, 4, axes=("y", "x"), chunks=4)
    >>> navigation(vol)["position"]
    [2.0, 2.0]
    """
    reading, placed, agrees = _reading(vol)
    outputs = _shown(vol, reading, placed, agrees)
    shape = vol.meta.shape
    shown = [k for k in _display_order(reading, vol.meta.spatial) if not outputs[k].name.endswith(("'", "^"))]
    return {"dimensions": {outputs[k].name: [outputs[k].scale, outputs[k].unit] for k in shown},
            "position": [outputs[k].middle(shape[reading.dims[k].axis]) for k in shown]}


#: Characters left unquoted in a viewer URL's state, as Neuroglancer's own Python client leaves them.
_SAFE = "~@$&()*!+=:;,.?/'"


def viewer_url(layer_or_layers: Mapping[str, Any] | Sequence[Mapping[str, Any]], viewer: str = DEFAULT_VIEWER, *,
               dimensions: Mapping[str, Any] | None = None, position: Sequence[float] | None = None) -> str:
    """A Neuroglancer URL whose state (``#!`` and quoted JSON) holds the layer or layers, and the ``dimensions`` and
    ``position`` ``navigation`` gives when they are passed; without them Neuroglancer centres the view itself.

    >>> url = viewer_url({"type": "image", "source": "zarr3://gs://bucket/a.zarr", "name": "a"})
    >>> url.startswith("https://neuroglancer-demo.appspot.com/#!%7B%22layers%22:%5B%7B%22type%22:%22image%22")
    True
    """
    layers = [dict(layer_or_layers)] if isinstance(layer_or_layers, Mapping) else [dict(x) for x in layer_or_layers]
    state: dict[str, Any] = {}
    if dimensions is not None:
        state["dimensions"] = dict(dimensions)
    if position is not None:
        state["position"] = [float(p) for p in position]
    state["layers"] = layers
    text = json.dumps(state, separators=(",", ":"), allow_nan=False)
    return viewer.split("#", 1)[0].rstrip("/") + "/#!" + urllib.parse.quote(text, safe=_SAFE)
