"""The same store read locally, over http, from S3 and from memory:// gives the same placement and voxels."""

import dataclasses
import json
import uuid

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from servers import Asked, s3_client, serve_gateway

VALUES = np.arange(4 * 6 * 8, dtype="uint16").reshape(4, 6, 8)
GROUP_ATTRS = {"ome": {"version": "0.5", "multiscales": [{
    "axes": [{"name": n, "type": "space", "unit": "nanometer"} for n in "zyx"],
    "datasets": [{"path": "s0", "coordinateTransformations": [
        {"type": "scale", "scale": [8.0, 4.0, 4.0]}, {"type": "translation", "translation": [4.0, 2.0, 2.0]}]}],
}]}}


def write_pyramid(kvstore: dict, context=None) -> None:
    """An OME 0.5 zarr v3 group holding s0, written through tensorstore into any kvstore."""
    group = ts.KvStore.open(kvstore, context=context).result()
    group.write("zarr.json", json.dumps({"zarr_format": 3, "node_type": "group", "attributes": GROUP_ATTRS})).result()
    array = ts.open({"driver": "zarr3", "kvstore": {**kvstore, "path": kvstore.get("path", "") + "s0/"}, "create": True,
                     "metadata": {"shape": list(VALUES.shape), "data_type": "uint16",
                                  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3, 4]}}}},
                    context=context).result()
    array[...] = VALUES


def assert_reads_like_local(path: str, local: wa.ArrayMeta) -> None:
    meta = wa.metadata(path, level="s0")
    assert dataclasses.replace(meta, path=local.path, parent=local.parent) == local
    assert np.array_equal(wa.open_tensorstore(path, level="s0").read().result(), VALUES)


@pytest.fixture
def local(tmp_path):
    write_pyramid({"driver": "file", "path": f"{tmp_path}/pyr.zarr/"})
    return tmp_path, wa.metadata(tmp_path / "pyr.zarr", level="s0")


def test_the_local_store_is_placed_by_its_ome_document(local):
    _, meta = local
    assert (meta.voxel_size, meta.translation, meta.placed_by) == ((8, 4, 4), (4, 2, 2), "ome")


def test_file_urls_read_as_local_paths(local):
    root, meta = local
    assert_reads_like_local(f"file://{root}/pyr.zarr", meta)


def test_an_http_store_reads_like_the_local_one(local, http_server):
    root, meta = local
    write_pyramid({"driver": "file", "path": f"{http_server.root}/pyr.zarr/"})
    assert_reads_like_local(f"{http_server.url}/pyr.zarr", meta)


def test_a_memory_store_written_through_the_shared_context_reads_like_the_local_one(local):
    _, meta = local
    write_pyramid({"driver": "memory", "path": "remote-test/pyr.zarr/"}, context=wa.shared_context())
    assert_reads_like_local("memory://remote-test/pyr.zarr", meta)


