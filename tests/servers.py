"""Local servers for tests: each starts on 127.0.0.1 on a free port and is stopped when its test ends.

Import the fixtures into a test module (``from servers import http_server, s3_server``); the helpers
(``serve_directory``, ``serve_with_cors``, ``serve_bytes``, ``serve_gateway``, ``s3_client``) start servers a test
needs more than one of, or of another kind. ``serve_gateway`` stands in front of another of them and decides,
request by request, to pass it on, answer an error status, or hold it unanswered, counting what it was asked;
``serve_recorder`` records every request's headers and can strip a write's conditions, as a store that ignores them
would.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import http.client
import http.server
import pathlib
import socket
import struct
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator

import pytest

from worldarray import connections

__all__ = [
    "QuietDirectoryHandler",
    "running",
    "Rounds",
    "serve_rounds",
    "Backlog",
    "serve_like_http_server",
    "listen_queue",
    "HOLD",
    "Asked",
    "Gateway",
    "CONDITIONS",
    "Recorder",
    "Sent",
    "Served",
    "http_server",
    "s3_client",
    "s3_server",
    "serve_bytes",
    "serve_directory",
    "serve_with_cors",
    "serve_gateway",
    "serve_recorder",
    "silent_server",
]


@dataclasses.dataclass(frozen=True)
class Served:
    """A running http server: its base URL and the directory it serves (None when it serves fixed bytes)."""

    url: str
    root: pathlib.Path | None = None


class QuietDirectoryHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a directory and logs nothing."""

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def running(handler, *, on_stop: Callable[[], object] | None = None) -> Iterator[str]:
    """Run an http server with ``handler`` on 127.0.0.1 on a free port; its base URL. Stopped on leaving, after
    ``on_stop`` (which lets go of requests a handler holds)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        if on_stop is not None:
            on_stop()
        server.shutdown()
        server.server_close()
        thread.join()
        connections.forget(f"http://127.0.0.1:{server.server_address[1]}")  # another server may take the port


@contextlib.contextmanager
def serve_directory(root: pathlib.Path) -> Iterator[Served]:
    """Serve the files under ``root`` over http (a missing file answers 404)."""
    with running(functools.partial(QuietDirectoryHandler, directory=str(root))) as base:
        yield Served(base, pathlib.Path(root))


class _CorsDirectoryHandler(QuietDirectoryHandler):
    """Serves a directory to any origin, as a store a browser viewer reads must be served."""

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def do_OPTIONS(self):  # noqa: N802 - the base class's name; a browser's preflight
        self.send_response(204)
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextlib.contextmanager
def serve_with_cors(root: pathlib.Path) -> Iterator[Served]:
    """Serve the files under ``root`` over http with CORS allowed from any origin, as a browser needs."""
    with running(functools.partial(_CorsDirectoryHandler, directory=str(root))) as base:
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

    with running(Handler) as base:
        yield Served(base)


@dataclasses.dataclass(frozen=True)
class Asked:
    """One request a gateway received: its method and path, whether it was signed (an Authorization header), and
    how many times this method and path have been asked, this time included."""

    method: str
    path: str
    signed: bool
    count: int


#: What a gateway's ``decide`` returns to hold a request unanswered until the gateway stops.
HOLD = "hold"
_ERROR_CODES = {403: "AccessDenied", 404: "NoSuchKey", 500: "InternalError", 503: "SlowDown"}
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "expect", "server",
                         "date"})


@dataclasses.dataclass(frozen=True)
class Gateway:
    """A running gateway: its base URL and the requests it was asked, counted per (method, path)."""

    url: str
    asked: collections.Counter = dataclasses.field(repr=False)

    def count(self, method: str, ending: str = "") -> int:
        """How many requests of ``method`` it was asked whose path ends with ``ending``."""
        return sum(n for (m, path), n in self.asked.items() if m == method and path.endswith(ending))


def _forward(upstream: urllib.parse.SplitResult, handler: http.server.BaseHTTPRequestHandler, body: bytes,
             drop: frozenset[str] = frozenset()) -> int:
    """Pass the request on without the headers named (lower case) in ``drop``; the status answered."""
    connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
    try:
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP_BY_HOP | drop}
        connection.request(handler.command, handler.path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        handler.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(answer)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(answer)
        return response.status
    finally:
        connection.close()


def _refuse(handler: http.server.BaseHTTPRequestHandler, status: int) -> None:
    code = _ERROR_CODES.get(status, "Error")
    body = f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>{code}</Message></Error>'
    handler.send_response(status)
    handler.send_header("Content-Type", "application/xml")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if handler.command != "HEAD":
        handler.wfile.write(body.encode())


@contextlib.contextmanager
def serve_gateway(upstream: str, decide: Callable[[Asked], int | str | None]) -> Iterator[Gateway]:
    """Stand in front of the server at ``upstream``: each request is counted, then ``decide`` says what becomes of
    it: None passes it on, an HTTP status answers that status at once (with an S3-style error body), ``HOLD`` keeps
    it unanswered until the gateway stops."""
    target = urllib.parse.urlsplit(upstream)
    asked: collections.Counter = collections.Counter()
    lock, release = threading.Lock(), threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as stores are spoken to

        def handle_one(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            key = (self.command, urllib.parse.urlsplit(self.path).path)
            with lock:
                asked[key] += 1
                count = asked[key]
            decision = decide(Asked(self.command, key[1], "Authorization" in self.headers, count))
            if decision == HOLD:
                release.wait()
                self.close_connection = True
            elif isinstance(decision, int):
                _refuse(self, decision)
            else:
                _forward(target, self, body)

        do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = handle_one  # noqa: N815 - the base class's names

        def log_message(self, format, *args):  # noqa: A002
            pass

    with running(Handler, on_stop=release.set) as url:
        yield Gateway(url, asked)


@dataclasses.dataclass(frozen=True)
class Sent:
    """One request a recorder passed on: method, path, headers (names in lower case, as received), body, and the
    status the server behind answered."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int


