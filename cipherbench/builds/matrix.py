"""registry/builds.toml: compilers, flag sets, matrices, validated on load.

A misspelt key, an unknown compiler or flag set in a matrix, or a value of the
wrong type is a UsageError naming the key and where it is, never a KeyError later.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from cipherbench.errors import UsageError, did_you_mean
from cipherbench.paths import REPO
from cipherbench.variant import Build, engine_suffix

BUILDS_FILE = REPO / "registry" / "builds.toml"


class Family(StrEnum):
    """Compiler families: they differ in how PGO and LTO are asked for."""

    GCC = "gcc"
    CLANG = "clang"


class Target(StrEnum):
    """What a variant builds: engine adapter folders (engine/adapters/<name>)."""

    REFERENCE = "reference"
    CRYPTOPP = "cryptopp"


@dataclass(frozen=True)
class Compiler:
    id: str
    cc: str
    cxx: str
    family: Family
    ar: str
    ranlib: str
    package: str
    profdata: str | None = None  # clang's llvm-profdata
    lto_link: tuple[str, ...] = ()
    # a Debian-release environment (cipherbench env) whose compiler this is: the variant is
    # built and run inside its root filesystem (cc, cxx, ar, ranlib are its commands)
    env: str | None = None


@dataclass(frozen=True)
class FlagSet:
    id: str
    flags: tuple[str, ...]
    lto: bool = False
    pgo: bool = False
    test_only: bool = False


@dataclass(frozen=True)
class Variant:
    """One compiler with one flag set: one build of the engine."""

    compiler: Compiler
    flagset: FlagSet

    @property
    def build(self) -> Build:
        return Build(self.compiler.id, self.flagset.id)

    @property
    def label(self) -> str:
        """"clang-16:O3-native": the build its implementations' names carry (cipherbench/variant.py)."""
        return str(self.build)

    @property
    def suffix(self) -> str:
        """"@clang-16:O3-native": what its engine appends to each implementation's name."""
        return engine_suffix(build=self.build)


@dataclass(frozen=True)
class Matrix:
    id: str
    title: str
    targets: tuple[Target, ...]
    experiment: str
    variants: tuple[Variant, ...]
    reference_ciphers: tuple[str, ...] = ()  # engine/reference folders; () = all

    @property
    def test_only(self) -> bool:
        """Every variant's flag set is for the tests (a deliberately broken build)."""
        return bool(self.variants) and all(v.flagset.test_only for v in self.variants)

    def targets_of(self, v: Variant) -> tuple[Target, ...]:
        """What variant v builds: the matrix's targets; in an environment the reference
        ciphers only (the Crypto++ source and archive a variant links are the host
        release's, and mixing them with another release's library is not a build of either)."""
        if v.compiler.env:
            return tuple(t for t in self.targets if t is Target.REFERENCE)
        return self.targets


@dataclass
class BuildsFile:
    compilers: dict[str, Compiler]
    flagsets: dict[str, FlagSet]
    matrices: dict[str, Matrix]
    cryptopp_units: tuple[str, ...] = field(default_factory=tuple)

    def matrix(self, name: str) -> Matrix:
        if name not in self.matrices:
            raise UsageError(f"unknown build matrix '{name}'"
                             + (did_you_mean(name, self.matrices) or f"; known: {', '.join(sorted(self.matrices))}"))
        return self.matrices[name]


# ---------------------------------------------------------------- checking helpers
def _keys(where: str, table: dict, required: set[str], optional: frozenset[str] | set[str] = frozenset()):
    if not isinstance(table, dict):
        raise UsageError(f"builds.toml: {where} must be a table")
    unknown = set(table) - required - optional
    if unknown:
        raise UsageError(f"builds.toml: unknown key(s) {', '.join(sorted(unknown))} in {where}; "
                         f"accepted: {', '.join(sorted(required | optional))}")
    missing = required - set(table)
    if missing:
        raise UsageError(f"builds.toml: {where} lacks {', '.join(sorted(missing))}")


