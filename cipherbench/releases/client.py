"""What every ecosystem's installer shares: calling its registry's client, and the contract
an ecosystem keeps (Client), so that adding one is one module under releases/ecosystems/.
"""
from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cipherbench.releases.release import Ecosystem, Package, Release, ReleaseError

#: What one client call may take: a slow mirror, never a hung one.
CLIENT_TIMEOUT = 900


def reason_of(text: str) -> str:
    """The line of a client's output that says why it failed: pip's 'ERROR:' without its list
    of versions, Maven's '[ERROR]', go's first error; else the last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "Ignored the following" in ln:  # pip's list of yanked versions, not the reason
            continue
        if ln.startswith(("ERROR:", "[ERROR]", "error:", "error[")) or ": error" in ln or "cannot find" in ln or "undefined:" in ln:
            ln = re.sub(r"\s*\(from versions:.*", "", ln.removeprefix("[ERROR] ").removeprefix("ERROR: ").removeprefix("error: "))
            return ln[:240]
    return lines[-1][:240] if lines else ""


def run(argv: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        reason: Callable[[str], str] = reason_of) -> str:
    """A client call; ReleaseError with the client's own reason in one line when it fails."""
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    except FileNotFoundError:
        raise ReleaseError(f"{what}: {argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise ReleaseError(f"{what}: {Path(argv[0]).name} gave no answer in {CLIENT_TIMEOUT} s") from None
    if p.returncode != 0:
        raise ReleaseError(f"{what}: {reason(p.stderr + p.stdout) or f'{argv[0]} exited {p.returncode}'}")
    return p.stdout


def finals(found: list[str]) -> list[str]:
    """A registry's listing without its pre-releases ("2.0.0-beta.4", "42.0.0rc1")."""
    return [v for v in found if not re.search(r"[a-z]", v.lower().lstrip("v"))]


def same_coordinate(package: Package, version: str) -> str:
    return package.coordinate


@dataclass(frozen=True)
class Client:
    """One ecosystem as releases use it: how a release is installed into its folder (the
    artifact it leaves there), how the project's runner starts on it (or why it cannot), the
    versions the registry serves (None: its client lists none, so versions are named), and the
    registry's name of what a version installs."""

    ecosystem: Ecosystem
    install: Callable[[Release], str]
    argv: Callable[[Release], tuple[list[str], str | None]]
    versions: Callable[[Package], list[str]] | None = None
    coordinate: Callable[[Package, str], str] = same_coordinate
