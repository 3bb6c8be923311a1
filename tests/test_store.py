"""Tests of worldarray.store: paths, ways of access, the fallback rule and document reads."""

from __future__ import annotations

import json
import logging
import pathlib
import time
import types
import uuid

import pytest
import tensorstore as ts
from servers import HOLD, s3_client, serve_bytes, serve_gateway

import worldarray as wa
from worldarray import retry, store


def unique_bucket() -> str:
    """A bucket name no other test uses, so the remembered way of one test never reaches another."""
    return f"b-{uuid.uuid4().hex[:16]}"


# -- normalize, scheme, join, parent, basename -------------------------------------------------------------


def test_a_path_with_no_scheme_is_an_absolute_local_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert store.normalize("a/b/") == f"{tmp_path.as_posix()}/a/b"
    assert store.normalize(pathlib.Path("a") / "." / "c") == f"{tmp_path.as_posix()}/a/c"
    assert store.normalize("~/x") == f"{tmp_path.as_posix()}/home/x"
    assert store.normalize("/") == "/"


def test_a_file_url_is_the_local_absolute_path():
    assert store.normalize("file:///tmp/a/") == "/tmp/a"
    assert store.normalize("file://localhost/tmp/a") == "/tmp/a"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("memory://a//b/./c/", "memory://a/b/c"),
        ("memory://", "memory://"),
        ("http://127.0.0.1:8000/a/", "http://127.0.0.1:8000/a"),
        ("https://host/a/./b", "https://host/a/b"),
        ("s3://bucket/a//b/", "s3://bucket/a/b"),
        ("S3://bucket/", "s3://bucket"),
        ("gs://bucket/a/../b", "gs://bucket/b"),
    ],
)
def test_urls_keep_their_scheme_without_empty_dot_or_trailing_segments(given, expected):
    assert store.normalize(given) == expected


def test_a_precomputed_prefix_is_dropped_repeatedly():
    assert store.normalize("precomputed://precomputed://gs://bucket/seg/") == "gs://bucket/seg"
    assert store.normalize("precomputed:///tmp/a") == "/tmp/a"


def test_an_unknown_scheme_raises_naming_the_path_and_the_known_schemes():
    with pytest.raises(ValueError, match=r"'zarr://x/y'.*'zarr'.*memory://.*s3://.*gs://"):
        store.normalize("zarr://x/y")


def test_a_bucket_url_without_a_bucket_raises():
    with pytest.raises(ValueError, match=r"'s3://': no bucket"):
        store.normalize("s3://")


@pytest.mark.parametrize(
    ("path", "name", "remote"),
    [
        ("/tmp/a", "file", False),
        ("file:///tmp/a", "file", False),
        ("memory://a", "memory", False),
        ("http://h/a", "http", True),
        ("https://h/a", "https", True),
        ("s3://b/a", "s3", True),
        ("gs://b/a", "gs", True),
    ],
)
def test_scheme_and_is_remote_name_where_a_path_lives(path, name, remote):
    assert (store.scheme(path), store.is_remote(path)) == (name, remote)


@pytest.mark.parametrize(
    ("directory", "parent", "basename"),
    [
        ("/tmp/a/s0", "/tmp/a", "s0"),
        ("/tmp", "/", "tmp"),
        ("memory://a/s0", "memory://a", "s0"),
        ("memory://a", "memory://", "a"),
        ("http://127.0.0.1:8000/a/s0", "http://127.0.0.1:8000/a", "s0"),
        ("https://host/a", "https://host", "a"),
        ("s3://b/a", "s3://b", "a"),
        ("gs://b/a/s0", "gs://b/a", "s0"),
    ],
)
def test_join_parent_and_basename_are_url_aware(directory, parent, basename):
    assert store.parent(directory) == parent
    assert store.basename(directory) == basename
    assert store.join(parent, basename) == directory
    assert not store.is_root(directory)


@pytest.mark.parametrize("root", ["/", "memory://", "s3://bucket", "gs://bucket", "http://host:8000", "https://h"])
def test_a_store_root_has_no_parent_and_an_empty_basename(root):
    assert (store.parent(root), store.basename(root), store.is_root(root)) == (None, "", True)


def test_join_takes_several_parts_each_relative():
    assert store.join("s3://b", "a", "/c/d/") == "s3://b/a/c/d"
    assert store.join("/", "x") == "/x"
    assert store.join("memory://", "x") == "memory://x"


