"""``worldarray info`` shows where every level of a volume sits and which rule placed it; ``worldarray check`` says
whether a pyramid's levels agree with each other; ``worldarray neuroglancer`` prints a viewer URL that shows the
volume where worldarray puts it; ``worldarray copy`` (``copy_command``) writes a world box of it, placed.

``info`` reports in the store's own units unless ``--units`` is given, so ``--json`` matches ``wa.metadata``. A
level agrees with the level below when it sits where ``level_placement`` puts it for the best-fitting whole
factors from origin 0; the disagreement is reported in voxels of the level, so a half-voxel shift reads 0.5. An
origin other than 0 is accepted only where the level's shape shows that crop. Errors print one line naming the path
and exit 2. Only argparse: no dependency beyond the package's own.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import copy_command, neuroglancer
from .array import WorldArray
from .detect import Node, detect
from .diagnostics import MetadataWarning
from .factors import level_placement, level_shape
from .formats import FORMATS
from .geometry import in_voxels, isclose, voxel_volume
from .handle import metadata
from .layout import layout_of, transform_problems
from .metadata import ArrayMeta
from .paths import basename, is_remote, join
from .pyramid import open_pyramid
from .units import NANOMETER, Request, factor

__all__ = ["main", "describe", "problems", "Problem"]

#: A disagreement below this many voxels of the level is float noise, not a misplacement.
VOXEL_TOLERANCE = 1e-3


# ---------------------------------------------------------------- reading the levels


@dataclass
class Volume:
    """What ``info`` and ``check`` read: the format, each level's meta by name, and every warning raised."""

    path: str  # as given
    kind: str
    format: str
    levels: dict[str, ArrayMeta | Exception] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    layout: list[str] = field(default_factory=list)  # a multiscales layout's transforms that disagree


def read_volume(path: str, level: str | None = None, units: str | None = None) -> Volume:
    """The array at ``path``, or every level of the group at ``path`` (only ``level`` when given), in ``units``."""
    Request.checked(units)  # before anything is read: no level is reported in a unit it was not converted to
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MetadataWarning)
        node = detect(path)
        if node is None:
            raise FileNotFoundError(f"{path}: no array or group here")
        volume = Volume(str(path), node.kind, node.format)  # the path as given: the user's own spelling
        if node.kind == "array" and node.scale_key is None:
            volume.levels[basename(node.path)] = metadata(path, units=units)
        else:
            names = open_pyramid(path).names
            if level is not None and level not in names:
                raise ValueError(f"level {level!r} does not exist; the levels are {', '.join(names) or 'none'}")
            for name in names if level is None else [level]:
                try:
                    volume.levels[name] = metadata(path, level=name, units=units)
                except (OSError, ValueError) as error:  # a level that cannot be read: a problem, not a crash
                    volume.levels[name] = _unreadable(node, name, error)
        if node.kind == "group" and level is None and units is None:
            volume.layout = _layout_problems(node, volume.levels)
    volume.warnings = [str(w.message) for w in caught if issubclass(w.category, MetadataWarning)]
    return volume


def _affine(meta: ArrayMeta) -> tuple[float, ...] | None:
    """A level's ``spatial:transform`` as its placement gives it (row and column the last two spatial axes)."""
    if len(meta.spatial) < 2:
        return None
    row, col = meta.spatial[-2], meta.spatial[-1]
    corner = meta.corner
    return (meta.voxel_size[col], 0.0, corner[col], 0.0, meta.voxel_size[row], corner[row])


def _layout_problems(node: Node, levels: Mapping[str, ArrayMeta | Exception]) -> list[str]:
    """Each ``transform.scale`` or ``translation`` of a group's ``multiscales`` layout that disagrees with the
    levels' placements (each entry's ``spatial:transform``, else the level's own); [] for any other group."""
    entries = layout_of(node.attrs, node.attrs_url)
    if entries is None:
        return []
    placed: dict[str, tuple[float, ...]] = {}
    for entry in entries:
        meta = levels.get(entry.asset)
        own = _affine(meta) if isinstance(meta, ArrayMeta) else None
        if entry.spatial_transform is not None or own is not None:
            placed[entry.asset] = entry.spatial_transform or own  # type: ignore[assignment]
    return list(transform_problems(entries, placed, node.attrs_url))


