"""An operation is retried on transient errors only, attempt k waiting timeout * k seconds for its answer.

This module holds every attempt loop of the package: data reads and writes, tensorstore opens and metadata
documents (``Retry.run`` and ``Retry.call``), the re-read of an array that appeared under a creation
(``poll``), and the re-read and merge of a document another writer changed first (``settle``). ``governing``
sets the policy that the metadata documents of one call are read under.
"""

from __future__ import annotations

import contextvars
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .diagnostics import Holding, logger

__all__ = ["Retry", "is_transient", "governing", "current", "poll", "settle", "chain", "FLOOR", "ERROR_PAUSES",
           "floor_bytes"]

T = TypeVar("T")

_TRANSIENT_CODES = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED")
# an HTTP status named as one: "HTTP 503", "HTTP status 429", "HTTP response code: 502", "status code 500"
_HTTP_STATUS = re.compile(r"\b(?:HTTP|status)\b[^0-9\[\]]{0,24}?\b(5\d\d|429)\b", re.IGNORECASE)
# tensorstore's own payload naming the status, wherever it stands in the message (after the source locations too)
_STATUS_PAYLOAD = re.compile(r"\[http_response_code='(5\d\d|429)'\]")
_SOURCE_LOCATIONS = " [source locations="  # tensorstore's appendix, whose line numbers are no status codes
_MIB = float(1 << 20)
# Behaviour 6: attempt 1 waits clamp(MiB / rate, FLOOR, high) seconds, by locality
#: The shortest wait of attempt 1, in seconds: for every operation of at most ``floor_bytes(remote)``.
FLOOR = 5.0
_REMOTE_RATE, _REMOTE_LIMITS = 16, (FLOOR, 120.0)
_LOCAL_RATE, _LOCAL_LIMITS = 256, (FLOOR, 30.0)
#: A metadata document's error answers are asked again after these pauses, in seconds times ``base_delay``: five
#: more requests over five seconds, by default (Conventions, "Stores").
ERROR_PAUSES = (0.2, 0.4, 0.8, 1.6, 2.0)
# Behaviour 11: an array that appeared under a creation is re-read 5 times, 0.5 s times the attempt apart
RACE_ATTEMPTS, RACE_DELAY = 5, 0.5
# A17: a conditional document write that lost to another writer is re-read and merged at most this often, after a
# random pause of up to CONFLICT_DELAY seconds times the attempt (every lost attempt means another writer's won).
CONFLICT_ATTEMPTS, CONFLICT_DELAY = 50, 0.02


class _Future(Protocol):
    def result(self, timeout: float | None = None) -> Any: ...

    def cancel(self) -> Any: ...


def is_transient(error: BaseException) -> bool:
    """A timeout, or a tensorstore error starting UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED or carrying
    HTTP 5xx or 429.

    >>> is_transient(TimeoutError()), is_transient(ValueError("NOT_FOUND: gone"))
    (True, False)
    >>> is_transient(ValueError("ABORTED: All 1 retry attempts failed [x] [http_response_code='503']"))
    True
    """
    if isinstance(error, TimeoutError):
        return True
    message = str(error).split(_SOURCE_LOCATIONS, 1)[0]
    if message.startswith(_TRANSIENT_CODES):
        return True
    return bool(_HTTP_STATUS.search(message) or _STATUS_PAYLOAD.search(str(error)))


def floor_bytes(remote: bool) -> float:
    """The size up to which attempt 1 waits ``FLOOR`` seconds (without a timeout of the policy's own): a read path
    that knows it once need not compute the formula per read."""
    return (_REMOTE_RATE if remote else _LOCAL_RATE) * FLOOR * _MIB


def _clamp(value: float, limits: tuple[float, float]) -> float:
    return min(max(value, limits[0]), limits[1])


