"""The axes' findings (`from`): releases, compilers, -O3 and CPUs, judged on the store's other runs with their intervals.

Each figure is a geometric mean of ratios of two points, or a rank of spreads across
machines; every point's interval is taken jointly (verdict_rules.joint_confidence) and the
figure bounded from them as report/verdict_rules.py says. report/verdicts.py lists what each
`now` computes.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cipherbench import axes
from cipherbench.kinds import Verdict
from cipherbench.registry_models import Expect, Finding, FindingKind, Now
from cipherbench.report import builds as build_report
from cipherbench.report import machines, releases
from cipherbench.report.verdict_rules import (
    Claim,
    Decision,
    Estimate,
    FindingResult,
    FindingVerdict,
    RunRef,
    as_factor,
    decide,
    difference,
    every,
    geomean,
    greatest,
    joint_confidence,
    least,
    median,
    point_ratio,
    point_time,
    quotient,
    spread,
    times,
)
from cipherbench.report.verdict_store import Evidence
from cipherbench.results.rules import is_bulk_speed
from cipherbench.results.run import Measurement, ReportData, Run


def axis_verdict(finding: Finding, evidence: Evidence) -> FindingResult:
    """A finding judged on the latest runs of its source, naming them; "not measured" and the
    command that would measure it where the store has none, or they lack what it needs."""
    assert finding.source is not None and finding.now is not None  # the loader's rule: `from` goes with an axis kind
    source = evidence.source(finding.source)
    runs = evidence.runs(finding.source)
    if not runs:
        where = "this store" if evidence.store is not None else "a report read from files"
        return FindingResult(FindingVerdict.NOT_MEASURED, f"no {source.what} in {where}; measure it with: "
                             f"{source.measure}")
    result = AXIS_HANDLERS[finding.now.kind](evidence, runs, finding.now, finding.expect)
    refs = tuple(RunRef.of(r) for r in runs)
    parts = [finding.nearest or "", result.figure]
    if result.verdict is FindingVerdict.NOT_MEASURED:
        parts.append(f"measure it with: {source.measure}")
    return FindingResult(result.verdict, "; ".join(p for p in parts if p) + f" (from {', '.join(map(str, refs))})",
                         refs, result.decider, result.rounds)


AxisHandler = Callable[[Evidence, list[Run], Now, Expect], FindingResult]


def _judged(e: Estimate, expect: Expect, figure: str) -> FindingResult:
    claim = Claim.of(expect)
    if claim is None:
        return FindingResult(FindingVerdict.NOT_MEASURED, figure + "; the claim states no figure to hold it to")
    return FindingResult.of(decide(e, claim), figure)


# ---------------------------------------------------------------------------- releases
def _bulk(run: Run, impl: str, prim: str) -> dict[int, Measurement]:
    if not Verdict.shown(run.verification(impl, prim)):
        return {}
    return {m.size: m for m in run.measurements
            if m.impl == impl and m.primitive == prim and is_bulk_speed(m) and m.mb_per_s is not None}


def releases_verdict(ev: Evidence, runs: list[Run], now: Now, expect: Expect) -> FindingResult:
    """Per library, its oldest Debian release against its newest (report/releases.py's
    builds and order): MB/s of every verified bulk figure both timed, at the largest size
    both timed; the geometric mean over libraries and primitives."""
    run = runs[0]
    by_lib: dict[str, list[releases.Build]] = {}
    for b in releases.builds(run).values():
        by_lib.setdefault(b.library, []).append(b)
    per_lib: dict[str, tuple[releases.Build, releases.Build, list[tuple[Measurement, Measurement]]]] = {}
    for lib, bs in sorted(by_lib.items()):
        old, new = min(bs, key=lambda b: b.order), max(bs, key=lambda b: b.order)
        prims = sorted({m.primitive for m in run.measurements if m.impl == old.impl})
        pairs = [pr for p in prims if (pr := _oldest_and_newest(run, old.impl, new.impl, p)) is not None]
        if old.order < new.order and pairs:
            per_lib[lib] = (old, new, pairs)
    if not per_lib:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id} timed no library in two Debian releases")
    conf = joint_confidence(sum(len(ps) for _, _, ps in per_lib.values()))
    ratios = {lib: [point_ratio(n, o, ev.batches(run, n), ev.batches(run, o), conf) for o, n in ps]
              for lib, (_, _, ps) in per_lib.items()}
    allr = [r for rs in ratios.values() for r in rs]
    x = geomean(allr)
    libs = "; ".join(f"{lib} {old.release} ({releases.short_version(old)}) against {new.release} "
                     f"({releases.short_version(new)}): {geomean(ratios[lib]).value:.3g}×"
                     for lib, (old, new, _) in per_lib.items())
    figure = (f"each library's oldest Debian release at {x.text()} the speed of its newest, geometric mean over "
              f"{len(allr)} verified bulk figure{'s' if len(allr) != 1 else ''} ({libs})")
    return _judged(x, expect, figure)


def _oldest_and_newest(run: Run, old: str, new: str, prim: str) -> tuple[Measurement, Measurement] | None:
    a, b = _bulk(run, old, prim), _bulk(run, new, prim)
    common = set(a) & set(b)
    return (a[max(common)], b[max(common)]) if common else None


# ---------------------------------------------------------------------------- compilers
@dataclass(frozen=True)
class Variants:
    """A builds run's variants (report/builds.py): cycles (else ns) per call of every verified
    (library, cipher) at the largest size timed, the point it is, and each variant's compiler
    and flags."""

    per_call: dict[str, dict[tuple[str, str], float]]  # variant label -> (library, cipher) -> per call
    points: dict[str, dict[tuple[str, str], Measurement]]  # variant label -> (library, cipher) -> its point
    compiler: dict[str, str]  # variant label -> compiler id
    flags: dict[str, tuple[str, ...]]  # variant label -> its flags (PGO as "+PGO")

    @classmethod
    def of(cls, run: Run) -> Variants:
        per_call: dict[str, dict[tuple[str, str], float]] = {}
        points: dict[str, dict[tuple[str, str], Measurement]] = {}
        compiler: dict[str, str] = {}
        flags: dict[str, tuple[str, ...]] = {}
        for lib in build_report.libraries(run):
            for label, cells in lib.variants.items():
                rec = lib.builds.get(label) or {}
                compiler[label] = str(rec.get("compiler") or build_report.compiler_of(label))
                flags[label] = tuple(rec.get("flags") or ()) + (("+PGO",) if rec.get("pgo") else ())
                got, pts = per_call.setdefault(label, {}), points.setdefault(label, {})
                for prim, cell in cells.items():
                    if cell.per_call and cell.status == Verdict.PASSED and cell.point is not None:
                        got[(lib.name, prim)] = cell.per_call
                        pts[(lib.name, prim)] = cell.point
        return cls(per_call, points, compiler, flags)

    def best(self) -> dict[str, dict[tuple[str, str], str]]:
        """compiler -> (library, cipher) -> its best flag set's label (the fewest per call)."""
        out: dict[str, dict[tuple[str, str], str]] = {}
        for label, figures in self.per_call.items():
            b = out.setdefault(self.compiler[label], {})
            for k, v in figures.items():
                if k not in b or v < self.per_call[b[k]][k]:
                    b[k] = label
        return {c: b for c, b in out.items() if b}


