"""worldarray: zarr v2, zarr v3, N5 and Neuroglancer precomputed volumes in world coordinates.

One rule for where every voxel sits: a translation is the centre of voxel 0, and the corner is
half a voxel below it on the spatial axes.
"""

from . import store, units, write
from .array import WorldArray, create, metadata, open, open_tensorstore
from .creation import ensure_group_entry
from .context import capped_context, capped_context_spec, shared_context
from .detect import Node, detect
from .geometry import Box, as_box, corner_to_centre, default_axes, index_range
from .keys import chunk_key, list_chunk_keys, parse_chunk_key
from .levels import select_level
from .pyramid import Pyramid, open_pyramid
from .retry import Retry
from .write import codecs_of, level_placement, level_shape, ome_multiscales
from .meta import ArrayMeta, MetadataWarning

__version__ = "0.1.0.dev0"

__all__ = [
    "ArrayMeta",
    "Box",
    "as_box",
    "Retry",
    "WorldArray",
    "Pyramid",
    "chunk_key",
    "codecs_of",
    "create",
    "ensure_group_entry",
    "level_placement",
    "level_shape",
    "ome_multiscales",
    "parse_chunk_key",
    "write",
    "list_chunk_keys",
    "open",
    "open_pyramid",
    "select_level",
    "MetadataWarning",
    "Node",
    "capped_context",
    "capped_context_spec",
    "corner_to_centre",
    "default_axes",
    "detect",
    "index_range",
    "metadata",
    "open_tensorstore",
    "shared_context",
    "store",
    "units",
]
