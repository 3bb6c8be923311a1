"""worldarray: zarr v2, zarr v3, N5 and Neuroglancer precomputed volumes in world coordinates.

One rule for where every voxel sits: a translation is the centre of voxel 0, and the corner is
half a voxel below it on the spatial axes.
"""

from . import store, units, write
from .array import WorldArray, open
from .blocks import Block, blocks
from .copy import CopyError, Progress, copy
from .context import capped_context, capped_context_spec, shared_context, thread_budget
from .detect import Node, detect
from .diagnostics import MetadataWarning, UnitsWarning
from .geometry import Box, as_box, corner_to_centre, default_axes, index_range
from .factors import level_factors
from .grid import Grid
from .handle import metadata, open_tensorstore
from .keys import chunk_key, list_chunk_keys, parse_chunk_key
from .levels import select_level
from .metadata import ArrayMeta
from .ome_write import ome_multiscales
from .pyramid import Pyramid, create, open_pyramid
from .retry import Retry
from .write import codecs_of, ensure_group_entry, level_placement, level_shape

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
