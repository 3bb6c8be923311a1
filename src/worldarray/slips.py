"""A voxel size asked for that looks given in other units is a slip: within 10% of one power of 1000 (not 1) times
the handle's voxel size on every spatial axis, or 100 times it or more on every spatial axis. It is warned about once
per handle (``wa.UnitsWarning``), naming both sizes, their unit and the unit in which the size asked for comes
nearest the handle's; the read goes ahead as asked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .geometry import size_ratio
from .grid import Frame
from .units import LENGTH_UNITS, NANOMETER, factor
from .units import kind as units_kind

__all__ = ["FAR_COARSER", "unit_slip"]


#: A resample target this many times the handle's voxel size or more, on every spatial axis, warns as a unit slip.
FAR_COARSER = 100.0


def unit_slip(frame: Frame, sizes: Sequence[float], have: Sequence[float] | None = None) -> str | None:
    """A warning when ``sizes`` look given in other units than ``have`` (the handle's voxel size): within 10% of one
    power of 1000 (not 1) times it on every spatial axis, or ``FAR_COARSER`` times it or more on every spatial axis;
    else None. The warning names both sizes, their unit and the unit that would make sense of ``sizes``."""
    have = frame.voxel_size if have is None else tuple(have)
    ratios = [size_ratio(size, own) for size, own in zip(sizes, have, strict=True)]
    unit = frame.meta.units[frame.spatial[0]] or NANOMETER
    powers = [round(math.log(r, 1000)) for r in ratios]
    if len(set(powers)) == 1 and powers[0] != 0 and all(abs(r / 1000.0**p - 1) <= 0.1
                                                        for r, p in zip(ratios, powers, strict=True)):
        times = f"{1000.0 ** powers[0]:g} times"
    elif min(ratios) >= FAR_COARSER:
        times = f"{min(ratios):g} to {max(ratios):g} times" if max(ratios) > min(ratios) else f"{ratios[0]:g} times"
    else:
        return None
    meant = _meant_unit(sizes, have, unit)
    guess = f"in {meant}, where it is near the handle's" if meant else "in other units"
    return (f"{frame.meta.path}: voxel_size {tuple(sizes)} is {times} the voxel size {have}, both in {unit}; was it "
            f"given {guess}? Resampling as asked")


def _meant_unit(sizes: Sequence[float], have: Sequence[float], unit: str) -> str | None:
    """The length unit (OME's spellings) in which ``sizes`` come closest to ``have`` (in ``unit``), other than
    ``unit`` itself; None when ``unit`` is no length the table knows."""
    if units_kind(unit) != "space":
        return None
    best, distance = None, math.inf
    for name in LENGTH_UNITS:
        scale = factor(name, unit)
        gap = sum(abs(math.log(size_ratio(s * scale, h))) for s, h in zip(sizes, have, strict=True))
        if gap < distance and factor(name, unit) != 1.0:
            best, distance = name, gap
    return best
