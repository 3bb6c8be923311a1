"""worldarray: zarr v2, zarr v3, N5 and Neuroglancer precomputed volumes in world coordinates.

One rule for where every voxel sits: a translation is the centre of voxel 0, and the corner is
half a voxel below it on the spatial axes.
"""

from typing import TYPE_CHECKING

from . import store, units
from .array import WorldArray, open
from .blocks import Block, blocks
from .copy import CopyError, Progress, copy
from .context import capped_context, capped_context_spec, shared_context, thread_budget
from .detect import Node, detect
from .diagnostics import MetadataWarning, UnitsWarning
from .geometry import Box, as_box, corner_to_centre, default_axes, index_range
from .factors import level_factors, level_placement, level_shape
from .grid import Grid
from .handle import metadata, open_tensorstore
from .keys import chunk_key, list_chunk_keys, parse_chunk_key
from .levels import select_level
from .metadata import ArrayMeta
from .ome_write import ome_multiscales
from .retry import Retry

if TYPE_CHECKING:
    from . import write
    from .pyramid import Pyramid, create, open_pyramid
    from .write import codecs_of, ensure_group_entry

#: names whose modules load when a name is first asked for, not with the package: an open that only reads never needs
#: the writing modules (``pyramid``, ``write`` and what they import)
_LATER = {"write": "", "Pyramid": "pyramid", "create": "pyramid", "open_pyramid": "pyramid",
          "codecs_of": "write", "ensure_group_entry": "write"}


if not TYPE_CHECKING:  # a type checker sees the imports above, and no attribute of the package it does not know

    def __getattr__(name: str) -> object:
        """Import the module of a name of ``_LATER`` when it is first asked for, and keep the name."""
        if name not in _LATER:
            raise AttributeError(f"module 'worldarray' has no attribute {name!r}")
        import importlib

        module = importlib.import_module(f"{__name__}.{_LATER[name] or name}")
        value = getattr(module, name) if _LATER[name] else module
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_LATER))


__version__ = "0.3.0.dev0"

__all__ = [
    "ArrayMeta",
    "Block",
    "Box",
    "CopyError",
    "Grid",
    "MetadataWarning",
    "Node",
    "Progress",
    "Pyramid",
    "Retry",
    "UnitsWarning",
    "WorldArray",
    "as_box",
    "blocks",
    "capped_context",
    "capped_context_spec",
    "chunk_key",
    "codecs_of",
    "copy",
    "corner_to_centre",
    "create",
    "default_axes",
    "detect",
    "ensure_group_entry",
    "index_range",
    "level_factors",
    "level_placement",
    "level_shape",
    "list_chunk_keys",
    "metadata",
    "ome_multiscales",
    "open",
    "open_pyramid",
    "open_tensorstore",
    "parse_chunk_key",
    "select_level",
    "shared_context",
    "store",
    "thread_budget",
    "units",
    "write",
]
