"""A word of kinds.py's vocabularies is compared as its enum member, never as a string
typed by hand: outside kinds.py, no comparison and no `in` test may hold a string literal
equal to any enum value there. A different vocabulary that shares a word (a primitive
named "null", a mode's iv "none") names it as a constant where it is defined."""
from __future__ import annotations

import ast
from enum import Enum
from pathlib import Path

from cipherbench import kinds
from cipherbench.paths import REPO

WORDS = frozenset(m.value for e in vars(kinds).values()
                  if isinstance(e, type) and issubclass(e, Enum) and e.__module__ == kinds.__name__ for m in e)


def literals(node: ast.expr, op: ast.cmpop, right: bool) -> list[str]:
    """The string literals a comparison side holds: itself, or the items of a literal
    tuple, list or set on the right of `in`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if right and isinstance(op, (ast.In, ast.NotIn)) and isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def enum_words_compared(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "kinds.py" and path.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                for word in literals(sides[i], op, False) + literals(sides[i + 1], op, True):
                    if word in WORDS:
                        found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: {word!r}")
    return found


def test_no_enum_value_is_compared_as_a_string_outside_kinds():
    assert enum_words_compared(REPO / "cipherbench") == []


def test_the_check_finds_each_form(tmp_path):
    (tmp_path / "kinds.py").write_text("x = 'passed' == 'passed'\n")  # the vocabulary's own module
    (tmp_path / "a.py").write_text("a = m.verified == 'passed'\nb = op in ('encrypt', 'other')\n"
                                   "c = 'bulk' != w\nd = 'n/a' in text\ne = kind == PrimitiveKind.HASH\n"
                                   "f = name == 'openssl'\n")
    assert enum_words_compared(tmp_path) == ["a.py:1: 'passed'", "a.py:2: 'encrypt'", "a.py:3: 'bulk'",
                                             "a.py:4: 'n/a'"]
