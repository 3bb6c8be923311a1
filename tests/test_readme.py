"""The README's Python blocks run, in order, in a temporary directory; its signatures are the code's."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

from signatures import CALLS, spelt

README = Path(__file__).parent.parent / "README.md"
TEXT = README.read_text(encoding="utf-8")
# a block, and the "not run" mark with its reason when one stands right above it
BLOCK = re.compile(r"(?:<!-- not run: (?P<why>[^>]*?)-->\n)?```python\n(?P<code>.*?)```", re.S)


def _blocks() -> list[tuple[int, str, str | None]]:
    return [(TEXT.count("\n", 0, m.start("code")) + 1, m["code"], " ".join(m["why"].split()) if m["why"] else None)
            for m in BLOCK.finditer(TEXT)]


def test_every_python_block_runs_in_order_in_a_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    ran = 0
    for line, code, why in _blocks():
        if why is not None:
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compile(code, f"README.md, the block at line {line}", "exec"), namespace)  # noqa: S102
            except Exception as error:  # the block's line says which one broke
                pytest.fail(f"README.md, the block at line {line}: {type(error).__name__}: {error}")
        ran += 1
    assert ran >= 6


def test_a_block_not_run_says_why():
    skipped = [(line, why) for line, _, why in _blocks() if why is not None]
    assert skipped, "the README marks blocks it cannot run offline"
    assert all(len(why) > 20 for _, why in skipped), skipped


def test_the_signatures_section_lists_every_call_as_the_code_has_it():
    section = TEXT.split("## Signatures", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    listed = [" ".join(entry.split()) for entry in re.split(r"\n(?! )", section.strip())]
    assert listed == [spelt(*call) for call in CALLS]


def test_the_contents_list_every_section_in_order():
    headings = [title for _, title in re.findall(r"^(##|###) (.+)$", TEXT, re.M) if title != "Contents"]
    contents = TEXT.split("## Contents\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"\[([^\]]+)\]\(#", contents) == headings


def test_ci_runs_the_readmes_test_command_exactly():
    command = TEXT.split("Install the test tools and run the tests", 1)[1].split("```bash\n", 1)[1].split("\n```")[0]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert any(line.startswith(command.strip() + " ") or line == command.strip() for line in ci.splitlines())


def test_the_code_map_lists_every_module_each_importing_only_modules_above_it():
    section = TEXT.split("## Code map", 1)[1].split("\n## ", 1)[0]
    order = re.findall(r"^\| `(\w+)\.py` \|", section, re.M)
    source = README.parent / "src" / "worldarray"
    modules = {p.stem for p in source.glob("*.py")} - {"__init__", "__main__"}
    assert sorted(order) == sorted(modules)
    upward = []
    for position, name in enumerate(order):
        tree = ast.parse((source / f"{name}.py").read_text(encoding="utf-8"))
        checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                    and getattr(node.test, "id", None) == "TYPE_CHECKING" for n in ast.walk(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in checking:
                for imported in [node.module.split(".")[0]] if node.module else [a.name for a in node.names]:
                    if imported in order and order.index(imported) > position:
                        upward.append((name, imported))
    assert not upward, f"modules importing a module listed below them: {upward}"
