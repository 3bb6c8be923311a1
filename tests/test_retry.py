"""Behaviour 6 and 7: retries of data reads with their timeouts and sleeps, and the shared context."""

from __future__ import annotations

import json
import time
import types
import uuid

import numpy as np
import pytest
import tensorstore as ts
from servers import HOLD, s3_client, serve_directory, serve_gateway

import worldarray as wa


@pytest.mark.parametrize("nbytes,remote,seconds", [
    (0, True, 5), (160 << 20, True, 10), (4000 << 20, True, 120),
    (0, False, 5), (2560 << 20, False, 10), (16000 << 20, False, 30),
])
def test_attempt_timeout_is_size_over_a_rate_clamped_by_locality(nbytes, remote, seconds):
    assert wa.Retry().attempt_timeout(nbytes, remote) == pytest.approx(seconds)
    assert wa.Retry(timeout=2.5).attempt_timeout(nbytes, remote) == 2.5


def run_fakes(outcomes, policy, monkeypatch, timeout=3.0):
    """Retry.run over fake futures with these outcomes (a value, or an error to raise); no real sleeping."""
    log, queue = [], list(enumerate(outcomes, 1))
    monkeypatch.setattr(wa.retry, "time", types.SimpleNamespace(sleep=lambda s: log.append(("sleep", s))))

    def start():
        n, outcome = queue.pop(0)
        log.append(("start", n))

        def result(timeout):
            log.append(("wait", n, timeout))
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome

        return types.SimpleNamespace(result=result, cancel=lambda: log.append(("cancel", n)))

    try:
        return policy.run(start, timeout, "test read"), log
    except Exception as error:  # noqa: BLE001 - the caller asserts on it
        return error, log


def test_attempt_k_waits_timeout_times_k_and_a_timed_out_future_is_cancelled_first(monkeypatch):
    got, log = run_fakes([TimeoutError(), TimeoutError(), 42], wa.Retry(base_delay=0), monkeypatch)
    assert got == 42
    assert [e[2] for e in log if e[0] == "wait"] == [3.0, 6.0, 9.0]
    for n in (1, 2):
        assert log.index(("cancel", n)) < log.index(("start", n + 1))


def test_the_sleep_between_attempts_grows_by_1_3_plus_up_to_a_second(monkeypatch):
    _, log = run_fakes([TimeoutError()] * 4, wa.Retry(max_attempts=4, base_delay=2.0), monkeypatch)
    sleeps = [e[1] for e in log if e[0] == "sleep"]
    assert len(sleeps) == 3 and all(2.0 * 1.3**k <= s <= 2.0 * 1.3**k + 1 for k, s in enumerate(sleeps))


@pytest.mark.parametrize("error", [
    TimeoutError(), ValueError("UNAVAILABLE: connection reset"), ValueError("DEADLINE_EXCEEDED: slow"),
    ValueError("RESOURCE_EXHAUSTED: quota"), ValueError("OUT_OF_RANGE: HTTP response code: 503 with body: x"),
    ValueError("FAILED_PRECONDITION: HTTP response code: 429"),
])
def test_transient_errors_are_retried(monkeypatch, error):
    assert wa.retry.is_transient(error)
    got, log = run_fakes([error, "ok"], wa.Retry(base_delay=0), monkeypatch)
    assert got == "ok" and log.count(("start", 2)) == 1


@pytest.mark.parametrize("error", [
    ValueError("NOT_FOUND: no such key"), ValueError("INVALID_ARGUMENT: bad spec"),
    ValueError("FAILED_PRECONDITION: HTTP response code: 404"),
    KeyError("x"), OSError("disk"),
])
def test_other_errors_are_raised_at_once(monkeypatch, error):
    assert not wa.retry.is_transient(error)
    got, log = run_fakes([error, "ok"], wa.Retry(base_delay=0), monkeypatch)
    assert got is error and ("start", 2) not in log


def test_at_most_max_attempts_are_made(monkeypatch):
    got, log = run_fakes([TimeoutError()] * 5, wa.Retry(max_attempts=3, base_delay=0), monkeypatch)
    assert isinstance(got, TimeoutError)
    assert [e for e in log if e[0] == "start"] == [("start", 1), ("start", 2), ("start", 3)]


