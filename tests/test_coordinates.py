"""Coordinate arrays beside an array are checked against its placement at open and never place it.

The stores are rioxarray 0.19's own documents (tests/fixtures/rioxarray), their chunks written with zarr-python, so
the x/y coordinate arrays hold the pixel centres rioxarray wrote (x ascending, y descending).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import zarr

import worldarray as wa
from worldarray import coordinates
from conftest import build_store, rioxarray_store
from metadata_cases import CASES

ZONE = next(case for case in CASES if case["name"] == "zarr3_spatial_tessera_utm_zone_group")


def _silently(path: Path) -> wa.WorldArray:
    with warnings.catch_warnings():
        warnings.simplefilter("error", wa.MetadataWarning)
        return wa.open(str(path), units=None)


def _warnings(path: Path) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", wa.MetadataWarning)
        wa.open(str(path), units=None)
    return [str(w.message) for w in caught if issubclass(w.category, wa.MetadataWarning)]


def _drop_grid_mapping(store: Path) -> None:
    """The data array no longer names its grid-mapping variable, in its document and the consolidated copies."""
    for path in (store / "elev" / "zarr.json", store / "elev" / ".zattrs", store / "zarr.json", store / ".zmetadata"):
        if path.exists():
            text = path.read_text()
            path.write_text(text.replace('"grid_mapping": "spatial_ref"', '"grid_mapping_was": "spatial_ref"'))


@pytest.mark.parametrize("case", ["v2_consolidated", "v3_consolidated", "v3_band_y_x"])
def test_coordinate_arrays_that_agree_with_the_placement_open_without_a_warning(tmp_path, case):
    store = rioxarray_store(tmp_path, case)
    vol = _silently(store / ("bands" if "band" in case else "elev"))
    assert vol.meta.placed_by == "grid_mapping"


def test_a_shifted_coordinate_array_warns_naming_its_path_the_index_and_both_values(tmp_path):
    store = rioxarray_store(tmp_path, "v3_consolidated")
    x = zarr.open_array(str(store / "x"), mode="r+")
    x[3:] = x[3:] + 1.0
    messages = _warnings(store / "elev")
    assert len(messages) == 1
    assert messages[0].startswith(f"{store / 'x'}: value [3] is 500036.0; expected 500035.0")


def test_a_coordinate_array_off_by_less_than_a_millionth_of_a_voxel_agrees(tmp_path):
    store = rioxarray_store(tmp_path, "v3_consolidated")
    y = zarr.open_array(str(store / "y"), mode="r+")
    y[2] = y[2] + 1e-6  # a tenth of the tolerance: 1e-6 of a 10 m voxel is 1e-5
    assert _silently(store / "elev").meta.placed_by == "grid_mapping"


def test_a_coordinate_array_of_the_wrong_length_warns(tmp_path):
    store = rioxarray_store(tmp_path, "v2_consolidated")
    x = zarr.open_array(str(store / "x"), mode="r+")
    x.resize((7,))
    messages = _warnings(store / "elev")
    assert len(messages) == 1
    assert messages[0].startswith(f"{store / 'x'}: coordinate array has 7 values; expected 8")


def test_a_store_with_only_coordinate_arrays_warns_once_that_its_placement_is_not_read(tmp_path):
    store = rioxarray_store(tmp_path, "v3_consolidated")
    _drop_grid_mapping(store)
    messages = _warnings(store / "elev")
    assert len(messages) == 1
    assert "is unplaced, though coordinate arrays sit beside it" in messages[0]
    assert str(store / "x") in messages[0] and str(store / "y") in messages[0]
    assert "spatial:transform" in messages[0] and "GeoTransform" in messages[0]


def test_coordinate_arrays_never_place_the_array(tmp_path):
    store = rioxarray_store(tmp_path, "v2_consolidated")
    _drop_grid_mapping(store)
    with pytest.warns(wa.MetadataWarning, match="is unplaced"):
        vol = wa.open(str(store / "elev"), units=None)
    assert vol.meta.placed_by is None and vol.voxel_size == (1.0, 1.0) and vol.translation == (0.5, 0.5)


@pytest.mark.parametrize("name", ["x", "y"])
def test_a_coordinate_array_opened_on_its_own_opens_unplaced_without_a_warning(tmp_path, name):
    vol = _silently(rioxarray_store(tmp_path, "v3_consolidated") / name)
    assert vol.meta.placed_by is None and vol.shape == ((8,) if name == "x" else (6,))


def test_a_spatial_placed_array_checks_its_coordinate_arrays_too(tmp_path):
    shifted = json.loads(json.dumps(ZONE))
    shifted["store"]["arrays"][1]["values"] = [500005, 500015, 500025, 500035, 500045, 500056]
    path = build_store(tmp_path, shifted) / "zone.zarr"
    messages = _warnings(path / "embeddings")
    assert messages == [f"{path / 'easting'}: value [5] is 500056.0; expected 500055.0, the centre of voxel 5 that "
                        f"{path / 'embeddings'}'s placement (spatial) gives (500005.0 + 5 * 10.0); coordinate arrays "
                        "are checked, never read as placement"]


def test_an_ome_array_is_not_checked_against_arrays_named_like_its_axes(tmp_path):
    path = tmp_path / "ome.zarr"
    wa.create(str(path / "s0"), shape=(4, 6), dtype="uint8", voxel_size=2, translation=0, chunks=2, axes=("y", "x"))
    zarr.create_array(str(path / "x"), shape=(6,), dtype="float64", dimension_names=["x"])[:] = np.arange(6) + 7
    assert _silently(path / "s0").meta.placed_by == "ome"


def test_a_repeat_open_does_not_read_the_coordinate_arrays_again(tmp_path, monkeypatch):
    store = rioxarray_store(tmp_path, "v3_consolidated")
    opened: list[str] = []
    real = coordinates.open_array
    monkeypatch.setattr(coordinates, "open_array", lambda found, context: opened.append(found.node.path) or real(
        found, context))
    first = _silently(store / "elev")
    again = _silently(store / "elev")
    assert sorted(opened) == [str(store / "x"), str(store / "y")]
    assert again.translation == first.translation


def test_an_open_whose_coordinate_array_disagreed_checks_it_again_on_the_next_open(tmp_path):
    store = rioxarray_store(tmp_path, "v3_consolidated")
    x = zarr.open_array(str(store / "x"), mode="r+")
    x[3:] = x[3:] + 1.0
    assert len(_warnings(store / "elev")) == 1
    x[3:] = x[3:] - 1.0  # the values mended: the documents are as they were
    assert _warnings(store / "elev") == []
