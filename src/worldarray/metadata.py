"""Each format places an array by the first of its ordered rules that finds something; that rule's name is placed_by.

Parsing is pure: documents (dicts) in, an ArrayMeta out, no I/O. A rule is one convention's module (``ome``,
``spatial``, ``grid_mapping``, ``cosem``, ``funlib``, ``dimension_units``, ``n5``, ``precomputed``), each with the
one signature ``fields.PlacementRule``; this module holds what the array documents say apart from placement
(``FACTS``), the one precedence table (``RULES``: per format, the rules in order; reading the tuple tells the order,
and every other list of formats or rule names is derived from it) and the loop that applies it (``parse``).
``level_placements`` places the levels a group lists by the same rules. Only ``from worldarray.metadata import ...``
reaches this module: ``wa.metadata`` is the function that reads a path.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cosem import cosem_placement, cosem_transform, dataset_label
from .diagnostics import MetadataWarning
from .dimension_units import dimension_units_placement
from .formats import FORMATS as RECORDS
from .fields import (Document, Facts, Placement, PlacementRule, Source, entries, native_dtype)
from .funlib import funlib_axis_names, funlib_placement
from .grid_mapping import grid_mapping_placement
from .geometry import centre_to_corner, corner_to_centre, default_axes, spatial_indices
from .n5 import level_position, n5_group_factors, n5_placement
from .ome import cosem_entry, first_listing, group_placement, group_places, multiscales_of, ome_placement
from .precomputed import precomputed_placement, scale_keys
from .spatial import spatial_placement
from .units import NANOMETER, Request, UnitsArgument, convert

__all__ = ["ArrayMeta", "MetadataWarning", "Document", "Source", "Facts", "Placement", "Rule", "RULES", "FACTS",
           "FORMATS", "placed_by_names", "parse", "parse_documents", "level_placements", "listed_levels", "Placements",
           "multiscales_of", "level_position", "n5_group_factors"]


@dataclass(frozen=True)
class Rule:
    """One named placement rule: ``find(source, facts, ndim, conflicts)`` returns a Placement or None; ``name`` is
    the ``placed_by`` of an array it places."""

    name: str
    find: PlacementRule


def _floats(values) -> tuple[float, ...]:
    return tuple(map(float, values))


@dataclass(frozen=True)
class ArrayMeta:
    """What the documents say about one array, one entry per axis in C order, in the store's own units.

    ``translation`` is the centre of voxel 0; ``corner`` (derived) is half a voxel below it on
    the spatial axes. ``spatial_axes`` holds the spatial axes' indices when the rule that placed the array named
    them (``spatial:dimensions``); None leaves them to the axis names (``spatial``). ``crs`` is the coordinate
    reference system as the placing document stores it (``vol.crs``), None when the rule read none. ``dtype`` is a
    numpy dtype in native byte order, the values a read returns; a string (or anything ``np.dtype`` takes) is
    converted, so ``meta.dtype == "uint16"`` holds for a stored ``">u2"``.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    chunk_shape: tuple[int, ...]
    axes: tuple[str, ...]
    axes_named: bool
    units: tuple[str, ...]
    voxel_size: tuple[float, ...]
    translation: tuple[float, ...]
    format: str
    path: str
    parent: str | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict, compare=False)
    group_attrs: Mapping[str, Any] = field(default_factory=dict, compare=False)
    placed_by: str | None = None
    fill_value: Any = None
    shard_shape: tuple[int, ...] | None = None
    spatial_axes: tuple[int, ...] | None = None
    crs: Mapping[str, Any] | None = field(default=None, compare=False)

    def __post_init__(self):
        n = len(self.shape)
        for name in ("chunk_shape", "axes", "units", "voxel_size", "translation"):
            value = getattr(self, name)
            if len(value) != n:
                raise ValueError(f"{self.path}: ArrayMeta.{name} is {tuple(value)}; expected {n} entries, one per axis")
        if len(set(self.axes)) != n:
            raise ValueError(f"{self.path}: axis names {tuple(self.axes)} repeat; expected {n} distinct names")
        if self.format not in RULES:
            raise ValueError(f"{self.path}: format is {self.format!r}; expected one of {tuple(RULES)}")
        if self.placed_by not in placed_by_names():
            raise ValueError(f"{self.path}: placed_by is {self.placed_by!r}; expected one of {placed_by_names()}")
        if not isinstance(self.dtype, np.dtype) or not self.dtype.isnative:  # as parsed, it is native already
            object.__setattr__(self, "dtype", native_dtype(self.dtype, f"{self.path}: ArrayMeta.dtype"))
        object.__setattr__(self, "voxel_size", _floats(self.voxel_size))
        object.__setattr__(self, "translation", _floats(self.translation))
        if self.spatial_axes is not None:
            if not all(0 <= i < n for i in self.spatial_axes) or len(set(self.spatial_axes)) != len(self.spatial_axes):
                raise ValueError(f"{self.path}: ArrayMeta.spatial_axes is {tuple(self.spatial_axes)}; expected "
                                 f"distinct axis indices below {n}")
            object.__setattr__(self, "spatial_axes", tuple(sorted(int(i) for i in self.spatial_axes)))

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self.shape)

    @property
    def write_shape(self) -> tuple[int, ...]:
        """The unit one writer may own: the shard shape when sharded, else the chunk shape."""
        return tuple(self.shard_shape or self.chunk_shape)

    @property
    def spatial(self) -> tuple[int, ...]:
        """Indices of the spatial axes: those the placing rule named (``spatial_axes``); else the axes named z, y or
        x when any are; else the last three that are not time or channel."""
        return self.spatial_axes if self.spatial_axes is not None else spatial_indices(self.axes)

    @property
    def corner(self) -> tuple[float, ...]:
        """The outer corner of voxel 0: translation less half a voxel on the spatial axes."""
        return centre_to_corner(self.translation, self.voxel_size, self.axes, self.spatial)

    @property
    def placement(self) -> Placement:
        """Where the array sits, as a placement rule answers it: voxel size, translation, units, axes and spatial
        axes, with its crs."""
        return Placement(self.voxel_size, self.translation, self.units, self.axes, self.spatial_axes, self.crs)

    def in_units(self, space: str | None = None, time: str | None = None, strict: bool = True) -> ArrayMeta:
        """Return this meta with length axes converted to ``space`` and time axes to ``time``.

        A spatial axis with no unit is taken as nanometres, with one MetadataWarning. An unknown unit on a
        spatial axis raises ValueError, or with ``strict=False`` is taken as ``space`` with a warning. Axes not
        asked about keep their units.

        >>> meta = parse_documents("zarr3", {"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
        ...     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        ...     "attributes": {"dimension_units": ["4 um"]}, "dimension_names": ["x"]})
        >>> meta.in_units(space="nanometer").voxel_size
        (4000.0,)
        """
        return self.converted(Request(space=space, time=time), strict)

    def converted(self, units: UnitsArgument, strict: bool = True) -> ArrayMeta:
        """Return this meta in the units a ``units=`` argument asks for (None: as stored)."""
        request = Request.checked(units)
        if request == Request():
            return self
        sizes, shifts, names = convert(self.voxel_size, self.translation, self.units,
                                       request.targets(self.units, self.spatial), self.spatial, where=self.path,
                                       axes=self.axes, strict=strict)
        if (tuple(sizes), tuple(shifts), tuple(names)) == (self.voxel_size, self.translation, self.units):
            return self  # stored in the units asked for already
        return dataclasses.replace(self, voxel_size=sizes, translation=shifts, units=names)

    def in_nm(self) -> ArrayMeta:
        """Return this meta with length axes in nanometres."""
        return self.in_units(space=NANOMETER)

    def drop_axis(self, axis: int | str) -> ArrayMeta:
        """Return this meta without one axis (by index or name), as a selected axis is dropped."""
        if isinstance(axis, str) and axis not in self.axes:
            raise ValueError(f"{self.path}: axis {axis!r} does not exist; axes are {self.axes}")
        index = self.axes.index(axis) if isinstance(axis, str) else int(axis)
        if not -self.ndim <= index < self.ndim:
            raise ValueError(f"{self.path}: axis {axis!r} does not exist; axes are {self.axes}")
        index %= self.ndim

        def without(values):
            return None if values is None else tuple(v for j, v in enumerate(values) if j != index)

        spatial = None if self.spatial_axes is None else tuple(
            i - (i > index) for i in self.spatial_axes if i != index)

        return dataclasses.replace(
            self,
            shape=without(self.shape),
            chunk_shape=without(self.chunk_shape),
            shard_shape=without(self.shard_shape),
            axes=without(self.axes),
            units=without(self.units),
            voxel_size=without(self.voxel_size),
            translation=without(self.translation),
            spatial_axes=spatial,
        )

    def __repr__(self) -> str:
        def axis(i):
            unit = f" {self.units[i]}" if self.units[i] else ""
            return f"{self.axes[i]}: {self.shape[i]} x {self.voxel_size[i]:g}{unit} @ {self.translation[i]:g}"

        body = ", ".join(axis(i) for i in range(self.ndim))
        return f"ArrayMeta({self.path!r}, {self.format}, {self.dtype}, {{{body}}}, placed_by={self.placed_by!r})"


