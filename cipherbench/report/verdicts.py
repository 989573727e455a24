"""A verdict for each published finding (registry/published-figures.toml), computed from
the run's own data: holds, reversed, changed (same direction, another size), or not
measured, each with the figure it stands on.

A finding's `now` says what to compute, its `expect` what the claim says of that figure:
  ratio = [a, b]            MB/s of a over b, bulk encryption at the largest size both
                            were timed, per implementation (`impl` = prefer that one);
                            expect = { above = x } | { below = x } | { between = [lo, hi] }
                            reversed: the ratio falls on the other side of 1 from the claim
  rank = "primitives"       expect = { first = "prefix", last = "prefix" } (primitive names)
  rank = "implementations"  expect = { last = "impl" }: the slowest by median relative speed
  rekey_cost = "primitive"  the key setup per message (rekey - bulk ns per call at `size`),
                            per implementation; expect: that primitive's is the largest
  keysetup_slowest = "impl" key-setup cycles of that implementation against the others on
                            the primitives they share; expect: its are the largest
Only verified pairs count; a finding none of whose figures the run has is not measured,
and says what it needs.
"""
from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cipherbench.kinds import Operation, Verdict
from cipherbench.report.tables import relative
from cipherbench.results.rules import is_bulk_speed, is_reference, size_text
from cipherbench.results.run import Measurement, ReportData, Run, usable

#: A ratio is on the other side of 1 from the claim only beyond this factor: 0.98 against a
#: claim of "more than three times as fast" is a changed finding, not a reversed one.
REVERSED_BEYOND = 1.05


class FindingVerdict(StrEnum):
    HOLDS = "holds"
    REVERSED = "reversed"
    CHANGED = "changed"
    NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class FindingResult:
    verdict: FindingVerdict
    figure: str  # what the run measured, in words and numbers


def _ok(m: Measurement, run: Run | None = None) -> bool:
    """A figure a finding may use: timed, and its pair passed the gate (a point above the
    longest known answer is stored as unverified, but its pair is not; the figure says so)."""
    if not usable(m):
        return False
    if Verdict.shown(m.verified):
        return True
    return run is not None and run.verification(m.impl, m.primitive) is Verdict.PASSED


def _bulk(run: Run, impl: str, prim: str) -> dict[int, float]:
    if not Verdict.shown(run.verification(impl, prim)):
        return {}
    return {m.size: m.mb_per_s for m in run.measurements
            if m.impl == impl and m.primitive == prim and is_bulk_speed(m) and m.mb_per_s is not None}


def _ratios(run: Run, a: str, b: str) -> dict[str, tuple[float, int]]:
    out = {}
    for impl in sorted({m.impl for m in run.measurements}):
        x, y = _bulk(run, impl, a), _bulk(run, impl, b)
        common = set(x) & set(y)
        if common:
            s = max(common)
            out[impl] = (x[s] / y[s], s)
    return out


def _judge_value(x: float, expect: Mapping[str, Any]) -> FindingVerdict:
    if "above" in expect:
        lo, hi = float(expect["above"]), float("inf")
    elif "below" in expect:
        lo, hi = 0.0, float(expect["below"])
    else:
        lo, hi = (float(v) for v in expect["between"])
    if lo <= x <= hi:
        return FindingVerdict.HOLDS
    claim_faster = lo >= 1  # the claim puts a above b (or at least level)
    claim_slower = hi <= 1
    if (claim_faster and x < 1 / REVERSED_BEYOND) or (claim_slower and x > REVERSED_BEYOND):
        return FindingVerdict.REVERSED
    return FindingVerdict.CHANGED


def ratio_verdict(run: Run, now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    a, b = now["ratio"]
    rs = _ratios(run, a, b)
    if not rs:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"needs verified bulk figures of {a} and {b} from one implementation")
    prefer = now.get("impl") if now.get("impl") in rs else next(iter(rs)) if len(rs) == 1 else None
    if prefer is not None:
        x, s = rs[prefer]
        figure = f"{prefer}: {a} at {x:.3g}× the speed of {b} ({size_text(s)})"
    else:
        x = statistics.median(r for r, _ in rs.values())
        lo, hi = min(r for r, _ in rs.values()), max(r for r, _ in rs.values())
        figure = (f"{a} at {x:.3g}× the speed of {b}, median of {len(rs)} implementations"
                  + f" (range {lo:.3g}–{hi:.3g})")
    if not expect:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + "; the claim states no figure to hold it to")
    return FindingResult(_judge_value(x, expect), figure)


def rank_verdict(data: ReportData, run: Run, now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    rel = relative(ReportData([run], data.published))
    if rel is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, "nothing verified was timed in bulk")
    if now["rank"] == "implementations":
        return _rank_implementations(rel, expect)
    best: dict[str, float] = {}
    for m in rel.ms:
        if m.verified == Verdict.PASSED and m.operation == Operation.ENCRYPT:
            best[m.primitive] = max(best.get(m.primitive, 0.0), m.mb_per_s)
    if not best:
        return FindingResult(FindingVerdict.NOT_MEASURED, "no verified cipher timed in bulk")
    order = sorted(best, key=lambda p: -best[p])
    figure = "fastest first (best verified MB/s): " + ", ".join(f"{p} {best[p]:,.0f}" for p in order[:6]) + \
        (f" … slowest {order[-1]} {best[order[-1]]:,.3g}" if len(order) > 6 else "")
    checks = [order[0].startswith(expect["first"])] if "first" in expect else []
    checks += [order[-1].startswith(expect["last"])] if "last" in expect else []
    if not checks:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure)
    return FindingResult(FindingVerdict.HOLDS if all(checks) else FindingVerdict.CHANGED, figure)


