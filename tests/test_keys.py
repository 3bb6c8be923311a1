"""Chunk keys (Behaviour 15): spelt as tensorstore writes them, parsed back, one parser for every listing.

Each case is one format and key spelling, given in C order; the tensorstore spec that writes it is built from the
same numbers, so the expected keys come from tensorstore's files, never from the implementation.
"""

import itertools
import json
import math
import os

import numpy as np
import pytest
import tensorstore as ts

import worldarray as wa
from worldarray.keys import chunk_indices, chunk_key, key_format, parse_chunk_key

SHAPE, CHUNKS, SHARDS = (3, 5, 6), (2, 2, 4), (2, 4, 4)  # no axis a whole number of chunks: every last unit clipped
ORIGIN = (1, 20, 10)  # precomputed voxel_offset, C order
DOCUMENTS = {"zarr2": ".zarray", "zarr3": "zarr.json", "n5": "attributes.json", "precomputed": "info"}


def _zarr3(encoding, separator, grid=CHUNKS, codecs=None, shape=SHAPE):
    metadata = {"shape": shape, "data_type": "uint8",
                "chunk_key_encoding": {"name": encoding, "configuration": {"separator": separator}},
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}}}
    return {"driver": "zarr3", "metadata": {**metadata, **({"codecs": codecs} if codecs else {})}}


def _precomputed(channels, origin):
    scale = {"size": SHAPE[::-1], "chunk_size": CHUNKS[::-1], "voxel_offset": origin[::-1], "resolution": [1, 1, 1],
             "encoding": "raw"}
    return {"driver": "neuroglancer_precomputed", "scale_metadata": scale,
            "multiscale_metadata": {"type": "image", "data_type": "uint8", "num_channels": channels}}


def _args(separator, chunk_shape=CHUNKS, shape=SHAPE, encoding="default", origin=None):
    return {"separator": separator, "encoding": encoding, "chunk_shape": chunk_shape, "shape": shape, "origin": origin}


def _zarr2(separator):
    metadata = {"shape": SHAPE, "chunks": CHUNKS, "dtype": "|u1", "dimension_separator": separator}
    return {"driver": "zarr", "metadata": metadata}


N5_SPEC = {"driver": "n5", "metadata": {"dimensions": SHAPE[::-1], "blockSize": CHUNKS[::-1], "dataType": "uint8",
                                        "compression": {"type": "raw"}}}
SHARDING = [{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 2, 2]}}]
NEGATIVE = (-1, 0, -3)
#: case id -> (format, chunk_key's arguments, tensorstore spec without kvstore)
CASES = {
    "zarr2-dot": ("zarr2", _args("."), _zarr2(".")),
    "zarr2-slash": ("zarr2", _args("/"), _zarr2("/")),
    "zarr3-default-slash": ("zarr3", _args("/"), _zarr3("default", "/")),
    "zarr3-default-dot": ("zarr3", _args("."), _zarr3("default", ".")),
    "zarr3-v2-dot": ("zarr3", _args(".", encoding="v2"), _zarr3("v2", ".")),
    "zarr3-v2-slash": ("zarr3", _args("/", encoding="v2"), _zarr3("v2", "/")),
    "zarr3-sharded": ("zarr3", _args("/", chunk_shape=SHARDS), _zarr3("default", "/", SHARDS, SHARDING)),
    "n5": ("n5", _args("/"), N5_SPEC),
    "precomputed": ("precomputed", _args(None, origin=ORIGIN), _precomputed(1, ORIGIN)),
    "precomputed-channels": ("precomputed", _args(None, (2,) + CHUNKS, (2,) + SHAPE, origin=(0,) + NEGATIVE),
                             _precomputed(2, NEGATIVE)),
}
LISTABLE = [name for name, (fmt, _, _) in CASES.items() if fmt in ("zarr2", "zarr3")]


def grid(args):
    """Every index on the write grid, C order."""
    counts = (math.ceil(n / c) for n, c in zip(args["shape"], args["chunk_shape"], strict=True))
    return list(itertools.product(*(range(count) for count in counts)))


