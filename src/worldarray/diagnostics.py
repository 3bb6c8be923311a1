"""A warning about the data is a MetadataWarning pointing at the caller's line; retries and fallbacks go to a logger.

Every warning the package gives goes through ``warn``, which points it at the first frame outside the package, so
``python -W error`` and ``warnings.catch_warnings`` see the user's line, never a line of ours. Under ``quiet()`` the
MetadataWarnings of documents read only to choose or list levels are dropped, so one open warns once: the level
opened is read again, with its warnings.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
import warnings
from collections.abc import Iterator
from types import FrameType

__all__ = ["MetadataWarning", "UnitsWarning", "logger", "warn", "quiet", "noticing"]

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


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Drop the MetadataWarnings raised inside the block: documents read only to choose or list levels."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


_NOTICED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("worldarray_noticed", default=None)


@contextlib.contextmanager
def noticing() -> Iterator[list[str]]:
    """List every warning the package gives inside the block, ``quiet`` or not: an open that warned is not one whose
    result may be handed out again without its warnings."""
    noticed: list[str] = []
    token = _NOTICED.set(noticed)
    try:
        yield noticed
    finally:
        _NOTICED.reset(token)


def warn(message: str, category: type[Warning] = MetadataWarning) -> None:
    """Warn about the data at the caller's own line (the first frame outside the package), unless ``quiet``."""
    noticed = _NOTICED.get()
    if noticed is not None:
        noticed.append(message)
    if _QUIET.get() and issubclass(category, MetadataWarning):
        return
    warnings.warn(message, category, stacklevel=_caller_level())