#: Per format, what its array document says apart from placement (each format's record owns the reading).
FACTS: dict[str, Callable[[Source], Facts]] = {name: form.facts for name, form in RECORDS.items()}


# ---------------------------------------------------------------- the precedence table

# each rule is one convention's module, with the one signature fields.PlacementRule
_OME, _COSEM, _FUNLIB = Rule("ome", ome_placement), Rule("cosem", cosem_placement), Rule("funlib", funlib_placement)
_DIMENSION_UNITS, _N5 = Rule("dimension_units", dimension_units_placement), Rule("n5", n5_placement)
_PRECOMPUTED, _SPATIAL = Rule("precomputed", precomputed_placement), Rule("spatial", spatial_placement)
_GRID_MAPPING = Rule("grid_mapping", grid_mapping_placement)

#: Per format, the placement rules in precedence order; the first that finds something names placed_by.
RULES: dict[str, tuple[Rule, ...]] = {
    "zarr2": (_OME, _SPATIAL, _GRID_MAPPING, _COSEM, _FUNLIB),
    "zarr3": (_OME, _SPATIAL, _GRID_MAPPING, _COSEM, _FUNLIB, _DIMENSION_UNITS),
    "n5": (_COSEM, _FUNLIB, _N5),
    "precomputed": (_PRECOMPUTED,),
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
    if facts.names is None:
        facts = dataclasses.replace(facts, names=funlib_axis_names(source, ndim))
    placement, placed_by = None, None
    for rule in RULES[source.format]:
        placement = rule.find(source, facts, ndim, metadata_conflicts)
        if placement is not None:
            placed_by = rule.name
            break
    found = placement.axes if placement is not None else None
    names = (found if placed_by == "ome" else None) or facts.names or found
    axes = tuple(names) if names is not None else default_axes(ndim)
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
        axes_named=names is not None,
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
        spatial_axes=placement.spatial,
        crs=placement.crs,
    )


