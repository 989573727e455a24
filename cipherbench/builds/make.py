"""Building variants of the engine: one CMake/Ninja build tree per (compiler, flag set),
cached under build/variants/ by a key over the sources, the compiler's version and the flags.

A build's record (BuildRecord, manifest.json beside it) says whether it built, how much
CPU time compiling took (the build commands' own user + system time from wait4, so builds
running side by side do not inflate each other's), and how big its code is.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from cipherbench.axis_store import NOT_STORED, RecordFile, StoredRecord, UnreadableRecord
from cipherbench.builds.matrix import BuildsFile, Matrix, Target, Variant
from cipherbench.engine_build import (
    BuildRequest,
    Compiler,
    configured_from_here,
    inputs_digest,
    registry_table,
    rendered_manifests,
)
from cipherbench.engine_build import build as build_engine
from cipherbench.errors import CipherbenchError
from cipherbench.measure.context import usable_cpus
from cipherbench.paths import BUILD, REPO
from cipherbench.system_packages import Axis, ensure

CACHE = Path(os.environ.get("CIPHERBENCH_VARIANTS", BUILD / "variants"))


class BuildStatus(StrEnum):
    BUILT = "built"
    FAILED = "failed"  # did not compile or link: never verified, never timed


@dataclass
class BuildRecord(StoredRecord):
    """What building one variant gave (manifest.json in its cache directory)."""

    label: str  # "clang-16:O3-native"
    compiler: str  # compiler id
    compiler_version: str  # first line of `cc --version`
    flagset: str
    flags: list[str]
    key: str
    status: BuildStatus
    engine: str  # path of the built engine ("" when it failed)
    cpu_seconds: float  # user + system time of every build command, training excluded
    wall_seconds: float
    objects_text: int | None  # .text bytes of the variant's cipher objects (None: LTO, code made at link)
    engine_text: int | None  # .text bytes of the linked engine
    pgo: str = ""  # how the profile was trained, for PGO variants
    error: str = ""  # the first error line of a failed build
    log: str = ""
    env: str = ""  # the environment it was built in and runs in ("" = the host)
    targets: list[str] = field(default_factory=list)  # what it built (matrix.Target values)
    cached: bool = field(default=False, compare=False, metadata=NOT_STORED)

    def notes(self) -> dict:
        """What the engine announces with each implementation (--notes): the store keeps it."""
        keep = ("label", "compiler", "compiler_version", "flagset", "flags", "cpu_seconds",
                "objects_text", "engine_text", "pgo", "key", "env")
        return {"build": json.dumps({k: getattr(self, k) for k in keep})}

    @classmethod
    def read(cls, path: Path) -> BuildRecord | None:
        try:
            return RecordFile(path, cls).load()
        except UnreadableRecord:
            return None  # unreadable or from an older layout: built again

    def write(self, path: Path):
        RecordFile(path, BuildRecord).save(self)


@dataclass(frozen=True)
class BuildPlan:
    """Everything one variant's build depends on, besides the sources."""

    variant: Variant
    targets: tuple[Target, ...]
    reference_ciphers: tuple[str, ...]
    cryptopp_source: str  # "" without Crypto++
    cryptopp_units: tuple[str, ...]
    training: tuple[tuple[str, int], ...]  # (primitive, size) a PGO build trains on

    @property
    def dir_name(self) -> str:
        return variant_home(self.variant).name


def variant_home(v: Variant) -> Path:
    """A variant's cache directory: build/variants/<compiler>_<flag set>/."""
    return CACHE / re.sub(r"[^A-Za-z0-9_.-]", "_", v.label)


