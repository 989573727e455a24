"""A pair's outcome at the gate: its checks counted, its failures with their reproductions,
its skips, and its verdict (kat/verify.py says what each check is)."""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from enum import StrEnum

from cipherbench.kinds import Verdict


class UnverifiedReason(StrEnum):
    ALL_SKIPPED = "all-skipped"
    ONLY_FORGERIES = "only-forgeries"
    ONLY_OWN_ORACLE = "only-own-oracle"
    NO_KNOWN_ANSWER = "no-known-answer"

    @property
    def sentence(self) -> str:
        return {UnverifiedReason.ALL_SKIPPED: "every known answer was skipped (the runner answered unsupported)",
                UnverifiedReason.ONLY_FORGERIES: "its corpora hold only forgeries to reject, no known answer",
                UnverifiedReason.ONLY_OWN_ORACLE: ("its only known answers were computed over its own ECB "
                                                   "(it is the models' oracle), which cannot vouch for it"),
                UnverifiedReason.NO_KNOWN_ANSWER: "no corpus has a known answer for it"}[self]


#: Bytes shown either side of the first difference (Difference.window)
AROUND = 8
_HEX = re.compile(r"(?:[0-9a-f]{2})*")


@dataclass(frozen=True)
class Difference:
    """Where two outputs part: the offset of the first byte that differs (or where the shorter
    ends), both lengths, and each output's bytes from `start` to AROUND bytes past the offset."""

    offset: int
    expected_len: int
    actual_len: int
    start: int  # max(0, offset - AROUND)
    expected: bytes  # expected[start:offset + AROUND]
    actual: bytes  # actual[start:offset + AROUND]

    def words(self) -> str:
        """"byte 3: expected 0x1f, got 0x3c", or where one ends: "byte 2: expected 2 bytes, got 3"."""
        i = self.offset - self.start
        if self.offset < min(self.expected_len, self.actual_len):
            return f"byte {self.offset}: expected 0x{self.expected[i]:02x}, got 0x{self.actual[i]:02x}"
        return f"byte {self.offset}: expected {self.expected_len} bytes, got {self.actual_len}"

    @property
    def expected_window(self) -> str:
        return self._window(self.expected, self.expected_len)

    @property
    def actual_window(self) -> str:
        return self._window(self.actual, self.actual_len)

    def _window(self, part: bytes, total: int) -> str:
        """One output's bytes around the offset in hex, the differing byte in brackets, '…' where
        the output goes on: "…12e9197d[50]86cb9b50…"; "[]" where it ends at the offset."""
        i = self.offset - self.start
        return ("…" if self.start else "") + part[:i].hex() + f"[{part[i:i + 1].hex()}]" + \
            part[i + 1:].hex() + ("…" if self.start + len(part) < total else "")


def difference(expected: bytes, actual: bytes) -> Difference | None:
    """The one rule of where two outputs part (None when they are equal)."""
    if expected == actual:
        return None
    i = next((i for i, (e, a) in enumerate(zip(expected, actual, strict=False)) if e != a),
             min(len(expected), len(actual)))
    start = max(0, i - AROUND)
    return Difference(i, len(expected), len(actual), start, expected[start:i + AROUND], actual[start:i + AROUND])


def stored_difference(expected: object, actual: object) -> Difference | None:
    """A stored reproduction's difference: its `expected` and `actual` as PairResult.fail stored
    them (bytes as lowercase hex, anything else as text: "rejection", a runner's error)."""
    if not isinstance(expected, str) or not isinstance(actual, str):
        return None
    if not _HEX.fullmatch(expected) or not _HEX.fullmatch(actual):
        return None
    return difference(bytes.fromhex(expected), bytes.fromhex(actual))


def first_difference(expected: object, actual: object) -> str | None:
    """Where two outputs part: "byte 3: expected 0x1f, got 0x3c" (or where one ends); None
    unless both are bytes and differ. A byte-order or alignment fault shows in the first word."""
    if not isinstance(expected, bytes) or not isinstance(actual, bytes):
        return None
    d = difference(expected, actual)
    return d.words() if d else None


