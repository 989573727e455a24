"""Running a command inside an environment's root filesystem with bubblewrap.

bwrap (Debian package `bubblewrap`) mounts the tree as / in a private mount
namespace with fresh /proc and /dev and the host's /sys, and undoes it all when
the command ends: no mounts are left behind, whatever happens. CPU affinity and
the personality flags the session sets before exec carry through it (it execs
the command in a child that inherits both).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from cipherbench.envs.environment import EnvError


def bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise EnvError("bubblewrap (bwrap) is not installed: 'cipherbench env create' installs it, or "
                       "scripts/install-system-deps --axis env")
    return path


def argv(rootfs: Path, command: list[str], writable: bool = False, network: bool = False,
         binds: tuple[tuple[Path, bool], ...] = ()) -> list[str]:
    """bwrap's command line that runs `command` with `rootfs` as /. writable: the tree
    may be changed (installing, building); network: DNS works (the host's resolv.conf);
    binds: host directories seen at the same path inside, (path, writable) each, in order
    (a later one inside an earlier one overrides it there)."""
    a = [bwrap(), "--bind" if writable else "--ro-bind", str(rootfs), "/",
         "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/sys", "/sys", "--perms", "1777", "--tmpfs", "/tmp",
         "--die-with-parent", "--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
         "--setenv", "LC_ALL", "C"]
    if network:
        a += ["--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf"]
    for path, rw in binds:
        # the tree is mounted read-only and bwrap cannot make a mount point in it: an empty
        # directory at the same path is made in the tree once, from outside
        (rootfs / str(path).lstrip("/")).mkdir(parents=True, exist_ok=True)
        a += ["--bind" if rw else "--ro-bind", str(path), str(path)]
    return a + ["--"] + command


def run(rootfs: Path, command: list[str], log: Path | None = None, writable: bool = False,
        network: bool = False) -> subprocess.CompletedProcess[Any]:
    """Run to completion; output to `log` (appended) when given, else captured."""
    args = argv(rootfs, command, writable=writable, network=network)
    if log is not None:
        with open(log, "ab") as f:
            f.write(("$ " + " ".join(command) + "\n").encode())
            f.flush()
            return subprocess.run(args, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
