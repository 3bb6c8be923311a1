"""Convention 8: what a path is, found from its documents alone, and reads that write nothing.

Which array a level= names is test_levels'.
"""

import contextlib
import functools
import hashlib
import json
import pathlib
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import tensorstore as ts

import worldarray as wa
from worldarray import fields
from servers import QuietDirectoryHandler, running
from worldarray.detect import PROBE_KEYS

ZARRAY = {"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|u1", "compressor": None,
          "fill_value": 0, "order": "C", "filters": None}
N5_ARRAY = {"dimensions": [6, 4], "blockSize": [3, 2], "dataType": "uint8", "compression": {"type": "raw"}}
ZARR3_ARRAY = {"zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "uint8",
               "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
               "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes"}], "fill_value": 0}
INFO = {"type": "image", "data_type": "uint8", "num_channels": 1, "scales": [
    {"key": "4_4_4", "size": [6, 4, 2], "resolution": [4, 4, 4], "voxel_offset": [0, 0, 0],
     "chunk_sizes": [[3, 2, 2]], "encoding": "raw"},
    {"key": "8_8_8", "size": [3, 2, 1], "resolution": [8, 8, 8], "voxel_offset": [0, 0, 0],
     "chunk_sizes": [[3, 2, 1]], "encoding": "raw"},
]}


def put(root: pathlib.Path, key: str, document) -> None:
    path = root / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document))


def tree_digest(root: pathlib.Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
            digest.update(str(path.stat().st_mtime_ns).encode())
    return digest.hexdigest()


@pytest.mark.parametrize(
    "key,document,expected",
    [
        ("zarr.json", ZARR3_ARRAY, ("zarr3", "array")),
        ("zarr.json", {"zarr_format": 3, "node_type": "group"}, ("zarr3", "group")),
        (".zarray", ZARRAY, ("zarr2", "array")),
        (".zgroup", {"zarr_format": 2}, ("zarr2", "group")),
        ("info", INFO, ("precomputed", "group")),
        ("attributes.json", N5_ARRAY, ("n5", "array")),
        ("attributes.json", {"n5": "2.0.0"}, ("n5", "group")),
    ],
)
def test_the_first_probe_key_present_decides_format_and_kind(tmp_path, key, document, expected):
    put(tmp_path / "thing", key, document)
    node = wa.detect(tmp_path / "thing")
    assert (node.format, node.kind) == expected
    assert node.path == str(tmp_path / "thing")


def test_the_directory_suffix_never_decides_the_format(tmp_path):
    put(tmp_path / "looks.n5", ".zarray", ZARRAY)
    put(tmp_path / "looks.zarr", "attributes.json", N5_ARRAY)
    assert wa.detect(tmp_path / "looks.n5").format == "zarr2"
    assert wa.detect(tmp_path / "looks.zarr").format == "n5"


def test_a_path_under_a_precomputed_info_is_a_scale_key(tmp_path):
    put(tmp_path / "img", "info", INFO)
    node = wa.detect(tmp_path / "img" / "8_8_8")
    expected = ("precomputed", "array", str(tmp_path / "img"), "8_8_8")
    assert (node.format, node.kind, node.path, node.scale_key) == expected


def test_a_precomputed_s_n_path_names_the_nth_scale(tmp_path):
    put(tmp_path / "img", "info", INFO)
    assert wa.detect(f"precomputed://{tmp_path}/img/s1").scale_key == "8_8_8"


def test_a_group_with_no_document_is_found_through_s0(tmp_path):
    put(tmp_path / "pyr.n5" / "s0", "attributes.json", N5_ARRAY)
    node = wa.detect(tmp_path / "pyr.n5")
    assert (node.format, node.kind, node.docs) == ("n5", "group", {})


def test_missing_ok_returns_none_and_otherwise_the_error_names_the_path(tmp_path):
    assert wa.detect(tmp_path / "nothing", missing_ok=True) is None
    with pytest.raises(FileNotFoundError, match="nothing.*zarr.json"):
        wa.detect(tmp_path / "nothing")


def test_a_document_that_is_not_json_raises_naming_the_file(tmp_path):
    put(tmp_path / "a", ".zarray", "{not json")
    with pytest.raises(ValueError, match=r"a/\.zarray: not valid JSON") as caught:
        wa.detect(tmp_path / "a")
    assert isinstance(caught.value.__cause__, json.JSONDecodeError)


def test_a_document_of_the_wrong_json_type_raises_naming_the_file_and_value(tmp_path):
    put(tmp_path / "a", "zarr.json", [1, 2, 3])
    with pytest.raises(ValueError, match=r"a/zarr\.json: holds a JSON list \[1, 2, 3\]; expected a JSON object"):
        wa.detect(tmp_path / "a")


def test_a_document_nested_20000_lists_deep_raises_a_value_error_naming_the_file_not_a_recursion_error(tmp_path):
    put(tmp_path / "a", "zarr.json", '{"attributes": ' + "[" * 20000 + "]" * 20000 + "}")
    with pytest.raises(ValueError, match=r"a/zarr\.json: nesting is more than 100 levels deep; expected at most 100"):
        wa.detect(tmp_path / "a")


def test_a_document_that_json_parses_but_nests_deeper_than_the_limit_raises_naming_the_file(tmp_path):
    put(tmp_path / "a", ".zgroup", {"zarr_format": 2, "deep": json.loads("[" * 150 + "]" * 150)})
    with pytest.raises(ValueError, match=r"a/\.zgroup: nesting is more than 100 levels deep"):
        wa.detect(tmp_path / "a")


def _nesting(value) -> int:
    """How deeply ``value`` nests lists and objects, walked the plain way."""
    children = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(_nesting, children), default=0)


