"""A round of document requests is issued whole before any answer is awaited, and no document is asked for twice in
one ``remembering`` block.

``Round`` is one attempt of ``store.read_documents``: every request of every store issued, then gathered; what is
late, or answered with an error worth asking again, is left for the next attempt. Within ``remembering`` every
answer is kept for the rest of the block (an error too, as ``Failed``, raised to whoever asks again), the block
knows which documents were asked for (``Answers.used``), and ``prefetch`` may ask for documents before anyone needs
them, so that what an open needs leaves in one round.
"""

from __future__ import annotations

import contextvars
import queue
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .diagnostics import Holding
from .paths import url
from .retry import is_transient

__all__ = ["Request", "Failed", "MOOT", "Answers", "Round", "ErrorAnswer", "remembering", "current", "is_refusal",
           "asked_again", "reread"]

Request = tuple[str, str]
#: Requests made pointless by the answers so far: ``moot(answers)`` names requests not worth waiting for.
Moot = Callable[[Mapping[Request, Any]], Iterable[Request]]
_REFUSALS = ("PERMISSION_DENIED", "UNAUTHENTICATED")


def is_refusal(error: BaseException) -> bool:
    """Return True when the store refused this way of asking (PERMISSION_DENIED or UNAUTHENTICATED).

    >>> is_refusal(ValueError("PERMISSION_DENIED: Forbidden [HTTP code 403]"))
    True
    """
    return str(error).startswith(_REFUSALS)


@dataclass(frozen=True)
class Failed:
    """A document whose reading failed: the error is raised to whoever asks for it, and it is not asked again."""

    error: BaseException


#: What ``Answers`` knows of a document the other answers made pointless: served as missing, never counted as used.
MOOT = object()


class ErrorAnswer(OSError):
    """Documents answered with an error worth asking again (``retry.is_transient``: a 5xx, a 429, a dropped
    connection), naming their URLs."""


def _because(kind: type[OSError], names: str, reason: str) -> OSError:
    """``kind`` naming the documents and why; ``reason`` alone is kept too, for a log line that names them once."""
    error = kind(f"{names}: {reason}")
    error.reason = reason  # type: ignore[attr-defined]
    return error


def asked_again(error: BaseException) -> bool:
    """Whether read_documents asks again after ``error``: no answer, or an error answer worth asking again."""
    return isinstance(error, (TimeoutError, ErrorAnswer))


def _gather(request: Request, future: Any, deadline: float) -> bytes | None | BaseException:
    """The document, None when missing, or the error when it is a refusal or an error answer worth asking again;
    TimeoutError when late; any other error as ``Failed``, naming the URL."""
    try:
        result = future.result(timeout=max(deadline - time.monotonic(), 0.0))
    except TimeoutError:
        future.cancel()
        raise
    except Exception as error:
        if is_refusal(error) or is_transient(error):
            return error
        failure = OSError(f"{url(*request)}: {error}")
        failure.__cause__ = error
        return Failed(failure)  # type: ignore[return-value]
    return bytes(result.value) if result.state == "value" else None


class Round:
    """Every request of every store, read under each store's current way; what is late or answered with an error
    worth asking again is asked again by the next round.

    ``start(root, requests, wait)`` issues one store's reads and returns their futures. An answer that is no document
    (a redirect, a server's own page) is raised at once, or with ``keep_failures`` kept as ``Failed``. With
    ``moot``, answers are taken as they arrive and requests they make pointless are cancelled (a store sent few
    requests at once never sends those still queued); the requests cancelled are in ``mooted``.
    """

    def __init__(self, pending: dict[str, list[Request]], start: Callable[[str, list[Request], float], dict],
                 moot: Moot | None = None, keep_failures: bool = False) -> None:
        self.start, self.moot, self.keep_failures = start, moot, keep_failures
        self.outcomes: dict[str, dict[Request, Any]] = {root: {} for root in pending}
        self.pending = {root: list(requests) for root, requests in pending.items()}
        self.mooted: set[Request] = set()

    def __call__(self, wait: float) -> dict[str, dict[Request, Any]]:
        late: dict[str, list[Request]] = {}
        futures = self._start(wait, late)
        deadline = time.monotonic() + wait
        answered = self._as_answered(futures, deadline) if self.moot else self._in_order(futures, deadline)
        if not self.keep_failures:  # a document that is no document (a redirect) ends the read at once
            first = next((o for o in answered.values() if isinstance(o, Failed)), None)
            if first is not None:
                raise first.error
        failed: dict[Request, BaseException] = {}
        for (root, request), outcome in answered.items():
            if isinstance(outcome, TimeoutError):
                late.setdefault(root, []).append(request)
            elif isinstance(outcome, BaseException) and not is_refusal(outcome):
                late.setdefault(root, []).append(request)
                failed[request] = outcome
            else:
                self.outcomes[root][request] = outcome
        self.pending = late
        names = ", ".join(url(*request) for requests in late.values() for request in requests)
        if failed and len(failed) == sum(map(len, late.values())):  # all answered, some with errors
            raise _because(ErrorAnswer, names, str(next(iter(failed.values()))))
        if late:
            raise _because(TimeoutError, names, f"no answer within {wait:g} s")
        return self.outcomes

    @staticmethod
    def _in_order(futures: dict, deadline: float) -> dict:
        answered = {}
        for (root, request), future in futures.items():
            try:
                answered[root, request] = _gather(request, future, deadline)
            except TimeoutError as error:
                answered[root, request] = error
        return answered

    def _as_answered(self, futures: dict, deadline: float) -> dict:
        """Answers in the order they arrive; each may make requests still pending moot, which are cancelled."""
        arrived: queue.SimpleQueue = queue.SimpleQueue()
        for name, future in futures.items():
            future.add_done_callback(lambda _, name=name: arrived.put(name))
        answered: dict = {}
        found: dict[Request, Any] = {}
        waiting = dict(futures)
        while waiting:
            try:
                name = arrived.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                break
            if waiting.pop(name, None) is None:
                continue
            answered[name] = found[name[1]] = _gather(name[1], futures[name], deadline)
            pointless = set(self.moot(found)) if self.moot else set()
            for key in [key for key in waiting if key[1] in pointless]:
                waiting.pop(key).cancel()
                self.mooted.add(key[1])
        for name, future in waiting.items():
            future.cancel()
            answered[name] = TimeoutError()
        return answered

    def _start(self, wait: float, late: dict[str, list[Request]]) -> dict[tuple[str, Request], Any]:
        """Issue the pending reads of every store; a store that does not open in time is late whole."""
        futures = {}
        for root, requests in self.pending.items():
            try:
                started = self.start(root, requests, wait)
            except TimeoutError:
                late[root] = list(requests)
                continue
            except Exception as error:
                if not is_refusal(error):
                    raise OSError(f"{url(*requests[0])}: the store did not open: {error}") from error
                self.outcomes[root].update(dict.fromkeys(requests, error))
                continue
            futures.update({(root, request): future for request, future in started.items()})
        return futures


