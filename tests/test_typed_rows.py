"""Reports and analysis read stored rows as typed records (results/run.py), never by string
key: a renamed field then fails mypy and every test that touches it, not a report at run
time. The check is on the key, not on the name of what is indexed, so naming a row `spec`
does not get past it."""
from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

from cipherbench.paths import REPO
from cipherbench.results.run import Diffusion, Implementation, Measurement, RunMeta, Sample, Verification

#: Every field name of a stored row.
ROW_KEYS = frozenset(f.name for t in (Measurement, Sample, Implementation, Verification, RunMeta, Diffusion)
                     for f in fields(t))

#: Reads of true TOML/JSON sources whose own keys happen to be row field names, as
#: (module, function, indexed expression, key). Nothing else in report/ or analysis/ may
#: index anything by a row field's name.
ALLOWED = {
    # (the registry's files are typed models, cipherbench/registry_models.py: none read by key)
    # a build variant's notes (JSON the engine announces: its compiler and flags)
    ("report/builds.py", "libraries", "im.notes", "build"),
    # the run's context (measure/context.py); an implementation's environment is read typed
    # by its axis (envs/describe.py RanIn)
    ("report/machines.py", "host_runs", "r.context", "host"),
    ("report/provenance.py", "context_items", "c", "host"),
}


def string_key_reads(tree: ast.AST):
    """(function, indexed expression, key, line) of every `x["key"]` and `x.get("key", ...)`."""
    def walk(node: ast.AST, func: str):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Subscript) and isinstance(child.slice, ast.Constant) \
                    and isinstance(child.slice.value, str):
                yield name, ast.unparse(child.value), child.slice.value, child.lineno
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr == "get" and child.args and isinstance(child.args[0], ast.Constant) \
                    and isinstance(child.args[0].value, str):
                yield name, ast.unparse(child.func.value), child.args[0].value, child.lineno
            yield from walk(child, name)
    yield from walk(tree, "")


def row_reads_by_key(root: Path) -> list[str]:
    found = []
    for path in sorted((root / "report").rglob("*.py")) + sorted((root / "analysis").rglob("*.py")):
        module = path.relative_to(root).as_posix()
        for func, what, key, line in string_key_reads(ast.parse(path.read_text())):
            if key in ROW_KEYS and (module, func, what, key) not in ALLOWED:
                found.append(f"{module}:{line}: {what}[{key!r}]")
    return found


def test_report_and_analysis_read_no_stored_row_by_string_key():
    assert row_reads_by_key(REPO / "cipherbench") == []


def test_the_check_finds_a_row_read_by_key_whatever_the_row_is_called(tmp_path):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "report").mkdir()
    (tmp_path / "analysis" / "a.py").write_text("def f(spec):\n    return spec['ns_per_call'], spec.get('verified')\n")
    (tmp_path / "report" / "b.py").write_text("def now_value(x):\n    return x['size'], x['label']\n")
    assert row_reads_by_key(tmp_path) == ["report/b.py:2: x['size']", "analysis/a.py:2: spec['ns_per_call']",
                                          "analysis/a.py:2: spec['verified']"]


def test_every_allowed_read_is_still_there():
    """An entry of ALLOWED whose read is gone would let a row read in by its name."""
    root = REPO / "cipherbench"
    seen = {(path.relative_to(root).as_posix(), func, what, key)
            for sub in ("report", "analysis") for path in (root / sub).rglob("*.py")
            for func, what, key, _ in string_key_reads(ast.parse(path.read_text()))}
    assert ALLOWED - seen == set()
