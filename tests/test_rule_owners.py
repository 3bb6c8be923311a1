"""Each rule has one owner: the half voxel is geometry's, the nanometre default units', attempt loops retry's.

The package's source is read as Python (``ast`` and ``tokenize``), so docstrings and comments never count; what is
found elsewhere must be on a named allow-list, each entry with its reason. The public names are frozen here too.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

import worldarray as wa
from worldarray import store, units, write

SOURCE = Path(wa.__file__).parent
MODULES = sorted(SOURCE.glob("*.py"))

# (module, the code on the line, why it is not the half voxel of Convention 1)
HALF_VOXEL_ALLOWED = {
    ("retry.py", "RACE_ATTEMPTS, RACE_DELAY = 5, 0.5"):
        "Behaviour 11's backoff of 0.5 s times the attempt: seconds, not voxels",
}
# (module, the string constant, why it is not the nanometre default)
NANOMETRE_ALLOWED = {
    ("precomputed.py", "nanometer"): "precomputed's resolution is in nanometres by the format's own definition",
}


def _value(token: tokenize.TokenInfo) -> float | None:
    try:
        return float(token.string.replace("_", ""))
    except ValueError:  # hexadecimal, complex: no half there
        return None


def _half_voxel_arithmetic(path: Path) -> list[tuple[int, str]]:
    """Lines whose tokens hold 0.5, or a division by 2, or 1 / 2: what adding or removing a half voxel looks like."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
              if t.type in (tokenize.NUMBER, tokenize.OP)]
    lines = path.read_text(encoding="utf-8").splitlines()
    hits = set()
    for i, token in enumerate(tokens):
        if token.type == tokenize.NUMBER and _value(token) == 0.5:
            hits.add(token.start[0])
        if token.string == "/" and i + 1 < len(tokens) and _value(tokens[i + 1]) == 2:
            hits.add(token.start[0])
    return sorted((n, lines[n - 1].split("#", 1)[0].strip()) for n in hits)  # the code, not its comment


def test_the_half_voxel_is_added_or_removed_in_geometry_alone():
    found = {(path.name, code): n for path in MODULES if path.name != "geometry.py"
             for n, code in _half_voxel_arithmetic(path)}
    unexplained = sorted(f"{name}:{n}: {code}" for (name, code), n in found.items()
                         if (name, code) not in HALF_VOXEL_ALLOWED)
    assert not unexplained, f"half-voxel arithmetic outside geometry.py: {unexplained}"
    stale = sorted(set(HALF_VOXEL_ALLOWED) - set(found))
    assert not stale, f"allow-list entries that match nothing: {stale}"


def test_geometry_does_hold_the_half_voxel():
    # the check above passes vacuously if the scan finds nothing anywhere; it finds the rule where it lives
    assert _half_voxel_arithmetic(SOURCE / "geometry.py")


@functools.cache  # each parametrised case scans every module: parse each once
def _string_constants(path: Path) -> frozenset[str]:
    return frozenset(node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Constant) and isinstance(node.value, str))


@pytest.mark.parametrize("spelling", ["nanometer", "nanometre", "nm"])
def test_the_nanometre_default_is_written_in_units_alone(spelling):
    found = {(path.name, spelling) for path in MODULES if path.name != "units.py"
             and spelling in _string_constants(path)}
    unexplained = sorted(found - set(NANOMETRE_ALLOWED))
    assert not unexplained, f"{spelling!r} written outside units.py (use units.NANOMETER): {unexplained}"


def test_units_does_hold_the_nanometre_default():
    assert units.NANOMETER in _string_constants(SOURCE / "units.py")
    assert set(NANOMETRE_ALLOWED) <= {(path.name, "nanometer") for path in MODULES
                                      if "nanometer" in _string_constants(path)}