@dataclass(frozen=True)
class Retry:
    """How an operation is retried: at most ``max_attempts``, attempt k waiting ``timeout * k`` seconds.

    With ``timeout=None`` the per-attempt timeout follows the size of the data: clamp(MiB / 16, 5, 120)
    seconds for a remote store and clamp(MiB / 256, 5, 30) for a local one; an operation of no bytes (a
    metadata document, an open) waits 5 s. Between attempts the sleep is ``base_delay * 1.3 ** (k - 1)`` plus
    a uniform 0 to 1 seconds. Only transient errors (``is_transient``) are retried. Metadata documents keep two
    budgets apart: one not answered is asked again at once (up to ``max_attempts``), one answered with an error
    after ``ERROR_PAUSES`` times ``base_delay`` (five more requests over five seconds by default).

    >>> Retry(timeout=2.0).attempt_timeout(0, remote=True), Retry().attempt_timeout(0, remote=False)
    (2.0, 5.0)
    """

    max_attempts: int = 10
    timeout: float | None = None
    base_delay: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError(f"Retry max_attempts is {self.max_attempts!r}; expected a whole number >= 1")
        if self.timeout is not None and not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise ValueError(f"Retry timeout is {self.timeout!r}; expected seconds > 0 or None")
        if not (isinstance(self.base_delay, (int, float)) and self.base_delay >= 0):
            raise ValueError(f"Retry base_delay is {self.base_delay!r}; expected seconds >= 0")

    def attempt_timeout(self, nbytes: int = 0, remote: bool = False) -> float:
        """The seconds attempt 1 waits for an operation on ``nbytes`` (attempt k waits k times as long)."""
        if self.timeout is not None:
            return float(self.timeout)
        if remote:
            return _clamp(nbytes / _MIB / _REMOTE_RATE, _REMOTE_LIMITS)
        return _clamp(nbytes / _MIB / _LOCAL_RATE, _LOCAL_LIMITS)

    def sleep_before(self, attempt: int) -> float:
        """The seconds slept before attempt ``attempt`` (from 2)."""
        return self.base_delay * 1.3 ** (attempt - 2) + _uniform(1)

    def run(self, start: Callable[[], _Future], timeout: float, what: str = "read", *,
            again: Callable[[], _Future] | None = None) -> Any:
        """Call ``start()`` for a future and wait ``timeout`` for it, retrying transient errors; a late future is
        cancelled before the next attempt starts, and attempts after the first call ``again`` (``start`` when None).

        Attempt 1 runs inline; the loop takes over only after a failure, so an operation that succeeds pays nothing.
        """
        future = start()
        try:
            return future.result(timeout=timeout)
        except Exception as error:
            return self.resume(error, future, again or start, timeout, what)

    def resume(self, error: Exception, future: _Future, start: Callable[[], _Future], timeout: float,
               what: str = "read") -> Any:
        """``run`` after its attempt 1, which the caller made itself and which failed with ``error``: the late future
        is cancelled, and the error raised unless transient, else retried with ``start`` for each later attempt.
        (The read path makes attempt 1 inline.)"""
        if isinstance(error, TimeoutError):
            future.cancel()
        return self._again(lambda wait: _wait(start, wait), timeout, what, error, is_transient)

    def call(self, attempt: Callable[[float], T], timeout: float, what: str, *,
             retry_on: Callable[[BaseException], bool] = is_transient,
             errors: Sequence[float] | None = None) -> T:
        """Return ``attempt(timeout * k)`` for the first attempt k that does not fail with an error ``retry_on``
        accepts, at most ``max_attempts``.

        With ``errors`` (pauses in seconds, as ``ERROR_PAUSES``) the two budgets are kept apart: a TimeoutError
        (no answer) starts the next attempt at once, and any other error ``retry_on`` accepts (an error answer) is
        retried after the next pause times ``base_delay``, only while pauses are left. Without, every retry sleeps
        ``sleep_before``.
        """
        try:
            return attempt(timeout)
        except Exception as error:
            return self._again(attempt, timeout, what, error, retry_on, errors)

    def _again(self, attempt: Callable[[float], T], timeout: float, what: str, error: Exception,
               retry_on: Callable[[BaseException], bool], errors: Sequence[float] | None = None) -> T:
        """Go on after attempt 1 failed with ``error``: raise it unless retried, else try again up to the limits."""
        done, answers, said = 1, 0, None  # attempts made; error answers paused after (``errors``); the last reason
        while True:
            if not retry_on(error):
                raise error
            pause = self._pause(error, done + 1, errors, answers)
            if done >= self.max_attempts or pause is None:
                raise _exhausted(error, what, done) from error
            reason = _reason(error)
            limit = self._limit(error, errors, answers, done)
            logger.warning("%s: attempt %d of %d failed (%s); retrying", what, done, limit,
                           "the same way" if reason == said else reason)
            said = reason
            done += 1
            answers += errors is not None and not isinstance(error, TimeoutError)
            if pause:
                time.sleep(pause)
            try:
                return attempt(timeout * done)
            except Exception as failure:
                error = failure

    def _limit(self, error: Exception, errors: Sequence[float] | None, answers: int, done: int) -> int:
        """How many attempts there will be at most, as far as ``error`` tells: ``max_attempts``, or with ``errors``
        and an error answer the attempts the pauses left allow."""
        if errors is None or isinstance(error, TimeoutError):
            return self.max_attempts
        return min(self.max_attempts, done + len(errors) - answers)

    def _pause(self, error: Exception, attempt: int, errors: Sequence[float] | None, answers: int) -> float | None:
        """The seconds slept before ``attempt`` after ``error``: ``sleep_before`` without ``errors``; with them, none
        after no answer and the next pause after an error answer, None when no pause is left."""
        if errors is None:
            return self.sleep_before(attempt)
        if isinstance(error, TimeoutError):
            return 0.0
        return self.base_delay * errors[answers] if answers < len(errors) else None