def call_fakes(outcomes, policy, monkeypatch, errors):
    """Retry.call over an attempt with these outcomes (a value, or an error to raise); sleeps recorded, not slept."""
    log, queue = [], list(outcomes)
    monkeypatch.setattr(wa.retry, "time", types.SimpleNamespace(sleep=lambda s: log.append(("sleep", s))))

    def attempt(wait):
        log.append(("wait", wait))
        outcome = queue.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    try:
        return policy.call(attempt, 2.0, "test document", errors=errors), log
    except Exception as error:  # noqa: BLE001 - the caller asserts on it
        return error, log


def test_with_error_pauses_no_answer_is_asked_again_at_once_and_an_error_answer_after_the_next_pause(monkeypatch):
    unavailable = ValueError("UNAVAILABLE: HTTP code 503")
    outcomes = [TimeoutError(), unavailable, TimeoutError(), unavailable, "read"]
    got, log = call_fakes(outcomes, wa.Retry(base_delay=1.0), monkeypatch, errors=(0.2, 0.4))
    assert got == "read"
    assert log == [("wait", 2.0), ("wait", 4.0), ("sleep", 0.2), ("wait", 6.0), ("wait", 8.0), ("sleep", 0.4),
                   ("wait", 10.0)]


def test_error_answers_are_raised_once_the_pauses_are_spent(monkeypatch):
    got, log = call_fakes([ValueError("UNAVAILABLE: HTTP code 503")] * 5, wa.Retry(), monkeypatch, errors=(0.2, 0.4))
    assert isinstance(got, ValueError) and "test document: failed after 3 attempts" in str(got)
    assert [entry for entry in log if entry[0] == "sleep"] == [("sleep", 0.2), ("sleep", 0.4)]


def test_shared_context_is_one_object_per_budget():
    assert wa.shared_context() is wa.shared_context(0)
    assert wa.shared_context(1 << 20) is wa.shared_context(1 << 20) is not wa.shared_context(0)


@pytest.mark.parametrize("message", [
    "FAILED_PRECONDITION: Error reading chunk "
    "[source locations='tensorstore/array_endian_codec.cc:218\nmetadata.cc:504']",
    "INVALID_ARGUMENT: shape 504 is out of range",
    "DATA_LOSS: decoded 429 bytes, expected 512",
])
def test_numbers_that_are_not_http_statuses_are_not_retried(message):
    assert not wa.retry.is_transient(ValueError(message))


@pytest.mark.parametrize("message", [
    "ABORTED: All 5 retry attempts failed: HTTP response code: 503",
    "HTTP 429 Too Many Requests",
    "UNKNOWN: status code 502 from the server",
    "ABORTED: All 1 retry attempts failed: Service Unavailable [source locations='driver.cc:316'] "
    "[http_response_code='503']",
])
def test_an_http_5xx_or_429_named_as_a_status_is_retried(message):
    assert wa.retry.is_transient(ValueError(message))


# -- a retry sends a new request (A7): a request that hangs once is asked again -----------------------------

VALUES = np.arange(64, dtype="uint16").reshape(8, 8)


@pytest.fixture
def served_array(tmp_path):
    """An (8, 8) zarr v3 array of chunks (4, 4) under tmp_path, served over http: the server's URL."""
    wa.create(tmp_path / "a.zarr" / "s0", (8, 8), "uint16", 1, 0.5, axes=("y", "x"), chunks=4).write_index(
        (0, 0), (8, 8), VALUES)
    with serve_directory(tmp_path) as served:
        yield served.url


@pytest.fixture
def unslept(monkeypatch) -> list[float]:
    """The sleeps between attempts (a jitter of up to a second even at base_delay=0), recorded, not slept: the held
    request stays held whatever the pause, so the retry's new request is what is tested, not the pause before it."""
    slept: list[float] = []
    monkeypatch.setattr(wa.retry, "time", types.SimpleNamespace(sleep=slept.append, monotonic=time.monotonic))
    return slept


