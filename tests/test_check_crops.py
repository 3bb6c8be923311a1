"""A pyramid cropped by ``wa.copy`` with a world box stays a pyramid: the box is grown to the coarsest level's voxel
corners, so every level starts on one world corner and ``worldarray check`` finds it consistent, while a level
placed half a voxel off still fails."""

from __future__ import annotations

import numpy as np
import pytest

import worldarray as wa
from worldarray import cli


@pytest.fixture
def pyramid(tmp_path):
    root = tmp_path / "p.zarr"
    fine = wa.create(str(root / "s0"), (16, 16), "uint8", 4, 2, axes=("y", "x"), chunks=8)
    fine.write_index((0, 0), (16, 16), np.arange(256, dtype="uint8").reshape(16, 16))
    coarse = wa.create(str(root / "s1"), (8, 8), "uint8", 8, 4, axes=("y", "x"), chunks=8)
    coarse.write_index((0, 0), (8, 8), np.arange(64, dtype="uint8").reshape(8, 8))
    return root


@pytest.mark.parametrize("lo", [10.5, 12.0, 14.5, 16.0, 17.0])
def test_a_crop_by_world_box_starts_every_level_on_one_corner_and_passes_check(tmp_path, capsys, pyramid, lo):
    target = tmp_path / "crop.zarr"
    levels = wa.copy(str(pyramid), str(target), box=((lo, lo), (50, 50)))
    assert levels[0].corner == levels[1].corner
    assert cli.main(["check", str(target)]) == 0, capsys.readouterr().out
    assert "FAIL" not in capsys.readouterr().out


def test_a_coarse_level_half_a_voxel_off_still_fails(tmp_path, capsys):
    root = tmp_path / "off.zarr"
    wa.create(str(root / "s0"), (16, 16), "uint8", 4, 2, axes=("y", "x"), chunks=8)
    wa.create(str(root / "s1"), (8, 8), "uint8", 8, 6, axes=("y", "x"), chunks=8)  # 4 would be right
    assert cli.main(["check", str(root)]) == 1
    assert "FAIL s1" in capsys.readouterr().out
