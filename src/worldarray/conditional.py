"""A document changes only by a write conditional on the generation read; on S3 the condition is asked for, and
each endpoint is checked once for honouring it.

``update_document`` reads a document with its generation (tensorstore's stamp), writes the change only if the
document is still at that generation (``if_equal``), and else reads, changes and writes again, so concurrent
writers of one document lose no one's change. Local disks (tensorstore's lock files), ``memory://`` and ``gs://``
check and write in one step. On ``s3://`` the endpoint checks the condition, which tensorstore's s3 kvstore sends on
the PUT as ``If-Match`` (the ETag read) or ``If-None-Match: *`` (the key must not exist). Since 0.1.74 its spec member
``use_conditional_write`` decides whether it does: true sends the condition on the PUT and nothing before it; unset
leaves tensorstore's own guess, which off AWS hosts is a ``HEAD`` peek and then the PUT with its condition, but a PUT
without one on an endpoint whose request ids look like Ceph's. 0.1.72 and 0.1.73 know no such member and refuse a
spec that holds it ("Object includes extra members"); they always send the condition on the PUT (off AWS hosts
after a ``HEAD`` peek, unless their environment variable ``TENSORSTORE_S3_USE_CONDITIONAL_WRITE`` says otherwise).
So the member is asked for where the installed tensorstore accepts it (``accepted``: one spec parsed, no network).
An endpoint that refuses every conditional PUT then makes ``update_document`` raise ``RuntimeError`` after
``retry.CONFLICT_ATTEMPTS`` tries, having written nothing.

An endpoint may still ignore the condition (answer 200 where it should answer 412), and then two writers of one
document can both succeed, the later one dropping the earlier one's change with no error to anyone. So before the
first conditional write of a document to an (endpoint, bucket) in a process, the document just read is written
again, byte for byte, under "must not exist" (``must_not_exist``, the ``If-None-Match: *`` PUT): an endpoint that
honours conditions refuses it; one that ignores them stores the same bytes again. Either way the document is what it
was, unless another writer changes it in that same moment on an endpoint that ignores conditions, where any write
can drop another's. An endpoint that ignored the condition is warned about once (``record``): a plain
``UserWarning``, not a ``MetadataWarning`` (it is about the store, not the data), and not an error, since one writer
alone still writes correctly there; ``warnings.filterwarnings("error", message=".*ignored a write condition")``
makes it one. Under 0.1.72 and 0.1.73 the check's PUT follows tensorstore's ``HEAD`` peek, so there it finds an
endpoint that ignores conditions on both.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from collections.abc import Callable
from typing import Any

import tensorstore as ts

from . import retry, store
from .context import locking_context, shared_context
from .diagnostics import warn

__all__ = ["MEMBER", "accepted", "asked_for", "checked", "must_not_exist", "record", "update_document"]

#: The s3 kvstore spec member that asks for conditional writes (tensorstore 0.1.74 and later).
MEMBER = "use_conditional_write"
#: Where no endpoint is configured, tensorstore reaches AWS.
AWS = "AWS S3"

_lock = threading.Lock()
_honoured: dict[tuple[str, str], bool] = {}


@functools.cache
def must_not_exist() -> bytes:
    """tensorstore's generation of a missing key, which a write takes as "must not exist" (``If-None-Match: *`` on
    s3); its bytes differ between releases (0.1.72: ``b"\\x05"``, 0.1.86: ``b"\\x02"``), so a missing key of a
    memory store is read for them. ``b""`` would be no condition at all.

    >>> kvstore = ts.KvStore.open({"driver": "memory"}).result()
    >>> _ = kvstore.write("a", b"1").result()
    >>> kvstore.write("a", b"2", if_equal=must_not_exist()).result().generation  # refused: "a" exists
    b''
    """
    memory = ts.KvStore.open({"driver": "memory"}, context=ts.Context()).result()
    return memory.read("absent").result().stamp.generation


@functools.cache
def accepted() -> bool:
    """Whether the installed tensorstore takes ``use_conditional_write`` in an s3 spec (parsed, never opened).

    >>> accepted() in (True, False)
    True
    """
    try:
        ts.KvStore.Spec({"driver": "s3", "bucket": "probe-bucket", MEMBER: True})
    except ValueError:  # "Object includes extra members": a release before the member
        return False
    return True


def asked_for(spec: dict) -> dict:
    """The s3 kvstore ``spec`` with conditional writes asked for, where tensorstore takes the member.

    >>> asked_for({"driver": "s3", "bucket": "b"}).get(MEMBER, True)
    True
    """
    return {**spec, MEMBER: True} if accepted() else spec


def checked(endpoint: str, bucket: str) -> bool:
    """Whether this process has checked that (endpoint, bucket) honours write conditions (``record``)."""
    with _lock:
        return (endpoint, bucket) in _honoured


def record(endpoint: str, bucket: str, generation: bytes) -> bool:
    """Keep what the check's write under ``must_not_exist`` of an existing document gave (its new generation, empty
    when refused) and return whether the endpoint honoured the condition; warn, once per (endpoint, bucket), when
    it did not.

    >>> record("http://store.example", "checked-bucket", b"")
    True
    """
    honoured = not generation
    with _lock:
        first = (endpoint, bucket) not in _honoured
        _honoured.setdefault((endpoint, bucket), honoured)
    if first and not honoured:
        warn(f"s3 endpoint {endpoint}, bucket {bucket}: the store ignored a write condition (a PUT under "
             "If-None-Match: * of a document that exists succeeded), so concurrent writers of one group there can "
             "lose each other's dataset entries with no error; write each group from one process at a time",
             UserWarning)
    return honoured


# -- the conditional update ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Stamped:
    """A JSON document (None when missing) with its bytes and the generation it was read at."""

    value: Any
    generation: bytes
    raw: bytes | None = None


def _spec(way: store.Way) -> dict:
    spec = store.document_spec(way)
    return asked_for(spec) if spec["driver"] == "s3" else spec


def _on_document(directory: str, key: str, call: Callable[[ts.KvStore], Any], what: str) -> Any:
    """``call`` on the document's kvstore under the first way not refused, timed out and retried."""
    timeout = retry.current().attempt_timeout()
    # OS locks make the compare and the write one step on a local disk, under a lock-free default context; the
    # generation a conditional write compares is read under the same context
    context = locking_context(shared_context())
    return store.on_ways(directory, lambda way: call(store.open_kvstore(_spec(way), context, timeout=timeout)),
                         f"{what} {store.url(directory, key)}")