def _rank_implementations(rel: Any, expect: Mapping[str, Any]) -> FindingResult:
    """Libraries by median speed relative to the fastest, over the ciphers every one of them
    offers (else those at least two offer): a library is not ranked on ciphers only it has.
    The project's reference code is not a library: it is left out of the ranking."""
    rows = [i for i, n in enumerate(rel.names) if not is_reference(n)]
    cols = [j for j in range(len(rel.primitives)) if all(rel.ratio[i][j] is not None for i in rows)]
    if not cols:
        cols = [j for j in range(len(rel.primitives)) if sum(rel.ratio[i][j] is not None for i in rows) >= 2]
    scores = {rel.names[i]: statistics.median(v) for i in rows
              if (v := [rel.ratio[i][j] for j in cols if rel.ratio[i][j] is not None])}
    if not scores:
        return FindingResult(FindingVerdict.NOT_MEASURED, "no cipher that two libraries share was timed")
    order = sorted(scores, key=lambda n: -scores[n])
    figure = (f"median speed relative to the fastest, over {len(cols)} ciphers they share: "
              + ", ".join(f"{n} {scores[n]:.2f}×" for n in order[:9]))
    want = expect.get("last")
    if not want or want not in scores:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + (f"; {want} not timed" if want else ""))
    return FindingResult(FindingVerdict.HOLDS if order[-1] == want else FindingVerdict.CHANGED,
                   figure + f"; slowest: {order[-1]}")


def _ns(run: Run, impl: str, prim: str, workload: str, size: int) -> float | None:
    return next((m.ns_per_call for m in run.measurements if m.impl == impl and m.primitive == prim
                 and m.workload == workload and m.size == size and m.operation == Operation.ENCRYPT and _ok(m, run)), None)


def rekey_verdict(run: Run, now: Mapping[str, Any], prims: list[str]) -> FindingResult:
    """Key setup per message, the seed's way: the same data in small and in large messages,
    both with a key setup per message (rekey), so the time the small ones add is that of
    their extra key setups: (small x n_small - large x n_large) / (n_small - n_large), with
    n = the messages in `total` bytes. A difference below zero is noise, not a cost."""
    target = now["rekey_cost"]
    small, large = int(now.get("small", 16384)), int(now.get("large", 1 << 20))
    n_small, n_large = (int(now.get("total", 50 << 20)) // x for x in (small, large))
    parts, holds = [], []
    for impl in sorted({m.impl for m in run.measurements}):
        cost = {}
        for p in prims:
            a, b = _ns(run, impl, p, "rekey", small), _ns(run, impl, p, "rekey", large)
            if a is not None and b is not None:
                cost[p] = (a * n_small - b * n_large) / (n_small - n_large)
        if target not in cost or len(cost) < 2:
            continue
        if cost[target] <= 0:
            parts.append(f"{impl}: not resolved (below the noise)")
            continue
        top = max(cost, key=lambda p: cost[p])
        nxt = max((c for p, c in cost.items() if p != target), default=0.0)
        holds.append(top == target)
        if top != target:
            rank = f" (largest: {top})"
        else:
            rank = f", {cost[target] / nxt:.3g}× the next" if nxt > 0 else ", the only one above the noise"
        parts.append(f"{impl}: {cost[target] / 1e3:,.1f} µs per message{rank}")
    if not holds:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"needs rekey figures at {size_text(small)} and {size_text(large)}"
                       + (": " + "; ".join(parts) if parts else ""))
    verdict = FindingVerdict.HOLDS if all(holds) else FindingVerdict.CHANGED if any(holds) else FindingVerdict.REVERSED
    return FindingResult(verdict, f"{target}'s key setup per message (rekey at {size_text(small)} against "
                   f"{size_text(large)}): " + "; ".join(parts[:5]))


def keysetup_verdict(run: Run, now: Mapping[str, Any]) -> FindingResult:
    """The named implementation's key-setup cycles against the others', on shared primitives."""
    who = now["keysetup_slowest"]
    cyc: dict[tuple[str, str], float] = {}
    for m in run.measurements:
        if m.operation == Operation.KEYSETUP and _ok(m) and m.cycles_per_call:
            cyc[(m.impl, m.primitive)] = m.cycles_per_call
    prims = sorted({p for i, p in cyc if i == who})
    shared = [(p, cyc[(who, p)], [c for (i, q), c in cyc.items() if q == p and i != who]) for p in prims]
    shared = [x for x in shared if x[2]]
    if not shared:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"needs verified key-setup figures of {who} and another library")
    slowest = [c > max(o) for _, c, o in shared]
    p, c, o = max(shared, key=lambda x: x[1] / max(x[2]))
    figure = (f"{who} slowest to set up a key on {sum(slowest)} of {len(shared)} shared ciphers; e.g. {p}: "
              f"{c:,.0f} cycles against at most {max(o):,.0f} for the others")
    share = sum(slowest) / len(slowest)
    return FindingResult(FindingVerdict.HOLDS if share > 0.5 else FindingVerdict.CHANGED, figure)


def verdict(data: ReportData, run: Run, finding: Mapping[str, Any], prims: list[str]) -> FindingResult:
    now, expect = finding.get("now") or {}, finding.get("expect") or {}
    handlers: dict[str, Callable[[], FindingResult]] = {
        "ratio": lambda: ratio_verdict(run, now, expect),
        "rank": lambda: rank_verdict(data, run, now, expect),
        "rekey_cost": lambda: rekey_verdict(run, now, prims),
        "keysetup_slowest": lambda: keysetup_verdict(run, now),
    }
    for key, fn in handlers.items():
        if key in now:
            return fn()
    return FindingResult(FindingVerdict.NOT_MEASURED, str(finding.get("needs") or "not something one run on one machine measures"))
