"""Go modules: the Go runner rebuilt against the module at the release's version."""
from __future__ import annotations

import shutil

from cipherbench.paths import BUILD, REPO
from cipherbench.releases.client import Client, finals, run
from cipherbench.releases.release import Ecosystem, Package, Release


def install(r: Release) -> str:
    """The Go runner's sources, with the module at the release's version, built into one binary."""
    src = r.root / "src"
    src.mkdir(parents=True, exist_ok=True)
    here = REPO / "runners" / "go"
    for f in [*here.glob("*.go"), here / "go.mod", here / "go.sum"]:
        shutil.copy2(f, src / f.name)
    version = r.version if r.version.startswith("v") else f"v{r.version}"
    run(["go", "get", f"{r.package.coordinate}@{version}"], f"{r.name}: go get", cwd=src)
    run(["go", "build", "-trimpath", "-o", str(r.root / "cipherbench-go"), "."], f"{r.name}: go build", cwd=src)
    return "cipherbench-go"


def built_argv(r: Release, lang: str, binary: str) -> tuple[list[str], str | None]:
    """A compiled runner's binary in the release's folder, with the registry its build wrote."""
    registry = BUILD / "runners" / lang / "registry.json"
    return ([str(r.root / binary), "--registry", str(registry)],
            None if registry.exists() else f"the {lang} runner is not built ({registry} is missing; run 'make runners')")


def argv(r: Release) -> tuple[list[str], str | None]:
    return built_argv(r, "go", "cipherbench-go")


def versions(package: Package) -> list[str]:
    text = run(["go", "list", "-m", "-versions", package.coordinate], f"{package.impl}: go list", cwd=BUILD)
    return finals(text.split()[1:])


CLIENT = Client(Ecosystem.GO, install, argv, versions)