def test_url_names_the_key_in_its_directory():
    assert store.url("/tmp/a", "info") == "/tmp/a/info"
    assert store.url("/", "info") == "/info"
    assert store.url("memory://", "zarr.json") == "memory://zarr.json"
    assert store.url("s3://b/d", ".zarray") == "s3://b/d/.zarray"


# -- ways -------------------------------------------------------------------------------------------------


def test_local_memory_and_http_paths_have_one_way_as_a_directory():
    assert store.ways("/tmp/a") == (store.Way("file", {"driver": "file", "path": "/tmp/a/"}),)
    assert store.ways("memory://a/b") == (store.Way("memory", {"driver": "memory", "path": "a/b/"}),)
    assert store.ways("http://127.0.0.1:8000/a/b") == (
        store.Way("http", {"driver": "http", "base_url": "http://127.0.0.1:8000", "path": "/a/b/"}),
    )


def test_s3_is_tried_anonymously_then_with_default_credentials(monkeypatch):
    for name in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    bucket = unique_bucket()
    found = store.ways(f"s3://{bucket}/a")
    assert [way.name for way in found] == ["anonymous", "credentials"]
    assert [way.spec["aws_credentials"] for way in found] == [{"type": "anonymous"}, {"type": "default"}]
    assert all(way.spec["bucket"] == bucket and way.spec["path"] == "a/" for way in found)
    assert not any("endpoint" in way.spec or "aws_region" in way.spec for way in found)


