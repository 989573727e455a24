"""A verdict for each published finding: the figure it names, with its interval, from its runs.

Each finding (registry/published-figures.toml) gets holds, reversed, changed (same
direction, another size), not decided at this noise (with what would decide it), or not
measured, each with the figure and interval it stands on. The rule, and how a figure made
of several points is bounded, are report/verdict_rules.py's; the ratio of two points is
analysis/compare.py's (speed_ratio); the runs and batches come from report/verdict_store.py;
the axes' findings (`from`) are report/verdict_axes.py's.

A finding's `now` says what to compute, its `expect` what the claim says of that figure
(docs/findings.md is the format; registry_models.Finding checks it on load).
From the experiment's own run:
  ratio = [a, b]            MB/s of a over b per implementation (`impl` = prefer that one,
                            else the median over implementations): encryption in `workload`
                            at `size` where the finding names them (the study's own column,
                            verdict_store.RatioPoints), else bulk at the largest size both
                            were timed; expect = { above = x } | { below = x } |
                            { between = [lo, hi] }; reversed: the ratio's interval is on the
                            other side of 1 from the claim
  rank = "primitives"       expect = { first = "prefix", last = "prefix" } (primitive names):
                            the claimed first's best point against each other primitive's
  rank = "implementations"  expect = { last = "impl" }: the slowest by median relative speed
  rekey_cost = "primitive"  the key setup per message (rekey at a small against a large
                            size), per implementation; expect: that primitive's is the largest
  keysetup_slowest = "impl" key-setup cycles of that implementation against the others on
                            the primitives they share; expect: its are the largest on most
From the store's other runs, when the finding says `from = "SOURCE"` (the axes one run on
one machine does not measure: releases, compilers, CPUs): the latest runs of
[sources.SOURCE] (latest_runs, the one rule), with
  releases = "oldest/newest"   per library, its oldest Debian release against its newest
  compilers = "gcc/other"      gcc's best flags against the fastest other compiler's
  compilers = "older/newer"    the oldest compiler of the run against the newest, by the
                               finding's `released` years (within one family where it has two)
  o3_alone = "family"          that family's -O3 against its best other flag set, per cipher
  robustness = "primitives"    primitives by the spread, across machines, of their cycles per
                               byte relative to a reference primitive (report/machines.py)
each judged with `expect` as above, and naming the runs it used. A finding whose source has
no run in the store is not measured, and says the one command that would measure it.
Only verified pairs count; a finding none of whose figures the runs have is not measured,
and says what it needs.
"""
from __future__ import annotations

from collections.abc import Callable

from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.registry_models import Expect, Finding, FindingKind, Now, Ranked
from cipherbench.report import verdict_axes
from cipherbench.report.speed import Relative, relative
from cipherbench.report.verdict_rules import (
    REVERSED_BEYOND as REVERSED_BEYOND,
)
from cipherbench.report.verdict_rules import (
    Claim,
    Decision,
    Estimate,
    FindingResult,
    FindingVerdict,
    decide,
    difference,
    every,
    greatest,
    joint_confidence,
    least,
    majority,
    median,
    point_ratio,
    point_time,
    quotient,
    scaled,
)
from cipherbench.report.verdict_rules import (
    RunRef as RunRef,
)
from cipherbench.report.verdict_store import Evidence, RatioPoints, Source, latest_runs, load_sources
from cipherbench.results.rules import is_reference, size_text
from cipherbench.results.run import Measurement, ReportData, Run, usable

#: Re-exported: the store queries' names as callers knew them here.
__all__ = ["Evidence", "FindingResult", "FindingVerdict", "RunRef", "Source", "latest_runs", "load_sources",
           "verdict"]


def _ok(m: Measurement, run: Run | None = None) -> bool:
    """A figure a finding may use: timed, and its pair passed the gate (a point above the
    longest known answer is stored as unverified, but its pair is not; the figure says so)."""
    if not usable(m):
        return False
    if Verdict.shown(m.verified):
        return True
    return run is not None and run.verification(m.impl, m.primitive) is Verdict.PASSED


def bulk(run: Run, impl: str, prim: str) -> dict[int, Measurement]:
    """Size -> the verified bulk point of one implementation and primitive."""
    return RatioPoints().points(run, impl, prim)


