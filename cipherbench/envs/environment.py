"""What an environment is: where it lives, and the record written beside it.

An environment is a Debian release's root filesystem (mmdebstrap) holding the
libraries the engine's adapters link, with the engine built inside it by that
release's own compiler. Its record, env.json, says what was built from what.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from cipherbench.axis_store import RecordFile, StoredRecord, UnreadableRecord
from cipherbench.errors import CipherbenchError, UsageError

#: Debian's archive as this machine reaches it (docs: the mirror network's name).
DEFAULT_MIRROR = "http://deb.debian.org/debian"

#: Where the root filesystem's engine source and build live (inside it).
ENGINE_SRC = "/opt/cipherbench/engine"
ENGINE_BUILD = "/opt/cipherbench/build"
ENGINE_BIN = f"{ENGINE_BUILD}/cipherbench-engine"
REGISTRY_INC = "/opt/cipherbench/registry.inc"

RECORD = "env.json"
ROOTFS = "rootfs"

#: An environment's name is a directory name and an implementation-name prefix
#: (`bullseye:openssl`): no ':' or '/', nothing hidden.
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9.+_-]{0,63}$")


class EnvError(CipherbenchError):
    """An environment cannot be built, found or used; one line says why."""


def envs_dir() -> Path:
    """$CIPHERBENCH_ENVS, else $XDG_CACHE_HOME/cipherbench/envs, else ~/.cache/cipherbench/envs."""
    if os.environ.get("CIPHERBENCH_ENVS"):
        return Path(os.environ["CIPHERBENCH_ENVS"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "cipherbench" / "envs"


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise UsageError(f"environment name {name!r} must be lower-case letters, digits, '.', '+', '_' "
                         "or '-' (it becomes a directory and an implementation prefix)")
    return name


@dataclass
class PackageVersion:
    """One Debian package as installed in the root filesystem."""

    package: str
    version: str
    adapter: str = ""  # the adapter whose manifest.toml asked for it; "" for the toolchain


@dataclass
class SkippedPackage:
    package: str
    adapter: str
    reason: str


@dataclass
class ImplementationRecord:
    """What the environment's engine announced at build time (its hello)."""

    name: str
    library: str
    version: str
    available: bool
    reason: str = ""
    primitives: int = 0


@dataclass
class EnvRecord(StoredRecord):
    """env.json: what was built, from what, by which compiler, and when."""

    name: str
    release: str  # the suite asked for: bullseye, trixie, sid, ...
    suite: str  # the suite's codename as its Release file gives it
    debian_version: str  # /etc/debian_version inside
    mirror: str
    adapters: list[str]  # adapters whose packages were asked for
    compiler: str  # e.g. "g++ 10.2.1"
    compiler_package: str  # e.g. "g++-10 10.2.1-6"
    cmake: str
    packages: list[PackageVersion] = field(default_factory=list)
    skipped: list[SkippedPackage] = field(default_factory=list)
    implementations: list[ImplementationRecord] = field(default_factory=list)
    engine_sources: str = ""  # engine_build.inputs_digest: the engine's sources and generated inputs
    engine_problem: str = ""  # why the engine is not usable, "" when it is
    adapters_not_compiled: list[str] = field(default_factory=list)  # left out of the build (build.py)
    built_at: str = ""  # the root filesystem, UTC ISO 8601
    engine_built_at: str = ""
    rootfs_seconds: float = 0.0
    engine_seconds: float = 0.0

    def library_versions(self) -> dict[str, str]:
        """Package -> version of every adapter's library package (the toolchain left out)."""
        return {p.package: p.version for p in self.packages if p.adapter}


@dataclass
class Env:
    """One environment's directory: <envs_dir>/<name>/{rootfs/, env.json}."""

    name: str
    root: Path  # envs_dir() / name

    @property
    def rootfs(self) -> Path:
        return self.root / ROOTFS

    @property
    def record_path(self) -> Path:
        return self.root / RECORD

    def exists(self) -> bool:
        """Complete: the record is written last, after the directory got its final name."""
        return self.record_path.is_file() and self.rootfs.is_dir()

    def record(self) -> EnvRecord:
        try:
            return RecordFile(self.record_path, EnvRecord).load()
        except UnreadableRecord as e:
            raise EnvError(f"environment '{self.name}': its record {self.record_path} cannot be read "
                           f"({e}); remove it with 'cipherbench env remove {self.name}'") from None

    def write(self, rec: EnvRecord):
        RecordFile(self.record_path, EnvRecord).save(rec)


def env_named(name: str) -> Env:
    return Env(check_name(name), envs_dir() / name)


def all_envs() -> list[Env]:
    d = envs_dir()
    if not d.is_dir():
        return []
    return [Env(p.name, p) for p in sorted(d.iterdir()) if NAME_RE.match(p.name) and (p / RECORD).is_file()]
