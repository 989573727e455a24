"""Compilers x flags (cipherbench/builds): seed 001's table and its conclusions, redone.

A variant's implementations are named `<library>@<compiler>:<flag set>` (cipherbench/variant.py)
and carry their build record in their notes (`build`: compiler, flags, compile CPU seconds, code size). The
baseline of each library is the ordinary build's implementation of the same name timed in
the same run (`reference`: gcc-12 -O2 as `make engine` builds it; `cryptopp`: the
distribution's archive). Speed is compared per call at the largest size the run measured,
in core cycles where both sides have them (the host moves the clock; cycles do not move
with it), else in nanoseconds. Seed 001 (Bingmann 2008) found Intel's compiler fastest,
MSVC 8 and gcc 4.1.2 about 16.5 % and 17.5 % behind, and gcc needing more than -O3.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cipherbench.kinds import Operation, Verdict
from cipherbench.report.markup import md
from cipherbench.report.tables import RowMark, Table
from cipherbench.results.run import Measurement, ReportData, Run, usable
from cipherbench.variant import Build, VariantAxis, try_parse

SEED = "Bingmann 2008"


@dataclass
class Cell:
    """One variant (or baseline) on one cipher."""

    per_call: float | None  # cycles or ns per call at the compared size; None: not timed
    status: Verdict | None  # the pair's verification; None: the run has no point of it
    point: Measurement | None = None  # the point per_call is of (its interval: report/verdict_axes.py)


@dataclass
class Library:
    """Everything one library's variants did in one run."""

    name: str  # "reference", "cryptopp"
    ciphers: list[str]
    baseline: dict[str, Cell] = field(default_factory=dict)  # primitive -> cell
    variants: dict[str, dict[str, Cell]] = field(default_factory=dict)  # label -> primitive -> cell
    # label -> build record (the implementation's notes: JSON as builds/make.py writes it)
    builds: dict[str, dict[str, Any]] = field(default_factory=dict)

    def speedup(self, label: str, prim: str) -> float | None:
        """Baseline time / variant time: above 1 is faster than the ordinary build."""
        v, b = self.variants.get(label, {}).get(prim), self.baseline.get(prim)
        if not v or not b or not v.per_call or not b.per_call or v.status != Verdict.PASSED:
            return None
        return b.per_call / v.per_call

    def geomean(self, label: str) -> float | None:
        return _geo(self.speedup(label, p) for p in self.ciphers)


def _compared(ms: list[Measurement]) -> Measurement | None:
    """The point of the largest size timed."""
    ms = [m for m in ms if usable(m) and m.size > 0 and m.operation == Operation.ENCRYPT]
    return max(ms, key=lambda m: m.size) if ms else None


def libraries(run: Run) -> list[Library]:
    """The run's variant libraries, or [] when it timed no variant."""
    labels: dict[str, dict[str, dict[str, Any]]] = {}
    named: dict[tuple[str, str], str] = {}  # (base, label) -> the variant's implementation
    for im in run.implementations:
        v = try_parse(im.impl)
        if v is None or v.build is None or "build" not in (im.notes or {}):
            continue
        base, label = str(v.without(VariantAxis.BUILD)), str(v.build)
        named[(base, label)] = im.impl
        try:
            labels.setdefault(base, {})[label] = json.loads(im.notes["build"])
        except ValueError:
            labels.setdefault(base, {})[label] = {}
    out = []
    for base, builds in sorted(labels.items()):
        names = {base} | {named[(base, lb)] for lb in builds}
        prims = sorted({m.primitive for m in run.measurements if m.impl in names})
        lib = Library(base, prims, builds=builds)
        for p in prims:
            lib.baseline[p] = _cell(run, base, p)
            for lb in builds:
                lib.variants.setdefault(lb, {})[p] = _cell(run, named[(base, lb)], p)
        out.append(lib)
    return out


def compiler_of(label: str) -> str:
    """`gcc-12:O3` -> `gcc-12`: the compiler of a variant's build label."""
    return Build.parse(label).compiler


def _cell(run: Run, impl: str, prim: str) -> Cell:
    ms = [m for m in run.measurements if m.impl == impl and m.primitive == prim]
    m = _compared(ms)  # its figure: cycles per call where known, else ns
    return Cell(m.cycles_per_call or m.ns_per_call if m else None, run.verification(impl, prim) if ms else None, m)


def _short(prim: str) -> str:
    return prim.rsplit("-", 1)[0] if prim.endswith("-ecb") else prim


def _geo(xs: Iterable[float | None]) -> float | None:
    """The geometric mean of the figures there are."""
    have = [x for x in xs if x]
    return math.exp(sum(map(math.log, have)) / len(have)) if have else None


def _cell_text(lib: Library, label: str, prim: str) -> str:
    c = lib.variants[label][prim]
    if c.status is None:
        return "–"
    if c.status == Verdict.FAILED:
        return "failed"
    s = lib.speedup(label, prim)
    return f"{s:.2f}" if s else ("not timed" if c.per_call is None else "no baseline")


