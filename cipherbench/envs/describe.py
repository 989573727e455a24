"""The environment each implementation ran in: release, library package, compiler.

Stored with every implementation of a run (store: run_implementations.environment)
and shown by `show` and the reports. For an environment's engine it comes from
its record (env.json); for the host's own engine from this machine: its
os-release, its dpkg database and the compiler cmake found for build/engine.
Language runners carry none (their libraries come with the runtime).
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from cipherbench import manifest
from cipherbench.envs.environment import EnvRecord
from cipherbench.paths import BUILD


def environment_of(spec, native_name: str, version: str = "") -> dict | None:
    """The environment dict of implementation `native_name` offered by runner `spec`; `version`
    is the one it reported, which picks its package where a release has two (Botan 2 and 3)."""
    env = getattr(spec, "environment", None)
    if spec.prefix and isinstance(env, EnvRecord):
        pkg = pick_package([p for p in env.packages if p.adapter == native_name], version)
        return {"name": env.name, "release": env.release, "debian_version": env.debian_version, "host": False,
                "package": pkg.package if pkg else "", "package_version": pkg.version if pkg else "",
                "compiler": env.compiler}
    if spec.builtin and spec.name == "native":
        host = host_environment()
        pkg, ver = host_package(native_name)
        return dict(host, package=pkg, package_version=ver)
    return None


def pick_package(pkgs, version: str):
    """Of an adapter's packages, the -dev one whose upstream version is the one the library
    reports ('3.7.1' picks libbotan-3-dev 3.7.1+dfsg-2 over libbotan-2-dev 2.19.5+dfsg-4)."""
    m = re.search(r"\d+\.\d+", version or "")
    dev = [p for p in pkgs if p.package.endswith("-dev")] or list(pkgs)
    if m:
        for p in dev:
            if p.version.split(":")[-1].startswith(m.group(0)):
                return p
    return dev[0] if dev else None


@lru_cache(maxsize=1)
def host_environment() -> dict:
    release, version = "", ""
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            m = re.match(r'VERSION_CODENAME="?([^"]*)"?', line)
            if m:
                release = m.group(1)
        version = Path("/etc/debian_version").read_text().strip()
    except OSError:
        pass
    return {"name": "host", "release": release, "debian_version": version, "host": True,
            "compiler": host_compiler()}


def host_compiler() -> str:
    """The C++ compiler cmake found for the host's engine (its CMakeCXXCompiler.cmake)."""
    for f in sorted((BUILD / "engine" / "CMakeFiles").glob("*/CMakeCXXCompiler.cmake")):
        text = f.read_text(errors="replace")
        cid = re.search(r'set\(CMAKE_CXX_COMPILER_ID "([^"]*)"\)', text)
        ver = re.search(r'set\(CMAKE_CXX_COMPILER_VERSION "([^"]*)"\)', text)
        if ver:
            name = {"GNU": "g++", "Clang": "clang++"}.get(cid.group(1) if cid else "", "c++")
            return f"{name} {ver.group(1)}"
    return ""


@cache
def host_package(adapter: str) -> tuple[str, str]:
    """(package, version) of the adapter's -dev package on this machine (its manifest's
    default packages), or ("", "")."""
    pkg = dev_packages().get(adapter, "")
    if not pkg:
        return "", ""
    return pkg, host_versions().get(pkg, "")


@cache
def dev_packages() -> dict[str, str]:
    """Each adapter's -dev package (manifest.Packages.dev_package), its manifest read once; an
    adapter whose manifest is broken has none here (it says so where it is read for its build)."""
    out = {}
    for folder in manifest.adapter_folders():
        try:
            out[folder.name] = manifest.adapter(folder.name).packages.dev_package()
        except manifest.ManifestError:
            continue
    return out


@cache
def host_versions() -> dict[str, str]:
    """The installed version of every adapter's -dev package, by package, asked of dpkg in one
    query: one query per adapter took a quarter of a second of every command that starts the
    engine. A package dpkg does not have is left out (dpkg-query names it on stderr and exits 1,
    having printed the others); without dpkg, none."""
    pkgs = sorted({p for p in dev_packages().values() if p})
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Version}\n", *pkgs], capture_output=True, text=True)
    except OSError:
        return {}
    return {pkg: version for pkg, _, version in (line.partition("\t") for line in r.stdout.splitlines()) if version}


@dataclass(frozen=True)
class RanIn:
    """Where an implementation of a stored run was built and ran, as environment_of stored it
    with the run (store: run_implementations.environment), read once for the readers."""

    release: str  # Debian's codename ("bullseye"); "" where none was recorded
    debian_version: str  # "11.11"; "trixie/sid" for unstable
    host: bool  # the host's own engine, not an environment's
    package: str = ""  # the adapter's -dev package
    package_version: str = ""  # Debian's version of it: "1.1.1w-0+deb11u1"
    compiler: str = ""
    name: str = ""  # the environment's ("bullseye-openssl"), "host" for the host's engine

    @classmethod
    def of(cls, stored: Any) -> RanIn | None:
        """The stored environment, or None where none was stored (language runners, older runs)."""
        if not isinstance(stored, dict) or not stored:
            return None
        text = {k: str(stored.get(k) or "") for k in ("release", "debian_version", "package", "package_version",
                                                       "compiler", "name")}
        return cls(text["release"], text["debian_version"], bool(stored.get("host")), text["package"],
                   text["package_version"], text["compiler"], text["name"])

    @property
    def label(self) -> str:
        """One line: 'bullseye (Debian 11.11), libssl-dev 1.1.1w-0+deb11u1, g++ 10.2.1'."""
        where = f"{self.release or '?'} (Debian {self.debian_version or '?'}" + (", the host)" if self.host else ")")
        package = f"{self.package} {self.package_version or '?'}" if self.package else ""
        return ", ".join(p for p in (where, package, self.compiler) if p)

    @property
    def order(self) -> float:
        """Debian's version as a number, the releases' order (11.11 before 12.12); unstable
        ("trixie/sid") after every numbered release."""
        parts = self.debian_version.split(".")
        try:
            return float(parts[0] + "." + (parts + ["0"])[1])
        except ValueError:
            return 1e9

    @property
    def upstream_version(self) -> str:
        """The package's upstream version, Debian's epoch, revision and repack suffix dropped:
        '1.1.1w' of '1.1.1w-0+deb11u1', '3.7.1' of '3.7.1+dfsg-2'; '?' when none was recorded."""
        return (self.package_version or "?").split("-")[0].split(":")[-1].split("+")[0]


def label(env: dict | None) -> str:
    """RanIn.label of a stored environment; '' for none."""
    ran = RanIn.of(env)
    return ran.label if ran else ""


def show_lines(run: dict) -> list[str]:
    """For `show`: one line per measured implementation's environment, when the run had an
    environment's engine in it (a run of the host alone needs none: `show --json` has it)."""
    measured = {m["impl"] for m in run.get("measurements", [])}
    envs = {i["impl"]: i.get("environment") for i in run.get("implementations", []) if i["impl"] in measured}
    if not any(e and not e.get("host") for e in envs.values()):
        return []
    return [f"built in: {impl}: {label(e)}" for impl, e in sorted(envs.items()) if e]
