"""Opening a level: tensorstore is handed only what it accepts (Convention 8's zarr v2 compressor cleaning), and what
it refuses of a document raises naming the array's path (A21)."""

import json
import uuid

import pytest
import tensorstore as ts

import worldarray as wa
from worldarray.detect import clean_zarr2_metadata

ZARRAY = {
    "zarr_format": 2,
    "shape": [4],
    "chunks": [2],
    "dtype": "<u2",
    "fill_value": 0,
    "order": "C",
    "filters": None,
    "dimension_separator": "/",
}


def open_zarr2(zarray):
    spec = {"driver": "zarr", "kvstore": {"driver": "memory"}, "metadata": zarray}
    return ts.open(spec, create=True).result()


def test_a_zstd_checksum_is_dropped_and_the_cleaned_document_opens_in_tensorstore():
    zarray = {**ZARRAY, "compressor": {"id": "zstd", "level": 3, "checksum": True}}
    with pytest.raises(ValueError, match="checksum"):
        open_zarr2(zarray)
    cleaned = clean_zarr2_metadata(zarray)
    assert cleaned == {**ZARRAY, "compressor": {"id": "zstd", "level": 3}}
    assert open_zarr2(cleaned).shape == (4,)


def test_cleaning_keeps_accepted_members_and_leaves_the_input_unchanged():
    blosc = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}
    zarray = {**ZARRAY, "compressor": {**blosc, "typesize": 2}}
    cleaned = clean_zarr2_metadata(zarray)
    assert cleaned == {**ZARRAY, "compressor": blosc}
    assert zarray["compressor"]["typesize"] == 2
    assert open_zarr2(cleaned).shape == (4,)


def _memory_store(documents) -> str:
    root = f"memory://opening/{uuid.uuid4().hex}"
    kvstore = ts.KvStore.open(root + "/", context=wa.shared_context()).result()
    for key, document in documents.items():
        kvstore.write(key, json.dumps(document)).result()
    return root


def test_a_document_tensorstore_refuses_at_open_raises_naming_the_arrays_path():
    root = _memory_store({".zarray": {**ZARRAY, "compressor": None, "order": "Q"}})
    with pytest.raises(ValueError, match=rf"^{root}: tensorstore cannot open the zarr2 array its documents describe: "
                                         ".*order"):
        wa.open(root, units=None)


def test_a_number_too_large_for_tensorstore_raises_a_value_error_naming_the_arrays_path():
    info = {"type": -2**63 - 1, "data_type": "uint8", "num_channels": 1, "scales": [
        {"key": "4_4_4", "size": [4, 4, 4], "resolution": [4, 4, 4], "chunk_sizes": [[4, 4, 4]], "encoding": "raw"}]}
    root = _memory_store({"info": info})
    with pytest.raises(ValueError, match=rf"^{root}: tensorstore cannot open the precomputed array"):
        wa.open(root, level=0)