#: The headers that make an S3 write conditional.
CONDITIONS = frozenset({"if-match", "if-none-match"})


@dataclasses.dataclass
class Recorder:
    """A running recorder: its base URL and every request it passed on, in the order they were answered.

    ``hold_together(method, ending, n)`` holds the next ``n`` requests of ``method`` whose path ends with ``ending``
    until all ``n`` have arrived (or 10 s have passed), then passes them on at once: writers that read the same
    generation then collide for certain.
    """

    url: str
    sent: list[Sent] = dataclasses.field(repr=False)
    _held: tuple[str, str, threading.Barrier] | None = dataclasses.field(default=None, repr=False)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)

    def hold_together(self, method: str, ending: str, n: int) -> None:
        with self._lock:
            self._held = (method, ending, threading.Barrier(n, timeout=10))

    def wait_for_the_others(self, method: str, path: str) -> None:
        with self._lock:
            held = self._held
        if held is None or held[0] != method or not path.endswith(held[1]):
            return
        try:
            if held[2].wait() == 0:  # the last to arrive: later requests pass at once
                with self._lock:
                    self._held = None if self._held is held else self._held
        except threading.BrokenBarrierError:
            pass


@contextlib.contextmanager
def serve_recorder(upstream: str, *, strip_conditions: bool = False) -> Iterator[Recorder]:
    """Stand in front of the server at ``upstream`` and record every request as it arrived (``Sent``);
    ``strip_conditions`` passes requests on without ``If-Match`` and ``If-None-Match``, as a store that ignores
    write conditions would treat them."""
    target = urllib.parse.urlsplit(upstream)
    sent: list[Sent] = []
    lock = threading.Lock()
    drop = CONDITIONS if strip_conditions else frozenset()
    recorder = Recorder("", sent)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_one(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = urllib.parse.urlsplit(self.path).path
            recorder.wait_for_the_others(self.command, path)
            status = _forward(target, self, body, drop)
            headers = {name.lower(): value for name, value in self.headers.items()}
            with lock:
                sent.append(Sent(self.command, path, headers, body, status))

        do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = handle_one  # noqa: N815 - the base class's names

        def log_message(self, format, *args):  # noqa: A002
            pass

    def let_go() -> None:
        with recorder._lock:
            if recorder._held is not None:
                recorder._held[2].abort()  # nothing stays held past the test

    with running(Handler, on_stop=let_go) as url:
        recorder.url = url
        yield recorder


# -- servers that count rounds and pending connections ----------------------------------------------------


class _KeepAliveFiles(http.server.SimpleHTTPRequestHandler):
    """Serves a directory over HTTP/1.1, keeping the connection after a missing file too, as a store's server does."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def send_missing(self) -> bool:
        target = pathlib.Path(self.directory, urllib.parse.urlsplit(self.path).path.lstrip("/"))
        if target.is_file():
            return False
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def log_message(self, format, *args):  # noqa: A002
        pass


@dataclasses.dataclass
class Rounds:
    """What a rounds server was asked: how often each path was asked for (GET), and the paths of each round."""

    url: str
    asked: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    released: list = dataclasses.field(default_factory=list)  # per round, the paths answered together

    @property
    def rounds(self) -> int:
        return len(self.released)

    @property
    def requests(self) -> int:
        return sum(self.asked.values())

    def twice(self) -> list[str]:
        """The paths asked for more than once."""
        return sorted(path for path, n in self.asked.items() if n > 1)

    def reset(self) -> None:
        self.asked.clear()
        self.released.clear()


class _Gate:
    """Holds every request until none has arrived for ``quiet`` seconds, then lets all of them through at once."""

    def __init__(self, quiet: float, counted: Rounds) -> None:
        self.quiet, self.counted = quiet, counted
        self.condition = threading.Condition()
        self.held: list[str] = []
        self.last = 0.0
        self.batch = 0
        self.stopped = False

    def pass_through(self, path: str) -> None:
        with self.condition:
            self.counted.asked[path] += 1
            self.held.append(path)
            self.last = time.monotonic()
            batch = self.batch
            self.condition.notify_all()
            while self.batch == batch and not self.stopped:
                self.condition.wait()

    def release_when_quiet(self) -> None:
        with self.condition:
            while not self.stopped:
                if self.held and time.monotonic() - self.last >= self.quiet:
                    self.counted.released.append(sorted(self.held))
                    self.held, self.batch = [], self.batch + 1
                    self.condition.notify_all()
                self.condition.wait(timeout=self.quiet / 10)

    def stop(self) -> None:
        with self.condition:
            self.stopped = True
            self.condition.notify_all()


@contextlib.contextmanager
def serve_rounds(root: pathlib.Path, quiet: float = 0.1) -> Iterator[Rounds]:
    """Serve the files under ``root`` over HTTP/1.1 with keep-alive, holding every GET until no new request has
    arrived for ``quiet`` seconds and then answering all those held at once: each release is one round, however long
    the client takes. Other methods (the HEAD that tells a server's connections) are answered at once, uncounted."""
    counted = Rounds("")
    gate = _Gate(quiet, counted)

    class Handler(_KeepAliveFiles):
        def do_GET(self):  # noqa: N802 - the base class's name
            gate.pass_through(urllib.parse.urlsplit(self.path).path)
            if not self.send_missing():
                super().do_GET()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    server.daemon_threads = True
    threads = [threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True),
               threading.Thread(target=gate.release_when_quiet, daemon=True)]
    for thread in threads:
        thread.start()
    counted.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield counted
    finally:
        gate.stop()
        server.shutdown()
        server.server_close()
        for thread in threads:
            thread.join()
        connections.forget(counted.url)


_TCP_LISTEN = 10


def listen_queue(listener: socket.socket) -> tuple[int, int]:
    """(connections waiting to be accepted, the backlog) of a listening socket, from the kernel (Linux TCP_INFO: for
    a listening socket ``tcpi_unacked`` is the accept queue's length and ``tcpi_sacked`` its backlog)."""
    info = listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    if info[0] != _TCP_LISTEN:
        raise OSError("not a listening socket")
    return struct.unpack_from("II", info, 24)


@dataclasses.dataclass
class Backlog:
    """A server made as ``python -m http.server`` makes it: its URL, its backlog, and the length of its accept queue
    seen before each accept (every connection attempt pending at that moment)."""

    url: str
    backlog: int = 5
    queued: list[int] = dataclasses.field(default_factory=list)


class _HttpServer(http.server.ThreadingHTTPServer):
    """``python -m http.server``'s server, whose accepts wait until its accept queue has not grown for ``settle``
    seconds: whatever a client has pending at once is then in the queue together, and measured there."""

    daemon_threads = True
    request_queue_size = 5
    settle = 0.01
    seen: Backlog

    def get_request(self):
        length, since = -1, time.monotonic()
        while True:
            now, backlog = listen_queue(self.socket)
            if now != length:
                length, since = now, time.monotonic()
            elif time.monotonic() - since >= self.settle:
                break
            time.sleep(self.settle / 10)
        self.seen.queued.append(length)
        return super().get_request()


@contextlib.contextmanager
def serve_like_http_server(root: pathlib.Path) -> Iterator[Backlog]:
    """``python -m http.server`` over ``root``: HTTP/1.0 (a connection per request) and a listen backlog of 5, whose
    accept queue is measured before each accept (``_HttpServer``); Linux only."""
    if sys.platform != "linux" or not hasattr(socket, "TCP_INFO"):
        pytest.skip("the accept queue is read with Linux's TCP_INFO")
    server = _HttpServer(("127.0.0.1", 0), functools.partial(QuietDirectoryHandler, directory=str(root)))
    server.seen = Backlog(f"http://127.0.0.1:{server.server_address[1]}", listen_queue(server.socket)[1])
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield server.seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
        connections.forget(server.seen.url)


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


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """The endpoint URL of a moto S3 server, one for the session (each test makes buckets of its own); create buckets
    with ``s3_client(endpoint)``."""
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
