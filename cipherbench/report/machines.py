"""Machines side by side: the report's section for runs made on different hosts (a
fleet run, or runs named together with --run).

Three tables: the machines (from each run's stored context), cycles per byte of
every (implementation, primitive) on each machine, and seed 001's robustness
ranking redone: each primitive's cycles per byte divided by a reference primitive's
on the same machine and implementation, and how far that ratio spreads across the
machines. Cycles compare across clock speeds, MB/s do not (seed 001; axes.md §3),
so every figure here is in cycles. Only hosts with a complete run take part; when
a host has several, its latest counts.
"""
from __future__ import annotations

import statistics
from typing import Any

from cipherbench.kinds import RunStatus
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.report.markup import md
from cipherbench.report.tables import HtmlPage, Table, cycle_sources, num
from cipherbench.results.rules import is_bulk_speed, size_text
from cipherbench.results.run import Measurement, ReportData, Run

#: The reference the ranking divides by, first one measured on every machine. AES because
#: every library and CPU has it; ECB/CBC/CTR for the primitive closest to a bare block cipher.
REFERENCE_PRIMITIVES = ("aes-128-ecb", "aes-128-cbc", "aes-128-ctr", "aes-128-gcm", "sha-256")

#: (implementation, primitive)
PairKey = tuple[str, str]
#: (implementation, primitive) -> host -> cycles per byte
CyclesByHost = dict[PairKey, dict[str, float]]

# Intel family 6 model numbers, from Linux arch/x86/include/asm/intel-family.h.
INTEL_FAMILY6 = {
    0x2A: "Sandy Bridge", 0x2D: "Sandy Bridge-E", 0x3A: "Ivy Bridge", 0x3E: "Ivy Bridge-E",
    0x3C: "Haswell", 0x45: "Haswell", 0x46: "Haswell", 0x3F: "Haswell-X", 0x3D: "Broadwell",
    0x47: "Broadwell", 0x4F: "Broadwell-X", 0x56: "Broadwell-D", 0x4E: "Skylake", 0x5E: "Skylake",
    0x55: "Skylake-X / Cascade Lake / Cooper Lake", 0x8E: "Kaby Lake / Coffee Lake",
    0x9E: "Kaby Lake / Coffee Lake", 0xA5: "Comet Lake", 0xA6: "Comet Lake", 0x66: "Cannon Lake",
    0x7D: "Ice Lake", 0x7E: "Ice Lake", 0x6A: "Ice Lake-X", 0x6C: "Ice Lake-D", 0x8C: "Tiger Lake",
    0x8D: "Tiger Lake", 0xA7: "Rocket Lake", 0x97: "Alder Lake", 0x9A: "Alder Lake", 0xB7: "Raptor Lake",
    0xBA: "Raptor Lake", 0xBF: "Raptor Lake", 0x8F: "Sapphire Rapids", 0xCF: "Emerald Rapids",
    0xAD: "Granite Rapids", 0xAE: "Granite Rapids-D", 0xAA: "Meteor Lake", 0xAC: "Meteor Lake",
    0xBD: "Lunar Lake", 0xC5: "Arrow Lake", 0xC6: "Arrow Lake", 0x5C: "Goldmont", 0x7A: "Goldmont Plus",
    0x86: "Tremont", 0x96: "Tremont", 0x9C: "Tremont",
}

# AMD Zen generations by family and model range, from Linux arch/x86/kernel/cpu/amd.c
# (bsp_init_amd's X86_FEATURE_ZEN1..ZEN5 cases, Linux 6.9).
AMD_ZEN = {
    0x17: ((0x00, 0x2F, "Zen / Zen+"), (0x50, 0x5F, "Zen / Zen+"), (0x30, 0x4F, "Zen 2"),
           (0x60, 0x7F, "Zen 2"), (0x90, 0x91, "Zen 2"), (0xA0, 0xAF, "Zen 2")),
    0x19: ((0x00, 0x0F, "Zen 3"), (0x20, 0x5F, "Zen 3"), (0x10, 0x1F, "Zen 4"), (0x60, 0xAF, "Zen 4")),
    0x1A: ((0x00, 0x2F, "Zen 5"), (0x40, 0x4F, "Zen 5"), (0x60, 0x7F, "Zen 5")),
}


