"""What a run times: presets (registry/experiments.toml), validated on load, and the run
plan built from one of them plus what the caller overrides.

Every default a run has is here, once: a preset states only what differs, and a key
that is not a field below is an error naming the preset and the key, never ignored.
"""
from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cipherbench.errors import UsageError, did_you_mean
from cipherbench.kinds import Operation, PrimitiveKind, RunKind, Workload
from cipherbench.measure.stopping import StopRule
from cipherbench.paths import REGISTRY
from cipherbench.registry_models import one_line as one_line
from cipherbench.registry_models import read_toml

PRESETS_FILE = REGISTRY / "experiments.toml"
DEFAULT_PRESET = "quick"

Size = Annotated[int, Field(gt=0, le=1 << 30)]


class Layout(StrEnum):
    """Where runners' memory sits (measure/runner.py, RunnerProcess)."""

    RANDOM = "random"  # address-space randomisation, spread over `processes` processes
    FIXED = "fixed"  # randomisation off: repeatable, but one layout


class CpuChoice(StrEnum):
    """Which CPU each timed request runs on (measure/corewatch.py)."""

    ALONE = "alone"  # the CPU whose core reads alone just before it, of every CPU the run may use
    MEASURING = "measuring"  # always the measuring CPU (the last one)


class DiffusionSampling(BaseModel):
    """Diffusion and avalanche sampling of an experiment (analysis/diffusion.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    keys: int = Field(gt=0)
    blocks: int = Field(gt=0)
    seed: int = 0


class SideChannelSettings(BaseModel):
    """How `cipherbench ct` checks an experiment's primitives (cipherbench/ct): taint,
    stat or both; timed calls per statistical test; the seed of its class order."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    method: Literal["taint", "stat", "both"] = "both"
    samples: Annotated[int, Field(ge=1000, le=10_000_000)] = 20000
    seed: Annotated[int, Field(ge=0)] = 2017


class Knobs(BaseModel):
    """How a run measures: the same method for every preset, only these numbers differ."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    batch_ms: float = Field(10.0, gt=0, le=10_000, allow_inf_nan=False)  # target length of a timed batch
    batches: int = Field(5, ge=1, le=1000)  # timed batches per point
    warmup_batches: int = Field(1, ge=1, le=100)
    # each timed request of about batch_ms asks for this many batches back to back, each timed
    # and stored alone (measure/measurer.py's sub_batches)
    sub_batches: int = Field(8, ge=1, le=64)
    # extra rounds for uncertain points: at most this share of the planned batches (0: none)
    extra_share: float = Field(0.5, ge=0, le=10, allow_inf_nan=False)
    jit_warmup_ms: int | None = Field(None, ge=0, le=600_000)  # None: the runner's default
    jit_size_warmup: bool = True  # False: JIT warm-up at a code path's first size only
    long_call_batches: int | None = Field(None, ge=1)
    # with stopping and long_call_batches: a point whose one batch outlasts batch_ms gets at most
    # this long in timed requests (never fewer than min_batches of them)
    long_call_ms: float | None = Field(None, gt=0, le=600_000, allow_inf_nan=False)
    clock_every_batches: int = Field(1, ge=1, le=1000)  # batches between two core-clock readings
    processes: int = Field(3, ge=1, le=16)  # processes per runner without a JIT
    # > 1: every point also timed on this many CPUs at once (per-CPU and total throughput,
    # efficiency against one CPU); address layouts are then not spread over processes
    parallel: int = Field(1, ge=1, le=256)
    # sequential stopping (measure/stopping.py): a point stops getting rounds once the interval
    # of its median is within +-stop_within of it (cycles/byte where each batch has its clock)
    # and it has min_batches timed batches; both or neither
    stop_within: float | None = Field(None, gt=0, lt=1, allow_inf_nan=False)
    min_batches: int | None = Field(None, ge=1, le=1000)
    # with stopping: a series' large sizes on its straight line (time linear in size) stop at
    # min_batches; each is still timed, checked against the line and flagged where it departs
    planned_sizes: bool = False
    # with planned_sizes: those large sizes stop at this many timed batches instead (at most
    # min_batches; None: min_batches)
    line_batches: int | None = Field(None, ge=1, le=1000)
    # with stopping: the seconds timing may take. Calibration and every point's floor always
    # run; the rounds beyond the floor go, the least settled first, to the points whose next
    # request fits in what is left (measure/stopping.py, TimeBudget), and the run says how many
    # it left out
    budget_s: float | None = Field(None, gt=0, le=86_400, allow_inf_nan=False)

    @model_validator(mode="after")
    def _stopping_whole(self) -> Knobs:
        if (self.stop_within is None) != (self.min_batches is None):
            raise ValueError("stop_within and min_batches go together (a target and a floor of rounds)")
        if self.long_call_ms is not None and (self.long_call_batches is None or self.stop_within is None):
            raise ValueError("long_call_ms needs long_call_batches and a stopping rule (stop_within, min_batches)")
        if self.planned_sizes and self.stop_within is None:
            raise ValueError("planned_sizes needs stop_within and min_batches")
        if self.line_batches is not None and not self.planned_sizes:
            raise ValueError("line_batches needs planned_sizes")
        if self.budget_s is not None and self.stop_within is None:
            raise ValueError("budget_s needs a stopping rule (stop_within, min_batches): it cuts only rounds beyond the floor")
        return self


class Workloads(BaseModel):
    """How the calls of a point are made (kinds.Workload), for every primitive and by kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    workloads: list[Workload] = [Workload.BULK]
    # workloads timed besides `workloads` for primitives of a kind: AEADs as whole
    # messages, each sealed with its own nonce, as they are used (and as some libraries
    # offer them only); an explicit --workload replaces them
    kind_workloads: dict[PrimitiveKind, list[Workload]] = {}

    def workloads_for(self, kind: PrimitiveKind) -> list[Workload]:
        """The workloads a primitive of this kind is timed in, in a stable order."""
        return list(dict.fromkeys([*self.workloads, *self.kind_workloads.get(kind, [])]))


