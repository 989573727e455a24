"""A verdict for each published finding (registry/published-figures.toml), computed from
the store's own data: holds, reversed, changed (same direction, another size), not resolved
(a ratio whose interval reaches both sides of the claim), or not measured, each with the
figure it stands on.

A finding's `now` says what to compute, its `expect` what the claim says of that figure.
From the experiment's own run:
  ratio = [a, b]            MB/s of a over b per implementation (`impl` = prefer that one):
                            encryption in `workload` at `size` where the finding names them
                            (the study's convention), else bulk at the largest size both
                            were timed; expect = { above = x } | { below = x } |
                            { between = [lo, hi] }; reversed: the ratio falls on the other
                            side of 1 from the claim; not resolved: the interval the two
                            figures' intervals allow reaches both sides of the claim
  rank = "primitives"       expect = { first = "prefix", last = "prefix" } (primitive names)
  rank = "implementations"  expect = { last = "impl" }: the slowest by median relative speed
  rekey_cost = "primitive"  the key setup per message (rekey - bulk ns per call at `size`),
                            per implementation; expect: that primitive's is the largest
  keysetup_slowest = "impl" key-setup cycles of that implementation against the others on
                            the primitives they share; expect: its are the largest
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

import math
import statistics
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import inspect, select

from cipherbench.builds import matrix as build_matrix
from cipherbench.errors import UsageError
from cipherbench.fleet.records import HostState, fleet_hosts
from cipherbench.kinds import FINISHED, Operation, RunKind, Verdict, Workload
from cipherbench.pipeline.plan import one_line
from cipherbench.report import builds as build_report
from cipherbench.report import machines, releases
from cipherbench.report.tables import Relative, relative
from cipherbench.results.rules import is_bulk_speed, is_reference, size_text
from cipherbench.results.run import PUBLISHED_FILE, Measurement, ReportData, Run, load_run, usable
from cipherbench.store.db import Store

#: A ratio is on the other side of 1 from the claim only beyond this factor: 0.98 against a
#: claim of "more than three times as fast" is a changed finding, not a reversed one.
REVERSED_BEYOND = 1.05


class FindingVerdict(StrEnum):
    HOLDS = "holds"
    REVERSED = "reversed"
    CHANGED = "changed"
    NOT_RESOLVED = "not resolved"  # measured, but the figures' intervals reach both sides of the claim
    NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class RunRef:
    """A run a verdict stands on, as the verdict names it."""

    id: int
    kind: RunKind
    started_at: str | None  # ISO 8601, UTC
    host: str | None = None

    @classmethod
    def of(cls, run: Run) -> RunRef:
        return cls(run.id, run.meta.kind or RunKind.SPEED, run.meta.started_at, run.meta.host)

    def __str__(self) -> str:
        when = f"{self.started_at[:16].replace('T', ' ')} UTC" if self.started_at else "time not recorded"
        host = f", {self.host}" if self.kind is RunKind.FLEET and self.host else ""
        return f"run {self.id} ({self.kind.value}{host}, {when})"


@dataclass(frozen=True)
class FindingResult:
    verdict: FindingVerdict
    figure: str  # what the run measured, in words and numbers
    runs: tuple[RunRef, ...] = ()  # the store's other runs it was judged on (a `from` finding)


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


@dataclass(frozen=True)
class RatioPoints:
    """Which points a ratio finding compares (its `now`): encryption (or hashing) in
    `workload` at `size`, the study's own convention where it names one (the PHP/mcrypt
    timing called mcrypt_encrypt per 1 MiB message: rekey at 1 MiB); else bulk at the
    largest size both primitives were timed."""

    workload: Workload = Workload.BULK
    size: int | None = None  # None: the largest size both were timed

    @classmethod
    def of(cls, now: Mapping[str, Any]) -> RatioPoints:
        size = now.get("size")
        return cls(Workload(now.get("workload", Workload.BULK)), int(size) if size is not None else None)

    def words(self, size: int) -> str:
        return size_text(size) if self.workload is Workload.BULK else f"{self.workload.value}, {size_text(size)}"


@dataclass(frozen=True)
class Ratio:
    """Speed of a over b at one size, with the ends its two figures' intervals allow
    (ns_low/ns_high: lo = b's fastest over a's slowest, hi the other way; None where a
    figure has no interval)."""

    x: float
    size: int
    lo: float | None = None
    hi: float | None = None


def _points(run: Run, impl: str, prim: str, sel: RatioPoints) -> dict[int, Measurement]:
    if not Verdict.shown(run.verification(impl, prim)):
        return {}
    return {m.size: m for m in run.measurements
            if m.impl == impl and m.primitive == prim and m.workload is sel.workload and usable(m) and m.size > 0
            and m.operation in (Operation.ENCRYPT, Operation.HASH) and m.ns_per_call}


def _ratio_of(a: Measurement, b: Measurement) -> Ratio:
    x = float(b.ns_per_call or 0) / float(a.ns_per_call or 1)
    if a.ns_low and a.ns_high and b.ns_low and b.ns_high:
        return Ratio(x, a.size, b.ns_low / a.ns_high, b.ns_high / a.ns_low)
    return Ratio(x, a.size)


def _ratios(run: Run, a: str, b: str, sel: RatioPoints) -> dict[str, Ratio]:
    out = {}
    for impl in sorted({m.impl for m in run.measurements}):
        x, y = _points(run, impl, a, sel), _points(run, impl, b, sel)
        common = set(x) & set(y) & ({sel.size} if sel.size is not None else set(x))
        if common:
            s = max(common)
            out[impl] = _ratio_of(x[s], y[s])
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


def _judge_ratio(r: Ratio, expect: Mapping[str, Any]) -> FindingVerdict:
    """The claim judged on the figure and on both ends of its interval: one verdict where they
    agree; not resolved where the interval reaches both sides of the claim's bound (the two
    figures cannot tell whether it holds); changed where it fails throughout but only the
    figure, not the whole interval, lies on the other side of 1."""
    ends = {_judge_value(v, expect) for v in (r.x, r.lo, r.hi) if v is not None}
    if len(ends) == 1:
        return ends.pop()
    return FindingVerdict.NOT_RESOLVED if FindingVerdict.HOLDS in ends else FindingVerdict.CHANGED


def _interval_words(r: Ratio) -> str:
    return f"; interval {r.lo:.3g}–{r.hi:.3g}×" if r.lo is not None and r.hi is not None else ""


def ratio_verdict(run: Run, now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    a, b = now["ratio"]
    sel = RatioPoints.of(now)
    rs = _ratios(run, a, b, sel)
    if not rs:
        at = f" at {size_text(sel.size)}" if sel.size is not None else ""
        return FindingResult(FindingVerdict.NOT_MEASURED,
                             f"needs verified {sel.workload.value} figures{at} of {a} and {b} from one implementation")
    prefer = now.get("impl") if now.get("impl") in rs else next(iter(rs)) if len(rs) == 1 else None
    if prefer is not None:
        r = rs[prefer]
        figure = f"{prefer}: {a} at {r.x:.3g}× the speed of {b} ({sel.words(r.size)}{_interval_words(r)})"
    else:
        xs = [v.x for v in rs.values()]
        los, his = [v.lo for v in rs.values() if v.lo is not None], [v.hi for v in rs.values() if v.hi is not None]
        r = Ratio(statistics.median(xs), max(v.size for v in rs.values()),
                  statistics.median(los) if len(los) == len(xs) else None,
                  statistics.median(his) if len(his) == len(xs) else None)
        figure = (f"{a} at {r.x:.3g}× the speed of {b}, median of {len(rs)} implementations"
                  + f" (range {min(xs):.3g}–{max(xs):.3g})")
    if not expect:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + "; the claim states no figure to hold it to")
    v = _judge_ratio(r, expect)
    if v is FindingVerdict.NOT_RESOLVED:
        figure += ("; the figures' intervals allow it on both sides of the claim: time the points with more "
                   "batches (--batches) or on a quieter machine")
    return FindingResult(v, figure)


def rank_verdict(data: ReportData, run: Run, now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    rel = relative(ReportData([run], data.published))
    if rel is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, "nothing verified was timed in bulk")
    if now["rank"] == "implementations":
        return _rank_implementations(rel, expect)
    best: dict[str, float] = {}
    for m in rel.ms:
        if m.verified == Verdict.PASSED and m.operation == Operation.ENCRYPT and m.mb_per_s is not None:
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


def _rank_implementations(rel: Relative, expect: Mapping[str, Any]) -> FindingResult:
    """Libraries by median speed relative to the fastest, over the ciphers every one of them
    offers (else those at least two offer): a library is not ranked on ciphers only it has.
    The project's reference code is not a library: it is left out of the ranking."""
    rows = [i for i, n in enumerate(rel.names) if not is_reference(n)]
    cols = [j for j in range(len(rel.primitives)) if all(rel.ratio[i][j] is not None for i in rows)]
    if not cols:
        cols = [j for j in range(len(rel.primitives)) if sum(rel.ratio[i][j] is not None for i in rows) >= 2]
    scores = {rel.names[i]: statistics.median(v) for i in rows
              if (v := [x for j in cols if (x := rel.ratio[i][j]) is not None])}
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


