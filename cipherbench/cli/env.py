"""`cipherbench env create|list|remove`: Debian releases' root filesystems with the engine inside."""
from __future__ import annotations

import json
import time
from dataclasses import asdict

import click

from cipherbench.console import Cell, Col, Grid, lit, out
from cipherbench.envs import build
from cipherbench.envs.environment import DEFAULT_MIRROR, all_envs, envs_dir
from cipherbench.registry import NULL_IMPL, REFERENCE_IMPL


@click.group("env", epilog="Start with: cipherbench env create bookworm (then cipherbench run --env "
             "bookworm, or run --experiment debian-releases for every release created).")
def env_group():
    """Debian releases as library-version environments (root filesystems built with mmdebstrap,
    kept under $CIPHERBENCH_ENVS or ~/.cache/cipherbench/envs); use one with --env NAME."""


@env_group.command("create")
@click.argument("release")
@click.option("--name", default=None, help="The environment's name (default: the release); it prefixes "
                                           "its implementations (NAME:openssl).")
@click.option("--adapter", "adapters", multiple=True,
              help="Only this adapter's packages (repeatable; default: every adapter's).")
@click.option("--mirror", default=DEFAULT_MIRROR, show_default=True, help="Debian archive to build from.")
def create_cmd(release, name, adapters, mirror):
    """Build RELEASE's root filesystem (any suite the archive serves: bullseye, trixie, sid, ...)
    and the engine inside it; again on an existing one: rebuild the engine if its sources changed."""
    t0 = time.monotonic()
    rec = build.create(release, name, list(adapters) or None, mirror, say=lambda s: out.print(s, markup=False))
    libs = ", ".join(f"{p.package} {p.version}" for p in rec.packages if p.adapter)
    out.print(f"{rec.name}: Debian {rec.debian_version} ({rec.suite}), {rec.compiler}; {libs or 'no libraries'}",
              markup=False)
    for s in rec.skipped:
        out.print(f"{rec.name}: skipped {s.package} ({s.adapter}): {s.reason}", markup=False)
    out.print(f"{rec.name}: ready in {time.monotonic() - t0:.0f} s; use it with "
              f"'cipherbench --env {rec.name} ...'", markup=False)


@env_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Every environment's record.")
def list_cmd(as_json):
    """The environments built, their release, compiler and libraries."""
    envs = all_envs()
    if as_json:
        click.echo(json.dumps([asdict(e.record()) for e in envs], indent=1))
        return
    if not envs:
        out.print(f"no environments in {envs_dir()} ('cipherbench env create RELEASE' builds one)", markup=False)
        return
    t = Grid([Col("name", Cell.NAME), Col("release", Cell.NAME, key=False), Col("debian", Cell.FIGURE),
              Col("compiler", fold=2), Col("implementations", fold=3), Col("built", Cell.NAME, key=False, fold=1),
              Col("engine")])
    for e in envs:
        r = e.record()
        impls = ", ".join(f"{i.name} {i.version.split()[1] if i.version.startswith('OpenSSL ') else i.version}"
                          for i in r.implementations if i.available and i.name not in (NULL_IMPL, REFERENCE_IMPL))
        t.add_row(*map(lit, (r.name, r.suite, r.debian_version, r.compiler, impls, r.built_at,
                             r.engine_problem or "ok")))
    out.print(t)
    out.print(f"environments in {envs_dir()}; next: cipherbench run --experiment debian-releases", markup=False)


@env_group.command("remove")
@click.argument("name")
def remove_cmd(name):
    """Delete an environment and its root filesystem."""
    out.print(f"removed {build.remove(name)}", markup=False)
