"""The list of known-answer corpora (CORPORA, in the order they are read) and load_all over it.

A corpus is a function returning KnownAnswer records for the primitives asked
for, or raising CorpusMissing with the reason (a package not installed). The
project's own files always exist; larger corpora come from packages that ship
them, so nothing large is copied into this repository.
"""
from __future__ import annotations

from collections import defaultdict

from cipherbench.kat.collect import CorpusMissing, Loader
from cipherbench.kat.corpora import (
    cavp,
    cryptopp,
    derived,
    modelled,
    pycryptodome,
    shared,
    wycheproof,
)
from cipherbench.kat.vectors import KnownAnswer, project_vectors


def _project(wanted: set[str]) -> list[KnownAnswer]:
    return [k for k in project_vectors() if k.primitive in wanted]


#: name -> loader, in the order they are read. The derived corpus reads all the others.
BASE: dict[str, Loader] = {
    "cipherbench": _project,
    cavp.CORPUS: cavp.load,
    cryptopp.CORPUS: cryptopp.load,
    pycryptodome.CORPUS: pycryptodome.load,
    wycheproof.CORPUS: wycheproof.load,
    shared.CORPUS: shared.load,
    # computed by kat/model/ for variants no document prints (modelled.MODELLED)
    modelled.CORPUS: modelled.load,
}
CORPORA: dict[str, Loader] = {**BASE, derived.CORPUS: lambda w: derived.load(w, BASE)}


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
