"""A loopback HTTP server that waits a fixed delay before every answer and counts requests and rounds.

It serves a directory, as an object store would: HTTP/1.1 with connections kept open, a missing file answered 404
on a connection that stays open (``http.server``'s own 404 closes it, which makes a client open new connections
and wait for them), and no Nagle delay (without TCP_NODELAY a small answer written in two parts waits some 40 ms
for the client's delayed acknowledgement). Each answer waits ``delay`` seconds (10 ms by default) before it is sent.

A round is a batch of requests a client sends without waiting for an answer in between. Requests are taken in
the order they arrived; one that arrives after an earlier request of the current round has been answered starts
the next round (it may have waited for that answer: for the document it holds, or for its connection). Requests
sent together arrive within a millisecond or two of each other, well inside the delay, so they make one round;
each round costs at least the delay, so the rounds of a call are the part of its time that latency multiplies.

The server runs in a process of its own, so its threads do not compete with the benchmark's for the interpreter:
``SlowServer`` starts it (``python slow_http.py ROOT [--delay S]``), which prints its base URL and then answers
each line ``take`` on its standard input with a JSON list of ``[arrived, answered, path]`` (times in seconds, on
one monotonic clock) of the requests since the last ``take``; end of input stops it.
"""

from __future__ import annotations

import argparse
import collections
import functools
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

DELAY = 0.010


def rounds(log: Sequence[Sequence]) -> int:
    """The rounds of ``[arrived, answered, ...]`` requests: one arriving after an answer of the current round starts
    the next round.

    >>> rounds([(0.0, 0.010), (0.001, 0.011), (0.012, 0.022)])
    2
    """
    count, first_answer = 0, 0.0
    for arrived, answered, *_ in sorted(log):
        if count == 0 or arrived > first_answer:
            count, first_answer = count + 1, answered
        else:
            first_answer = min(first_answer, answered)
    return count


class _Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # connections stay open between requests, as an object store's do
    disable_nagle_algorithm = True

    def do_GET(self):  # noqa: N802 - the base class's name
        self._answer(super().do_GET)

    def do_HEAD(self):  # noqa: N802
        self._answer(super().do_HEAD)

    def _answer(self, answer: Callable[[], None]) -> None:
        arrived = time.perf_counter()
        time.sleep(self.server.delay)
        # recorded before the answer leaves, so the log is whole when the client has its answers
        self.server.record(arrived, time.perf_counter(), self.path)
        answer()

    def send_head(self):
        if os.path.isfile(self.translate_path(self.path)):
            return super().send_head()
        self.send_response(404)  # not send_error, which closes the connection
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class _Server(http.server.ThreadingHTTPServer):
    request_queue_size = 128  # a client opening many connections at once has none refused

    def __init__(self, root: str, delay: float):
        super().__init__(("127.0.0.1", 0), functools.partial(_Handler, directory=root))
        self.delay = delay
        self._lock = threading.Lock()
        self._log: list[tuple[float, float, str]] = []

    def record(self, arrived: float, answered: float, path: str) -> None:
        with self._lock:
            self._log.append((arrived, answered, path))

    def take(self) -> list[tuple[float, float, str]]:
        with self._lock:
            log, self._log = self._log, []
        return log


class SlowServer:
    """``slow_http.py`` serving ``root`` in a process of its own; ``url`` is its base URL while it runs."""

    def __init__(self, root: str, delay: float = DELAY):
        self.root, self.delay, self.url = root, delay, ""
        self._process: subprocess.Popen | None = None

    def __enter__(self) -> SlowServer:
        self._process = subprocess.Popen([sys.executable, __file__, self.root, "--delay", str(self.delay)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self._process.stdout.readline().strip()
        if not self.url.startswith("http://"):
            raise RuntimeError(f"slow_http.py did not start: it printed {self.url!r}")
        return self

    def __exit__(self, *exc) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=10)

    def take(self) -> list[list]:
        """``[arrived, answered, path]`` of each request since the last ``take``."""
        self._process.stdin.write("take\n")
        self._process.stdin.flush()
        return json.loads(self._process.stdout.readline())

    def count(self, call: Callable[[], object]) -> tuple[int, int, int]:
        """The requests ``call`` makes, in how many rounds, and how many paths it asks more than once."""
        self.take()
        call()
        log = self.take()
        asked = collections.Counter(path for _, _, path in log)
        return len(log), rounds(log), sum(n > 1 for n in asked.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", help="the directory to serve")
    parser.add_argument("--delay", type=float, default=DELAY, help=f"seconds before each answer (default {DELAY})")
    args = parser.parse_args()
    server = _Server(args.root, args.delay)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    for line in sys.stdin:
        if line.strip() == "take":
            print(json.dumps(server.take()), flush=True)
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
