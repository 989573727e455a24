"""Corpus "wycheproof": Project Wycheproof's vectors from the pinned Go module, and its install
(where, what maps, what is skipped: docs/vectors.md, "wycheproof")."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cipherbench.kat.collect import Collector, CorpusMissing, unhex
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.paths import BUILD

CORPUS = "wycheproof"
# The pinned module: the version go resolves for the repository's commit 3fa63dd0344a, and the
# module hash (go.sum's h1:) `go mod download` reported for it.
MODULE = "github.com/c2sp/wycheproof"
VERSION = "v0.0.0-20260902155932-3fa63dd0344a"
MODULE_SUM = "h1:pNbL2nztRsWfW/ispAwsvcDFxs9Id38uIsR2/Up5G2c="
ENV_DIR = "CIPHERBENCH_WYCHEPROOF_DIR"
DOWNLOAD_TIMEOUT_S = 900


def marker() -> Path:
    """Where `install` records the module directory (or why there is none)."""
    return BUILD / "wycheproof.json"


#: Flags (each file's "notes") that say why a record's inputs were chosen, not that it uses a
#: different algorithm: such records are the registry's primitive.
SAME_ALGORITHM_FLAGS = frozenset({
    "Pseudorandom",  # pseudorandom inputs of various sizes
    "Ktv",  # a known test vector
    "SpecialCase",  # GCM: special values of IV and tag
    "CounterWrap",  # GCM: the 32-bit counter wraps (standard GCM arithmetic)
    "WrappedIv",  # GCM-SIV: the counter wraps modulo 2^32 (RFC 8452)
    "ModifiedTag",  # a valid ciphertext with its tag changed: a forgery
})

# file stem -> (cipher id, mode, ivSize, tagSize or None, key factor, kind)
_AEAD, _CBC, _XTS = "aead", "cbc-pkcs5", "xts"
FILES = {
    "aria_ccm_test": ("aria", "ccm", 96, 128, 1, _AEAD),
    "aria_gcm_test": ("aria", "gcm", 96, 128, 1, _AEAD),
    "camellia_ccm_test": ("camellia", "ccm", 96, 128, 1, _AEAD),
    "seed_ccm_test": ("seed", "ccm", 96, 128, 1, _AEAD),
    "seed_gcm_test": ("seed", "gcm", 96, 128, 1, _AEAD),
    "sm4_ccm_test": ("sm4", "ccm", 96, 128, 1, _AEAD),
    "sm4_gcm_test": ("sm4", "gcm", 96, 128, 1, _AEAD),
    "aes_gcm_siv_test": ("aes", "gcmsiv", 96, 128, 1, _AEAD),
    "aes_cbc_pkcs5_test": ("aes", "cbc", 128, None, 1, _CBC),
    "aria_cbc_pkcs5_test": ("aria", "cbc", 128, None, 1, _CBC),
    "camellia_cbc_pkcs5_test": ("camellia", "cbc", 128, None, 1, _CBC),
    "aes_xts_test": ("aes", "xts", 128, None, 2, _XTS),
}
#: Loaded by the pycryptodome corpus from its identical copies (see the module docstring).
COVERED_BY_PYCRYPTODOME = ("aes_gcm_test", "aes_ccm_test", "aes_eax_test", "aead_aes_siv_cmac_test",
                           "chacha20_poly1305_test", "xchacha20_poly1305_test")
BLOCK = 16


# ---------------------------------------------------------------------------- where it is
def _vector_dir(d: Path) -> Path | None:
    v = d / "testvectors_v1"
    return v if v.is_dir() else None


def _read_marker() -> dict | None:
    try:
        rec = json.loads(marker().read_text())
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def vectors_dir() -> tuple[Path, str]:
    """(testvectors_v1 folder, a label naming the module version), or CorpusMissing with why."""
    env = os.environ.get(ENV_DIR)
    if env:
        v = _vector_dir(Path(env))
        if v is None:
            raise CorpusMissing(f"{env} ({ENV_DIR}) has no testvectors_v1 folder")
        return v, f"{ENV_DIR}={env}"
    rec = _read_marker()
    wanted = f"Go module {MODULE}@{VERSION}"
    if rec is None:
        raise CorpusMissing(f"{wanted} is not downloaded: `make vectors` fetches it with go "
                            f"(no {marker()})")
    if rec.get("error"):
        raise CorpusMissing(f"{wanted} is not downloaded: {rec['error']}")
    if rec.get("version") != VERSION or rec.get("sum") != MODULE_SUM:
        raise CorpusMissing(f"{marker()} records {rec.get('module')}@{rec.get('version')}, not the pinned "
                            f"{VERSION}: run `make vectors`")
    v = _vector_dir(Path(rec.get("dir", "")))
    if v is None:
        raise CorpusMissing(f"{wanted}: {rec.get('dir')!r} (recorded in {marker()}) has no testvectors_v1 "
                            "folder: run `make vectors`")
    return v, f"Go module {MODULE}@{VERSION}"


# ---------------------------------------------------------------------------- install
def install() -> str:
    """Download the pinned module into go's module cache (go skips what it has) and record where
    it landed. Returns one line for the user, empty when it was already in place. Never raises
    for a missing go or a failed download: the record says why, and verify reports the corpus
    missing with that reason."""
    rec = _read_marker()
    if rec and rec.get("version") == VERSION and rec.get("sum") == MODULE_SUM and not rec.get("error") \
            and _vector_dir(Path(rec.get("dir", ""))):
        return ""
    marker().parent.mkdir(parents=True, exist_ok=True)
    error, info = _download()
    out = {"module": MODULE, "version": VERSION}
    if error is None:
        out.update(sum=MODULE_SUM, dir=info["Dir"])
    else:
        out["error"] = error
    marker().write_text(json.dumps(out, indent=1) + "\n")
    if error is None:
        return f"  wycheproof test vectors: {MODULE}@{VERSION} in {info['Dir']}"
    return f"  wycheproof test vectors not installed ({error}); verify runs without them"


def _download() -> tuple[str | None, dict]:
    go = shutil.which("go")
    if go is None:
        return "go is not installed: the Go toolchain fetches the module", {}
    try:
        # Run in an empty folder, outside any go.mod, so no module's requirements or go.sum change.
        with tempfile.TemporaryDirectory() as empty:
            p = subprocess.run([go, "mod", "download", "-json", f"{MODULE}@{VERSION}"], capture_output=True,
                               text=True, timeout=DOWNLOAD_TIMEOUT_S, cwd=empty)
    except subprocess.TimeoutExpired:
        return f"`go mod download` did not finish in {DOWNLOAD_TIMEOUT_S} s", {}
    except OSError as e:
        return f"could not run {go}: {e}", {}
    try:
        info = json.loads(p.stdout) if p.stdout.strip() else {}
    except ValueError:
        info = {}
    if not isinstance(info, dict):
        info = {}
    if p.returncode != 0 or info.get("Error"):
        why = info.get("Error") or (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        return f"`go mod download {MODULE}@{VERSION}` failed: {why}", {}
    if info.get("Sum") != MODULE_SUM:
        return f"module hash {info.get('Sum')!r} is not the pinned {MODULE_SUM}", {}
    if not info.get("Dir") or _vector_dir(Path(info["Dir"])) is None:
        return f"go reported no module directory with testvectors_v1 ({info.get('Dir')!r})", {}
    return None, info


# ---------------------------------------------------------------------------- records
def pkcs7_pad(msg: bytes) -> bytes:
    """RFC 5652 section 6.3: n = 16 - len % 16 bytes (1..16), each of value n."""
    n = BLOCK - len(msg) % BLOCK
    return msg + bytes([n]) * n


def _takes(t: dict) -> bool:
    return set(t.get("flags", [])) <= SAME_ALGORITHM_FLAGS


def _file(path: Path, spec: tuple, c: Collector, label: str):
    cipher, mode, iv_bits, tag_bits, key_factor, kind = spec
    data = json.loads(path.read_text())
    src = f"Wycheproof {data.get('algorithm', path.stem)} ({label}: testvectors_v1/{path.name})"
    for g in data.get("testGroups", []):
        if g.get("ivSize") != iv_bits or g.get("tagSize") != tag_bits or not isinstance(g.get("keySize"), int):
            continue
        prim = f"{cipher}-{g['keySize'] // key_factor}-{mode}"
        if prim not in c.wanted or g["keySize"] % (8 * key_factor):
            continue
        for t in g.get("tests", []):
            if t.get("result") not in ("valid", "invalid") or not _takes(t):
                continue
            key, iv = unhex(t["key"]), unhex(t["iv"])
            if len(key) * 8 != g["keySize"] or len(iv) * 8 != iv_bits:
                continue  # the record disagrees with its group's sizes: not the registry's primitive
            common = dict(key=key, iv=iv, source=src, where=f"{path.name}: tcId {t['tcId']}")
            msg, ct = unhex(t["msg"]), unhex(t["ct"])
            if kind == _AEAD:
                tag = unhex(t["tag"])
                if len(tag) * 8 != tag_bits:
                    continue
                if t["result"] == "valid":
                    c.add(prim, path.name, input=msg, output=ct + tag, aad=unhex(t.get("aad", "")), **common)
                else:
                    c.add(prim, path.name + " invalid", input=b"", output=ct + tag, aad=unhex(t.get("aad", "")),
                          expect_reject=True, **common)
            elif t["result"] != "valid":
                continue  # CBC padding errors, and no XTS record can be "rejected"
            elif kind == _CBC:
                padded = pkcs7_pad(msg)
                if len(ct) == len(padded):
                    c.add(prim, path.name, input=padded, output=ct, **common)
            elif kind == _XTS:
                half = len(key) // 2
                if msg and len(msg) % BLOCK == 0 and len(ct) == len(msg) and key[:half] != key[half:]:
                    c.add(prim, path.name, input=msg, output=ct, **common)


def load(wanted: set[str]) -> list[KnownAnswer]:
    vdir, label = vectors_dir()
    c = Collector(CORPUS, wanted)
    for stem, spec in FILES.items():
        cipher, mode = spec[0], spec[1]
        if not any(w.startswith(cipher + "-") and w.endswith("-" + mode) for w in wanted):
            continue  # read a file only when it can give something asked for
        f = vdir / f"{stem}.json"
        if f.exists():
            _file(f, spec, c, label)
    return c.result()


def main(argv: list[str]) -> int:
    if argv != ["install"]:
        print("usage: python -m cipherbench.kat.corpora wycheproof install", file=sys.stderr)
        return 2
    line = install()
    if line:
        print(line)
    return 0