#: The formats the package reads, in the order ``RULES`` lists them.
FORMATS = tuple(RULES)


@functools.cache
def placed_by_names() -> tuple[str | None, ...]:
    """Every ``placed_by`` value: the name of each rule in ``RULES``, and None when nothing placed the array."""
    names: list[str | None] = []
    for rules in RULES.values():
        names.extend(rule.name for rule in rules if rule.name not in names)
    return (*names, None)


def parse_documents(format: str, array: Mapping[str, Any], attrs: Mapping[str, Any] | None = None,
                    path: str = "memory://array") -> ArrayMeta:
    """Place a lone array from its array document and user attributes, with no parent: ``parse`` for plain dicts.

    ``attrs`` None takes zarr v3's and N5's attributes from the array document itself.
    """
    if format not in RECORDS:
        raise ValueError(f"format is {format!r}; expected one of {tuple(RECORDS)}")
    form = RECORDS[format]
    if attrs is None:  # the attributes the array document itself holds (none where they live apart)
        attrs = {} if form.attributes_apart else form.user_attrs({form.array_document: array})
    url = f"{path}/{form.array_document}"
    return parse(Source(format, path, array, url, Document(path, url, attrs)))


class Placements(Sequence[tuple[str, Placement]]):
    """A group document's levels in order, as (name, placement) pairs, each level placed from the document when it
    is first asked for: an open of one level places that level alone; iterating places them all."""

    def __init__(self, names: Sequence[str], place: Callable[[int], Placement]) -> None:
        self.names = tuple(names)
        self._place = place
        self._placed: dict[int, Placement] = {}

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, index: int) -> tuple[str, Placement]:  # type: ignore[override]  # no slices
        index = range(len(self.names))[index]
        if index not in self._placed:
            self._placed[index] = self._place(index)
        return self.names[index], self._placed[index]

    def __iter__(self) -> Iterator[tuple[str, Placement]]:
        return (self[index] for index in range(len(self.names)))

    def get(self, name: str) -> Placement | None:
        """The level ``name``'s placement, None when the document lists no such level."""
        return self[self.names.index(name)][1] if name in self.names else None