_TEXTS = st.sampled_from(["a[b", "}{", '\\"]', "[[", "plain"])
_JSON = st.recursive(st.none() | st.integers() | _TEXTS,
                     lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_TEXTS, inner, max_size=2),
                     max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(core=_JSON, depth=st.integers(0, 130), dict_wrap=st.booleans(), marked_strings=st.booleans())
def test_a_document_is_too_deep_exactly_when_its_lists_and_objects_nest_more_than_the_limit(core, depth, dict_wrap,
                                                                                           marked_strings):
    value = core
    key, text, item = ("k[", "]}\\\"", "{[") if marked_strings else ("k", "s", "t")
    for _ in range(depth):  # brackets and escaped quotes inside strings must not count
        value = {key: value, "s": text} if dict_wrap else [item, value]
    raw = json.dumps(value).encode()
    assert fields._deeper_than_allowed(raw) == (_nesting(value) > fields.MAX_DEPTH)


def test_a_precomputed_scale_key_that_is_null_raises_naming_the_info_and_the_entry(tmp_path):
    put(tmp_path / "img", "info", {**INFO, "scales": [{**INFO["scales"][0], "key": None}, INFO["scales"][1]]})
    with pytest.raises(ValueError, match=r"img/info: scales\[0\]\.key is None; expected a string$"):
        wa.detect(tmp_path / "img" / "s0")


@pytest.mark.parametrize("attributes", [True, 5, "s", [1]], ids=["bool", "number", "string", "list"])
def test_zarr3_attributes_that_are_no_object_raise_naming_the_document(tmp_path, attributes):
    put(tmp_path / "a", "zarr.json", {**ZARR3_ARRAY, "attributes": attributes})
    with pytest.raises(ValueError, match=r"a/zarr\.json: attributes is .*; expected an object$"):
        wa.detect(tmp_path / "a")


def test_ome_attrs_unwraps_the_ome_object_of_0_5(tmp_path):
    attributes = {"ome": {"version": "0.5", "multiscales": []}, "fs": 1}
    put(tmp_path / "g", "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": attributes})
    node = wa.detect(tmp_path / "g")
    assert node.ome_attrs == {"version": "0.5", "multiscales": [], "fs": 1}
    assert node.multiscales == []


# ---------------------------------------------------------------- a parent that answers no document


