"""Security margins (registry/security-margins.toml): full rounds, Biham's 1999 minimal
secure rounds, and the best published attack per key size, each with its citation."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cipherbench.paths import REPO

MARGINS_FILE = REPO / "registry" / "security-margins.toml"


@dataclass(frozen=True)
class Attack:
    rounds: float
    of: float
    kind: str
    reference: str
    status: str  # "V" checked against a public copy of the source, "M" not yet
    full: bool = False
    unit: str = ""

    @property
    def margin(self) -> float:
        """1 - rounds attacked / full rounds: a rough indicator only (the file's notes say why)."""
        return 1 - self.rounds / self.of

    def text(self) -> str:
        n = lambda x: f"{x:g}"  # noqa: E731
        return f"{n(self.rounds)} of {n(self.of)}" + (f" {self.unit}" if self.unit else "")


@dataclass(frozen=True)
class MinSecure:
    rounds: int
    of: int
    key_bits: int
    status: str

    @property
    def ratio(self) -> float:
        return self.rounds / self.of


@dataclass(frozen=True)
class Margins:
    family: str
    title: str
    block_bytes: int | None
    min_secure: MinSecure | None
    attacks: tuple[tuple[tuple[int, ...], Attack], ...]  # (key bits, attack)

    def attack(self, key_bits: int) -> Attack | None:
        return next((a for kb, a in self.attacks if key_bits in kb), None)


def unchecked(status: str) -> str:
    return "" if status == "V" else " (unchecked)"


@cache
def load(path: Path = MARGINS_FILE) -> dict[str, Margins]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    raw = data.get("ciphers", {})
    out = {}
    for fam, c in raw.items():
        base = raw[c["same_as"]] if "same_as" in c else c
        ms = base.get("min_secure")
        out[fam] = Margins(
            family=fam, title=c.get("title", fam), block_bytes=base.get("block_bytes"),
            min_secure=MinSecure(ms["rounds"], ms["of"], ms["key_bits"], ms["status"]) if ms else None,
            attacks=tuple((tuple(a["key_bits"]), Attack(a["rounds"], a["of"], a["kind"], a["reference"], a["status"],
                                                         a.get("full", False), a.get("unit", "")))
                          for a in base.get("attacks", [])))
    return out


def sources() -> dict[str, str]:
    with open(MARGINS_FILE, "rb") as f:
        return dict(tomllib.load(f).get("sources", {}))