def hold_first(method: str, ending: str):
    """A gateway decision: hold the first request of ``method`` whose path ends with ``ending``; pass on the rest."""
    return lambda asked: HOLD if (asked.method, asked.count) == (method, 1) and asked.path.endswith(ending) else None


def test_a_read_whose_first_request_hangs_is_answered_by_a_new_request_on_retry(served_array, unslept):
    with serve_gateway(served_array, hold_first("GET", "/s0/c/0/0")) as gateway:
        vol = wa.open(f"{gateway.url}/a.zarr/s0")
        got = vol.read_index((0, 0), (4, 4), retries=wa.Retry(timeout=1.0, max_attempts=3, base_delay=0))
        assert np.array_equal(got, VALUES[:4, :4])
        assert gateway.count("GET", "/s0/c/0/0") == 2


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_retry_waits_for_a_request_slot_of_the_callers_context(served_array, concurrency, unslept):
    # the held request keeps its slot: under a cap of 1 the retry sends nothing, under a cap of 2 it is answered
    # a short wait where the retry can only time out; room for a busy machine where it is to be answered
    policy = wa.Retry(timeout=0.3 if concurrency == 1 else 1.0, max_attempts=2, base_delay=0)
    with serve_gateway(served_array, hold_first("GET", "/s0/c/0/0")) as gateway:
        vol = wa.open(f"{gateway.url}/a.zarr/s0", context=wa.capped_context(concurrency=concurrency))
        if concurrency == 1:
            with pytest.raises(TimeoutError, match="no answer after 2 attempts"):
                vol.read_index((0, 0), (4, 4), retries=policy)
        else:
            assert np.array_equal(vol.read_index((0, 0), (4, 4), retries=policy), VALUES[:4, :4])
        assert gateway.count("GET", "/s0/c/0/0") == concurrency


def test_a_write_whose_first_request_hangs_is_sent_again_on_retry(s3_server, monkeypatch, unslept):
    bucket = f"retry-{uuid.uuid4().hex[:12]}"
    client = s3_client(s3_server)
    client.create_bucket(Bucket=bucket)
    readable = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}
    client.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [readable]}))
    for name, value in {"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing",
                        "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    with serve_gateway(s3_server, hold_first("PUT", "/s0/c/0/0")) as gateway:
        monkeypatch.setenv("AWS_ENDPOINT_URL", gateway.url)
        vol = wa.create(f"s3://{bucket}/a.zarr/s0", (8, 8), "uint16", 1, 0.5, axes=("y", "x"), chunks=4)
        vol.write_index((0, 0), (4, 4), VALUES[:4, :4], retries=wa.Retry(timeout=1.0, max_attempts=3, base_delay=0))
        assert gateway.count("PUT", "/s0/c/0/0") == 2
    # read back from the S3 server itself, in a context of its own (the handle's cache still holds the held write)
    stored = ts.open({"driver": "zarr3", "kvstore": {"driver": "s3", "bucket": bucket, "path": "a.zarr/s0/",
                                                     "endpoint": s3_server, "aws_region": "us-east-1"}},
                     context=ts.Context()).result()
    assert np.array_equal(stored[0:4, 0:4].read().result(), VALUES[:4, :4])


def test_a_refused_connection_logs_short_lines_whose_counts_agree_with_the_error(caplog):
    import socket

    with socket.socket() as closed:  # a port this test held and let go: nothing listens there
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://127.0.0.1:{port}/vol.zarr"
    with caplog.at_level("WARNING", logger="worldarray"), pytest.raises(OSError) as raised:
        wa.detect(url, retries=wa.Retry(base_delay=0.001))
    lines = [r.getMessage() for r in caplog.records if "attempt" in r.getMessage()]
    attempts = int(str(raised.value).split("failed after ")[1].split(" attempts")[0])
    assert [f"attempt {k} of {attempts} failed" in line for k, line in enumerate(lines, start=1)] == [True] * len(lines)
    assert len(lines) == attempts - 1
    assert all(len(line) < 240 and line.count(url) == 1 for line in lines), lines
    assert str(raised.value).count(url) <= 2
