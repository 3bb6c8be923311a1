"""A precomputed scale whose chunks cloud-volume wrote gzip-compressed under ``.gz`` keys is refused, never read
as fill: a local read that finds its first chunk missing beside a ``.gz`` key raises, and so does list_chunks."""

from __future__ import annotations

import gzip
import uuid
from pathlib import Path

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa

SIZE, CHUNK = [16, 16, 8], [8, 8, 4]  # x, y, z as the info spells them


def _precomputed(url: str, gzipped=()) -> np.ndarray:
    """A raw-encoded uint8 scale of distinct values; the chunks named in ``gzipped`` (x-first keys) are moved to
    ``key.gz``, gzip-compressed, as cloud-volume writes them on a local disk."""
    array = ts.open({"driver": "neuroglancer_precomputed", "kvstore": url,
                     "multiscale_metadata": {"type": "image", "data_type": "uint8", "num_channels": 1},
                     "scale_metadata": {"resolution": [4, 4, 40], "encoding": "raw", "chunk_size": CHUNK,
                                        "size": SIZE, "voxel_offset": [0, 0, 0]}, "create": True},
                    context=wa.shared_context()).result()  # the context memory:// stores live in for worldarray
    values = (np.arange(np.prod(SIZE)) % 251 + 1).astype("uint8").reshape(SIZE[::-1])
    array[..., 0] = values.T
    kvstore = ts.KvStore.open(url, context=wa.shared_context()).result()
    for key in gzipped:
        scale_key = f"4_4_40/{key}"
        data = kvstore.read(scale_key).result().value
        kvstore.write(scale_key + ".gz", gzip.compress(data)).result()
        kvstore.delete_range(ts.KvStore.KeyRange(scale_key, scale_key + "\0")).result()
    return values  # z, y, x


def test_a_local_read_whose_first_chunk_is_only_there_as_gz_raises_naming_the_key(tmp_path):
    _precomputed(f"file://{tmp_path}/cv/", gzipped=["0-8_0-8_0-4"])
    vol = wa.open(str(tmp_path / "cv"), level=0)
    with pytest.raises(ValueError, match=r"chunk 0-8_0-8_0-4 is missing and 0-8_0-8_0-4\.gz is there.*cloud-volume"):
        vol.read_index((0, 0, 0), (4, 8, 8))


def test_a_world_read_of_a_gzipped_scale_raises_too(tmp_path):
    _precomputed(f"file://{tmp_path}/cv/", gzipped=["8-16_0-8_0-4"])
    vol = wa.open(str(tmp_path / "cv"), level=0)
    with pytest.raises(ValueError, match=r"8-16_0-8_0-4\.gz"):
        vol.read(((0.0, 0.0, 32.0), (40.0, 32.0, 64.0)))


def test_a_read_of_plain_chunks_beside_sparse_missing_ones_reads_the_values_and_the_fill(tmp_path):
    values = _precomputed(f"file://{tmp_path}/cv/")
    (tmp_path / "cv" / "4_4_40" / "0-8_0-8_0-4").unlink()  # a chunk absent in both spellings: sparse data
    vol = wa.open(str(tmp_path / "cv"), level=0)
    expected = values.copy()
    expected[0:4, 0:8, 0:8] = 0
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), (8, 16, 16)), expected)


def test_a_read_checks_again_while_its_first_chunks_were_missing_in_both_spellings(tmp_path):
    _precomputed(f"file://{tmp_path}/cv/", gzipped=["8-16_0-8_0-4"])
    (tmp_path / "cv" / "4_4_40" / "0-8_0-8_0-4").unlink()
    vol = wa.open(str(tmp_path / "cv"), level=0)
    assert (vol.read_index((0, 0, 0), (4, 8, 8)) == 0).all()  # sparse: nothing decided yet
    with pytest.raises(ValueError, match=r"8-16_0-8_0-4\.gz"):
        vol.read_index((0, 0, 8), (4, 8, 16))


@pytest.mark.parametrize("where", ["file", "memory"])
def test_list_chunks_says_when_chunk_keys_end_in_gz(tmp_path, where):
    url = f"file://{tmp_path}/cv/" if where == "file" else f"memory://gz-{uuid.uuid4().hex}/cv/"
    _precomputed(url, gzipped=["0-8_0-8_0-4", "8-16_8-16_4-8"])
    vol = wa.open(url.rstrip("/") if where == "memory" else str(Path(tmp_path) / "cv"), level=0)
    with pytest.raises(ValueError, match=r"2 chunk keys end in \.gz"):
        vol.list_chunks()


def test_a_memory_scale_is_read_without_the_local_check(tmp_path):
    url = f"memory://gz-{uuid.uuid4().hex}/cv/"
    values = _precomputed(url)
    vol = wa.open(url.rstrip("/"), level=0)
    np.testing.assert_array_equal(vol.read_index((0, 0, 0), (8, 16, 16)), values)
    assert vol._opened.gzipped is None
