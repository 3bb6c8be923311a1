"""Conformance: every store in fixtures/metadata.json is placed where the spec's conventions put it.

Each case is one tiny store built in tmp_path by conftest's per-format builders, its expected values derived by hand
from spec section 3 (the case's "why" says how). The same file drives chunkmirage's TypeScript twin, so nothing
about a case lives here. The self-checks at the end fail when a case, a format or a placement rule of
``worldarray.metadata.RULES`` is not exercised by the fixture.
"""

from __future__ import annotations

import builtins
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from worldarray.formats import FORMATS as RECORDS
from conftest import BUILDERS, GROUP_BUILDERS, arange_values, stored_values
from metadata_cases import CASES, assert_floats, assert_placement, parametrize_cases, warning_rule

IDS = [case["name"] for case in CASES]
FORMATS = tuple(RECORDS)  # every format of the registry: one added there without fixture cases fails below
ORIGINS = ("chunkmirage", "chunkmirage-addition", "trial", "units", "offset-pair", "conflict", "edge", "n5-viewer",
           "neuroglancer", "cellmap-schemas", "ngff-zarr", "ome-zarr-py", "bioformats2raw", "tessera", "geozarr",
           "rioxarray", "geotessera", "topozarr")
EXPECT_KEYS = ("format", "shape", "dtype", "warns", "raises")
PLACEMENT_KEYS = ("axes", "axes_named", "units", "voxel_size", "translation", "placed_by")

placed_cases = [case for case in CASES if not case["expect"]["raises"]]
raising_cases = [case for case in CASES if case["expect"]["raises"]]
converted_cases = [case for case in CASES if "in_units" in case["expect"]]


def _target(root: Path, case: dict) -> tuple[str, object]:
    return str(root / case["open"]["path"]), case["open"]["level"]


def _metadata(root: Path, case: dict, *, from_store: bool = True, first: bool = True):
    path, level = _target(root, case)
    with warning_rule(case["expect"], first):
        return wa.metadata(path, level=level, units=case["open"]["units"], open=from_store)


@parametrize_cases(placed_cases)
def test_metadata_places_the_store_as_the_fixture_says(case, build_case):
    meta = _metadata(build_case(case), case)
    assert_placement(meta, case["expect"])


@parametrize_cases(placed_cases)
def test_corner_is_half_a_voxel_below_the_translation(case, build_case):
    meta = _metadata(build_case(case), case)
    spatial = list(meta.spatial)
    want = np.asarray(meta.translation)[spatial] - np.asarray(meta.voxel_size)[spatial] / 2
    assert_floats(np.asarray(meta.corner)[spatial], want, "corner on the spatial axes")


kept_cases = [case for case in placed_cases if case["expect"]["attrs_kept"] or case["expect"]["group_attrs_kept"]]


@parametrize_cases(kept_cases)
def test_raw_attributes_stay_available(case, build_case):
    meta = _metadata(build_case(case), case)
    for key in case["expect"]["attrs_kept"]:
        assert key in meta.attrs, f"{key!r} missing from attrs {sorted(meta.attrs)}"
    for key in case["expect"]["group_attrs_kept"]:
        assert key in meta.group_attrs, f"{key!r} missing from group_attrs {sorted(meta.group_attrs)}"


@parametrize_cases(placed_cases)
def test_documents_alone_give_the_same_placement(case, build_case):
    root = build_case(case)
    opened = _metadata(root, case, from_store=True)
    documents = _metadata(root, case, from_store=False, first=False)
    assert_placement(documents, case["expect"])
    assert (documents.path, documents.format) == (opened.path, opened.format)


@parametrize_cases(raising_cases)
def test_a_conflict_raises_with_or_without_opening(case, build_case):
    root = build_case(case)
    raises = case["expect"]["raises"]
    for from_store in (True, False):
        with pytest.raises(getattr(builtins, raises["type"]), match=raises["match"]):
            _metadata(root, case, from_store=from_store, first=False)


