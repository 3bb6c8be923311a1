"""OME-NGFF places an array by the dataset entry whose path names it, in its parent or an ancestor up to four above.

Reading: the dataset's scale and translation composed with the multiscale's own transforms (0.4 and 0.5), an OME
0.6 group read for its intrinsic coordinate system only and never raising (writing is ``ome_write``'s). Every walk
over ``multiscales[].datasets[]`` goes through ``walk``, and every dataset path through ``dataset_path``, so
``"./s0"``, ``"s0/"`` and ``"s0"`` name one level everywhere. The rule is ``ome_placement``; ``group_placement``
places a group's listed levels from the group document alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .diagnostics import warn
from .fields import Facts, Placement, Source, entries, list_of, mapping, numbers, text, where
from .geometry import centres, isclose, same

__all__ = ["UNPLACED_VERSIONS", "multiscales_of", "dataset_path", "walk", "first_listing", "cosem_entry", "flattened",
           "dataset_scale", "compose", "ome_placement", "group_placement"]

#: The OME-NGFF versions whose multiscales carry no coordinateTransformations, so no voxel size and no translation.
UNPLACED_VERSIONS = ("0.1", "0.2", "0.3")
_unplaced_warned: set[str] = set()  # the group documents already warned about in this process, by URL


# ---------------------------------------------------------------- the documents' shape


def multiscales_of(attrs: Mapping[str, Any], url: str = "attributes") -> list | None:
    """The OME multiscales list of a node's attributes (held by the document ``url``), under ``ome`` (0.5 and later)
    or at the top (0.4); None when there is none. An object there is no OME list (zarr-conventions' multiscales
    layout is one); any other value that is no list raises ValueError naming ``url``."""
    found, key = mapping(attrs.get("ome"), url, "ome").get("multiscales"), "ome.multiscales"
    if found is None:
        found, key = attrs.get("multiscales"), "multiscales"
    if found is None or isinstance(found, Mapping):
        return None
    return entries(found, url, key, kind="multiscale objects")


def dataset_path(entry: Any) -> str | None:
    """A dataset entry's path in one spelling: no leading "./", no leading or trailing "/"; None when it has none.

    >>> dataset_path({"path": "./s0/"})
    's0'
    """
    path = entry.get("path") if entry.__class__ is dict or isinstance(entry, Mapping) else None
    if not isinstance(path, str):
        return None
    return path if "/" not in path else path.strip("/").removeprefix("./").strip("/")


def _multiscales(attrs: Mapping[str, Any], url: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each multiscale object with where it sits in the document, for messages."""
    for index, multiscale in enumerate(multiscales_of(attrs, url) or []):
        yield f"multiscales[{index}]", mapping(multiscale, url, f"multiscales[{index}]", required=True)


