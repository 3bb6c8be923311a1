"""A path names one directory of one store: a local path, or a file, memory, http(s), s3 or gs URL, in one spelling.

``normalize`` gives that spelling (an absolute posix path for local files; a URL without trailing slash or empty,
``.`` and ``..`` segments); ``join``, ``parent``, ``basename`` and ``is_root`` walk it without touching the store.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import TypeAlias

__all__ = ["REMOTE_SCHEMES", "PathLike", "basename", "is_remote", "is_root", "join", "normalize", "parent",
           "plain_name", "plain_target", "scheme", "split", "url"]

#: A path: a local path (str or os.PathLike), or a file, memory, http(s), s3 or gs URL.
PathLike: TypeAlias = "str | os.PathLike[str]"

_SCHEMES = ("file", "memory", "http", "https", "s3", "gs")
#: The schemes whose stores are reached over a network.
REMOTE_SCHEMES = frozenset({"http", "https", "s3", "gs"})
_SCHEME_PATTERN = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.DOTALL)
_PRECOMPUTED = "precomputed://"


def normalize(path: str | os.PathLike) -> str:
    """Return the one spelling of a path that the rest of the package uses.

    A local path (no scheme, or ``file://``; relative, ``~`` or absolute) becomes an absolute posix path with
    no trailing slash; a memory, http, https, s3 or gs URL keeps its scheme and loses its trailing slash and
    any empty, ``.`` or ``..`` segment; a leading ``precomputed://`` is dropped. Raises ValueError for an
    unknown scheme, or an s3, gs or http(s) URL with no bucket or host.

    >>> normalize("precomputed://s3://bucket/a//b/")
    's3://bucket/a/b'
    """
    if path.__class__ is str and path in _SPELLED:  # a path already in its one spelling (the usual argument)
        return path  # type: ignore[return-value]
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"{text!r}: a path is a str or an os.PathLike of str")
    # a relative local path depends on the working directory, so that is part of the cache key
    relative = not (text.startswith("/") or "://" in text)
    spelled = _normalized(text, os.getcwd() if relative else None)
    if len(_SPELLED) < _SPELLED_MAX:
        _SPELLED.add(spelled)  # a spelling is its own spelling, whatever the working directory
    return spelled


# Spellings ``normalize`` gave: each spells itself (absolute, or a URL), so it is handed back as it is.
_SPELLED: set[str] = set()
_SPELLED_MAX = 1 << 16


@functools.lru_cache(maxsize=4096)
def _normalized(text: str, cwd: str | None) -> str:
    while text[: len(_PRECOMPUTED)].lower() == _PRECOMPUTED:
        text = text[len(_PRECOMPUTED) :]
    match = _SCHEME_PATTERN.match(text)
    if match is None:
        return _local(text)
    name, rest = match.group(1).lower(), match.group(2)
    if name == "file":
        return _local(rest[len("localhost") :] if rest.startswith("localhost/") else rest or "/")
    if name not in _SCHEMES:
        known = ", ".join(f"{known}://" for known in _SCHEMES)
        raise ValueError(f"{text!r}: unknown scheme {name!r}; known schemes are {known} or a path with no scheme")
    if name == "memory":
        return "memory://" + "/".join(_clean_segments(rest.split("/")))
    host, _, key = rest.partition("/")
    if not host:
        raise ValueError(f"{text!r}: no {'bucket' if name in ('s3', 'gs') else 'host'} after {name}://")
    return "/".join([f"{name}://{host}", *_clean_segments(key.split("/"))])


def _local(text: str) -> str:
    absolute = os.path.abspath(os.path.expanduser(text)).replace(os.sep, "/")
    return "/" + absolute.lstrip("/") if absolute.startswith("//") else absolute


def _clean_segments(parts: Sequence[str]) -> list[str]:
    segments: list[str] = []
    for part in parts:
        if part == "..":
            del segments[-1:]
        elif part not in ("", "."):
            segments.append(part)
    return segments


def scheme(path: str | os.PathLike) -> str:
    """Return where a path lives: "file", "memory", "http", "https", "s3" or "gs".

    >>> scheme("/tmp/a"), scheme("gs://bucket/a")
    ('file', 'gs')
    """
    spelled = path if path.__class__ is str and path in _SPELLED else normalize(path)
    if spelled.startswith("/"):  # a local path's one spelling is absolute; a URL's starts with its scheme
        return "file"
    match = _SCHEME_PATTERN.match(spelled)
    return "file" if match is None else match.group(1)


def is_remote(path: str | os.PathLike) -> bool:
    """Return True for a path on s3, gs or an http(s) server.

    >>> is_remote("s3://bucket/a"), is_remote("memory://a")
    (True, False)
    """
    return scheme(path) in REMOTE_SCHEMES


def split(path: str | os.PathLike) -> tuple[str, list[str]]:
    """The store root ("/", "memory://", "s3://bucket", "http://host:port") and the segments below it."""
    root, segments = _split(normalize(path))
    return root, list(segments)


@functools.lru_cache(maxsize=4096)
def _split(normalized: str) -> tuple[str, tuple[str, ...]]:
    name = scheme(normalized)
    if name == "file":
        return "/", tuple(part for part in normalized.split("/") if part)
    if name == "memory":
        rest = normalized[len("memory://") :]
        return "memory://", tuple(rest.split("/")) if rest else ()
    host, _, key = normalized[len(name) + 3 :].partition("/")
    return f"{name}://{host}", tuple(key.split("/")) if key else ()


def _compose(root: str, segments: Sequence[str]) -> str:
    if not segments:
        return root
    return root + ("" if root.endswith("/") else "/") + "/".join(segments)


def join(path: str | os.PathLike, *parts: str) -> str:
    """Return a path below ``path``; every part is relative (a leading "/" is ignored) and may hold "/".

    >>> join("s3://bucket", "a", "b/c")
    's3://bucket/a/b/c'
    """
    root, segments = split(path)
    for part in parts:
        segments.extend(str(part).split("/"))
    return _compose(root, _clean_segments(segments))


def parent(path: str | os.PathLike) -> str | None:
    """Return the directory holding a path, or None for a store root.

    >>> parent("s3://bucket/a"), parent("s3://bucket")
    ('s3://bucket', None)
    """
    return _parent(path if path.__class__ is str and path in _SPELLED else normalize(path))


@functools.lru_cache(maxsize=4096)
def _parent(normalized: str) -> str | None:
    root, segments = _split(normalized)
    return _compose(root, segments[:-1]) if segments else None


def basename(path: str | os.PathLike) -> str:
    """Return the last segment of a path, "" for a store root.

    >>> basename("http://host:8000/a/s0"), basename("gs://bucket")
    ('s0', '')
    """
    return (split(path)[1] or [""])[-1]


def is_root(path: str | os.PathLike) -> bool:
    """Return True for a store root: "/", "memory://", "s3://bucket", "gs://bucket", "http(s)://host[:port]".

    >>> is_root("s3://bucket"), is_root("/tmp")
    (True, False)
    """
    return parent(path) is None


def url(directory: str | os.PathLike, key: str) -> str:
    """Return a printable URL of a key in a directory, for messages.

    >>> url("s3://bucket/a", "zarr.json")
    's3://bucket/a/zarr.json'
    """
    text = directory if directory.__class__ is str and directory in _SPELLED else normalize(directory)
    return text + ("" if text.endswith("/") else "/") + key


def plain_name(label: str, name: object) -> str:
    """A level or array name as given to be written: a relative path of plain components ("s0", "seg/s1").

    ValueError naming ``label`` and the value for anything else: no string, empty, absolute, or holding an empty,
    ``.`` or ``..`` component, which would write somewhere other than below the group.

    >>> plain_name("name", "seg/s1")
    'seg/s1'
    """
    if not isinstance(name, str):
        raise ValueError(f"{label} is {name!r}; expected a level name such as 's1' (a string)")
    parts = name.split("/")
    if not name or name.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{label} is {name!r}; expected a relative path of plain components below the group, such "
                         "as 's1' or 'seg/s1' (no empty, '.' or '..' component, no leading '/')")
    return name


def plain_target(label: str, path: str | os.PathLike) -> str:
    """A path to create at, in its one spelling: not empty, and no ``.`` or ``..`` component in what was given
    (``vol.zarr/../s0`` names another place than it seems to); ValueError naming ``label`` and the value else."""
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{label} is {path!r}; expected the level's path, such as 'volume.zarr/s0'")
    rest = _SCHEME_PATTERN.match(text)
    segments = (rest.group(2) if rest else text).split("/")
    if any(segment in (".", "..") for segment in segments):
        raise ValueError(f"{label} is {text!r}; expected a path without '.' or '..' components, such as "
                         "'volume.zarr/s0'")
    return normalize(text)