def test_s3_endpoint_prefers_aws_endpoint_url_s3_over_aws_endpoint_url(monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
    assert {way.spec["endpoint"] for way in store.ways("s3://bucket/a")} == {"http://127.0.0.1:1"}
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:2")
    assert {way.spec["endpoint"] for way in store.ways("s3://bucket/a")} == {"http://127.0.0.1:2"}


def test_s3_region_prefers_aws_region_over_aws_default_region(monkeypatch):
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    assert {way.spec["aws_region"] for way in store.ways("s3://bucket/a")} == {"eu-west-1"}
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    assert {way.spec["aws_region"] for way in store.ways("s3://bucket/a")} == {"us-west-2"}


def test_gs_is_tried_with_credentials_then_through_the_public_https_url(monkeypatch):
    monkeypatch.delenv("TENSORSTORE_GCS_HTTP_URL", raising=False)
    monkeypatch.setenv("GCE_METADATA_ROOT", "metadata.invalid")
    bucket = unique_bucket()
    assert store.ways(f"gs://{bucket}/a/b") == (
        store.Way("credentials", {"driver": "gcs", "bucket": bucket, "path": "a/b/"}),
        store.Way(
            "public", {"driver": "http", "base_url": "https://storage.googleapis.com", "path": f"/{bucket}/a/b/"}
        ),
    )


def test_the_gs_public_way_honours_tensorstore_gcs_http_url(monkeypatch):
    monkeypatch.setenv("GCE_METADATA_ROOT", "metadata.invalid")
    monkeypatch.setenv("TENSORSTORE_GCS_HTTP_URL", "http://127.0.0.1:9/")
    public = store.ways("gs://bucket/a")[1]
    assert public.spec == {"driver": "http", "base_url": "http://127.0.0.1:9", "path": "/bucket/a/"}


# -- the fallback rule, offline ---------------------------------------------------------------------------

REFUSED = ValueError("PERMISSION_DENIED: Forbidden [HTTP code 403]")


def refuse_anonymous(way):
    if way.name == "anonymous":
        raise REFUSED
    return way.name


def test_a_refusal_moves_to_the_next_way():
    tried = []

    def attempt(way):
        tried.append(way.name)
        if way.name == "anonymous":
            raise REFUSED
        return "read"

    assert store.with_fallback(f"s3://{unique_bucket()}/a", attempt) == "read"
    assert tried == ["anonymous", "credentials"]


def test_an_error_that_is_not_a_refusal_raises_at_once():
    tried = []

    def attempt(way):
        tried.append(way.name)
        raise ValueError("UNAVAILABLE: connection reset")

    with pytest.raises(ValueError, match="UNAVAILABLE"):
        store.with_fallback(f"s3://{unique_bucket()}/a", attempt)
    assert tried == ["anonymous"]


@pytest.mark.parametrize("path", ["memory://refused/a", "http://127.0.0.1:9/a", "/refused/a"])
def test_a_store_of_one_way_that_refuses_raises_permission_error_naming_the_path_and_the_way(path):
    tried = []

    def attempt(way):
        tried.append(way.name)
        raise ValueError(f"PERMISSION_DENIED: not under {way.name}")

    with pytest.raises(PermissionError, match=rf"{store.normalize(path)}: refused under every way tried: "
                                              rf"{store.ways(path)[0].name} \(PERMISSION_DENIED") as caught:
        store.with_fallback(path, attempt)
    assert tried == [store.ways(path)[0].name]
    assert str(caught.value.__cause__) == f"PERMISSION_DENIED: not under {tried[0]}"


def test_a_store_of_one_way_raises_any_other_error_as_it_is():
    def attempt(way):
        raise ValueError("NOT_FOUND: no such thing")

    with pytest.raises(ValueError, match="^NOT_FOUND: no such thing$"):
        store.with_fallback("memory://other/a", attempt)


def test_every_way_refused_raises_permission_error_naming_the_path_and_each_way(monkeypatch):
    monkeypatch.setenv("GCE_METADATA_ROOT", "metadata.invalid")
    path = f"gs://{unique_bucket()}/a"

    def attempt(way):
        raise ValueError(f"UNAUTHENTICATED: no {way.name}")

    expected = rf"{path}: .*credentials .*no credentials.*public .*no public"
    with pytest.raises(PermissionError, match=expected) as caught:
        store.with_fallback(path, attempt)
    assert str(caught.value.__cause__) == "UNAUTHENTICATED: no public"


def test_the_way_that_worked_is_tried_first_next_time_for_that_bucket_only():
    bucket, other = unique_bucket(), unique_bucket()
    store.with_fallback(f"s3://{bucket}/a", refuse_anonymous)
    assert [way.name for way in store.ways(f"s3://{bucket}/elsewhere")] == ["credentials", "anonymous"]
    assert [way.name for way in store.ways(f"s3://{other}/a")] == ["anonymous", "credentials"]


def test_a_fallback_is_logged_on_the_worldarray_logger(caplog):
    caplog.set_level(logging.INFO, logger="worldarray")
    store.with_fallback(f"s3://{unique_bucket()}/a", refuse_anonymous)
    assert any(r.name == "worldarray" and "anonymous refused" in r.getMessage() for r in caplog.records)


class FakeFuture:
    def __init__(self, events, key, answer):
        self.events, self.key, self.answer = events, key, answer

    def result(self, timeout=None):
        self.events.append(("result", self.key))
        if isinstance(self.answer, Exception):
            raise self.answer
        state = "missing" if self.answer is None else "value"
        return type("ReadResult", (), {"state": state, "value": self.answer or b""})()

    def cancel(self):
        return True


class FakeStores:
    """Stands in for open_kvstore: answers[(way name, key)] is bytes, None (missing) or an exception."""

    def __init__(self, answers):
        self.answers, self.events = answers, []

    def __call__(self, spec, context=None, *, timeout=None):
        name = spec.get("aws_credentials", {}).get("type", spec["driver"])
        way = {"anonymous": "anonymous", "default": "credentials"}.get(name, name)
        fake = self

        class KvStore:
            def read(self, key):
                fake.events.append(("read", way, key))
                return FakeFuture(fake.events, key, fake.answers.get((way, key)))

        return KvStore()


def test_a_refused_probe_key_counts_as_missing_when_another_key_was_read(monkeypatch):
    fake = FakeStores({("anonymous", "a/zarr.json"): REFUSED, ("anonymous", "a/.zarray"): b"{}"})
    monkeypatch.setattr(store, "open_kvstore", fake)
    path = f"s3://{unique_bucket()}/a"
    found = store.read_documents([(path, "zarr.json"), (path, ".zarray"), (path, "info")])
    assert found == {(path, "zarr.json"): None, (path, ".zarray"): b"{}", (path, "info"): None}
    assert {event[1] for event in fake.events if event[0] == "read"} == {"anonymous"}


def test_only_when_every_probe_key_is_refused_is_the_next_way_tried(monkeypatch):
    fake = FakeStores(
        {("anonymous", "a/zarr.json"): REFUSED, ("anonymous", "info"): REFUSED, ("credentials", "info"): b"i"}
    )
    monkeypatch.setattr(store, "open_kvstore", fake)
    bucket = unique_bucket()
    found = store.read_documents([(f"s3://{bucket}/a", "zarr.json"), (f"s3://{bucket}", "info")])
    assert found == {(f"s3://{bucket}/a", "zarr.json"): None, (f"s3://{bucket}", "info"): b"i"}
    assert store.ways(f"s3://{bucket}")[0].name == "credentials"


AWS_CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                            "AWS_SHARED_CREDENTIALS_FILE")


