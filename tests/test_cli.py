"""B2: ``worldarray info``, ``check`` and ``neuroglancer`` on stores of every format built in tmp_path.

The command runs in this process (``cli.main`` with its output captured), as ``python -m worldarray`` runs it; one
smoke test starts ``python -m worldarray`` itself and must print what ``main`` prints here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse

import pytest

import worldarray as wa
from worldarray import cli
from conftest import BUILDERS, GROUP_BUILDERS, ome_pyramid
from metadata_cases import CASES


def _main(capsys, *args: str) -> tuple[int, str, str]:
    """``worldarray ARGS`` in this process: the exit status, stdout and stderr."""
    capsys.readouterr()  # what the test printed before is not the command's
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def run(capsys):
    """run(*args): ``worldarray ARGS`` in this process, as a finished process (returncode, stdout, stderr)."""

    def command(*args: str) -> subprocess.CompletedProcess:
        status, out, err = _main(capsys, *args)
        return subprocess.CompletedProcess(["worldarray", *args], status, out, err)

    return command


def _ome04(root):
    levels = [("s0", (8, 8, 8), (4, 4, 4), (2, 2, 2)), ("s1", (4, 4, 4), (8, 8, 8), (4, 4, 4))]
    return ome_pyramid(root, "v4.zarr", levels, fmt="zarr2")


def _ome05_channels(root):
    return ome_pyramid(root, "v5.zarr", [("s0", (2, 8, 8, 8), (1, 4, 4, 4), (0, 2, 2, 2)),
                                         ("s1", (2, 4, 4, 4), (1, 8, 8, 8), (0, 4, 4, 4))],
                       axes=("c", "z", "y", "x"))


def _n5(root):
    GROUP_BUILDERS["n5"](root, {"path": "v.n5", "attrs": {"n5": "2.0.0", "resolution": [4, 4, 4], "units": ["nm"] * 3}})
    for i in range(2):
        BUILDERS["n5"](root, {"path": f"v.n5/s{i}", "shape": [8 >> i] * 3, "chunks": [4, 4, 4], "dtype": "uint8",
                              "attrs": {"downsamplingFactors": [2**i] * 3}})
    return str(root / "v.n5")


def _precomputed(root):
    scales = [{"key": f"{4 * 2**i}_{4 * 2**i}_{4 * 2**i}", "size": [8 >> i] * 3, "resolution": [4 * 2**i] * 3,
               "voxel_offset": [4 >> i] * 3, "chunk_sizes": [[4, 4, 4]], "encoding": "raw"} for i in range(2)]
    BUILDERS["precomputed"](root, {"path": "v.pc", "info": {"type": "image", "data_type": "uint8",
                                                             "num_channels": 1, "scales": scales}})
    return str(root / "v.pc")


STORES = {"ome 0.4": _ome04, "ome 0.5 with channels": _ome05_channels, "n5 downsamplingFactors": _n5,
          "precomputed voxel_offset": _precomputed}


@pytest.mark.parametrize("store", STORES, ids=list(STORES))
def test_info_prints_every_level_with_its_placement(tmp_path, store, run):
    path = STORES[store](tmp_path)
    done = run("info", path)
    assert done.returncode == 0, done.stderr
    levels = wa.open_pyramid(path).names
    for name in levels:
        meta = wa.metadata(path, level=name)
        row = next(line for line in done.stdout.splitlines() if line.split()[:1] == [name])
        assert "(" + ", ".join(f"{v:g}" for v in meta.translation) + ")" in row
        assert "(" + ", ".join(f"{v:g}" for v in meta.voxel_size) + ")" in row
        assert str(meta.placed_by) in row


@pytest.mark.parametrize("store", STORES, ids=list(STORES))
def test_info_json_matches_wa_metadata(tmp_path, store, run):
    path = STORES[store](tmp_path)
    done = run("info", path, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    names = wa.open_pyramid(path).names
    assert list(document["levels"]) == list(names)
    for name in names:
        meta, level = wa.metadata(path, level=name), document["levels"][name]
        assert (tuple(level["shape"]), level["dtype"], tuple(level["axes"]), tuple(level["units"])) == (
            meta.shape, str(meta.dtype), meta.axes, meta.units)
        assert tuple(level["voxel_size"]) == meta.voxel_size and tuple(level["translation"]) == meta.translation
        assert tuple(level["corner"]) == meta.corner and level["placed_by"] == meta.placed_by
        assert level["extent"][1] == [c + n * s for c, n, s in zip(meta.corner, meta.shape, meta.voxel_size,
                                                                  strict=True)]


def test_info_units_converts_and_level_picks_one(tmp_path, run):
    path = _ome04(tmp_path)
    document = json.loads(run("info", path, "--level", "s1", "--units", "micrometer", "--json").stdout)
    assert list(document["levels"]) == ["s1"]
    assert document["levels"]["s1"]["voxel_size"] == pytest.approx([0.008] * 3)
    assert document["levels"]["s1"]["units"] == ["micrometer"] * 3


def test_info_lists_the_warnings_the_metadata_rules_raised(tmp_path, run):
    BUILDERS["zarr2"](tmp_path, {"path": "bare", "shape": [2, 2], "chunks": [2, 2], "dtype": "uint8",
                                 "attrs": {"resolution": [4, 4]}})
    document = json.loads(run("info", str(tmp_path / "bare"), "--units", "nanometer", "--json").stdout)
    assert any("no unit" in message for message in document["warnings"]), document["warnings"]


@pytest.mark.parametrize("store", STORES, ids=list(STORES))
def test_check_passes_a_consistent_pyramid(tmp_path, store, run):
    done = run("check", STORES[store](tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "consistent" in done.stdout.splitlines()[-1]


def test_check_fails_a_level_shifted_by_half_a_voxel_naming_it_and_05(tmp_path, run):
    path = ome_pyramid(tmp_path, "half.zarr", [("s0", (8, 8, 8), (4, 4, 4), (2, 2, 2)),
                                               ("s1", (4, 4, 4), (8, 8, 8), (8, 4, 4))])  # z: 8, where 4 belongs
    done = run("check", path)
    assert done.returncode == 1, done.stdout
    line = next(line for line in done.stdout.splitlines() if line.startswith("FAIL"))
    assert line.startswith("FAIL s1:") and "(0.5, 0, 0) voxels of s1" in line
    assert "fits only with origin (1, 0, 0)" in line


def test_check_fails_a_pyramid_with_the_same_translation_on_every_level(tmp_path, run):
    path = ome_pyramid(tmp_path, "same.zarr", [("s0", (8, 8, 8), (4, 4, 4), (2, 2, 2)),
                                               ("s1", (4, 4, 4), (8, 8, 8), (2, 2, 2)),
                                               ("s2", (2, 2, 2), (16, 16, 16), (2, 2, 2))])
    done = run("check", path)
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert [line.split(":")[0] for line in failed] == ["FAIL s1", "FAIL s2"]
    assert "(-0.25, -0.25, -0.25) voxels of s1" in failed[0]


def test_check_accepts_an_origin_that_the_levels_shape_shows_as_a_crop(tmp_path, run):
    # s1 made from s0 starting at source voxel 2: placed at origin 2, and one voxel fewer than from origin 0
    path = ome_pyramid(tmp_path, "crop.zarr", [("s0", (8, 8, 8), (4, 4, 4), (2, 2, 2)),
                                               ("s1", (3, 4, 4), (8, 8, 8), (12, 4, 4))])
    done = run("check", path)
    assert done.returncode == 0, done.stdout
    assert any(line.startswith("warning s1:") and "level_shape" in line for line in done.stdout.splitlines())


def test_check_fails_a_listed_level_whose_array_is_missing(tmp_path, run):
    path = _ome04(tmp_path)
    attrs = json.loads((tmp_path / "v4.zarr" / ".zattrs").read_text())
    attrs["multiscales"][0]["datasets"].append({"path": "s2", "coordinateTransformations": [
        {"type": "scale", "scale": [16, 16, 16]}, {"type": "translation", "translation": [8, 8, 8]}]})
    (tmp_path / "v4.zarr" / ".zattrs").write_text(json.dumps(attrs))
    done = run("check", path)
    assert done.returncode == 1
    assert any(line.startswith("FAIL s2: listed, but its array is missing") for line in done.stdout.splitlines())


def test_check_fails_levels_whose_units_differ(tmp_path, run):
    path = _n5(tmp_path)
    attrs = json.loads((tmp_path / "v.n5" / "s1" / "attributes.json").read_text())
    attrs.update({"resolution": [0.004] * 3, "units": ["um"] * 3, "downsamplingFactors": [2, 2, 2]})
    (tmp_path / "v.n5" / "s1" / "attributes.json").write_text(json.dumps(attrs))
    done = run("check", path)
    assert done.returncode == 1
    assert any(line.startswith("FAIL s1: axes") and "differ" in line for line in done.stdout.splitlines())


@pytest.mark.parametrize("command", ["info", "check"])
def test_a_path_with_nothing_there_prints_one_line_naming_it_and_exits_2(tmp_path, command, run):
    done = run(command, str(tmp_path / "nothing.zarr"))
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
    assert "nothing.zarr" in done.stderr


def test_info_on_a_document_nested_20000_lists_deep_prints_one_line_naming_it_and_exits_2(tmp_path, capsys):
    (tmp_path / "deep.zarr").mkdir()
    (tmp_path / "deep.zarr" / "zarr.json").write_text('{"attributes": ' + "[" * 20000 + "]" * 20000 + "}")
    assert cli.main(["info", str(tmp_path / "deep.zarr")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "deep.zarr/zarr.json: nesting is more than 100 levels deep" in err


def test_neuroglancer_of_a_local_path_prints_the_layer_and_says_it_must_be_served(tmp_path, run):
    path = _ome04(tmp_path)
    done = run("neuroglancer", path)
    assert done.returncode == 0, done.stderr
    assert "Neuroglancer reads only what a server gives it" in done.stderr and "--url" in done.stderr
    layer = json.loads(done.stdout)
    assert layer["source"] == "zarr2://http://localhost:8000/v4.zarr"


def test_neuroglancer_with_a_url_prints_a_viewer_url_holding_the_layer(tmp_path, run):
    path = _ome04(tmp_path)
    done = run("neuroglancer", path, "--url", "https://example.org/data/v4.zarr", "--viewer", "https://ng.example/")
    assert done.returncode == 0, done.stderr
    url = done.stdout.strip()
    assert url.startswith("https://ng.example/#!")
    state = json.loads(urllib.parse.unquote(url.split("#!", 1)[1]))
    assert [layer["source"] for layer in state["layers"]] == ["zarr2://https://example.org/data/v4.zarr"]
    assert state["position"] == pytest.approx([4.0, 4.0, 4.0])  # the middle of 8 voxels, in voxels of 4 nm


def test_info_of_a_level_that_does_not_exist_exits_2_naming_it_and_the_real_ones(tmp_path, capsys):
    path = _ome04(tmp_path)
    status, out, err = _main(capsys, "info", path, "--level", "scale9")
    assert status == 2 and out == ""
    assert "level 'scale9' does not exist; the levels are s0, s1" in err and len(err.splitlines()) == 1


def test_info_in_a_unit_the_table_does_not_know_exits_2_naming_the_unit_not_the_store(tmp_path, capsys):
    path = _ome04(tmp_path)
    status, out, err = _main(capsys, "info", path, "--units", "parsec")
    assert status == 2 and out == ""
    assert "'parsec' is not a length unit the unit table knows" in err and "has unit 'nanometer'" not in err


def test_check_finds_a_cellmap_schemas_n5_pyramid_consistent_at_its_true_voxel_sizes(build_case, capsys):
    case = next(c for c in CASES if c["name"] == "n5_cellmap_schemas_group_s1")
    path = str(build_case(case) / "vol.n5")
    status, out, _ = _main(capsys, "check", path)
    assert status == 0 and out.strip().endswith("3 level(s), consistent"), out
    status, out, _ = _main(capsys, "info", path, "--json")
    sizes = {name: level["voxel_size"] for name, level in json.loads(out)["levels"].items()}
    assert sizes == {"s0": [40.0, 4.0, 4.0], "s1": [40.0, 8.0, 8.0], "s2": [80.0, 16.0, 16.0]}


def test_python_m_worldarray_runs_the_command_and_prints_what_main_prints(tmp_path, run):
    path = _ome04(tmp_path)
    done = subprocess.run([sys.executable, "-m", "worldarray", "info", path, "--json"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == run("info", path, "--json").stdout


def test_info_shows_the_crs_of_a_spatial_zone_in_text_and_json(tmp_path, run):
    from conftest import build_store
    zone = next(case for case in CASES if case["name"] == "zarr3_spatial_tessera_utm_zone_group")
    path = str(build_store(tmp_path, zone) / "zone.zarr" / "embeddings")
    text = run("info", path).stdout.splitlines()
    assert 'crs: {"proj:code": "EPSG:32630"}' in text
    document = json.loads(run("info", path, "--json").stdout)
    assert [level["crs"] for level in document["levels"].values()] == [{"proj:code": "EPSG:32630"}]


def test_info_without_a_crs_prints_no_crs_line_and_a_null_crs(tmp_path, run):
    path = ome_pyramid(tmp_path, "v.zarr", [("s0", (2, 4, 4), (1, 1, 1), (0, 0, 0))])
    assert not any(line.startswith("crs") for line in run("info", path).stdout.splitlines())
    document = json.loads(run("info", path, "--json").stdout)
    assert all(level["crs"] is None for level in document["levels"].values())
