"""The orchestrator's imports go one way. Every import of a cipherbench module by another, at
module level or inside a function, is an edge; the edges point down the layer order that
docs/ARCHITECTURE.md states (its "Layers" table, read here: the order is written once) and
form no cycle, neither between modules nor between packages."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import cipherbench
from cipherbench.paths import REPO

PACKAGE = Path(cipherbench.__file__).resolve().parent
ARCHITECTURE = REPO / "docs" / "ARCHITECTURE.md"

#: A row of the layer table: `| 2 | `measure`, `kat`, `ct` | what they are |`.
LAYER_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")


def layer_order(text: str) -> dict[str, int]:
    """Each package's (or top-level module's) layer, from the table under the "## Layers"
    heading: the rows are numbered from 0 at the bottom."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    order: dict[str, int] = {}
    for line in section.splitlines():
        if m := LAYER_ROW.match(line):
            for name in re.findall(r"`([\w.]+)`", m.group(2)):
                assert name not in order, f"{name} is in two layers of {ARCHITECTURE.name}"
                order[name] = int(m.group(1))
    assert order, f"no layer table under '## Layers' in {ARCHITECTURE}"
    return order


LAYERS = layer_order(ARCHITECTURE.read_text())


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    """The package or top-level module a module belongs to, as the layer table names it:
    cipherbench.cli.run -> cli, cipherbench.kinds -> kinds, cipherbench -> __init__."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path, modules: set[str], name: str) -> set[str]:
    """The cipherbench modules that module `name`, the file at `path`, imports anywhere in it
    (`from pkg import mod` counts as the module, `from pkg import name` as the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            subs = {f"{base}.{a.name}" for a in node.names} & modules
            found.update(subs)
            if len(subs) < len(node.names):  # names defined in the module itself
                found.add(base)
    return {m for m in found if m in modules and m != name}


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports. Importing a module also runs its packages'
    __init__ first; that is the package's edge (its __init__'s imports), not the module's."""
    files = sorted(package.rglob("*.py"))
    modules = {module_name(f, package) for f in files}
    return {module_name(f, package): imports_of(f, modules, module_name(f, package)) for f in files}


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph with each package collapsed to one node."""
    out: dict[str, set[str]] = {}
    for m, targets in edges.items():
        out.setdefault(unit_of(m), set()).update(unit_of(t) for t in targets if unit_of(t) != unit_of(m))
    return out


def against_the_order(edges: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    """Every import of a module in a higher layer than the importer's, one line each."""
    placed = {m: layers[unit_of(m)] for m in edges if unit_of(m) in layers}  # the rest: every_package_has_a_layer
    return [f"{m} (layer {placed[m]}) imports {t} (layer {placed[t]})"
            for m, targets in sorted(edges.items()) for t in sorted(targets)
            if m in placed and t in placed and placed[t] > placed[m]]


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (c := visit(n)):
                return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (c := visit(m)):
            return c
    return None


def test_every_package_has_a_layer():
    missing = sorted({unit_of(m) for m in graph()} - set(LAYERS))
    assert missing == [], f"place these in the layer table of {ARCHITECTURE.relative_to(REPO)}: {missing}"


def test_imports_go_down_the_layers():
    upward = against_the_order(graph(), LAYERS)
    assert not upward, "imports against the layer order of docs/ARCHITECTURE.md:\n" + "\n".join(upward)


def test_no_import_cycle_between_packages():
    cycle = find_cycle(package_graph(graph()))
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle)


def test_no_import_cycle_between_modules():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_checks_find_what_they_are_for(tmp_path):
    """A planted upward import, module-level and inside a function, and a cycle through two
    packages that no pair of modules closes."""
    pkg = tmp_path / "cipherbench"
    for f, text in {"__init__.py": "", "kinds.py": "def f():\n    from cipherbench.cli import app\n",
                    "cli/__init__.py": "", "cli/app.py": "from . import run\n", "cli/run.py": "",
                    "store/__init__.py": "", "store/db.py": "from cipherbench.report.tables import T\n",
                    "report/__init__.py": "", "report/tables.py": "", "report/load.py": "import cipherbench.store.x\n",
                    "store/x.py": ""}.items():
        (pkg / f).parent.mkdir(parents=True, exist_ok=True)
        (pkg / f).write_text(text)
    edges = graph(pkg)
    assert edges["cipherbench.kinds"] == {"cipherbench.cli.app"}
    assert edges["cipherbench.cli.app"] == {"cipherbench.cli.run"}
    layers = {"__init__": 0, "kinds": 0, "store": 1, "report": 2, "cli": 3}
    assert against_the_order(edges, layers) == [
        "cipherbench.kinds (layer 0) imports cipherbench.cli.app (layer 3)",
        "cipherbench.store.db (layer 1) imports cipherbench.report.tables (layer 2)"]
    assert find_cycle(edges) is None  # no two modules import each other ...
    assert find_cycle(package_graph(edges)) == ["report", "store", "report"]  # ... two packages do
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_layer_table_is_read_as_written():
    text = "# A\n\n## Layers\n\n| layer | packages |\n|---|---|\n| 0 | `kinds`, `paths` |\n| 1 | `cli` |\n\n## Next\n| 5 | `x` |\n"
    assert layer_order(text) == {"kinds": 0, "paths": 0, "cli": 1}


#: what only a command that verifies or times needs: the gate and the runners
GATE_AND_RUNNERS = ("cipherbench.kat.verify", "cipherbench.kat.pair_checks", "cipherbench.kat.corpora", "cipherbench.measure.session",
                    "cipherbench.pipeline.execute")


@pytest.mark.parametrize("command", ["show", "runs", "report", "recommend"])
def test_a_command_that_reads_a_store_does_not_load_the_gate(command):
    """Every command of the test suite starts a Python of its own, hundreds a run: one that
    only reads a store must not import the gate and the runners (kat/identity.py, the
    pipeline's names imported when asked for)."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", f"import sys, cipherbench.cli.{command}; "
                        "print(' '.join(m for m in sys.modules if m.startswith('cipherbench.')))"],
                       capture_output=True, text=True, check=True, cwd=REPO)
    loaded = set(r.stdout.split())
    assert f"cipherbench.cli.{command}" in loaded and not loaded & set(GATE_AND_RUNNERS)
