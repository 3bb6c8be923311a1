"""An array whose steps OME-NGFF cannot hold (a north-up raster's negative one) or whose placement is a CRS's is
written placed by its own zarr-conventions ``spatial:`` attributes, in zarr v3, with no OME entry.

``spatial_attributes`` gives an array's ``spatial:dimensions``, ``spatial:transform`` (the outer corner of pixel
(0, 0), pixel registration) and ``proj:`` attributes from a grid in the source's stored units; ``create_spatial``
writes the array as ``create`` writes one (bare groups above, create-if-absent, never an overwrite) and adopts an
existing one only when it is placed and shaped alike. Only ``copy`` writes such arrays: ``wa.create`` keeps
refusing a negative voxel size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import tensorstore as ts

from .geometry import isclose
from .metadata import ArrayMeta
from .detect import probe
from .formats import WRITTEN
from .handle import metadata
from .units import NANOMETER
from .write import Level, array_spec, bare_group, make_array, plan_level, resolve_format

__all__ = ["spatial_attributes", "create_spatial", "WKT2_KEYWORDS"]

#: The keywords a WKT2 CRS begins with (a WKT1 ``PROJCS``/``GEOGCS`` is no ``proj:wkt2``).
WKT2_KEYWORDS = ("PROJCRS", "GEOGCRS", "GEODCRS", "PROJECTEDCRS", "GEOGRAPHICCRS", "GEODETICCRS", "COMPOUNDCRS",
                 "BOUNDCRS", "ENGCRS", "VERTCRS")


def _proj(meta: ArrayMeta) -> dict[str, Any]:
    """The ``proj:`` attributes to write: the source's own ``proj:`` object, else a grid mapping's WKT2 text."""
    crs = dict(meta.crs or {})
    found = {k: v for k, v in crs.items() if k.startswith("proj:")}
    if found:
        return found
    wkt = crs.get("crs_wkt") or crs.get("spatial_ref")
    if isinstance(wkt, str) and wkt.lstrip().upper().startswith(WKT2_KEYWORDS):
        return {"proj:wkt2": wkt}
    return {}


def spatial_attributes(meta: ArrayMeta, sizes: Sequence[float], corner: Sequence[float]) -> dict[str, Any]:
    """The ``spatial:`` and ``proj:`` attributes that place an array of ``meta``'s axes at ``sizes`` with voxel 0's
    outer corner at ``corner`` (both over every axis, in ``meta``'s stored units); ValueError unless exactly two
    axes are spatial, the two an affine places."""
    spatial = meta.spatial
    if len(spatial) != 2:
        raise ValueError(f"{meta.path}: has spatial axes {[meta.axes[i] for i in spatial]}; a north-up or CRS-placed "
                         "array is written with a 2-D spatial:transform, which places exactly two")
    row, col = spatial
    transform = [float(sizes[col]), 0.0, float(corner[col]), 0.0, float(sizes[row]), float(corner[row])]
    return {"spatial:dimensions": [meta.axes[row], meta.axes[col]], "spatial:transform": transform,
            "spatial:registration": "pixel", **_proj(meta)}


def _differences(found: ArrayMeta, level: Level, attrs: Mapping[str, Any]) -> list[str]:
    """How an existing array differs from the one asked for: shape, dtype, chunks and its spatial attributes."""
    out = [f"{key}: found {have}, wanted {want}" for key, have, want in (
        ("shape", tuple(found.shape), tuple(level.shape)), ("dtype", found.dtype, level.dtype),
        ("chunks", tuple(found.chunk_shape), tuple(level.chunks)),
        ("shards", tuple(found.shard_shape or ()), tuple(level.shards or ()))) if have != want]
    for key, want in attrs.items():
        have = found.attrs.get(key)
        if key == "spatial:transform":
            same = isinstance(have, list) and len(have) == len(want) and all(
                isclose(a, b) for a, b in zip(have, want, strict=True))
        else:
            same = have == want
        if not same:
            out.append(f"attrs[{key!r}]: found {have!r}, wanted {want!r}")
    return out


def create_spatial(path: str, *, shape: Sequence[int], dtype: np.dtype, axes: Sequence[str], chunks: Any,
                   shards: Any, fill_value: Any, codecs: Any, attrs: Mapping[str, Any], exists: str,
                   context: ts.Context | None) -> str:
    """Write a zarr v3 array placed by ``attrs`` (``spatial_attributes``) at ``path``; return its path. An array
    already there raises FileExistsError, or under ``exists="adopt"`` is kept when shaped and placed alike (else
    ValueError naming each difference)."""
    level = plan_level(path, shape=shape, dtype=dtype, voxel_size=1.0, translation=0.0, axes=tuple(axes),
                       units=NANOMETER, chunks=chunks, shards=shards, fill_value=fill_value, codecs=codecs,
                       format=WRITTEN["0.5"], exists=exists)
    level = dataclasses.replace(level, attrs=dict(attrs))
    existing = probe(level.path)
    if existing is not None:
        if exists != "adopt":
            raise FileExistsError(f"{level.path}: something is already there; a copy never overwrites (pass "
                                  "exists='resume' to continue one)")
        wrong = _differences(metadata(level.path, units=None), level, attrs)
        if wrong:
            raise ValueError(f"{level.path}: exists='resume' found an array that differs from the one asked for: "
                             + "; ".join(wrong))
        return level.path
    fmt, _, missing = resolve_format(level)
    if fmt != WRITTEN["0.5"]:  # the zarr v3 format
        raise ValueError(f"{level.group}: is {fmt}; a north-up or CRS-placed array is written in zarr v3, as the "
                         "spatial: convention is")
    for directory in [*missing, level.group]:
        bare_group(directory, fmt)
    make_array(level, array_spec(level, fmt), context)
    return level.path
