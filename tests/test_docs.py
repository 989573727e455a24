"""The docs cannot go stale: every repository path they name exists, and
docs/ARCHITECTURE.md's tree names every module of cipherbench/ and none that is gone.

A path is recognised by its shape, with no list of the paths themselves: it starts with a
folder of the repository (`engine/`, `cipherbench/`, ...) or, as the architecture's tree
and the docs write them, with a package of cipherbench/ (`pipeline/plan.py`); and it ends
in a folder's slash or in a file extension that some tracked file has. Markdown links are
read relative to their file.
"""
from __future__ import annotations

import re
import subprocess
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from cipherbench.paths import REPO

TRACKED = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
#: The docs: every Markdown file, the registry's files (their comments cite code) and the build's.
DOCS = [f for f in TRACKED if f.endswith(".md") or fnmatch(f, "registry/*.toml") or f in ("Makefile", "pyproject.toml")]
ROOTS = sorted({f.split("/")[0] for f in TRACKED if "/" in f})
PACKAGES = sorted({f.split("/")[1] for f in TRACKED if f.startswith("cipherbench/") and f.count("/") >= 2})
EXTENSIONS = {PurePosixPath(f).suffix for f in TRACKED} - {""}

#: Named, but not tracked here, on purpose.
NOT_OURS = {"tests/bench-slope.c"}  # libgcrypt's benchmark, in its own tree (benchmarks/README.md)


def _token(prefixes: list[str]) -> re.Pattern[str]:
    """A path starting with one of the folders: not inside a longer word or path, and not
    a pattern (`corpus_*.py`, `adapters/<lib>/`), whose text stops before the wildcard."""
    return re.compile(rf"(?<![\w./<>*-])((?:{'|'.join(map(re.escape, prefixes))})/(?:[\w.+-]+/)*[\w+-]*(?:\.\w+)?/?)"
                      rf"(?![\w*<>{{}}/-])")


ROOT_PATH, PACKAGE_PATH = _token(ROOTS), _token(PACKAGES)
LINK = re.compile(r"\]\(([^)#\s:]+)(?:#[^)]*)?\)")  # [text](target), no URL scheme


def is_path(token: str) -> bool:
    return token.endswith("/") or PurePosixPath(token).suffix in EXTENSIONS


def named_paths(text: str, where: str) -> list[tuple[int, str, Path]]:
    """(line, as written, where it must be) for every path the text names."""
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        for m in ROOT_PATH.finditer(line):
            if is_path(m.group(1)):
                found.append((i, m.group(1), REPO / m.group(1)))
        for m in PACKAGE_PATH.finditer(line):
            if PurePosixPath(m.group(1)).suffix in EXTENSIONS:
                found.append((i, m.group(1), REPO / "cipherbench" / m.group(1)))
        for m in LINK.finditer(line):
            found.append((i, m.group(1), (REPO / where).parent / m.group(1)))
    return found


def test_every_path_the_docs_name_exists():
    stale = [f"{doc}:{i}: {written}" for doc in DOCS
             for i, written, path in named_paths((REPO / doc).read_text(), doc)
             if not path.exists() and written not in NOT_OURS]
    assert stale == []


def test_paths_are_recognised_by_their_shape():
    text = ("see cipherbench/measure.py, `pipeline/plan.py` and engine/adapters/ or [m](method.md#x);\n"
            "not corpus_*.py, cipherbench/kat/corpus_*.py, adapters/<lib>/names.inc, measure/stats.slope_fit, "
            "http://x/engine/a.py, and/or")
    assert [(i, w) for i, w, _ in named_paths(text, "docs/x.md")] == [
        (1, "cipherbench/measure.py"), (1, "engine/adapters/"), (1, "pipeline/plan.py"), (1, "method.md")]
    assert [p for *_, p in named_paths(text, "docs/x.md")][-1] == REPO / "docs" / "method.md"


# ------------------------------------------------------------------ the architecture's tree
def architecture_tree(text: str) -> dict[str, set[str]]:
    """Package ("" for cipherbench/ itself) -> the module names and patterns its lines of the
    tree in docs/ARCHITECTURE.md name: `  pipeline/   plan.py (...), points.py` and the
    indented lines that continue it. A nested package is named with its slash (`model/`)."""
    block = text.split("\ncipherbench/", 1)[1]
    named: dict[str, set[str]] = {}
    package = ""
    for line in block.splitlines()[1:]:
        if line and not line.startswith(" "):  # the next folder of the repository
            break
        if m := re.match(r"  (\w+)(/|\.py)\s", line):
            package = m.group(1) if m.group(2) == "/" else ""
            line = line[m.end(1) + 1:] if package else line  # the package's own name
        named.setdefault(package, set()).update(re.findall(r"(?<![\w/*])([\w*]+\.py|\w+/)(?![\w/])", line)
                                                if package else re.findall(r"^  (\w+\.py)\s", line))
    named.get("", set()).discard("")
    return named


def tree_problems(named: dict[str, set[str]], root: Path = REPO / "cipherbench") -> list[str]:
    """What the tree leaves out of cipherbench/, and what it names that is not there."""
    problems = []
    for package, names in sorted(named.items()):
        where = root / package
        modules = {p.name for p in where.glob("*.py")}
        nested = {p.name + "/" for p in where.iterdir() if (p / "__init__.py").exists()} if package else set()
        problems += [f"{package or 'cipherbench'}/{m} is not in the tree" for m in sorted(modules | nested)
                     if m not in ("__init__.py", "__main__.py") and not any(fnmatch(m, n) for n in names)]
        problems += [f"{package or 'cipherbench'}/{n} is gone" for n in sorted(names)
                     if not any(fnmatch(m, n) for m in modules | nested)]
    problems += [f"{p.name}/ is not in the tree" for p in sorted(root.iterdir())
                 if (p / "__init__.py").exists() and p.name not in named]
    return problems


def test_the_architecture_names_every_module_and_none_that_is_gone():
    assert tree_problems(architecture_tree((REPO / "docs" / "ARCHITECTURE.md").read_text())) == []
