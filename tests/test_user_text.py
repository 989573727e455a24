"""What users read names the published studies (Bingmann 2008, Gladman 1999, ...), never the
project's seed files: every preset's and build matrix's title and source, and every string
the orchestrator prints or writes (docstrings and comments may name the seed files)."""
import ast
import re
from pathlib import Path

import cipherbench
from cipherbench.builds.matrix import load as load_matrices
from cipherbench.pipeline.plan import load_presets

SEED_JARGON = re.compile(r"\bseeds?\b(?:\s+\d{3}|'s|')|\bseeds? \d", re.IGNORECASE)


def test_presets_and_matrices_name_the_studies():
    texts = [(n, p.title) for n, p in load_presets().items()] + [(n, p.source or "") for n, p in load_presets().items()]
    texts += [(m.id, m.title) for m in load_matrices().matrices.values()]
    assert [(n, t) for n, t in texts if SEED_JARGON.search(t)] == []


def _printed_strings(tree: ast.AST):
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_printed_string_names_a_seed():
    root = Path(cipherbench.__file__).parent
    found = [f"{f.relative_to(root)}:{line}: {text[:60]!r}" for f in sorted(root.rglob("*.py"))
             for line, text in _printed_strings(ast.parse(f.read_text())) if SEED_JARGON.search(text)]
    assert found == []
