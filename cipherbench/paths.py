"""Where the checkout and its build are. Everything that reads a file of the repository
(registry/, vectors/, runners/) or a built artefact finds it through these."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("CIPHERBENCH_BUILD", REPO / "build"))
#: The registry folder the cited files are read from (registry_models.py); CIPHERBENCH_REGISTRY
#: names another (a test's copy with a study added or an entry broken).
REGISTRY = Path(os.environ.get("CIPHERBENCH_REGISTRY", REPO / "registry"))
