"""A precomputed info lists its levels as ``scales``: a non-empty list of objects, each named by a string ``key``.

The info is read here once for the list and the keys, so detection, level choice and placement agree on them and a
malformed list raises naming the info, the entry and its value. What a scale places is ``metadata``'s precomputed
rule. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .fields import entries, mapping, text, where

__all__ = ["scales", "scale_keys"]


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
