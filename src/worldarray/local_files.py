"""A local document is read straight from the file system, answered as tensorstore's file kvstore answers it: a
missing file, a directory or a path through a file is missing; a key that kvstore refuses and any other error are
left for the kvstore to read and name."""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["from_disk", "read_again", "file_bytes"]

Request = tuple[str, str]


def from_disk(requests: Iterable[Request]) -> dict[Request, bytes | None]:
    """Each request's bytes (None when missing); a key with an empty, ``.`` or ``..`` segment, which the kvstore
    refuses, and a request that fails otherwise are left out."""
    found: dict[Request, bytes | None] = {}
    for directory, key in requests:
        spelled = f"/{key}/"
        if "//" in spelled or "/./" in spelled or "/../" in spelled:
            continue
        try:
            found[(directory, key)] = file_bytes(directory.rstrip("/") + "/" + key)
        except OSError:
            continue
    return found


def read_again(requests: list[Request], wait: float) -> tuple | None:
    """The documents of a kept local open read again, in order; None when any is not a plain answer (``wait``, the
    seconds a store's reread may take, is the rereader's signature: a disk read is not timed)."""
    found = from_disk(requests)
    return tuple(found[request] for request in requests) if all(r in found for r in requests) else None


def file_bytes(name: str) -> bytes | None:
    """A file's bytes, None when there is no file of that name (missing, a directory, or a path through a file)."""
    if not os.access(name, os.F_OK):  # most documents probed for are missing: asked without raising
        return None
    try:
        handle = os.open(name, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        parts = []
        while part := os.read(handle, 1 << 20):
            parts.append(part)
        return b"".join(parts)
    except IsADirectoryError:
        return None
    finally:
        os.close(handle)
