"""Every published study's plan times what its findings and its tables need.

Read from the registry, never listed here: each finding of registry/published-figures.toml
(its `now`: the primitives, operations, workloads, sizes and implementations it reads) and
each published figure of its tables (the cell's quantity, at the row's primitive), held to
the experiment of the study's name in registry/experiments.toml, or, for a finding drawn on
other runs (`from`), to its source's experiment. A plan trimmed for time that drops what a
verdict or a then-and-now cell reads fails here, naming the study, the finding and the need.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from cipherbench import registry
from cipherbench.builds import matrix as matrix_mod
from cipherbench.kinds import Operation, PrimitiveKind, RunKind, Workload
from cipherbench.pipeline.plan import Preset, load_presets
from cipherbench.pipeline.points import whole_block_sizes
from cipherbench.registry_models import Finding, FindingKind, Quantity, Ranked, Source, load_published_figures

FIGURES = load_published_figures()
PRESETS = load_presets()
REGISTRY = registry.load()


@dataclass(frozen=True)
class Need:
    """One thing a finding or a cell reads from a run: one of `primitives` (exact names, or
    name prefixes where `prefix`), at `operation` in `workload`, at each of `sizes` (bytes;
    () = any size the plan has), from `impl` where it names one."""

    why: str
    primitives: tuple[str, ...]
    operation: Operation = Operation.ENCRYPT
    workload: Workload = Workload.BULK
    sizes: tuple[int, ...] = ()
    impl: str | None = None
    prefix: bool = False

    def missing(self, plan: Preset) -> str | None:
        """What of this need the plan lacks, in words, else None."""
        if plan.implementations and self.impl and self.impl not in plan.implementations:
            return f"{self.why}: implementation {self.impl} not in the plan"
        offered = plan.primitives or list(REGISTRY)
        found = [p for p in offered if any(p.startswith(x) if self.prefix else p == x for x in self.primitives)]
        if not found:
            return f"{self.why}: none of {', '.join(self.primitives)} in the plan"
        for name in found:
            if (why := self._missing_at(plan, REGISTRY[name])) is None:
                return None
        return why

    def _missing_at(self, plan: Preset, p: registry.Primitive) -> str | None:
        kind = PrimitiveKind(p.kind)
        if kind is not PrimitiveKind.HASH and self.operation not in plan.operations:
            return f"{self.why}: operation {self.operation} not in the plan"
        if not self.operation.is_keysetup and self.workload not in plan.workloads_for(kind):
            return f"{self.why}: workload {self.workload} not in the plan for {p.name}"
        timed = whole_block_sizes(p, plan.sizes)
        gone = [s for s in self.sizes if s not in timed]
        return f"{self.why}: {p.name} not timed at {gone} (timed: {timed})" if gone else None


def finding_needs(f: Finding) -> list[Need]:
    """What a finding's verdict reads (report/verdicts.py, report/verdict_axes.py)."""
    now, expect, why = f.now, f.expect, f"finding {f.text!r}"
    if now is None:
        return []
    kind = now.kind
    ends = tuple(e for e in (expect.first, expect.last) if e)
    if kind is FindingKind.RATIO:
        assert now.ratio is not None
        sizes = (now.size,) if now.size else ()
        return [Need(why, (p,), workload=now.workload or Workload.BULK, sizes=sizes, impl=now.impl) for p in now.ratio]
    if kind is FindingKind.RANK and now.rank is Ranked.PRIMITIVES:
        return [Need(why, (e,), prefix=True) for e in ends]
    if kind is FindingKind.RANK:  # implementations: every cipher, bulk encryption; the claimed last not left out
        return [Need(why, ("",), prefix=True, impl=expect.last)]
    if kind is FindingKind.REKEY_COST:
        assert now.rekey_cost is not None
        return [Need(why, (now.rekey_cost,), workload=Workload.REKEY, sizes=(now.small, now.large))]
    if kind is FindingKind.KEYSETUP_SLOWEST:
        return [Need(why, ("",), Operation.KEYSETUP, prefix=True, impl=now.keysetup_slowest)]
    if kind is FindingKind.ROBUSTNESS:
        return [Need(why, now.reference or ("",), prefix=not now.reference)] + [Need(why, (e,), prefix=True)
                                                                                  for e in ends]
    # releases, compilers, -O3: bulk encryption of whatever the source's run times
    return [Need(why, ("",), prefix=True)]


