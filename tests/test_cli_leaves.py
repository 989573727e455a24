"""Command modules are leaves, and a module name has one meaning.

A command's module (cipherbench/cli/__init__.py's COMMANDS names them) imports no other
command's module, at module level or inside a function: what two commands share lives in a
module of cli/ that is no command (app, options, estimates, presets, summary, gate, plan_runs,
stored_run, ct_tables, matrix_runs) or in a lower layer, and no module of cli/ imports a
command's. Two modules under cipherbench/ share a file name only where SAME_NAME says why."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import cipherbench
from cipherbench.cli import COMMANDS

PACKAGE = Path(cipherbench.__file__).resolve().parent
CLI = "cipherbench.cli"


def cli_imports(source: str, module: str) -> set[str]:
    """The modules of cipherbench.cli that `module` (a module of it) imports anywhere in
    `source`: `import cipherbench.cli.x`, `from cipherbench.cli.x import y`,
    `from cipherbench.cli import x` and their relative forms (`from . import x`, `from .x import y`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative to the module's package, cipherbench.cli
                base = ".".join([*CLI.split(".")[: 3 - node.level], *([base] if base else [])])
            found.add(base)
            if base == CLI:  # `from cipherbench.cli import x`: x may be a module
                found.update(f"{CLI}.{a.name}" for a in node.names)
    prefix = CLI + "."
    return {m.removeprefix(prefix).split(".")[0] for m in found if m.startswith(prefix) and m != module}


def command_imports(cli_dir: Path, commands: set[str]) -> list[str]:
    """Every import of a command's module by a module of cli/, one line each."""
    found = []
    for path in sorted(cli_dir.glob("*.py")):
        name = path.stem
        for target in sorted(cli_imports(path.read_text(), f"{CLI}.{name}") & (commands - {name})):
            found.append(f"cli/{path.name} imports the command module cli/{target}.py")
    return found


def command_modules() -> set[str]:
    return {module for module, _ in COMMANDS.values()}


def test_every_command_module_exists():
    missing = sorted(m for m in command_modules() if not (PACKAGE / "cli" / f"{m}.py").is_file())
    assert missing == []


def test_no_module_of_the_command_line_imports_a_command():
    found = command_imports(PACKAGE / "cli", command_modules())
    assert not found, "move what they share out of the command (a shared module of cli/, or below):\n" + "\n".join(found)


def test_the_check_finds_a_command_imported(tmp_path):
    """Absolute and relative, at module level and inside a function; a shared module and the
    command's own name are no finding."""
    for name, text in {"run.py": "from cipherbench.cli.gate import x\nfrom cipherbench.cli.run import y\n",
                       "show.py": "def f():\n    from cipherbench.cli.run import BarProgress\n",
                       "bench.py": "from . import run\nfrom .verify import whole_gate\n",
                       "ct.py": "import cipherbench.cli.show\nfrom cipherbench.cli import app\n",
                       "gate.py": "from cipherbench.cli import verify as v\n",
                       "verify.py": "from cipherbench.cli.gate import whole_gate\n"}.items():
        (tmp_path / name).write_text(text)
    assert command_imports(tmp_path, {"run", "show", "bench", "ct", "verify"}) == [
        "cli/bench.py imports the command module cli/run.py",
        "cli/bench.py imports the command module cli/verify.py",
        "cli/ct.py imports the command module cli/show.py",
        "cli/gate.py imports the command module cli/verify.py",
        "cli/show.py imports the command module cli/run.py"]


#: File names more than one module under cipherbench/ has: exactly those modules, and why
#: the name means one thing in each.
SAME_NAME: dict[str, tuple[frozenset[str], str]] = {
    "__init__.py": (frozenset(), "every package's; checked by no rule here"),
    "__main__.py": (frozenset({"__main__.py", "kat/corpora/__main__.py"}),
                    "what `python -m` runs for its package"),
    "runners.py": (frozenset({"arch/runners.py", "builds/runners.py", "releases/runners.py"}),
                   "an axis's engines or runners as RunnerSpecs"),
    "build.py": (frozenset({"arch/build.py", "envs/build.py"}), "an axis's engine built"),
    # a command's module is named by its command, beside what it presents
    "verify.py": (frozenset({"cli/verify.py", "kat/verify.py"}), "the `verify` command; the gate"),
    "run.py": (frozenset({"cli/run.py", "results/run.py"}), "the `run` command; a stored run as an object"),
    "show.py": (frozenset({"cli/show.py", "ct/show.py"}), "the `show` command; ct's verdicts as show's cells"),
    "recommend.py": (frozenset({"cli/recommend.py", "analysis/recommend.py"}), "the `recommend` command; the answer"),
    "conformance.py": (frozenset({"cli/conformance.py", "measure/conformance.py"}),
                       "the `conformance` command; the suite"),
    "versions.py": (frozenset({"cli/versions.py", "analysis/versions.py"}),
                    "the `versions` command; what other versions measured"),
    "ct.py": (frozenset({"cli/ct.py", "report/ct.py"}), "the `ct` command; ct's tables in the report"),
    "builds.py": (frozenset({"cli/builds.py", "report/builds.py"}), "the `builds` command; its tables in the report"),
    # one subject in two layers, the package saying which part
    "history.py": (frozenset({"analysis/history.py", "report/history.py"}),
                   "a library's releases: the steps found; the timeline reported"),
    "xts.py": (frozenset({"kat/model/xts.py", "kat/corpora/xts.py"}), "XTS: the model; its corpus"),
    "carry.py": (frozenset({"kat/carry.py", "kat/corpora/carry.py"}),
                 "counter carries: which the gate crosses; the corpus crossing them"),
    "plan.py": (frozenset({"pipeline/plan.py", "envs/plan.py"}),
                "a run's plan; what a plan's implementations mean once environments run"),
}


def shared_names(package: Path, allowed: dict[str, tuple[frozenset[str], str]]) -> list[str]:
    """File names shared by modules where `allowed` does not name exactly those modules, and
    entries of `allowed` no longer shared as they say, one line each."""
    by_name: dict[str, set[str]] = defaultdict(set)
    for path in package.rglob("*.py"):
        by_name[path.name].add(path.relative_to(package).as_posix())
    found = []
    for name, paths in sorted(by_name.items()):
        if len(paths) < 2 or name == "__init__.py":
            continue
        if name not in allowed:
            found.append(f"{name}: {', '.join(sorted(paths))} (a name for each's job, or a reason in SAME_NAME)")
        elif allowed[name][0] != paths:
            found.append(f"{name}: {', '.join(sorted(paths))}, not the {', '.join(sorted(allowed[name][0]))} "
                         "SAME_NAME gives a reason for")
    found += [f"{name}: in SAME_NAME but not shared" for name, (paths, _) in sorted(allowed.items())
              if paths and len(by_name.get(name, ())) < 2]
    return found


def test_two_modules_share_a_name_only_for_a_reason():
    found = shared_names(PACKAGE, SAME_NAME)
    assert not found, "module names with more than one meaning:\n" + "\n".join(found)


def test_the_check_finds_a_name_shared(tmp_path):
    for f in ("__init__.py", "a/__init__.py", "a/records.py", "b/records.py", "a/plan.py", "c/plan.py",
              "b/plan.py", "a/model.py"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    allowed = {"plan.py": (frozenset({"a/plan.py", "b/plan.py"}), "why"),
               "model.py": (frozenset({"a/model.py", "b/model.py"}), "why")}
    assert shared_names(tmp_path, allowed) == [
        "plan.py: a/plan.py, b/plan.py, c/plan.py, not the a/plan.py, b/plan.py SAME_NAME gives a reason for",
        "records.py: a/records.py, b/records.py (a name for each's job, or a reason in SAME_NAME)",
        "model.py: in SAME_NAME but not shared"]
