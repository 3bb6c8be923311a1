"""A data read is retried on transient errors only, attempt k waiting timeout * k seconds for its answer."""

from __future__ import annotations

import logging
import random
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Retry", "is_transient"]

logger = logging.getLogger("worldarray")

_TRANSIENT_CODES = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED")
# an HTTP status named as one: "HTTP 503", "HTTP status 429", "HTTP response code: 502", "status code 500"
_HTTP_STATUS = re.compile(r"\b(?:HTTP|status)\b[^0-9\[\]]{0,24}?\b(5\d\d|429)\b", re.IGNORECASE)
_SOURCE_LOCATIONS = " [source locations="  # tensorstore's appendix, whose line numbers are no status codes
_MIB = float(1 << 20)


def is_transient(error: BaseException) -> bool:
    """A timeout, or a tensorstore error starting UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED or carrying HTTP 5xx or 429."""
    if isinstance(error, TimeoutError):
        return True
    message = str(error).split(_SOURCE_LOCATIONS, 1)[0]
    if message.startswith(_TRANSIENT_CODES):
        return True
    return bool(_HTTP_STATUS.search(message))


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


@dataclass(frozen=True)
class Retry:
    """How a data read is retried: at most ``max_attempts``, attempt k waiting ``timeout * k`` seconds.

    With ``timeout=None`` the per-attempt timeout follows the read's size: clamp(MiB / 16, 5, 120)
    seconds for a remote store and clamp(MiB / 256, 5, 30) for a local one. Between attempts the
    sleep is ``base_delay * 1.3 ** (k - 1)`` plus a uniform 0 to 1 seconds.

    >>> Retry(timeout=2.0).attempt_timeout(0, remote=True)
    2.0
    """

    max_attempts: int = 10
    timeout: float | None = None
    base_delay: float = 1.0

    def __post_init__(self):
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError(f"Retry max_attempts is {self.max_attempts!r}; expected a whole number >= 1")
        if self.timeout is not None and not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise ValueError(f"Retry timeout is {self.timeout!r}; expected seconds > 0 or None")
        if not (isinstance(self.base_delay, (int, float)) and self.base_delay >= 0):
            raise ValueError(f"Retry base_delay is {self.base_delay!r}; expected seconds >= 0")

    def attempt_timeout(self, nbytes: int, remote: bool) -> float:
        """The seconds attempt 1 waits for a read of ``nbytes`` (attempt k waits k times as long)."""
        if self.timeout is not None:
            return float(self.timeout)
        mib = nbytes / _MIB
        return _clamp(mib / 16, 5, 120) if remote else _clamp(mib / 256, 5, 30)

    def document_timing(self) -> tuple[float, int]:
        """How metadata documents are waited for under this policy: (attempt 1's seconds, attempts), an operation of no bytes."""
        return (float(self.timeout) if self.timeout is not None else 5.0, self.max_attempts)

    def sleep_before(self, attempt: int) -> float:
        """The seconds slept before attempt ``attempt`` (from 2)."""
        return self.base_delay * 1.3 ** (attempt - 2) + random.uniform(0, 1)

    def run(self, start: Callable[[], Any], timeout: float, what: str = "read") -> Any:
        """Call ``start()`` for a future and wait for it, retrying transient errors; a late future is cancelled.

        ``timeout`` is attempt 1's wait (see ``attempt_timeout``).
        """
        future = start()
        try:
            return future.result(timeout=timeout)
        except Exception as error:
            return self.recover(error, future, start, timeout, what)

    def recover(self, error: Exception, future, start: Callable[[], Any], timeout: float, what: str = "read") -> Any:
        """Go on after attempt 1 failed with ``error``: cancel it if late, raise it unless transient, else retry."""
        attempt = 1
        while True:
            if isinstance(error, TimeoutError):
                future.cancel()
            if not is_transient(error):
                raise error
            if attempt >= self.max_attempts:
                raise _exhausted(error, what, attempt) from error
            logger.warning("%s: attempt %d of %d failed (%s); retrying", what, attempt, self.max_attempts, str(error) or type(error).__name__)
            attempt += 1
            time.sleep(self.sleep_before(attempt))
            future = start()
            try:
                return future.result(timeout=timeout * attempt)
            except Exception as failure:
                error = failure


def _exhausted(error: BaseException, what: str, attempts: int) -> BaseException:
    text = f"{what}: failed after {attempts} attempts: {error}"
    return TimeoutError(text) if isinstance(error, TimeoutError) else type(error)(text) if _rebuildable(error) else error


def _rebuildable(error: BaseException) -> bool:
    try:
        type(error)("")
    except Exception:
        return False
    return True