def verdict(data: ReportData, run: Run, finding: Mapping[str, Any], prims: list[str],
            evidence: Evidence | None = None) -> FindingResult:
    """The finding's verdict: from the store's other runs where it names a source (`from`),
    else from the experiment's own run."""
    if "from" in finding:
        return axis_verdict(finding, evidence or Evidence(data.store))
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


# ---------------------------------------------------------------------------- the axes' runs
class Source(BaseModel):
    """Where a finding's other runs come from: [sources.NAME] of published-figures.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: RunKind
    what: str  # the run in words: "compiler-matrix run"
    measure: str  # the one command that makes such a run
    profiles: tuple[str, ...] = ()  # the run's profile or experiment is one of these (() = any)
    machines: int = Field(1, ge=1)  # a fleet run with at least this many machines complete
    matrix: str | None = None  # builds: the matrix `cipherbench reproduce` builds and times


@lru_cache(maxsize=4)
def load_sources(path: Path = PUBLISHED_FILE) -> dict[str, Source]:
    """Every [sources.NAME], validated: a misspelt key is one line naming it."""
    with open(path, "rb") as f:
        tables = tomllib.load(f).get("sources", {})
    out = {}
    for name, table in tables.items():
        try:
            out[name] = Source.model_validate(table)
        except ValidationError as e:
            raise UsageError(one_line(e, f"{path.name}: [sources.{name}]")) from None
    return out


#: Runs that ran to the end: complete, or incomplete (every point that did not fail is there).


def latest_runs(store: Store, source: Source) -> list[Run]:
    """The one rule for a finding's other runs: the newest run of the source's kind, and of
    one of its profiles (the preset its plan came from, narrowed or not), that ran to the end; for a fleet source, the runs of the machines
    that completed the newest fleet run with at least `machines` of them. [] when the store
    has none."""
    if source.kind is RunKind.FLEET:
        ids = _fleet_machines(store, source.machines)
    else:
        latest = max((r.id for r in store.run_summaries() if r.kind is source.kind and r.status in FINISHED
                      and (not source.profiles or r.preset in source.profiles)), default=None)
        ids = [] if latest is None else [latest]
    return [load_run(store, i, with_samples=False) for i in ids]


def _fleet_machines(store: Store, machines: int) -> list[int]:
    """The machines' runs of the newest fleet run (fleet/records.py) with `machines` complete."""
    if not inspect(store.engine).has_table(fleet_hosts.name):  # no fleet ever wrote to this store
        return []
    q = (select(fleet_hosts.c.fleet_run_id, fleet_hosts.c.run_id)
         .where(fleet_hosts.c.state == HostState.COMPLETE.value, fleet_hosts.c.run_id.is_not(None))
         .order_by(fleet_hosts.c.fleet_run_id.desc(), fleet_hosts.c.host))
    by_fleet: dict[int, list[int]] = {}
    with store.engine.connect() as c:
        for fleet_id, run_id in c.execute(q):
            by_fleet.setdefault(int(fleet_id), []).append(int(run_id))
    return next((ids for ids in by_fleet.values() if len(ids) >= machines), [])


