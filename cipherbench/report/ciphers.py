"""The tables of the ciphers themselves, as the 1999 AES-candidate studies drew them: key
setup and cycles per block (Gladman), security margins and the cost of the minimum secure
rounds (Biham), diffusion and avalanche (Gladman; Webster and Tavares)."""
from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING

from cipherbench.kinds import Operation, PrimitiveKind, Verdict, Workload
from cipherbench.registry import Primitive
from cipherbench.report.tables import (
    STATUS_TEXT,
    Cell,
    Pair,
    RowMark,
    Table,
    clock_text,
    cycle_sources,
    mark_of,
    num,
    verification_note,
)
from cipherbench.results.rules import size_text
from cipherbench.results.run import Measurement, ReportData, Run, primitive, usable

if TYPE_CHECKING:
    from cipherbench.analysis.diffusion import Summary


# ---------------------------------------------------------------------------- Gladman
def _pick(ms: list[Measurement], prefer_workload: Workload = Workload.BULK) -> Measurement | None:
    ms = [m for m in ms if usable(m)]
    if not ms:
        return None
    pref = [m for m in ms if m.workload == prefer_workload] or ms
    return max(pref, key=lambda m: m.size)


#: Gladman's figures of one primitive: the points of each key schedule and direction
#: (Operation's values as keys) and cycles per block ("encrypt_cpb", "decrypt_cpb").
GladmanFigures = dict[str, Measurement | float]


def figure_point(f: GladmanFigures, key: str) -> Measurement | None:
    v = f.get(key)
    return v if isinstance(v, Measurement) else None


def figure_cpb(f: GladmanFigures, key: str) -> float | None:
    v = f.get(key)
    return v if isinstance(v, float) else None


def gladman_figures(run: Run, prim_name: str, impl: str) -> GladmanFigures:
    """Cycles for key setup (enc, dec schedule), cycles per block (enc, dec) and the
    block size used, for one primitive of one implementation."""
    p = primitive(prim_name)
    ms = [m for m in run.measurements if m.impl == impl and m.primitive == prim_name]
    out: GladmanFigures = {}
    for op in (Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT):
        m = _pick([m for m in ms if m.operation == op])
        if m:
            out[op] = m
    for op in (Operation.ENCRYPT, Operation.DECRYPT):
        m = _pick([m for m in ms if m.operation == op and m.workload == Workload.BULK and m.size > 0])
        if m and m.cycles_per_byte and p and p.block_bytes:
            out[op] = m
            out[op + "_cpb"] = m.cycles_per_byte * p.block_bytes
    return out


def keysetup_text(f: GladmanFigures) -> str:
    a, b = (getattr(figure_point(f, op), "cycles_per_call", None) for op in (Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT))
    if a and b:
        return f"{a:,.0f}:{b:,.0f}"
    if a or b:
        return f"{(a or b):,.0f}" + ("" if a else " (dec)")
    return "–"


def mbit_at_clock(f: GladmanFigures, block_bytes: int) -> tuple[float | None, float | None]:
    """Gladman's mean speed: block bits × clock / mean cycles per block (enc, dec)."""
    cpbs = [v for k in ("encrypt_cpb", "decrypt_cpb") if (v := figure_cpb(f, k)) is not None]
    ghz = next((m.core_ghz for k in (Operation.ENCRYPT, Operation.DECRYPT)
                if (m := figure_point(f, k)) is not None and m.core_ghz), None)
    if not cpbs or not ghz:
        return None, ghz
    return block_bytes * 8 * ghz * 1e3 / statistics.mean(cpbs), ghz