@parametrize_cases(converted_cases)
def test_in_units_converts_as_the_fixture_says(case, build_case):
    meta = _metadata(build_case(case), case)
    conversion = case["expect"]["in_units"]
    if "raises" in conversion:
        # the message names the stored unit the table does not know
        stored = "|".join(re.escape(repr(unit)) for unit in set(case["expect"]["units"]) if unit)
        with pytest.raises(getattr(builtins, conversion["raises"]), match=rf"has unit ({stored})"):
            meta.in_units(space=conversion["space"])
        return
    with warning_rule({"warns": conversion.get("warns")}, first=True):
        converted = meta.in_units(space=conversion["space"])
    assert_floats(converted.voxel_size, conversion["voxel_size"], "voxel_size")
    assert_floats(converted.translation, conversion["translation"], "translation")


@parametrize_cases(CASES)
def test_open_tensorstore_reads_the_stored_values_from_origin_zero(case, build_case):
    path, level = _target(build_case(case), case)
    expect = case["expect"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        store = wa.open_tensorstore(path, level=level)
    assert tuple(store.domain.origin) == (0,) * len(expect["shape"])
    assert tuple(store.shape) == tuple(expect["shape"])
    held = [a for a in case["store"].get("arrays", []) if a["path"] == case["open"]["path"].strip("/")]
    want = stored_values(held[0]) if held else arange_values(expect["shape"], expect["dtype"])
    assert np.array_equal(store.read().result(), want)


# ---------------------------------------------------------------------------------------------- fixture self-checks


def _rules():
    from worldarray.metadata import RULES

    return {fmt: tuple(rule.name for rule in rules) for fmt, rules in RULES.items()}


def test_every_format_and_every_placement_rule_is_exercised_by_a_case():
    rules = _rules()
    assert set(FORMATS) <= set(rules), f"RULES lacks {set(FORMATS) - set(rules)}"
    exercised = {(case["expect"]["format"], case["expect"].get("placed_by")) for case in placed_cases}
    missing = sorted((fmt, name) for fmt, names in rules.items() for name in names if (fmt, name) not in exercised)
    assert not missing, f"no case is placed by {missing}"
    assert {fmt for fmt, _ in exercised} == set(FORMATS)
    assert any(placed_by is None for _, placed_by in exercised), "no case is placed by nothing"


def test_every_case_expects_a_rule_its_format_has():
    rules = _rules()
    for case in placed_cases:
        expect = case["expect"]
        assert expect["placed_by"] is None or expect["placed_by"] in rules[expect["format"]], case["name"]


#: The tests that read a case's store and check its placement or its refusal against the case's expect.
METADATA_TESTS = (
    "test_metadata_places_the_store_as_the_fixture_says",
    "test_a_conflict_raises_with_or_without_opening",
)


def test_every_case_is_read_by_a_metadata_test_of_this_module(request):
    # collect this module afresh, so the check holds whatever -k or a node id selected for this run
    items = request.node.getparent(pytest.Module).collect()
    read = {name: {item.callspec.id for item in items if item.originalname == name} for name in METADATA_TESTS}
    assert all(read.values()), f"a metadata test collects no case: {read}"
    unread = sorted(set(IDS) - set().union(*read.values()))
    assert not unread, f"no metadata test reads the store of {unread}"


def test_every_case_is_well_formed():
    assert len(set(IDS)) == len(IDS), "case names repeat"
    assert {case["origin"] for case in CASES} == set(ORIGINS), "an origin has no case, or an unknown origin"
    for case in CASES:
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", case["name"]), case["name"]
        assert case["why"].strip(), f"{case['name']}: no why"
        expect, store = case["expect"], case["store"]
        assert all(key in expect for key in EXPECT_KEYS), case["name"]
        assert expect["raises"] or all(key in expect for key in PLACEMENT_KEYS), case["name"]
        assert all(group["format"] in GROUP_BUILDERS for group in store.get("groups", [])), case["name"]
        assert all(array["format"] in BUILDERS for array in store.get("arrays", [])), case["name"]
        paths = [array["path"] for array in store.get("arrays", [])] + [v["path"] for v in store.get("precomputed", [])]
        opened = case["open"]["path"]
        assert any(opened == p or opened.startswith(p + "/") or p.startswith(opened + "/") for p in paths), case["name"]
