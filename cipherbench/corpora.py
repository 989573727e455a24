"""Known-answer corpora: where vectors come from, loaded at run time.

A corpus is a function returning KnownAnswer records for the primitives asked
for, or raising CorpusMissing with the reason (a package not installed). The
project's own files always exist; larger corpora come from packages that ship
them, so nothing large is copied into this repository.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable

from cipherbench.vectors import KnownAnswer, project_vectors


class CorpusMissing(Exception):
    pass


def _project(wanted: set[str]) -> list[KnownAnswer]:
    return [k for k in project_vectors() if k.primitive in wanted]


#: name -> loader. Loaders of external corpora register here (see docs/vectors.md).
CORPORA: dict[str, Callable[[set[str]], list[KnownAnswer]]] = {
    "cipherbench": _project,
    "cavp": lambda w: __import__("cipherbench.corpus_cavp", fromlist=["load"]).load(w),
    "cryptopp": lambda w: __import__("cipherbench.corpus_cryptopp", fromlist=["load"]).load(w),
    "pycryptodome": lambda w: __import__("cipherbench.corpus_pycryptodome", fromlist=["load"]).load(w),
    "wycheproof": lambda w: __import__("cipherbench.corpus_wycheproof", fromlist=["load"]).load(w),
    "shared": lambda w: __import__("cipherbench.corpus_shared", fromlist=["load"]).load(w),
    # computed by cipherbench/model/ for variants no document prints (corpus_model.MODELLED)
    "model": lambda w: __import__("cipherbench.corpus_model", fromlist=["load"]).load(w),
    "derived": lambda w: __import__("cipherbench.corpus_derived", fromlist=["load"]).load(w),
}


def load_all(wanted: set[str]) -> tuple[dict[str, list[KnownAnswer]], dict[str, str]]:
    """(vectors by primitive, {corpus: why it is missing})."""
    by_prim: dict[str, list[KnownAnswer]] = defaultdict(list)
    missing: dict[str, str] = {}
    for name, loader in CORPORA.items():
        try:
            for ka in loader(wanted):
                by_prim[ka.primitive].append(ka)
        except CorpusMissing as e:
            missing[name] = str(e)
    return by_prim, missing