def gladman_table(data: ReportData) -> Table | None:
    groups: dict[tuple[int, str, str, str | None], dict[int, str]] = {}
    for run, m in data.measurements():
        p = primitive(m.primitive)
        if p is None or p.kind != PrimitiveKind.CIPHER or m.operation not in (
                Operation.ENCRYPT, Operation.DECRYPT, Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT):
            continue
        groups.setdefault((run.id, m.impl, p.family, p.mode), {})[p.key_bits] = p.name
    if not groups:
        return None
    keys = sorted({kb for g in groups.values() for kb in g})
    run_of = {r.id: r for r in data.runs}
    cols = (["implementation", "cipher", "mode"] + [f"key setup {k}" for k in keys]
            + [f"encrypt {k}" for k in keys] + [f"decrypt {k}" for k in keys]
            + ["Mbit/s at clock (key)", "block sizes timed", "verified"])
    t = Table("gladman", "Key setup and cycles per block, as Gladman tabulated the AES candidates", cols,
              align=["l", "l", "l"] + ["r"] * (3 * len(keys) + 1) + ["l", "l"])
    used: list[Measurement] = []
    pairs: list[Pair] = []
    clocks: set[float] = set()
    for key in sorted(groups, key=lambda k: (k[0], k[2], k[1], k[3] or "")):
        rid, impl, fam, mode = key
        run = run_of[rid]
        figs = {kb: gladman_figures(run, name, impl) for kb, name in groups[key].items()}
        p0 = primitive(next(iter(groups[key].values())))
        cells: list[Cell] = [data.series_name(run, impl), fam, mode or ""]
        cells += [keysetup_text(figs[k]) if k in figs else "" for k in keys]
        for op in ("encrypt_cpb", "decrypt_cpb"):
            cells += [num(figure_cpb(figs[k], op), 4) if k in figs and op in figs[k] else ("–" if k in figs else "")
                      for k in keys]
        kb0 = min(figs)
        mbit, ghz = mbit_at_clock(figs[kb0], p0.block_bytes if p0 else 0)
        if ghz:
            clocks.add(round(ghz, 3))
        cells.append(f"{num(mbit)} ({kb0})" if mbit else "–")
        bsz = sorted({pt.size for f in figs.values() for op in (Operation.ENCRYPT, Operation.DECRYPT)
                      if (pt := figure_point(f, op)) is not None})
        cells.append(", ".join(size_text(s) for s in bsz) or "–")
        sts = {run.verification(impl, n) for n in groups[key].values()}
        st = Verdict.of_all(sts)
        cells.append(STATUS_TEXT[st])
        t.add(cells, mark_of(st))
        for _kb, name in groups[key].items():
            pairs.append((run, impl, name))
            used += [m for m in run.measurements if m.impl == impl and m.primitive == name]
    t.notes = [
        "Units: key setup in cycles per key schedule (a:b = encryption:decryption schedule, each timed "
        "on its own); encrypt/decrypt in cycles per block = cycles/byte × block bytes, at the largest "
        "bulk size timed (column 'block sizes timed'), through the mode named (Gladman timed bare blocks: "
        "ECB is the closest); Mbit/s = block bits × core clock / mean of the encrypt and decrypt cycles "
        "per block, for the smallest key size.",
        f"Cycle source: {cycle_sources(used)}; core clock: {clock_text(sorted(clocks))}.",
        verification_note(data, pairs)]
    return t



# ---------------------------------------------------------------------------- security margins
def _cycles_per_block(run: Run, impl: str, prim: str,
                      block_bytes: int | None) -> tuple[float | None, list[Measurement]]:
    """Mean of encrypt and decrypt cycles per block (Gladman's basis) where both were timed,
    else encryption alone; bulk, at the largest size."""
    p = primitive(prim)
    bb = block_bytes or (p.block_bytes if p else 0)
    ms = [m for m in run.measurements if m.impl == impl and m.primitive == prim and usable(m)
          and m.workload == Workload.BULK and m.size > 0 and m.cycles_per_byte]
    picked = [m for op in (Operation.ENCRYPT, Operation.DECRYPT)
              if (m := _pick([x for x in ms if x.operation == op])) is not None and m.cycles_per_byte]
    if not picked or not bb:
        return None, []
    return statistics.mean(m.cycles_per_byte or 0.0 for m in picked) * bb, picked


def security_value(run: Run, impl: str, prim: str, quantity: str) -> tuple[float | str | None, list[Measurement]]:
    """min_secure_rounds, min_secure_cycles or attack_rounds of one primitive (margins.py)."""
    from cipherbench.analysis import margins
    p = primitive(prim)
    mg = margins.load().get(p.family) if p else None
    # Figures from the data file belong to a row only where this implementation measured the primitive.
    if p is None or mg is None or not any(m.impl == impl and m.primitive == prim and usable(m) for m in run.measurements):
        return None, []
    if quantity == "attack_rounds":
        a = mg.attack(p.key_bits)
        return (a.text() + margins.unchecked(a.status), []) if a else (None, [])
    ms = mg.min_secure
    if ms is None or ms.key_bits != p.key_bits:
        return None, []
    if quantity == "min_secure_rounds":
        return f"{ms.rounds} of {ms.of}{margins.unchecked(ms.status)}", []
    cpb, used = _cycles_per_block(run, impl, prim, mg.block_bytes)
    return (cpb * ms.ratio, used) if cpb else (None, [])


