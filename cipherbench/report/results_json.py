"""results.json: the versioned results document (docs/results-format.md), raw samples included."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cipherbench.analysis.fit import fit_fields
from cipherbench.results.document import results_document
from cipherbench.results.rules import point_count
from cipherbench.results.run import ReportData, Run


def document(run: Run, with_samples: bool = True) -> dict[str, Any]:
    """The run's results document with its derived fits (analysis/fit.py)."""
    return results_document(run, fit_fields(run.measurements), with_samples)


def dump(doc: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(doc, indent=1, allow_nan=False, default=str) + "\n")


def write(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    """One document per run: results.json for one run, results-run<ID>.json for each of several."""
    written = []
    for run in data.runs:
        path = out / ("results.json" if not data.multi else f"results-run{run.id}.json")
        dump(document(run), path)
        n = sum(len(m.samples) for m in run.measurements)
        written.append((path, f"a measurement per point ({point_count(run.measurements).short()}), {n} raw samples"))
    return written
