"""A warning about the data is a MetadataWarning pointing at the caller's line; retries and fallbacks go to a logger.

Every warning the package gives goes through ``warn``, which points it at the first frame outside the package, so
``python -W error`` and ``warnings.catch_warnings`` see the user's line, never a line of ours. Under ``quiet()`` the
MetadataWarnings of documents read only to choose or list levels are dropped, so one open warns once: the level
opened is read again, with its warnings.
"""

from __future__ import annotations

import contextvars
import logging
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from types import FrameType
from typing import Generic, TypeVar

__all__ = ["MetadataWarning", "UnitsWarning", "Holding", "Notice", "logger", "warn", "repeat", "quiet", "noticing"]

T = TypeVar("T")

#: Retries, access fallbacks and other progress notes; never a warning about the data.
logger = logging.getLogger("worldarray")

_PACKAGE = __name__.rpartition(".")[0] or __name__


class MetadataWarning(UserWarning):
    """A warning about the data: a missing unit, a disagreeing offset, a parent that does not list the array."""


class UnitsWarning(UserWarning):
    """A voxel size asked for that looks given in other units: near 1000 times (or a 1000th of) the handle's."""


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside the package, counted from ``warn``'s caller."""
    level = 2
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == _PACKAGE:
        level, frame = level + 1, frame.f_back
    return level


# per thread and per task, unlike the warnings module's filters, so a quiet read never silences another thread's
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("worldarray_quiet", default=False)


class Holding(Generic[T]):
    """Within the block the context variable ``variable`` holds ``value``, which the block is given; after it, what
    it held before."""

    __slots__ = ("variable", "value", "_token")

    def __init__(self, variable: contextvars.ContextVar, value: T) -> None:
        self.variable, self.value = variable, value

    def __enter__(self) -> T:
        self._token = self.variable.set(self.value)
        return self.value

    def __exit__(self, *exc_info: object) -> None:
        self.variable.reset(self._token)


def quiet() -> Holding[bool]:
    """Drop the MetadataWarnings raised inside the block: documents read only to choose or list levels."""
    return Holding(_QUIET, True)


@dataclass(frozen=True)
class Notice:
    """A warning the package gave: its message and category, whether it was shown (``quiet`` drops
    MetadataWarnings), and whether every open of the same documents with the same arguments gives it (``again``)."""

    message: str
    category: type[Warning]
    shown: bool
    again: bool


_NOTICED: contextvars.ContextVar[list[Notice] | None] = contextvars.ContextVar("worldarray_noticed", default=None)


def noticing() -> Holding[list[Notice]]:
    """List every warning the package gives inside the block, ``quiet`` or not, so that an open handed out again
    gives the warnings its first open gave (``repeat``), or is not handed out again when it cannot."""
    return Holding(_NOTICED, [])


def warn(message: str, category: type[Warning] = MetadataWarning, *, again: bool = True) -> None:
    """Warn about the data at the caller's own line (the first frame outside the package), unless ``quiet``.

    ``again`` is False for a warning the package gives once per process, or one that rests on more than the
    documents an open reads (another array's voxels): an open that gave it is worked out afresh every time.
    """
    dropped = _QUIET.get() and issubclass(category, MetadataWarning)
    noticed = _NOTICED.get()
    if noticed is not None:
        noticed.append(Notice(message, category, not dropped, again))
    if not dropped:
        warnings.warn(message, category, stacklevel=_caller_level())


def repeat(notices: Iterable[Notice]) -> None:
    """Give the warnings ``notices`` list again, in order, as ``warn`` gives them (``quiet`` applies now)."""
    for notice in notices:
        warn(notice.message, notice.category, again=notice.again)
