"""OME-NGFF places an array by the dataset entry whose path names it, in its parent or an ancestor up to four levels above.

The dataset's scale and translation are composed with the multiscale's own transforms (0.4 and 0.5);
an OME 0.6 group is read for its intrinsic coordinate system only, and never raises.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

from .documents import Facts, Placement, Source, list_of, numbers, where
from .meta import MetadataWarning, isclose

__all__ = ["multiscales_of", "dataset_path", "find_dataset", "compose", "ome_placement", "ome_group_placement"]


def multiscales_of(attrs: Mapping[str, Any]) -> list | None:
    """The OME multiscales list of a node's attributes, under ``ome`` (0.5 and later) or at the top (0.4)."""
    ome = attrs.get("ome")
    found = ome.get("multiscales") if isinstance(ome, Mapping) else None
    if found is None:
        found = attrs.get("multiscales")
    return found if isinstance(found, list) else None


def dataset_path(entry) -> str | None:
    path = entry.get("path") if isinstance(entry, Mapping) else None
    return path.strip("/").removeprefix("./") if isinstance(path, str) else None


def find_dataset(source: Source, key: str = "coordinateTransformations"):
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
                if dataset_path(dataset) == relative:
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


def compose(transforms, ndim, url, key, voxel=None, shift=None):
    """Apply a list of scale/translation transforms after (voxel, shift); OME lists match the array exactly."""
    voxel = list(voxel or (1.0,) * ndim)
    shift = list(shift or (0.0,) * ndim)
    for n, transform in enumerate(list_of(transforms or [], url, key, kind="transforms")):
        kind = transform.get("type") if isinstance(transform, Mapping) else None
        label = f"{key}[{n}]"
        if kind == "scale":
            scale = numbers(transform.get("scale"), url, f"{label}.scale", ndim, positive=True)
            voxel = [v * s for v, s in zip(voxel, scale)]
            shift = [t * s for t, s in zip(shift, scale)]
        elif kind == "translation":
            move = numbers(transform.get("translation"), url, f"{label}.translation", ndim)
            shift = [t + m for t, m in zip(shift, move)]
        elif kind != "identity":
            raise ValueError(f"{where(url, label)} is {transform!r}; expected a scale, translation or identity transform")
    return tuple(voxel), tuple(shift)


def _ome_axes(multiscale, ndim, url):
    axes = multiscale.get("axes")
    if axes is None:
        return None, ("",) * ndim
    items = list_of(axes, url, "multiscales[].axes", kind="axes")
    if len(items) != ndim:
        raise ValueError(f"{where(url, 'multiscales[].axes')} names {len(items)} axes {items!r}; the array has {ndim} axes")
    names = tuple(a.get("name") if isinstance(a, Mapping) else a for a in items)
    if not all(isinstance(n, str) for n in names):
        raise ValueError(f"{where(url, 'multiscales[].axes')} is {items!r}; expected axis objects with a name")
    units = tuple((a.get("unit") or "") if isinstance(a, Mapping) else "" for a in items)
    return names, units


def ome_placement(source: Source, facts: Facts, ndim: int, conflicts: str = "error") -> Placement | None:
    """OME-NGFF: the parent's (or an ancestor's) multiscales dataset whose path is this array."""
    found = find_dataset(source)
    if found is None:
        return None
    doc, multiscale, dataset = found
    if "coordinateSystems" in multiscale:
        return _ome_intrinsic(multiscale, dataset, ndim)
    names, units = _ome_axes(multiscale, ndim, doc.url)
    key = f"datasets[path={dataset_path(dataset)}].coordinateTransformations"
    voxel, shift = compose(dataset.get("coordinateTransformations"), ndim, doc.url, key)
    voxel, shift = compose(multiscale.get("coordinateTransformations"), ndim, doc.url, "multiscales[].coordinateTransformations", voxel, shift)
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
        voxel, shift = compose(kept, ndim, "coordinateSystems", "coordinateTransformations")
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, StopIteration):
        return None
    return Placement(voxel, shift, units, names)


def _check_own_attributes(source, voxel, shift, units, conflicts):
    """An array's own offset is checked against the OME translation, its voxel size against the OME scale."""
    attrs, url, ndim = source.own.attrs, source.own.url, len(voxel)
    own = next((k for k in ("voxel_size", "resolution") if k in attrs), None)
    if own is not None:
        sizes = numbers(attrs[own], url, own, positive=True)
        wanted = voxel[ndim - len(sizes):]
        if len(sizes) > ndim or not all(isclose(a, b) for a, b in zip(sizes, wanted)):
            message = f"{url}: {own} is {list(sizes)}; the OME scale for {source.path} is {list(wanted)}"
            if conflicts != "warn":
                raise ValueError(message + " (pass metadata_conflicts='warn' to read with the OME scale)")
            warnings.warn(message + "; reading with the OME scale", MetadataWarning, stacklevel=5)
    if "offset" in attrs:
        corner = numbers(attrs["offset"], url, "offset")  # funlib's offset is a corner
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


def ome_group_placement(multiscale, dataset, url) -> Placement:
    """One listed level's placement from the group document alone; the axes set the number of axes."""
    if "coordinateSystems" in multiscale:
        first = next((t for t in dataset.get("coordinateTransformations") or [] if t.get("type") == "scale"), None)
        ndim = len(first.get("scale") or ()) if first else 0
        found = _ome_intrinsic(multiscale, dataset, ndim)
        if found is None:
            raise ValueError(f"{url}: dataset {dataset_path(dataset)!r} has no scale this reader can use")
        return found
    axes = multiscale.get("axes")
    if axes is not None:
        ndim = len(list_of(axes, url, "multiscales[].axes", kind="axes"))
    else:
        scales = [t.get("scale") for t in dataset.get("coordinateTransformations") or [] if isinstance(t, Mapping) and t.get("type") == "scale"]
        ndim = len(scales[0]) if scales else 0
    names, units = _ome_axes(multiscale, ndim, url)
    key = f"datasets[path={dataset_path(dataset)}].coordinateTransformations"
    voxel, shift = compose(dataset.get("coordinateTransformations"), ndim, url, key)
    voxel, shift = compose(multiscale.get("coordinateTransformations"), ndim, url, "multiscales[].coordinateTransformations", voxel, shift)
    return Placement(voxel, shift, units, names)