def files(directory):
    return {os.path.relpath(os.path.join(root, name), directory).replace(os.sep, "/")
            for root, _, names in os.walk(directory) for name in names}


def written(tmp_path, case):
    """Write every unit of the case's array with tensorstore; its directory, parsed documents and scale key."""
    fmt, _, spec = CASES[case]
    store = ts.open({**spec, "kvstore": {"driver": "file", "path": str(tmp_path / "a")}}, create=True).result()
    store.write(np.ones(store.shape, np.uint8)).result()
    docs = {DOCUMENTS[fmt]: json.loads((tmp_path / "a" / DOCUMENTS[fmt]).read_text())}
    scale_key = docs["info"]["scales"][0]["key"] if fmt == "precomputed" else None
    return tmp_path / "a" if scale_key is None else tmp_path / "a" / scale_key, docs, scale_key


@pytest.mark.parametrize("case", CASES)
def test_the_keys_of_every_unit_are_the_files_tensorstore_writes(tmp_path, case):
    fmt, args, _ = CASES[case]
    directory, _, _ = written(tmp_path, case)
    assert {chunk_key(index, fmt, **args) for index in grid(args)} == files(directory) - set(DOCUMENTS.values())


@pytest.mark.parametrize("case", CASES)
def test_parse_chunk_key_inverts_chunk_key_on_every_unit(case):
    fmt, args, _ = CASES[case]
    assert [parse_chunk_key(chunk_key(index, fmt, **args), fmt, **args) for index in grid(args)] == grid(args)


@pytest.mark.parametrize("case", CASES)
def test_key_format_reads_chunk_keys_arguments_from_the_documents(tmp_path, case):
    fmt, args, _ = CASES[case]
    _, docs, scale_key = written(tmp_path, case)
    assert key_format(fmt, docs, scale_key) == args


@pytest.mark.parametrize("case", CASES)
def test_chunk_indices_lists_every_written_unit_in_c_order(tmp_path, case):
    fmt, args, _ = CASES[case]
    _, docs, scale_key = written(tmp_path, case)
    assert chunk_indices(fmt, docs, str(tmp_path / "a"), len(args["shape"]), scale_key) == grid(args)


@pytest.mark.parametrize("case", LISTABLE)
def test_list_chunk_keys_agrees_with_chunk_key(tmp_path, case):
    _, args, _ = CASES[case]
    directory, _, _ = written(tmp_path, case)
    assert wa.list_chunk_keys(directory, separator=args["separator"], ndim=len(SHAPE)) == grid(args)


def test_list_chunks_of_a_sharded_array_is_on_the_shard_grid(tmp_path):
    directory, _, _ = written(tmp_path, "zarr3-sharded")
    assert wa.open(directory, units=None).list_chunks() == grid(CASES["zarr3-sharded"][1])


ZERO_D = {
    "zarr2": {"driver": "zarr", "metadata": {"shape": [], "chunks": [], "dtype": "|u1"}},
    "zarr3": _zarr3("default", "/", grid=(), shape=()), "zarr3-v2": _zarr3("v2", ".", grid=(), shape=()),
    "n5": {"driver": "n5",
           "metadata": {"dimensions": [], "blockSize": [], "dataType": "uint8", "compression": {"type": "raw"}}},
}


@pytest.mark.parametrize("case", ZERO_D)
def test_a_0d_array_has_the_one_key_tensorstore_writes(tmp_path, case):
    array = ts.open({**ZERO_D[case], "kvstore": {"driver": "file", "path": str(tmp_path)}}, create=True).result()
    array.write(1).result()
    fmt, encoding = case.split("-")[0], "v2" if case.endswith("v2") else "default"
    key = chunk_key((), fmt, encoding=encoding)
    assert {key} == files(tmp_path) - set(DOCUMENTS.values())
    assert parse_chunk_key(key, fmt, encoding=encoding, ndim=0) == ()


@pytest.mark.parametrize("fmt,key", [
    ("zarr3", "zarr.json"), ("zarr2", ".zarray"), ("zarr2", ".zattrs"), ("zarr2", ".zgroup"), ("n5", "attributes.json"),
    ("precomputed", "info"),
])
def test_parse_chunk_key_returns_none_for_documents(fmt, key):
    args = {"chunk_shape": CHUNKS, "shape": SHAPE} if fmt == "precomputed" else {}
    assert parse_chunk_key(key, fmt, **args) is None


