"""A21: a malformed document of any format raises ValueError (or FileNotFoundError) naming its path, never a bare
TypeError, KeyError, IndexError, AttributeError, RecursionError or ZeroDivisionError from inside the package.

Each example takes a valid store of one format (the formats come from ``worldarray.metadata.FORMATS``), replaces
one field of one of its documents, at any depth, with a value of another type (or deletes it), writes the store
under a fresh ``memory://`` prefix and calls ``detect``, ``metadata(open=False)``, ``open`` and ``open_pyramid`` on
it. Each call either succeeds or raises one of the documented errors with the prefix in its message.
"""

from __future__ import annotations

import json
import uuid
import warnings
from typing import Any

import pytest
import tensorstore as ts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import worldarray as wa
from worldarray.metadata import FORMATS

# ---------------------------------------------------------------- valid stores, one or more per format

_ZARRAY = {"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|u1", "compressor": None,
           "fill_value": 0, "order": "C", "filters": None}
_AXES = [{"name": "y", "type": "space", "unit": "nanometer"}, {"name": "x", "type": "space", "unit": "nanometer"}]
_OME_MULTISCALE = {"version": "0.4", "name": "img", "axes": _AXES,
                   "datasets": [{"path": "s0", "coordinateTransformations": [
                       {"type": "scale", "scale": [4.0, 4.0]}, {"type": "translation", "translation": [2.0, 2.0]}]}],
                   "coordinateTransformations": [{"type": "scale", "scale": [1.0, 1.0]}]}
_COSEM_MULTISCALE = {"name": "img", "datasets": [{"path": "s0", "transform": {
    "axes": ["y", "x"], "units": ["nm", "nm"], "scale": [4.0, 4.0], "translate": [2.0, 2.0], "ordering": "C"}}]}
_ZARR3_ARRAY = {"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "uint8",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
                "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes"}], "fill_value": 0,
                "dimension_names": ["y", "x"], "attributes": {}}
_SHARDED = {**_ZARR3_ARRAY, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 3], "codecs": [{"name": "bytes"}], "index_codecs": [{"name": "bytes"}]}}],
            "attributes": {"dimension_units": ["4 nm", "4 nm"]}}
_N5_ARRAY = {"dimensions": [6, 4], "blockSize": [3, 2], "dataType": "uint8", "compression": {"type": "raw"}}
_INFO = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [
    {"key": "4_4_4", "size": [6, 4, 2], "resolution": [4, 4, 4], "voxel_offset": [0, 0, 0],
     "chunk_sizes": [[3, 2, 2]], "encoding": "raw"},
    {"key": "8_8_8", "size": [3, 2, 1], "resolution": [8, 8, 8], "voxel_offset": [1, 0, 0],
     "chunk_sizes": [[3, 2, 1]], "encoding": "raw"}]}

#: Per format, the valid stores: (name, {key under the store: document}, the array's path under the store, and
#: whether the store's root is a group).
STORES: dict[str, list[tuple[str, dict[str, Any], str, bool]]] = {
    "zarr2": [
        ("ome 0.4", {".zgroup": {"zarr_format": 2}, ".zattrs": {"multiscales": [_OME_MULTISCALE]},
                     "s0/.zarray": _ZARRAY, "s0/.zattrs": {"_ARRAY_DIMENSIONS": ["y", "x"]}}, "s0", True),
        ("cosem", {".zgroup": {"zarr_format": 2}, ".zattrs": {"multiscales": [_COSEM_MULTISCALE]},
                   "s0/.zarray": _ZARRAY}, "s0", True),
        ("funlib on the group", {".zgroup": {"zarr_format": 2}, ".zattrs": {"voxel_size": [4, 4]},
                                 "s0/.zarray": _ZARRAY}, "s0", True),
        ("funlib", {".zarray": _ZARRAY, ".zattrs": {"resolution": [4, 4], "offset": [8, 8], "units": ["nm", "nm"],
                                                    "axis_names": ["y", "x"]}}, "", False),
    ],
    "zarr3": [
        ("ome 0.5", {"zarr.json": {"zarr_format": 3, "node_type": "group", "attributes": {
            "ome": {"version": "0.5", "multiscales": [{**_OME_MULTISCALE, "version": None}]}}},
            "s0/zarr.json": _ZARR3_ARRAY}, "s0", True),
        ("dimension_units, sharded", {"zarr.json": _SHARDED}, "", False),
        ("ome 0.6 coordinate systems", {"zarr.json": {"zarr_format": 3, "node_type": "group", "attributes": {
            "ome": {"version": "0.6", "multiscales": [{"coordinateSystems": [{"name": "intrinsic", "axes": _AXES}],
                                                       "datasets": [{"path": "s0", "coordinateTransformations": [
                                                           {"type": "scale", "scale": [4.0, 4.0],
                                                            "input": "s0", "output": "intrinsic"}]}]}]}}},
            "s0/zarr.json": _ZARR3_ARRAY}, "s0", True),
    ],
    "n5": [
        ("cosem multiscales", {"attributes.json": {"n5": "2.0.0", "multiscales": [_COSEM_MULTISCALE]},
                               "s0/attributes.json": _N5_ARRAY}, "s0", True),
        ("resolution", {"attributes.json": {**_N5_ARRAY, "resolution": [4, 4], "offset": [8, 8],
                                            "units": ["nm", "nm"], "axes": ["x", "y"]}}, "", False),
        ("factor list", {"attributes.json": {"n5": "2.0.0", "scales": [[1, 1], [2, 2]], "axes": ["x", "y"],
                                             "pixelResolution": {"dimensions": [4, 4], "unit": "nm"}},
                         "s0/attributes.json": _N5_ARRAY,
                         "s1/attributes.json": {**_N5_ARRAY, "dimensions": [3, 2], "downsamplingFactors": [2, 2],
                                                "offset": [0, 0]}}, "s1", True),
    ],
    "precomputed": [("two scales", {"info": _INFO}, "", True)],
}