def microarchitecture(cpu: dict[str, Any]) -> str:
    """The microarchitecture of a stored context's CPU (context.cpu_info: free-form JSON), or
    its family and model numbers where the tables above do not name it."""
    try:
        family, model = int(cpu["family"]), int(cpu["model_number"])
    except (KeyError, TypeError, ValueError):
        return "not recorded"
    vendor = cpu.get("vendor") or ""
    if vendor == "GenuineIntel" and family == 6 and model in INTEL_FAMILY6:
        return INTEL_FAMILY6[model]
    for lo, hi, name in AMD_ZEN.get(family, ()) if vendor == "AuthenticAMD" else ():
        if lo <= model <= hi:
            return name
    return f"{vendor or 'unknown vendor'} family {family:#x} model {model:#x}"


def host_runs(data: ReportData) -> dict[str, Run]:
    """Host -> its latest complete run among the report's runs."""
    out: dict[str, Run] = {}
    for r in data.runs:
        host = r.meta.host or r.context.get("host")
        if host and r.meta.status == RunStatus.COMPLETE:
            if host not in out or out[host].id < r.id:
                out[host] = r
    return dict(sorted(out.items()))


def _clock(run: Run) -> str:
    ghz = [m.core_ghz for m in run.measurements if m.core_ghz]
    return f"{statistics.median(ghz):.2f} GHz" if ghz else "not measured"


def _libraries(run: Run) -> str:
    used = {m.impl for m in run.measurements if m.primitive != NULL_PRIMITIVE}
    return "; ".join(f"{i.impl} {i.version or '?'}" for i in run.implementations if i.impl in used)


def machines_table(hosts: dict[str, Run]) -> Table:
    t = Table("machines", "Machines", ["machine", "run", "CPU", "microarchitecture", "measured clock",
                                       "CPU flags", "system", "libraries"], align=["l"] * 8)
    for host, r in hosts.items():
        cpu = r.context.get("cpu") or {}
        t.add([host, str(r.id), f"{cpu.get('model', '–')} ({cpu.get('logical_cpus', '?')} logical CPUs)",
               microarchitecture(cpu), _clock(r), " ".join(cpu.get("flags") or []) or "–",
               f"{r.context.get('os', '–')}, kernel {r.context.get('kernel', '–')}", _libraries(r)])
    t.wrap = True
    t.notes = ["From each run's stored machine context. Measured clock: median of the core clock measured "
               "around the run's timed batches (a dependent-add chain), not the nominal frequency."]
    return t


def _bulk(run: Run) -> dict[tuple[str, str], dict[int, Measurement]]:
    """(impl, primitive) -> size -> the bulk encryption or hash measurement with cycles."""
    out: dict[tuple[str, str], dict[int, Measurement]] = {}
    for m in run.measurements:
        if is_bulk_speed(m) and m.cycles_per_byte and m.primitive != NULL_PRIMITIVE:
            out.setdefault((m.impl, m.primitive), {})[m.size] = m
    return out


def points_per_host(hosts: dict[str, Run]) -> dict[PairKey, dict[str, Measurement]]:
    """(impl, primitive) -> host -> its bulk point with cycles at the largest size every host
    measured. Pairs measured on one host only are left out."""
    per_host = {h: _bulk(r) for h, r in hosts.items()}
    out: dict[PairKey, dict[str, Measurement]] = {}
    for k in sorted({k for b in per_host.values() for k in b}):
        having = {h: b[k] for h, b in per_host.items() if k in b}
        common = set.intersection(*[set(s) for s in having.values()])
        if len(having) >= 2 and common:
            out[k] = {h: s[max(common)] for h, s in having.items()}
    return out


def cycles_per_byte(hosts: dict[str, Run]) -> tuple[CyclesByHost, dict[PairKey, int]]:
    """(impl, primitive) -> host -> cycles/byte at the largest size every host measured,
    and (impl, primitive) -> that size. Pairs measured on one host only are left out."""
    points = points_per_host(hosts)
    values: CyclesByHost = {k: {h: m.cycles_per_byte or 0.0 for h, m in per.items()}  # _bulk: all have one
                            for k, per in points.items()}
    return values, {k: next(iter(per.values())).size for k, per in points.items()}