class Evidence:
    """The sources' runs, each looked up once for a report. Without a store (a report read
    from files) there are no other runs to look in."""

    def __init__(self, store: Store | None, sources: Mapping[str, Source] | None = None):
        self.store = store
        self.sources = dict(load_sources() if sources is None else sources)
        self._runs: dict[str, list[Run]] = {}

    def source(self, name: str) -> Source:
        if name not in self.sources:
            raise UsageError(f"published-figures.toml: a finding draws on source '{name}', which [sources] "
                             f"lacks (known: {', '.join(sorted(self.sources))})")
        return self.sources[name]

    def runs(self, name: str) -> list[Run]:
        source = self.source(name)
        if name not in self._runs:
            self._runs[name] = [] if self.store is None else latest_runs(self.store, source)
        return self._runs[name]


def axis_verdict(finding: Mapping[str, Any], evidence: Evidence) -> FindingResult:
    """A finding judged on the latest runs of its source, naming them; "not measured" and the
    command that would measure it where the store has none, or they lack what it needs."""
    source = evidence.source(str(finding["from"]))
    runs = evidence.runs(str(finding["from"]))
    if not runs:
        where = "this store" if evidence.store is not None else "a report read from files"
        return FindingResult(FindingVerdict.NOT_MEASURED, f"no {source.what} in {where}; measure it with: "
                             f"{source.measure}")
    now, expect = finding.get("now") or {}, finding.get("expect") or {}
    result = _axis_handler(now)(runs, now, expect)
    refs = tuple(RunRef.of(r) for r in runs)
    parts = [str(finding.get("nearest") or ""), result.figure]
    if result.verdict is FindingVerdict.NOT_MEASURED:
        parts.append(f"measure it with: {source.measure}")
    return FindingResult(result.verdict, "; ".join(p for p in parts if p) + f" (from {', '.join(map(str, refs))})",
                         refs)