#: compiler -> (library, cipher) -> the label of its best flag set.
Best = Mapping[str, Mapping[tuple[str, str], str]]


def _speed(v: Variants, best: Best, a: str, b: str) -> tuple[float, int] | None:
    """Compiler a's speed over b's, each with its best flags: the geometric mean over the
    ciphers both built, and how many (the figures alone: to choose which compilers to set side
    by side)."""
    common = set(best[a]) & set(best[b])
    if not common:
        return None
    return geomean(Estimate(v.per_call[best[b][k]][k] / v.per_call[best[a][k]][k]) for k in common).value, len(common)


def _family(compiler: str) -> str:
    """registry/builds.toml's family of a compiler ("gcc", "clang"), else the id's first word."""
    return axes.builds().compiler_family(compiler)


#: Two compilers a finding compares: (a, what a is, b, what b is, a note on the choice).
Compared = tuple[str, str, str, str, str]


def compilers_verdict(ev: Evidence, runs: list[Run], now: Now, expect: Expect) -> FindingResult:
    """"FAMILY/other": that family's fastest compiler against the fastest of another family;
    "older/newer": the oldest compiler of the run against the newest, within one family where
    the run has two of it (by the finding's `released` years). Speed: each with its best
    flags per cipher, the geometric mean over the ciphers both built."""
    run, what = runs[0], str(now.compilers)
    v = Variants.of(run)
    best = v.best()
    if len(best) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id} timed {len(best)} compiler(s) with a "
                             "verified figure: two are needed")
    pair = (_older_and_newer(best, now.released) if what == "older/newer"
            else _family_and_other(v, best, what.split("/", 1)[0]))
    if isinstance(pair, str):
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id}: {pair}")
    a, a_is, b, b_is, note = pair
    common = sorted(set(best[a]) & set(best[b]))
    if not common:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id}: {a} and {b} built no cipher in common")
    conf = joint_confidence(len(common))
    pts = [(v.points[best[b][k]][k], v.points[best[a][k]][k]) for k in common]
    x = geomean(point_ratio(pb, pa, ev.batches(run, pb), ev.batches(run, pa), conf) for pb, pa in pts)
    n = len(common)
    figure = (f"{a} ({a_is}) at {x.text()} the speed of {b} ({b_is}), each with its best flags per cipher (geometric "
              f"mean over the {n} cipher{'s' if n != 1 else ''} both built)" + (f"; {note}" if note else ""))
    return _judged(x, expect, figure)