class Preset(Knobs, Workloads):
    """One table of registry/experiments.toml."""

    title: str
    source: str | None = None  # the seed comparison an experiment re-runs
    primitives: list[str] = []  # [] = every primitive an implementation offers
    implementations: list[str] = []  # [] = every available one
    sizes: list[Size] = Field(min_length=1)
    operations: list[Operation] = [Operation.ENCRYPT]
    diffusion: DiffusionSampling | None = None
    envs: list[str] = []  # environments whose engines run too (cipherbench env create)
    # installed releases whose runners run too (cipherbench versions add): IMPL==VERSION, or
    # "all"; with no `implementations`, the releases and the builds they are versions of
    releases: list[str] = []
    ct: SideChannelSettings | None = None  # read by `cipherbench ct`, not by a run


class RunPlan(Knobs, Workloads):
    """Everything one run needs to know, JSON-serialisable (a fleet ships it to workers)."""

    preset: str
    kind: RunKind = RunKind.SPEED  # what the stored run is (builds and fleet runs say so)
    implementations: list[str] = []
    primitives: list[str] = []
    sizes: list[Size] = Field(min_length=1)
    operations: list[Operation] = [Operation.ENCRYPT]
    diffusion: DiffusionSampling | None = None
    verify: bool = True  # False: timed unverified, and marked so
    reverify: bool = False  # True: verify every pair again, even one remembered (kat/cache.py)
    layout: Layout = Layout.RANDOM
    cpu_choice: CpuChoice = CpuChoice.ALONE
    extra_rounds: bool = True  # False: exactly `batches` timed batches per point
    stopping: bool = True  # False: the profile's stopping target is not applied (every point its batches)
    runners: list[str] = []  # extra runner commands (docs/protocol.md), like --runner
    builtin: bool = True  # False: only `runners`
    envs: list[str] = []  # environments whose engines run as runners (cipherbench env)
    releases: list[str] = []  # installed releases whose runners run too (cipherbench.releases)

    @classmethod
    def from_preset(cls, name: str = DEFAULT_PRESET, **overrides: Any) -> RunPlan:
        """The preset's plan, with every override that is not None (or an empty list) put
        over it. Raises UsageError naming an unknown preset or an invalid value."""
        presets = load_presets()
        if name not in presets:
            raise UsageError(f"unknown profile or experiment '{name}'"
                             + (did_you_mean(name, presets) or f"; known: {', '.join(sorted(presets))}"))
        base = presets[name].model_dump(exclude={"title", "source", "ct"})  # ct: not a run setting
        given = {k: v for k, v in overrides.items() if v is not None and v != [] and v != ()}
        if "workloads" in given:  # the workloads asked for, and no others
            given.setdefault("kind_workloads", {})
        try:
            return cls.model_validate({**base, **given, "preset": name})
        except ValidationError as e:
            raise UsageError(one_line(e, f"run plan from '{name}'")) from None

    @property
    def label(self) -> str:
        """The run's profile as stored and shown: the preset's name when the plan is the
        preset's, else "custom (PRESET with --OPTION, ...)" naming the options that changed
        it, so that a narrowed run is never taken for the preset (nor its time for the
        preset's). Kept within the store's column (LABEL_MAX)."""
        changed = self.changed_options()
        if not changed:
            return self.preset
        names = [f"--{o}" for o in changed]
        label = _custom(self.preset, names)
        while len(label) > LABEL_MAX and names:  # the first options named, then "…"
            names.pop()
            label = _custom(self.preset, [*names, "…"])
        return label[:LABEL_MAX]

    def changed_options(self) -> list[str]:
        """The options (cli/run.py's names) whose values differ from the preset's plan: what
        is timed first, then how. A builds run's implementations are its matrix's variants,
        not a narrowing; which run kind it is, and re-verifying, change nothing measured."""
        if self.preset not in load_presets():
            return []  # a resumed run of a preset since removed: its name is all there is
        base = RunPlan.from_preset(self.preset).model_dump()
        ignored = {"preset", "kind", "reverify"} | ({"implementations"} if self.kind is RunKind.BUILDS else set())
        mine = self.model_dump()
        order = dict.fromkeys([*OPTION_OF, *RunPlan.model_fields])  # what is timed first, then how
        names = (OPTION_OF.get(k, k.replace("_", "-")) for k in order if k not in ignored and mine[k] != base[k])
        return list(dict.fromkeys(names))

    @property
    def effective_processes(self) -> int:
        """A fixed layout is one layout, and a parallel run's CPUs each have one: one process."""
        return 1 if self.layout is Layout.FIXED or self.parallel > 1 else self.processes

    @property
    def effective_extra_share(self) -> float:
        return self.extra_share if self.extra_rounds else 0.0

    @property
    def stop_rule(self) -> StopRule | None:
        """The stopping target the run applies, or None (measure/stopping.py); none when the
        plan asks for exactly `batches` per point (extra_rounds off)."""
        if not (self.stopping and self.extra_rounds) or self.stop_within is None or self.min_batches is None:
            return None
        return StopRule(self.stop_within, min(self.min_batches, self.batches), self.line_batches)


