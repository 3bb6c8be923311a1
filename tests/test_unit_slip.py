"""A resampled read at a voxel size near 1000 times (or a 1000th of) the handle's warns once per handle."""

from __future__ import annotations

import uuid
import warnings
from pathlib import Path

import pytest

import worldarray as wa


def _vol():
    return wa.create(f"memory://slip/{uuid.uuid4().hex}.zarr/s0", (8, 8), "uint8", 4.0, 2.0, chunks=4)


def _caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, wa.UnitsWarning)]


@pytest.mark.parametrize("sizes", [0.004, (0.004, 0.0043), 4000.0, (3700.0, 4300.0), 4e6])
def test_a_read_at_a_power_of_1000_times_the_voxel_size_warns_naming_both_sizes_and_the_unit(sizes):
    vol = _vol()
    found = _caught(lambda: vol.read(((0.0, 0.0), (8.0, 8.0)), voxel_size=sizes))
    assert len(found) == 1
    message = str(found[0].message)
    assert "(4.0, 4.0)" in message and "nanometer" in message and vol.level_path in message
    assert not issubclass(found[0].category, wa.MetadataWarning)
    assert Path(found[0].filename).name == "test_unit_slip.py"  # the caller's line


@pytest.mark.parametrize("sizes", [8.0, 0.008, 0.0046, 396.0, (4000.0, 8.0), (0.004, 4000.0)])
def test_a_read_at_a_size_not_within_10_percent_of_one_power_of_1000_on_every_axis_does_not_warn(sizes):
    vol = _vol()
    assert _caught(lambda: vol.read(((0.0, 0.0), (8.0, 8.0)), voxel_size=sizes)) == []


def test_the_warning_comes_once_per_handle():
    vol = _vol()
    first = _caught(lambda: vol.read(((0.0, 0.0), (8.0, 8.0)), voxel_size=0.004))
    again = _caught(lambda: vol.read(((0.0, 0.0), (8.0, 8.0)), voxel_size=0.004))
    other = _caught(lambda: vol.reopen().read(((0.0, 0.0), (8.0, 8.0)), voxel_size=0.004))
    assert (len(first), len(again), len(other)) == (1, 0, 1)


def test_a_resample_target_set_at_open_warns_against_the_stored_voxel_size():
    path = _vol().level_path
    found = _caught(lambda: wa.open(path, voxel_size=4000.0, on_mismatch="resample"))
    assert len(found) == 1 and "(4000.0, 4000.0)" in str(found[0].message) and "(4.0, 4.0)" in str(found[0].message)


@pytest.mark.parametrize("sizes", [400.0, 3500.0, (4000.0, 12000.0)])
def test_a_read_at_100_times_the_voxel_size_or_more_on_every_axis_warns(sizes):
    vol = _vol()
    found = _caught(lambda: vol.read(((0.0, 0.0), (8.0, 8.0)), voxel_size=sizes))
    assert len(found) == 1 and "(4.0, 4.0)" in str(found[0].message) and "times the voxel size" in str(found[0].message)


def test_nanometre_numbers_on_a_micrometre_handle_warn_naming_the_unit_that_would_make_sense():
    vol = wa.create(f"memory://slip/{uuid.uuid4().hex}.zarr/s0", (40, 400, 400), "uint8", (0.04, 0.004, 0.004),
                    (0.02, 0.002, 0.002), units="micrometer", chunks=40)
    found = _caught(lambda: vol.read(vol.box, voxel_size=(40, 12, 12)))
    assert len(found) == 1
    message = str(found[0].message)
    assert "(40.0, 12.0, 12.0)" in message and "(0.04, 0.004, 0.004)" in message and "1000 to 3000 times" in message
    assert "given in nanometer" in message