def _unreadable(group: Node, name: str, error: Exception) -> Exception:
    """A listed level that could not be read: FileNotFoundError when nothing is at its path, else the error."""
    if not FORMATS[group.format].levels_in_info and detect(join(group.path, name), missing_ok=True) is None:
        return FileNotFoundError(f"{join(group.path, name)}: listed, but no array is there")
    return error


# ---------------------------------------------------------------- info


def describe(meta: ArrayMeta) -> dict[str, Any]:
    """One level as ``info --json`` prints it: every axis, in the meta's units; the extent is [corner, corner +
    shape * voxel_size)."""
    corner = meta.corner
    return {
        "path": meta.path, "shape": list(meta.shape), "dtype": str(meta.dtype), "chunk_shape": list(meta.chunk_shape),
        "shard_shape": list(meta.shard_shape) if meta.shard_shape else None, "axes": list(meta.axes),
        "units": list(meta.units), "voxel_size": list(meta.voxel_size), "translation": list(meta.translation),
        "corner": list(corner),
        "extent": [list(corner), [c + n * s for c, n, s in zip(corner, meta.shape, meta.voxel_size, strict=True)]],
        "placed_by": meta.placed_by, "crs": None if meta.crs is None else dict(meta.crs),
    }


def _numbers(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"


_COLUMNS: tuple[tuple[str, Callable[[dict], str]], ...] = (
    ("shape", lambda d: _numbers(d["shape"])),
    ("dtype", lambda d: d["dtype"]),
    ("chunks", lambda d: _numbers(d["chunk_shape"])),
    ("shards", lambda d: _numbers(d["shard_shape"]) if d["shard_shape"] else "-"),
    ("voxel size", lambda d: _numbers(d["voxel_size"])),
    ("translation", lambda d: _numbers(d["translation"])),
    ("corner", lambda d: _numbers(d["corner"])),
    ("extent end", lambda d: _numbers(d["extent"][1])),
    ("placed by", lambda d: str(d["placed_by"])),
)


def info_text(volume: Volume) -> str:
    """The plain ``info`` output: the path and format, the axes and units, an aligned table, the warnings."""
    rows = {name: describe(m) for name, m in volume.levels.items() if isinstance(m, ArrayMeta)}
    lines = [f"{volume.path}: {volume.format} {volume.kind}, {len(volume.levels)} level(s)"]
    described = list(rows.values())
    if described:
        axes = {(tuple(d["axes"]), tuple(d["units"])) for d in described}
        for names, units in sorted(axes):
            lines.append("axes " + ", ".join(f"{a} ({u or '-'})" for a, u in zip(names, units, strict=True)))
        crss = [d["crs"] for d in described if d["crs"] is not None]
        lines += [f"crs: {json.dumps(crs)}" for k, crs in enumerate(crss) if crs not in crss[:k]]
    table = [["level", *(title for title, _ in _COLUMNS)]]
    table += [[name, *(cell(d) for _, cell in _COLUMNS)] for name, d in rows.items()]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in table]
    lines += [f"missing {name}: {error}" for name, error in volume.levels.items() if isinstance(error, Exception)]
    lines += [f"warning: {message}" for message in volume.warnings]
    return "\n".join(lines)


def info_json(volume: Volume) -> dict[str, Any]:
    return {"path": volume.path, "format": volume.format, "kind": volume.kind,
            "levels": {name: describe(m) if isinstance(m, ArrayMeta) else {"missing": str(m)}
                       for name, m in volume.levels.items()},
            "warnings": volume.warnings}


# ---------------------------------------------------------------- check


