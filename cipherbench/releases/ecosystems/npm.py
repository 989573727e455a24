"""npm: the package in a node_modules of the release's own, loaded by the Node runner.

`npm install --prefix FOLDER` puts the package (and its lockfile, with the tarball's integrity)
in the release's folder; the Node runner is started with `--modules FOLDER` and imports it
from there (runners/node/README.md), so one runner runs every release.
"""
from __future__ import annotations

import json
import re

from cipherbench.paths import BUILD, REPO
from cipherbench.releases.client import Client, finals, run
from cipherbench.releases.ecosystems import npm_runtime
from cipherbench.releases.release import Ecosystem, Package, Release, ReleaseError, Role

#: npm's options for a quiet, reproducible install: no audit, no funding notes, no package's
#: install scripts (the packages taken are plain JavaScript), the version written exactly.
QUIET = ["--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", "--loglevel=error", "--no-update-notifier"]


def reason(text: str) -> str:
    """npm's reason: its first `npm error` line after the code, without the code's word
    ("npm error notarget No matching version found for @noble/ciphers@9.9.9." gives
    "No matching version found for @noble/ciphers@9.9.9.")."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    said = [re.sub(r"^npm (?:error|ERR!)\s*", "", ln) for ln in lines if re.match(r"npm (?:error|ERR!)", ln)]
    for ln in said:
        if ln and not ln.startswith(("code ", "A complete log")):
            return re.sub(r"^(?:[a-z]+|\d{3})\s+(?=[A-Z])", "", ln)[:240]
    return lines[-1][:240] if lines else ""


def install(r: Release) -> str:
    if r.package.role is Role.RUNTIME:
        return npm_runtime.install(r)
    run(["npm", "install", "--prefix", str(r.root), *QUIET, f"{r.package.coordinate}@{r.version}"],
        f"{r.name}: npm install", reason=reason)
    if not (r.root / "node_modules" / r.package.coordinate / "package.json").is_file():
        raise ReleaseError(f"{r.name}: npm installed no {r.package.coordinate} into {r.root / 'node_modules'}")
    return "node_modules"


def argv(r: Release) -> tuple[list[str], str | None]:
    if r.package.role is Role.RUNTIME:
        return npm_runtime.argv(r)
    registry = BUILD / "runners" / "node" / "registry.json"
    return ([str(REPO / "runners" / "node" / "run"), "--modules", str(r.root)],
            None if registry.exists() else f"the node runner is not built ({registry} is missing; run 'make runners')")


def versions(package: Package) -> list[str]:
    text = run(["npm", "view", package.coordinate, "versions", "--json"], f"{package.impl}: npm view", reason=reason)
    try:
        found = json.loads(text)
    except ValueError:
        raise ReleaseError(f"{package.impl}: npm view gave no list of versions") from None
    return finals([found] if isinstance(found, str) else [str(v) for v in found])


CLIENT = Client(Ecosystem.NPM, install, argv, versions)
