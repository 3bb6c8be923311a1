"""``worldarray copy``: a world box of a level, at its own or another voxel size, written placed; its progress on a
terminal and off one; every refused input one line on stderr and exit 2.

The command runs in this process (``cli.main``, its output captured); the target is checked by ``wa.open`` against
``read`` of the same box on the source.
"""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

import worldarray as wa
from worldarray import cli
from worldarray.copy import Progress
from worldarray.copy_command import TenthLines, TerminalBar, reporter
from conftest import ome_pyramid

BOX = ((16.0, 16.0, 16.0), (80.0, 80.0, 80.0))
BOX_TEXT = "16,16,16:80,80,80"


def _main(capsys, *args: str) -> tuple[int, str, str]:
    """``worldarray ARGS`` in this process: the exit status, stdout and stderr."""
    capsys.readouterr()
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def _pyramid(root) -> str:
    """32^3 voxels of 4 nm, voxel 0 centred at 2 nm, and its level s1 at 8 nm, both arange uint16."""
    return ome_pyramid(root, "v.zarr", [("s0", (32, 32, 32), (4, 4, 4), (2, 2, 2)),
                                        ("s1", (16, 16, 16), (8, 8, 8), (4, 4, 4))])


def _channels(root) -> str:
    return ome_pyramid(root, "c.zarr", [("s0", (2, 16, 16, 16), (1, 4, 4, 4), (0, 2, 2, 2))],
                       axes=("c", "z", "y", "x"))


def _stored(target) -> list:
    return sorted(p for p in (target / "c").rglob("*") if p.is_file())


