"""The README and every page of the site under docs/: their Python blocks run, in order, in a temporary directory;
the reference documents every public name; a signature written in the text is the code's; every page is reachable."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import json
import pkgutil
import re
from pathlib import Path

import pytest

import worldarray as wa
from worldarray.pyramid import Pyramid

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
# a block, and the "not run" mark with its reason when one stands right above it
BLOCK = re.compile(r"(?:<!-- not run: (?P<why>[^>]*?)-->\n)?```python\n(?P<code>.*?)```", re.S)


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _blocks(page: Path) -> list[tuple[int, str, str | None]]:
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start("code")) + 1, m["code"], " ".join(m["why"].split()) if m["why"] else None)
            for m in BLOCK.finditer(text)]


# a print whose comment says what it prints: ``print(vol.shape)  # (8, 8, 8) the voxels ...``
PRINTED = re.compile(r"^(?P<indent>\s*)print\((?P<values>.*)\)\s+#\s?(?P<comment>.*)$", re.M)


def _shown(code: str) -> str:
    """The block with each commented print made a call of ``__shown(comment, values...)``, on the same line."""
    return PRINTED.sub(lambda m: f"{m['indent']}__shown({m['comment']!r}, {m['values']})", code)


def _says(comment: str, printed: str) -> bool:
    """A comment tells what a print gives when it starts with it; ``{...}`` in the comment stands for any text."""
    pattern = re.escape(comment).replace(re.escape("{...}"), ".*")
    return comment.startswith(printed) or re.match(pattern, printed, re.S) is not None


_RUNNABLE = [p for p in PAGES if any(why is None for _, _, why in _blocks(p))]


@pytest.mark.parametrize("page", _RUNNABLE, ids=_name)
def test_every_python_block_of_a_page_runs_in_order_in_a_temporary_directory(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wrong: list[str] = []
    namespace: dict = {}
    ran = 0
    for line, code, why in _blocks(page):
        if why is not None:
            continue
        where = f"{_name(page)}, the block at line {line}"

        def shown(comment: str, *values: object, where: str = where) -> None:
            printed = " ".join(map(str, values))
            if not _says(comment, printed):
                wrong.append(f"{where}: printed {printed!r}, its comment says {comment!r}")

        namespace["__shown"] = shown
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compile(_shown(code), where, "exec"), namespace)  # noqa: S102
            except Exception as error:  # the block's line says which one broke
                pytest.fail(f"{where}: {type(error).__name__}: {error}")
        ran += 1
    assert ran >= 1
    assert not wrong, wrong


def test_a_print_is_held_to_what_its_comment_says_it_prints():
    commented = [m for page in _RUNNABLE for _, code, why in _blocks(page) if why is None
                 for m in PRINTED.finditer(code)]
    assert len(commented) >= 10
    assert _says("(8, 8, 8) (4.0, 4.0) the box", "(8, 8, 8) (4.0, 4.0)") and not _says("(8, 8, 8)", "(8, 8, 9)")
    assert _says("(-10.0, 10.0) {...}", "(-10.0, 10.0) {'proj:code': 'EPSG:32630'}")


def test_a_block_not_run_says_why():
    skipped = [(_name(page), line, why) for page in PAGES for line, _, why in _blocks(page) if why is not None]
    assert skipped, "the pages mark the blocks they cannot run offline"
    assert all(len(why) > 20 for _, _, why in skipped), skipped


def test_the_readme_reaches_a_runnable_wa_open_within_its_first_60_lines_and_stays_short():
    text = README.read_text(encoding="utf-8")
    first = next((line, code) for line, code, why in _blocks(README) if why is None)
    assert first[0] + first[1].count("\n") <= 60 and "wa.open(" in first[1], first
    assert text.count("\n") <= 300


# ---- the reference: generated from the docstrings, one entry per public name -----------------------------------

def _documented() -> list[object]:
    """What each ``::: dotted.name`` of the reference pages renders: the object that name reaches."""
    return [pkgutil.resolve_name(dotted) for page in sorted((DOCS / "reference").glob("*.md"))
            for dotted in re.findall(r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.M)]


def test_the_generated_reference_documents_every_name_of_all_once_and_nothing_else():
    documented = _documented()
    public = [getattr(wa, name) for name in wa.__all__]
    missing = [name for name, obj in zip(wa.__all__, public, strict=True) if not any(obj is d for d in documented)]
    extra = [d for d in documented if not any(d is obj for obj in public)]
    assert not missing and not extra, (missing, extra)
    assert len(documented) == len(wa.__all__)


def test_the_site_builds_the_reference_from_the_docstrings_in_numpy_style():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "mkdocstrings" in config and "docstring_style: numpy" in config and "strict: true" in config
    assert all(inspect.getdoc(getattr(wa, name)) for name in wa.__all__)


# ---- signatures written in the text --------------------------------------------------------------------------

_LITERAL = r"(None|True|False|-?[0-9][0-9.e+-]*|\"[^\"]*\")"
_PIECE = re.compile(rf"^(\*{{0,2}}\w+|\w+={_LITERAL}|\*|\.\.\.)$")
_OWNERS = {"vol": wa.WorldArray, "pyramid": Pyramid, "pyr": Pyramid}


def _callable(name: str):
    """The public call a signature in the text names (``wa.open``, ``vol.read``, ``read_onto``, ...), or None."""
    parts = name.split(".")
    if parts[0] in ("wa", "worldarray"):  # wa.metadata is the function, though a module has its name
        target: object = wa
        for attribute in parts[1:]:
            target = getattr(target, attribute, None) or pkgutil.resolve_name(f"{target.__name__}.{attribute}")
        return target
    owner = _OWNERS.get(parts[0]) if len(parts) == 2 else wa.WorldArray
    return getattr(owner, parts[-1], None)


def _default(value) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _spelt(function) -> list[str]:
    """``a, b=1, *, c="x"``: a call's parameters as the text spells them (no annotations, double quotes)."""
    function = function.__init__ if inspect.isclass(function) else function
    parameters = list(inspect.signature(function).parameters.values())
    if parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    pieces, starred = [], False
    for p in parameters:
        if p.kind == p.KEYWORD_ONLY and not starred:
            pieces.append("*")
        starred = starred or p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        pieces.append(f"{prefix}{p.name}" if p.default is p.empty else f"{p.name}={_default(p.default)}")
    return pieces