@pytest.fixture
def no_aws_credentials(tmp_path, monkeypatch):
    """An environment where the AWS default credential chain finds nothing: no variable, no credentials file."""
    for name in AWS_CREDENTIAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("configured", [
    {"AWS_ACCESS_KEY_ID": "id"}, {"AWS_PROFILE": "lab"}, {"AWS_WEB_IDENTITY_TOKEN_FILE": "/token"},
    {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials"}, {"credentials file": "~/.aws/credentials"},
    {"AWS_SHARED_CREDENTIALS_FILE": "elsewhere"},
])
def test_the_anonymous_s3_way_confirms_missing_keys_when_credentials_are_configured(
        no_aws_credentials, tmp_path, monkeypatch, configured):
    path = f"s3://{unique_bucket()}/a"
    assert [way.confirm_missing for way in store.ways(path)] == [False, False]
    for name, value in configured.items():
        if name == "credentials file":
            (tmp_path / "home" / ".aws").mkdir(parents=True)
            (tmp_path / "home" / ".aws" / "credentials").write_text("[default]\n")
        elif name == "AWS_SHARED_CREDENTIALS_FILE":
            (tmp_path / value).write_text("[default]\n")
            monkeypatch.setenv(name, str(tmp_path / value))
        else:
            monkeypatch.setenv(name, value)
    confirming = [(way.name, way.confirm_missing) for way in store.ways(path)]
    assert confirming == [("anonymous", True), ("credentials", False)]


def test_keys_all_missing_under_the_anonymous_way_are_looked_for_with_credentials_when_configured(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "id")
    fake = FakeStores({("credentials", "a/zarr.json"): b"{}"})
    monkeypatch.setattr(store, "open_kvstore", fake)
    path = f"s3://{unique_bucket()}/a"
    found = store.read_documents([(path, "zarr.json"), (path, ".zarray")])
    assert found == {(path, "zarr.json"): b"{}", (path, ".zarray"): None}
    assert store.ways(path)[0].name == "credentials"


def test_without_credentials_keys_missing_under_the_anonymous_way_are_missing(no_aws_credentials, monkeypatch):
    fake = FakeStores({("credentials", "a/zarr.json"): b"{}"})
    monkeypatch.setattr(store, "open_kvstore", fake)
    path = f"s3://{unique_bucket()}/a"
    assert store.read_documents([(path, "zarr.json")]) == {(path, "zarr.json"): None}
    assert {event[1] for event in fake.events if event[0] == "read"} == {"anonymous"}


@pytest.mark.parametrize("under_credentials", [None, REFUSED], ids=["missing", "refused"])
def test_keys_credentials_do_not_find_either_are_missing_and_no_way_is_remembered(monkeypatch, under_credentials):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "id")
    fake = FakeStores({("anonymous", "a/.zarray"): REFUSED, ("credentials", "a/zarr.json"): under_credentials,
                       ("credentials", "a/.zarray"): under_credentials})
    monkeypatch.setattr(store, "open_kvstore", fake)
    path = f"s3://{unique_bucket()}/a"
    assert store.read_documents([(path, "zarr.json"), (path, ".zarray")]) == {(path, "zarr.json"): None,
                                                                             (path, ".zarray"): None}
    assert {event[1] for event in fake.events if event[0] == "read"} == {"anonymous", "credentials"}
    assert [way.name for way in store.ways(path)] == ["anonymous", "credentials"]


def test_reads_of_different_stores_are_all_issued_before_any_is_gathered(monkeypatch):
    fake = FakeStores({})
    monkeypatch.setattr(store, "open_kvstore", fake)
    first, second = f"s3://{unique_bucket()}/a", f"s3://{unique_bucket()}/b"
    store.read_documents([(first, "zarr.json"), (second, "zarr.json"), (store.parent(second), "info")])
    kinds = [event[0] for event in fake.events]
    assert kinds == ["read"] * 3 + ["result"] * 3


# -- reading documents from real stores -------------------------------------------------------------------


