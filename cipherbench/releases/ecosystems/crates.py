"""crates.io: the Rust runner rebuilt with the crate locked at the release's version."""
from __future__ import annotations

import os
import re
import shutil

from cipherbench.paths import REPO
from cipherbench.releases.client import Client, run
from cipherbench.releases.ecosystems.go import built_argv
from cipherbench.releases.release import Ecosystem, Release, ReleaseError


def install(r: Release) -> str:
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
    run(["cargo", "update", "--quiet", "-p", r.package.coordinate], f"{r.name}: cargo update", cwd=src)
    target = r.root.parent.parent / "target"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    run(["nice", "-n", "10", "cargo", "build", "--quiet", "--release", "--locked"], f"{r.name}: cargo build",
        cwd=src, env=env)
    shutil.copy2(target / "release" / "cipherbench-rust", r.root / "cipherbench-rust")
    return "cipherbench-rust"


def argv(r: Release) -> tuple[list[str], str | None]:
    return built_argv(r, "rust", "cipherbench-rust")


# cargo has no listing of a crate's versions: crates take named versions.
CLIENT = Client(Ecosystem.CRATES, install, argv)
