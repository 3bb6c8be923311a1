"""A unit is converted through one table of metres and seconds, and only when a caller asks.

Every spelling the package knows is a key of ``TABLE["length"]`` (metres per unit) or
``TABLE["time"]`` (seconds per unit). Any other string is accepted as a label and kept; it
becomes an error only when a conversion is asked of it.
"""

from __future__ import annotations

__all__ = ["TABLE", "kind", "factor", "abbreviation", "ome_name", "lookup"]

# (OME name, short form, metres or seconds per unit, other spellings)
_LENGTHS = (
    ("kilometer", "km", 1e3, ("kilometre",)),
    ("meter", "m", 1.0, ("metre",)),
    ("centimeter", "cm", 1e-2, ("centimetre",)),
    ("millimeter", "mm", 1e-3, ("millimetre",)),
    ("micrometer", "\u00b5m", 1e-6, ("micrometre", "micron", "um", "\u03bcm")),
    ("nanometer", "nm", 1e-9, ("nanometre",)),
    ("angstrom", "\u00c5", 1e-10, ("\u212b", "\u00e5ngstr\u00f6m", "angstroms")),
    ("picometer", "pm", 1e-12, ("picometre",)),
)
_TIMES = (
    ("day", "d", 86400.0, ("days",)),
    ("hour", "h", 3600.0, ("hours", "hr")),
    ("minute", "min", 60.0, ("minutes",)),
    ("second", "s", 1.0, ("seconds", "sec")),
    ("millisecond", "ms", 1e-3, ("milliseconds",)),
    ("microsecond", "\u00b5s", 1e-6, ("microseconds", "us", "\u03bcs")),
    ("nanosecond", "ns", 1e-9, ("nanoseconds",)),
)

_KINDS = {"length": "space", "time": "time"}


def _spellings(rows):
    table, canonical = {}, {}
    for ome, short, size, others in rows:
        for spelling in (ome, short, *others):
            table[spelling] = size
            canonical[spelling] = (ome, short)
    return table, canonical


_LENGTH_TABLE, _LENGTH_NAMES = _spellings(_LENGTHS)
_TIME_TABLE, _TIME_NAMES = _spellings(_TIMES)

#: Public unit tables: metres per length unit and seconds per time unit, by every known spelling.
TABLE: dict[str, dict[str, float]] = {"length": _LENGTH_TABLE, "time": _TIME_TABLE}
_NAMES = {"length": _LENGTH_NAMES, "time": _TIME_NAMES}


def lookup(unit: str) -> tuple[str, float] | None:
    """Return ``(table, size)`` for a known spelling (exact, else lower-cased), else None."""
    if not isinstance(unit, str):
        return None
    text = unit.strip()
    for candidate in (text, text.lower()):
        for table_name, table in TABLE.items():
            if candidate in table:
                return table_name, table[candidate]
    return None


def _canonical(unit: str) -> tuple[str, str] | None:
    found = lookup(unit)
    if found is None:
        return None
    text = unit.strip()
    names = _NAMES[found[0]]
    return names.get(text) or names[text.lower()]


def kind(unit: str) -> str:
    """Return ``"space"`` for a length, ``"time"`` for a time, else ``"unknown"``.

    >>> kind("µm"), kind("ms"), kind("degrees_north")
    ('space', 'time', 'unknown')
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
            f"known units: {sorted(TABLE['length'])} and {sorted(TABLE['time'])}"
        )
    if source[1] == goal[1]:
        return 1.0
    return source[1] / goal[1]


def abbreviation(unit: str) -> str:
    """Return the short form of a known unit ("nm" for any spelling of nanometre).

    Raises ValueError for a unit the table does not know.
    """
    names = _canonical(unit)
    if names is None:
        raise ValueError(f"unit {unit!r} is not in the unit table; known: {sorted(TABLE['length']) + sorted(TABLE['time'])}")
    return names[1]


def ome_name(unit: str) -> str:
    """Return OME-NGFF's spelling of a known unit ("um" and "µm" are "micrometer").

    Raises ValueError for a unit the table does not know.
    """
    names = _canonical(unit)
    if names is None:
        raise ValueError(f"unit {unit!r} is not in the unit table; known: {sorted(TABLE['length']) + sorted(TABLE['time'])}")
    return names[0]
