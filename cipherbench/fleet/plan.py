"""What a fleet runs on every machine: a preset and its filters, as a typed record
that travels to the workers as JSON and names itself by a digest (the key by which
running the same command again finds the fleet run to complete)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from enum import Enum


class PresetKind(str, Enum):
    """registry/experiments.toml has [profiles.*] and [experiments.*]; `run` takes either."""
    PROFILE = "profile"
    EXPERIMENT = "experiment"


@dataclass(frozen=True)
class FleetPlan:
    preset: str
    kind: PresetKind = PresetKind.PROFILE
    implementations: tuple[str, ...] = ()
    primitives: tuple[str, ...] = ()
    sizes: str | None = None  # as `run --sizes` takes it: 16,1024,16k
    batches: int | None = None
    batch_ms: float | None = None
    processes: int | None = None
    extra_rounds: bool = True
    operations: tuple[str, ...] = field(default=())

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "kind": self.kind.value}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> FleetPlan:
        d = json.loads(text)
        d["kind"] = PresetKind(d["kind"])
        for k in ("implementations", "primitives", "operations"):
            d[k] = tuple(d.get(k) or ())
        return cls(**d)

    def key(self) -> str:
        """The plan's identity: the same command asks for the same key."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def run_args(self) -> list[str]:
        """The plan as `cipherbench run` arguments (task.run_plan_here's subprocess)."""
        args = [f"--{self.kind.value}", self.preset]
        for flag, values in (("--impl", self.implementations), ("--primitive", self.primitives),
                             ("--operation", self.operations)):
            for v in values:
                args += [flag, v]
        for flag, value in (("--sizes", self.sizes), ("--batches", self.batches),
                            ("--batch-ms", self.batch_ms), ("--processes", self.processes)):
            if value is not None:
                args += [flag, str(value)]
        if not self.extra_rounds:
            args.append("--no-extra-rounds")
        return args

    def describe(self) -> str:
        parts = [f"{self.kind.value} {self.preset}"]
        if self.implementations:
            parts.append("impl " + ",".join(self.implementations))
        if self.primitives:
            parts.append("primitive " + ",".join(self.primitives))
        if self.sizes:
            parts.append(f"sizes {self.sizes}")
        return ", ".join(parts)
