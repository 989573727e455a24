"""Installing one release in its folder, and what it then announces.

Each ecosystem's install uses that registry's ordinary client as this machine has it set up:
pip (wheels only, into a venv of the release's own), Maven (the jar of that version), the
go command (the Go runner rebuilt against that module version). Then the release's runner
is started and greeted: the release is installed only when it announces the version asked
for and offers at least one registry primitive; its record says what it announced and is
written last, so an install that stopped half-way is done again, and one that finished is
never done twice.
"""
from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cipherbench.codepath import code_label, read_features
from cipherbench.errors import RunnerError
from cipherbench.measure.runner import RunnerProcess
from cipherbench.paths import BUILD, REPO
from cipherbench.releases.model import (
    Ecosystem,
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
#: What one client call may take: a slow mirror, never a hung one.
CLIENT_TIMEOUT = 900
#: Bouncy Castle's last release as bcprov-jdk15on; later ones are bcprov-jdk18on.
BC_LAST_JDK15 = "1.70"
#: What the announced version of a package is compared by: its numbers, without trailing zeros
#: ("1.70" is Bouncy Castle's Bundle-Version "1.70.0"; Go's "v0.31.0" is "0.31.0").
_ZEROS = re.compile(r"(\.0+)+$")


def same_version(asked: str, announced: str) -> bool:
    def norm(v: str) -> tuple[tuple[int, int | str], ...]:
        return version_key(_ZEROS.sub("", v.strip().lstrip("v")))
    return bool(announced) and norm(asked) == norm(announced)


def _run(argv: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """A client call; ReleaseError with the client's own reason in one line when it fails."""
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    except FileNotFoundError:
        raise ReleaseError(f"{what}: {argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise ReleaseError(f"{what}: {Path(argv[0]).name} gave no answer in {CLIENT_TIMEOUT} s") from None
    if p.returncode != 0:
        raise ReleaseError(f"{what}: {reason_of(p.stderr + p.stdout) or f'{argv[0]} exited {p.returncode}'}")
    return p.stdout


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


# ---------------------------------------------------------------------------- ecosystems
def install_pypi(r: Release) -> str:
    """A venv of the machine's python3 (the Python runner's interpreter) with the release alone,
    wheels only; the runner's two helper libraries beside it, where runner.py looks for them."""
    venv = r.root / "venv"
    if not (venv / "bin" / "python").exists():
        _run(["python3", "-m", "venv", "--without-pip", str(venv)], f"{r.name}: venv")
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
          "--disable-pip-version-check", "--no-input", "--only-binary=:all:",
          f"{r.package.coordinate}=={r.version}"], f"{r.name}: pip")
    for lib in ("libcb_vector_state.so", "libcb_stack.so"):  # runner.py: next to the venv
        src, dst = BUILD / "runners" / "python" / lib, r.root / lib
        if src.exists() and not dst.exists():
            dst.symlink_to(src)
    return "venv"


def maven_artifact(package: Package, version: str) -> str:
    """group:artifact:version of a release: Bouncy Castle's jar changed its name after 1.70."""
    group, artifact = package.coordinate.split(":")
    if package.impl == "bouncycastle" and version_key(version) <= version_key(BC_LAST_JDK15):
        artifact = "bcprov-jdk15on"
    return f"{group}:{artifact}:{version}"


def install_maven(r: Release) -> str:
    """The release's jar, copied into its folder as jar/ holds it alone (the Java runner's
    classpath takes it in place of the one it was built with)."""
    out = r.root / "jar"
    _run(["mvn", "-q", "-B", "-Dstyle.color=never", "dependency:copy",
          f"-Dartifact={maven_artifact(r.package, r.version)}", f"-DoutputDirectory={out}"],
         f"{r.name}: mvn", cwd=r.root)
    if not list(out.glob("*.jar")):
        raise ReleaseError(f"{r.name}: mvn copied no jar into {out}")
    return "jar"


def install_go(r: Release) -> str:
    """The Go runner's sources, with the module at the release's version, built into one binary."""
    src = r.root / "src"
    src.mkdir(parents=True, exist_ok=True)
    here = REPO / "runners" / "go"
    for f in [*here.glob("*.go"), here / "go.mod", here / "go.sum"]:
        shutil.copy2(f, src / f.name)
    version = r.version if r.version.startswith("v") else f"v{r.version}"
    _run(["go", "get", f"{r.package.coordinate}@{version}"], f"{r.name}: go get", cwd=src)
    _run(["go", "build", "-trimpath", "-o", str(r.root / "cipherbench-go"), "."], f"{r.name}: go build", cwd=src)
    return "cipherbench-go"


def install_crates(r: Release) -> str:
    """The Rust runner's sources with the crate locked at the release's version, built with the
    runner's own release profile. The releases share one target folder (crates/target beside
    them; cargo locks it), so only the crate and the runner are compiled again per release."""
    src = r.root / "src"
    here = REPO / "runners" / "rust"
    shutil.copytree(here / "src", src / "src", dirs_exist_ok=True)
    for f in ("Cargo.lock", "build.rs"):
        shutil.copy2(here / f, src / f)
    # the runner asks for a version or later (`ring = "0.17.14"`): this one asks for the release alone
    toml, n = re.subn(rf'(?m)^{re.escape(r.package.coordinate)}\s*=\s*"[^"]*"',
                      f'{r.package.coordinate} = "={r.version}"', (here / "Cargo.toml").read_text())
    if n != 1:
        raise ReleaseError(f"{r.name}: runners/rust/Cargo.toml names no {r.package.coordinate} = \"VERSION\"")
    (src / "Cargo.toml").write_text(toml)
    _run(["cargo", "update", "--quiet", "-p", r.package.coordinate], f"{r.name}: cargo update", cwd=src)
    target = r.root.parent.parent / "target"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    _run(["nice", "-n", "10", "cargo", "build", "--quiet", "--release", "--locked"], f"{r.name}: cargo build",
         cwd=src, env=env)
    shutil.copy2(target / "release" / "cipherbench-rust", r.root / "cipherbench-rust")
    return "cipherbench-rust"


INSTALLERS: dict[Ecosystem, Callable[[Release], str]] = {
    Ecosystem.PYPI: install_pypi, Ecosystem.MAVEN: install_maven, Ecosystem.GO: install_go,
    Ecosystem.CRATES: install_crates}


# ---------------------------------------------------------------------------- versions on offer
def registry_versions(package: Package) -> list[str]:
    """Every release the registry serves, oldest first: pip's and go's own listings. Maven's
    client has no such listing, so Maven packages take named versions."""
    if package.ecosystem is Ecosystem.PYPI:
        text = _run([sys.executable, "-m", "pip", "index", "versions", "--disable-pip-version-check",
                     package.coordinate], f"{package.impl}: pip index")
        m = re.search(r"Available versions:\s*(.+)", text)
        found = [v.strip() for v in m.group(1).split(",")] if m else []
    elif package.ecosystem is Ecosystem.GO:
        text = _run(["go", "list", "-m", "-versions", package.coordinate], f"{package.impl}: go list", cwd=BUILD)
        found = text.split()[1:]
    else:
        raise ReleaseError(f"{package.impl}: --all and --since take the versions from pip or go; "
                           f"name {package.library}'s versions instead")
    finals = [v for v in found if not re.search(r"[a-z]", v.lstrip("v"))]  # no pre-releases
    return sorted(dict.fromkeys(finals), key=version_key)


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
    version = str(impl.get("version", ""))
    if not same_version(r.version, version):
        raise ReleaseError(f"{r.name}: the runner announces version {version!r}, not {r.version}")
    prims = {str(p.get("name")): str(p.get("provider", "")) for p in impl["primitives"] if isinstance(p, dict)}
    notes = impl.get("notes")
    notes = notes if isinstance(notes, dict) else {}
    code = " ".join(str(notes.get(r.package.code_note, "")).split()) if r.package.code_note else ""
    features = {str(p.get("name")): read_features(p.get("features"))[0] for p in impl["primitives"] if isinstance(p, dict)}
    path_prim = next((p for p in PATH_PRIMITIVES if p in prims), next(iter(prims)))
    return ReleaseRecord(
        package=r.package.impl, version=r.version, ecosystem=r.package.ecosystem.value,
        coordinate=maven_artifact(r.package, r.version) if r.package.ecosystem is Ecosystem.MAVEN
        else r.package.coordinate, announced_version=version, code=code or f"{r.package.library} {version}",
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
        artifact = INSTALLERS[r.package.ecosystem](r)
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


__all__ = ["announce", "install", "registry_versions", "remove", "same_version"]