def test_an_s3_store_named_by_aws_endpoint_url_reads_like_the_local_one(local, s3_server, monkeypatch):
    _, meta = local
    client = s3_client(s3_server)
    client.create_bucket(Bucket="remote-test")
    statement = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                 "Resource": "arn:aws:s3:::remote-test/*"}
    public_read = {"Version": "2012-10-17", "Statement": [statement]}
    client.put_bucket_policy(Bucket="remote-test", Policy=json.dumps(public_read))
    for name, value in {"AWS_ENDPOINT_URL": s3_server, "AWS_REGION": "us-east-1",
                        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    write_pyramid({"driver": "s3", "bucket": "remote-test", "path": "pyr.zarr/", "endpoint": s3_server,
                   "aws_region": "us-east-1"})
    assert_reads_like_local("s3://remote-test/pyr.zarr", meta)


# -- a private bucket behind an endpoint that answers 404 to anonymous requests (moto does) ---------------------


@pytest.fixture
def private_bucket(s3_server, monkeypatch):
    """A new private bucket on the moto server, named by AWS_ENDPOINT_URL, with credentials in the environment.

    moto answers an anonymous request for a key that exists 403 and for one that does not 404, so a path's probe
    keys look missing to the anonymous way: the case some S3-compatible servers make of every anonymous request.
    """
    bucket = f"private-{uuid.uuid4().hex[:12]}"
    s3_client(s3_server).create_bucket(Bucket=bucket)
    for name, value in {"AWS_ENDPOINT_URL": s3_server, "AWS_REGION": "us-east-1",
                        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    return bucket


def test_an_array_in_a_private_bucket_whose_endpoint_answers_404_to_anonymous_requests_opens_with_credentials(
        private_bucket, s3_server):
    write_pyramid({"driver": "s3", "bucket": private_bucket, "path": "pyr.zarr/", "endpoint": s3_server,
                   "aws_region": "us-east-1"})
    vol = wa.open(f"s3://{private_bucket}/pyr.zarr", level="s0")
    assert np.array_equal(vol.read_index((0, 0, 0), VALUES.shape), VALUES)
    assert wa.store.ways(f"s3://{private_bucket}")[0].name == "credentials"


def test_create_in_a_private_bucket_whose_endpoint_answers_404_to_anonymous_requests_works_with_credentials(
        private_bucket):
    vol = wa.create(f"s3://{private_bucket}/new.zarr/s0", VALUES.shape, "uint16", 4, 2, chunks=(2, 3, 4))
    vol.write_index((0, 0, 0), VALUES.shape, VALUES)
    again = wa.open(f"s3://{private_bucket}/new.zarr", level="s0")
    assert np.array_equal(again.read_index((0, 0, 0), VALUES.shape), VALUES)
    assert (again.voxel_size, again.translation) == ((4.0,) * 3, (2.0,) * 3)


def test_levels_added_one_after_another_in_s3_are_all_listed_and_nothing_else_changes(private_bucket):
    group = f"s3://{private_bucket}/levels.zarr"
    wa.create(f"{group}/s0", VALUES.shape, "uint16", 4, 2, chunks=(2, 3, 4), group_attrs={"theirs": 1})
    wa.open_pyramid(group, mode="r+").add_level("s1", factors=2)
    wa.create(f"{group}/s0", VALUES.shape, "uint16", 4, 2, chunks=(2, 3, 4), exists="adopt")
    pyramid = wa.open_pyramid(group)
    assert list(pyramid.names) == ["s0", "s1"]
    assert pyramid.voxel_sizes() == [(4.0,) * 3, (8.0,) * 3]
    assert wa.detect(group).attrs["theirs"] == 1


def refuse_unsigned_writes(asked: Asked) -> int | None:
    """AWS's answer to an anonymous write into a bucket whose policy lets everyone read it: 403."""
    return 403 if asked.method in ("PUT", "POST", "DELETE") and not asked.signed else None


def test_a_write_refused_under_the_anonymous_way_moves_on_to_credentials_and_remembers_them(
        private_bucket, s3_server, monkeypatch):
    readable = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::{private_bucket}/*"}
    s3_client(s3_server).put_bucket_policy(Bucket=private_bucket, Policy=json.dumps(
        {"Version": "2012-10-17", "Statement": [readable]}))
    kvstore = {"driver": "s3", "bucket": private_bucket, "path": "pyr.zarr/", "endpoint": s3_server,
               "aws_region": "us-east-1"}
    write_pyramid(kvstore)
    with serve_gateway(s3_server, refuse_unsigned_writes) as gateway:
        monkeypatch.setenv("AWS_ENDPOINT_URL", gateway.url)
        vol = wa.open(f"s3://{private_bucket}/pyr.zarr", level="s0", mode="r+")  # read anonymously: it is public
        assert wa.store.ways(f"s3://{private_bucket}")[0].name == "anonymous"
        vol.write_index((0, 0, 0), (2, 3, 4), np.full((2, 3, 4), 7, "uint16"))
        assert wa.store.ways(f"s3://{private_bucket}")[0].name == "credentials"
        assert gateway.count("PUT", "/pyr.zarr/s0/c/0/0/0") == 2  # refused unsigned, then written signed
    stored = ts.open({"driver": "zarr3", "kvstore": {**kvstore, "path": "pyr.zarr/s0/"}}, context=ts.Context()).result()
    assert np.array_equal(stored[0:2, 0:3, 0:4].read().result(), np.full((2, 3, 4), 7, "uint16"))