def _signatures() -> list[tuple[str, str, list[str]]]:
    """Every code span of the pages that reads as a signature (parameters with literal defaults, no call's values):
    a keyword-only ``*``, or two or more defaults."""
    found = []
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for span in re.findall(r"`([^`]+)`", prose):
            match = re.match(r"^([\w.]+)\((.*)\)$", " ".join(span.split()))
            if not match or not match[2]:
                continue
            pieces = [p.strip() for p in match[2].split(", ")]
            if all(_PIECE.match(p) for p in pieces) and ("*" in pieces or sum("=" in p for p in pieces) >= 2):
                found.append((_name(page), match[1], pieces))
    return found


def test_every_signature_written_in_the_text_is_the_codes():
    wrong = []
    for page, name, pieces in _signatures():
        function = _callable(name.split("(")[-1])
        if function is None:
            wrong.append((page, name, "names no public call"))
            continue
        code = _spelt(function)
        given = pieces[:-1] if pieces[-1] == "..." else pieces
        if given != code[:len(given)] or (pieces[-1] != "..." and given != code):
            wrong.append((page, name, ", ".join(pieces), "code: " + ", ".join(code)))
    assert len(_signatures()) >= 15
    assert not wrong, wrong


# ---- commands, the code map, links --------------------------------------------------------------------------

def test_ci_runs_the_readmes_test_command_exactly():
    text = README.read_text(encoding="utf-8")
    command = text.split("Install the test tools and run the tests", 1)[1].split("```bash\n", 1)[1].split("\n```")[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert any(line.startswith(command.strip() + " ") or line == command.strip() for line in ci.splitlines())


def test_ci_builds_the_site_strictly():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^pip install -e \"\.\[docs\]\"", ci, re.M)
    assert re.search(r"^(\w+=\S* )*mkdocs build --strict", ci, re.M)


def test_the_code_map_lists_every_module_each_importing_only_modules_above_it():
    section = (DOCS / "development.md").read_text(encoding="utf-8").split("## Code map", 1)[1].split("\n## ", 1)[0]
    order = re.findall(r"^\| `(\w+)\.py` \|", section, re.M)
    source = ROOT / "src" / "worldarray"
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


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target]


def test_every_page_of_the_site_is_in_its_navigation_and_linked_from_the_readme():
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    nav = set(re.findall(r"([\w/-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M))
    linked = {target.split("#")[0].removeprefix("docs/") for target in _links(README)}
    assert pages == nav
    assert pages <= linked, sorted(pages - linked)


def test_every_relative_link_of_the_readme_reaches_a_file():
    broken = [t for t in _links(README) if not (ROOT / t.split("#")[0]).exists()]
    assert _links(README) and not broken, broken
