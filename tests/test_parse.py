"""Every case of fixtures/metadata.json is placed by the pure parser from plain dicts, with no store at all.

Metadata parsing does no I/O, so a case's placement must follow from its documents alone. Each case's documents are
built here as the dicts its store would hold (the documents conftest's builders write through tensorstore), put
into the ``Source`` record the package's detection would make of them (``detect.gather`` and ``source_of``,
``levels.resolve``, with s0's document beside an N5 level its group's factor list places, and the grid-mapping
variables a zarr array's ``grid_mapping`` names beside it, as ``siblings`` reads them), parsed with
``worldarray.metadata.parse`` and held to the case's expect by the same checks test_conformance applies. Every case
of the fixture is reproducible this way; none needs I/O.
"""

from __future__ import annotations

import builtins
import posixpath
import re

import numpy as np
import pytest

from metadata_cases import CASES, assert_placement, parametrize_cases, warning_rule
from worldarray import ome
from worldarray.metadata import Document, Source, parse

ROOT = "/fixture/case"  # where a case's store is imagined to be; nothing is read or written anywhere

placed_cases = [case for case in CASES if not case["expect"]["raises"]]
raising_cases = [case for case in CASES if case["expect"]["raises"]]
kept_cases = [case for case in placed_cases if case["expect"]["attrs_kept"] or case["expect"]["group_attrs_kept"]]


# ---------------------------------------------------------------- the documents a case's store holds


def zarr2_array(array: dict) -> dict:
    # the compressor and fill value tensorstore writes when a spec names neither, as conftest's don't
    blosc = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1, "blocksize": 0}
    zarray = {"zarr_format": 2, "shape": array["shape"], "chunks": array["chunks"],
              "dtype": np.dtype(array["dtype"]).str, "compressor": blosc, "fill_value": None, "order": "C",
              "filters": None}
    zarray.update(array.get("document", {}))
    return {".zarray": zarray, **({".zattrs": array["attrs"]} if array.get("attrs") else {})}


def zarr3_array(array: dict) -> dict:
    bytes_codec = {"name": "bytes", "configuration": {"endian": "little"}}
    grid, codecs = array["chunks"], [bytes_codec]
    if array.get("shards"):
        grid = array["shards"]
        codecs = [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": array["chunks"], "codecs": [bytes_codec],
            "index_codecs": [bytes_codec, {"name": "crc32c"}]}}]
    doc = {"zarr_format": 3, "node_type": "array", "shape": array["shape"], "data_type": array["dtype"],
           "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
           "chunk_key_encoding": {"name": "default"}, "codecs": codecs, "fill_value": 0}
    doc.update(array.get("document", {}))
    doc["attributes"] = {**doc.get("attributes", {}), **array.get("attrs", {})}
    return {"zarr.json": doc}


def n5_array(array: dict) -> dict:
    # N5 lists are x-first; the attributes sit beside the array's own members in one document
    created = {"dimensions": array["shape"][::-1], "blockSize": array["chunks"][::-1], "dataType": array["dtype"],
               "compression": {"type": "raw"}, **array.get("document", {})}
    return {"attributes.json": {**created, **array.get("attrs", {})}}


def precomputed(volume: dict) -> dict:
    return {"info": volume["info"]}


def zarr2_group(group: dict) -> dict:
    return {".zgroup": {"zarr_format": 2}, **({".zattrs": group["attrs"]} if group.get("attrs") else {})}


def zarr3_group(group: dict) -> dict:
    return {"zarr.json": {"zarr_format": 3, "node_type": "group", "attributes": group.get("attrs", {})}}


def n5_group(group: dict) -> dict:
    return {"attributes.json": group.get("attrs", {})}


DOCUMENTS = {"zarr2": zarr2_array, "zarr3": zarr3_array, "n5": n5_array, "precomputed": precomputed}
GROUP_DOCUMENTS = {"zarr2": zarr2_group, "zarr3": zarr3_group, "n5": n5_group}


def documents(case: dict) -> dict[str, dict[str, dict]]:
    """Every document of a case's store: directory under ROOT -> key -> document, as conftest's build_store writes."""
    store, found = case["store"], {}
    for group in store.get("groups", []):
        found.setdefault(posixpath.join(ROOT, group["path"]), {}).update(GROUP_DOCUMENTS[group["format"]](group))
    for array in store.get("arrays", []):
        found.setdefault(posixpath.join(ROOT, array["path"]), {}).update(DOCUMENTS[array["format"]](array))
    for volume in store.get("precomputed", []):
        found.setdefault(posixpath.join(ROOT, volume["path"]), {}).update(DOCUMENTS["precomputed"](volume))
    return found


