"""PyPI: a venv of the machine's python3 per wheel, run by the Python runner."""
from __future__ import annotations

import re
import sys

from cipherbench.paths import BUILD, REPO
from cipherbench.releases.client import Client, finals, run
from cipherbench.releases.release import Ecosystem, Package, Release


def install(r: Release) -> str:
    """A venv of the machine's python3 (the Python runner's interpreter) with the release alone,
    wheels only; the runner's two helper libraries beside it, where runner.py looks for them."""
    venv = r.root / "venv"
    if not (venv / "bin" / "python").exists():
        run(["python3", "-m", "venv", "--without-pip", str(venv)], f"{r.name}: venv")
    run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
         "--disable-pip-version-check", "--no-input", "--only-binary=:all:",
         f"{r.package.coordinate}=={r.version}"], f"{r.name}: pip")
    for lib in ("libcb_vector_state.so", "libcb_stack.so"):  # runner.py: next to the venv
        src, dst = BUILD / "runners" / "python" / lib, r.root / lib
        if src.exists() and not dst.exists():
            dst.symlink_to(src)
    return "venv"


def argv(r: Release) -> tuple[list[str], str | None]:
    return [str(r.root / "venv" / "bin" / "python"), "-u", str(REPO / "runners" / "python" / "runner.py")], None


def versions(package: Package) -> list[str]:
    text = run([sys.executable, "-m", "pip", "index", "versions", "--disable-pip-version-check",
                package.coordinate], f"{package.impl}: pip index")
    m = re.search(r"Available versions:\s*(.+)", text)
    return finals([v.strip() for v in m.group(1).split(",")] if m else [])


CLIENT = Client(Ecosystem.PYPI, install, argv, versions)
