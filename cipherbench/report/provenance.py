"""How the report's figures came to be: each run's machine and method, the implementations
that took part, their verification before timing, and the measurements' warnings."""
from __future__ import annotations

from typing import Any

from cipherbench import axes
from cipherbench.analysis.condition import condition, repeat
from cipherbench.axes.foreign_cpus import VerifiedOn
from cipherbench.kat.outcome import AROUND, stored_difference
from cipherbench.kinds import CycleSource, Verdict
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.report.tables import (
    STATUS_TEXT,
    RowMark,
    Table,
    clock_text,
    mark_of,
)
from cipherbench.results.rules import size_text
from cipherbench.results.run import ReportData, Run, load_run
from cipherbench.variant import VariantAxis, apart


def verification_table(data: ReportData) -> Table:
    t = Table("verification", "Verification before timing",
              ["implementation", "primitive", "status", "checks run", "failures"],
              align=["l", "l", "l", "l", "r"])
    seen = set()
    for run in data.runs:
        for v in run.verifications:
            checks = v.checks or {}
            desc = ", ".join(f"{k} {n}" for k, n in checks.items() if isinstance(n, (int, float)))
            t.add([data.series_name(run, v.impl), v.primitive, STATUS_TEXT.get(v.status, v.status),
                   desc, str(len(v.failures or []))], mark_of(v.status))
            seen.add((run.id, v.impl, v.primitive))
        for m in run.measurements:
            k = (run.id, m.impl, m.primitive)
            if k not in seen and m.primitive != NULL_PRIMITIVE:
                seen.add(k)
                t.add([data.series_name(run, m.impl), m.primitive, STATUS_TEXT[Verdict.UNVERIFIED],
                       "none (the run was made with --no-verify)", "0"], RowMark.UNVERIFIED)
    t.notes = ["kat = known answers from every corpus, roundtrip = decrypt(encrypt(x)) = x over many "
               "lengths, differential = byte-for-byte agreement with the other implementations, "
               "forgery = AEAD rejection of altered tag, ciphertext and associated data. A failed pair "
               "is stored with a minimal reproduction and not timed."]
    return t


def verified_on_table(data: ReportData) -> Table:
    """Per implementation of each run, the CPUs it was verified on: the run's host (its own
    verification before timing), then every other architecture's last `arch verify`."""
    t = Table("verified-on", "Verified on", ["implementation", "verified on", "failed on other CPUs"],
              align=["l"] * 3)
    cpus = axes.architectures()
    others = cpus.verified_elsewhere()
    for run in data.runs:
        for impl in _verified_impls(run):
            base, arch = apart(impl, VariantAxis.ARCHITECTURE)
            own = VerifiedOn(arch or run_arch(run), cpus.tally(
                v.status for v in run.verifications if v.impl == impl))
            on = [own, *(v for v in others.get(base, []) if v.arch != own.arch)]
            mark = (RowMark.FAILED if any(v.counts.failed for v in on) else
                    RowMark.NONE if any(v.counts.passed for v in on) else RowMark.UNVERIFIED)
            t.add([data.series_name(run, impl), ", ".join(str(v) for v in on),
                   "; ".join(x for v in on[1:] for x in v.counts.failures) or "–"], mark)
    t.wrap = True
    t.notes = ["The run's host (its CPU architecture as the run recorded it) by the run's verification before "
               "timing; every other architecture by its last `cipherbench arch verify` on the machine that wrote "
               "this report (an engine cross-built for that CPU and run under qemu-user: verified, never timed). "
               "A failure is named with its count of pairs; \"(unverified)\": no known answer of its own ran."]
    return t


def run_arch(run: Run) -> str:
    """The Debian name of the run's CPU architecture (amd64), from its context's `machine`."""
    machine = run.context.get("machine")
    return axes.architectures().debian_name(machine) if isinstance(machine, str) and machine else "host (architecture not recorded)"


def _verified_impls(run: Run) -> list[str]:
    """The run's implementations of anything but the harness baseline, in stored order."""
    names = [v.impl for v in run.verifications if v.primitive != NULL_PRIMITIVE]
    names += [m.impl for m in run.measurements if m.primitive != NULL_PRIMITIVE]
    return list(dict.fromkeys(names))


#: A stored value shown whole up to this many characters (a runner's error, "rejection")
TEXT_CHARS = 60


def differences_table(data: ReportData) -> Table | None:
    """Each stored failure of a failed pair (the first few per pair, as the gate keeps them):
    the vector, the offset where the output first parts from the known answer, and the bytes
    around it, both ways (kat/outcome.py, stored_difference); None when nothing failed."""
    t = Table("differences", "Failed pairs: where the output parts from the known answer",
              ["implementation", "primitive", "check", "vector", "first difference", "expected", "got"],
              align=["l"] * 7)
    for run in data.runs:
        for v in run.verifications:
            for f in v.failures or []:
                t.add([data.series_name(run, v.impl), v.primitive, str(f.get("check", "")), _vector(f),
                       *_difference_cells(f)], RowMark.FAILED)
    if not t.rows:
        return None
    t.wrap = True
    t.notes = [f"The byte in brackets is the first that differs, with up to {AROUND} bytes either side "
               "(… where the output goes on; [] where it ends there). Each failure's key, IV and input are in "
               "`results.json` (`verifications`), and `cipherbench verify --impl IMPL --primitive PRIMITIVE "
               "--reverify` prints them again."]
    return t


def _vector(f: dict[str, Any]) -> str:
    """'aes-sp800-38a.vec:26 (cipherbench)': the known answer's place and corpus; '–' for checks
    without one (round trips, cross-implementation agreement)."""
    if not f.get("vector"):
        return "–"
    return f"{f['vector']} ({f['corpus']})" if f.get("corpus") else str(f["vector"])