def table_needs(study: str) -> list[Need]:
    """Each published figure's cell today: the row's primitives at the column's key size and
    mode, at the column's operation (and workload and size, for seconds)."""
    needs = []
    for t in FIGURES.studies[study].tables:
        for c in t.columns:
            if c.now is None or c.now.quantity in (Quantity.MIN_SECURE_ROUNDS, Quantity.ATTACK_ROUNDS):
                continue  # shown as published, or registry facts (security-margins.toml)
            for r in t.rows:
                if c.key not in r.values:
                    continue  # no published figure to set today's beside
                names = tuple(p.replace("{key}", str(c.key_bits)).replace("{mode}", c.mode or "")
                              for p in r.primitives)
                names = tuple(n for n in names if n in REGISTRY)  # a name the registry lacks no run times
                if not names:
                    continue
                why = f"table {t.title!r}, row {r.label!r}, column {c.label!r}"
                if c.now.quantity is Quantity.KEYSETUP_CYCLES:
                    needs.append(Need(why, names, Operation.KEYSETUP))
                elif c.now.quantity is Quantity.SECONDS:
                    assert c.now.size is not None
                    needs.append(Need(why, names, c.now.operation, c.now.workload, (c.now.size,)))
                else:
                    needs.append(Need(why, names, c.now.operation))
    return needs


def source_presets(source: Source) -> list[str]:
    """The experiments a source's runs time: its profiles, or its matrix's experiment."""
    if source.kind is RunKind.BUILDS and source.matrix:
        return [matrix_mod.load().matrix(source.matrix).experiment]
    return list(source.profiles)


STUDIES = sorted(FIGURES.studies)


def test_every_study_and_every_source_has_an_experiment():
    assert {s for s in STUDIES if s not in PRESETS} == set()
    for name, source in FIGURES.sources.items():
        assert source_presets(source), f"[sources.{name}] names no experiment its runs time"
        assert set(source_presets(source)) <= set(PRESETS), name


@pytest.mark.parametrize("study", STUDIES)
def test_the_study_s_plan_times_what_its_findings_and_tables_read(study):
    plan = PRESETS[study]
    lacking = [m for n in table_needs(study) if (m := n.missing(plan))]
    for f in FIGURES.studies[study].findings:
        if f.source is None:
            lacking += [m for n in finding_needs(f) if (m := n.missing(plan))]
    assert lacking == []


@pytest.mark.parametrize("study", [s for s in STUDIES if FIGURES.studies[s].sources()])
def test_each_source_s_plan_times_what_the_findings_drawn_on_it_read(study):
    lacking = []
    for f in FIGURES.studies[study].findings:
        if f.source is None:
            continue
        plans = [PRESETS[p] for p in source_presets(FIGURES.sources[f.source])]
        for n in finding_needs(f):
            said = [n.missing(p) for p in plans]
            if all(said):  # some run of the source times it
                lacking.append(f"[sources.{f.source}]: " + "; ".join(m for m in said if m))
    assert lacking == []


def test_a_plan_without_what_a_finding_reads_is_named():
    """The check can fail: the bingmann2008 plan with key setup or the largest size taken out."""
    plan = PRESETS["bingmann2008"]
    keysetup = next(f for f in FIGURES.studies["bingmann2008"].findings if f.kind is FindingKind.KEYSETUP_SLOWEST)
    [need] = finding_needs(keysetup)
    without = plan.model_copy(update={"operations": [Operation.ENCRYPT, Operation.DECRYPT]})
    assert need.missing(plan) is None
    assert need.missing(without) == f"finding {keysetup.text!r}: operation keysetup not in the plan"
    php = FIGURES.studies["php-mcrypt"].findings[0]  # twofish over AES, rekey at 1 MiB
    small = PRESETS["php-mcrypt"].model_copy(update={"sizes": [16384]})
    assert [n.missing(small) for n in finding_needs(php)] == [
        f"finding {php.text!r}: {p} not timed at [1048576] (timed: [16384])" for p in php.now.ratio]