@contextlib.contextmanager
def serve_with_parent_answering(root: pathlib.Path, parent: str, answer: str) -> Iterator[str]:
    """Serve ``root`` over http on 127.0.0.1, except that every document key of the directory ``parent`` answers a
    redirect (``answer="301"``) or an HTML page (``answer="html"``), as a web server's own pages do."""
    documents = {f"/{parent}/{key}" for key in (*PROBE_KEYS, ".zattrs")}

    class Handler(QuietDirectoryHandler):
        def do_GET(self):  # noqa: N802 - the base class's name
            if self.path.split("?")[0] not in documents:
                return super().do_GET()
            body = b"<!DOCTYPE html><html><body>Index of the site</body></html>" if answer == "html" else b""
            self.send_response(301 if answer == "301" else 200)
            self.send_header("Location" if answer == "301" else "Content-Type",
                             f"/{parent}/" if answer == "301" else "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with running(functools.partial(Handler, directory=str(root))) as url:
        yield url


@pytest.mark.parametrize("answer", ["301", "html"])
def test_a_parent_that_answers_no_document_ends_the_search_for_a_multiscales_entry_quietly(tmp_path, answer):
    put(tmp_path / "data" / "vol" / "s0", ".zarray", ZARRAY)
    put(tmp_path / "data" / "vol" / "s0", ".zattrs", {"resolution": [8, 4], "offset": [16, 8], "units": ["nm", "nm"]})
    local = wa.open(tmp_path / "data" / "vol" / "s0")  # locally the parent holds no document at all
    with serve_with_parent_answering(tmp_path, "data/vol", answer) as url, warnings.catch_warnings():
        warnings.simplefilter("error")
        remote = wa.open(f"{url}/data/vol/s0")
    assert (remote.meta.placed_by, remote.voxel_size, remote.translation) == (
        local.meta.placed_by, local.voxel_size, local.translation)


# ---------------------------------------------------------------- reads write nothing


def ome_zarr2_pyramid(root: pathlib.Path) -> pathlib.Path:
    group = root / "pyr.zarr"
    put(group, ".zgroup", {"zarr_format": 2})
    datasets = [{"path": f"s{i}", "coordinateTransformations": [{"type": "scale", "scale": [4 * 2**i] * 2}]}
                for i in range(2)]
    axes = [{"name": n, "type": "space", "unit": "nm"} for n in "yx"]
    put(group, ".zattrs", {"multiscales": [{"version": "0.4", "axes": axes, "datasets": datasets}]})
    put(group / "s0", ".zarray", ZARRAY)
    put(group / "s1", ".zarray", {**ZARRAY, "shape": [2, 3]})
    return group


def test_reads_write_nothing_even_when_they_fail(tmp_path):
    group = ome_zarr2_pyramid(tmp_path)
    s0 = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": str(group / "s0")}, "open": True}).result()
    s0[...] = np.ones((4, 6), "u1")
    put(tmp_path / "broken", ".zarray", "{")
    before = tree_digest(tmp_path)
    wa.detect(group)
    wa.metadata(group, level="s0")
    wa.metadata(group, level="s1", open=False, units="micrometer")
    assert wa.open_tensorstore(group, level=0).read().result().sum() == 24
    failing = [
        (lambda: wa.metadata(group), ValueError, "is a group; name a level"),
        (lambda: wa.detect(tmp_path / "broken"), ValueError, r"broken/\.zarray: not valid JSON"),
        (lambda: wa.metadata(tmp_path / "none"), FileNotFoundError, "none: no array or group here"),
    ]
    for call, error, match in failing:
        with pytest.raises(error, match=match):
            call()
    assert tree_digest(tmp_path) == before


@pytest.mark.parametrize("missing_ok", [False, True])
def test_detect_times_out_under_its_retries(silent_server, missing_ok):
    policy = wa.Retry(timeout=0.1, max_attempts=2, base_delay=0)
    with pytest.raises(TimeoutError, match=rf"{silent_server}/v\.zarr/zarr\.json.*no answer after 2 attempts"):
        wa.detect(f"{silent_server}/v.zarr", missing_ok=missing_ok, retries=policy)


# ---------------------------------------------------------------- each document parsed once per reading open


def test_a_reading_open_parses_each_document_it_reads_once(tmp_path, monkeypatch):
    import importlib

    from worldarray import handle

    detect = importlib.import_module("worldarray.detect")  # wa.detect is the function
    for i in range(2):
        wa.create(tmp_path / f"g.zarr/s{i}", (8 >> i,) * 3, "uint8", 2 ** (i + 1), 2**i, chunks=4)
    parsed = []
    monkeypatch.setattr(detect, "document", lambda raw, url: parsed.append(url) or fields.document(raw, url))
    handle.forget_opens()
    vol = wa.open(tmp_path / "g.zarr", level="s1")
    assert vol.shape == (4, 4, 4) and vol.voxel_size == (4.0, 4.0, 4.0)
    assert parsed and len(parsed) == len(set(parsed)), sorted(parsed)


def test_a_block_that_may_write_parses_a_document_every_time_it_is_asked():
    from worldarray import rounds

    calls = []
    raw = b'{"zarr_format": 3}'

    def parse(text):
        calls.append(text)
        return json.loads(text)

    reading, writing = rounds.Answers(prune=True), rounds.Answers(prune=False)
    for answers in (reading, writing):
        first = answers.parsed_once(("a", "zarr.json"), raw, parse)
        assert answers.parsed_once(("a", "zarr.json"), raw, parse) == first
    assert len(calls) == 3  # once in the reading block, twice in the writing one
    reading.parsed_once(("a", "zarr.json"), bytes(bytearray(raw)), parse)  # the document read again: parsed again
    assert len(calls) == 4
