"""The cases of fixtures/metadata.json and the checks every suite that runs them applies.

test_conformance places each case from a store built in tmp_path, test_parse from plain dicts; both hold the
result to the case's expect through the same two checks, so the two suites cannot drift apart.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa

FIXTURE = Path(__file__).parent / "fixtures" / "metadata.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
RTOL = 1e-9


def parametrize_cases(cases):
    """Parametrize a test over ``cases`` with each case's name as its id."""
    return pytest.mark.parametrize("case", cases, ids=[case["name"] for case in cases])


@contextlib.contextmanager
def warning_rule(expect: dict, first: bool):
    """The first call of a warning case warns exactly once; any call of a silent case must not warn at all.

    A later call on the same path may or may not repeat a warning (the spec says once per array), so it is
    neither required nor refused there.
    """
    if expect["warns"] and first:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", wa.MetadataWarning)
            yield
        ours = [w for w in caught if issubclass(w.category, wa.MetadataWarning)]
        messages = [str(w.message) for w in ours]
        assert len(ours) == 1, f"expected one MetadataWarning, got {messages}"
        assert expect["warns"] in messages[0], f"{expect['warns']!r} not in {messages[0]!r}"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if expect["warns"] else "error", wa.MetadataWarning)
            yield


def assert_floats(got, want, what: str) -> None:
    assert len(got) == len(want), f"{what}: {got} has {len(got)} entries, expected {len(want)}"
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=RTOL, atol=0,
                               err_msg=what)


def assert_placement(meta, expect: dict) -> None:
    assert tuple(meta.shape) == tuple(expect["shape"])
    assert isinstance(meta.dtype, np.dtype) and meta.dtype == np.dtype(expect["dtype"])  # the fixture keeps names
    assert meta.format == expect["format"]
    assert tuple(meta.axes) == tuple(expect["axes"])
    assert meta.axes_named is expect["axes_named"]
    assert tuple(meta.units) == tuple(expect["units"])
    assert meta.placed_by == expect["placed_by"]
    assert_floats(meta.voxel_size, expect["voxel_size"], "voxel_size")
    assert_floats(meta.translation, expect["translation"], "translation")
    if "chunk_shape" in expect:
        assert tuple(meta.chunk_shape) == tuple(expect["chunk_shape"])