AxisHandler = Callable[[list[Run], Mapping[str, Any], Mapping[str, Any]], FindingResult]


def _axis_handler(now: Mapping[str, Any]) -> AxisHandler:
    handlers: dict[str, AxisHandler] = {"releases": releases_verdict, "compilers": compilers_verdict,
                                        "o3_alone": o3_verdict, "robustness": robustness_verdict}
    key = next((k for k in handlers if k in now), None)
    if key is None:
        raise UsageError(f"published-figures.toml: a `from` finding's now = {dict(now)} asks for none of "
                         f"{', '.join(handlers)}")
    return handlers[key]


def _geomean(xs: Iterable[float]) -> float:
    vals = list(xs)
    return math.exp(sum(map(math.log, vals)) / len(vals))


# ---------------------------------------------------------------------------- releases
def releases_verdict(runs: list[Run], now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    """Per library, its oldest Debian release against its newest (report/releases.py's
    builds and order): MB/s of every verified bulk figure both timed, at the largest size
    both timed; the geometric mean over libraries and primitives."""
    run = runs[0]
    by_lib: dict[str, list[releases.Build]] = {}
    for b in releases.builds(run).values():
        by_lib.setdefault(b.library, []).append(b)
    per_lib: dict[str, tuple[releases.Build, releases.Build, list[float]]] = {}
    for lib, bs in sorted(by_lib.items()):
        old, new = min(bs, key=lambda b: b.order), max(bs, key=lambda b: b.order)
        prims = sorted({m.primitive for m in run.measurements if m.impl == old.impl})
        ratios = [r for p in prims if (r := _oldest_over_newest(run, old.impl, new.impl, p)) is not None]
        if old.order < new.order and ratios:
            per_lib[lib] = (old, new, ratios)
    if not per_lib:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id} timed no library in two Debian releases")
    allr = [r for _, _, rs in per_lib.values() for r in rs]
    x = _geomean(allr)
    libs = "; ".join(f"{lib} {old.release} ({releases.short_version(old)}) against {new.release} "
                     f"({releases.short_version(new)}): {_geomean(rs):.3g}×" for lib, (old, new, rs) in per_lib.items())
    figure = (f"each library's oldest Debian release at {x:.3g}× the speed of its newest, geometric mean over "
              f"{len(allr)} verified bulk figure{'s' if len(allr) != 1 else ''} ({libs})")
    return FindingResult(_judge_value(x, expect), figure)


def _oldest_over_newest(run: Run, old: str, new: str, prim: str) -> float | None:
    a, b = _bulk(run, old, prim), _bulk(run, new, prim)
    common = set(a) & set(b)
    return a[max(common)] / b[max(common)] if common else None


