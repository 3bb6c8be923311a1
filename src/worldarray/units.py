"""A unit is converted through one table of metres and seconds, and only when a caller asks.

Every spelling the package knows is a key of ``TABLE["length"]`` (metres per unit) or
``TABLE["time"]`` (seconds per unit). Any other string is accepted as a label and kept; it
becomes an error only when a conversion is asked of it.
"""

from __future__ import annotations

__all__ = ["TABLE", "kind", "factor", "abbreviation", "ome_name", "lookup"]

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

_KINDS = {"length": "space", "time": "time"}


def _spellings(rows):
    table, canonical, exact = {}, {}, {}
    for ome, short, (mantissa, power), others in rows:
        for spelling in (ome, short, *others):
            table[spelling] = mantissa * 10.0**power
            canonical[spelling] = (ome, short)
            exact[spelling] = (mantissa, power)
    return table, canonical, exact


_LENGTH_TABLE, _LENGTH_NAMES, _LENGTH_EXACT = _spellings(_LENGTHS)
_TIME_TABLE, _TIME_NAMES, _TIME_EXACT = _spellings(_TIMES)
# Factors are computed from mantissas and powers of ten, so micrometre to nanometre is exactly 1000.
_EXACT = {"length": _LENGTH_EXACT, "time": _TIME_EXACT}

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


def _key(unit: str) -> str:
    text = unit.strip()
    return text if lookup(text) and any(text in t for t in TABLE.values()) else text.lower()


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
    (m1, p1), (m2, p2) = _EXACT[source[0]][_key(unit)], _EXACT[goal[0]][_key(target)]
    ratio = m1 / m2 if m1 % m2 else m1 // m2
    power = p1 - p2
    return float(ratio * 10**power) if power >= 0 else ratio / 10 ** (-power)


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