class Answers:
    """The documents one block asked for: what is known (bytes, None when missing, ``Failed``, or ``MOOT``), what was
    used, in the order first asked, and whether any reading failed."""

    def __init__(self, known: Mapping[Request, Any] | None = None, prune: bool = False) -> None:
        self.known: dict[Request, Any] = dict(known or {})
        self.used: dict[Request, bytes | None] = {}
        self.failed = False
        self.prune = prune  # documents made pointless by the others are served as missing (``MOOT``)
        #: documents parsed from these answers, by request, beside the bytes parsed: a block that prunes only reads,
        #: so a document its answers hold is parsed once (``parsed``)
        self.parsed: dict[Request, tuple[bytes, Any]] = {}

    def parsed_once(self, request: Request, raw: bytes, parse: Callable[[bytes], Any]) -> Any:
        """``parse(raw)``, the answer to ``request``; in a block that prunes, parsed once and then handed out again
        for the same bytes (a block that may write re-parses every time: it may change what it was handed)."""
        if not self.prune:
            return parse(raw)
        kept = self.parsed.get(request)
        if kept is None or kept[0] is not raw:
            kept = self.parsed[request] = (raw, parse(raw))
        return kept[1]

    def unknown(self, requests: Iterable[Request], moot: Moot | None = None) -> list[Request]:
        """The requests not known yet; with ``moot``, those the answers known make pointless are first known as
        ``MOOT`` (unless already used)."""
        requests = list(dict.fromkeys(requests))
        known = {request: self.known[request] for request in requests if request in self.known}
        if moot is not None and known:
            pointless = set(moot(known))
            self.known.update(dict.fromkeys([r for r in requests if r in pointless and r not in self.used], MOOT))
        return [request for request in requests if request not in self.known]

    def learn(self, asked: list[Request], found: Mapping[Request, Any], moot: Moot | None = None) -> None:
        """Keep the answers ``found`` to ``asked``; with ``moot``, those it left out were pointless (``MOOT``)."""
        self.known.update(found)
        if moot is not None:
            self.known.update(dict.fromkeys([request for request in asked if request not in found], MOOT))

    def serve(self, requests: list[Request], read: Callable[[list[Request]], Mapping[Request, Any]]) -> dict:
        """The answers to ``requests``, reading (with ``read``) only those not known; raises the first failure."""
        missing = [request for request in dict.fromkeys(requests) if request not in self.known]
        if missing:
            self.known.update(read(missing))
        served = {}
        for request in requests:
            value = self.known[request]
            if isinstance(value, Failed):
                self.failed = True
                raise value.error
            served[request] = None if value is MOOT else self.used.setdefault(request, value)
        return served


_CURRENT: contextvars.ContextVar[Answers | None] = contextvars.ContextVar("worldarray_answers", default=None)


def current() -> Answers | None:
    """The answers of the ``remembering`` block the caller is in, None outside any."""
    return _CURRENT.get()


def remembering(known: Mapping[Request, Any] | None = None, *, own: bool = False,
                prune: bool = False) -> Holding[Answers]:
    """Within the block no document is read twice: each answer is kept until the block ends.

    Inside another block the outer block's answers are used, unless ``own``: then the block keeps its own list of
    what it used, starting from what the outer block knows. ``known`` adds answers already read elsewhere. With
    ``prune``, documents that the answers to others make pointless are not asked for, and read as missing (only
    for reading: a writer wants every document as it is).
    """
    outer = _CURRENT.get()
    if outer is not None and not own and known is None:
        return Holding(_CURRENT, outer)
    return Holding(_CURRENT, Answers({**(outer.known if outer is not None else {}), **(known or {})}, prune))


def reread(pairs: list[tuple[Any, str]], wait: float) -> tuple | None:
    """The (kvstore, key) pairs read again in one round, their answers in order (None where missing), or None when
    any is not a plain answer within ``wait`` seconds, for the caller to read them the full way."""
    futures = [kvstore.read(key) for kvstore, key in pairs]
    deadline = time.monotonic() + wait
    found = []
    for future in futures:
        try:
            result = future.result() if future.done() else future.result(timeout=max(deadline - time.monotonic(), 0))
        except Exception:  # read again the full way, which retries and names what went wrong
            for pending in futures:
                pending.cancel()
            return None
        found.append(bytes(result.value) if result.state == "value" else None)
    return tuple(found)
