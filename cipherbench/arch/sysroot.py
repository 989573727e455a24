"""A foreign sysroot: the adapters' -dev packages for another architecture, extracted, not installed.

`mmdebstrap --variant=extract --architectures=ARCH` resolves the packages and their
dependencies against that architecture's archive and unpacks them into a folder: no
package of the host changes (Botan 2, libgcrypt, libmcrypt and wolfSSL are not
Multi-Arch: same in Debian 12 and could not sit beside the host's), nothing runs inside
(no emulation is needed to make it), and the same folder is then both the compiler's
--sysroot and qemu's -L. A build that needs no library (the reference ciphers) uses the
cross toolchain's own folder, /usr/TRIPLET, and no network.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from cipherbench.arch.architecture import Arch, ArchBuild, ArchError
from cipherbench.engine_build import tail
from cipherbench.envs.environment import PackageVersion, SkippedPackage

#: What linking and running any engine takes besides the adapters' packages: the C library's
#: startup files and its linker script (libc6-dev), and the C++ runtime qemu loads.
BASE_PACKAGES = ("libc6-dev", "libstdc++6")

#: apt's words for a package the suite does not carry for that architecture.
UNKNOWN_PACKAGE = re.compile(r"E: Unable to locate package ([a-z0-9][a-z0-9.+-]+)"
                             r"|E: Package '([a-z0-9][a-z0-9.+-]+)' has no installation candidate")


@dataclass
class Sysroot:
    path: Path
    packages: list[PackageVersion] = field(default_factory=list)
    skipped: list[SkippedPackage] = field(default_factory=list)
    seconds: float = 0.0


def toolchain_sysroot(arch: Arch) -> Path:
    """The cross toolchain's own tree (libc6-dev-ARCH-cross, libstdc++6-ARCH-cross)."""
    return Path("/usr") / arch.triplet