def _family_rows(data: ReportData, want: Callable[[Primitive], bool]) -> list[Pair]:
    """(run, impl, primitive) per implementation and cipher family accepted by `want`:
    the smallest key size measured, ECB preferred (the bare block cipher)."""
    best: dict[tuple[int, str, str], str] = {}
    for run, m in data.measurements():
        p = primitive(m.primitive)
        if p is None or not usable(m) or not want(p):
            continue
        key = (run.id, m.impl, p.family)
        cur = primitive(best[key]) if key in best else None
        rank = (p.key_bits, p.mode != "ecb", p.name)
        if cur is None or rank < (cur.key_bits, cur.mode != "ecb", cur.name):
            best[key] = p.name
    run_of = {r.id: r for r in data.runs}
    return [(run_of[k[0]], k[1], v) for k, v in sorted(best.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1]))]


def security_table(data: ReportData) -> Table | None:
    from cipherbench.analysis import margins
    known = margins.load()
    rows = _family_rows(data, lambda p: p.family in known and p.kind in (PrimitiveKind.CIPHER, PrimitiveKind.STREAM))
    if not rows:
        return None
    t = Table("security", "Security margin: rounds, the best published attack, and the cost of the minimum "
                          "secure rounds",
              ["implementation", "primitive", "rounds", "best attack today (rounds)", "margin",
               "min secure rounds (Biham 1999)", "cycles per block", "cycles per round", "min secure cycles",
               "verified"],
              align=["l", "l", "r", "r", "r", "r", "r", "r", "r", "l"])
    refs: dict[str, str] = {}
    pairs: list[Pair] = []
    used: list[Measurement] = []
    for run, impl, prim in rows:
        p = primitive(prim)
        if p is None:  # _family_rows holds registry names only
            continue
        mg = known[p.family]
        a = mg.attack(p.key_bits)
        ms = mg.min_secure if mg.min_secure and mg.min_secure.key_bits == p.key_bits else None
        cpb, ms_used = _cycles_per_block(run, impl, prim, mg.block_bytes)
        used += ms_used
        st = run.verification(impl, prim)
        pairs.append((run, impl, prim))
        t.add([data.series_name(run, impl), prim, str(p.rounds or "–"),
               (a.text() + margins.unchecked(a.status)) if a else "–",
               f"{100 * a.margin:.0f}%" if a else "–",
               f"{ms.rounds} of {ms.of}{margins.unchecked(ms.status)}" if ms else "–",
               num(cpb, 4), num(cpb / p.rounds, 3) if cpb and p.rounds else "–",
               num(cpb * ms.ratio, 4) if cpb and ms else "–", STATUS_TEXT.get(st, st)], mark_of(st))
        if a:
            refs[f"{mg.title} ({p.key_bits}-bit key), {a.text()}"] = f"{a.kind}. {a.reference}{margins.unchecked(a.status)}"
    t.notes = [
        "Rounds: the full cipher's (registry/primitives.toml). Best attack: rounds reached by the best published "
        "attack for that key size, of the full count; margin = 1 − attacked/full, a rough indicator only "
        "(attacks differ in cost, data and model: each is described below). \"(unchecked)\": the value is the "
        "widely quoted one with its primary citation, not yet checked against the source.",
        "Min secure rounds: " + margins.min_secure_citation() + "; for 128-bit keys, as rounds of the "
        "cipher as submitted. Cycles per block: mean of encryption and decryption (encryption alone where "
        "decryption was not timed), bulk, largest size, × block bytes (the keystream block for stream ciphers); "
        "cycles per round = cycles per block / full rounds; min secure cycles = cycles per block × min secure "
        "rounds / rounds as submitted (Gladman 1999: the speed of the minimal secure variant).",
        f"Cycle source: {cycle_sources(used)}.",
        *[f"{k}: {v}." for k, v in refs.items()],
        verification_note(data, pairs)]
    return t


# ---------------------------------------------------------------------------- diffusion
def diffusion_summary(run: Run, impl: str, prim: str) -> Summary | None:
    from cipherbench.analysis import diffusion
    rows = [d for d in run.diffusion if d.impl == impl and d.primitive == prim]
    return diffusion.summary(rows) if rows else None


def _verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("consistent" if ok else "departs")