def test_read_documents_reads_a_memory_store():
    directory = f"memory://{unique_bucket()}/a"
    store.open_kvstore({"driver": "memory", "path": directory[len("memory://") :] + "/"}).write("info", b"{}").result()
    assert store.read_documents([(directory, "info"), (directory, "zarr.json")]) == {
        (directory, "info"): b"{}",
        (directory, "zarr.json"): None,
    }


def test_read_documents_reads_a_local_directory_and_its_parent_at_once(tmp_path):
    (tmp_path / "s0").mkdir()
    (tmp_path / "s0" / ".zarray").write_bytes(b"array")
    (tmp_path / ".zattrs").write_bytes(b"attrs")
    level = str(tmp_path / "s0")
    found = store.read_documents([(level, ".zarray"), (level, "zarr.json"), (str(tmp_path), ".zattrs")])
    assert found == {(level, ".zarray"): b"array", (level, "zarr.json"): None, (str(tmp_path), ".zattrs"): b"attrs"}


def test_local_documents_read_from_the_disk_answer_as_the_file_kvstore_answers(tmp_path):
    (tmp_path / "a.json").write_bytes(b'{"x": 1}')
    (tmp_path / "big").write_bytes(bytes(range(256)) * 9000)  # more than one read of the file
    (tmp_path / "dir").mkdir()
    keys = ["a.json", "big", "dir", "a.json/below", "missing", "dir/missing", "sp ace%20"]
    found = store.read_documents([(str(tmp_path), key) for key in keys])
    kvstore = ts.KvStore.open({"driver": "file", "path": str(tmp_path) + "/"}).result()
    for key in keys:
        answer = kvstore.read(key).result()
        assert found[(str(tmp_path), key)] == (bytes(answer.value) if answer.state == "value" else None), key


def test_a_local_key_the_file_kvstore_refuses_is_refused_as_it_refuses_it(tmp_path):
    (tmp_path / "a").mkdir()
    with pytest.raises(OSError) as raised:
        store.read_documents([(str(tmp_path / "a"), "../a/zarr.json")])
    with pytest.raises(Exception) as direct:
        ts.KvStore.open({"driver": "file", "path": str(tmp_path / "a") + "/"}).result().read("../a/zarr.json").result()
    assert str(direct.value) in str(raised.value)


def test_a_kept_local_open_is_checked_against_the_files_as_they_are_now(tmp_path):
    path = str(tmp_path / "v.zarr" / "s0")
    wa.create(path, (4, 4), "uint8", 2, 1, axes=("y", "x"), chunks=4)
    assert wa.open(path).voxel_size == (2.0, 2.0)
    group = tmp_path / "v.zarr" / "zarr.json"
    document = json.loads(group.read_text())
    document["attributes"]["ome"]["multiscales"][0]["datasets"][0]["coordinateTransformations"][0]["scale"] = [3, 3]
    group.write_text(json.dumps(document))
    assert wa.open(path).voxel_size == (3.0, 3.0)


def test_read_documents_reads_an_http_server_and_a_missing_key_is_none(http_server):  # noqa: F811
    (http_server.root / "vol").mkdir()
    (http_server.root / "vol" / "info").write_bytes(b'{"type": "image"}')
    directory = f"{http_server.url}/vol"
    found = store.read_documents([(directory, "info"), (directory, "zarr.json")])
    assert found == {(directory, "info"): b'{"type": "image"}', (directory, "zarr.json"): None}


def test_an_answer_that_is_not_a_document_raises_naming_the_url(http_server):  # noqa: F811
    (http_server.root / "vol").mkdir()  # the server redirects a directory without its slash: a 301
    with pytest.raises(OSError, match=rf"{http_server.url}/vol: .*301"):
        store.read_documents([(http_server.url, "vol")])


def test_read_documents_reads_a_public_s3_bucket_anonymously(s3_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_server)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    bucket = unique_bucket()
    client = s3_client(s3_server)
    client.create_bucket(Bucket=bucket, ACL="public-read")
    client.put_object(Bucket=bucket, Key="vol/zarr.json", Body=b"{}", ACL="public-read")
    directory = f"s3://{bucket}/vol"
    found = store.read_documents([(directory, "zarr.json"), (directory, ".zarray")])
    assert found == {(directory, "zarr.json"): b"{}", (directory, ".zarray"): None}
    assert store.ways(directory)[0].name == "anonymous"