def speed(ev: Evidence, run: Run, x: Measurement, y: Measurement, confidence: float) -> Estimate:
    """The speed of point x over point y of one run (MB/s over MB/s), with its interval."""
    return point_ratio(y, x, ev.batches(run, y), ev.batches(run, x), confidence)


def ratio_verdict(run: Run, now: Now, expect: Expect, evidence: Evidence | None = None) -> FindingResult:
    ev = evidence or Evidence(None, {})
    assert now.ratio is not None
    a, b = now.ratio
    sel = RatioPoints.of(now)
    pairs = sel.pairs(run, a, b)
    if not pairs:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"needs verified {sel.needs()} of {a} and {b} from one implementation")
    prefer = now.impl if now.impl in pairs else next(iter(pairs)) if len(pairs) == 1 else None
    if prefer is not None:
        x, y = pairs[prefer]
        e = speed(ev, run, x, y, joint_confidence(1))
        figure = f"{prefer}: {a} at {e.text()} the speed of {b} ({sel.words(x.size)})"
    else:
        each = [speed(ev, run, x, y, joint_confidence(len(pairs))) for x, y in pairs.values()]
        e = median(each)
        figure = (f"{a} at {e.text()} the speed of {b}, median of {len(pairs)} implementations"
                  + f" (range {min(x.value for x in each):.3g}–{max(x.value for x in each):.3g})")
    claim = Claim.of(expect)
    if claim is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + "; the claim states no figure to hold it to")
    return FindingResult.of(decide(e, claim), figure)


def rank_verdict(data: ReportData, run: Run, now: Now, expect: Expect,
                 evidence: Evidence | None = None) -> FindingResult:
    ev = evidence or Evidence(None, {})
    rel = relative(ReportData([run], data.published))
    if rel is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, "nothing verified was timed in bulk")
    if now.rank is Ranked.IMPLEMENTATIONS:
        return _rank_implementations(ev, run, rel, expect)
    best: dict[str, Measurement] = {}
    for m in rel.ms:
        if m.verified == Verdict.PASSED and m.operation == Operation.ENCRYPT and m.mb_per_s is not None:
            if m.primitive not in best or m.mb_per_s > (best[m.primitive].mb_per_s or 0.0):
                best[m.primitive] = m
    if not best:
        return FindingResult(FindingVerdict.NOT_MEASURED, "no verified cipher timed in bulk")
    mb = {p: m.mb_per_s or 0.0 for p, m in best.items()}
    order = sorted(best, key=lambda p: -mb[p])
    figure = "fastest first (best verified MB/s): " + ", ".join(f"{p} {mb[p]:,.0f}" for p in order[:6]) + \
        (f" … slowest {order[-1]} {mb[order[-1]]:,.3g}" if len(order) > 6 else "")
    ends = [(end, first) for end, first in ((expect.first, True), (expect.last, False)) if end is not None]
    if not ends:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure)
    missing = [p for p, _ in ends if not any(q.startswith(p) for q in best)]
    if missing or len(best) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + f"; {' or '.join(missing) or 'a second cipher'} "
                             "not timed")
    conf = joint_confidence(len(ends) * (len(best) - 1))
    parts, said = [], []
    for prefix, first in ends:
        mine = max((p for p in best if p.startswith(prefix)), key=lambda p: mb[p] if first else -mb[p])
        each = [speed(ev, run, best[mine], best[q], conf) for q in best if not q.startswith(prefix)]
        e = least(each) if first else greatest(each)
        parts.append(decide(e, Claim(low=1.0) if first else Claim(high=1.0)))
        said.append(f"{mine} at {e.text()} the speed of the {'fastest' if first else 'slowest'} other")
    return FindingResult.of(every(parts), figure + "; " + "; ".join(said))


def _cell(run: Run, impl: str, prim: str, size: int | None) -> Measurement | None:
    """The point a relative-speed cell stands on (report/tables.py relative)."""
    pts = bulk(run, impl, prim)
    return pts.get(size) if size else (pts[max(pts)] if pts else None)


