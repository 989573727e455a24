"""Rules of the house that code review would otherwise have to remember."""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

from cipherbench.paths import REPO

#: The command line parses and prints; anything longer belongs in a library module.
CLI_FUNCTION_LINES = 40


def test_no_function_of_the_command_line_is_longer_than_40_lines():
    long = []
    for f in sorted((REPO / "cipherbench" / "cli").glob("*.py")):
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.FunctionDef) and n.end_lineno - n.lineno + 1 > CLI_FUNCTION_LINES:
                long.append(f"{f.name}:{n.name} ({n.end_lineno - n.lineno + 1} lines)")
    assert long == []


def test_every_command_prints_through_the_one_console():
    """cipherbench/console.py makes the consoles that print text from runners and files
    literally; a console made elsewhere would print it raw."""
    made = []
    for f in sorted((REPO / "cipherbench").rglob("*.py")):
        if f.name == "console.py" and f.parent.name == "cipherbench":
            continue
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.ImportFrom) and n.module == "rich.console" or \
                    isinstance(n, ast.Call) and "Console" in ast.unparse(n.func):
                made.append(f"{f.relative_to(REPO)}:{n.lineno}")
    assert made == []


def test_code_and_docs_speak_of_the_project_not_of_its_tracker():
    """Facts are stated with the measurement behind them, not as "issue N" or "session N"."""
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True).stdout.split()
    pattern = re.compile(r"\b(issue|session) #?\d+\b|these guests", re.IGNORECASE)
    found = [f"{f}:{i}" for f in files if not f.endswith(".json") and (REPO / f).is_file()
             for i, line in enumerate((REPO / f).read_text(errors="replace").splitlines(), 1)
             if pattern.search(line) and "test_house_rules.py" not in f]
    assert found == []


def test_the_tracker_rule_finds_what_it_is_for():
    pattern = re.compile(r"\b(issue|session) #?\d+\b|these guests", re.IGNORECASE)
    assert pattern.search("as issue 5 asked") and pattern.search("(Session 6)") and not pattern.search("a session's runners")
    assert Path(__file__).name == "test_house_rules.py"
