""""Then and now": published figures (registry/published-figures.toml) beside a
run whose profile is the named experiment. Driven by the data file only: the
quantities below are the whole vocabulary a new experiment can use."""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from cipherbench.report.data import ReportData, Run, primitive, usable
from cipherbench.report.tables import (
    STATUS_TEXT,
    Table,
    cycle_sources,
    diffusion_summary,
    gladman_figures,
    mark_of,
    mbit_at_clock,
    num,
    relative,
    security_value,
    size_label,
)


@dataclass
class Section:
    name: str
    entry: dict
    run: Run
    tables: list[Table] = field(default_factory=list)
    findings: list[tuple[str, str]] = field(default_factory=list)  # (published claim, today)
    charts: list[dict | None] = field(default_factory=list)  # per table: {title, unit, labels, then, now}


def _ms(run: Run, impl: str, prim: str, op: str, workload: str | None = None):
    p = primitive(prim)
    ops = {op, "hash"} if (p and p.kind == "hash" and op == "encrypt") else {op}
    return [m for m in run.measurements if m["impl"] == impl and m["primitive"] == prim
            and m["operation"] in ops and (workload is None or m["workload"] == workload) and usable(m)]


def _largest(ms):
    ms = [m for m in ms if m["size"] > 0]
    return max(ms, key=lambda m: m["size"]) if ms else None


def now_value(run: Run, impl: str, prim: str, spec: dict) -> tuple[float | str | None, list]:
    """Today's figure for one published cell: (value, measurements used)."""
    q = spec.get("quantity")
    op = spec.get("operation", "encrypt")
    if q == "seconds":
        ms = [m for m in _ms(run, impl, prim, op, spec.get("workload", "bulk")) if m["size"] == spec["size"]]
        return (spec["calls"] * ms[0]["ns_per_call"] / 1e9, ms) if ms else (None, [])
    if q in ("keysetup_cycles", "cycles_per_block", "mbit_per_s_at_clock"):
        f = gladman_figures(run, prim, impl)
        used = [v for v in f.values() if isinstance(v, dict)]
        if q == "keysetup_cycles":
            a = f.get("keysetup", {}).get("cycles_per_call")
            b = f.get("keysetup-decrypt", {}).get("cycles_per_call")
            if a and b:
                return f"{a:,.0f}:{b:,.0f}", used
            return a, used
        if q == "cycles_per_block":
            return f.get(f"{op}_cpb"), used
        p = primitive(prim)
        return mbit_at_clock(f, p.block_bytes if p else 16)[0], used
    if q == "mbit_per_s":
        m = _largest(_ms(run, impl, prim, op, "bulk"))
        return (m["mb_per_s"] * 8, [m]) if m else (None, [])
    if q in ("min_secure_rounds", "min_secure_cycles", "attack_rounds"):
        return security_value(run, impl, prim, q)
    if q in ("diffusion", "diffusion_overall", "full_diffusion_rounds"):
        s = diffusion_summary(run, impl, prim)
        if s is None:
            return None, []
        key = {"diffusion_overall": "overall", "full_diffusion_rounds": "full_diffusion_rounds"}.get(q)
        if key is None:
            key = {1: "d1", 2: "d2"}.get(spec.get("rounds"))
            if key is None:
                raise ValueError("published-figures.toml: quantity 'diffusion' takes rounds = 1 or 2")
        return s[key], []
    raise ValueError(f"published-figures.toml: unknown quantity {q!r}")


def _resolve(run: Run, candidates, key_bits) -> str | None:
    names = [c.replace("{key}", str(key_bits)) for c in candidates] if key_bits else list(candidates)
    measured = {m["primitive"] for m in run.measurements}
    return next((n for n in names if n in measured), None)


def _fmt(v) -> str:
    """Today's figures: about four significant digits."""
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, int):  # counts (rounds to full diffusion) stay whole
        return f"{v:,}"
    return num(v, 4)


def _published(v) -> str:
    """Published figures exactly as transcribed."""
    if v is None:
        return ""
    if isinstance(v, bool) or isinstance(v, str):
        return str(v)
    return f"{v:,}" if isinstance(v, int) else repr(v)


def _impls(run: Run) -> list[str]:
    return sorted({m["impl"] for m in run.measurements if m["primitive"] != "null"})


