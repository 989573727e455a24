"""Who answered, as bytes: a runner's identity (its program, its build, what it announced), a
pair's key in the verification cache, and where that cache is. Standard library only, so
that what reads a stored identity (a ct verdict's build, a stored run's implementations)
does not load the gate with it (kat/cache.py, which keeps results under these keys)."""
from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from cipherbench.paths import BUILD, REPO


def cache_file() -> Path:
    """build/verify-cache.json, or $CIPHERBENCH_VERIFY_CACHE (read when a cache is opened)."""
    return Path(os.environ.get("CIPHERBENCH_VERIFY_CACHE", BUILD / "verify-cache.json"))


def portable(arg: str | Path) -> str:
    """A path as an identity names it: relative to the build folder or to the clone where it
    lies in one, so that two clones' byte-identical runners and corpora have one identity (a
    cache kept outside the clone serves them both); anything else as it is."""
    p = Path(arg)
    if p.is_absolute():
        for base, name in ((BUILD, "build"), (REPO, "clone")):
            if p.is_relative_to(base):
                return f"{name}:{p.relative_to(base)}"
    return str(arg)


def digest_file(h: Any, path: Path) -> None:
    h.update(portable(path).encode())
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)


def files_under(root: Path, pattern: str = "*") -> list[Path]:
    return sorted(p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


def runner_identity(argv: list[str], hello: dict[str, Any]) -> str:
    """The runner's program and build as bytes: its command's files, and for a runner under
    runners/ its sources and the top-level files of its build folder (binaries, generated
    tables); plus what it announced. Read once a command, as corpus_fingerprint: the pairs'
    keys and the computed records' oracles both ask for it."""
    return _runner_identity(tuple(argv), json.dumps({k: hello.get(k) for k in ("runner", "runtime", "language", "jit")},
                                                    sort_keys=True, default=str))


@cache
def _runner_identity(argv: tuple[str, ...], announced: str) -> str:
    # its arguments too (the same program run another way), the clone's paths relative
    h = hashlib.sha256(json.dumps([portable(a) for a in argv]).encode())
    for a in argv:
        p = Path(a)
        if p.is_file():
            digest_file(h, p)
    lang_dir = next((Path(a).parent for a in argv if Path(a).parent.parent == REPO / "runners"), None)
    if lang_dir is not None:
        for p in files_under(lang_dir):
            if p.suffix != ".md":  # what the runner says of itself to people is not its program
                digest_file(h, p)
        out = BUILD / "runners" / lang_dir.name
        if out.is_dir():
            for p in sorted(x for x in out.iterdir() if x.is_file()):
                digest_file(h, p)
    h.update(announced.encode())
    return h.hexdigest()


def runner_ids(s: Any) -> dict[str, str]:
    """Each started runner's identity (runner_identity), by runner name."""
    return {r.spec.name: runner_identity(r.spec.argv, r.hello) for r in s.runners if r.hello}


def pair_key(runner_id: str, impl: dict[str, Any], primitive: str) -> str:
    """The pair's identity: its runner's, and what the runner announced for this implementation."""
    announced = {k: impl.get(k) for k in ("name", "library", "version", "notes")}
    announced["provider"] = (impl.get("primitives") or {}).get(primitive)
    return hashlib.sha256(json.dumps([runner_id, announced, primitive], sort_keys=True, default=str)
                          .encode()).hexdigest()
