"""The same store read locally, over http, from S3 and from memory:// gives the same placement and voxels."""

import dataclasses
import json

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from servers import s3_client

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
