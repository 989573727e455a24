"""The host's Debian packages that only an axis uses, installed when that axis is first used.

packages.txt lists, before its first section, what the default path needs (`make bench`
installs those); each `[section]` after it holds what one axis alone uses: the compilers of
`builds`, the root filesystems of `env`, the cross toolchains and qemu of `arch`, the PostgreSQL
server of the fleet's demo, the hogs of the noise benchmark, and what only the tests use. The
axis's command calls `ensure` before its first step that needs one: the missing packages are
named in one line and installed by scripts/install-system-deps (`--axis NAME`), whose apt logic
(the lock waited for, one retry, apt's index refreshed once) is the only one; a machine that has
them all spends one dpkg-query per package.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from enum import StrEnum

from cipherbench.console import err
from cipherbench.errors import CipherbenchError
from cipherbench.paths import REPO

#: The one installer (packages.txt's sections are read there, and only there).
INSTALLER = REPO / "scripts" / "install-system-deps"
#: How much of a failed installation's output the error line keeps.
TAIL_CHARS = 240


class Axis(StrEnum):
    """packages.txt's sections: the axes whose packages wait for their first use."""

    BUILDS = "builds"
    ENV = "env"
    ARCH = "arch"
    FLEET = "fleet"
    NOISE = "noise"
    TEST = "test"

    @property
    def command(self) -> str:
        """What uses the section's packages, in the words of the line that installs them."""
        return {Axis.BUILDS: "cipherbench builds", Axis.ENV: "cipherbench env", Axis.ARCH: "cipherbench arch",
                Axis.FLEET: "scripts/fleet-demo", Axis.NOISE: "make noise", Axis.TEST: "the tests"}[self]


class PackagesError(CipherbenchError):
    """An axis's packages are missing and cannot be installed here: which, and how to."""


def _installer(axis: Axis, extra: Sequence[str], *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(INSTALLER), *options, "--axis", axis.value, *extra], capture_output=True, text=True,
                          env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def missing(axis: Axis, extra: Sequence[str] = ()) -> list[str]:
    """The axis's packages (and `extra`) that are not installed."""
    r = _installer(axis, extra, "--missing")
    if r.returncode != 0:
        raise PackagesError(f"cannot tell which packages {axis.command} needs: {r.stderr.strip()[-TAIL_CHARS:]}")
    return r.stdout.split()


def can_install() -> bool:
    """As root, or through sudo without a password (the installer then prefixes apt-get with it)."""
    if os.geteuid() == 0:
        return True
    return shutil.which("sudo") is not None and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0


def ensure(axis: Axis, extra: Sequence[str] = (), say: Callable[[str], None] | None = None) -> list[str]:
    """The axis's packages and `extra` installed, those missing named in one line first
    (`say`, else stderr); which were installed. PackagesError, in one line, where they are
    missing and cannot be installed (not root), or apt failed."""
    need = missing(axis, extra)
    if not need:
        return []
    command = " ".join([str(INSTALLER.relative_to(REPO)), "--axis", axis.value, *extra])
    if not can_install():
        raise PackagesError(f"{axis.command} needs Debian packages that are not installed: {', '.join(need)}; "
                            f"install them as root: {command}")
    line = f"{axis.command}: first use here, installing its Debian packages {', '.join(need)} ({command})"
    if say is not None:
        say(line)
    else:
        err.print(line, markup=False, highlight=False)
    r = _installer(axis, extra)
    left = missing(axis, extra)
    if r.returncode != 0 or left:
        raise PackagesError(f"installing {', '.join(left or need)} failed: "
                            f"{' '.join((r.stderr or r.stdout).split())[-TAIL_CHARS:]}")
    return need
