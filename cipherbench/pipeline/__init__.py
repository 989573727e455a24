"""The run as a library: a validated plan (`plan`), its points (`points`), one function
that runs it (`execute.run_plan`) and what a run says besides figures (`notes`).

The names below are imported when first asked for (PEP 562): a reader of plans (the report's
verdicts, the fleet's records) gets `RunPlan` without loading the runners, the gate and the
measurer that `run_plan` needs, which cost every command that only reads a store a fifth of
a second."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cipherbench.pipeline.execute import Progress, RunOutcome, run_plan
    from cipherbench.pipeline.notes import RunWarning, WarningKind
    from cipherbench.pipeline.plan import Layout, RunPlan, load_presets

#: each name, and the module of this package it lives in
WHERE = {"Progress": "execute", "RunOutcome": "execute", "run_plan": "execute", "RunWarning": "notes",
         "WarningKind": "notes", "Layout": "plan", "RunPlan": "plan", "load_presets": "plan"}

__all__ = ["Layout", "Progress", "RunOutcome", "RunPlan", "RunWarning", "WarningKind", "load_presets", "run_plan"]


def __getattr__(name: str) -> Any:
    if name not in WHERE:
        raise AttributeError(f"module 'cipherbench.pipeline' has no attribute {name!r}")
    return getattr(importlib.import_module(f"cipherbench.pipeline.{WHERE[name]}"), name)