def _family_and_other(v: Variants, best: Best, family: str) -> Compared | str:
    mine = [c for c in best if _family(c) == family]
    other = [c for c in best if _family(c) != family]
    if not mine or not other:
        return f"it timed {'no ' + family if not mine else family + ' only'}: the claim compares {family} with " \
               "another compiler"
    a = max(mine, key=lambda c: min((_speed(v, best, c, o) or (0.0, 0))[0] for o in other))
    b = max(other, key=lambda c: (_speed(v, best, c, a) or (0.0, 0))[0])
    return a, f"the fastest {family}", b, "the fastest other compiler", ""


def _older_and_newer(best: Best, released: Mapping[str, int]) -> Compared | str:
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


def o3_verdict(ev: Evidence, runs: list[Run], now: Now, expect: Expect) -> FindingResult:
    """Per compiler of the family and cipher: the -O3-only build's speed over the fastest of
    that compiler's other flag sets; the geometric mean over all of them."""
    run, family = runs[0], str(now.o3_alone)
    v = Variants.of(run)
    pairs: list[tuple[Measurement, Measurement, float]] = []  # (best other's point, -O3's, their figures' ratio)
    wins: dict[str, int] = {}
    for c in sorted({c for c in v.compiler.values() if _family(c) == family}):
        labels = [lb for lb in v.per_call if v.compiler[lb] == c]
        o3 = next((lb for lb in labels if v.flags[lb] == ("-O3",)), None)
        for k, t in (v.per_call[o3] if o3 else {}).items():
            others = {lb: v.per_call[lb][k] for lb in labels if lb != o3 and k in v.per_call[lb]}
            if o3 and others:
                top = min(others, key=lambda lb: others[lb])
                pairs.append((v.points[top][k], v.points[o3][k], others[top] / t))
                wins[top] = wins.get(top, 0) + 1
    if not pairs:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"run {run.id} timed no {family} -O3 build beside "
                             f"another {family} flag set")
    conf = joint_confidence(len(pairs))
    x = geomean(point_ratio(t, o, ev.batches(run, t), ev.batches(run, o), conf) for t, o, _ in pairs)
    within = sum(1 for _, _, r in pairs if r >= 0.97)
    top = ", ".join(f"{lb} on {n}" for lb, n in sorted(wins.items(), key=lambda kv: -kv[1]))
    figure = (f"{family} -O3 alone at {x.text()} the speed of the same compiler's best other flag set, per cipher "
              f"(geometric mean over {len(pairs)}; within 3 % on {within}; the best other: {top})")
    return _judged(x, expect, figure)


