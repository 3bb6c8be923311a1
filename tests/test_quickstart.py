"""examples/quickstart.py writes its pyramid once and finds it the same as its N5 copy; run again on the same output,
it only reads. The script runs as ``__main__`` in this process, with the command line ``python examples/quickstart.py
OUTPUT`` would give it.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from worldarray import cli


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