def test_a_private_s3_bucket_is_read_with_credentials_after_the_anonymous_refusal(s3_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_server)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    bucket = unique_bucket()
    client = s3_client(s3_server)
    client.create_bucket(Bucket=bucket)
    client.put_object(Bucket=bucket, Key="vol/zarr.json", Body=b"private")
    directory = f"s3://{bucket}/vol"
    assert store.read_documents([(directory, "zarr.json")]) == {(directory, "zarr.json"): b"private"}
    assert store.ways(directory)[0].name == "credentials"


def test_a_server_that_never_answers_raises_timeout_error_naming_the_url_and_attempts(silent_server):  # noqa: F811
    directory = f"{silent_server}/vol"
    with pytest.raises(TimeoutError, match=rf"{directory}/info: no answer after 2 attempts"):
        store.read_documents([(directory, "info")], timeout=0.05, attempts=2)


# -- a document's two budgets: error answers (about five seconds), and no answer (the attempts) -------------


def test_a_document_answering_503_forever_is_asked_six_times_in_all(http_server):  # noqa: F811
    with serve_gateway(http_server.url, lambda asked: 503) as gateway:
        directory = f"{gateway.url}/vol"
        with retry.governing(wa.Retry(base_delay=0)), pytest.raises(
                OSError, match=rf"{directory}/info: failed after 6 attempts: .*503"):
            store.read_documents([(directory, "info")])
        assert gateway.count("GET", "/vol/info") == 6


def test_the_pauses_after_error_answers_to_a_document_add_up_to_five_seconds(http_server, monkeypatch):  # noqa: F811
    slept: list[float] = []
    monkeypatch.setattr(retry, "time", types.SimpleNamespace(sleep=slept.append, monotonic=time.monotonic))
    with serve_gateway(http_server.url, lambda asked: 503) as gateway, pytest.raises(OSError, match="503"):
        store.read_documents([(f"{gateway.url}/vol", "info")])
    assert slept == [0.2, 0.4, 0.8, 1.6, 2.0]


def test_a_document_answered_after_two_error_answers_is_read_on_the_third_request(http_server):  # noqa: F811
    (http_server.root / "vol").mkdir()
    (http_server.root / "vol" / "info").write_bytes(b"{}")
    with serve_gateway(http_server.url, lambda asked: 503 if asked.count <= 2 else None) as gateway:
        directory = f"{gateway.url}/vol"
        with retry.governing(wa.Retry(base_delay=0)):
            assert store.read_documents([(directory, "info")]) == {(directory, "info"): b"{}"}
        assert gateway.count("GET", "/vol/info") == 3


def test_a_document_server_that_never_answers_is_asked_once_per_attempt(http_server):  # noqa: F811
    with serve_gateway(http_server.url, lambda asked: HOLD) as gateway:
        with pytest.raises(TimeoutError, match="no answer after 3 attempts"):
            store.read_documents([(f"{gateway.url}/vol", "info")], timeout=0.1, attempts=3)
        assert gateway.count("GET", "/vol/info") == 3


def test_the_opened_kvstore_cache_is_keyed_on_tensorstore_gcs_http_url(monkeypatch):
    monkeypatch.setenv("GCE_METADATA_ROOT", "metadata.invalid")
    directory = f"gs://{unique_bucket()}/vol"
    with serve_bytes(b"first") as first, serve_bytes(b"second") as second:
        monkeypatch.setenv("TENSORSTORE_GCS_HTTP_URL", first.url)
        assert store.read_documents([(directory, "info")]) == {(directory, "info"): b"first"}
        monkeypatch.setenv("TENSORSTORE_GCS_HTTP_URL", second.url)
        assert store.read_documents([(directory, "info")]) == {(directory, "info"): b"second"}


# -- the GCE metadata guard -------------------------------------------------------------------------------


@pytest.mark.parametrize(("product", "google"), [("Google Compute Engine\n", True), ("Standard PC (Q35)\n", False)])
def test_on_google_cloud_is_read_from_the_dmi_product_name(tmp_path, product, google):
    product_file = tmp_path / "product_name"
    product_file.write_text(product)
    assert store.on_google_cloud(str(product_file), environ={}) is google


def test_on_google_cloud_when_a_gce_metadata_variable_is_set(tmp_path):
    missing = str(tmp_path / "absent")
    assert store.on_google_cloud(missing, environ={}) is False
    assert store.on_google_cloud(missing, environ={"GCE_METADATA_HOST": "10.0.0.1"}) is True
    assert store.on_google_cloud(missing, environ={"GCE_METADATA_ROOT": "10.0.0.1"}) is True