@dataclass(frozen=True)
class Problem:
    """One line of ``check``: the level, what is wrong, and whether it fails the check (else a warning line)."""

    level: str
    text: str
    fails: bool = True

    def __str__(self) -> str:
        return f"{'FAIL' if self.fails else 'warning'} {self.level}: {self.text}"


def problems(volume: Volume) -> list[Problem]:
    """Every disagreement between the levels, each level against the next finer one."""
    found = [Problem(name, "listed, but its array is missing" if isinstance(error, FileNotFoundError)
                     else f"cannot be read: {error}")
             for name, error in volume.levels.items() if isinstance(error, Exception)]
    found += [Problem("multiscales", text) for text in volume.layout]
    metas = sorted(((n, m) for n, m in volume.levels.items() if isinstance(m, ArrayMeta)),
                   key=lambda item: _voxel_volume(item[1]))
    for (below_name, below), (name, meta) in itertools.pairwise(metas):
        found += _against(name, meta, below_name, below)
    return found


def _voxel_volume(meta: ArrayMeta) -> float:
    """A level's spatial voxel volume in cubic nanometres where its units are known (as stored where not), to put
    levels stored in different units in order."""
    sizes = []
    for i in meta.spatial:
        try:
            sizes.append(meta.voxel_size[i] * factor(meta.units[i] or NANOMETER, NANOMETER))
        except ValueError:
            sizes.append(meta.voxel_size[i])
    return voxel_volume(sizes)


def _against(name: str, meta: ArrayMeta, below_name: str, below: ArrayMeta) -> list[Problem]:
    """A level checked against the level below it: axes, units, factors, placement and shape."""
    if meta.axes != below.axes or meta.units != below.units:
        return [Problem(name, f"axes {meta.axes} in units {meta.units} differ from {below_name}'s {below.axes} in "
                              f"{below.units}")]
    spatial = meta.spatial
    ratios = [in_voxels(meta.voxel_size[i], below.voxel_size[i]) for i in spatial]  # < 0 when the steps disagree
    factors = tuple(max(1, round(r)) for r in ratios)
    out = []
    if not all(isclose(r, f) for r, f in zip(ratios, factors, strict=True)):
        out.append(Problem(name, f"voxel size {_numbers([meta.voxel_size[i] for i in spatial])} is not a whole "
                                 f"multiple of {below_name}'s {_numbers([below.voxel_size[i] for i in spatial])}"))
    out += _placement(name, meta, below_name, below, factors)
    wanted = level_shape([below.shape[i] for i in spatial], factors)
    shape = tuple(meta.shape[i] for i in spatial)
    if shape != wanted:
        out.append(Problem(name, f"shape {shape} is not level_shape of {below_name} by factors {factors}, "
                                 f"{wanted} (levels may be cropped)", fails=False))
    return out


def _placement(name: str, meta: ArrayMeta, below_name: str, below: ArrayMeta,
               factors: tuple[int, ...]) -> list[Problem]:
    """Where the level sits against ``level_placement`` of the level below: off by how many of its voxels, and the
    origin that would explain it when one does."""
    spatial = meta.spatial
    sizes = [below.voxel_size[i] for i in spatial]
    shifts = [below.translation[i] for i in spatial]
    _, expected = level_placement(sizes, shifts, factors)
    off = [in_voxels(meta.translation[i] - e, meta.voxel_size[i]) for i, e in zip(spatial, expected, strict=True)]
    if all(abs(d) <= VOXEL_TOLERANCE for d in off):
        return []
    origins = [d * f for d, f in zip(off, factors, strict=True)]  # the shift in voxels of the level below
    whole = all(o >= -VOXEL_TOLERANCE and abs(o - round(o)) <= VOXEL_TOLERANCE for o in origins)
    origin = tuple(int(round(o)) for o in origins) if whole else None
    below_shape = [below.shape[i] for i in spatial]
    if origin is not None and all(o < n for o, n in zip(origin, below_shape, strict=True)):
        cropped = level_shape(below_shape, factors, origin) == tuple(meta.shape[i] for i in spatial)
        if cropped and level_shape(below_shape, factors) != tuple(meta.shape[i] for i in spatial):
            return []  # an origin the level's shape shows: a crop, placed right
    text = (f"translation {_numbers([meta.translation[i] for i in spatial])} is {_numbers(off)} voxels of {name} "
            f"off level_placement of {below_name} by factors {factors} at origin 0, "
            f"{_numbers(expected)}")
    if origin is not None:
        text += f"; it fits only with origin {origin}"
    return [Problem(name, text)]


