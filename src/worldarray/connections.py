"""A plain-http server that closes every connection after one answer is sent at most ``FEW`` requests at once.

``python -m http.server`` speaks HTTP/1.0: every request is a new connection, and its listen backlog is 5, so a
dozen requests sent at once overflow it and the connections dropped wait a second for TCP to try again. Whether a
server keeps connections open is learned once per host and process, by one HEAD request, before the first request
of its documents; a server that keeps them (HTTP/1.1 keep-alive) is sent every request at once. https, s3 and gs
stores and hosts reached through a proxy are not asked: their servers take many connections.
"""

from __future__ import annotations

import threading

from .diagnostics import logger

# urllib and http.client (with the email, tempfile and shutil modules they pull in) are imported by the two functions
# that ask a plain-http server, not with the package: an open of a local store or a cloud store never needs them, and
# they cost a tenth of the package's import.

__all__ = ["FEW", "limit", "learned", "forget"]

#: Requests sent at once to a server that closes every connection: as many connections as ``python -m http.server``'s
#: listen backlog of 5 holds waiting, so none of ours is dropped (Linux holds one more, for a viewer connecting too).
FEW = 5

_lock = threading.Lock()
_limits: dict[str, int | None] = {}


def learned(root: str) -> int | None | bool:
    """The limit learned for the store root ``root`` ("http://host:port"), or False when none is learned yet."""
    with _lock:
        return _limits.get(root, False)


def limit(root: str, path: str, timeout: float) -> int | None:
    """The requests sent at once to the store root ``root``: None (no limit) or ``FEW``.

    The first call for a plain ``http://`` root asks the server for ``path`` (a key below the root) with one HEAD
    request, waiting up to ``timeout`` seconds: an answer in HTTP/1.1 that keeps the connection means no limit, an
    HTTP/1.0 answer or one that closes the connection means ``FEW``, and later calls answer at once; no answer at
    all means ``FEW`` this time, and the server is asked again next time.
    """
    if not root.startswith("http://"):
        return None
    found = learned(root)
    if found is not False:
        return found  # type: ignore[return-value]
    if _proxied(root):
        chosen: int | None | bool = None
    else:
        chosen = _asked(root, path, timeout)
        if chosen is False:  # no answer: few requests this time, and the server is asked again next time
            return FEW
    with _lock:
        return _limits.setdefault(root, chosen)  # type: ignore[return-value]


def forget(root: str | None = None) -> None:
    """Forget the limit learned for ``root``, or every one (a server stopped, another started on its port)."""
    with _lock:
        if root is None:
            _limits.clear()
        else:
            _limits.pop(root, None)


def _proxied(root: str) -> bool:
    """Whether requests to ``root`` go through a proxy named in the environment (curl reads the same variables)."""
    import urllib.parse
    import urllib.request

    host = urllib.parse.urlsplit(root).hostname or ""
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # public, yet not in typeshed
    return "http" in urllib.request.getproxies_environment() and not bypass(host)


def _asked(root: str, path: str, timeout: float) -> int | None | bool:
    """One HEAD request for ``path``: None when the answer keeps the connection open, ``FEW`` when it does not,
    False when there is no answer."""
    import http.client
    import urllib.parse

    where = urllib.parse.urlsplit(root)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=timeout)
    try:
        connection.request("HEAD", "/" + urllib.parse.quote(path.lstrip("/")))
        answer = connection.getresponse()
        keeps = answer.version >= 11 and not answer.will_close
    except (OSError, http.client.HTTPException) as error:
        logger.info("%s: no answer to a HEAD request (%s); sending it %d requests at once", root, error, FEW)
        return False
    finally:
        connection.close()
    if not keeps:
        logger.info("%s: closes every connection (HTTP/1.%d); sending it %d requests at once", root,
                    answer.version % 10, FEW)
    return None if keeps else FEW