def level_placements(source: Source) -> list[tuple[str, Placement]] | None:
    """Each listed level's placement from a group's own document, by its format's rules, without opening a level;
    None when it lists none, or when the document alone does not place one of them (``listed_levels``, every
    level placed)."""
    listed = listed_levels(source)
    return None if listed is None else list(listed)


def listed_levels(source: Source) -> Placements | None:
    """A group's listed levels, each placed from its own document when asked for (``Placements``); None when it
    lists none, or when the document alone does not place one of them.

    ``source.own`` is the group (its attributes; for precomputed, ``source.array`` is the info). OME levels
    compose the dataset's transforms with the multiscale's; COSEM levels (every N5 level, and a zarr entry with a
    COSEM transform and no OME one) read their dataset transform (the ``cosem`` rule); precomputed levels their
    scale (the ``precomputed`` rule). An N5 group with a factor list and no multiscales lists none: a level's
    base voxel size may be its own, so its levels are placed from their own documents.
    """
    form = RECORDS[source.format]
    if form.levels_in_info:
        def scale(index: int) -> Placement:
            level = dataclasses.replace(source, ancestors=(), scale_index=index)
            facts = form.facts(level)
            return precomputed_placement(level, facts, len(facts.shape), "error")
        return Placements(scale_keys(source.array, source.array_url), scale)
    listing = first_listing(source.own.attrs, source.own.url)
    if listing is None:
        return None
    multiscale, datasets = listing
    url = source.own.url
    # N5 groups place their levels by the cosem rule alone; a zarr group's COSEM entries by it too, the rest by OME
    if form.cosem_datasets and not all(isinstance(dataset.get("transform"), Mapping) for _, dataset in datasets):
        return None

    def by_cosem(dataset: Mapping[str, Any]) -> bool:
        return form.cosem_datasets or cosem_entry(multiscale, dataset)

    def placed(index: int) -> Placement | None:
        path, dataset = datasets[index]
        if by_cosem(dataset):
            transform, label = dataset["transform"], dataset_label(path)
            ndim = len(entries(transform.get("scale"), url, f"{label}.scale", kind="numbers"))
            return cosem_transform(transform, ndim, url, label)
        return group_placement(multiscale, dataset, url)

    names = [path for path, _ in datasets]
    if not form.cosem_datasets and multiscale.get("axes") is not None and "coordinateSystems" not in multiscale:
        return Placements(names, placed)  # type: ignore[arg-type]  # with axes, none is None (nor a COSEM entry)
    places = [True if by_cosem(dataset) else group_places(multiscale, dataset) for _, dataset in datasets]
    if None in places:  # only placing them tells: placed now, all of them
        found = [placed(index) for index in range(len(datasets))]
        return None if None in found else Placements(names, found.__getitem__)  # type: ignore[arg-type]
    return Placements(names, placed) if all(places) else None  # type: ignore[arg-type]  # else: by opening them
