"""A unit is converted through one table of metres, seconds and degrees, and only when a caller asks.

Every spelling the package knows is a key of ``TABLE["length"]`` (metres per unit), ``TABLE["time"]`` (seconds
per unit) or ``TABLE["angle"]`` (degrees per unit), matched exactly: case is part of a unit's name ("Mm" is no
millimetre). Any other string is accepted as a label and kept; it becomes an error only when a
conversion is asked of it. This module also owns the one reading of a ``units=`` argument
(``Request``), the one conversion of a placement (``convert``), and the one assumption about a
spatial axis with no unit: it is in nanometres, and one MetadataWarning says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from .diagnostics import warn

__all__ = ["TABLE", "NANOMETER", "kind", "factor", "abbreviation", "ome_name", "lookup", "Request", "convert",
           "UnitsArgument"]

#: The unit a spatial axis with no unit is taken to be in, and the default of every ``units=`` argument.
NANOMETER = "nanometer"

# (OME name, short form, (mantissa, power of ten) metres or seconds per unit, other spellings)
_LENGTHS = (
    ("kilometer", "km", (1, 3), ("kilometre",)),
    ("meter", "m", (1, 0), ("metre",)),
    ("centimeter", "cm", (1, -2), ("centimetre",)),
    ("millimeter", "mm", (1, -3), ("millimetre",)),
    ("micrometer", "\u00b5m", (1, -6), ("micrometre", "micron", "um", "\u03bcm")),
    ("nanometer", "nm", (1, -9), ("nanometre",)),
    ("angstrom", "\u00c5", (1, -10), ("\u212b", "\u00e5ngstr\u00f6m", "angstroms")),
    ("picometer", "pm", (1, -12), ("picometre",)),
)
_TIMES = (
    ("day", "d", (86400, 0), ("days",)),
    ("hour", "h", (3600, 0), ("hours", "hr")),
    ("minute", "min", (60, 0), ("minutes",)),
    ("second", "s", (1, 0), ("seconds", "sec")),
    ("millisecond", "ms", (1, -3), ("milliseconds",)),
    ("microsecond", "\u00b5s", (1, -6), ("microseconds", "us", "\u03bcs")),
    ("nanosecond", "ns", (1, -9), ("nanoseconds",)),
)

# an angle's factors: a degree is exact, a radian 180/pi degrees (a float, the one factor that is no power of ten)
_ANGLES = (
    ("degree", "deg", (1, 0), ("degrees",)),
    ("radian", "rad", (180 / math.pi, 0), ("radians",)),
)

_KINDS = {"length": "space", "time": "time", "angle": "angle"}

#: The length units by their OME names, largest first.
LENGTH_UNITS = tuple(ome for ome, _, _, _ in _LENGTHS)


def _plurals(words) -> tuple[str, ...]:
    """The plural of each spelling that is a word ("nanometers", "micrometres", "microns"), not an abbreviation."""
    return tuple(w + "s" for w in words if len(w) > 3 and w.isalpha() and not w.endswith("s"))


def _spellings(rows):
    table, canonical, exact = {}, {}, {}
    for ome, short, (mantissa, power), others in rows:
        for spelling in dict.fromkeys((ome, short, *others, *_plurals((ome, *others)))):
            table[spelling] = mantissa * 10.0**power
            canonical[spelling] = (ome, short)
            exact[spelling] = (mantissa, power)
    return table, canonical, exact


_LENGTH_TABLE, _LENGTH_NAMES, _LENGTH_EXACT = _spellings(_LENGTHS)
_TIME_TABLE, _TIME_NAMES, _TIME_EXACT = _spellings(_TIMES)
_ANGLE_TABLE, _ANGLE_NAMES, _ANGLE_EXACT = _spellings(_ANGLES)
# Factors are computed from mantissas and powers of ten, so micrometre to nanometre is exactly 1000.
_EXACT = {"length": _LENGTH_EXACT, "time": _TIME_EXACT, "angle": _ANGLE_EXACT}

#: Public unit tables: metres per length unit, seconds per time unit and degrees per angle unit, by every known
#: spelling.
TABLE: dict[str, dict[str, float]] = {"length": _LENGTH_TABLE, "time": _TIME_TABLE, "angle": _ANGLE_TABLE}
_NAMES = {"length": _LENGTH_NAMES, "time": _TIME_NAMES, "angle": _ANGLE_NAMES}
_KNOWN = sorted(TABLE["length"]) + sorted(TABLE["time"]) + sorted(TABLE["angle"])


def lookup(unit: str) -> tuple[str, float] | None:
    """Return ``(table, size)`` for a spelling the table holds exactly (case and spaces count), else None.

    >>> lookup("mm"), lookup("Mm")
    (('length', 0.001), None)
    """
    for table_name, table in TABLE.items():
        if isinstance(unit, str) and unit in table:
            return table_name, table[unit]
    return None


def _canonical(unit: str) -> tuple[str, str] | None:
    found = lookup(unit)
    return None if found is None else _NAMES[found[0]][unit]


def kind(unit: str) -> str:
    """Return ``"space"`` for a length, ``"time"`` for a time, ``"angle"`` for an angle, else ``"unknown"``.

    >>> kind("µm"), kind("ms"), kind("degree"), kind("degrees_north")
    ('space', 'time', 'angle', 'unknown')
    """
    found = lookup(unit)
    return _KINDS[found[0]] if found else "unknown"


def factor(unit: str, target: str) -> float:
    """Return the number that converts a value in ``unit`` into ``target``.

    Raises
    ------
    ValueError
        When either unit is unknown or the two are of different kinds.

    >>> factor("um", "meter")
    1e-06
    """
    source, goal = lookup(unit), lookup(target)
    if source is None or goal is None or source[0] != goal[0]:
        raise ValueError(
            f"cannot convert unit {unit!r} ({kind(unit)}) to {target!r} ({kind(target)}); "
            f"known units: {sorted(TABLE['length'])}, {sorted(TABLE['time'])} and {sorted(TABLE['angle'])}"
        )
    (m1, p1), (m2, p2) = _EXACT[source[0]][unit], _EXACT[goal[0]][target]
    if isinstance(m1, float) or isinstance(m2, float):  # a radian: no whole mantissa, so no exact ratio
        ratio = m1 / m2
    else:
        ratio = m1 / m2 if m1 % m2 else m1 // m2
    power = p1 - p2
    return float(ratio * 10**power) if power >= 0 else ratio / 10 ** (-power)


def abbreviation(unit: str) -> str:
    """Return the short form of a known unit ("nm" for any spelling of nanometre).

    Raises ValueError for a unit the table does not know.
    """
    names = _canonical(unit)
    if names is None:
        raise ValueError(f"unit {unit!r} is not in the unit table; known: {_KNOWN}")
    return names[1]


def ome_name(unit: str) -> str:
    """Return OME-NGFF's spelling of a known unit ("um" and "µm" are "micrometer").

    Raises ValueError for a unit the table does not know.
    """
    names = _canonical(unit)
    if names is None:
        raise ValueError(f"unit {unit!r} is not in the unit table; known: {_KNOWN}")
    return names[0]


# ---------------------------------------------------------------- a units= argument, and the conversion

#: What a ``units=`` argument may be: a unit name (the spatial axes' unit), a dict by kind of axis
#: (``{"space": "nanometer", "time": "second"}``), one unit per axis, or None (the stored units kept).
UnitsArgument: TypeAlias = "str | Mapping[str, str | None] | Sequence[str] | Request | None"


@dataclass(frozen=True)
class Request:
    """A ``units=`` argument read once: the unit wanted per kind of axis, or one per axis; None keeps the stored unit.

    >>> Request.of({"space": "um"}).space, Request.of(["", "nm", "nm"]).per_axis
    ('um', ('', 'nm', 'nm'))
    """

    space: str | None = None
    time: str | None = None
    per_axis: tuple[str, ...] | None = None
    angle: str | None = None

    @classmethod
    def of(cls, units: UnitsArgument) -> Request:
        """Read a ``units=`` argument: a unit name (the spatial axes' unit), a dict by kind, one unit per axis, or None.

        Raises ValueError naming the value given and the shapes accepted.
        """
        if units is None or isinstance(units, Request):
            return units or cls()
        if isinstance(units, str):
            return cls(space=units)
        if isinstance(units, Mapping):
            if set(units) <= {"space", "time", "angle"} and all(v is None or isinstance(v, str)
                                                                for v in units.values()):
                return cls(space=units.get("space"), time=units.get("time"), angle=units.get("angle"))
        elif isinstance(units, Sequence) and all(isinstance(u, str) or u is None for u in units):
            return cls(per_axis=tuple(u or "" for u in units))
        raise ValueError(f"units is {units!r}; expected a unit name, a dict with 'space', 'time' and/or 'angle', "
                         "one unit per axis ('' on an axis that has none), or None")

    @classmethod
    def checked(cls, units: UnitsArgument) -> Request:
        """``of``, and every unit asked for known to the table as its kind (a length for ``space``, a time for
        ``time``), so no placement is ever reported in a unit it was not converted to; ValueError naming the
        argument, the unit and what was wanted.

        >>> Request.checked("parsec")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: units is 'parsec': 'parsec' is not a length unit the unit table knows; expected one of ...
        """
        if units is not None and units.__class__ is not str:
            return cls._checked(units)
        if units not in _CHECKED:  # a name or None, checked once: only names the table knows are kept
            _CHECKED[units] = cls._checked(units)
        return _CHECKED[units]

    @classmethod
    def _checked(cls, units: UnitsArgument) -> Request:
        request = cls.of(units)
        wanted: list[tuple[str | None, str | None, str]] = [(request.space, "space", "a length"),
                                                            (request.time, "time", "a time"),
                                                            (request.angle, "angle", "an angle")]
        wanted += [(unit, None, "a length, a time or an angle") for unit in request.per_axis or ()]
        tables = {"space": "length", "time": "time", "angle": "angle"}
        for unit, axis_kind, label in wanted:
            if unit and (kind(unit) == "unknown" if axis_kind is None else kind(unit) != axis_kind):
                known = sorted(TABLE[tables[axis_kind]]) if axis_kind else _KNOWN
                raise ValueError(f"units is {units!r}: {unit!r} is not {label} unit the unit table knows; expected "
                                 f"one of {known}")
        return request

    def by_kind(self, index: int, axis_kind: str) -> str | None:
        """The unit wanted on axis ``index`` of kind "space", "time", "angle" or another; None or "" keeps what is
        there."""
        if self.per_axis is not None:
            if index >= len(self.per_axis):
                raise ValueError(f"units is {list(self.per_axis)!r}; expected one unit for each axis, "
                                 f"and axis {index} has none")
            return self.per_axis[index]
        return {"space": self.space, "time": self.time, "angle": self.angle}.get(axis_kind)

    def targets(self, stored: Sequence[str], spatial: Sequence[int]) -> tuple[str | None, ...]:
        """Per axis, the unit to convert the stored unit to (None: keep it); an axis's kind is its stored unit's.

        A unit that is no length, time or angle (or none at all) counts as a length on a spatial axis. An angle
        axis (degrees) is converted only to an angle unit (``{"angle": "radian"}`` or one unit per axis): the
        default ``units="nanometer"`` leaves it in its own unit.

        >>> Request.of("nanometer").targets(("degree", "degree", ""), (0, 1))
        (None, None, None)
        """
        out = []
        for i, unit in enumerate(stored):
            found = kind(unit)
            axis_kind = "space" if found == "unknown" and i in spatial else found
            out.append(self.by_kind(i, axis_kind) or None)
        return tuple(out)


#: ``Request.checked`` of a unit name or None, by the name: each is checked once
_CHECKED: dict[str | None, Request] = {}


def convert(voxel_size: Sequence[float], translation: Sequence[float], units: Sequence[str],
            targets: Sequence[str | None], spatial: Sequence[int], *, where: str = "", axes: Sequence[str] = (),
            strict: bool = True, quiet: bool = False) -> tuple[tuple[float, ...], tuple[float, ...], tuple[str, ...]]:
    """Convert a placement axis by axis into ``targets`` (None keeps an axis), returning sizes, translations, units.

    A spatial axis with no unit is taken as nanometres, with one MetadataWarning naming ``where`` and the axes. An
    unknown unit raises ValueError naming the axis, or with ``strict=False`` is taken as the target with a warning.
    ``quiet`` gives no warning (for conversions made only to compare or to choose).

    >>> convert((4.0, 8.0), (2.0, 4.0), ("um", "nm"), ("nm", "nm"), (0, 1))
    ((4000.0, 8.0), (2000.0, 4.0), ('nm', 'nm'))
    """
    sizes, shifts, names = list(voxel_size), list(translation), list(units)
    labels = tuple(axes) or tuple(str(i) for i in range(len(names)))
    missing = []
    for i, (unit, target) in enumerate(zip(units, targets, strict=True)):
        if target is None:
            continue
        if unit == "" and i in spatial:
            missing.append(labels[i])
            unit = NANOMETER
        try:
            scale = 1.0 if unit == target else factor(unit, target)  # a target is a unit the table knows
        except ValueError as error:
            if strict:
                wanted = "a length" if kind(target) == "space" else "a time" if kind(target) == "time" else "a unit"
                raise ValueError(f"{where}: axis {labels[i]!r} has unit {unit!r}, which the unit table does not know "
                                 f"as {wanted}; expected {wanted} to convert to {target!r} "
                                 "(or pass strict_units=False)") from error
            if not quiet:
                warn(f"{where}: axis {labels[i]!r} unit {unit!r} is unknown; taken as {target!r}")
            scale = 1.0
        sizes[i], shifts[i], names[i] = sizes[i] * scale, shifts[i] * scale, target
    if missing and not quiet:
        warn(f"{where}: spatial axes {tuple(missing)} have no unit; taken as nanometres")
    return tuple(sizes), tuple(shifts), tuple(names)