def _difference_cells(f: dict[str, Any]) -> list[str]:
    """first difference, expected, got: from the stored bytes, else the stored text as it is."""
    d = stored_difference(f.get("expected"), f.get("actual"))
    if d is None:
        return ["–", *(_text(f.get(k)) for k in ("expected", "actual"))]
    first = f"byte {d.offset} of {d.expected_len}" + ("" if d.actual_len == d.expected_len else
                                                      f" (got {d.actual_len} bytes)")
    return [first, d.expected_window, d.actual_window]


def _text(value: object) -> str:
    text = "–" if value in (None, "") else str(value)
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 1] + "…"



# ---------------------------------------------------------------------------- context
def context_items(run: Run, data: ReportData | None = None) -> list[tuple[str, str]]:
    """The run's machine and method, and the condition it was measured in (with how it repeats
    the run before it of the same plan, where `data`'s store holds one)."""
    c = run.context or {}
    cpu = c.get("cpu") or {}
    power = c.get("power") or {}
    st = run.meta.settings or {}
    clocks = ((c.get("runners") or {}).get("native") or {}).get("clocks") or {}
    ghz = sorted({round(m.core_ghz, 3) for m in run.measurements if m.core_ghz})
    per_batch = any(m.cycle_kind == CycleSource.BATCH_CLOCK for m in run.measurements)
    items = [
        ("run", f"{run.id} ({run.uuid}), profile {run.profile or '–'}, {run.meta.status}"),
        ("when", f"{run.meta.started_at} to {run.meta.finished_at or '–'}"),
        ("host", f"{run.meta.host or c.get('host') or '–'}"),
        ("CPU", f"{cpu.get('model', '–')}, {cpu.get('logical_cpus', '?')} logical CPUs, "
                f"nominal {cpu.get('nominal_mhz') or '?'} MHz; measured on CPU {c.get('measuring_cpu', '?')}"),
        ("CPU flags", " ".join(cpu.get("flags") or []) or "–"),
        ("power", f"governor {power.get('governor') or 'not exposed'}, boost {power.get('boost') or 'not exposed'}, "
                  f"SMT active {power.get('smt_active') or '?'}"),
        ("system", f"{c.get('os', '–')}, kernel {c.get('kernel', '–')}, Python {c.get('python', '–')}"),
        ("cipherbench", f"{run.meta.cipherbench_version or '–'} at {run.meta.git_revision or '–'}"),
        ("runners", "; ".join(f"{name}: {_runtime(r)}" for name, r in (c.get("runners") or {}).items()) or "–"),
        ("clocks", "; ".join(f"{k}: {v}" for k, v in clocks.items() if v) or "–"),
        ("core clock", (clock_text(ghz) + (" (dependent-add chain between timed batches; per point, the "
                                           "median of its batches' clocks)" if per_batch else
                                           " (dependent-add chain before and after)"))
                       if ghz else "not measured"),
        ("how measured", f"sizes {st.get('sizes')}, operations {st.get('operations')}, workloads "
                         f"{st.get('workloads')}; each point calibrated to batches of about "
                         f"{st.get('batch_ms')} ms, {st.get('warmup_batches')} warm-up and "
                         f"{st.get('batches')} timed requests of {st.get('sub_batches') or 1} batches, interleaved "
                         f"in random order; figure = {figure_words(run)}, interval = its order-statistics "
                         "confidence interval; "
                         f"{'verified before timing' if st.get('verify', True) else 'NOT verified (--no-verify)'}"),
        ("command", run.meta.command or "–"),
        ("condition", condition(run).words()),
    ]
    earlier = data.store.earlier_run(run.id) if data is not None and data.store is not None else None
    if earlier is not None:
        assert data is not None and data.store is not None
        items.append(("repeats", repeat(run, load_run(data.store, earlier, with_samples=False)).words()))
    return items


def figure_words(run: Run) -> str:
    """What a point's figure is, as the run stored it (older runs: the median)."""
    q = next((m.quantile for m in run.measurements if m.quantile is not None), None)
    if q is None or q == 0.5:
        return "median per call"
    return f"the {q:.0%} quantile of the batches' time per call (at the run's clock, in cycles where each batch has them)"


def libraries_table(data: ReportData) -> Table:
    t = Table("libraries", "Implementations and library versions",
              ["implementation", "runner", "library", "version", "status", "built with"],
              align=["l"] * 6)
    for run in data.runs:
        used = {m.impl for m in run.measurements}
        for i in run.implementations:
            if i.impl not in used and i.available:
                continue
            notes = i.notes or {}
            built = notes.get("built_with", "") if isinstance(notes, dict) else ""
            t.add([data.series_name(run, i.impl), i.runner or "", i.library or "",
                   i.version or "", "available" if i.available else f"unavailable: {i.reason}",
                   "; ".join(x for x in (axes.environments().label(i.environment),
                                         (built[:120] + "…") if len(built) > 120 else built) if x)])
    t.wrap = True
    t.notes = ["Implementations that took part in the run (and those that were unavailable, with why)."]
    return t


def measurement_warnings(data: ReportData) -> list[str]:
    out = []
    for run, m in data.measurements():
        for w in m.warnings or []:
            out.append(f"{data.series_name(run, m.impl)} {m.primitive} {m.operation}/{m.workload} "
                       f"{size_text(m.size) if m.size else ''}: {w}".replace("  ", " "))
    return out


def _runtime(hello: dict[str, Any]) -> str:
    """'C# Mono 6.8', 'PHP 8.2' (not 'PHP PHP 8.2' when the runtime already names the language)."""
    lang, rt = hello.get("language") or "", hello.get("runtime") or ""
    return rt if lang and rt.lower().startswith(lang.lower()) else f"{lang} {rt}".strip()
