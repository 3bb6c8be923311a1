"""examples/quickstart.py writes its pyramid once and finds it the same as its N5 copy; run again on the same output,
it only reads. The README's first command runs, step by step after the install: the quickstart, then ``worldarray``
``info``, ``check``, ``copy`` of a box at another voxel size, and ``info`` and ``check`` of the crop. The script runs
as ``__main__`` in this process, with the command line ``python examples/quickstart.py OUTPUT`` would give it, and
each ``worldarray`` step as ``cli.main`` of its arguments.
"""

from __future__ import annotations

import runpy
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import worldarray as wa
from worldarray import cli

README = Path(__file__).parent.parent / "README.md"


def _first_command() -> list[list[str]]:
    """The README's first command line, split into its ``&&`` steps, each as its words."""
    line = README.read_text(encoding="utf-8").split("```bash\n", 1)[1].split("\n```", 1)[0]
    return [shlex.split(step) for step in line.split("&&")]


@pytest.fixture
def quickstart(capsys, monkeypatch):
    """quickstart(*args): ``python examples/quickstart.py ARGS`` run as ``__main__`` in this process, as a finished
    process (returncode, stdout, stderr)."""
    script = str(Path(__file__).parent.parent / "examples" / "quickstart.py")

    def command(*args: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", [script, *args])
        try:
            runpy.run_path(script, run_name="__main__")
            status = 0
        except SystemExit as exit:
            status = exit.code if isinstance(exit.code, int) else 1
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess([script, *args], status, out, err)

    return command


def test_the_quickstart_writes_its_output_once_and_then_only_reads_it(tmp_path, quickstart):
    first = quickstart(str(tmp_path / "demo.zarr"))
    assert first.returncode == 0, first.stderr
    assert first.stdout.rstrip().endswith("at 4 and 8 nm: True")
    written = {p: p.stat().st_mtime_ns for p in (tmp_path / "demo.zarr").rglob("*") if p.is_file()}
    again = quickstart(str(tmp_path / "demo.zarr"))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"{tmp_path / 'demo.zarr'} is there already: reading it, writing nothing")
    assert again.stdout.rstrip().endswith("at 4 and 8 nm: True")
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "demo.zarr").rglob("*") if p.is_file()} == written
    assert cli.main(["check", str(tmp_path / "demo.zarr")]) == 0


def _run_first_command(quickstart, capsys) -> list[str]:
    """Every step of the README's first command after the install, in order, each required to exit 0; their
    stdout."""
    outputs = []
    steps = _first_command()
    assert steps[0][:2] == ["pip", "install"]
    for step in steps[1:]:
        if step[:2] == ["python", "examples/quickstart.py"]:
            done = quickstart(*step[2:])
            assert done.returncode == 0, (step, done.stderr)
            outputs.append(done.stdout)
            continue
        assert step[0] == "worldarray", f"a step the test does not know how to run: {step}"
        capsys.readouterr()
        assert cli.main(step[1:]) == 0, (step, capsys.readouterr())
        outputs.append(capsys.readouterr().out)
    return outputs


def test_the_readmes_first_command_cuts_a_box_at_another_voxel_size_and_shows_it_placed(tmp_path, quickstart,
                                                                                           capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = [word for step in _first_command() for word in step]
    assert ["worldarray", "copy", "demo.zarr", "crop.zarr/s0"] == words[words.index("copy") - 1:][:4]
    box = words[words.index("--box") + 1]
    voxel_size = float(words[words.index("--voxel-size") + 1])
    outputs = _run_first_command(quickstart, capsys)
    begin, end = (tuple(float(v) for v in half.split(",")) for half in box.split(":"))
    crop = wa.open(tmp_path / "crop.zarr" / "s0")
    expected = wa.open(tmp_path / "demo.zarr", voxel_size=voxel_size, on_mismatch="resample").read((begin, end))
    np.testing.assert_array_equal(crop.read_index((0,) * 3, crop.shape), expected)
    assert crop.voxel_size == (voxel_size,) * 3 and crop.corner == begin
    assert outputs[-1].strip() == "crop.zarr: 1 level(s), consistent"
    row = next(line for line in outputs[-2].splitlines() if line.startswith("s0 "))
    assert "(" + ", ".join(f"{v:g}" for v in crop.translation) + ")" in row


def test_the_readmes_first_command_runs_again_on_what_it_wrote(tmp_path, quickstart, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_first_command(quickstart, capsys)
    written = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    outputs = _run_first_command(quickstart, capsys)
    assert outputs[0].startswith("demo.zarr is there already: reading it, writing nothing")
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == written