def library_table(lib: Library) -> Table:
    """Seed 001's table: compiler x flags per cipher, relative to the ordinary build."""
    t = Table(f"builds-{lib.name}", f"Compilers x flags: {md(lib.name)}, speed relative to the ordinary build",
              ["build", "flags", *[_short(p) for p in lib.ciphers], "geomean", "compile CPU s", "cipher .text B"])
    t.align = ["l", "l"] + ["r"] * (len(lib.ciphers) + 3)
    t.wrap = True
    t.add(["ordinary build", "distribution's" if lib.name != "reference" else "gcc-12 -O2 (make engine)",
           *["1.00" if lib.baseline[p].per_call else "–" for p in lib.ciphers], "1.00", "", ""])
    for label in sorted(lib.variants):
        b = lib.builds.get(label, {})
        failed = any(c.status == Verdict.FAILED for c in lib.variants[label].values())
        flags = " ".join(b.get("flags", [])) + (" + PGO" if b.get("pgo") else "")
        t.add([label, flags, *[_cell_text(lib, label, p) for p in lib.ciphers], lib.geomean(label),
               b.get("cpu_seconds"), b.get("objects_text") or "LTO: in the link"],
              mark=RowMark.FAILED if failed else RowMark.NONE)
    t.notes.append("Baseline time / variant time at the largest size timed (core cycles where measured): above 1 "
                   "is faster than the ordinary build. 'failed': the variant failed a known answer and was not "
                   "timed (SUPERCOP's rule). Compile CPU s: user + system time of the variant's whole engine build "
                   "(PGO: both builds, training excluded); cipher .text B: the variant's cipher objects "
                   "(reference ciphers and its own Crypto++ units).")
    if lib.name == "reference":
        t.notes.append("The ordinary build links the reference ciphers wherever the engine's other code puts "
                       "them; the variants place each cipher object on a 64-byte line. Where a variant with the "
                       "ordinary build's compiler and flags (gcc-12:O2) differs from 1.00, that is placement "
                       "and noise, not the compiler.")
    return t


def best_table(libs: list[Library]) -> Table:
    t = Table("builds-best", "Best correct build per cipher, and the spread across builds",
              ["library", "cipher", "best build", "vs ordinary", "worst build", "best / worst",
               "best / worst without -O0", "-O3 / best"])
    t.align = ["l", "l", "l", "r", "l", "r", "r", "r"]
    for lib in libs:
        for p in lib.ciphers:
            sp = speedups(lib, p)
            if not sp:
                continue
            best, worst = max(sp, key=lambda lb: sp[lb]), min(sp, key=lambda lb: sp[lb])
            no0 = {lb: s for lb, s in sp.items() if not _is_o0(lib, lb)}
            o3 = sp.get(str(Build(compiler_of(best), "O3")))
            t.add([lib.name, p, best, sp[best], worst, sp[best] / sp[worst],
                   (max(no0.values()) / min(no0.values())) if no0 else None, (o3 / sp[best]) if o3 else None])
    return t


def speedups(lib: Library, prim: str) -> dict[str, float]:
    """Each variant's speed-up on the cipher, where it has one."""
    return {lb: s for lb in lib.variants if (s := lib.speedup(lb, prim))}


def _is_o0(lib: Library, label: str) -> bool:
    return "-O0" in lib.builds.get(label, {}).get("flags", [])


def _special(lib: Library, label: str) -> bool:
    """-march=native or PGO: the options whose effect on the ranking seed 001's question asks."""
    b = lib.builds.get(label, {})
    return "-march=native" in b.get("flags", []) or bool(b.get("pgo"))


def _pairs(libs: list[Library]) -> Iterator[tuple[Library, str]]:
    for lib in libs:
        for p in lib.ciphers:
            yield lib, p


def compiler_scores(libs: list[Library], plain_only: bool = False) -> dict[str, float]:
    """Per compiler: the geometric mean of its best correct flag set's speed relative to the
    ordinary build, over the (library, cipher) pairs every compiler timed (common_pairs): a
    release environment's gcc builds the reference ciphers only, and a mean over other
    ciphers would not compare."""
    best = _best_by_compiler(libs, plain_only)
    common = common_pairs(best)
    out = {c: g for c, b in best.items() if (g := _geo([b[k] for k in sorted(common)]))}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _best_by_compiler(libs: list[Library], plain_only: bool) -> dict[str, dict[tuple[str, str], float]]:
    """compiler -> (library, cipher) -> its best correct flag set's speed-up; compilers with
    none left out."""
    comps = sorted({compiler_of(lb) for lib in libs for lb in lib.variants})
    best: dict[str, dict[tuple[str, str], float]] = {}
    for c in comps:
        for lib, p in _pairs(libs):
            xs = [x for lb, x in speedups(lib, p).items() if compiler_of(lb) == c
                  and not (plain_only and _special(lib, lb))]
            if xs:
                best.setdefault(c, {})[(lib.name, p)] = max(xs)
    return best


def common_pairs(best: dict[str, dict[tuple[str, str], float]]) -> set[tuple[str, str]]:
    return set.intersection(*(set(b) for b in best.values())) if best else set()