def diffusion_tables(data: ReportData) -> list[Table]:
    from cipherbench.analysis import diffusion
    keys: list[Pair] = []
    for run in data.runs:
        for d in run.diffusion:
            if (run, d.impl, d.primitive) not in keys:
                keys.append((run, d.impl, d.primitive))
    if not keys:
        return []
    s = Table("diffusion", "Diffusion (Gladman 1999) and avalanche of the full cipher",
              ["implementation", "primitive", "full rounds", "diffusion 1 round", "diffusion 2 rounds",
               "overall diffusion", "rounds to full diffusion", "full cipher: bits changed", "SAC", "BIC",
               "samples"], align=["l", "l", "r", "r", "r", "r", "r", "r", "l", "l", "r"])
    detail = Table("diffusion-rounds", "Diffusion round by round",
                   ["implementation", "primitive", "rounds", "bits changed (mean)", "per input bit (min–max)",
                    "per output bit (min–max)", "every output bit depends on every input bit",
                    "SAC max |P − ½|", "SAC p", "BIC max |r|", "BIC p"],
                   align=["l", "l", "r", "r", "r", "r", "l", "r", "r", "r", "r"])
    pairs: list[Pair] = []
    units: dict[str, str] = {}
    for run, impl, prim in keys:
        rows = [d for d in run.diffusion if d.impl == impl and d.primitive == prim]
        sm = diffusion.summary(rows)
        st = run.verification(impl, prim)
        pairs.append((run, impl, prim))
        full = sm.full
        if sm.unit:
            units[pd.family if (pd := primitive(prim)) else prim] = sm.unit
        s.add([data.series_name(run, impl), prim, str(sm.full_rounds or "–"), num(sm.d1), num(sm.d2),
               num(sm.overall), str(sm.full_diffusion_rounds or ("–" if not sm.reduced_measured
                                                                        else "not reached")),
               f"{num(full.mean_bits)} of {full.block_bits}" if full else "–",
               _verdict(sm.sac), _verdict(sm.bic), str((full.samples if full else None) or rows[0].samples or "–")],
              mark_of(st))
        for d in sorted(rows, key=lambda d: (d.rounds is None, d.rounds or 0)):
            if d.error:
                detail.add([data.series_name(run, impl), prim, str(d.rounds or "full"), f"not measured: {d.error}"]
                           + [""] * 7, RowMark.FAILED)
                continue
            bic = "–" if d.bic_max_corr is None else num(d.bic_max_corr)
            detail.add([data.series_name(run, impl), prim,
                        str(d.rounds) if d.rounds is not None else f"full ({d.full_rounds or '?'})",
                        num(d.mean_bits), f"{num(d.input_min)}–{num(d.input_max)}",
                        f"{num(d.output_min)}–{num(d.output_max)}",
                        "yes" if d.complete else f"no ({d.dependent_pairs} of {(d.block_bits or 0) ** 2} pairs)",
                        num(d.sac_max_dev), f"{d.sac_p:.3g}", bic,
                        "–" if d.bic_p is None else f"{d.bic_p:.3g}"], mark_of(st))
    method = ("Method (cipherbench/diffusion.py): random keys and blocks (seeded), each input bit flipped in turn, "
              "ECB encryption through the runner; bits changed = output bits that differ, averaged over input bits "
              "and samples (an ideal cipher: half the block). Diffusion r rounds = that figure for the "
              "implementation's reduced-round cipher (protocol field `rounds`, in its unit). Overall diffusion = "
              "full rounds × max(1-round, 2-round / 2), which reproduces Gladman's published row within its "
              "rounding. Rounds to full diffusion: the fewest rounds after which every output bit was seen to "
              "change for every input bit.")
    s.notes = [method,
               "Unlike Gladman's bare round function, r rounds here include what the cipher always applies "
               "(whitening, E2's IT/FT), and Rijndael's and Serpent's last round omits the linear layer as in "
               "the full cipher, so their figures trail his by about one round.",
               f"SAC and BIC (Webster and Tavares, CRYPTO '85) of the full cipher: \"consistent\" when the "
               f"p-values (chi-square over all bit pairs and Bonferroni on the worst pair for the SAC; Bonferroni "
               f"on the largest correlation for the BIC) are at least {diffusion.ALPHA}.",
               "Round units: " + ("; ".join(f"{k}: {v}" for k, v in units.items()) or "–") + ".",
               verification_note(data, pairs)]
    detail.notes = ["Per input bit: the mean number of output bits its flip changes (min and max over input "
                    "bits); per output bit: the mean number of input bits whose flip changes it. SAC max |P − ½|: "
                    "the largest departure of a change probability from ½; p-values as in the table above."]
    return [s, detail]