class _Chained:
    """The future of ``step(first.result())``: both waited for within one timeout, both cancelled together."""

    def __init__(self, first: _Future, step: Callable[[Any], _Future]) -> None:
        self.first, self.step = first, step
        self.second: _Future | None = None

    def result(self, timeout: float | None = None) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        value = self.first.result(timeout=timeout)
        self.second = self.step(value)
        return self.second.result(timeout=None if deadline is None else max(deadline - time.monotonic(), 0.0))

    def cancel(self) -> Any:
        self.first.cancel()
        return self.second.cancel() if self.second is not None else True


def chain(first: _Future, step: Callable[[Any], _Future]) -> _Future:
    """A future of ``step(value)``, where value is what ``first`` gives: an open, say, then a read of what it opened.

    ``result(timeout)`` waits for both within ``timeout``; ``cancel()`` cancels both.
    """
    return _Chained(first, step)


def _wait(start: Callable[[], _Future], wait: float) -> Any:
    future = start()
    try:
        return future.result(timeout=wait)
    except TimeoutError:
        future.cancel()
        raise


def _reason(error: BaseException) -> str:
    """Why an attempt failed, without the list of documents it names (``rounds`` keeps that apart as ``reason``)."""
    return str(getattr(error, "reason", None) or error or type(error).__name__)


def _exhausted(error: BaseException, what: str, attempts: int) -> BaseException:
    if isinstance(error, TimeoutError):
        return TimeoutError(f"{what}: no answer after {attempts} attempts; the last: {error}")
    text = f"{what}: failed after {attempts} attempts: {_reason(error)}"
    return type(error)(text) if _rebuildable(error) else error


def _rebuildable(error: BaseException) -> bool:
    try:
        type(error)("")
    except Exception:
        return False
    return True


def poll(check: Callable[[], T | None], attempts: int = RACE_ATTEMPTS, delay: float = RACE_DELAY) -> T | None:
    """Call ``check`` until it returns something, at most ``attempts`` times, sleeping ``delay * k`` after attempt k;
    None when it never did."""
    for attempt in range(1, attempts + 1):
        found = check()
        if found is not None:
            return found
        time.sleep(delay * attempt)
    return None


def _uniform(high: float) -> float:
    """A random pause in [0, ``high``); ``random`` is imported by the first retry, not by every process."""
    import random

    return random.uniform(0, high)


def settle(step: Callable[[], T | None], what: str, attempts: int = CONFLICT_ATTEMPTS) -> T:
    """Call ``step`` until it returns something (None means another writer got there first), pausing a random
    moment between calls; RuntimeError naming ``what`` after ``attempts`` calls."""
    for attempt in range(1, attempts + 1):
        settled = step()
        if settled is not None:
            return settled
        time.sleep(_uniform(CONFLICT_DELAY * attempt))
    raise RuntimeError(f"{what}: other writers changed it first {attempts} times in a row; nothing of ours was "
                       "written")


_GOVERNING: contextvars.ContextVar[Retry | None] = contextvars.ContextVar("worldarray_retries", default=None)


_DEFAULT = Retry()  # frozen: one default serves every block that names none


def governing(policy: Retry | None) -> Holding[Retry]:
    """Within the block, metadata documents are read and written, and stores opened, under ``policy``
    (``Retry()`` when None): attempt k waits ``policy.attempt_timeout(0) * k``, for at most ``max_attempts``."""
    return Holding(_GOVERNING, policy if policy is not None else _DEFAULT)


def current() -> Retry:
    """The policy ``governing`` set for the calling context, else ``Retry()``."""
    return _GOVERNING.get() or _DEFAULT
