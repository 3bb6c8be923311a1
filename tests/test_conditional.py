"""Group documents on S3 are written under their conditions, and an endpoint that ignores them is reported.

tensorstore talks to a moto server through a recorder on 127.0.0.1 (``AWS_ENDPOINT_URL_S3`` names the recorder),
which keeps the method, path, headers and body of every request; with ``strip_conditions`` it passes requests on
without ``If-Match`` and ``If-None-Match``, as a store that ignores write conditions treats them.
"""

from __future__ import annotations

import json
import re
import uuid
import warnings

import pytest
import tensorstore as ts

import worldarray as wa
from conftest import together
from servers import Recorder, s3_client, serve_recorder
from worldarray import conditional

SHAPE, CHUNKS = (8, 8, 8), (4, 4, 4)
THREADS = 6
GROUP_DOCUMENTS = ("zarr.json", ".zattrs", ".zgroup", ".zmetadata")
IGNORED = "ignored a write condition"


@pytest.fixture
def bucket(s3_server, monkeypatch) -> str:
    """A new private bucket on the moto server, with moto's credentials in the environment."""
    name = f"cond-{uuid.uuid4().hex[:12]}"
    s3_client(s3_server).create_bucket(Bucket=name)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    for variable, value in {"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing",
                            "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(variable, value)
    return name


def _through(recorder: Recorder, monkeypatch) -> Recorder:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", recorder.url)
    return recorder


def _make(path: str, **kwargs) -> wa.WorldArray:
    args = dict(shape=SHAPE, dtype="uint8", voxel_size=(4, 4, 4), translation=(2, 2, 2), chunks=CHUNKS)
    args.update(kwargs)
    return wa.create(path, **args)


def _stored(s3_server: str, bucket: str) -> dict[str, bytes]:
    client = s3_client(s3_server)
    keys = [entry["Key"] for entry in client.list_objects_v2(Bucket=bucket).get("Contents", [])]
    return {key: client.get_object(Bucket=bucket, Key=key)["Body"].read() for key in keys}


def _group_directories(stored: dict[str, bytes]) -> set[str]:
    """The directories that hold a group, as stored at the end: a .zgroup, or a zarr.json of node_type group."""
    groups = {key.rpartition("/")[0] for key in stored if key.endswith(".zgroup")}
    return groups | {key.rpartition("/")[0] for key, data in stored.items()
                     if key.endswith("zarr.json") and json.loads(data).get("node_type") == "group"}


def _conditioned(headers: dict[str, str]) -> bool:
    return "if-match" in headers or headers.get("if-none-match") == "*"


def _listed(group: str) -> list[str]:
    return sorted(wa.open_pyramid(group).names)


def test_every_put_of_a_group_document_carries_its_condition(s3_server, bucket, monkeypatch):
    with serve_recorder(s3_server) as recorder, warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        _through(recorder, monkeypatch)
        client = s3_client(s3_server)
        consolidated = {"zarr_consolidated_format": 1, "metadata": {".zgroup": {"zarr_format": 2}, ".zattrs": {}}}
        for key, document in {"v2.zarr/.zgroup": {"zarr_format": 2}, "v2.zarr/.zattrs": {},
                              "v2.zarr/.zmetadata": consolidated}.items():
            client.put_object(Bucket=bucket, Key=key, Body=json.dumps(document).encode())
        group = f"s3://{bucket}/set.zarr/em"
        _make(f"{group}/s0")
        wa.open_pyramid(group, mode="r+").add_level("s1", factors=2)
        wa.ensure_group_entry(group, "s0", (4, 4, 4), (6, 6, 6))
        _make(f"s3://{bucket}/v2.zarr/s0")
        _make(f"s3://{bucket}/new2.zarr/s0", format="zarr2")
    stored = _stored(s3_server, bucket)
    groups = _group_directories(stored)
    prefix = f"/{bucket}/"
    puts = [sent for sent in recorder.sent if sent.method == "PUT" and sent.path.startswith(prefix)]
    of_groups = [sent for sent in puts if sent.path[len(prefix):].rpartition("/")[0] in groups
                 and sent.path.rpartition("/")[2] in GROUP_DOCUMENTS]
    bare = [f"{sent.method} {sent.path}" for sent in of_groups if not _conditioned(sent.headers)]
    assert not bare, f"group documents written without their condition: {bare}"
    written = {sent.path[len(prefix):] for sent in of_groups}
    assert {"set.zarr/zarr.json", "set.zarr/em/zarr.json", "v2.zarr/.zattrs", "v2.zarr/.zmetadata",
            "new2.zarr/.zgroup", "new2.zarr/.zattrs"} <= written, written
    assert _listed(group) == ["s0", "s1"]
    assert json.loads(stored["v2.zarr/.zmetadata"])["metadata"]["s0/.zarray"]["shape"] == list(SHAPE)
    # the check of the endpoint, refused: its PUT, or before 0.1.74 the HEAD tensorstore peeks with first
    refused = [f"{sent.method} {sent.path}" for sent in recorder.sent if sent.status == 412]
    assert refused in ([f"PUT {prefix}set.zarr/em/zarr.json"], [f"HEAD {prefix}set.zarr/em/zarr.json"]), refused
    assert not [w for w in warned if IGNORED in str(w.message)]


def test_concurrent_creators_on_s3_lose_no_dataset_entry(s3_server, bucket, monkeypatch):
    group = f"s3://{bucket}/g.zarr"
    with serve_recorder(s3_server) as recorder:
        _through(recorder, monkeypatch)
        _make(f"{group}/s0")
        recorder.hold_together("PUT", "/g.zarr/zarr.json", THREADS)  # every writer read the same generation
        calls = [lambda i=i: _make(f"{group}/s{i}", voxel_size=(4 * i,) * 3) for i in range(1, THREADS + 1)]
        outcomes = together(calls)
        assert [kind for kind, _ in outcomes] == ["ok"] * THREADS, outcomes
        assert _listed(group) == sorted(["s0"] + [f"s{i}" for i in range(1, THREADS + 1)])
    refused = [sent for sent in recorder.sent if sent.method == "PUT" and sent.path.endswith("/g.zarr/zarr.json")
               and sent.status == 412]
    assert len(refused) >= THREADS - 1, "the writes that collided were not refused"


def test_an_endpoint_that_ignores_write_conditions_is_warned_about_by_endpoint_and_bucket(
        s3_server, bucket, monkeypatch):
    group = f"s3://{bucket}/g.zarr"
    with serve_recorder(s3_server, strip_conditions=True) as recorder:
        _through(recorder, monkeypatch)
        with pytest.warns(UserWarning, match=f"{re.escape(recorder.url)}, bucket {bucket}: .*{IGNORED}"):
            _make(f"{group}/s0")
        with warnings.catch_warnings(record=True) as again:
            warnings.simplefilter("always")
            _make(f"{group}/s1", voxel_size=(8, 8, 8), translation=(4, 4, 4))
    assert not [w for w in again if IGNORED in str(w.message)], "warned twice for one endpoint and bucket"
    writes = [sent for sent in recorder.sent if sent.method == "PUT" and sent.path.endswith("g.zarr/zarr.json")]
    check = next(i for i, sent in enumerate(writes) if i and sent.headers.get("if-none-match") == "*")
    assert writes[check].body == writes[check - 1].body  # the document as it was: the check changed nothing
    assert _listed(group) == ["s0", "s1"]


@pytest.mark.parametrize("takes_member", [True, False], ids=["0.1.74 and later", "0.1.72 and 0.1.73"])
def test_the_document_spec_asks_for_conditional_writes_where_tensorstore_takes_the_member(monkeypatch, takes_member):
    monkeypatch.setattr(conditional, "accepted", lambda: takes_member)
    spec = conditional.asked_for({"driver": "s3", "bucket": "some-bucket", "path": "g.zarr/"})
    assert spec.get(conditional.MEMBER) is (True if takes_member else None)


def test_the_installed_tensorstore_is_asked_for_conditional_writes_exactly_when_it_parses_the_member():
    try:
        ts.KvStore.Spec({"driver": "s3", "bucket": "some-bucket", conditional.MEMBER: True})
        parses = True
    except ValueError:  # 0.1.72 and 0.1.73: "Object includes extra members"
        parses = False
    assert conditional.accepted() is parses
    ts.KvStore.Spec(conditional.asked_for({"driver": "s3", "bucket": "some-bucket"}))  # what it is given, it parses
