"""Coordinate arrays beside an array are checked against its placement and never place it: value k of the 1-D
array named by spatial axis i must be ``translation[i] + k * voxel_size[i]``, in the stored units, within 1e-6 of
a voxel.

A coordinate array is a 1-D numeric array beside the array (a sibling in its parent group) named by one of the
array's dimension names, when that name is one of ``COORDINATE_NAMES`` (``x``, ``y``, ``easting``, ``northing``,
``lat``, ``lon``, ...). Only a zarr array whose format has the ``grid_mapping`` rule is looked at, and only when it
was placed by ``spatial`` or ``grid_mapping`` (its coordinate arrays are then checked: a value beyond the tolerance,
or a length other than the axis's, warns naming the coordinate array) or by nothing (then one warning says its
placement is not read). An array placed by any other rule, or whose dimension names include no such name, asks for
nothing more. ``check_coordinates`` reads the coordinate arrays' documents in one round and their values with
tensorstore.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import tensorstore as ts

from . import retry, store
from .diagnostics import warn
from .fields import document
from .formats import FORMATS, PROBES
from .metadata import RULES, ArrayMeta
from .nodes import Gathered, Node
from .reach import open_array

__all__ = ["COORDINATE_NAMES", "CHECKED_BY", "TOLERANCE", "check_coordinates", "disagreement"]

#: The dimension names whose 1-D arrays beside an array are its coordinate arrays.
COORDINATE_NAMES = ("x", "y", "easting", "northing", "lat", "lon", "latitude", "longitude")
#: The rules whose placement coordinate arrays are checked against (an array placed by nothing is told it is not).
CHECKED_BY = ("spatial", "grid_mapping")
#: How far, in voxels, a coordinate may sit from the voxel centre the placement gives.
TOLERANCE = 1e-6


def disagreement(values: np.ndarray, translation: float, voxel_size: float) -> int | None:
    """The first index whose value is not ``translation + k * voxel_size`` within ``TOLERANCE`` of a voxel (a NaN
    never agrees); None when all agree.

    >>> disagreement(np.array([5.0, 15.0, 25.0]), 5.0, 10.0) is None, disagreement(np.array([5.0, 16.0]), 5.0, 10.0)
    (True, 1)
    """
    wanted = translation + np.arange(len(values)) * voxel_size
    agree = np.abs(np.asarray(values, dtype=float) - wanted) <= TOLERANCE * abs(voxel_size)
    return None if bool(agree.all()) else int(np.argmin(agree))


def _candidates(meta: ArrayMeta) -> list[tuple[int, str]]:
    """The (axis, name) pairs whose coordinate arrays beside ``meta``'s array are looked for; [] when none is."""
    if not any(rule.name == "grid_mapping" for rule in RULES[meta.format]) or not meta.axes_named:
        return []
    if meta.parent is None or (meta.placed_by is not None and meta.placed_by not in CHECKED_BY):
        return []
    own = store.basename(meta.path)
    return [(i, name) for i, name in enumerate(meta.axes)
            if name in COORDINATE_NAMES and name != own and (meta.placed_by is None or i in meta.spatial)]


def _beside(meta: ArrayMeta, names: Sequence[str]) -> dict[str, Node]:
    """The arrays named ``names`` beside ``meta``'s, by name, their documents read in one round."""
    form, parent = FORMATS[meta.format], str(meta.parent)
    kind_of = next(kind_of for key, name, kind_of in PROBES if key == form.array_document and name == form.name)
    paths = {name: store.join(parent, name) for name in names}
    raw = store.read_documents([(path, form.array_document) for path in paths.values()])
    found = {}
    for name, path in paths.items():
        value = raw[(path, form.array_document)]
        if value is not None:
            url = store.url(path, form.array_document)
            doc = document(value, url)
            if kind_of(doc, url) == "array":
                found[name] = Node(meta.format, "array", path, {form.array_document: doc})
    return found


def _values(nodes: dict[str, Node], context: ts.Context | None) -> dict[str, np.ndarray]:
    """The values of the 1-D numeric arrays among ``nodes``; one that cannot be read warns and is left out."""
    views = {}
    for name, node in nodes.items():
        try:
            view = open_array(Gathered(node, ()), context)
        except (OSError, ValueError) as error:
            warn(f"{node.path}: coordinate array cannot be opened ({error}); the placement is not checked against it",
                 again=False)
            continue
        if view.rank == 1 and view.dtype.numpy_dtype.kind in "iuf":
            views[name] = view
    policy, found = retry.current(), {}
    for name, view in views.items():
        nbytes = int(view.shape[0]) * view.dtype.numpy_dtype.itemsize
        found[name] = np.asarray(policy.run(view.read, policy.attempt_timeout(nbytes), f"read {nodes[name].path}"))
    return found


def _compare(meta: ArrayMeta, axis: int, path: str, values: np.ndarray) -> None:
    """Warn when the coordinate array at ``path`` does not give the centres the placement gives along ``axis``."""
    size, translation, n = meta.voxel_size[axis], meta.translation[axis], meta.shape[axis]
    if len(values) != n:
        warn(f"{path}: coordinate array has {len(values)} values; expected {n}, one per voxel of axis "
             f"{meta.axes[axis]!r} of {meta.path}; it is not checked, and it never places the array", again=False)
        return
    k = disagreement(values, translation, size)
    if k is not None:
        wanted = translation + k * size
        warn(f"{path}: value [{k}] is {float(values[k])!r}; expected {wanted!r}, the centre of voxel {k} that "
             f"{meta.path}'s placement ({meta.placed_by}) gives ({translation!r} + {k} * {size!r}); coordinate "
             "arrays are checked, never read as placement", again=False)


def check_coordinates(meta: ArrayMeta, context: ts.Context | None = None) -> None:
    """Check the coordinate arrays beside ``meta``'s array against its placement (``meta`` in the stored units).

    A disagreement beyond ``TOLERANCE`` of a voxel, or a coordinate array of the wrong length, warns
    (MetadataWarning) naming the coordinate array's path, the first index that disagrees, the value found and the
    value the placement gives. An array placed by nothing that has coordinate arrays beside it warns once that its
    placement is not read. Nothing is read for an array with no dimension named as a coordinate array is.
    """
    candidates = _candidates(meta)
    if not candidates:
        return
    values = _values(_beside(meta, [name for _, name in candidates]), context)
    if not values:
        return
    parent = str(meta.parent)
    if meta.placed_by is None:
        named = ", ".join(store.join(parent, name) for name in values)
        warn(f"{meta.path}: is unplaced, though coordinate arrays sit beside it ({named}); coordinate arrays are "
             "checked, never read as placement: a spatial:transform, or a CF grid_mapping variable with a "
             "GeoTransform, would place it", again=False)
        return
    for axis, name in candidates:
        if name in values:
            _compare(meta, axis, store.join(parent, name), values[name])