def _strs(where: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UsageError(f"builds.toml: {where} must be a list of non-empty strings")
    return tuple(value)


def _str(where: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise UsageError(f"builds.toml: {where} must be a non-empty string")
    return value


def _bool(where: str, value) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"builds.toml: {where} must be true or false")
    return value


def _enum(where: str, cls, value):
    try:
        return cls(value)
    except ValueError:
        raise UsageError(f"builds.toml: {where} is {value!r}; accepted: "
                         f"{', '.join(m.value for m in cls)}") from None


# ---------------------------------------------------------------- sections
def _compiler(cid: str, t: dict) -> Compiler:
    w = f"[compilers.{cid}]"
    _keys(w, t, {"cc", "cxx", "family", "ar", "ranlib", "package"}, {"profdata", "lto_link", "env"})
    fam = _enum(f"{w} family", Family, t["family"])
    if fam is Family.CLANG and "profdata" not in t:
        raise UsageError(f"builds.toml: {w} is clang and needs profdata (llvm-profdata) for PGO")
    return Compiler(cid, _str(f"{w} cc", t["cc"]), _str(f"{w} cxx", t["cxx"]), fam,
                    _str(f"{w} ar", t["ar"]), _str(f"{w} ranlib", t["ranlib"]), _str(f"{w} package", t["package"]),
                    _str(f"{w} profdata", t["profdata"]) if "profdata" in t else None,
                    _strs(f"{w} lto_link", t.get("lto_link", [])), _str(f"{w} env", t["env"]) if "env" in t else None)


def _flagset(fid: str, t: dict) -> FlagSet:
    w = f"[flagsets.{fid}]"
    _keys(w, t, {"flags"}, {"lto", "pgo", "test_only"})
    fs = FlagSet(fid, _strs(f"{w} flags", t["flags"]), _bool(f"{w} lto", t.get("lto", False)),
                 _bool(f"{w} pgo", t.get("pgo", False)), _bool(f"{w} test_only", t.get("test_only", False)))
    if fs.lto != any(f.startswith("-flto") for f in fs.flags):
        raise UsageError(f"builds.toml: {w}: lto = true goes with -flto in flags, and only with it")
    if any(f.startswith("-fprofile") for f in fs.flags):
        raise UsageError(f"builds.toml: {w}: ask for PGO with pgo = true, not with -fprofile flags")
    return fs


def _matrix(mid: str, t: dict, compilers: dict, flagsets: dict) -> Matrix:
    w = f"[matrices.{mid}]"
    _keys(w, t, {"title", "targets", "experiment", "rows"}, {"reference_ciphers"})
    if not isinstance(t["rows"], list) or not t["rows"]:
        raise UsageError(f"builds.toml: {w} rows must be a non-empty list of tables")
    variants: dict[str, Variant] = {}
    for i, row in enumerate(t["rows"]):
        rw = f"{w} rows[{i}]"
        _keys(rw, row, {"compilers", "flagsets"})
        for c in _strs(f"{rw} compilers", row["compilers"]):
            if c not in compilers:
                raise UsageError(f"builds.toml: {rw} names compiler '{c}', which [compilers] lacks")
            for f in _strs(f"{rw} flagsets", row["flagsets"]):
                if f not in flagsets:
                    raise UsageError(f"builds.toml: {rw} names flag set '{f}', which [flagsets] lacks")
                v = Variant(compilers[c], flagsets[f])
                if v.compiler.env and v.flagset.pgo:
                    raise UsageError(f"builds.toml: {rw}: {c} is an environment's compiler, and PGO trains "
                                     "on the host: no PGO flag set with it")
                variants.setdefault(v.label, v)
    targets = tuple(_enum(f"{w} targets", Target, x) for x in _strs(f"{w} targets", t["targets"]))
    return Matrix(mid, _str(f"{w} title", t["title"]), targets, _str(f"{w} experiment", t["experiment"]),
                  tuple(variants.values()), _strs(f"{w} reference_ciphers", t.get("reference_ciphers", [])))


def parse(data: dict) -> BuildsFile:
    _keys("the file", data, {"compilers", "flagsets", "matrices"}, {"cryptopp"})
    compilers = {k: _compiler(k, v) for k, v in data["compilers"].items()}
    flagsets = {k: _flagset(k, v) for k, v in data["flagsets"].items()}
    matrices = {k: _matrix(k, v, compilers, flagsets) for k, v in data["matrices"].items()}
    units: tuple[str, ...] = ()
    if "cryptopp" in data:
        _keys("[cryptopp]", data["cryptopp"], {"units"})
        units = _strs("[cryptopp] units", data["cryptopp"]["units"])
    return BuildsFile(compilers, flagsets, matrices, units)


def load(path: Path = BUILDS_FILE) -> BuildsFile:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path} is not valid TOML: {e}") from None
    return parse(data)
