"""Opening a level: tensorstore is handed only what it accepts (Convention 8's zarr v2 compressor cleaning)."""

import pytest
import tensorstore as ts

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