# ---------------------------------------------------------------- the Source detection makes of them

#: The key holding a node's user attributes, and the key holding an array's own document.
ATTRS_KEY = {"zarr3": "zarr.json", "zarr2": ".zattrs", "n5": "attributes.json", "precomputed": "info"}
ARRAY_KEY = {"zarr3": "zarr.json", "zarr2": ".zarray", "n5": "attributes.json"}


def _url(directory: str, key: str) -> str:
    return f"{directory}/{key}"


def node_of(docs: dict) -> tuple[str, str] | None:
    """(format, kind) from the first probe key present: zarr.json, .zarray, .zgroup, info, attributes.json."""
    if "zarr.json" in docs:
        return "zarr3", docs["zarr.json"]["node_type"]
    if ".zarray" in docs:
        return "zarr2", "array"
    if ".zgroup" in docs:
        return "zarr2", "group"
    if "info" in docs:
        return "precomputed", "group"
    if "attributes.json" in docs:
        return "n5", "array" if "dimensions" in docs["attributes.json"] else "group"
    return None


def user_attrs(fmt: str, docs: dict) -> dict:
    if fmt == "zarr3":
        return dict(docs["zarr.json"].get("attributes") or {})
    if fmt == "n5":
        return dict(docs["attributes.json"])
    if fmt == "precomputed":
        return {key: value for key, value in docs["info"].items() if key != "scales"}
    return dict(docs.get(".zattrs") or {})


def parent_document(store: dict, directory: str) -> Document:
    """The parent is probed like the array itself; one that holds no document still comes first, empty."""
    docs = store.get(directory, {})
    found = node_of(docs)
    if found is None:
        return Document(directory, _url(directory, ".zattrs"), {})
    return Document(directory, _url(directory, ATTRS_KEY[found[0]]), user_attrs(found[0], docs))


def ancestor_document(store: dict, directory: str) -> Document:
    """An ancestor above the parent is read for its OME documents only: zarr.json, else .zattrs."""
    docs = store.get(directory, {})
    if "zarr.json" in docs:
        return Document(directory, _url(directory, "zarr.json"), user_attrs("zarr3", docs))
    return Document(directory, _url(directory, ".zattrs"), user_attrs("zarr2", docs))


def ancestors(store: dict, path: str) -> tuple[Document, ...]:
    """The parent's document, then up to three further ancestors' below the filesystem root."""
    parent = posixpath.dirname(path)
    chain = [parent_document(store, parent)]
    directory = posixpath.dirname(parent)
    while directory != "/" and len(chain) < 4:
        chain.append(ancestor_document(store, directory))
        directory = posixpath.dirname(directory)
    return tuple(chain)


def first_level(store: dict, path: str) -> Document | None:
    """s0's document, which detection reads beside an N5 level sN (N >= 1) of an N5 group listing its levels'
    factors (a ``scales`` or ``downsamplingFactors`` list of lists), for the level's shape check."""
    parent, name = posixpath.split(path)
    group = store.get(parent, {}).get("attributes.json")
    first = store.get(posixpath.join(parent, "s0"), {}).get("attributes.json")
    if group is None or "dimensions" in group or first is None or not re.fullmatch(r"s[1-9][0-9]*", name):
        return None
    if not any(isinstance(group.get(key), list) and any(isinstance(entry, list) for entry in group[key])
               for key in ("scales", "downsamplingFactors")):
        return None
    directory = posixpath.join(parent, "s0")
    return Document(directory, _url(directory, "attributes.json"), first)


def related(store: dict, path: str, fmt: str, attrs: dict) -> dict[str, Document]:
    """The attribute documents of the grid-mapping variables beside a zarr array that its ``grid_mapping`` names
    (the plain form, or CF's extended "name: coordinates ..."), by name, where they exist."""
    value = attrs.get("grid_mapping")
    if fmt not in ("zarr2", "zarr3") or not isinstance(value, str):
        return {}
    names = re.findall(r"([^\s:]+):", value) if ":" in value else [value.strip()]
    found = {}
    for name in names:
        directory = posixpath.join(posixpath.dirname(path), name)
        if node_of(store.get(directory, {})) is not None:
            docs = store[directory]
            found[name] = Document(directory, _url(directory, ATTRS_KEY[fmt]), user_attrs(fmt, docs))
    return found


