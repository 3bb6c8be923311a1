"""``worldarray copy SOURCE TARGET`` writes exactly a world box of one level of SOURCE, placed, as the array TARGET.

The flags spell ``wa.copy``'s arguments as text: a box is ``BEGIN:END``, each a comma list with one number per
spatial axis in the handle's units (``--box 0,0,0:64,64,64``); a voxel size, chunks or a selection is one number or
a comma list (``--select c=0,t=3``). The level copied is ``--level``, else the one ``wa.open`` chooses for
``--voxel-size``, else the first. Progress goes to stderr: a bar redrawn in place on a terminal, else one line at
each tenth, each tenth once and in order. Success prints one line naming the target's shape and placement and
exits 0; bad input prints one line naming the argument and its value and exits 2.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO, cast

from .array import WorldArray
from .copy import CopyError, Progress, copy
from .units import NANOMETER

__all__ = ["add_parser", "run", "parse_box", "parse_numbers", "parse_select", "TerminalBar", "TenthLines",
           "OneLineParser"]

#: What ``--method`` may be: the resampling methods ``read`` fills a voxel size with.
METHODS = ("nearest", "linear")
MEGABYTE = 1e6
DESCRIPTION = "Write exactly a world box of one level of SOURCE, placed, as the new array TARGET."
EPILOG = ("Progress goes to stderr: a bar redrawn in place on a terminal (units done/needed, percent, MB written), "
          "else one line at each tenth (0%, 10%, ..., 100%). Exit 0 after one line on stdout giving the target's "
          "shape, voxel size and translation; exit 2 after one line on stderr when an argument is refused (naming "
          "it and its value), the box holds no voxel, the level does not exist or TARGET exists without --resume.")


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose refusal is one line on stderr naming the argument and the value, and exit 2."""

    def error(self, message: str) -> Any:  # argparse's own signature: it never returns
        self.exit(2, f"{self.prog}: {' '.join(message.split())} (see {self.prog} --help)\n")


# ---------------------------------------------------------------- the flags' text


def parse_numbers(text: str, kind: type = float) -> Any:
    """One number, or a tuple of them from a comma list; ArgumentTypeError echoing the text otherwise.

    >>> parse_numbers("8"), parse_numbers("40,4,4"), parse_numbers("64,64", int)
    (8.0, (40.0, 4.0, 4.0), (64, 64))
    """
    try:
        numbers = tuple(kind(part) for part in text.split(","))
    except ValueError:
        wanted = "whole numbers" if kind is int else "numbers"
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {wanted} or a comma list of them") from None
    return numbers[0] if len(numbers) == 1 else numbers