def _rank_implementations(ev: Evidence, run: Run, rel: Relative, expect: Expect) -> FindingResult:
    """Libraries by median speed relative to the fastest, over the ciphers every one of them
    offers (else those at least two offer): a library is not ranked on ciphers only it has.
    The project's reference code is not a library: it is left out of the ranking. Each cell is
    its point's speed over the fastest point of its cipher (one interval each, jointly); a
    library's score is the median of its cells; the claimed slowest's score over each other's."""
    rows = [i for i, n in enumerate(rel.names) if not is_reference(n)]
    cols = [j for j in range(len(rel.primitives)) if all(rel.ratio[i][j] is not None for i in rows)]
    if not cols:
        cols = [j for j in range(len(rel.primitives)) if sum(rel.ratio[i][j] is not None for i in rows) >= 2]
    cells: dict[int, list[tuple[int, Measurement]]] = {}
    for j in cols:
        prim = rel.primitives[j]
        got = [(i, m) for i in rows if rel.ratio[i][j] is not None
               and (m := _cell(run, rel.rows[i][1], prim, rel.size[prim])) is not None]
        if got:
            cells[j] = got
    conf = joint_confidence(sum(len(v) for v in cells.values()))
    per_row: dict[int, list[Estimate]] = {}
    for got in cells.values():
        top = max(got, key=lambda im: im[1].mb_per_s or 0.0)[1]
        for i, m in got:
            per_row.setdefault(i, []).append(Estimate(1.0, 1.0, 1.0) if m is top else speed(ev, run, m, top, conf))
    scores = {rel.names[i]: median(es) for i, es in per_row.items()}
    if not scores:
        return FindingResult(FindingVerdict.NOT_MEASURED, "no cipher that two libraries share was timed")
    order = sorted(scores, key=lambda n: -scores[n].value)
    figure = (f"median speed relative to the fastest, over {len(cols)} ciphers they share: "
              + ", ".join(f"{n} {scores[n].text()}" for n in order[:9]))
    want = expect.last
    if not want or want not in scores or len(scores) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + (f"; {want} not timed" if want else ""))
    e = greatest(quotient(scores[want], s) for n, s in scores.items() if n != want)
    return FindingResult.of(decide(e, Claim(high=1.0)), figure + f"; slowest: {order[-1]}; {want} at {e.text()} "
                            "the score of the slowest other")


def _rekey_point(run: Run, impl: str, prim: str, size: int) -> Measurement | None:
    return next((m for m in run.measurements if m.impl == impl and m.primitive == prim and m.workload is Workload.REKEY
                 and m.size == size and m.operation == Operation.ENCRYPT and _ok(m, run)), None)


def rekey_verdict(run: Run, now: Now, prims: list[str], evidence: Evidence | None = None) -> FindingResult:
    """Key setup per message, the seed's way: the same data in small and in large messages,
    both with a key setup per message (rekey), so the time the small ones add is that of
    their extra key setups: (small x n_small - large x n_large) / (n_small - n_large), with
    n = the messages in `total` bytes; its interval from the two points' (ends against ends).
    Per implementation, the target's cost less each other's is held to above 0. A cost whose
    whole interval is at or below zero is noise, not a cost."""
    ev = evidence or Evidence(None, {})
    assert now.rekey_cost is not None
    target, small, large = now.rekey_cost, now.small, now.large
    n_small, n_large = (now.total // x for x in (small, large))
    span = n_small - n_large
    points: dict[str, dict[str, tuple[Measurement, Measurement]]] = {}
    for impl in sorted({m.impl for m in run.measurements}):
        for p in prims:
            a, b = _rekey_point(run, impl, p, small), _rekey_point(run, impl, p, large)
            if a is not None and b is not None:
                points.setdefault(impl, {})[p] = (a, b)
    conf = joint_confidence(2 * sum(len(v) for v in points.values()))
    parts: list[str] = []
    decisions: list[Decision] = []
    for impl, per in points.items():
        cost = {p: difference(scaled(point_time(a, ev.batches(run, a), conf), n_small / span, 0.0),
                              scaled(point_time(b, ev.batches(run, b), conf), n_large / span, 0.0))
                for p, (a, b) in per.items()}
        if target not in cost or len(cost) < 2:
            continue
        if (top_end := cost[target].high) is not None and top_end <= 0:
            parts.append(f"{impl}: key setup below the noise")
            continue
        e = least(difference(cost[target], c) for p, c in cost.items() if p != target)
        decisions.append(decide(e, Claim(low=0.0)))
        top = max(cost, key=lambda p: cost[p].value)
        parts.append(f"{impl}: {cost[target].value / 1e3:,.1f} µs per message, {e.value / 1e3:+,.1f} µs "
                     + (f"[{e.low / 1e3:+,.1f} to {e.high / 1e3:+,.1f}] " if e.low is not None and e.high is not None
                        else "[no interval] ")
                     + "over the next" + (f" (largest: {top})" if top != target else ""))
    if not decisions:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"needs rekey figures at {size_text(small)} and "
                             f"{size_text(large)}" + (": " + "; ".join(parts) if parts else ""))
    d = every(decisions)
    if all(x.verdict in (FindingVerdict.CHANGED, FindingVerdict.REVERSED) for x in decisions):
        d = Decision(FindingVerdict.REVERSED)  # on no implementation is it the largest
    return FindingResult.of(d, f"{target}'s key setup per message (rekey at {size_text(small)} against "
                            f"{size_text(large)}): " + "; ".join(parts[:5]))


