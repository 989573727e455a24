"""Where the checkout and its build are. Everything that reads a file of the repository
(registry/, vectors/, runners/) or a built artefact finds it through these."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("CIPHERBENCH_BUILD", REPO / "build"))
#: The registry folder published-figures.toml, security-margins.toml (registry_models.py) and
#: experiments.toml (pipeline/plan.py) are read from; CIPHERBENCH_REGISTRY names another (a
#: test's copy with a study added or an entry broken). primitives.toml and builds.toml are the
#: checkout's: the engine and its variants are built from them.
REGISTRY = Path(os.environ.get("CIPHERBENCH_REGISTRY", REPO / "registry"))
