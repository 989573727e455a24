"""On which architectures each implementation was verified, and the record of a verification.

An architecture's last verification is stored in its record (arch.json, `Verification`):
per implementation, the pairs that passed, failed or had no known answer, and the first
lines of the failures. The host's own comes from the gate's cache (kat/cache.py), the
newest result per pair. `list` and `show` print what `verified_on` says.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from cipherbench.arch.architecture import ArchBuild, PairCounts, Verification, all_builds, host_arch
from cipherbench.envs.build import now
from cipherbench.kat.identity import cache_file
from cipherbench.kinds import Verdict
from cipherbench.variant import VariantAxis, apart, try_parse


def host_name(impl: str) -> str:
    """The name with its architecture dropped: `openssl%s390x` -> `openssl`."""
    return apart(impl, VariantAxis.ARCHITECTURE)[0]


def counts(results) -> dict[str, PairCounts]:
    """kat.outcome.PairResult list -> per implementation (its host name, the architecture dropped)."""
    out: dict[str, PairCounts] = {}
    for r in results:
        c = out.setdefault(host_name(r.impl), PairCounts())
        setattr(c, r.status, getattr(c, r.status) + 1)
        if r.status == Verdict.FAILED and len(c.failures) < 5:
            c.failures.append(failure_line(r))
    return out


def failure_line(r) -> str:
    """One line naming the architecture, the primitive, the check and where the output parts."""
    base, arch = apart(r.impl, VariantAxis.ARCHITECTURE)
    f = r.failures[0]
    where = f"; first difference at {f['first_difference']}" if f.get("first_difference") else ""
    return f"{base} on {arch or host_arch()}: {r.primitive}: {f['check']}{where}"


def record(b: ArchBuild, results, seconds: float, depth: int) -> Verification:
    """Store a verification of the architecture's implementations in its record."""
    rec = b.record()
    v = Verification(verified_at=now(), seconds=round(seconds, 1), depth=depth, implementations=counts(results))
    rec.verification = v
    b.write(rec)
    return v


@dataclass(frozen=True)
class VerifiedOn:
    arch: str
    counts: PairCounts

    def __str__(self) -> str:
        c = self.counts
        if c.failed:
            return f"{self.arch} ({c.failed} of {c.passed + c.failed + c.unverified} pairs FAILED)"
        return self.arch if c.passed else f"{self.arch} (unverified)"


def host_counts() -> dict[str, PairCounts]:
    """The host's implementations from the gate's cache: the newest result of every pair."""
    try:
        entries = json.loads(cache_file().read_text()).get("entries", {})
    except (OSError, ValueError, AttributeError):
        return {}
    newest: dict[tuple[str, str], tuple[str, str]] = {}
    for e in entries.values():
        res = e.get("result") or {}
        impl, prim = str(res.get("impl", "")), str(res.get("primitive", ""))
        v = try_parse(impl)
        if v is None or v.axes & {VariantAxis.ARCHITECTURE, VariantAxis.ENVIRONMENT, VariantAxis.BUILD}:
            continue  # the host's own engine and runners only
        status = "failed" if res.get("failures") else "passed" if res.get("vouched") else "unverified"
        when = str(e.get("obtained_at", ""))
        if (impl, prim) not in newest or newest[(impl, prim)][0] < when:
            newest[(impl, prim)] = (when, status)
    out: dict[str, PairCounts] = {}
    for (impl, _), (_, status) in newest.items():
        c = out.setdefault(impl, PairCounts())
        setattr(c, status, getattr(c, status) + 1)
    return out


def verified_on() -> dict[str, list[VerifiedOn]]:
    """Implementation (host name) -> the architectures it was verified on, the host's first."""
    out: dict[str, list[VerifiedOn]] = {}
    for impl, c in sorted(host_counts().items()):
        out.setdefault(impl, []).append(VerifiedOn(host_arch(), c))
    for impl, on in foreign().items():
        out.setdefault(impl, []).extend(on)
    return out


def foreign() -> dict[str, list[VerifiedOn]]:
    """Implementation (host name) -> the other architectures whose last `arch verify` ran it
    (their records, in the order of Arch); the host's own are the caller's."""
    out: dict[str, list[VerifiedOn]] = {}
    for b in all_builds():
        v = b.record().verification
        for impl, c in sorted((v.implementations if v else {}).items()):
            out.setdefault(impl, []).append(VerifiedOn(b.arch.value, c))
    return out


def tally(statuses: Iterable[Verdict]) -> PairCounts:
    """Pairs by status (a stored run's verifications: its host's part of 'verified on');
    a harness baseline's not-applicable counts in none."""
    c = PairCounts()
    for s in statuses:
        if s in (Verdict.PASSED, Verdict.FAILED, Verdict.UNVERIFIED):
            setattr(c, s.value, getattr(c, s.value) + 1)
    return c


def line(impl: str, table: dict[str, list[VerifiedOn]]) -> str:
    """`list`'s cell: 'amd64, s390x, arm64 (1 of 50 pairs FAILED)'; '' when never verified."""
    return ", ".join(str(v) for v in table.get(host_name(impl), []))


def passed_on(impl: str, table: dict[str, list[VerifiedOn]]) -> list[str]:
    """The architectures where every verified pair of the implementation passed."""
    return [v.arch for v in table.get(host_name(impl), []) if v.counts.passed and not v.counts.failed]


def show_lines(impls) -> list[str]:
    """For `show`: 'verified on: openssl: amd64, s390x, arm64' per implementation of the run, when
    any of them was verified on another architecture (a host-only history needs no line)."""
    table = verified_on()
    names = sorted({host_name(i) for i in impls})
    if not any(v.arch != host_arch() for n in names for v in table.get(n, [])):
        return []
    return [f"verified on: {n}: {line(n, table)}" for n in names if table.get(n)]