def array_source(store: dict, path: str) -> Source:
    docs = store[path]
    fmt, _ = node_of(docs)
    own = Document(path, _url(path, ATTRS_KEY[fmt]), user_attrs(fmt, docs))
    return Source(fmt, path, docs[ARRAY_KEY[fmt]], _url(path, ARRAY_KEY[fmt]), own, ancestors(store, path),
                  first_level=first_level(store, path) if fmt == "n5" else None,
                  related=related(store, path, fmt, own.attrs))


def scale_index(info: dict, level) -> int:
    """A precomputed scale by position (0 or "first" for the first), by key, or as s<N>, the N-th."""
    keys = [scale["key"] for scale in info["scales"]]
    if level == "first":
        return 0
    if isinstance(level, int):
        return level
    return keys.index(level) if level in keys else int(level.removeprefix("s"))


def scale_source(directory: str, info: dict, index: int) -> Source:
    """A precomputed scale: the info is its array document, the scale entry its own, the rest of the info its parent."""
    url, scale = _url(directory, "info"), info["scales"][index]
    own = Document(posixpath.join(directory, scale["key"]), url, dict(scale))
    parent = Document(directory, url, user_attrs("precomputed", {"info": info}))
    return Source("precomputed", own.path, info, url, own, (parent,), index)


def level_name(attrs: dict, level) -> str:
    """A level of a zarr group by name, or by position among its first multiscale's datasets."""
    if isinstance(level, str) and level != "first":
        return level.strip("/")
    multiscales = (attrs.get("ome") or {}).get("multiscales") or attrs.get("multiscales")
    names = [dataset["path"] for dataset in multiscales[0]["datasets"]]
    return names[0 if level == "first" else level]


def case_source(case: dict) -> Source:
    """The Source of the array that the case's open path and level name."""
    store = documents(case)
    path, level = posixpath.join(ROOT, case["open"]["path"]), case["open"]["level"]
    found = node_of(store.get(path, {}))
    if found is None:  # no document here: the parent's info makes the last segment a scale
        directory = posixpath.dirname(path)
        info = store[directory]["info"]
        return scale_source(directory, info, scale_index(info, posixpath.basename(path)))
    fmt, kind = found
    if kind == "array":  # an array path is that array; no case asks it for another level
        return array_source(store, path)
    if fmt == "precomputed":
        info = store[path]["info"]
        return scale_source(path, info, scale_index(info, level))
    return array_source(store, posixpath.join(path, level_name(user_attrs(fmt, store[path]), level)))


def parse_case(case: dict, first: bool = True):
    """Parse the case's Source and convert it to the case's units, as wa.metadata(open=False) does."""
    source, units = case_source(case), case["open"]["units"]
    with warning_rule(case["expect"], first):
        meta = parse(source, metadata_conflicts=case["open"].get("metadata_conflicts", "error"))
        if isinstance(units, str):
            meta = meta.in_units(space=units)
        elif units is not None:
            meta = meta.in_units(space=units.get("space"), time=units.get("time"))
    return meta


# ---------------------------------------------------------------- the cases


@pytest.fixture(autouse=True)
def no_group_warned_yet(monkeypatch):
    """Every case's store is imagined at ROOT, so the package's once-per-group warnings start afresh for each test,
    as they do in test_conformance, whose stores each sit in their own tmp_path."""
    monkeypatch.setattr(ome, "_unplaced_warned", set())


@parametrize_cases(placed_cases)
def test_a_case_is_placed_from_plain_dicts_as_the_fixture_says(case):
    assert_placement(parse_case(case), case["expect"])


@parametrize_cases(kept_cases)
def test_raw_attributes_stay_available_from_plain_dicts(case):
    meta = parse_case(case)
    for key in case["expect"]["attrs_kept"]:
        assert key in meta.attrs, f"{key!r} missing from attrs {sorted(meta.attrs)}"
    for key in case["expect"]["group_attrs_kept"]:
        assert key in meta.group_attrs, f"{key!r} missing from group_attrs {sorted(meta.group_attrs)}"


@parametrize_cases(raising_cases)
def test_a_conflict_raises_from_plain_dicts(case):
    raises = case["expect"]["raises"]
    with pytest.raises(getattr(builtins, raises["type"]), match=raises["match"]):
        parse_case(case, first=False)
