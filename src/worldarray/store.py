"""A path is reached through tensorstore's kvstore, by the first way its store does not refuse.

This module owns how to reach a path (``ways``, and ``with_fallback``, the rule that moves from one way to the
next), opened kvstores, and the JSON documents of a directory: read in one round of requests
(``read_documents``), written whole (``write_documents``) and listed (``list_keys``); ``conditional`` updates
them on the generation read. A local path, ``file://``,
``memory://`` and ``http(s)://`` have one way; ``s3://`` is tried anonymously, then with the default credential
chain; ``gs://`` with default credentials, then through the bucket's public https URL. The next way is tried
when the store refuses (an error starting PERMISSION_DENIED or UNAUTHENTICATED), a read or a write alike, and
when every document looked for is missing under the anonymous S3 way while credentials are configured (some
endpoints answer 404 to anonymous requests); the way that worked is remembered per (driver, bucket) for the
process. Every request but a listing is timed out and retried under the policy ``retry.governing`` set for the
call. The path helpers of ``paths`` are public here too.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import threading
from collections.abc import Callable, Collection, Mapping, MutableMapping, Sequence
from typing import Any, TypeVar

import tensorstore as ts

from . import connections, machine, retry, rounds
from .context import few_connections, one_request, shared_context, watch
from .diagnostics import logger
from .machine import aws_credentials_configured
from .machine import on_google_cloud as on_google_cloud  # the package's own modules reach it through store
from .local_files import from_disk, read_again
from .rounds import is_refusal
from .paths import REMOTE_SCHEMES, basename, is_remote, join, normalize, parent, scheme, split, url
from .paths import is_root as is_root  # the package's own modules reach it through store

#: What the package promises of this module: the URL-aware path helpers and the GCE guard's switch; everything
#: else here is the package's own and may change.
__all__ = ["GUARD_GCE_METADATA", "basename", "join", "parent"]

T = TypeVar("T")

#: False leaves GCE_METADATA_ROOT alone everywhere (see ``guard_gce_metadata``).
GUARD_GCE_METADATA = True

_DRIVERS = {"file": "file", "memory": "memory", "http": "http", "https": "http", "s3": "s3", "gs": "gcs"}
_GCS_PUBLIC_URL = "https://storage.googleapis.com"
# tensorstore asks for a document once (``context.one_request``): its retries are read_documents' alone
# (retry.ERROR_PAUSES after an error answer, the governing policy's attempts after no answer), so the two budgets
# are spent in one place.
_RETRY_RESOURCES = {"s3": "s3_request_retries", "gcs": "gcs_request_retries", "http": "http_request_retries"}
_lock = threading.Lock()
_remembered: dict[tuple[str, str], str] = {}
# Values keep their context alive, so a context's id is not reused while its entry lives.
_kvstores: dict[tuple[str, str | None, int], tuple[ts.Context, ts.KvStore]] = {}
_gcs_contexts: dict[tuple[int, str | None], tuple[ts.Context, ts.Context]] = {}

_Request = tuple[str, str]


# -- how to reach it --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Way:
    """One way of reaching a store: a name and the tensorstore kvstore spec of the path as a directory.

    ``confirm_missing``: keys that all look missing under this way are looked for under the next way before they
    count as missing (the anonymous S3 way while credentials are configured, since some S3 endpoints answer 404 to
    an anonymous request for a key of a private bucket).

    >>> Way("file", {"driver": "file", "path": "/tmp/a/"}).name
    'file'
    """

    name: str
    spec: dict = dataclasses.field(hash=False)
    confirm_missing: bool = False


def _store_key(path: str) -> tuple[str, str]:
    """The (driver, bucket) under which the way that worked is remembered."""
    name = scheme(path)
    return _DRIVERS[name], split(path)[0] if name in REMOTE_SCHEMES else ""


def _first_set(environ: Mapping[str, str], *names: str) -> str | None:
    return next((environ[name] for name in names if environ.get(name)), None)


def _s3_ways(bucket: str, prefix: str) -> list[Way]:
    # tensorstore reads neither variable, so they go into the spec here, as the AWS tools read them.
    base: dict[str, Any] = {"driver": "s3", "bucket": bucket, "path": prefix}
    endpoint = _first_set(os.environ, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
    region = _first_set(os.environ, "AWS_REGION", "AWS_DEFAULT_REGION")
    if endpoint:
        base["endpoint"] = endpoint
    if region:
        base["aws_region"] = region
    return [
        Way("anonymous", {**base, "aws_credentials": {"type": "anonymous"}},
            confirm_missing=aws_credentials_configured(os.environ)),
        Way("credentials", {**base, "aws_credentials": {"type": "default"}}),
    ]


def _gs_ways(bucket: str, prefix: str) -> list[Way]:
    guard_gce_metadata()
    public = (os.environ.get("TENSORSTORE_GCS_HTTP_URL") or _GCS_PUBLIC_URL).rstrip("/")
    return [
        Way("credentials", {"driver": "gcs", "bucket": bucket, "path": prefix}),
        Way("public", {"driver": "http", "base_url": public, "path": f"/{bucket}/{prefix}"}),
    ]


def ways(path: str | os.PathLike) -> tuple[Way, ...]:
    """Return the ways of reaching a path as a directory, the way remembered for its store first.

    Parameters
    ----------
    path
        Any path ``normalize`` accepts. AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL) and AWS_REGION (else
        AWS_DEFAULT_REGION) go into the s3 specs; TENSORSTORE_GCS_HTTP_URL replaces the gs public host.

    Returns
    -------
    tuple of Way
        local: "file"; memory: "memory"; http(s): "http"; s3: "anonymous", "credentials"; gs: "credentials",
        "public". Each spec's path ends with "/" (a root's is "" or "/"), so keys are relative to the path. The
        anonymous s3 way confirms missing keys under credentials when they are configured (``Way``).

    Examples
    --------
    >>> ways("memory://a/b")
    (Way(name='memory', spec={'driver': 'memory', 'path': 'a/b/'}, confirm_missing=False),)
    """
    normalized = normalize(path)
    name = scheme(normalized)
    if name not in ("s3", "gs"):
        return _one_way(normalized)
    root, prefix = _below(normalized)
    if name == "s3":
        found = _s3_ways(root[len("s3://") :], prefix)
    else:
        found = _gs_ways(root[len("gs://") :], prefix)
    with _lock:
        first = _remembered.get(_store_key(normalized))
    return tuple(sorted(found, key=lambda way: way.name != first))


@functools.lru_cache(maxsize=4096)
def _one_way(normalized: str) -> tuple[Way, ...]:
    """The one way of reaching a local, memory or http(s) path, which nothing but the path decides."""
    name = scheme(normalized)
    root, prefix = _below(normalized)
    if name == "file":
        return (Way("file", {"driver": "file", "path": "/" + prefix}),)
    if name == "memory":
        return (Way("memory", {"driver": "memory", "path": prefix}),)
    return (Way("http", {"driver": "http", "base_url": root, "path": "/" + prefix}),)


class _Fallback:
    """The ways of one store in trying order: the one rule under ``with_fallback`` and ``read_documents``."""

    def __init__(self, path: str, label: str | None = None, found: tuple[Way, ...] | None = None) -> None:
        self.path = normalize(path)
        self.label = label or self.path
        self.ways = found if found is not None else ways(self.path)
        self.index = 0
        self.tried: list[str] = []
        self.unconfirmed = False  # an earlier way found every key missing, and asked this one to confirm it

    @property
    def way(self) -> Way:
        return self.ways[self.index]

    def refused(self, error: BaseException) -> None:
        """Move to the next way, or raise PermissionError when none is left."""
        self.tried.append(f"{self.way.name} ({error})")
        self.index += 1
        if self.index == len(self.ways):
            raise PermissionError(
                f"{self.label}: refused under every way tried: {'; '.join(self.tried)}; "
                "check the credentials for this store, or that it is public"
            ) from error
        logger.info("%s: %s refused; trying %s", self.label, self.ways[self.index - 1].name, self.way.name)

    def skip(self, way: Way, error: BaseException) -> None:
        """Leave out a way the caller already tried and the store refused (``error``), as ``refused`` would."""
        names = [w.name for w in self.ways]
        if way.name in names:
            position = names.index(way.name)
            self.ways = self.ways[position:position + 1] + self.ways[:position] + self.ways[position + 1:]
            self.index = 0
            self.refused(error)

    def succeeded(self) -> None:
        with _lock:
            _remembered[_store_key(self.path)] = self.way.name

    def settle(self, outcome: Mapping[_Request, Any]) -> dict[_Request, bytes | None] | None:
        """What one round of reads under the current way says (each key's bytes, a refusal, or None): the
        documents, a refused key counted missing; or None when the next way is to be asked.

        Every key refused asks the next way (PermissionError when none is left, unless an earlier way found them
        missing); every key missing under a way that confirms missing keys asks the next way too. A way that
        found something, or settled the keys itself, is remembered.
        """
        found = {request: None if isinstance(value, BaseException) else value for request, value in outcome.items()}
        if any(isinstance(value, rounds.Failed) for value in found.values()):
            return found  # an answer that is no document: raised to whoever asks for it, under this way
        if all(isinstance(value, BaseException) for value in outcome.values()):
            if self.unconfirmed and self.index + 1 == len(self.ways):
                return found  # the earlier way's "missing" stands
            self.refused(next(iter(outcome.values())))
            return None
        anything = any(value is not None for value in found.values())
        if not anything and self.way.confirm_missing and self.index + 1 < len(self.ways):
            self.unconfirmed = True
            self.index += 1
            logger.info("%s: nothing found under %s; confirming under %s", self.label,
                        self.ways[self.index - 1].name, self.way.name)
            return None
        if anything or not self.unconfirmed:
            self.succeeded()
        return found


def with_fallback(path: str | os.PathLike, attempt: Callable[[Way], T], *,
                  refused: tuple[Way, BaseException] | None = None) -> T:
    """Return ``attempt(way)`` for the first way of reaching ``path`` that the store does not refuse.

    A refusal (``is_refusal``) moves to the next way; the way that worked is tried first next time for the
    same (driver, bucket), for the process. ``refused``, a way the caller already tried with the refusal it got,
    is not tried again.

    Raises
    ------
    PermissionError
        When every way is refused, naming the path and each way tried (chained from the last refusal).
    Exception
        Any error ``attempt`` raises that is not a refusal, at once.

    >>> with_fallback("memory://a", lambda way: way.spec["path"])
    'a/'
    """
    found = ways(path)
    if refused is None and len(found) == 1:  # nothing to fall back to, nor to remember
        try:
            return attempt(found[0])
        except Exception as error:
            if not is_refusal(error):
                raise
            refused = (found[0], error)  # raised below as every way refused
    fallback = _Fallback(os.fspath(path), found=found)
    if refused is not None:
        fallback.skip(*refused)
    while True:
        try:
            result = attempt(fallback.way)
        except Exception as error:
            if not is_refusal(error):
                raise
            fallback.refused(error)
            continue
        fallback.succeeded()
        return result


# -- opening a kvstore -------------------------------------------------------------------------------------


def _default_context() -> ts.Context:
    # the package's shared context, so memory:// data written through it is what the documents read
    return shared_context()


def _gcs_context(context: ts.Context, gcs_url: str | None) -> ts.Context:
    # tensorstore shares one gcs driver among opens of one spec in one context and reads
    # TENSORSTORE_GCS_HTTP_URL only when it makes the driver; a resource of a child's own makes a new one.
    with _lock:
        key = (id(context), gcs_url)
        if key not in _gcs_contexts:
            _gcs_contexts[key] = (context, ts.Context({"gcs_request_concurrency": {}}, parent=context))
        return _gcs_contexts[key][1]


def open_kvstore(spec: dict, context: ts.Context | None = None, *, timeout: float | None = None) -> ts.KvStore:
    """Return an opened kvstore (JSON ``spec``), cached per (spec, TENSORSTORE_GCS_HTTP_URL, context).

    ``context=None`` uses one default context of this module, so memory:// stores opened without one are
    shared. Raises TimeoutError when the open takes longer than ``timeout`` seconds (None: no limit).

    >>> open_kvstore({"driver": "memory", "path": "a/"}).path
    'a/'
    """
    context = _default_context() if context is None else watch(context)
    gcs_url = os.environ.get("TENSORSTORE_GCS_HTTP_URL")
    key = (json.dumps(spec, sort_keys=True), gcs_url, id(context))
    with _lock:
        cached = _kvstores.get(key)
    if cached is not None:
        return cached[1]
    opening = context
    if spec.get("driver") == "gcs":
        guard_gce_metadata()
        opening = _gcs_context(context, gcs_url)
    future = ts.KvStore.open(spec, context=opening)
    try:
        kvstore = future.result(timeout=timeout)
    except TimeoutError:
        future.cancel()
        where = spec.get("bucket") or spec.get("base_url") or ""
        raise TimeoutError(f"{spec.get('driver')} store {where}: did not open within {timeout:g} s") from None
    with _lock:
        _kvstores[key] = (context, kvstore)
    return kvstore


# -- documents -------------------------------------------------------------------------------------------


def document_spec(way: Way) -> dict:
    """The spec of ``way`` that documents are read and written under: tensorstore asks once (the package retries).

    >>> document_spec(Way("memory", {"driver": "memory", "path": "a/"}))
    {'driver': 'memory', 'path': 'a/'}
    """
    resource = _RETRY_RESOURCES.get(way.spec["driver"])
    return {**way.spec, "context": {resource: one_request()}} if resource else way.spec


@functools.lru_cache(maxsize=4096)
def _below(directory: str) -> tuple[str, str]:
    """A normalised directory's store root and its keys' prefix under the root's way."""
    root, segments = split(directory)
    return root, "".join(segment + "/" for segment in segments)


def _start_reads(way: Way, requests: Sequence[_Request], context, wait: float) -> dict[_Request, Any]:
    """Issue every read of one store under one way; the caller gathers the futures."""
    kvstore = open_kvstore(document_spec(way), context, timeout=wait)
    return {request: kvstore.read(_below(request[0])[1] + request[1]) for request in requests}


def read_documents(requests: Sequence[tuple[str, str]], *, context: ts.Context | None = None,
                   timeout: float | None = None, attempts: int | None = None) -> dict[tuple[str, str], bytes | None]:
    """Read raw documents in one round of requests, each store under one way at a time.

    Requests of different stores are issued together. Within a way, a refused key counts as missing when
    another key of its store was answered; only when every key of a store is refused is its next way tried
    (``with_fallback``'s rule, the way that worked remembered), and when every key of a store is missing or
    refused under the anonymous S3 way while credentials are configured, the credentials are asked before the
    keys count as missing (``Way.confirm_missing``). Each round of requests is an attempt of the
    governing ``retry`` policy, and the package alone retries (tensorstore asks once), on two budgets: keys with
    no answer are asked again at once, attempt k waiting ``attempt_timeout(0) * k``, up to ``max_attempts``
    (by default 5 s times k over ten attempts, 275 s); keys answered with an error worth asking again
    (``retry.is_transient``) are asked again after ``retry.ERROR_PAUSES`` times ``base_delay`` (by default
    0.2, 0.4, 0.8, 1.6 and 2 s: six requests over five seconds), then the error is raised. Inside a
    ``rounds.remembering`` block a document already read there is not read again (``prefetch``). A plain-http
    server that closes every connection is sent ``connections.FEW`` requests at once.

    Parameters
    ----------
    requests
        (directory, key) pairs, of one store or several; a directory may be a store root.
    context
        The tensorstore context; None uses the default context of ``open_kvstore``.
    timeout, attempts
        Attempt k waits ``timeout * k`` seconds for the answers still missing, up to ``attempts`` attempts; by
        default the governing policy's (5 s and 10 attempts unless the call says otherwise).

    Returns
    -------
    dict
        Each requested pair, as given, to its bytes, or None when the key is missing.

    Raises
    ------
    TimeoutError
        Naming the URLs still unanswered and the number of attempts.
    PermissionError
        When every way of a store is refused.
    OSError
        Any other error (a redirect; a server error once the pauses are spent, with the number of attempts),
        naming the URL of the key.

    Examples
    --------
    >>> read_documents([("memory://nowhere", "zarr.json")])
    {('memory://nowhere', 'zarr.json'): None}
    """
    policy = _policy(timeout, attempts)
    answers = rounds.current()
    if answers is None:
        return _read(list(requests), context, policy)  # type: ignore[return-value]
    return answers.serve(list(requests), lambda missing: _read(missing, context, policy, keep_failures=True))


def prefetch(requests: Sequence[tuple[str, str]], moot: rounds.Moot | None = None,
             stages: Sequence[Collection[tuple[str, str]]] = ()) -> None:
    """Read ``requests`` into the ``rounds.remembering`` block the caller is in, in one round, so that a later
    ``read_documents`` of them is answered from memory; a failure is kept and raised to whoever asks. Outside a
    block this does nothing.

    ``requests`` come most decisive first. In a block that prunes, ``moot(answers)`` names those the answers make
    pointless: they read as missing, and a store sent few requests at once (``connections``) never sends them.
    Where every request is of a local file (and a round costs nothing), they are read in ``stages``, each a part of
    ``requests`` (the rest after the last), what the answers so far make moot left out of each; elsewhere in one
    round.
    """
    answers = rounds.current()
    if answers is None:
        return
    moot = moot if answers.prune else None
    missing = answers.unknown(requests, moot)
    if moot is not None and stages and all(scheme(directory) == "file" for directory in {d for d, _ in missing}):
        for stage in stages:
            wanted = set(stage)
            part = [request for request in missing if request in wanted]
            if part:
                answers.learn(part, _read(part, None, _policy(None, None), keep_failures=True), moot)
                missing = answers.unknown(requests, moot)
    if missing:
        answers.learn(missing, _read(missing, None, _policy(None, None), keep_failures=True, moot=moot), moot)
        answers.unknown(requests, moot)


def at_once(path: str) -> int | None:
    """How many requests the server of ``path`` is sent at once: ``connections.FEW`` for a plain-http server that
    closes every connection (learned when its documents were read), else None (no limit of ours)."""
    root = _below(normalize(path))[0]
    return (connections.learned(root) or None) if root.startswith("http://") else None  # type: ignore[return-value]


def rereader(requests: Sequence[tuple[str, str]]) -> Callable[[float], tuple | None] | None:
    """A function that reads ``requests`` again in one round and gives their answers in order, at least cost: the
    same kvstores (local files read straight from the disk), no fallback, no second attempt; it gives None when
    anything is not a plain answer (an error, no answer within its ``wait`` seconds), for the caller to read them
    the full way. None for stores with more than one way (s3, gs)."""
    local = [(normalize(directory), key) for directory, key in requests]
    if all(scheme(directory) == "file" for directory in {directory for directory, _ in local}):
        return functools.partial(read_again, local)
    pairs = []
    for directory, key in requests:
        normalized = normalize(directory)
        root, prefix = _below(normalized)
        if scheme(normalized) in ("s3", "gs"):
            return None
        limit = at_once(root)
        context = None if limit is None else few_connections(_default_context(), limit)
        pairs.append((open_kvstore(document_spec(_one_way(root)[0]), context), prefix + key))
    return functools.partial(rounds.reread, pairs)


def _policy(timeout: float | None, attempts: int | None) -> retry.Retry:
    policy = retry.current()
    if timeout is not None or attempts is not None:
        policy = dataclasses.replace(policy, timeout=timeout or policy.timeout,
                                     max_attempts=attempts or policy.max_attempts)
    return policy


def _read(requests: list[_Request], context: ts.Context | None, policy: retry.Retry, *, keep_failures: bool = False,
          moot: rounds.Moot | None = None) -> dict[_Request, Any]:
    """``read_documents`` outside any block: with ``keep_failures`` a failed document is ``rounds.Failed`` in the
    result instead of raised, and documents ``moot`` made pointless are left out."""
    if all(directory.__class__ is str and directory.startswith("/") and normalize(directory) == directory
           for directory, _ in requests):
        found = from_disk(requests)  # local files named in their one spelling: read straight from the disk
        if len(found) == len(requests):
            return found
    named = {directory: normalize(directory) for directory in {directory for directory, _ in requests}}
    local = {directory for directory, spelled in named.items() if scheme(spelled) == "file"}
    documents: dict[_Request, Any] = from_disk({(named[d], k) for d, k in requests if d in local})
    groups: dict[str, dict[_Request, None]] = {}
    for directory, key in requests:
        if (named[directory], key) not in documents:
            groups.setdefault(_below(named[directory])[0], {})[(named[directory], key)] = None
    firsts = {root: next(iter(found)) for root, found in groups.items()}
    fallbacks = {root: _Fallback(root, label=url(*first)) for root, first in firsts.items()}
    limits = {root: connections.limit(root, _below(first[0])[1] + first[1], policy.attempt_timeout())
              for root, first in firsts.items() if root.startswith("http://")}

    def start(root: str, pending: list[_Request], wait: float) -> dict[_Request, Any]:
        limit = limits.get(root)
        chosen = context if limit is None else few_connections(context or _default_context(), limit)
        return _start_reads(fallbacks[root].way, pending, chosen, wait)

    pruning = moot if any(limits.values()) else None  # answers waited for as they come only where it saves requests
    while fallbacks:
        round_ = rounds.Round({root: list(groups[root]) for root in fallbacks}, start, pruning, keep_failures)
        what = ", ".join(url(*first) for first in firsts.values())
        try:
            answered = policy.call(round_, policy.attempt_timeout(), what, retry_on=rounds.asked_again,
                                   errors=retry.ERROR_PAUSES)
        except (TimeoutError, rounds.ErrorAnswer) as error:
            if not keep_failures:
                raise
            documents.update({r: rounds.Failed(error) for late in round_.pending.values() for r in late})
            answered = round_.outcomes
        _settle_all(answered, fallbacks, groups, documents, keep_failures)
    return {(directory, key): documents[(named[directory], key)] for directory, key in requests
            if (named[directory], key) in documents}


def _settle_all(answered: Mapping[str, Mapping[_Request, Any]], fallbacks: dict[str, _Fallback],
                groups: Mapping[str, Mapping[_Request, None]], documents: dict[_Request, Any],
                keep_failures: bool) -> None:
    """Each store's answers under its way: its documents, or its next way asked (``_Fallback.settle``)."""
    for root, outcome in answered.items():
        try:
            settled: dict[_Request, Any] | None = fallbacks[root].settle(outcome) if outcome else {}
        except PermissionError as error:
            if not keep_failures:
                raise
            settled = {request: rounds.Failed(error) for request in groups[root]}
        if settled is not None:
            documents.update({r: v for r, v in settled.items() if r not in documents})
            del fallbacks[root]


def on_ways(path: str, start: Callable[[Way], Any], what: str, nbytes: int = 0) -> Any:
    """Wait for the future ``start(way)`` gives, under the governing ``retry`` policy, for the first way of reaching
    ``path`` that the store does not refuse (``with_fallback``).

    ``nbytes`` sizes the wait when the policy has no timeout of its own.
    """
    policy = retry.current()
    timeout = policy.attempt_timeout(nbytes, is_remote(path))
    return with_fallback(path, lambda way: policy.run(lambda: start(way), timeout, what))


def write_documents(directory: str, documents: Mapping[str, Any]) -> None:
    """Write JSON documents into a directory, each whole (a file is written aside and renamed into place), timed out
    and retried under the governing ``retry`` policy."""
    encoded = {key: encoded(doc) for key, doc in documents.items()}
    timeout = retry.current().attempt_timeout()

    for key, data in encoded.items():
        def start(way: Way, key: str = key, data: bytes = data) -> Any:
            return open_kvstore(document_spec(way), timeout=timeout).write(key, data)

        on_ways(directory, start, f"write {url(directory, key)}")


def encoded(document: Any) -> bytes:
    """A JSON document's bytes as the package writes them."""
    return json.dumps(document, indent=2, ensure_ascii=False).encode()


def list_keys(directory: str) -> list[str]:
    """Every key stored under a directory, relative to it (listings are not timed out).

    >>> list_keys("memory://nowhere")
    []
    """
    return [key.decode() for key in list_key_bytes(directory)]


def list_key_bytes(directory: str) -> list[bytes]:
    """``list_keys`` as the kvstore lists them, undecoded, for parsing a whole listing at once."""
    return with_fallback(normalize(directory), lambda way: list(open_kvstore(way.spec).list().result()))


def child_names(directory: str) -> list[str]:
    """The names directly below a directory, sorted: a local directory's subdirectories, else the first component
    of every key stored under it (a listing; an http server, which lists nothing, raises).

    >>> child_names("memory://nowhere")
    []
    """
    directory = normalize(directory)
    if scheme(directory) == "file":
        if not os.path.isdir(directory):
            return []
        with os.scandir(directory) as found:
            return sorted(entry.name for entry in found if entry.is_dir())
    return sorted({key.split("/")[0] for key in list_keys(directory) if "/" in key})


def guard_gce_metadata(environ: MutableMapping[str, str] | None = None, *,
                       product_name_file: str = machine.DMI_PRODUCT_NAME) -> None:
    """Off Google Cloud, point GCE_METADATA_ROOT at a name that fails at once (``machine.point_gce_metadata_away``);
    called before gs:// opens. ``store.GUARD_GCE_METADATA = False`` turns the guard off.

    >>> environ = {}
    >>> guard_gce_metadata(environ, product_name_file="/nonexistent")
    >>> environ
    {'GCE_METADATA_ROOT': 'metadata.invalid'}
    """
    if GUARD_GCE_METADATA:
        machine.point_gce_metadata_away(environ, product_name_file=product_name_file)

