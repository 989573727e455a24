"""Compiler variants of the engine (cipherbench/builds) behind the Axis interface.

Declared: every variant of registry/builds.toml's matrices; made: those built into the
variants' cache (manifest.json). A variant is that engine: `native@gcc-12:O3`. What the
readers (the verdicts on compilers) learn of compilers is read here: each one's family.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from cipherbench.axes.interface import ENGINE, Axis, Say
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.builds import make as builds_make
from cipherbench.builds.make import BuildRecord, BuildStatus, variant_home
from cipherbench.builds.matrix import BuildsFile, Matrix, Variant, load
from cipherbench.errors import UsageError
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import Build, VariantAxis, VariantName

#: A variant's record in its cache directory (builds/make.py)
RECORD = "manifest.json"


class BuildAxis(Axis):
    variant_axis = VariantAxis.BUILD
    command = "builds"

    def discover(self) -> list[VariantName]:
        return [VariantName(ENGINE, build=v.build) for v in declared(load())]

    def records(self) -> list[AxisRecord]:
        out = []
        for v in declared(load()):
            rec = BuildRecord.read(variant_home(v) / RECORD)
            out.append(made(rec, variant_home(v)) if rec else AxisRecord(
                self.variant_axis, VariantName(ENGINE, build=v.build), "", " ".join(v.flagset.flags), "", "",
                RecordStatus.DECLARED, f"cipherbench builds make (a matrix holding {v.label})"))
        return out

    def make(self, name: VariantName, say: Say) -> AxisRecord:
        """One variant alone, in the first matrix that holds it; a PGO variant trains on its
        matrix's experiment, which `cipherbench builds make MATRIX` gives it."""
        bf = load()
        m, v = matrix_of(bf, self.check(name))
        if v.flagset.pgo:
            raise UsageError(f"{name} is profile-guided: 'cipherbench builds make {m.id}' builds it with its training")
        [rec] = builds_make.make_matrix(replace(m, variants=(v,)), bf, ())
        say(f"{name}: {rec.status.value} ({rec.log})")
        return made(rec, variant_home(v))

    def runner_spec(self, name: VariantName) -> RunnerSpec:
        from cipherbench.builds.runners import runner_spec
        _, v = matrix_of(load(), self.check(name))
        rec = BuildRecord.read(variant_home(v) / RECORD)
        if rec is None:
            return RunnerSpec(str(name), [], builtin=False,
                              unavailable=f"not built: 'cipherbench builds make' a matrix holding {v.label}")
        return runner_spec(rec)

    def runner_specs(self, chosen: Sequence[str]) -> list[RunnerSpec]:
        return [self.runner_spec(VariantName(ENGINE, build=Build.parse(label))) for label in dict.fromkeys(chosen)]

    # what the readers learn of compilers
    def compiler_family(self, compiler: str) -> str:
        """registry/builds.toml's family of a compiler id ("gcc", "clang"); for an id the file
        does not name, its first word before a hyphen (a compiler id, not an implementation's name)."""
        known = load().compilers
        return known[compiler].family.value if compiler in known else compiler.split("-", 1)[0]


def declared(bf: BuildsFile) -> list[Variant]:
    """Every matrix's variants, each once, in the file's order."""
    return list({v.label: v for m in bf.matrices.values() for v in m.variants}.values())


def matrix_of(bf: BuildsFile, name: VariantName) -> tuple[Matrix, Variant]:
    for m in bf.matrices.values():
        for v in m.variants:
            if v.build == name.build:
                return m, v
    raise UsageError(f"no matrix of registry/builds.toml builds {name.build}")


def made(rec: BuildRecord, home: Path) -> AxisRecord:
    """A built (or failed) variant; when: its record's time (the record holds none of its own)."""
    status = RecordStatus.MADE if rec.status is BuildStatus.BUILT else RecordStatus.FAILED
    when = datetime.fromtimestamp((home / RECORD).stat().st_mtime, UTC).isoformat(timespec="seconds")
    return AxisRecord(VariantAxis.BUILD, VariantName(ENGINE, build=Build.parse(rec.label)), str(home),
                      " ".join(rec.flags), rec.compiler_version, when, status, rec.error)