def _attempt_loops(path: Path) -> list[str]:
    """Sleeps, and loops whose variable or condition names an attempt: what an attempt loop is made of."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sleep":
            found.append(f"{path.name}:{node.lineno} sleeps")
        if isinstance(node, (ast.For, ast.While)):
            names = {n.id for n in ast.walk(node.target if isinstance(node, ast.For) else node.test)
                     if isinstance(n, ast.Name)}
            if isinstance(node, ast.For):
                names |= {n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name)}
            if any("attempt" in name for name in names):
                found.append(f"{path.name}:{node.lineno} loops over attempts")
    return found


def test_attempt_loops_live_in_retry_alone():
    found = [hit for path in MODULES if path.name != "retry.py" for hit in _attempt_loops(path)]
    assert not found, f"attempt loops outside retry.py: {found}"
    assert _attempt_loops(SOURCE / "retry.py"), "retry.py holds no attempt loop, so the check above proves nothing"


# ---------------------------------------------------------------- imports that point one way


def _imports(name: str) -> set[str]:
    """The package modules and the top-level outside packages ``name`` imports, an import for type checking aside."""
    tree = ast.parse((SOURCE / f"{name}.py").read_text(encoding="utf-8"))
    checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                and getattr(node.test, "id", None) == "TYPE_CHECKING" for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
    return found


def _reached(name: str) -> set[str]:
    """Every package module ``name`` imports, directly or through another, and ``name`` itself."""
    ours = {path.stem for path in MODULES}
    seen, todo = set(), [name]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(sorted(_imports(module) & ours))
    return seen


def test_metadata_and_the_placement_rules_reach_no_io():
    from worldarray.metadata import RULES

    pure = {"metadata"} | {rule.find.__module__.rsplit(".", 1)[-1] for rules in RULES.values() for rule in rules}
    reached = set().union(*(_reached(name) for name in pure))
    doing_io = sorted(name for name in reached if "tensorstore" in _imports(name))
    assert not doing_io, f"metadata parsing reaches modules that import tensorstore: {doing_io}"
    assert "tensorstore" in _imports("store"), "the scan finds no tensorstore import, so the check proves nothing"


def test_detect_does_not_import_metadata():
    assert "metadata" not in _reached("detect")


# ---------------------------------------------------------------- public names


def test_the_public_names_are_these():
    assert sorted(wa.__all__) == sorted([
        "ArrayMeta", "Block", "Box", "CopyError", "Grid", "Progress", "copy", "MetadataWarning", "Node", "Pyramid",
        "Retry", "UnitsWarning",
        "WorldArray", "as_box", "blocks", "capped_context", "capped_context_spec", "chunk_key", "codecs_of",
        "corner_to_centre", "create", "default_axes", "detect", "ensure_group_entry", "index_range", "level_factors",
        "level_placement", "level_shape", "list_chunk_keys", "metadata", "ome_multiscales", "open", "open_pyramid",
        "open_tensorstore", "parse_chunk_key", "select_level", "shared_context", "store", "thread_budget", "units",
        "write",
    ])
    assert sorted(store.__all__) == sorted(["GUARD_GCE_METADATA", "basename", "join", "parent"])
    assert sorted(units.__all__) == sorted([
        "TABLE", "NANOMETER", "kind", "factor", "abbreviation", "ome_name", "lookup", "Request", "convert",
        "UnitsArgument",
    ])
    assert sorted(write.__all__) == sorted([
        "OME_VERSIONS", "AXIS_TYPES", "ome_multiscales", "level_placement", "level_shape", "codecs_of", "axis_units",
        "ensure_group_entry",
    ])


@pytest.mark.parametrize("module", [wa, store, units, write], ids=lambda m: m.__name__)
def test_every_public_name_exists(module):
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{module.__name__}.__all__ names {missing}, which it does not have"


def test_wa_metadata_is_the_function_and_the_module_is_reached_by_from_import():
    from worldarray.metadata import RULES, ArrayMeta

    assert callable(wa.metadata) and wa.metadata.__module__ == "worldarray.handle"
    assert ArrayMeta is wa.ArrayMeta and set(RULES) == {"zarr2", "zarr3", "n5", "precomputed"}


def test_importing_the_package_starts_no_thread():
    code = "import threading, worldarray; print(sorted(t.name for t in threading.enumerate()))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "['MainThread']", result.stdout


#: what an open for reading never needs, so ``import worldarray`` does not load it (each names its first user)
_LOADED_LATER = ("worldarray.write", "worldarray.pyramid", "worldarray.neuroglancer",
                 "worldarray.spatial_write", "worldarray.cli", "http.client", "urllib.request", "urllib.parse",
                 "random", "pathlib")


def test_importing_the_package_and_opening_for_reading_load_no_writing_or_http_module(tmp_path):
    wa.create(tmp_path / "v.zarr/s0", (4, 4, 4), "uint8", 8, 4, chunks=4)
    code = ("import sys, worldarray as wa; wa.open(sys.argv[1]).read_index((0, 0, 0), (2, 2, 2)); "
            "print(sorted(set(sys.argv[2:]) & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "v.zarr/s0"), *_LOADED_LATER],
                            capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]", result.stdout
    assert "worldarray.pyramid" in sys.modules, "the suite has loaded them, so the names above are real modules"


def test_a_name_whose_module_loads_later_is_the_same_object_as_its_module_holds():
    from worldarray import pyramid
    from worldarray import write as write_module

    assert (wa.create, wa.open_pyramid, wa.Pyramid) == (pyramid.create, pyramid.open_pyramid, pyramid.Pyramid)
    assert (wa.write, wa.codecs_of, wa.ensure_group_entry) == (write_module, write.codecs_of, write.ensure_group_entry)
    assert set(wa.__all__) <= set(dir(wa))
    with pytest.raises(AttributeError, match="no attribute 'opne'"):
        wa.opne  # noqa: B018


def test_wa_copy_is_the_function_after_the_command_line_module_is_imported_first():
    code = "import worldarray.cli, worldarray as wa; print(callable(wa.copy), wa.copy.__module__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.split() == ["True", "worldarray.copy"], result.stdout


def test_the_version_is_one_number_in_pyproject_and_the_package():
    text = (SOURCE.parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    declared = next(line.split("=", 1)[1].strip().strip('"') for line in text.splitlines()
                    if line.startswith("version = "))
    assert declared == wa.__version__


# ---------------------------------------------------------------- docstrings state rules, not labels

# "Behaviour 4", "Behaviours 11 and 12", "Convention 1", "(A2)", "A14", "B3": the spec's and additions' labels
_LABEL = re.compile(r"\b(?:Behaviours? \d+|Conventions? \d+|(?<![\w.-])[AB]\d{1,2}\b)")


def _docstrings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                found.append((getattr(node, "lineno", 1), text))
    return found


def test_docstrings_state_the_rule_and_cite_no_spec_label():
    cited = [(path.name, line, match) for path in MODULES for line, text in _docstrings(path)
             for match in _LABEL.findall(text)]
    assert not cited, f"docstrings citing a label instead of stating the rule: {cited}"
    assert _LABEL.search("as Behaviour 4 says (A2)"), "the pattern finds nothing, so the check above proves nothing"


# ---------------------------------------------------------------- one record per storage format


def test_every_table_keyed_by_format_covers_every_format_of_the_registry():
    from worldarray import consolidated, keys, neuroglancer, reach, write
    from worldarray.formats import FORMATS, WRITTEN
    from worldarray.metadata import FACTS, RULES

    every = set(FORMATS)
    assert set(RULES) == set(FACTS) == every
    assert set(neuroglancer.READERS) == set(neuroglancer.SCHEMES) == every
    assert all(form.keys.name == name for name, form in FORMATS.items())  # each record holds its own key spelling
    assert all(keys.spelling_of(name) is form.keys for name, form in FORMATS.items())
    assert set(write._ARRAY_SPECS) == set(consolidated.LAYOUTS) == set(WRITTEN.values())
    assert {form.stored_order for form in FORMATS.values()} <= set(reach.C_ORDER)


_FORMAT_LITERAL = re.compile(r"""\b(?:format|fmt)\s*[!=]=\s*["'](?:zarr2|zarr3|n5|precomputed)["']""")


def test_no_module_but_the_format_records_compares_a_format_with_a_name():
    found = [(path.name, n) for path in MODULES if path.name != "formats.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if _FORMAT_LITERAL.search(line)]
    assert not found, f"format branches outside formats.py: {found}"
    assert _FORMAT_LITERAL.search('if node.format == "n5":'), "the pattern finds nothing, so the check proves nothing"


def test_levels_chooses_from_documents_read_and_reaches_no_io():
    doing_io = sorted(name for name in _reached("levels") if {"tensorstore"} & _imports(name) or name == "store")
    assert not doing_io, f"levels reaches modules that read or write: {doing_io}"