def test_a_box_copied_at_another_voxel_size_holds_what_read_gives_and_sits_where_it_does(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr" / "s0"
    status, out, err = _main(capsys, "copy", source, str(target), "--box", BOX_TEXT, "--voxel-size", "6",
                             "--method", "linear", "--chunks", "4")
    assert status == 0, err
    expected = wa.open(source, voxel_size=6, on_mismatch="resample", method="linear").read(BOX)
    crop = wa.open(target)
    np.testing.assert_array_equal(crop.read_index((0, 0, 0), crop.shape), expected)
    np.testing.assert_array_equal(crop.read(BOX), expected)
    assert crop.voxel_size == (6.0, 6.0, 6.0) and crop.meta.chunk_shape == (4, 4, 4)
    assert crop.translation == (21.0, 21.0, 21.0)  # the centre of the first 6 nm voxel whose centre is in the box
    assert out.splitlines() == [f"{target}: shape {tuple(expected.shape)}, voxel size (6, 6, 6), "
                                f"translation (21, 21, 21) nanometer"]


def test_a_box_copied_at_a_level_size_reads_that_level_and_equals_its_read(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr" / "s0"
    assert _main(capsys, "copy", source, str(target), "--box", BOX_TEXT, "--voxel-size", "8")[0] == 0
    np.testing.assert_array_equal(wa.open(target).read(BOX), wa.open(source, level="s1").read(BOX))
    assert wa.open(target).translation == (20.0, 20.0, 20.0)


def test_level_names_the_level_copied_at_its_own_voxel_size(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr" / "s0"
    assert _main(capsys, "copy", source, str(target), "--level", "s1", "--box", BOX_TEXT)[0] == 0
    assert wa.open(target).voxel_size == (8.0, 8.0, 8.0)
    np.testing.assert_array_equal(wa.open(target).read(BOX), wa.open(source, level="s1").read(BOX))


def test_no_box_copies_the_first_level_whole_and_in_place(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "all.zarr" / "s0"
    assert _main(capsys, "copy", source, str(target))[0] == 0
    vol, copied = wa.open(source, level="s0"), wa.open(target)
    assert (copied.shape, copied.translation) == (vol.shape, vol.translation)
    np.testing.assert_array_equal(copied.read_index((0, 0, 0), copied.shape), vol.read_index((0, 0, 0), vol.shape))


def test_a_box_in_micrometres_selects_the_same_voxels_as_in_nanometres(tmp_path, capsys):
    source = _pyramid(tmp_path)
    assert _main(capsys, "copy", source, str(tmp_path / "nm.zarr" / "s0"), "--box", BOX_TEXT)[0] == 0
    assert _main(capsys, "copy", source, str(tmp_path / "um.zarr" / "s0"), "--units", "micrometer",
                 "--box", "0.016,0.016,0.016:0.08,0.08,0.08")[0] == 0
    nm, um = wa.open(tmp_path / "nm.zarr" / "s0"), wa.open(tmp_path / "um.zarr" / "s0", units="micrometer")
    assert um.meta.units == ("micrometer",) * 3 and um.translation == pytest.approx([t / 1000 for t in nm.translation])
    np.testing.assert_array_equal(um.read_index((0, 0, 0), um.shape), nm.read_index((0, 0, 0), nm.shape))


def test_select_pins_a_channel_and_the_copy_has_the_spatial_axes_only(tmp_path, capsys):
    source, target = _channels(tmp_path), tmp_path / "one.zarr" / "s0"
    assert _main(capsys, "copy", source, str(target), "--select", "c=1", "--box", BOX_TEXT)[0] == 0
    copied = wa.open(target)
    assert copied.axes == ("z", "y", "x")
    np.testing.assert_array_equal(copied.read(BOX), wa.open(source, level="s0").read(BOX, select={"c": 1}))


def test_jobs_runs_on_that_many_threads_with_the_same_result(tmp_path, capsys):
    source = _pyramid(tmp_path)
    for name, jobs in (("one", "1"), ("three", "3")):
        assert _main(capsys, "copy", source, str(tmp_path / f"{name}.zarr" / "s0"), "--box", BOX_TEXT,
                     "--chunks", "4", "--jobs", jobs)[0] == 0
    one, three = wa.open(tmp_path / "one.zarr" / "s0"), wa.open(tmp_path / "three.zarr" / "s0")
    np.testing.assert_array_equal(one.read(BOX), three.read(BOX))


def test_resume_fills_the_units_a_stopped_copy_left_and_equals_an_uninterrupted_one(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr" / "s0"
    args = ("copy", source, str(target), "--box", BOX_TEXT, "--chunks", "4")
    assert _main(capsys, *args)[0] == 0
    whole = wa.open(target).read(BOX)
    chunks = _stored(target)
    for path in chunks[::2]:  # a job killed part way: half its units never stored
        path.unlink()
    status, _, err = _main(capsys, *args, "--resume")
    assert status == 0, err
    assert _stored(target) == chunks
    np.testing.assert_array_equal(wa.open(target).read(BOX), whole)


def test_resume_into_a_target_placed_otherwise_exits_2_naming_what_differs(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr" / "s0"
    assert _main(capsys, "copy", source, str(target), "--box", BOX_TEXT)[0] == 0
    status, out, err = _main(capsys, "copy", source, str(target), "--box", "16,16,16:88,80,80", "--resume")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "shape: found (16, 16, 16), wanted (18, 16, 16)" in err


def test_info_and_check_find_the_copy_placed_and_consistent(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr"
    assert _main(capsys, "copy", source, str(target / "s0"), "--box", BOX_TEXT, "--voxel-size", "8")[0] == 0
    status, out, _ = _main(capsys, "info", str(target))
    row = next(line for line in out.splitlines() if line.startswith("s0 "))
    assert status == 0 and "(8, 8, 8)" in row and "(20, 20, 20)" in row and "(16, 16, 16)" in row
    status, out, _ = _main(capsys, "check", str(target))
    assert status == 0 and out.strip().endswith("1 level(s), consistent"), out


REFUSED = {
    "a box with no colon": (["--box", "0,0,0"], "argument --box: '0,0,0' is not BEGIN:END"),
    "a box with a word": (["--box", "0,0,a:8,8,8"], "argument --box: '0,0,a:8,8,8' is not BEGIN:END"),
    "a box of unequal halves": (["--box", "0,0:8,8,8"], "'0,0:8,8,8' has 2 numbers before the colon and 3 after"),
    "a box of two axes on three": (["--box", "0,0:8,8"], "box ((0.0, 0.0), (8.0, 8.0)) has 2 axes"),
    "a box holding no voxel": (["--box", "1000,0,0:1100,8,8"], "holds no voxel centre of the level"),
    "an unknown level": (["--level", "s9"], "level 's9' names 's9', where there is no array"),
    "an unknown method": (["--method", "cubic"], "argument --method: invalid choice: 'cubic'"),
    "a voxel size with a word": (["--voxel-size", "8,x"], "argument --voxel-size: '8,x' is not"),
    "chunks of a fraction": (["--chunks", "4.5"], "argument --chunks: '4.5' is not one of whole numbers"),
    "a selection without an index": (["--select", "c"], "argument --select: 'c' is not AXIS=INDEX"),
    "a selection of an absent axis": (["--select", "c=0"], "select names axis 'c', which does not exist"),
    "no threads": (["--jobs", "0"], "argument --jobs: '0' is not a positive whole number"),
    "an unknown unit": (["--units", "parsec"], "'parsec' is not a length unit"),
    "an unknown flag": (["--boxx", "0,0,0:8,8,8"], "unrecognized arguments: --boxx"),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_refused_input_prints_one_line_naming_it_and_exits_2(tmp_path, case, capsys):
    flags, named = REFUSED[case]
    target = tmp_path / "crop.zarr" / "s0"
    try:
        status, out, err = _main(capsys, "copy", _pyramid(tmp_path), str(target), *flags)
    except SystemExit as exit:  # argparse refuses by SystemExit, as the installed command exits
        status, (out, err) = exit.code, capsys.readouterr()
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("worldarray") and named in err
    assert not target.exists()


def test_a_missing_target_argument_prints_one_line_and_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main(["copy", _pyramid(tmp_path)])
    _, err = capsys.readouterr()
    assert exit.value.code == 2 and err.splitlines() == [
        "worldarray copy: the following arguments are required: target (see worldarray copy --help)"]


def test_a_source_with_nothing_there_exits_2_naming_it(tmp_path, capsys):
    status, out, err = _main(capsys, "copy", str(tmp_path / "nothing.zarr"), str(tmp_path / "crop.zarr" / "s0"))
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and "nothing.zarr" in err


def test_an_existing_target_without_resume_exits_2_and_is_left_as_it_was(tmp_path, capsys):
    source, target = _pyramid(tmp_path), tmp_path / "crop.zarr" / "s0"
    assert _main(capsys, "copy", source, str(target), "--box", BOX_TEXT)[0] == 0
    before = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    status, out, err = _main(capsys, "copy", source, str(target), "--box", BOX_TEXT, "--voxel-size", "8")
    assert status == 2 and out == ""
    assert err.splitlines() == [f"worldarray copy: TARGET {target} is there already; pass --resume to continue a "
                                "copy into it"]
    assert {p: p.read_bytes() for p in target.rglob("*") if p.is_file()} == before


# ---------------------------------------------------------------- progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_each_tenth_is_one_line_once_and_in_order(tmp_path, capsys):
    status, _, err = _main(capsys, "copy", _pyramid(tmp_path), str(tmp_path / "crop.zarr" / "s0"), "--chunks", "8")
    assert status == 0, err
    percents = [int(m[1]) for m in re.finditer(r"^worldarray copy: (\d+)% \(\d+/64 units", err, re.M)]
    assert percents == list(range(0, 101, 10)) and len(err.splitlines()) == 11


def test_tenth_lines_print_every_tenth_a_jump_passes_and_none_twice():
    stream = io.StringIO()
    lines = TenthLines(stream)
    for done in (0, 0, 1, 5, 5, 7, 8):
        lines(Progress(8, computed=done))
    percents = [int(line.split()[2].rstrip("%")) for line in stream.getvalue().splitlines()]
    assert percents == list(range(0, 101, 10))


def test_a_resumed_copy_with_every_unit_stored_prints_each_tenth_once(tmp_path):
    stream = io.StringIO()
    lines = TenthLines(stream)
    lines(Progress(4, skipped=4))
    assert [line.split()[2] for line in stream.getvalue().splitlines()] == [f"{p}%" for p in range(0, 101, 10)]


def test_on_a_terminal_one_line_is_redrawn_with_units_percent_and_megabytes(tmp_path, capsys, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(["copy", _pyramid(tmp_path), str(tmp_path / "crop.zarr" / "s0"), "--chunks", "8"]) == 0
    shown = terminal.getvalue()
    assert shown.startswith("\r") and shown.count("\n") == 1 and shown.endswith("\n")
    frames = shown.strip("\n").split("\r")[1:]
    done = [int(re.search(r"\] (\d+)/64 units", frame)[1]) for frame in frames]
    assert done == sorted(done) and done[0] == 0 and done[-1] == 64
    assert re.search(r"\] 64/64 units 100% 0\.1 MB written$", frames[-1]), frames[-1]  # 64 units of 1 kB


def test_the_terminal_bar_fills_as_units_are_done():
    stream = _Terminal()
    bar = TerminalBar(stream)
    for done in (0, 2, 4):
        bar(Progress(4, computed=done, written=done, bytes=done * 500_000))
    bar.close()
    frames = stream.getvalue().strip("\n").split("\r")[1:]
    assert [frame.count("#") for frame in frames] == [0, 15, 30]
    assert frames[-1].endswith("4/4 units 100% 2.0 MB written")


def test_the_reporter_draws_a_bar_on_a_terminal_and_tenth_lines_elsewhere():
    assert isinstance(reporter(_Terminal()), TerminalBar)
    assert isinstance(reporter(io.StringIO()), TenthLines)
