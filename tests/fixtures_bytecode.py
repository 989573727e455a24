"""The compiled bytecode of every module the tests' commands import, written once and read by
every later process of the run (and of the next run on this machine).

Where PYTHONDONTWRITEBYTECODE is set (CI's sandbox sets it), no Python process keeps the
bytecode it compiles: every `python -m cipherbench` a test starts (hundreds a run) compiled
the orchestrator's ~190 modules again, 0.4 to 0.6 s of CPU each (measured on the developers'
host: `python -c "import cipherbench.cli.run, ..."` 2.36 s of CPU without kept bytecode,
1.75 s with it). The wish behind the variable, no bytecode beside the sources, is kept: the
bytecode goes to a folder of its own outside the clone (PYTHONPYCACHEPREFIX, beside the
tests' other builds), and Python checks each file against its source's time and size, as it
does in __pycache__. Set in pytest_configure, before xdist starts its workers, so that they
and everything they start inherit it."""
from __future__ import annotations

import os

from conftest import TEST_BUILDS

#: Where the bytecode goes (Python mirrors each source's absolute path under it)
PYCACHE = TEST_BUILDS / "pycache"


def pytest_configure(config) -> None:
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
