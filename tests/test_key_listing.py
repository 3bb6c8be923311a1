"""A whole listing parses to exactly the indices its keys parse to one by one: one expression per listing reads
the same keys ``parse_key`` accepts (only those ``chunk_key`` spells back), grid checked once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from worldarray.formats import FORMATS
from worldarray.spellings import key_facts, parse_key, parse_keys

SPELLINGS = [("zarr2", ".", "default"), ("zarr2", "/", "default"), ("zarr3", "/", "default"),
             ("zarr3", ".", "default"), ("zarr3", ".", "v2"), ("n5", "/", "default")]
PARTS = st.one_of(st.integers(0, 12).map(str), st.sampled_from(["00", "01", "-1", "x", "", "c", "1e2", " 1"]))


@st.composite
def listings(draw):
    fmt, separator, encoding = draw(st.sampled_from(SPELLINGS))
    ndim = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 40), min_size=ndim, max_size=ndim))
    chunks = draw(st.lists(st.integers(1, 8), min_size=ndim, max_size=ndim))
    keys = []
    for _ in range(draw(st.integers(0, 30))):
        parts = draw(st.lists(PARTS, min_size=max(0, ndim - 1), max_size=ndim + 1))
        head = draw(st.sampled_from(["", "c" + separator, "c."]))
        keys.append(head + separator.join(parts))
    keys += draw(st.lists(st.sampled_from(["zarr.json", ".zarray", ".zattrs", "attributes.json", "c"]), max_size=3))
    return fmt, key_facts(FORMATS[fmt].keys, separator, encoding, chunks, shape, None, ndim), keys


@settings(max_examples=400, deadline=None)
@given(listings())
def test_a_listing_parses_to_the_indices_its_keys_parse_to_one_by_one(listing):
    fmt, facts, keys = listing
    spelling = FORMATS[fmt].keys
    one_by_one = [index for index in (parse_key(spelling, facts, key) for key in keys) if index is not None]
    assert parse_keys(spelling, facts, [key.encode() for key in keys]) == one_by_one
    assert parse_keys(spelling, facts, [key.encode() for key in keys], ordered=True) == sorted(one_by_one)


def test_a_listing_without_a_number_of_axes_parses_key_by_key():
    spelling = FORMATS["zarr2"].keys
    facts = key_facts(spelling, ".", "default", None, None, None, None)
    assert parse_keys(spelling, facts, [b"0.1", b"2", b"01.1", b".zarray"]) == [(0, 1), (2,)]
