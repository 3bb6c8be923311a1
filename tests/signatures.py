"""The public calls whose complete signatures the README's "Signatures" section lists, and how a signature is
spelt there: parameter names and defaults, no annotations, strings in double quotes."""

from __future__ import annotations

import inspect
import json

import worldarray as wa
from worldarray.pyramid import Pyramid

# (the name the README gives, the function, whether its first parameter is self or cls)
CALLS = [
    ("wa.open", wa.WorldArray.__init__, True),
    ("wa.open_pyramid", wa.open_pyramid, False),
    ("wa.create", wa.create, False),
    ("wa.copy", wa.copy, False),
    ("wa.metadata", wa.metadata, False),
    ("wa.open_tensorstore", wa.open_tensorstore, False),
    ("wa.detect", wa.detect, False),
    ("wa.select_level", wa.select_level, False),
    ("wa.Grid", wa.Grid.__init__, True),
    ("wa.Grid.from_meta", wa.Grid.from_meta, False),
    ("wa.blocks", wa.blocks, False),
    ("wa.level_factors", wa.level_factors, False),
    ("wa.level_placement", wa.level_placement, False),
    ("wa.level_shape", wa.level_shape, False),
    ("wa.ome_multiscales", wa.ome_multiscales, False),
    ("wa.ensure_group_entry", wa.ensure_group_entry, False),
    ("wa.shared_context", wa.shared_context, False),
    ("vol.read", wa.WorldArray.read, True),
    ("vol.read_index", wa.WorldArray.read_index, True),
    ("vol.read_onto", wa.WorldArray.read_onto, True),
    ("vol.write_index", wa.WorldArray.write_index, True),
    ("vol.write", wa.WorldArray.write, True),
    ("vol.write_chunk", wa.WorldArray.write_chunk, True),
    ("vol.blocks", wa.WorldArray.blocks, True),
    ("vol.chunks_covering", wa.WorldArray.chunks_covering, True),
    ("vol.reopen", wa.WorldArray.reopen, True),
    ("vol.neuroglancer_layer", wa.WorldArray.neuroglancer_layer, True),
    ("pyramid.add_level", Pyramid.add_level, True),
    ("pyramid.select", Pyramid.select, True),
]


def _default(value) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def spelt(name: str, function, bound: bool) -> str:
    """``name(a, b=1, *, c="x")``: the signature as the README spells it."""
    parameters = list(inspect.signature(function).parameters.values())[1 if bound else 0:]
    parts, starred = [], False
    for p in parameters:
        if p.kind == p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            starred = True
            continue
        if p.kind == p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        if p.kind == p.KEYWORD_ONLY and not starred:
            parts.append("*")
            starred = True
        parts.append(p.name if p.default is p.empty else f"{p.name}={_default(p.default)}")
    return f"{name}({', '.join(parts)})"


def wrapped(text: str, width: int = 116) -> list[str]:
    """A signature broken after commas into lines of at most ``width``, the later ones indented by 4."""
    lines, line = [], ""
    for piece in text.split(", "):
        candidate = piece if not line else f"{line}, {piece}"
        if len(candidate) > width and line:
            lines.append(line + ",")
            line = "    " + piece
        else:
            line = candidate
    return [*lines, line]