def _entries(multiscale: Mapping[str, Any], url: str, label: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    datasets = entries(multiscale.get("datasets"), url, f"{label}.datasets", kind="dataset objects")
    for index, dataset in enumerate(datasets):
        if dataset.__class__ is not dict:  # a parsed document's objects are dicts; anything else is checked
            mapping(dataset, url, f"{label}.datasets[{index}]", required=True)
        path = dataset_path(dataset)
        if path:
            yield path, dataset


def walk(attrs: Mapping[str, Any], url: str = "attributes") -> Iterator[tuple[Mapping[str, Any], str,
                                                                             Mapping[str, Any]]]:
    """Every (multiscale, dataset path, dataset entry) a node's attributes list, in order; the one walk of datasets.

    A dataset without a path names no level and is passed over; a multiscale, a ``datasets`` list or a dataset of
    another type raises ValueError naming ``url``, the document that holds ``attrs``.
    """
    for label, multiscale in _multiscales(attrs, url):
        for path, dataset in _entries(multiscale, url, label):
            yield multiscale, path, dataset


def first_listing(attrs: Mapping[str, Any], url: str = "attributes") -> tuple[Mapping[str, Any],
                                                                            list[tuple[str, Mapping[str, Any]]]] | None:
    """The first multiscale that lists a level, with its (path, entry) pairs in order; None when none does."""
    for label, multiscale in _multiscales(attrs, url):
        found = list(_entries(multiscale, url, label))
        if found:
            return multiscale, found
    return None


def cosem_entry(multiscale: Mapping[str, Any], dataset: Mapping[str, Any]) -> bool:
    """A dataset entry is COSEM's, not OME's, when it holds a COSEM ``transform`` and no OME transform at all."""
    transform = dataset.get("transform")
    return (transform is not None and isinstance(transform, Mapping) and "coordinateTransformations" not in dataset
            and "coordinateSystems" not in multiscale)


def flattened(transforms) -> list[Mapping[str, Any]]:
    """A transforms list with every ``sequence`` (nested ones too) replaced by the transforms it holds, in order.

    >>> flattened([{"type": "sequence", "transformations": [{"type": "scale", "scale": [2]},
    ...     {"type": "sequence", "transformations": [{"type": "translation", "translation": [1]}]}]}])
    [{'type': 'scale', 'scale': [2]}, {'type': 'translation', 'translation': [1]}]
    """
    flat: list[Mapping[str, Any]] = []
    for transform in transforms if isinstance(transforms, list) else []:
        if isinstance(transform, Mapping) and transform.get("type") == "sequence":
            flat.extend(flattened(transform.get("transformations")))
        elif isinstance(transform, Mapping):
            flat.append(transform)
    return flat


def dataset_scale(dataset: Mapping[str, Any]) -> list | None:
    """A dataset entry's first scale, looked for inside sequences too; None when it has none."""
    transforms = dataset.get("coordinateTransformations") if isinstance(dataset, Mapping) else None
    scales = [t.get("scale") for t in flattened(transforms) if t.get("type") == "scale"]
    return scales[0] if scales else None


def compose(transforms, ndim, url, key, voxel=None, shift=None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Apply a list of scale/translation transforms after (voxel, shift); OME lists match the array exactly."""
    voxel = list(voxel or (1.0,) * ndim)
    shift = list(shift or (0.0,) * ndim)
    for n, transform in enumerate(list_of(transforms or [], url, key, kind="transforms")):
        kind = transform.get("type") if isinstance(transform, Mapping) else None
        label = f"{key}[{n}]"
        if kind == "scale":
            scale = numbers(transform.get("scale"), url, f"{label}.scale", ndim, positive=True)
            voxel = [v * s for v, s in zip(voxel, scale, strict=True)]
            shift = [t * s for t, s in zip(shift, scale, strict=True)]
        elif kind == "translation":
            move = numbers(transform.get("translation"), url, f"{label}.translation", ndim)
            shift = [t + m for t, m in zip(shift, move, strict=True)]
        elif kind != "identity":
            raise ValueError(f"{where(url, label)} is {transform!r}; expected a scale, translation or identity "
                             "transform")
    return tuple(voxel), tuple(shift)


def _ome_axes(multiscale, ndim, url) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    axes = multiscale.get("axes")
    if axes is None:
        return None, ("",) * ndim
    items = list_of(axes, url, "multiscales[].axes", kind="axes")
    if len(items) != ndim:
        raise ValueError(f"{where(url, 'multiscales[].axes')} names {len(items)} axes {items!r}; the array has "
                         f"{ndim} axes")
    names = [a.get("name") if isinstance(a, Mapping) else a for a in items]
    if not all(isinstance(n, str) for n in names):
        raise ValueError(f"{where(url, 'multiscales[].axes')} is {items!r}; expected axis objects with a name")
    units = tuple(text(a.get("unit") or "", url, f"multiscales[].axes[{i}].unit") if isinstance(a, Mapping) else ""
                  for i, a in enumerate(items))
    return tuple(str(n) for n in names), units


def _placed(multiscale, dataset, path, ndim: int, url) -> Placement:
    """A dataset's placement (OME 0.1 to 0.5): its transforms, then the multiscale's, in the axes and units the
    multiscale names."""
    names, units = _ome_axes(multiscale, ndim, url)
    key, outer = f"datasets[path={path}].coordinateTransformations", "multiscales[].coordinateTransformations"
    voxel, shift = compose(dataset.get("coordinateTransformations"), ndim, url, key)
    voxel, shift = compose(multiscale.get("coordinateTransformations"), ndim, url, outer, voxel, shift)
    _check_scale_first(dataset.get("coordinateTransformations"), url, key)
    _check_scale_first(multiscale.get("coordinateTransformations"), url, outer)
    _warn_unplaced(multiscale, dataset, url)
    return Placement(voxel, shift, units, names)


def _warn_unplaced(multiscale, dataset, url: str) -> None:
    """OME-NGFF 0.1 to 0.3 carry no voxel sizes, so their levels read at voxel size 1 with one warning per group."""
    version = multiscale.get("version")
    if str(version) not in UNPLACED_VERSIONS or url in _unplaced_warned:
        return
    if dataset.get("coordinateTransformations") or multiscale.get("coordinateTransformations"):
        return
    _unplaced_warned.add(url)
    warn(f"{url}: multiscales version is {version!r}; OME-NGFF {version} carries no voxel sizes, so every level of "
         "this group reads at voxel size 1 and translation 0", again=False)


def _check_scale_first(transforms, url: str, key: str) -> None:
    """OME-NGFF 0.4 and 0.5 list the scale before the translation; a list that does not is still composed in the
    order listed, with a warning naming the document and the list."""
    kinds = [t.get("type") for t in transforms or [] if isinstance(t, Mapping)]
    if "scale" in kinds and "translation" in kinds[: kinds.index("scale")]:
        warn(f"{url}: {key} is {list(transforms)!r}; expected the scale first (OME-NGFF 0.4 and 0.5); composed in the "
             "order listed, each scale multiplying the translation before it")


# ---------------------------------------------------------------- reading


def _find_dataset(source: Source):
    """This array's (document, multiscale, dataset) by path in the parent, else in an ancestor up to four levels above.

    Warns when the parent lists levels but not this array.
    """
    parts = source.path.rstrip("/").split("/")
    parent_lists = False
    for depth, doc in enumerate(source.ancestors[:4], start=1):
        relative = "/".join(parts[-depth:])
        for multiscale, path, dataset in walk(doc.attrs, doc.url):
            if path == relative:
                return doc, multiscale, dataset
            parent_lists = parent_lists or depth == 1
    if parent_lists:
        warn(f"{source.path}: the parent group {source.ancestors[0].url} lists levels in its multiscales "
             "but not this array; placing it by its own attributes")
    return None


def ome_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement | None:
    """OME-NGFF: the parent's (or an ancestor's) multiscales dataset whose path is this array."""
    found = _find_dataset(source)
    if found is None:
        return None
    doc, multiscale, dataset = found
    if cosem_entry(multiscale, dataset):  # the cosem rule reads it
        return None
    if "coordinateSystems" in multiscale:
        return _ome_intrinsic(multiscale, dataset, ndim)
    placement = _placed(multiscale, dataset, dataset_path(dataset), ndim, doc.url)
    _check_own_attributes(source, placement, conflicts)
    return placement


def _ome_intrinsic(multiscale, dataset, ndim: int | None) -> Placement | None:
    """OME 0.6: the intrinsic coordinate system, the dataset's own scale and translation, sequences unpacked; None
    where that does not place it, never an error. ``ndim`` None takes the number of axes from the coordinate
    system."""
    transforms = flattened(dataset.get("coordinateTransformations"))
    kept = [t for t in transforms if t.get("type") in ("scale", "translation")]
    try:
        system = _intrinsic_system(multiscale, dataset)
        names, units = _ome_axes(system, len(system["axes"]) if ndim is None else ndim, "coordinateSystems")
        voxel, shift = compose(kept, len(units), "coordinateSystems", "coordinateTransformations")
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return Placement(voxel, shift, units, names)


def _intrinsic_system(multiscale, dataset) -> Mapping[str, Any]:
    """The coordinate system the dataset's first transformation outputs to (a name, or ``{"name": ...}``), else the
    first; IndexError when there is none."""
    systems = [s for s in multiscale["coordinateSystems"] if isinstance(s, Mapping)]
    transforms = dataset.get("coordinateTransformations") or []
    output = transforms[0].get("output") if transforms and isinstance(transforms[0], Mapping) else None
    output = output.get("name") if isinstance(output, Mapping) else output
    return next((s for s in systems if s.get("name") == output), systems[0])


def _check_own_attributes(source: Source, placement: Placement, conflicts: str) -> None:
    """An array's own offset is checked against the OME translation, its voxel size against the OME scale."""
    attrs, url = source.own.attrs, source.own.url
    voxel, shift, ndim = placement.voxel_size, placement.translation, len(placement.voxel_size)
    own = next((k for k in ("voxel_size", "resolution") if k in attrs), None)
    if own is not None:
        sizes = numbers(attrs[own], url, own, positive=True)
        wanted = voxel[ndim - len(sizes):]
        if len(sizes) > ndim or not all(isclose(a, b) for a, b in zip(sizes, wanted, strict=True)):
            message = f"{url}: {own} is {list(sizes)}; the OME scale for {source.path} is {list(wanted)}"
            if conflicts != "warn":
                raise ValueError(message + " (pass metadata_conflicts='warn' to read with the OME scale)")
            warn(message + "; reading with the OME scale")
    if "offset" in attrs:
        corner = numbers(attrs["offset"], url, "offset")  # funlib's offset is a corner
        covered = ndim - len(corner)
        centre = shift[covered:] if covered >= 0 else ()
        # both are written in the wild: the corner (funlib's meaning) and the centre written as an offset
        silent = covered >= 0 and (same(centres(corner, voxel[covered:]), centre) or same(corner, centre))
        if not silent:
            warn(f"{url}: offset {list(corner)} disagrees with the OME translation {list(centre)} of {source.path}; "
                 "reading the translation")


def group_places(multiscale: Mapping[str, Any], dataset: Mapping[str, Any]) -> bool | None:
    """Whether the group document alone places a listed level (``group_placement`` gives no None) before it is
    placed: axes, or a first scale to count the axes by; None under coordinate systems (OME 0.6), where only
    placing it tells."""
    if "coordinateSystems" in multiscale:
        return None
    return multiscale.get("axes") is not None or isinstance(dataset_scale(dataset), list)


def group_placement(multiscale: Mapping[str, Any], dataset: Mapping[str, Any], url: str) -> Placement | None:
    """One listed level's placement from the group document alone; None when the document alone does not place it.

    The number of axes comes from the coordinate system (0.6), else the axes, else the dataset's first scale.
    """
    if "coordinateSystems" in multiscale:
        return _ome_intrinsic(multiscale, dataset, None)
    if multiscale.get("axes") is not None:
        ndim = len(list_of(multiscale["axes"], url, "multiscales[].axes", kind="axes"))
    else:
        scale = dataset_scale(dataset)
        if not isinstance(scale, list):
            return None
        ndim = len(scale)
    return _placed(multiscale, dataset, dataset_path(dataset), ndim, url)
