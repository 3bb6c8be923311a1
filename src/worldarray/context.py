"""Every open without a context shares one tensorstore context per cache budget, so a pyramid's levels share a pool."""

from __future__ import annotations

import threading

import tensorstore as ts

__all__ = ["shared_context", "capped_context", "capped_context_spec", "retry_context"]

_SHARED: dict[int, ts.Context] = {}
_LOCK = threading.Lock()
_CONCURRENCY = (
    "data_copy_concurrency",
    "file_io_concurrency",
    "gcs_request_concurrency",
    "s3_request_concurrency",
    "http_request_concurrency",
)
_NETWORK = frozenset({"gcs_request_concurrency", "s3_request_concurrency", "http_request_concurrency"})
# A retry's own requests: tensorstore asks again after an error answer for about five seconds (0.2 + 0.4 + 0.8 +
# 1.6 + 2 s), so an attempt the package gives up on stops asking soon after.
_RETRY_REQUESTS = {"max_retries": 5, "initial_delay": "0.2s", "max_delay": "2s"}
_REQUEST_RETRIES = ("http_request_retries", "s3_request_retries", "gcs_request_retries")


def _budget(cache_bytes) -> int:
    if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
        raise ValueError(f"cache_bytes is {cache_bytes!r}; expected a whole number of bytes >= 0")
    return cache_bytes


def shared_context(cache_bytes: int = 0) -> ts.Context:
    """Return the process's one context for this cache budget (0: tensorstore's cache off).

    >>> shared_context() is shared_context(0)
    True
    """
    budget = _budget(cache_bytes)
    with _LOCK:
        if budget not in _SHARED:
            _SHARED[budget] = ts.Context({"cache_pool": {"total_bytes_limit": budget}})
        return _SHARED[budget]


def capped_context_spec(cache_bytes: int = 0, concurrency: int = 1, network: bool = True) -> dict:
    """Return the context spec that limits every tensorstore concurrency resource to ``concurrency``.

    ``network=False`` limits decoding and local file I/O only, leaving the request pools alone.
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency is {concurrency!r}; expected a whole number >= 1")
    spec = {"cache_pool": {"total_bytes_limit": _budget(cache_bytes)}}
    for name in _CONCURRENCY:
        if network or name not in _NETWORK:
            spec[name] = {"limit": concurrency}
    return spec


def capped_context(cache_bytes: int = 0, concurrency: int = 1, network: bool = True) -> ts.Context:
    """Return a new context with every concurrency resource capped; a new one each call."""
    return ts.Context(capped_context_spec(cache_bytes, concurrency, network))


def retry_context(parent: ts.Context) -> ts.Context:
    """Return a child of ``parent`` with a cache of its own, for one retry: its reads send new requests.

    tensorstore joins a read of a chunk that is still being fetched, through the cache of the context it was opened
    in, so a retry in the same context waits on the request that hung. The child shares every concurrency limit of
    ``parent`` (requests, file I/O, decoding: a capped context stays capped); only the cache and the request
    retries are its own, the latter about five seconds long.

    >>> retry_context(shared_context()) is retry_context(shared_context())
    False
    """
    spec: dict = {"cache_pool": {}}
    spec.update({name: dict(_RETRY_REQUESTS) for name in _REQUEST_RETRIES})
    return ts.Context(spec, parent=parent)