# ---------------------------------------------------------------------------- CPUs
def robustness_verdict(ev: Evidence, runs: list[Run], now: Now, expect: Expect) -> FindingResult:
    """Each primitive's cycles per byte divided by a reference primitive's, same implementation
    and machine (the first of the finding's `reference`, then report/machines.py's, that the
    implementation timed); its spread = largest over smallest across machines, minus one; the
    median over implementations ranks the primitives, most robust first. Every point's
    interval is taken jointly; a spread is bounded by verdict_rules.spread."""
    hosts = machines.host_runs(ReportData(runs))
    if len(hosts) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, "its runs come from fewer than two machines")
    points = machines.points_per_host(hosts)
    refs = [*now.reference, *machines.REFERENCE_PRIMITIVES]
    conf = joint_confidence(sum(len(per) for per in points.values()))

    def cpb(impl: str, prim: str, host: str) -> Estimate:
        m = points[(impl, prim)][host]
        return times(as_factor(point_time(m, ev.batches(hosts[host], m), conf)), m.cycles_per_byte or 0.0)
    spreads: dict[str, list[Estimate]] = {}
    used: set[str] = set()
    for (impl, prim), per in points.items():
        ref = next((r for r in refs if (impl, r) in points), None)
        if ref is None or prim == ref:
            continue
        on = [h for h in per if points[(impl, ref)].get(h) is not None and (points[(impl, ref)][h].cycles_per_byte or 0) > 0]
        norm = [quotient(cpb(impl, prim, h), cpb(impl, ref, h)) for h in on]
        if len(norm) >= 2 and min(e.value for e in norm) > 0:
            spreads.setdefault(prim, []).append(spread(norm))
            used.add(ref)
    return _judge_rank({p: median(s) for p, s in spreads.items()}, expect,
                       f"on {', '.join(hosts)}, cycles per byte relative to {', '.join(sorted(used)) or 'a reference'}")


def _judge_rank(spreads: Mapping[str, Estimate], expect: Expect, where: str) -> FindingResult:
    """The claimed most robust has the least spread (its spread less each other's at most 0),
    the claimed least robust the largest (at least 0), both ends jointly."""
    first, last = expect.first or "", expect.last or ""
    order = sorted(spreads, key=lambda p: (spreads[p].value, p))
    missing = [w for w in (first, last) if w and not any(p.startswith(w) for p in order)]
    if missing:
        return FindingResult(FindingVerdict.NOT_MEASURED, f"its machines timed no {' or '.join(missing)} beside "
                             "a reference primitive")
    if len(order) < 2:
        return FindingResult(FindingVerdict.NOT_MEASURED, "its machines timed fewer than two ciphers beside a "
                             "reference primitive")
    figure = (f"most robust first ({where}; spread across the machines, median over implementations): "
              + ", ".join(f"{p} {_percent(spreads[p])}" for p in order))
    parts: list[Decision] = []
    for prefix, most in ((first, True), (last, False)):
        if not prefix:
            continue
        mine = next(p for p in (order if most else order[::-1]) if p.startswith(prefix))
        gaps = [difference(spreads[mine], spreads[q]) for q in order if not q.startswith(prefix)]
        if gaps:
            parts.append(decide(greatest(gaps), Claim(high=0.0)) if most else decide(least(gaps), Claim(low=0.0)))
    return FindingResult.of(every(parts), figure) if parts else FindingResult(FindingVerdict.NOT_MEASURED, figure)


def _percent(e: Estimate) -> str:
    if e.low is None or e.high is None:
        return f"{100 * e.value:.1f} %"
    return f"{100 * e.value:.1f} % [{100 * e.low:.1f}–{100 * e.high:.1f}]"


#: The axes' kinds (registry_models.AXIS_KINDS), each judged by its function above.
AXIS_HANDLERS: dict[FindingKind, AxisHandler] = {
    FindingKind.RELEASES: releases_verdict, FindingKind.COMPILERS: compilers_verdict,
    FindingKind.O3_ALONE: o3_verdict, FindingKind.ROBUSTNESS: robustness_verdict,
}