#: The store's `runs.profile` is 64 characters wide (store/sql_schema.py).
LABEL_MAX = 64
#: A plan field's command-line option where its name is not the field's (cli/run.py, cli/app.py);
#: the fields that say what is timed come first.
OPTION_OF = {"implementations": "impl", "primitives": "primitive", "sizes": "sizes", "operations": "operation",
             "workloads": "workload", "kind_workloads": "workload", "verify": "no-verify",
             "runners": "runner", "builtin": "no-builtin", "envs": "env"}


def _custom(preset: str, options: list[str]) -> str:
    return f"custom ({preset} with {', '.join(options)})" if options else f"custom ({preset})"


@lru_cache(maxsize=4)
def load_presets(path: Path = PRESETS_FILE) -> dict[str, Preset]:
    """Every profile and experiment, validated. A misspelt key anywhere fails here with
    one line naming the preset and the key."""
    data = read_toml(path)
    unknown = set(data) - {"profiles", "experiments"}
    if unknown:
        raise UsageError(f"{path}: unknown section '{sorted(unknown)[0]}' (profiles, experiments)")
    out: dict[str, Preset] = {}
    for section in ("profiles", "experiments"):
        for name, table in data.get(section, {}).items():
            try:
                out[name] = Preset.model_validate(table)
            except ValidationError as e:
                raise UsageError(one_line(e, f"{path.name}: [{section}.{name}]")) from None
    return out


@lru_cache(maxsize=4)
def experiment_names(path: Path = PRESETS_FILE) -> frozenset[str]:
    """The names of the file's [experiments] (load_presets' other presets are profiles),
    the file validated first."""
    load_presets(path)
    return frozenset(read_toml(path).get("experiments", {}))