def cycles_table(hosts: dict[str, Run], values: CyclesByHost, sizes: dict[PairKey, int]) -> Table:
    names = list(hosts)
    t = Table("machines-cycles", "Cycles per byte on each machine",
              ["implementation", "primitive", "size"] + names + ["slowest / fastest"],
              align=["l", "l", "r"] + ["r"] * (len(names) + 1))
    ms = []
    for (impl, prim), per in values.items():
        ratio = max(per.values()) / min(per.values()) if min(per.values()) > 0 else None
        t.add([impl, prim, size_text(sizes[(impl, prim)])] + [num(per.get(h)) for h in names]
              + [f"{ratio:.2f}×" if ratio else "–"])
        ms += [m for r in hosts.values() for m in r.measurements
               if (m.impl, m.primitive, m.size) == (impl, prim, sizes[(impl, prim)])]
    t.notes = ["Unit: cycles per byte at the figure (the tenth quantile), bulk encryption (or hashing) at the largest size every "
               "machine measured; – = not measured on that machine. Cycles compare across clock speeds, "
               "MB/s do not.", f"Cycle source: {cycle_sources(ms) if ms else '–'}."]
    return t


def robustness(values: CyclesByHost) -> tuple[str | None, list[tuple[str, str, dict[str, float], float]]]:
    """(reference primitive, [(impl, primitive, host -> normalised c/B, spread)]) ranked
    most robust first. normalised = c/B / c/B of the reference, same implementation and
    machine; spread = largest over smallest normalised value, minus one."""
    impls = {i for i, _ in values}
    ref = next((p for p in REFERENCE_PRIMITIVES if any((i, p) in values for i in impls)), None)
    if ref is None:
        return None, []
    rows = []
    for (impl, prim), per in values.items():
        base = values.get((impl, ref))
        if prim == ref or not base:
            continue
        norm = {h: c / base[h] for h, c in per.items() if base.get(h)}
        if len(norm) >= 2 and min(norm.values()) > 0:
            rows.append((impl, prim, norm, max(norm.values()) / min(norm.values()) - 1))
    return ref, sorted(rows, key=lambda r: (r[3], r[0], r[1]))


def robustness_table(hosts: dict[str, Run], values: CyclesByHost) -> Table:
    ref, rows = robustness(values)
    names = list(hosts)
    t = Table("machines-robustness", f"Robustness across machines (normalised by {md(ref or 'no reference')})",
              ["rank", "implementation", "primitive"] + names + ["spread"],
              align=["r", "l", "l"] + ["r"] * (len(names) + 1))
    for n, (impl, prim, norm, spread) in enumerate(rows, 1):
        t.add([str(n), impl, prim] + [num(norm.get(h)) for h in names] + [f"{100 * spread:.1f}%"])
    t.notes = [f"Each primitive's cycles per byte divided by {md(ref)}'s, same implementation and machine; spread "
               "= largest over smallest of those ratios across machines, minus one. Rank 1 is the most "
               "robust (its cost relative to the reference changes least from CPU to CPU), the last the "
               "most fragile: Bingmann 2008's ranking (CAST5 most robust, Serpent most fragile) redone."]
    if not rows:
        t.notes.append("No primitive besides the reference was measured on two or more machines by an "
                       "implementation that also measured the reference: nothing to rank.")
    return t


def tables(data: ReportData) -> list[Table]:
    """The section's tables, or none when the report's runs come from fewer than two hosts."""
    hosts = host_runs(data)
    if len(hosts) < 2:
        return []
    values, sizes = cycles_per_byte(hosts)
    return [machines_table(hosts), cycles_table(hosts, values, sizes), robustness_table(hosts, values)]


def add_to_page(page: HtmlPage) -> None:
    """The section in the HTML report (html.Page), when there is one."""
    ts = tables(page.data)
    if ts:
        page.section("machines", "Machines side by side")
        for t in ts:
            page.table(t)