def _read_stamped(directory: str, key: str) -> _Stamped:
    found = _on_document(directory, key, lambda kvstore: kvstore.read(key), "read")
    if found.state != "value":
        return _Stamped(None, found.stamp.generation)
    raw = bytes(found.value)
    try:
        return _Stamped(json.loads(raw), found.stamp.generation, raw)
    except ValueError as error:
        raise ValueError(f"{store.url(directory, key)}: is not JSON ({error}); the package changes no document it "
                         "cannot read") from None


def _write_if(directory: str, key: str, document: Any, generation: bytes) -> bool:
    """Write the document only if it is still at ``generation``; False when another writer changed it first."""
    data = store.encoded(document)
    return bool(_on_document(directory, key, lambda kvstore: kvstore.write(key, data, if_equal=generation),
                             "write").generation)


def _check_endpoint(directory: str, key: str, found: _Stamped) -> None:
    """On s3, once per (endpoint, bucket): the document just read written again under ``must_not_exist``."""
    if found.raw is None or store.scheme(directory) != "s3":
        return
    raw = found.raw
    endpoint = store.ways(directory)[0].spec.get("endpoint") or AWS
    bucket = store.split(store.normalize(directory))[0][len("s3://"):]
    if not checked(endpoint, bucket):
        written = _on_document(directory, key, lambda kvstore: kvstore.write(key, raw, if_equal=must_not_exist()),
                               "check the write conditions with")
        record(endpoint, bucket, written.generation)


def update_document(directory: str, key: str, change: Callable[[Any], Any]) -> Any:
    """Write ``change(document)`` (the document None when missing) in place of the document, only if no other writer
    wrote it since it was read, else read, change and try again; return what was written, or the document as found
    when ``change`` returns it unchanged (then nothing is written).

    ``change`` may raise to write nothing. Each write is conditional on the generation read, so concurrent updates
    of one document lose no one's change; on s3 the endpoint is checked once before (see the module's docstring).

    >>> update_document("memory://doc/update", "a.json", lambda found: {"n": (found or {"n": 0})["n"] + 1})
    {'n': 1}
    """
    def step() -> tuple[Any]:
        found = _read_stamped(directory, key)
        wanted = change(found.value)
        if wanted == found.value:
            return (wanted,)
        _check_endpoint(directory, key, found)
        return (wanted,) if _write_if(directory, key, wanted, found.generation) else None  # type: ignore[return-value]

    return retry.settle(step, f"update {store.url(directory, key)}")[0]