def parse_box(text: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``BEGIN:END``, each a comma list of numbers with one per spatial axis, as a (begin, end) pair.

    >>> parse_box("0,0,0:64,64,32")
    ((0.0, 0.0, 0.0), (64.0, 64.0, 32.0))
    """
    halves = text.split(":")
    try:
        if len(halves) != 2:
            raise ValueError
        begin, end = (tuple(float(part) for part in half.split(",")) for half in halves)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not BEGIN:END, each a comma list of numbers "
                                         "(such as 0,0,0:64,64,64)") from None
    if len(begin) != len(end):
        raise argparse.ArgumentTypeError(f"{text!r} has {len(begin)} numbers before the colon and {len(end)} after; "
                                         "expected one per spatial axis on each side")
    return begin, end


def parse_select(text: str) -> dict[str, int]:
    """``AXIS=INDEX`` pairs, comma-separated, as the ``select=`` mapping.

    >>> parse_select("c=0,t=3")
    {'c': 0, 't': 3}
    """
    selected = {}
    for part in text.split(","):
        name, sign, index = part.partition("=")
        if not (sign and name.strip() and index.strip().lstrip("-").isdigit()):
            raise argparse.ArgumentTypeError(f"{text!r} is not AXIS=INDEX pairs, comma-separated (such as c=0,t=3)")
        selected[name.strip()] = int(index)
    return selected


def _jobs(text: str) -> int:
    """A positive whole number of threads."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number of threads")
    return int(text)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``copy`` subcommand and its flags, added to the ``worldarray`` parser's subcommands."""
    parser = commands.add_parser("copy", help="write a world box of a level, placed, as a new OME-Zarr array",
                                 description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("source", help="an array or a multiscale group: a local path or an s3://, gs://, http(s):// "
                                       "URL")
    parser.add_argument("target", help="the new array's path, a level under a new group (such as crop.zarr/s0)")
    parser.add_argument("--box", type=parse_box, metavar="BEGIN:END",
                        help="the world box, half-open, one comma-separated number per spatial axis on each side of "
                             "the colon, in the handle's units, such as 0,0,0:64,64,64 (write --box=-8,0,0:8,8,8 "
                             "when it starts with a minus); its voxels are those whose centres lie in it; default: "
                             "the whole level")
    parser.add_argument("--voxel-size", type=parse_numbers, metavar="S[,S...]",
                        help="copy onto the resample grid of this voxel size (one number for every spatial axis, or "
                             "one per axis), anchored at the source's corner")
    parser.add_argument("--level", help="the source level (its name); default: the one chosen for --voxel-size, "
                                        "else the first")
    parser.add_argument("--method", choices=METHODS, help="how a resampled voxel is filled (default: nearest)")
    parser.add_argument("--chunks", type=lambda text: parse_numbers(text, int), metavar="N[,N...]",
                        help="the target's chunk shape (default: the source's, cut to the target's shape)")
    parser.add_argument("--select", type=parse_select, metavar="AXIS=I[,...]",
                        help="pin non-spatial axes to one index each, such as c=0,t=3 (default: copied whole)")
    parser.add_argument("--units", help=f"the unit of --box and --voxel-size (default: {NANOMETER})")
    parser.add_argument("--resume", action="store_true",
                        help="continue a copy into an existing TARGET of the same shape and placement, skipping the "
                             "units already stored")
    parser.add_argument("--jobs", type=_jobs, metavar="N", help="threads to copy on (default: the thread budget, "
                                                                "WORLDARRAY_THREADS or the CPUs)")
    return parser


# ---------------------------------------------------------------- progress


def _done_needed(progress: Progress) -> tuple[int, int]:
    return progress.done, max(progress.needed, 1)


class TerminalBar:
    """A single line on a terminal, redrawn with a carriage return: units done of needed, percent, MB written."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.drawn = False

    def __call__(self, progress: Progress) -> None:
        done, needed = _done_needed(progress)
        filled = self.WIDTH * done // needed
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {progress.done}/{progress.needed} units "
                          f"{100 * done // needed:3d}% {progress.bytes / MEGABYTE:.1f} MB written")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """End the bar's line, so what follows starts on its own."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


class TenthLines:
    """One line at each tenth of the units done (0%, 10%, ..., 100%), each tenth once and in order."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.printed = -1  # the last tenth printed

    def __call__(self, progress: Progress) -> None:
        done, needed = _done_needed(progress)
        reached = 10 if progress.done >= progress.needed else 10 * done // needed
        for tenth in range(self.printed + 1, reached + 1):
            self.stream.write(f"worldarray copy: {10 * tenth}% ({progress.done}/{progress.needed} units, "
                              f"{progress.bytes / MEGABYTE:.1f} MB written)\n")
        self.stream.flush()
        self.printed = max(self.printed, reached)

    def close(self) -> None:
        """Nothing to end: every line is whole."""


def reporter(stream: TextIO) -> TerminalBar | TenthLines:
    """A bar for a terminal, tenth lines for anything else (a log file, a pipe)."""
    isatty = getattr(stream, "isatty", None)
    return TerminalBar(stream) if callable(isatty) and isatty() else TenthLines(stream)


# ---------------------------------------------------------------- the command


def _source(args: argparse.Namespace) -> WorldArray:
    """The handle the copy reads: ``--level``, else the level ``--voxel-size`` chooses, else the first."""
    level = args.level if args.level is not None else (None if args.voxel_size is not None else 0)
    given: dict[str, Any] = {"level": level, "units": args.units or NANOMETER}
    if args.voxel_size is not None:
        given.update(voxel_size=args.voxel_size, on_mismatch="resample")
    if args.method is not None:
        given["method"] = args.method
    if args.select is not None:
        given["select"] = args.select
    return WorldArray(args.source, **given)


def _numbers(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"


def summary(target: str, out: WorldArray) -> str:
    """The closing line: the target, its shape, and its spatial voxel size and translation with their units."""
    spatial = out.spatial
    units = sorted({out.meta.units[i] or NANOMETER for i in spatial})
    return (f"{target}: shape {_numbers(out.shape)}, voxel size {_numbers([out.voxel_size[i] for i in spatial])}, "
            f"translation {_numbers([out.translation[i] for i in spatial])} {'/'.join(units)}")


def _copy(args: argparse.Namespace, progress: Callable[[Progress], None]) -> WorldArray:
    source = _source(args)
    executor = concurrent.futures.ThreadPoolExecutor(args.jobs) if args.jobs is not None else None
    try:
        out = copy(source, args.target, box=args.box, chunks=args.chunks, exists="resume" if args.resume else "error",
                   progress=progress, executor=executor)
    finally:
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
    return cast(WorldArray, out)  # a handle source gives one array, never a list


def run(args: argparse.Namespace, stderr: TextIO | None = None) -> int:
    """Copy as the parsed flags say; return 0, or 2 after one line on stderr when the input is refused."""
    stderr = sys.stderr if stderr is None else stderr
    shown = reporter(stderr)
    try:
        try:
            out = _copy(args, shown)
        finally:
            shown.close()
    except FileExistsError:
        print(f"worldarray copy: TARGET {args.target} is there already; pass --resume to continue a copy into it",
              file=stderr)
        return 2
    except (OSError, ValueError, CopyError) as error:
        print(f"worldarray copy: {args.source}: {error}".replace("\n", " "), file=stderr)
        return 2
    print(summary(args.target, out))
    return 0