@pytest.mark.parametrize("ndim", [len(SHAPE) - 1, len(SHAPE) + 1])
def test_parse_chunk_key_returns_none_for_a_key_of_the_wrong_arity(ndim):
    key = chunk_key((0,) * len(SHAPE), "zarr3")
    assert parse_chunk_key(key, "zarr3", ndim=ndim) is None


@pytest.mark.parametrize("key", ["c/0/-1/0", "c/0/x/0", "c/0/1.5/0", "c/0/01/0", "c/0//0", "0/1/0", "c/0/9/0"])
def test_parse_chunk_key_returns_none_for_parts_that_are_not_indices_on_the_grid(key):
    assert parse_chunk_key(key, "zarr3", chunk_shape=CHUNKS, shape=SHAPE) is None


def _precomputed_key(ranges):
    return "_".join(f"{low}-{high}" for low, high in ranges[::-1])


@pytest.mark.parametrize("shift", ["off the grid", "unclipped", "clipped short"])
def test_parse_chunk_key_returns_none_for_precomputed_ranges_off_the_grid_or_wrongly_clipped(shift):
    # the last unit on every axis: its range begins at origin + (units - 1) * chunk and is clipped to origin + shape
    last = [(o + (math.ceil(n / c) - 1) * c, o + n, c) for o, n, c in zip(ORIGIN, SHAPE, CHUNKS, strict=True)]
    ranges = {"off the grid": [(low + 1, high) for low, high, _ in last],
              "unclipped": [(low, low + c) for low, _, c in last],
              "clipped short": [(low, high - 1) for low, high, _ in last]}[shift]
    args = {"chunk_shape": CHUNKS, "shape": SHAPE, "origin": ORIGIN}
    assert parse_chunk_key(_precomputed_key([(low, high) for low, high, _ in last]), "precomputed", **args) is not None
    assert parse_chunk_key(_precomputed_key(ranges), "precomputed", **args) is None


@pytest.mark.parametrize("fmt,encoding,separator,prefix", [
    ("zarr3", "default", "/", "c/1"), ("zarr3", "v2", ".", "1"), ("zarr2", "default", "/", "1"),
])
def test_a_partial_index_is_the_key_prefix_of_its_leading_axes(fmt, encoding, separator, prefix):
    whole = chunk_key((1, 0, 0), fmt, separator, encoding, CHUNKS, SHAPE)
    assert chunk_key((1,), fmt, separator, encoding, CHUNKS, SHAPE) == prefix
    assert whole.startswith(prefix + separator)


def test_a_partial_n5_index_raises_naming_n5():
    with pytest.raises(ValueError, match="n5 keys start with the last axis"):
        chunk_key((1,), "n5", shape=SHAPE)


@pytest.mark.parametrize("given,missing", [
    ({}, "chunk_shape and shape"), ({"shape": SHAPE}, "chunk_shape"), ({"chunk_shape": CHUNKS}, "shape"),
])
def test_precomputed_without_its_grid_raises_naming_what_is_missing(given, missing):
    with pytest.raises(ValueError, match=f"need {missing} "):
        chunk_key((0, 0, 0), "precomputed", **given)


def test_an_unknown_format_raises_listing_the_known_ones():
    with pytest.raises(ValueError, match="format is 'hdf5'; expected one of 'zarr3', 'zarr2', 'n5', 'precomputed'"):
        chunk_key((0,), "hdf5")


def test_an_index_off_the_grid_raises():
    beyond = tuple(math.ceil(n / c) for n, c in zip(SHAPE, CHUNKS, strict=True))
    with pytest.raises(ValueError, match="off the grid"):
        chunk_key(beyond, "zarr3", chunk_shape=CHUNKS, shape=SHAPE)


def test_a_separator_the_format_does_not_take_raises_echoing_it():
    with pytest.raises(ValueError, match="separator is '_'; zarr2 keys take '.' or '/'"):
        chunk_key((0,), "zarr2", separator="_")
