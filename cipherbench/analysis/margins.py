"""Security margins (registry/security-margins.toml): full rounds, Biham's 1999 minimal
secure rounds, and the best published attack per key size, each with its citation."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cipherbench.registry_models import MARGINS_FILE, AttackEntry, MarginStatus, load_security_margins


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
    return "" if status == MarginStatus.CHECKED else " (unchecked)"


@cache
def load(path: Path = MARGINS_FILE) -> dict[str, Margins]:
    """Each cipher's margins, a `same_as` cipher's figures under its own id and title
    (registry_models.load_security_margins validates the file)."""
    raw = load_security_margins(path).ciphers
    out = {}
    for fam, c in raw.items():
        base = raw[c.same_as] if c.same_as is not None else c
        ms = base.min_secure
        out[fam] = Margins(
            family=fam, title=c.title or fam, block_bytes=base.block_bytes,
            min_secure=MinSecure(ms.rounds, ms.of, ms.key_bits, ms.status) if ms else None,
            attacks=tuple((a.key_bits, _attack(a)) for a in base.attacks))
    return out


def _attack(a: AttackEntry) -> Attack:
    return Attack(a.rounds, a.of, a.kind, a.reference, a.status, a.full, a.unit)


def min_secure_citation() -> str:
    """The source the file names for every minimal-secure-rounds figure."""
    return load_security_margins().min_secure_citation