def keysetup_verdict(run: Run, now: Now, evidence: Evidence | None = None) -> FindingResult:
    """The named implementation's key-setup cycles against the others', on shared primitives:
    per primitive, its time over the quickest other's held to above 1; the finding holds
    where that is decided on more than half of them (verdict_rules.majority)."""
    ev = evidence or Evidence(None, {})
    who = str(now.keysetup_slowest)
    pts: dict[tuple[str, str], Measurement] = {}
    for m in run.measurements:
        if m.operation == Operation.KEYSETUP and _ok(m) and m.cycles_per_call:
            pts[(m.impl, m.primitive)] = m
    shared = [(p, pts[(who, p)], [m for (i, q), m in pts.items() if q == p and i != who])
              for p in sorted({p for i, p in pts if i == who})]
    shared = [x for x in shared if x[2]]
    if not shared:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"needs verified key-setup figures of {who} and another library")
    conf = joint_confidence(sum(len(o) for _, _, o in shared))
    # speed of each other over `who` = who's time over the other's
    each = {p: least(speed(ev, run, o, mine, conf) for o in others) for p, mine, others in shared}
    decisions = [decide(e, Claim(low=1.0)) for e in each.values()]
    p, mine, others = max(shared, key=lambda x: (x[1].cycles_per_call or 0.0) / max(o.cycles_per_call or 0.0 for o in x[2]))
    slowest = sum(d.verdict is FindingVerdict.HOLDS for d in decisions)
    figure = (f"{who} decidedly slowest to set up a key on {slowest} of {len(shared)} shared ciphers; e.g. {p}: "
              f"{mine.cycles_per_call or 0.0:,.0f} cycles against at most "
              f"{max(o.cycles_per_call or 0.0 for o in others):,.0f} for the others ({each[p].text()})")
    return FindingResult.of(majority(decisions), figure)


def verdict(data: ReportData, run: Run, finding: Finding, prims: list[str],
            evidence: Evidence | None = None) -> FindingResult:
    """The finding's verdict: from the store's other runs where it names a source (`from`),
    else from the experiment's own run."""
    ev = evidence or Evidence(data.store)
    now, expect = finding.now, finding.expect
    if now is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, finding.needs or "not something one run on one machine measures")
    if finding.source is not None:
        return verdict_axes.axis_verdict(finding, ev)
    handlers: dict[FindingKind, Callable[[], FindingResult]] = {
        FindingKind.RATIO: lambda: ratio_verdict(run, now, expect, ev),
        FindingKind.RANK: lambda: rank_verdict(data, run, now, expect, ev),
        FindingKind.REKEY_COST: lambda: rekey_verdict(run, now, prims, ev),
        FindingKind.KEYSETUP_SLOWEST: lambda: keysetup_verdict(run, now, ev),
    }
    return handlers[now.kind]()
