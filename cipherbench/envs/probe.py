"""Reading what a root filesystem holds: package versions, its compiler, its engine's offer."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from cipherbench.envs import sandbox
from cipherbench.envs.environment import ENGINE_BIN, EnvError, ImplementationRecord


def installed_versions(rootfs: Path) -> dict[str, str]:
    """Package -> version of everything installed, from the tree's own dpkg database."""
    r = subprocess.run(["dpkg-query", f"--admindir={rootfs}/var/lib/dpkg", "-W",
                        "-f=${db:Status-Abbrev}\t${Package}\t${Version}\n"], capture_output=True, text=True)
    if r.returncode != 0:
        raise EnvError(f"cannot read the packages installed in {rootfs}: {r.stderr.strip()[-200:]}")
    out = {}
    for line in r.stdout.splitlines():
        status, pkg, ver = (line.split("\t") + ["", ""])[:3]
        if status.startswith("ii"):
            out[pkg] = ver
    return out


def compiler_of(rootfs: Path, versions: dict[str, str]) -> tuple[str, str, str]:
    """("g++ 10.2.1", "g++-10 10.2.1-6", "3.18.4-2+deb11u1"): the C++ compiler g++ runs there,
    the versioned package it comes from, and cmake's package version."""
    r = sandbox.run(rootfs, ["g++", "-dumpfullversion"])
    if r.returncode != 0:
        raise EnvError(f"g++ does not run in {rootfs}: {(r.stderr or r.stdout).strip()[-200:]}")
    full = r.stdout.strip()
    major = full.split(".")[0]
    pkg = f"g++-{major}"
    return f"g++ {full}", f"{pkg} {versions.get(pkg, '?')}", versions.get("cmake", "?")


def suite_of(rootfs: Path) -> tuple[str, str]:
    """(codename from os-release, /etc/debian_version) of the tree."""
    codename = ""
    try:
        for line in (rootfs / "etc" / "os-release").read_text().splitlines():
            m = re.match(r'VERSION_CODENAME="?([^"]*)"?', line)
            if m:
                codename = m.group(1)
    except OSError:
        pass
    try:
        version = (rootfs / "etc" / "debian_version").read_text().strip()
    except OSError:
        version = ""
    return codename, version


def announce(rootfs: Path) -> list[ImplementationRecord]:
    """The implementations the engine inside offers, from its hello (docs/protocol.md)."""
    cmd = sandbox.argv(rootfs, [ENGINE_BIN])
    try:
        r = subprocess.run(cmd, input='{"op":"hello","id":1}\n{"op":"quit","id":2}\n', capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise EnvError("the engine built in the environment did not answer 'hello' within 120 s") from None
    try:
        hello = json.loads(r.stdout.splitlines()[0])
    except (IndexError, ValueError):
        raise EnvError("the engine built in the environment does not answer 'hello': "
                       f"{(r.stderr or r.stdout).strip()[-200:]}") from None
    return [ImplementationRecord(name=str(i.get("name")), library=str(i.get("library", "")),
                                 version=str(i.get("version", "")), available=bool(i.get("available", True)),
                                 reason=str(i.get("reason", "")), primitives=len(i.get("primitives", [])))
            for i in hello.get("implementations", [])]
