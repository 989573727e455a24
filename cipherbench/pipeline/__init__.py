"""The run as a library: a validated plan (`plan`), its points (`points`), one function
that runs it (`execute.run_plan`) and what a run says besides figures (`notes`)."""
from cipherbench.pipeline.execute import Progress, RunOutcome, run_plan
from cipherbench.pipeline.notes import RunWarning, WarningKind
from cipherbench.pipeline.plan import Layout, RunPlan, load_presets

__all__ = ["Layout", "Progress", "RunOutcome", "RunPlan", "RunWarning", "WarningKind", "load_presets", "run_plan"]