# ---------------------------------------------------------------- keys
@functools.cache
def compiler_version(cmd: str, env: str | None = None) -> str:
    """The first line of `cmd --version`, run where the compiler lives (once a process: the
    cache key, the record and the environment check all ask, and in an environment each
    asking starts a sandbox)."""
    try:
        out = subprocess.run(inside(env, [cmd, "--version"]), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.splitlines()[0].strip() if out.returncode == 0 and out.stdout else ""


def inside(env: str | None, cmd: list[str], writable: Path | None = None) -> list[str]:
    """cmd as run for a compiler of `env`: inside its root filesystem (cipherbench/envs,
    bubblewrap), the repository seen read-only at its own path and `writable` (a variant's
    cache directory) writable; on the host, cmd itself."""
    if not env:
        return cmd
    from cipherbench.envs import sandbox
    from cipherbench.envs.environment import env_named
    binds = ((REPO, False),) + (((writable, True),) if writable else ())
    return sandbox.argv(env_named(env).rootfs, cmd, binds=binds)


def cache_key(plan: BuildPlan, sources: str, version: str) -> str:
    v = plan.variant
    text = json.dumps([sources, version, compiler_version(v.compiler.cxx, v.compiler.env), v.flagset.flags, v.flagset.lto,
                       v.flagset.pgo, [t.value for t in plan.targets], plan.reference_ciphers,
                       plan.cryptopp_source, plan.cryptopp_units, plan.training if v.flagset.pgo else []])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- commands
def _tool(name: str, env: str | None = None) -> str:
    """A build tool by its path, on the host or inside the environment (CMake takes a bare
    CMAKE_AR as a path relative to the directory it runs in)."""
    if not env:
        return shutil.which(name) or name
    from cipherbench.envs.environment import env_named
    root = env_named(env).rootfs
    return next((f"{d}/{name}" for d in ("/usr/bin", "/bin") if (root / d.lstrip("/") / name).exists()), name)


def build_request(plan: BuildPlan, tree: Path, jobs: int, extra: list[str], link_extra: list[str]) -> BuildRequest:
    """One variant's build for the one driver (engine_build): its compiler and flags, inside
    the compiler's environment where it has one, the cache directory writable there."""
    c, fs = plan.variant.compiler, plan.variant.flagset
    flags = " ".join([*fs.flags, *extra])
    link = " ".join([*fs.flags, *(c.lto_link if fs.lto else ()), *link_extra])
    options = [("CB_ADAPTERS", ";".join(t.value for t in plan.targets)), ("CB_IMPL_SUFFIX", plan.variant.suffix),
               # an LTO build's objects hold no machine code yet: the link places it
               ("CB_LINE_ALIGN", "OFF" if fs.lto else "ON"),
               ("CB_REFERENCE_CIPHERS", ";".join(plan.reference_ciphers))]
    if Target.CRYPTOPP in plan.targets:
        options += [("CB_CRYPTOPP_SOURCE", plan.cryptopp_source), ("CB_CRYPTOPP_UNITS", ";".join(plan.cryptopp_units))]
    if c.env:  # an older release's Python cannot make the registry table nor read the adapters'
        # manifests: made here (registry_inc)
        options += [("CB_REGISTRY_INC", str(tree.parent / "registry.inc")), ("CB_MANIFESTS", str(tree.parent / "manifests"))]
    return BuildRequest(tree, build_type="None", compiler=Compiler(c.cc, c.cxx, _tool(c.ar, c.env), _tool(c.ranlib, c.env)),
                        c_flags=flags, cxx_flags=flags, link_flags=link, options=tuple(options),
                        wrapper=(lambda cmd: inside(c.env, cmd, tree.parent)) if c.env else None,
                        jobs=jobs, target="cipherbench-engine")


def registry_inc(path: Path) -> None:
    """The registry table for a build inside an environment, made by this Python, and the
    adapters' manifests rendered beside it (manifests/)."""
    rendered_manifests(path.parent / "manifests")
    registry_table(path)


def text_bytes(path: Path) -> int | None:
    """The .text bytes of an object, archive or program (binutils' size), None if unreadable."""
    if not path.exists():
        return None
    out = subprocess.run(["size", "-t", str(path)], capture_output=True, text=True)
    lines = [ln.split() for ln in out.stdout.splitlines() if ln.strip()]
    if out.returncode != 0 or len(lines) < 2 or not lines[-1][0].isdigit():
        return None
    return int(lines[-1][0])


def first_error(log_path: Path) -> str:
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    for ln in lines:
        if re.search(r"\berror\b|undefined reference|FAILED:", ln) and not ln.startswith("$ "):
            return ln.strip()[:300]
    return (lines[-1].strip()[:300] if lines else "")


# ---------------------------------------------------------------- one variant
def _compile(plan: BuildPlan, tree: Path, log, jobs: int, extra=(), link_extra=()) -> tuple[bool, float]:
    """Configure and build the engine in `tree` (inside the compiler's environment, if it
    has one); (success, CPU seconds)."""
    if plan.variant.compiler.env:
        registry_inc(tree.parent / "registry.inc")
    done = build_engine(build_request(plan, tree, jobs, list(extra), list(link_extra)), log)
    return done.ok, done.cpu_seconds


def _sizes(tree: Path, plan: BuildPlan) -> tuple[int | None, int | None]:
    engine = text_bytes(tree / "cipherbench-engine")
    if plan.variant.flagset.lto:
        return None, engine
    parts = [text_bytes(tree / "reference" / "libcbref.a")]
    if Target.CRYPTOPP in plan.targets:
        parts.append(text_bytes(tree / "libcb_cryptopp_units.a"))
    return (sum(p for p in parts if p) or None), engine


def build_variant(plan: BuildPlan, key: str, jobs: int) -> BuildRecord:
    """Build one variant into its cache directory (PGO: instrument, train, rebuild)."""
    from cipherbench.builds import pgo  # the training needs the registry; keep imports light
    v = plan.variant
    home = CACHE / plan.dir_name
    tree = home / "cmake"
    if ((home / "key").exists() and (home / "key").read_text().strip() != key) or not configured_from_here(tree):
        shutil.rmtree(tree, ignore_errors=True)  # another source, compiler or checkout: start clean
    home.mkdir(parents=True, exist_ok=True)
    (home / "key").write_text(key + "\n")
    log_path = home / "build.log"
    start = time.monotonic()
    trained = ""
    with open(log_path, "w") as log:
        if v.flagset.pgo:
            ok, cpu, trained = pgo.build_with_profile(plan, tree, log, jobs, _compile)
        else:
            ok, cpu = _compile(plan, tree, log, jobs)
    objects, engine_text = _sizes(tree, plan) if ok else (None, None)
    rec = BuildRecord(v.label, v.compiler.id, compiler_version(v.compiler.cc, v.compiler.env), v.flagset.id,
                      list(v.flagset.flags), key, BuildStatus.BUILT if ok else BuildStatus.FAILED,
                      str(tree / "cipherbench-engine") if ok else "", round(cpu, 2),
                      round(time.monotonic() - start, 2), objects, engine_text, trained,
                      "" if ok else first_error(log_path), str(log_path), v.compiler.env or "",
                      [t.value for t in plan.targets])
    rec.write(home / "manifest.json")
    if ok:
        (home / "notes.json").write_text(json.dumps(rec.notes()) + "\n")
    return rec


# ---------------------------------------------------------------- a matrix
def plans_for(matrix: Matrix, bf: BuildsFile, training: tuple[tuple[str, int], ...]) -> list[BuildPlan]:
    src = ""
    if Target.CRYPTOPP in matrix.targets:
        src = cryptopp_source()
    out = []
    for v in matrix.variants:
        targets = matrix.targets_of(v)
        cpp = Target.CRYPTOPP in targets
        out.append(BuildPlan(v, targets, matrix.reference_ciphers, src if cpp else "",
                             bf.cryptopp_units if cpp else (), training))
    return out


def cryptopp_source() -> str:
    """Debian's Crypto++ source at the installed version (scripts/fetch-cryptopp-source)."""
    out = subprocess.run([str(REPO / "scripts" / "fetch-cryptopp-source")], capture_output=True, text=True)
    if out.returncode != 0:
        why = (out.stderr.strip().splitlines() or ["failed"])[-1]
        raise CipherbenchError(f"Crypto++ source not available: {why}")
    return out.stdout.strip().splitlines()[-1]


def cached_record(plan: BuildPlan, key: str) -> BuildRecord | None:
    rec = BuildRecord.read(CACHE / plan.dir_name / "manifest.json")
    if rec is None or rec.key != key or rec.status is BuildStatus.FAILED:
        return None  # a failure is tried again: it may have been the machine's (a missing package)
    if rec.status is BuildStatus.BUILT and not Path(rec.engine).exists():
        return None
    rec.cached = True
    return rec


def check_compilers(matrix: Matrix) -> list[str]:
    """The matrix's host compilers that are not installed, with their Debian package
    (an environment's are checked by env_missing: without it, its variants are left out)."""
    seen = {v.compiler.id: v.compiler for v in matrix.variants if not v.compiler.env}
    return [f"{c.cc} ({c.package})" for c in seen.values() if not shutil.which(c.cc) or not shutil.which(c.cxx)]


def unavailable(matrix: Matrix) -> dict[str, str]:
    """The matrix's variants that cannot be built on this machine, by label, and why: those
    of an environment's compiler where the environment is not created. They are left out."""
    why: dict[str, str] = {}
    checked: dict[str, str | None] = {}
    for v in matrix.variants:
        if v.compiler.id not in checked:
            checked[v.compiler.id] = env_missing(v)
        if checked[v.compiler.id]:
            why[v.label] = checked[v.compiler.id] or ""
    return why


def env_missing(v: Variant) -> str | None:
    """Why variant v cannot be built here (its environment or compiler is missing), or None."""
    if not v.compiler.env:
        return None
    from cipherbench.envs.environment import EnvError, env_named
    try:
        env = env_named(v.compiler.env)
    except EnvError as e:
        return str(e)
    if not env.exists():
        return (f"environment '{v.compiler.env}' is not created here "
                f"('cipherbench env create {v.compiler.env}' makes it)")
    if not compiler_version(v.compiler.cxx, v.compiler.env):
        return f"environment '{v.compiler.env}' has no {v.compiler.cxx} ({v.compiler.package})"
    return None


def make_matrix(matrix: Matrix, bf: BuildsFile, training, rebuild: bool = False, progress=None) -> list[BuildRecord]:
    """Every variant of the matrix, from the cache where its key matches, else built: as
    many builds side by side as there are CPUs to use, Ninja's -j sharing them out. The
    compilers are installed on the axis's first use (system_packages.ensure, one line)."""
    ensure(Axis.BUILDS)
    missing = check_compilers(matrix)
    if missing:
        raise CipherbenchError(f"compiler(s) not installed: {', '.join(missing)} "
                               "(scripts/install-system-deps --axis builds installs them)")
    away = unavailable(matrix)
    plans = [p for p in plans_for(matrix, bf, training) if p.variant.label not in away]
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "a") as lock:  # two commands never build one variant at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _made(plans, rebuild, progress)


def _made(plans: list[BuildPlan], rebuild: bool, progress) -> list[BuildRecord]:
    """make_matrix's builds, the cache's lock held."""
    sources = inputs_digest()
    keys = [cache_key(p, sources, compiler_version(p.variant.compiler.cc)) for p in plans]
    out: dict[int, BuildRecord] = {}
    to_build = []
    for i, (p, k) in enumerate(zip(plans, keys)):
        rec = None if rebuild else cached_record(p, k)
        if rec:
            out[i] = rec
            progress and progress(rec)
        else:
            to_build.append(i)
    cpus = usable_cpus()
    workers = max(1, min(cpus, len(to_build)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {i: pool.submit(build_variant, plans[i], keys[i], max(1, cpus // workers)) for i in to_build}
        for i, f in futures.items():
            out[i] = f.result()
            progress and progress(out[i])
    return [out[i] for i in range(len(plans))]
