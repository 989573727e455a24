"""Creating, refreshing and removing environments.

A new root filesystem is built under a temporary name beside its final one and
renamed when complete; the record (env.json) is written last. So a directory
with a record is a complete environment, and an interrupted build leaves only a
`.NAME.partial-*` directory that the next create removes.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from cipherbench import engine_build
from cipherbench.axis_store import made_when
from cipherbench.engine_build import tail
from cipherbench.envs import sandbox
from cipherbench.envs.environment import (
    ENGINE_BIN,
    ENGINE_BUILD,
    ENGINE_SRC,
    REGISTRY_INC,
    Env,
    EnvError,
    EnvRecord,
    PackageVersion,
    SkippedPackage,
    env_named,
    envs_dir,
)
from cipherbench.envs.packages import INSTALL_AVAILABLE, TOOLCHAIN, adapter_packages
from cipherbench.envs.probe import announce, compiler_of, installed_versions, suite_of
from cipherbench.paths import REPO
from cipherbench.system_packages import Axis, PackagesError, ensure

#: The adapters' manifests rendered for CMake (cipherbench/manifest.py) inside the root filesystem.
MANIFESTS = "/opt/cipherbench/manifests"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def preflight(suite: str, mirror: str, say=print):
    """Root, the tools (installed on this first use: system_packages.ensure), and the archive
    serving that suite: else one line, before any work."""
    if os.geteuid() != 0:
        raise EnvError("env create needs root: mmdebstrap installs packages as root into the new tree "
                       "(run it as root, or with sudo)")
    try:
        ensure(Axis.ENV, say=say)
    except PackagesError as e:
        raise EnvError(str(e)) from None
    if shutil.which("mmdebstrap") is None:
        raise EnvError("mmdebstrap is not on PATH although its package is installed")
    sandbox.bwrap()
    url = f"{mirror.rstrip('/')}/dists/{suite}/Release"
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            r.read(256)
    except urllib.error.HTTPError as e:
        raise EnvError(f"Debian's archive at {mirror} has no suite '{suite}' ({url}: HTTP {e.code}); "
                       "known ones include bullseye, bookworm, trixie, sid") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise EnvError(f"Debian's archive cannot be reached at {mirror}: {reason}") from None


def create(release: str, name: str | None = None, adapters: list[str] | None = None,
           mirror: str = "http://deb.debian.org/debian", say=print) -> EnvRecord:
    """Build the environment, or bring an existing one up to date (quick when nothing changed)."""
    env = env_named(name or release)
    wanted = adapter_packages(adapters, release)
    adapter_names = sorted({a for a, _ in wanted}) if adapters else []
    if env.exists():
        rec = env.record()
        if rec.release == release and rec.adapters == adapter_names and rec.mirror == mirror:
            return refresh_engine(env, rec, say)
        raise EnvError(f"environment '{env.name}' exists, built for {rec.release} with adapters "
                       f"{', '.join(rec.adapters) or 'all'}; remove it first ('cipherbench env remove "
                       f"{env.name}') or give another --name")
    preflight(release, mirror, say)
    env.root.parent.mkdir(parents=True, exist_ok=True)
    for stale in env.root.parent.glob(f".{env.name}.partial-*"):
        shutil.rmtree(stale, ignore_errors=True)
    part = Env(env.name, env.root.parent / f".{env.name}.partial-{os.getpid()}")
    part.root.mkdir()
    try:
        rec = build_rootfs(part, release, mirror, wanted, adapter_names, say)
        rec = build_engine(part, rec, say)
        if env.root.exists():  # a directory without a record: an earlier failed build
            shutil.rmtree(env.root)
        part.root.rename(env.root)
        env.write(rec)
    except BaseException:
        shutil.rmtree(part.root, ignore_errors=True)
        raise
    return rec


def build_rootfs(part: Env, release: str, mirror: str, wanted: list[tuple[str, str]],
                 adapter_names: list[str], say) -> EnvRecord:
    """mmdebstrap with the toolchain, then each adapter package the release carries."""
    log = part.root / "build.log"
    t0 = time.monotonic()
    say(f"{part.name}: building a {release} root filesystem with mmdebstrap (log: {log.name})")
    with open(log, "ab") as f:
        # Check-Valid-Until off: the archive as some machines reach it is a frozen copy, whose
        # sid Release file has expired ("invalid since 19d"); the signature is still checked.
        # mmdebstrap keeps --aptopt in the tree (etc/apt/apt.conf.d), so the apt-get below has it too.
        r = subprocess.run(["mmdebstrap", "--variant=apt", "--include=" + ",".join(TOOLCHAIN),
                            '--aptopt=Acquire::Check-Valid-Until "false"',
                            release, str(part.rootfs), mirror], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise EnvError(f"mmdebstrap failed for {release}: {tail(log)}")
    pkgs = list(dict.fromkeys(p for _, p in wanted))
    inst = sandbox.run(part.rootfs, ["sh", "-c", INSTALL_AVAILABLE, "install"] + pkgs, writable=True, network=True)
    with open(log, "a") as f:
        f.write(inst.stdout + inst.stderr)
    if inst.returncode != 0:
        raise EnvError(f"installing the adapters' packages in {release} failed: {tail(log)}")
    missing = {line.split()[1] for line in inst.stdout.splitlines() if line.startswith("skip ")}
    skipped = [SkippedPackage(p, a, f"{release} has no package {p}") for a, p in wanted if p in missing]
    for s in skipped:
        say(f"{part.name}: {s.reason} (asked for by adapter {s.adapter}): skipped")
    versions = installed_versions(part.rootfs)
    packages = [PackageVersion(p, versions[p], a) for a, p in wanted if p in versions]
    compiler, compiler_pkg, cmake = compiler_of(part.rootfs, versions)
    suite, debian_version = suite_of(part.rootfs)
    return EnvRecord(name=part.name, release=release, suite=suite or release, debian_version=debian_version,
                     mirror=mirror, adapters=adapter_names, compiler=compiler, compiler_package=compiler_pkg,
                     cmake=cmake, packages=packages, skipped=skipped, built_at=now(),
                     rootfs_seconds=round(time.monotonic() - t0, 1))


def build_engine(env: Env, rec: EnvRecord, say) -> EnvRecord:
    """Copy the engine's sources in and build them there with the release's compiler. The
    registry table is generated here (python 3.11) and passed in: older releases lack it."""
    t0 = time.monotonic()
    digest = engine_build.inputs_digest()
    src = env.rootfs / ENGINE_SRC.lstrip("/")
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(REPO / "engine", src)
    try:  # made here (python 3.11): older releases lack it
        engine_build.registry_table(env.rootfs / REGISTRY_INC.lstrip("/"))
        engine_build.rendered_manifests(env.rootfs / MANIFESTS.lstrip("/"))
    except engine_build.EngineBuildError as e:
        raise EnvError(str(e)) from None
    log = env.root / "engine-build.log"
    log.write_text("")
    say(f"{env.name}: building the engine inside with {rec.compiler} (log: {log.name})")
    rec.adapters_not_compiled = compile_engine(env, rec.release, log, say)
    rec.implementations = announce(env.rootfs)
    rec.engine_sources, rec.engine_problem = digest, ""
    rec.engine_built_at, rec.engine_seconds = now(), round(time.monotonic() - t0, 1)
    return rec


def compile_engine(env: Env, release: str, log: Path, say) -> list[str]:
    """Configure and build inside the root filesystem (engine_build, the one driver); an adapter
    whose sources do not compile against this release's library is left out (reported
    unavailable, with the reason) and the build tried again, so one adapter's gap never costs
    the others. Returns the adapters left out."""
    def left_out(failed: list[str]) -> None:
        say(f"{env.name}: adapter {', '.join(failed)} does not compile against {release}'s library: "
            "left out, reported unavailable")
    req = engine_build.BuildRequest(
        ENGINE_BUILD, source=ENGINE_SRC, options=(("CB_REGISTRY_INC", REGISTRY_INC), ("CB_MANIFESTS", MANIFESTS)),
        wrapper=lambda cmd: sandbox.argv(env.rootfs, cmd, writable=True), keep_going=True,
        leave_out=engine_build.LeaveOut(f"its sources did not compile against {release}'s library "
                                        "(see engine-build.log of the environment)", left_out))
    with open(log, "a") as f:
        done = engine_build.build(req, f)
    if done.failed is engine_build.Step.CONFIGURE:
        raise EnvError(f"configuring the engine in '{env.name}' failed: {tail(log)} (whole log: {log})")
    if not done.ok:
        raise EnvError(f"building the engine in '{env.name}' failed: {tail(log)} (whole log: {log})")
    return done.left_out


def refresh_engine(env: Env, rec: EnvRecord, say) -> EnvRecord:
    """An existing environment: rebuild the engine only when its sources changed."""
    if rec.engine_sources == engine_build.inputs_digest() and not rec.engine_problem \
            and (env.rootfs / ENGINE_BIN.lstrip("/")).exists():
        say(f"{env.name}: up to date ({rec.release}, built {made_when(rec.built_at)})")
        return rec
    if os.geteuid() != 0:
        raise EnvError("rebuilding an environment's engine needs root (its tree belongs to root)")
    rec.engine_problem = "engine being rebuilt (or its rebuild failed): run 'cipherbench env create' again"
    env.write(rec)
    rec = build_engine(env, rec, say)
    env.write(rec)
    return rec


def remove(name: str) -> Path:
    env = env_named(name)
    if not env.root.exists():
        raise EnvError(f"no environment '{name}' in {envs_dir()} ('cipherbench env list' shows them)")
    if os.geteuid() != 0:
        raise EnvError("env remove needs root: the root filesystem's files belong to root")
    shutil.rmtree(env.root)
    return env.root