def build_table(data: ReportData, run: Run, t: dict, idx: int, name: str) -> tuple[Table, dict | None]:
    """Published row first, then one row per implementation of today's run, in the same columns."""
    entry = data.published[name]
    cols = t["columns"]
    now_cols = [c for c in cols if c.get("now")]
    header = ["cipher", "figures from", *[f"{c['label']} ({c['unit']})" for c in cols]]
    if now_cols:
        header.append("verified")
    table = Table(f"then-{name}-{idx}", t["title"], header,
                  align=["l", "l"] + ["r"] * len(cols) + (["l"] if now_cols else []))
    used, pairs = [], []
    chart = None
    # Chart the first column whose published values are all numbers (key set-up "a:b" is not).
    first = next((c for c in now_cols if all(isinstance(r.get("values", {}).get(c["key"]), (int, float))
                                             for r in t["rows"])), None)
    if first:
        chart = {"title": f"{t['title']}: {first['label']}", "unit": first["unit"], "labels": [],
                 "then": [], "now": {}}
    year = str(entry.get("year", "")).strip()
    then_label = f"published ({year})" if re.fullmatch(r"\d{4}", year) else "published"
    for row in t["rows"]:
        then = [_published(row.get("values", {}).get(c["key"])) for c in cols]
        table.add([row["label"], then_label, *then] + ([""] if now_cols else []), "published")
        if not now_cols:
            continue
        impl_rows = []
        for impl in _impls(run):
            vals, statuses, any_value = {}, set(), False
            for c in now_cols:
                prim = _resolve(run, row.get("primitives", []), c.get("key_bits"))
                v, ms = (None, []) if prim is None else now_value(run, impl, prim, c["now"])
                if ms:
                    statuses.add(run.verification(impl, prim))
                    used.extend(ms)
                    pairs.append((run, impl, prim))
                any_value = any_value or v is not None
                vals[c["key"]] = v
            if any_value:
                st = "failed" if "failed" in statuses else "unverified" if statuses - {"passed", "n/a"} else "passed"
                impl_rows.append((impl, vals, st))
        if chart is not None:
            chart["labels"].append(row["label"])
            chart["then"].append(row["values"][first["key"]])
        if not impl_rows:
            table.add(["", "today: not measured in this run", *[""] * len(cols), ""])
            continue
        for impl, vals, st in impl_rows:
            table.add(["", f"today: {data.series_name(run, impl)}",
                       *[_fmt(vals[c["key"]]) if c.get("now") else "" for c in cols], STATUS_TEXT.get(st, st)],
                      mark_of(st))
        if chart is not None:
            for impl, vals, st in impl_rows:
                name_ = data.series_name(run, impl) + ("" if st == "passed" else f" ({STATUS_TEXT[st]})")
                v = vals[first["key"]]
                series = chart["now"].setdefault(name_, {"impl": impl, "ok": st == "passed", "by_label": {}})
                series["by_label"][row["label"]] = v if isinstance(v, (int, float)) else None
    if chart is not None:
        for series in chart["now"].values():
            series["values"] = [series["by_label"].get(lbl) for lbl in chart["labels"]]
    table.notes = [f"Published: {t['units']}; on {entry.get('machine', '')} ({entry.get('year', '')}); "
                   f"source: {entry.get('citation', '')}."]
    if now_cols:
        table.notes.append("Today: this run on the machine described in the header, same units; cycle source "
                           f"{cycle_sources(used)}. Columns without a figure today are published only.")
        counts = {}
        for r, impl, prim in set(pairs):
            counts.setdefault(r.verification(impl, prim), set()).add(f"{impl} {prim}")
        bad = {k: v for k, v in counts.items() if k not in ("passed", "n/a")}
        table.notes.append("Verification: " + (f"{len(counts.get('passed', []))} passed"
                                               + "".join(f"; {STATUS_TEXT.get(k, k)}: {', '.join(sorted(v))}"
                                                         for k, v in bad.items())) + ".")
    return table, chart


def _ratio_text(run: Run, a: str, b: str) -> str:
    parts = []
    for impl in _impls(run):
        ma = [m for m in _ms(run, impl, a, "encrypt", "bulk") if m["size"] > 0]
        mb = [m for m in _ms(run, impl, b, "encrypt", "bulk") if m["size"] > 0]
        common = {m["size"] for m in ma} & {m["size"] for m in mb}
        if not common:
            continue
        s = max(common)
        x = next(m for m in ma if m["size"] == s)["mb_per_s"] / next(m for m in mb if m["size"] == s)["mb_per_s"]
        sts = {run.verification(impl, a), run.verification(impl, b)} - {"passed"}
        parts.append(f"{impl}: {a} runs at {x:.3g}× the speed of {b} ({size_label(s)})"
                     + (f" [{', '.join(sorted(STATUS_TEXT.get(t, t) for t in sts))}]" if sts else ""))
    return "; ".join(parts) if parts else f"not measured in this run (needs {a} and {b}, bulk encryption)"


def _rank_text(data: ReportData, run: Run, what: str) -> str:
    sub = ReportData([run], data.published)
    rel = relative(sub)
    if rel is None:
        return "nothing measured in this run"
    if what == "primitives":
        best = []
        for p in rel.primitives:
            pd = primitive(p)
            if pd is None or pd.kind == "hash":  # the claims rank ciphers
                continue
            vals = [m for m in rel.ms if m["primitive"] == p]
            top = max(vals, key=lambda m: m["mb_per_s"])
            best.append((top["mb_per_s"], p, top["impl"]))
        best.sort(reverse=True)
        if not best:
            return "no cipher measured in this run"
        return "ciphers, fastest first (bulk encryption, MB/s at the largest size all their implementations timed): " + ", ".join(
            f"{p} {num(v)} ({impl})" for v, p, impl in best[:8]) + (" …" if len(best) > 8 else "")
    scores = []
    for i, name in enumerate(rel.names):
        vals = [x for x in rel.ratio[i] if x is not None]
        if vals:
            scores.append((statistics.median(vals), name, len(vals)))
    scores.sort(reverse=True)
    return "median speed relative to the fastest, over the primitives each offers: " + ", ".join(
        f"{n} {v:.2f}× ({k} primitives)" for v, n, k in scores)


def sections(data: ReportData) -> list[Section]:
    out = []
    for run in data.runs:
        entry = data.published.get(run.profile)
        if not entry:
            continue
        sec = Section(run.profile, entry, run)
        for i, t in enumerate(entry.get("tables", [])):
            table, chart = build_table(data, run, t, i, run.profile)
            sec.tables.append(table)
            sec.charts.append(chart if chart and chart["now"] else None)
        for f in entry.get("findings", []):
            now = f.get("now") or {}
            if "ratio" in now:
                today = _ratio_text(run, *now["ratio"])
            elif "rank" in now:
                today = _rank_text(data, run, now["rank"])
            else:
                today = "not something this run measures"
            sec.findings.append((f["text"], today))
        out.append(sec)
    return out