def test_every_format_the_package_reads_has_a_store_here():
    assert set(STORES) == set(FORMATS)


# ---------------------------------------------------------------- one field replaced

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.integers(), st.floats(), st.text(max_size=4))
_WRONG = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=3), _SCALARS, max_size=2),
    st.integers(95, 130).map(lambda depth: json.loads("[" * depth + "]" * depth)),  # deeper than any document needs
)
_DELETED = object()


def _locations(value: Any, at: tuple = ()) -> list[tuple]:
    """Every place in a document a value sits: a key path from the top, the top itself first."""
    found = [at]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found += _locations(child, (*at, key))
    return found


def _replaced(document: Any, at: tuple, new: Any) -> Any:
    if not at:
        return new
    copy = json.loads(json.dumps(document))
    holder = copy
    for key in at[:-1]:
        holder = holder[key]
    if new is _DELETED and isinstance(holder, dict):
        del holder[at[-1]]
    else:
        holder[at[-1]] = None if new is _DELETED else new
    return copy


@st.composite
def malformed_stores(draw):
    """A store of one format (its name, documents, array path, whether it is a group) with one field replaced."""
    fmt = draw(st.sampled_from(FORMATS))
    name, documents, array, group = draw(st.sampled_from(STORES[fmt]))
    key = draw(st.sampled_from(sorted(documents)))
    at = draw(st.sampled_from(_locations(documents[key])))
    new = draw(st.one_of(_WRONG, st.just(_DELETED)) if at else _WRONG)
    return f"{fmt} {name}", {**documents, key: _replaced(documents[key], at, new)}, array, group


def _written(documents: dict[str, Any]) -> str:
    root = f"memory://malformed/{uuid.uuid4().hex}"
    kvstore = ts.KvStore.open(root + "/", context=wa.shared_context()).result()
    for key, document in documents.items():
        kvstore.write(key, json.dumps(document)).result()
    return root


def _calls(root: str, array: str, group: bool):
    path = f"{root}/{array}" if array else root
    level = 0 if group and not array else None
    yield "detect", lambda: wa.detect(path)
    yield "metadata", lambda: wa.metadata(path, level=level, open=False)
    yield "open", lambda: wa.open(path, level=level)
    if group:
        yield "open_pyramid", lambda: wa.open_pyramid(root)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(malformed_stores())
def test_a_malformed_document_of_any_format_opens_or_raises_a_documented_error_naming_the_path(store):
    name, documents, array, group = store
    root = _written(documents)
    for call, run in _calls(root, array, group):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                run()
            except (ValueError, FileNotFoundError) as error:
                assert root in str(error), f"{name}, {call}: {type(error).__name__} names no path: {error}"
            except Exception as error:  # noqa: BLE001 - anything else is the failure this test looks for
                pytest.fail(f"{name}, {call}: {type(error).__name__}: {error}\n{json.dumps(documents)[:2000]}")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_document_is_decoded_as_json_decodes_bytes(encoding):
    from worldarray.fields import document

    text = '{"zarr_format": 3, "attributes": {"name": "\u00e9t\u00e9"}}'
    raw = text.encode(encoding)
    assert document(raw, "a/zarr.json") == json.loads(raw) == json.loads(text)