# ---------------------------------------------------------------------------- compilers
@dataclass(frozen=True)
class Variants:
    """A builds run's variants (report/builds.py): cycles (else ns) per call of every verified
    (library, cipher) at the largest size timed, and each variant's compiler and flags."""

    per_call: dict[str, dict[tuple[str, str], float]]  # variant label -> (library, cipher) -> per call
    compiler: dict[str, str]  # variant label -> compiler id
    flags: dict[str, tuple[str, ...]]  # variant label -> its flags (PGO as "+PGO")

    @classmethod
    def of(cls, run: Run) -> Variants:
        per_call: dict[str, dict[tuple[str, str], float]] = {}
        compiler: dict[str, str] = {}
        flags: dict[str, tuple[str, ...]] = {}
        for lib in build_report.libraries(run):
            for label, cells in lib.variants.items():
                rec = lib.builds.get(label) or {}
                compiler[label] = str(rec.get("compiler") or build_report.compiler_of(label))
                flags[label] = tuple(rec.get("flags") or ()) + (("+PGO",) if rec.get("pgo") else ())
                got = per_call.setdefault(label, {})
                for prim, cell in cells.items():
                    if cell.per_call and cell.status == Verdict.PASSED:
                        got[(lib.name, prim)] = cell.per_call
        return cls(per_call, compiler, flags)

    def best(self) -> dict[str, dict[tuple[str, str], float]]:
        """compiler -> (library, cipher) -> its best flag set's figure (the fewest per call)."""
        out: dict[str, dict[tuple[str, str], float]] = {}
        for label, figures in self.per_call.items():
            b = out.setdefault(self.compiler[label], {})
            for k, v in figures.items():
                b[k] = min(v, b.get(k, v))
        return {c: b for c, b in out.items() if b}


def _speed(best: Mapping[str, Mapping[tuple[str, str], float]], a: str, b: str) -> tuple[float, int] | None:
    """Compiler a's speed over b's, each with its best flags: the geometric mean over the
    ciphers both built, and how many."""
    common = set(best[a]) & set(best[b])
    return (_geomean(best[b][k] / best[a][k] for k in common), len(common)) if common else None


def _family(compiler: str) -> str:
    """registry/builds.toml's family of a compiler ("gcc", "clang"), else the id's first word."""
    known = build_matrix.load().compilers
    return known[compiler].family.value if compiler in known else compiler.split("-", 1)[0]


#: Two compilers a finding compares: (a, what a is, b, what b is, a note on the choice).
Compared = tuple[str, str, str, str, str]


def compilers_verdict(runs: list[Run], now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    """"FAMILY/other": that family's fastest compiler against the fastest of another family;
    "older/newer": the oldest compiler of the run against the newest, within one family where
    the run has two of it (by the finding's `released` years). Speed: each with its best
    flags per cipher, the geometric mean over the ciphers both built."""
    run, what = runs[0], str(now["compilers"])
    best = Variants.of(run).best()
    if len(best) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id} timed {len(best)} compiler(s) with a "
                             "verified figure: two are needed")
    pair = (_older_and_newer(best, now.get("released") or {}) if what == "older/newer"
            else _family_and_other(best, what.split("/", 1)[0]))
    if isinstance(pair, str):
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id}: {pair}")
    a, a_is, b, b_is, note = pair
    sp = _speed(best, a, b)
    if sp is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id}: {a} and {b} built no cipher in common")
    x, n = sp
    figure = (f"{a} ({a_is}) at {x:.3g}× the speed of {b} ({b_is}), each with its best flags per cipher (geometric "
              f"mean over the {n} cipher{'s' if n != 1 else ''} both built)" + (f"; {note}" if note else ""))
    return FindingResult(_judge_value(x, expect), figure)


def _family_and_other(best: Mapping[str, Mapping[tuple[str, str], float]], family: str) -> Compared | str:
    mine = [c for c in best if _family(c) == family]
    other = [c for c in best if _family(c) != family]
    if not mine or not other:
        return f"it timed {'no ' + family if not mine else family + ' only'}: the claim compares {family} with " \
               "another compiler"
    a = max(mine, key=lambda c: min((_speed(best, c, o) or (0.0, 0))[0] for o in other))
    b = max(other, key=lambda c: (_speed(best, c, a) or (0.0, 0))[0])
    return a, f"the fastest {family}", b, "the fastest other compiler", ""


def _older_and_newer(best: Mapping[str, Mapping[tuple[str, str], float]], released: Mapping[str, int]) -> Compared | str:
    dated = {c: int(released[c]) for c in best if c in released}
    families: dict[str, list[str]] = {}
    for c in sorted(dated, key=lambda c: dated[c]):
        families.setdefault(_family(c), []).append(c)
    spans = {f: cs for f, cs in families.items() if dated[cs[-1]] > dated[cs[0]]}
    if spans:  # one family at two versions: the widest span, gcc first on a tie
        fam = max(sorted(spans), key=lambda f: (dated[spans[f][-1]] - dated[spans[f][0]], f == "gcc"))
        old, new = spans[fam][0], spans[fam][-1]
        return old, f"{dated[old]}", new, f"{dated[new]}", ""
    order = sorted(dated, key=lambda c: dated[c])
    if len(order) < 2 or dated[order[0]] == dated[order[-1]]:
        return "its compilers have no release years to tell the older from the newer (`released`)"
    old, new = order[0], order[-1]
    return (old, f"{dated[old]}, the older", new, f"{dated[new]}, the newer",
            "the run timed one version of each compiler, so the older and the newer are of two families")


