"""Local servers for tests: each starts on 127.0.0.1 on a free port and is stopped when its test ends.

Import the fixtures into a test module (``from servers import http_server, s3_server``); the helpers
(``serve_directory``, ``serve_bytes``, ``s3_client``) start servers a test needs more than one of.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import http.server
import pathlib
import socket
import threading
from collections.abc import Iterator

import pytest

__all__ = [
    "Served",
    "http_server",
    "s3_client",
    "s3_server",
    "serve_bytes",
    "serve_directory",
    "silent_server",
]


@dataclasses.dataclass(frozen=True)
class Served:
    """A running http server: its base URL and the directory it serves (None when it serves fixed bytes)."""

    url: str
    root: pathlib.Path | None = None


class _QuietDirectoryHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def _running(handler) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def serve_directory(root: pathlib.Path) -> Iterator[Served]:
    """Serve the files under ``root`` over http (a missing file answers 404)."""
    with _running(functools.partial(_QuietDirectoryHandler, directory=str(root))) as base:
        yield Served(base, pathlib.Path(root))


@contextlib.contextmanager
def serve_bytes(body: bytes) -> Iterator[Served]:
    """Serve ``body`` with status 200 for every GET, whatever the path and query."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the base class's name
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):  # noqa: A002
            pass

    with _running(Handler) as base:
        yield Served(base)


@pytest.fixture
def http_server(tmp_path_factory) -> Iterator[Served]:
    """An http server over a fresh temporary directory (``Served.root``)."""
    with serve_directory(tmp_path_factory.mktemp("served")) as served:
        yield served


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A base URL whose server accepts connections and never answers, for timeout tests."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


@pytest.fixture(scope="module")
def s3_server() -> Iterator[str]:
    """The endpoint URL of a moto S3 server; create buckets with ``s3_client(endpoint)``."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def s3_client(endpoint: str):
    """A boto3 S3 client for the moto server at ``endpoint``, with moto's dummy credentials."""
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