def extract(b: ArchBuild, suite: str, mirror: str, wanted: list[tuple[str, str]], say) -> Sysroot:
    """Extract `wanted` (adapter, package) into b.sysroot_dir; a package the suite lacks for the
    architecture is left out, said why, and the rest tried again."""
    if shutil.which("mmdebstrap") is None:
        raise ArchError("mmdebstrap is not installed: 'cipherbench arch add' installs it, or "
                        "scripts/install-system-deps --axis arch")
    t0 = time.monotonic()
    log = b.root / "sysroot.log"
    missing: set[str] = set()
    while True:
        pkgs = [p for p in dict.fromkeys([*BASE_PACKAGES, *(p for _, p in wanted)]) if p not in missing]
        part = b.root / "sysroot.partial"
        shutil.rmtree(part, ignore_errors=True)
        say(f"{b.name}: extracting {len(pkgs)} {b.arch.value} packages of {suite} with their dependencies "
            f"(mmdebstrap, log: {log.name})")
        with open(log, "ab") as f:
            # --skip=cleanup/apt/cache keeps the .debs, whose control fields give the versions (an
            # extracted tree has no dpkg database); they are read and deleted below
            r = subprocess.run(["nice", "-n", "10", "mmdebstrap", "--variant=extract",
                                f"--architectures={b.arch.value}", "--include=" + ",".join(pkgs),
                                "--skip=cleanup/apt/cache", '--aptopt=Acquire::Check-Valid-Until "false"',
                                suite, str(part), mirror], stdout=f, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
        if r.returncode == 0:
            break
        found = UNKNOWN_PACKAGE.findall(log.read_text(errors="replace"))
        gone = {a or b for a, b in found} & set(pkgs)
        if not gone or gone & set(BASE_PACKAGES):
            shutil.rmtree(part, ignore_errors=True)
            raise ArchError(f"mmdebstrap could not extract {b.arch.value} packages of {suite}: {tail(log)} "
                            f"(whole log: {log})")
        missing |= gone
    versions = deb_versions(part)
    relative_links(part)
    merged_usr_links(part)
    if b.sysroot_dir.exists():
        shutil.rmtree(b.sysroot_dir)
    part.rename(b.sysroot_dir)
    skipped = [SkippedPackage(p, a, f"{suite} has no package {p} for {b.arch.value}") for a, p in wanted if p in missing]
    for s in skipped:
        say(f"{b.name}: {s.reason} (asked for by adapter {s.adapter}): skipped")
    packages = [PackageVersion(p, versions[p], a) for a, p in wanted if p in versions]
    return Sysroot(b.sysroot_dir, packages, skipped, round(time.monotonic() - t0, 1))


def deb_versions(tree: Path) -> dict[str, str]:
    """Package -> version of the .debs mmdebstrap downloaded into the tree, which are then removed."""
    out = {}
    archives = tree / "var" / "cache" / "apt" / "archives"
    for deb in sorted(archives.glob("*.deb")):
        r = subprocess.run(["dpkg-deb", "--showformat=${Package}\t${Version}\n", "--show", str(deb)],
                           capture_output=True, text=True)
        if r.returncode == 0 and "\t" in r.stdout:
            pkg, ver = r.stdout.strip().split("\t", 1)
            out[pkg] = ver
        deb.unlink()
    return out


def relative_links(tree: Path) -> None:
    """Point the tree's absolute symbolic links inside it. Packages ship some absolute ones
    (ppc64el's /lib64/ld64.so.2 -> /lib/powerpc64le-linux-gnu/ld64.so.2), which the kernel
    would follow on the host: qemu -L then finds no loader, and the linker no library."""
    for link in tree.rglob("*"):
        if not link.is_symlink():
            continue
        target = os.readlink(link)
        if target.startswith("/"):
            link.unlink()
            link.symlink_to(os.path.relpath(tree / target.lstrip("/"), link.parent))


def merged_usr_links(tree: Path) -> None:
    """/lib, /bin, /sbin and /lib64 as links into usr/ where the tree has none. From Debian 13
    (trixie) on, packages ship their files under /usr alone, the links being made by the
    installation extract does not run; the programs still name their loader /lib/ld-linux-*.so.1
    (riscv64's), which qemu -L then looks up in the tree."""
    for name in ("bin", "sbin", "lib", "lib64"):
        top, usr = tree / name, tree / "usr" / name
        if usr.is_dir() and not top.exists() and not top.is_symlink():
            top.symlink_to(Path("usr") / name)


def extract_alone(root: Path, arch: Arch, suite: str, sources: tuple[str, ...], package: str,
                  versions: tuple[str, ...], log: Path) -> str:
    """`package` alone, without its dependencies, unpacked into `root`: the first of `versions`
    (apt's `=VERSION`, `*` allowed) that `sources` (deb lines) hold for `arch`; its version is
    returned. mmdebstrap sets up apt for the architecture as for extract(), and its extract hook
    downloads the one .deb with that apt (MMDEBSTRAP_APT_CONFIG): a package whose files alone are
    wanted (a Rust target's rlibs) would otherwise bring its dependencies, which the mirror may
    not have (trixie's libc6 and libllvm22 for s390x are missing from it, 2026-11)."""
    if shutil.which("mmdebstrap") is None:
        raise ArchError("mmdebstrap is not installed: 'cipherbench arch add' installs it, or "
                        "scripts/install-system-deps --axis arch")
    tries = " || ".join(f"apt-get download {shlex.quote(f'{package}={v}')}" for v in versions)
    hook = (f'cd "$1" && export APT_CONFIG="$MMDEBSTRAP_APT_CONFIG" && {{ {tries}; }} && f=$(ls ./*.deb) && '
            f'dpkg-deb --field "$f" Version > {VERSION_FILE} && dpkg-deb --extract "$f" . && rm "$f"')
    shutil.rmtree(root, ignore_errors=True)
    with open(log, "wb") as f:
        r = subprocess.run(["nice", "-n", "10", "mmdebstrap", "--variant=extract", f"--architectures={arch.value}",
                            '--aptopt=Acquire::Check-Valid-Until "false"', f"--extract-hook={hook}",
                            suite, str(root), *sources], stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    got = root / VERSION_FILE
    if r.returncode != 0 or not got.is_file():
        shutil.rmtree(root, ignore_errors=True)
        text = log.read_text(errors="replace").splitlines()
        first = next((ln for ln in text if ln.startswith("E: ")), tail(log))
        raise ArchError(f"{package} ({' or '.join(versions)}) could not be had for {arch.value} from "
                        f"{'; '.join(sources)}: {first} (whole log: {log})")
    return got.read_text().strip()


#: Where extract_alone() leaves the version of the package it unpacked, in the tree.
VERSION_FILE = ".deb-version"
