"""Which axes are spatial: those named z, y or x when any are, else the last three that are neither time nor channel.

Unnamed axes are called ``("t", "c", "z", "y", "x")[-ndim:]``. Imports nothing of ours; ``geometry`` re-exports it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

__all__ = ["DEFAULT_AXES", "default_axes", "spatial_indices"]

#: Names given to unnamed axes, the last ``ndim`` of them.
DEFAULT_AXES = ("t", "c", "z", "y", "x")

_SPATIAL_NAMES = frozenset("zyx")
_NEVER_SPATIAL = frozenset({"t", "time", "c", "channel"})


def default_axes(ndim: int) -> tuple[str, ...]:
    """Return the names of ``ndim`` unnamed axes: ``("t", "c", "z", "y", "x")[-ndim:]``.

    Beyond five axes the leading ones are called ``d0``, ``d1``, ...

    >>> default_axes(3)
    ('z', 'y', 'x')
    """
    if ndim < 0:
        raise ValueError(f"ndim is {ndim}; expected a whole number >= 0")
    extra = max(0, ndim - len(DEFAULT_AXES))
    named = DEFAULT_AXES[len(DEFAULT_AXES) - min(ndim, len(DEFAULT_AXES)):]
    return tuple(f"d{i}" for i in range(extra)) + named


def spatial_indices(axes: Sequence[str] | None, ndim: int | None = None) -> tuple[int, ...]:
    """Return the spatial axes: those named z, y or x when any are, else the last three that are not time or channel."""
    if axes is None:
        if ndim is None:
            raise ValueError("spatial_indices needs axes or ndim")
        return tuple(range(max(0, ndim - 3), ndim))
    names = axes if axes.__class__ is tuple else tuple(axes)
    try:
        return _spatial_of(names)
    except TypeError:  # a name that cannot be hashed: worked out afresh
        return _spatial_of.__wrapped__(names)


@functools.lru_cache(maxsize=1024)
def _spatial_of(axes: tuple) -> tuple[int, ...]:
    named = tuple(i for i, name in enumerate(axes) if name in _SPATIAL_NAMES)
    if named:
        return named
    candidates = [i for i, name in enumerate(axes) if str(name).lower() not in _NEVER_SPATIAL]
    return tuple(candidates[-3:])