@dataclass
class PairResult:
    impl: str
    primitive: str
    checks: dict = field(default_factory=lambda: defaultdict(int))
    corpus_counts: dict = field(default_factory=lambda: defaultdict(int))  # KATs passed, per corpus
    skipped_counts: dict = field(default_factory=lambda: defaultdict(int))  # KATs skipped, per corpus
    skips: list = field(default_factory=list)  # the first few skipped KATs, with the runner's reason
    failures: list = field(default_factory=list)
    vouched: bool = False  # a known answer of its own passed
    agrees_with_verified: set = field(default_factory=set)  # passed implementations with its outputs
    model_oracle: str | None = None  # the ECB oracle of its `model` known answers (model_oracle.py)
    no_model_because: str | None = None  # why a modelled primitive got no `model` known answers
    # the longest message of a known answer it passed: timing a larger size times unverified code
    verified_bytes: int = 0

    @property
    def status(self) -> str:
        if self.failures:
            return "failed"
        return "passed" if self.vouched else "unverified"

    @property
    def unverified_reason(self) -> UnverifiedReason | None:
        """Why a pair has no known answer of its own, as a value (the sentence follows from it)."""
        if self.status != Verdict.UNVERIFIED:
            return None
        if self.skipped_counts:
            return UnverifiedReason.ALL_SKIPPED
        if self.checks.get("kat_reject"):
            return UnverifiedReason.ONLY_FORGERIES
        if self.checks.get("kat_own_oracle"):
            return UnverifiedReason.ONLY_OWN_ORACLE
        return UnverifiedReason.NO_KNOWN_ANSWER

    @property
    def unverified_because(self) -> str | None:
        reason = self.unverified_reason
        if reason is None:
            return None
        why = reason.sentence
        if reason is UnverifiedReason.NO_KNOWN_ANSWER and self.no_model_because:
            why += f", and no model computed one: {self.no_model_because}"
        if self.agrees_with_verified:
            why += f"; it agrees with {', '.join(sorted(self.agrees_with_verified))}"
        return why

    def fail(self, check: str, **repro):
        if len(self.failures) < 5:  # the first few are what a reader needs
            first = first_difference(repro.get("expected"), repro.get("actual"))
            self.failures.append({"check": check, "impl": self.impl, "primitive": self.primitive,
                                  **{k: (v.hex() if isinstance(v, bytes) else v) for k, v in repro.items()},
                                  **({"first_difference": first} if first else {})})

    def passed_answer(self, corpus: str, message_bytes: int, over: str):
        """A known answer of its own passed: it vouches, and says how long a message was
        checked, unless it was computed over this implementation's own output (its `over`),
        which is then only counted (checks["kat_own_oracle"]): consistent, not independent."""
        self.corpus_counts[corpus] += 1
        if over == self.impl:
            self.checks["kat_own_oracle"] += 1
            return
        self.vouched = True
        self.verified_bytes = max(self.verified_bytes, message_bytes)

    def skip(self, corpus: str, vector: str, source: str, reason: str):
        self.checks["kat_skipped"] += 1
        self.skipped_counts[corpus] += 1
        if len(self.skips) < 5:
            self.skips.append({"corpus": corpus, "vector": vector, "source": source, "reason": reason})

    def as_row(self) -> dict:
        checks = dict(self.checks)
        checks["kat_by_corpus"] = dict(self.corpus_counts)
        if self.skipped_counts:
            checks["kat_skipped_by_corpus"] = dict(self.skipped_counts)
            checks["kat_skips"] = self.skips
        if self.unverified_because:
            checks["unverified_because"] = self.unverified_because
            checks["unverified_reason"] = self.unverified_reason
        if self.model_oracle:
            checks["model_oracle"] = self.model_oracle
        if self.status == Verdict.PASSED:
            checks["verified_up_to_bytes"] = self.verified_bytes
        return {"impl": self.impl, "primitive": self.primitive, "status": self.status,
                "checks": checks, "failures": self.failures}