def test_the_guard_points_gce_metadata_root_at_a_failing_name_off_google_cloud(tmp_path):
    (tmp_path / "product_name").write_text("Standard PC (Q35)\n")
    environ = {}
    store.guard_gce_metadata(environ, product_name_file=str(tmp_path / "product_name"))
    assert environ == {"GCE_METADATA_ROOT": "metadata.invalid"}


def test_the_guard_leaves_the_environment_alone_on_a_google_machine(tmp_path):
    (tmp_path / "product_name").write_text("Google Compute Engine\n")
    environ = {"HOME": "/home/user"}
    store.guard_gce_metadata(environ, product_name_file=str(tmp_path / "product_name"))
    assert environ == {"HOME": "/home/user"}


def test_the_guard_turned_off_leaves_the_environment_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "GUARD_GCE_METADATA", False)
    environ = {}
    store.guard_gce_metadata(environ, product_name_file=str(tmp_path / "absent"))
    assert environ == {}


# -- zarr v2 compressors ----------------------------------------------------------------------------------


def test_a_local_open_of_a_listed_zarr3_level_reads_its_zarr_json_and_its_groups_alone(tmp_path, monkeypatch):
    from worldarray import handle

    for i in range(2):
        wa.create(tmp_path / f"deep/a/g.zarr/s{i}", (8 >> i,) * 3, "uint8", 2 ** (i + 1), 2**i, chunks=4)
    read: list[tuple[str, str]] = []
    reading = store.from_disk
    monkeypatch.setattr(store, "from_disk", lambda requests: read.extend(requests) or reading(requests))
    handle.forget_opens()
    vol = wa.open(tmp_path / "deep/a/g.zarr/s1")
    assert vol.voxel_size == (4.0, 4.0, 4.0) and read
    group = (tmp_path / "deep/a/g.zarr").as_posix()
    # each zarr.json decides its directory, and the group lists the level: nothing else is worth reading
    assert sorted(read) == [(group, "zarr.json"), (group + "/s1", "zarr.json")], sorted(read)


def test_a_local_open_of_a_precomputed_scale_reads_no_document_above_its_info(tmp_path, monkeypatch):
    from worldarray import handle

    volume = tmp_path / "deep/a/vol"
    ts.open({"driver": "neuroglancer_precomputed", "kvstore": f"file://{volume}/",
             "multiscale_metadata": {"type": "image", "data_type": "uint8", "num_channels": 1},
             "scale_metadata": {"key": "8_8_8", "size": [8, 8, 8], "resolution": [8, 8, 8], "encoding": "raw",
                                "chunk_size": [4, 4, 4]}}, create=True).result()
    read: list[tuple[str, str]] = []
    reading = store.from_disk
    monkeypatch.setattr(store, "from_disk", lambda requests: read.extend(requests) or reading(requests))
    handle.forget_opens()
    vol = wa.open(volume / "8_8_8")
    assert vol.voxel_size == (8.0, 8.0, 8.0) and ((volume.as_posix(), "info") in read), sorted(read)
    # the info names the scale, so no ancestor's document can place it
    assert {directory for directory, _ in read} <= {volume.as_posix(), (volume / "8_8_8").as_posix()}, sorted(read)


def test_a_local_open_of_a_level_its_parent_does_not_list_reads_the_ancestors_that_do(tmp_path):
    wa.create(tmp_path / "crop.zarr/seg/s0", (8, 8, 8), "uint8", 2, 1, chunks=4)
    wa.create(tmp_path / "crop.zarr/seg/s1", (4, 4, 4), "uint8", 4, 2, chunks=4)
    group_doc = tmp_path / "crop.zarr/seg/zarr.json"
    document = json.loads(group_doc.read_text())
    (tmp_path / "crop.zarr/zarr.json").write_text(json.dumps(_paths_prefixed(document, "seg/")))
    group_doc.write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))
    vol = wa.open(tmp_path / "crop.zarr/seg/s1")
    assert vol.levels == ("seg/s0", "seg/s1") and vol.voxel_size == (4.0, 4.0, 4.0)


def _paths_prefixed(document: dict, prefix: str) -> dict:
    """A group document whose multiscales name each level by its path from one directory further up."""
    for multiscale in document["attributes"]["ome"]["multiscales"]:
        for dataset in multiscale["datasets"]:
            dataset["path"] = prefix + dataset["path"]
    return document