# ---------------------------------------------------------------- the command


def _parser() -> argparse.ArgumentParser:
    parser = copy_command.OneLineParser(prog="worldarray", description="Where a volume's voxels sit, whether its "
                                        "pyramid's levels agree, and a world box of it copied, placed.")
    commands = parser.add_subparsers(dest="command", required=True)
    info = commands.add_parser("info", help="each level's shape, chunks, placement and extent, and the warnings")
    info.add_argument("path", help="an array or a multiscale group: a local path or an s3://, gs://, http(s):// URL")
    info.add_argument("--level", help="one level of a group (its name)")
    info.add_argument("--units", help="report spatial placement in this unit (default: the store's own)")
    info.add_argument("--json", action="store_true", help="print one JSON document")
    check = commands.add_parser("check", help="exit 1 when the pyramid's levels contradict each other")
    check.add_argument("path", help="a multiscale group, or one of its levels")
    viewer = commands.add_parser("neuroglancer", help="a Neuroglancer URL showing the volume where worldarray puts it")
    viewer.add_argument("path", help="an array or a group: an s3://, gs://, http(s):// URL, or a local path with --url")
    viewer.add_argument("--level", help="the level to place the layer by (default: the first listed)")
    viewer.add_argument("--url", help="the http(s), s3 or gs address PATH is served at (for a local path)")
    viewer.add_argument("--viewer", default=neuroglancer.DEFAULT_VIEWER, help="the Neuroglancer to open "
                                                                              "(default: %(default)s)")
    copy_command.add_parser(commands)
    return parser


def _neuroglancer(args: argparse.Namespace) -> int:
    """Print a viewer URL; for a local path without ``--url``, the layer as it will be once served, and why."""
    vol = WorldArray(args.path, level=args.level if args.level is not None else 0)
    if args.url is None and not is_remote(vol.path):
        served = f"http://localhost:8000/{basename(vol.path)}"
        print(f"{args.path} is a local path: Neuroglancer reads only what a server gives it. Serve it with CORS "
              f"allowed and pass --url; served at {served}, the layer is:", file=sys.stderr)
        print(json.dumps(neuroglancer.layer(vol, served), indent=2))
        return 0
    layer = neuroglancer.layer(vol, args.url)
    print(neuroglancer.viewer_url(layer, args.viewer, **neuroglancer.navigation(vol)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``worldarray``; return the exit status: 0, 1 when ``check`` finds a problem, 2 on an error (a refused
    argument too, after one line)."""
    args = _parser().parse_args(argv)
    if args.command == "copy":
        return copy_command.run(args)
    try:
        if args.command == "neuroglancer":
            return _neuroglancer(args)
        if args.command == "info":
            volume = read_volume(args.path, args.level, args.units)
            print(json.dumps(info_json(volume), indent=2) if args.json else info_text(volume))
            return 0
        volume = read_volume(args.path)
        found = problems(volume)
        for problem in found:
            print(problem)
        failed = any(p.fails for p in found)
        print(f"{volume.path}: {len(volume.levels)} level(s), " + ("inconsistent" if failed else "consistent"))
        return 1 if failed else 0
    except (OSError, ValueError) as error:
        print(f"worldarray {args.command}: {args.path}: {error}".replace("\n", " "), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
