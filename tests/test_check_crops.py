"""``worldarray check`` on a pyramid cropped by world box, each level its own voxels: a coarse level may start part
of one of its voxels before the finer level's first voxel, on the finer level's grid; that is a crop (a warning
line), not a misplacement."""

from __future__ import annotations

import itertools

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


@pytest.mark.parametrize("lo", [10.5, 12.0, 14.5, 16.0])
def test_a_crop_by_world_box_passes_check(tmp_path, capsys, pyramid, lo):
    target = tmp_path / "crop.zarr"
    levels = wa.copy(str(pyramid), str(target), box=((lo, lo), (50, 50)))
    origins = [round((b.translation[0] - b.voxel_size[0] / 2 - (a.translation[0] - a.voxel_size[0] / 2))
                     / a.voxel_size[0]) for a, b in itertools.pairwise(levels)]
    assert cli.main(["check", str(target)]) == 0, capsys.readouterr().out
    shown = capsys.readouterr().out
    assert ("part of a voxel before its first" in shown) == (min(origins) < 0)


def test_a_coarse_level_half_a_voxel_off_still_fails(tmp_path, capsys, pyramid):
    root = tmp_path / "off.zarr"
    wa.create(str(root / "s0"), (16, 16), "uint8", 4, 2, axes=("y", "x"), chunks=8)
    wa.create(str(root / "s1"), (8, 8), "uint8", 8, 6, axes=("y", "x"), chunks=8)  # 4 would be right
    assert cli.main(["check", str(root)]) == 1
    assert "FAIL s1" in capsys.readouterr().out
