"""A precomputed scale places an array by its ``resolution`` (nanometres, x-first) and ``voxel_offset`` (voxel 0's
corner, in voxels).

An info lists its levels as ``scales``: a non-empty list of objects, each named by a string ``key``. The info is
read here once for the list and the keys, so detection, level choice and placement agree on them and a malformed
list raises naming the info, the entry and its value. The rule is ``precomputed_placement``. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .fields import Facts, Placement, Source, centred, entries, mapping, numbers, text, where

__all__ = ["scales", "scale_keys", "chosen_scale", "precomputed_placement"]


def scales(info: Mapping[str, Any], url: str) -> list[Mapping[str, Any]]:
    """The info's scale objects, in order; ValueError naming ``url`` when ``scales`` is missing, empty, no list, or
    holds something other than an object.

    >>> scales({"scales": [{"key": "4_4_4"}]}, "v/info")
    [{'key': '4_4_4'}]
    >>> scales({"scales": [7]}, "v/info")
    Traceback (most recent call last):
    ...
    ValueError: v/info: scales[0] is 7; expected an object
    """
    found = info.get("scales")
    if found is None or found == []:
        raise ValueError(f"{where(url, 'scales')} is {'missing' if found is None else 'empty'}; expected a non-empty "
                         "list of scale objects, one per level")
    listed = entries(found, url, "scales", kind="scale objects, one per level")
    return [mapping(scale, url, f"scales[{index}]", required=True) for index, scale in enumerate(listed)]


def scale_keys(info: Mapping[str, Any], url: str) -> tuple[str, ...]:
    """Each scale's ``key``, in order; ValueError naming ``url`` and the entry when one is not a string.

    >>> scale_keys({"scales": [{"key": "4_4_4"}, {"key": None}]}, "v/info")
    Traceback (most recent call last):
    ...
    ValueError: v/info: scales[1].key is None; expected a string
    """
    return tuple(text(scale.get("key"), url, f"scales[{index}].key") for index, scale in enumerate(scales(info, url)))


def chosen_scale(source: Source) -> Mapping[str, Any]:
    """The scale object of the info ``source.array`` that ``source.scale_index`` chooses (the first when None);
    ValueError naming the info when there is no entry at that index."""
    listed = scales(source.array, source.array_url)
    index = source.scale_index or 0
    if not 0 <= index < len(listed):
        raise ValueError(f"{where(source.array_url, 'scales')} has {len(listed)} entries; expected an object at "
                         f"index {index}")
    return listed[index]


def precomputed_placement(source: Source, facts: Facts, ndim: int, conflicts: str) -> Placement:
    """precomputed: resolution (nm, xyz) and voxel_offset (the corner, in voxels) of the scale."""
    scale, url = chosen_scale(source), source.array_url
    key = f"scales[{source.scale_index or 0}]"
    resolution = numbers(scale.get("resolution"), url, f"{key}.resolution", 3, positive=True)[::-1]
    first = numbers(scale.get("voxel_offset", [0, 0, 0]), url, f"{key}.voxel_offset", 3)[::-1]
    lead = ndim - 3
    voxel = (1.0,) * lead + resolution
    corner = (0.0,) * lead + tuple(f * r for f, r in zip(first, resolution, strict=True))
    return Placement(voxel, centred(corner, voxel, facts.names, 3), ("",) * lead + ("nanometer",) * 3, facts.names)
