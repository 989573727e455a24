import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ENGINE = REPO / "build" / "engine" / "cipherbench-engine"
FAULTY = REPO / "tests" / "runners" / "faulty.py"


@pytest.fixture(scope="session", autouse=True)
def engine_built():
    if not ENGINE.exists():
        pytest.exit(f"{ENGINE} is missing: run 'make engine' (make test does)", returncode=1)


@pytest.fixture()
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'results.sqlite'}"


@pytest.fixture()
def cb(db):
    """Run the CLI as a user does; returns CompletedProcess."""
    def run(*args, env=None, timeout=300):
        e = dict(os.environ, CIPHERBENCH_DB=db, **(env or {}))
        return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True,
                              text=True, timeout=timeout, env=e, cwd=REPO)
    return run


def faulty(mode: str) -> str:
    return f"{sys.executable} {FAULTY} {mode}"


@pytest.fixture(scope="session")
def native_session():
    from cipherbench.measure.session import Session
    s = Session(builtin=True, only_runners={"native"}, pin=False)
    yield s
    s.close()
