"""Installing one release in its folder, and what it then announces.

Each ecosystem's install uses that registry's ordinary client as this machine has it set up
(releases/ecosystems/, one module each: pip, Maven, go, cargo, npm). Then the release's runner
is started and greeted: the release is installed only when it announces the version asked
for and offers at least one registry primitive; its record says what it announced and is
written last, so an install that stopped half-way is done again, and one that finished is
never done twice.
"""
from __future__ import annotations

import datetime
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from cipherbench.codepath import code_label, read_features
from cipherbench.errors import RunnerError
from cipherbench.measure.runner import RunnerProcess
from cipherbench.releases.client import reason_of
from cipherbench.releases.ecosystems import client_of
from cipherbench.releases.release import (
    Package,
    Release,
    ReleaseError,
    ReleaseRecord,
    version_key,
)
from cipherbench.releases.runners import spec_of

Say = Callable[[str], None]

#: The primitive whose code path a release's announcement names: the first it offers.
PATH_PRIMITIVES = ("aes-128-gcm", "chacha20-poly1305", "aes-128-cbc", "sha-256")
#: What the announced version of a package is compared by: its numbers, without trailing zeros
#: ("1.70" is Bouncy Castle's Bundle-Version "1.70.0"; Go's "v0.31.0" is "0.31.0").
_ZEROS = re.compile(r"(\.0+)+$")


def same_version(asked: str, announced: str) -> bool:
    def norm(v: str) -> tuple[tuple[int, int | str], ...]:
        return version_key(_ZEROS.sub("", v.strip().lstrip("v")))
    return bool(announced) and norm(asked) == norm(announced)


def registry_versions(package: Package) -> list[str]:
    """Every final release the registry serves, oldest first, as its client lists them; a
    client with no listing (Maven's, cargo's) makes the versions named."""
    listing = client_of(package.ecosystem).versions
    if listing is None:
        raise ReleaseError(f"{package.impl}: --all and --since take the versions from the registry's client, "
                           f"and {package.ecosystem.value}'s lists none; name {package.library}'s versions instead")
    return sorted(dict.fromkeys(listing(package)), key=version_key)


# ---------------------------------------------------------------------------- install and announce
def announce(r: Release, seconds: float, artifact: str) -> ReleaseRecord:
    """Start the release's runner, read its hello, and check it runs the release asked for."""
    spec = spec_of(r)
    if spec.unavailable:
        raise ReleaseError(f"{r.name}: {spec.unavailable}")
    try:
        proc = RunnerProcess(spec, timeout=120)
        try:
            hello = proc.request({"op": "hello"}, timeout=120)
        finally:
            proc.close()
    except RunnerError as e:
        raise ReleaseError(f"{r.name}: its runner does not start: {e}") from None
    impl = next((i for i in hello.get("implementations", []) if isinstance(i, dict)
                 and i.get("name") == r.package.impl), None)
    if impl is None:
        raise ReleaseError(f"{r.name}: the {r.package.runner} runner announces no {r.package.impl}")
    if not impl.get("available", True) or not impl.get("primitives"):
        raise ReleaseError(f"{r.name}: unusable here: {impl.get('reason') or 'it offers no primitive'}")
    notes = impl.get("notes")
    notes = notes if isinstance(notes, dict) else {}
    version = r.package.release_version(str(impl.get("version", "")), notes)
    if not same_version(r.version, version):
        raise ReleaseError(f"{r.name}: the runner announces version {version!r}, not {r.version}")
    prims = {str(p.get("name")): str(p.get("provider", "")) for p in impl["primitives"] if isinstance(p, dict)}
    code = r.package.code_text(notes)
    features = {str(p.get("name")): read_features(p.get("features"))[0] for p in impl["primitives"] if isinstance(p, dict)}
    path_prim = next((p for p in PATH_PRIMITIVES if p in prims), next(iter(prims)))
    return ReleaseRecord(
        package=r.package.impl, version=r.version, ecosystem=r.package.ecosystem.value,
        coordinate=client_of(r.package.ecosystem).coordinate(r.package, r.version), announced_version=version, code=code or f"{r.package.library} {version}",
        path=f"{path_prim}: {code_label(features.get(path_prim))}", path_words=prims[path_prim], primitives=len(prims), source_build=r.package.source_build,
        seconds=round(seconds, 1), installed_at=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        artifact=artifact)


def install(r: Release) -> tuple[ReleaseRecord, bool]:
    """The release installed and announced, and whether this call installed it (False: it
    already was). ReleaseError says in one line why it cannot be; its folder is then removed.
    A release recorded before records said their code path's words (and features) is
    announced again, not installed again: its record then says what the runner now reads."""
    if r.exists():
        old = r.record()
        if old.path_words:
            return old, False
        rec = announce(r, old.seconds, old.artifact)
        r.write(rec)
        return rec, False
    t0 = time.monotonic()
    r.root.mkdir(parents=True, exist_ok=True)
    try:
        artifact = client_of(r.package.ecosystem).install(r)
        rec = announce(r, time.monotonic() - t0, artifact)
    except ReleaseError:
        shutil.rmtree(r.root, ignore_errors=True)
        raise
    r.write(rec)
    return rec, True


def remove(r: Release) -> Path | None:
    """Delete a release's folder; the folder, or None when there was none."""
    if not r.root.exists():
        return None
    shutil.rmtree(r.root)
    return r.root


__all__ = ["announce", "install", "reason_of", "registry_versions", "remove", "same_version"]