def _compiler_finding(libs: list[Library]) -> str:
    scores = compiler_scores(libs)
    if len(scores) < 2:
        return "fewer than two compilers timed"
    (c1, s1), (c2, s2) = list(scores.items())[:2]
    rest = ", ".join(f"{c} {100 * (s1 / s - 1):.1f} % behind" for c, s in list(scores.items())[1:])
    n = len(common_pairs(_best_by_compiler(libs, False)))
    return (f"{c1} is fastest (its best flags per cipher: {s1:.2f}x the ordinary build, geometric mean over "
            f"the {n} cipher{'s' if n != 1 else ''} every compiler built); {rest}. Lead over {c2}: {100 * (s1 / s2 - 1):.1f} %.")


def _o3_finding(libs: list[Library]) -> str:
    parts = []
    for c in compiler_scores(libs):
        ratios = []
        for lib, p in _pairs(libs):
            xs = {lb: x for lb, x in speedups(lib, p).items() if compiler_of(lb) == c}
            o3 = xs.get(str(Build(c, "O3")))
            if o3 and xs:
                ratios.append(o3 / max(xs.values()))
        if ratios:
            within = sum(1 for r in ratios if r >= 0.97)
            parts.append(f"{c}: -O3 alone reaches {100 * (_geo(ratios) or 0.0):.0f} % of its best flags "
                         f"(within 3 % on {within} of {len(ratios)} ciphers)")
    return "; ".join(parts) or "no -O3 build timed"


def _spread_finding(libs: list[Library]) -> str:
    spreads = []
    for lib, p in _pairs(libs):
        xs = [x for lb, x in speedups(lib, p).items() if not _is_o0(lib, lb)]
        if len(xs) > 1:
            spreads.append((max(xs) / min(xs), f"{lib.name} {_short(p)}"))
    if not spreads:
        return "no cipher has two correct builds timed"
    spreads.sort()
    med = spreads[len(spreads) // 2][0]
    return (f"fastest / slowest correct build (-O0 left out): median {med:.2f}x over {len(spreads)} ciphers, "
            f"from {spreads[0][0]:.2f}x ({spreads[0][1]}) to {spreads[-1][0]:.2f}x ({spreads[-1][1]})")


def _special_finding(libs: list[Library]) -> str:
    changed = []
    for lib, p in _pairs(libs):
        sp = speedups(lib, p)
        plain = {lb: s for lb, s in sp.items() if not _special(lib, lb)}
        if not sp or not plain:
            continue
        best, best_plain = max(sp, key=lambda lb: sp[lb]), max(plain, key=lambda lb: plain[lb])
        if best != best_plain:
            changed.append(f"{lib.name} {_short(p)}: {best} {100 * (sp[best] / plain[best_plain] - 1):+.1f} % "
                           f"over {best_plain}")
    a, b = list(compiler_scores(libs, plain_only=True)), list(compiler_scores(libs))
    order = ("the compilers' order changes with them: " f"{' > '.join(a)} without, {' > '.join(b)} with"
             if a != b else f"the compilers' order stays {' > '.join(b)}")
    if not changed:
        return f"-march=native and PGO win no cipher; {order}"
    return f"-march=native or PGO gives the fastest build on {len(changed)} ciphers ({'; '.join(changed)}); {order}"


def findings(libs: list[Library]) -> list[tuple[str, str]]:
    """Seed 001's conclusions beside this run's."""
    return [
        ("Intel's compiler fastest; MSVC 8 and gcc 4.1.2 about 16.5 % and 17.5 % behind", _compiler_finding(libs)),
        ("gcc: a simple -O3 is not sufficient to produce well optimised code", _o3_finding(libs)),
        ("gcc's performance depends highly on the optimisation flags enabled", _spread_finding(libs)),
        ("(not in the seed) where -march=native or profile-guided optimisation changes the ranking",
         _special_finding(libs)),
    ]


def sections(data: ReportData) -> list[tuple[Run, list[Table], list[tuple[str, str]]]]:
    """Per run that timed variants: its tables and findings."""
    out = []
    for run in data.runs:
        libs = libraries(run)
        if libs:
            tables = [library_table(lib) for lib in libs] + [best_table(libs)]
            out.append((run, tables, findings(libs)))
    return out


def markdown(data: ReportData, table_md: Callable[[Table], str], esc: Callable[[str], str]) -> list[str]:
    """The report.md lines of the section (markdown.py's table renderer and escaper given)."""
    out = []
    for run, tables, found in sections(data):
        out += [f"## Compilers x flags (run {run.id})", "",
                "Each variant is the engine built with one compiler and flag set (registry/builds.toml); "
                "it is verified with all its known answers before it is timed, and one that fails is shown "
                "failed and never timed. Code placement: each variant's cipher objects start on 64-byte "
                "lines, as the ordinary build's Crypto++ archive does (LTO builds: not controlled).", ""]
        out += [table_md(t) for t in tables]
        out += [f"### {SEED}'s conclusions and this run's", "", "| Bingmann 2008 | this run |", "|---|---|"]
        out += [f"| {esc(a)} | {esc(b)} |" for a, b in found]
        out.append("")
    return out
