"""A sharded precomputed scale: its shards are hashed sets of chunks, not boxes, so shard_shape is None, write_shape
is the chunk, and a write takes partial=True (no whole-chunk write is one put)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa

SHARDING = {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 0, "hash": "identity", "minishard_bits": 1,
            "shard_bits": 2, "minishard_index_encoding": "raw", "data_encoding": "raw"}


def _sharded(path) -> None:
    ts.open({"driver": "neuroglancer_precomputed", "kvstore": {"driver": "file", "path": str(path)},
             "multiscale_metadata": {"type": "image", "data_type": "uint8", "num_channels": 1},
             "scale_metadata": {"resolution": [4, 4, 40], "encoding": "raw", "chunk_size": [8, 8, 4],
                                "size": [32, 32, 16], "voxel_offset": [0, 0, 0], "sharding": SHARDING},
             "create": True}).result()


def test_a_sharded_scale_has_no_shard_shape_and_writes_by_the_chunk(tmp_path):
    _sharded(tmp_path / "pc")
    vol = wa.open(str(tmp_path / "pc"), level=0)
    assert vol.meta.shard_shape is None
    assert vol.write_shape == vol.meta.chunk_shape == (4, 8, 8)


def test_a_whole_chunk_write_to_a_sharded_scale_is_refused_and_writes_nothing(tmp_path):
    _sharded(tmp_path / "pc")
    vol = wa.open(str(tmp_path / "pc"), level=0, mode="r+")
    with pytest.raises(ValueError, match=r"4_4_40: a sharded precomputed scale .* pass partial=True"):
        vol.write_index((0, 0, 0), (4, 8, 8), np.ones((4, 8, 8), "uint8"))
    with pytest.raises(ValueError, match="hashed sets of chunks"):
        vol.write_chunk((0, 0, 0), 1)
    assert sorted(os.listdir(tmp_path / "pc")) == ["info"]  # no shard file was written


def test_a_partial_write_to_a_sharded_scale_is_read_back(tmp_path):
    _sharded(tmp_path / "pc")
    vol = wa.open(str(tmp_path / "pc"), level=0, mode="r+")
    data = np.arange(4 * 8 * 8, dtype="uint8").reshape(4, 8, 8)
    vol.write_index((4, 8, 8), (8, 16, 16), data, partial=True)
    np.testing.assert_array_equal(wa.open(str(tmp_path / "pc"), level=0).read_index((4, 8, 8), (8, 16, 16)), data)