def o3_verdict(runs: list[Run], now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    """Per compiler of the family and cipher: the -O3-only build's speed over the fastest of
    that compiler's other flag sets; the geometric mean over all of them."""
    run, family = runs[0], str(now["o3_alone"])
    v = Variants.of(run)
    ratios: list[float] = []
    wins: dict[str, int] = {}
    for c in sorted({c for c in v.compiler.values() if _family(c) == family}):
        labels = [lb for lb in v.per_call if v.compiler[lb] == c]
        o3 = next((lb for lb in labels if v.flags[lb] == ("-O3",)), None)
        for k, t in (v.per_call[o3] if o3 else {}).items():
            others = {lb: v.per_call[lb][k] for lb in labels if lb != o3 and k in v.per_call[lb]}
            if others:
                top = min(others, key=lambda lb: others[lb])
                ratios.append(others[top] / t)
                wins[top] = wins.get(top, 0) + 1
    if not ratios:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id} timed no {family} -O3 build beside "
                             f"another {family} flag set")
    x = _geomean(ratios)
    within = sum(1 for r in ratios if r >= 0.97)
    top = ", ".join(f"{lb} on {n}" for lb, n in sorted(wins.items(), key=lambda kv: -kv[1]))
    figure = (f"{family} -O3 alone at {x:.3g}× the speed of the same compiler's best other flag set, per cipher "
              f"(geometric mean over {len(ratios)}; within 3 % on {within}; the best other: {top})")
    return FindingResult(_judge_value(x, expect), figure)


# ---------------------------------------------------------------------------- CPUs
def robustness_verdict(runs: list[Run], now: Mapping[str, Any], expect: Mapping[str, Any]) -> FindingResult:
    """Each primitive's cycles per byte divided by a reference primitive's, same implementation
    and machine (the first of the finding's `reference`, then report/machines.py's, that the
    implementation timed); its spread = largest over smallest across machines, minus one; the
    median over implementations ranks the primitives, most robust first."""
    hosts = machines.host_runs(ReportData(runs))
    if len(hosts) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, "its runs come from fewer than two machines")
    values, _ = machines.cycles_per_byte(hosts)
    refs = [*(now.get("reference") or []), *machines.REFERENCE_PRIMITIVES]
    spreads: dict[str, list[float]] = {}
    used: set[str] = set()
    for (impl, prim), per in values.items():
        ref = next((r for r in refs if (impl, r) in values), None)
        if ref is None or prim == ref:
            continue
        norm = {h: c / values[(impl, ref)][h] for h, c in per.items() if values[(impl, ref)].get(h)}
        if len(norm) >= 2 and min(norm.values()) > 0:
            spreads.setdefault(prim, []).append(max(norm.values()) / min(norm.values()) - 1)
            used.add(ref)
    return _judge_rank({p: statistics.median(s) for p, s in spreads.items()}, expect,
                       f"on {', '.join(hosts)}, cycles per byte relative to {', '.join(sorted(used)) or 'a reference'}")


def _judge_rank(spread: Mapping[str, float], expect: Mapping[str, Any], where: str) -> FindingResult:
    first, last = str(expect.get("first", "")), str(expect.get("last", ""))
    order = sorted(spread, key=lambda p: (spread[p], p))
    missing = [w for w in (first, last) if w and not any(p.startswith(w) for p in order)]
    if missing:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"its machines timed no {' or '.join(missing)} beside "
                             "a reference primitive")
    if len(order) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, "its machines timed fewer than two ciphers beside a "
                             "reference primitive")
    figure = (f"most robust first ({where}; spread across the machines, median over implementations): "
              + ", ".join(f"{p} {100 * spread[p]:.1f} %" for p in order))
    holds = order[0].startswith(first) and order[-1].startswith(last)
    flipped = order[0].startswith(last) and order[-1].startswith(first)
    return FindingResult(FindingVerdict.HOLDS if holds else FindingVerdict.REVERSED if flipped
                         else FindingVerdict.CHANGED, figure)
