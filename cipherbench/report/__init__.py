"""Reports: one loader (load: the stored runs, with what the analysis adds) and one exporter
per format.

Every exporter module has `write(data: ReportData, out_dir: Path) -> [(path, what)]`.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cipherbench.analysis.constant_time import ct_checks, rows_beside
from cipherbench.analysis.recommend import recommend
from cipherbench.analysis.versions import version_gaps
from cipherbench.results import run as results_run
from cipherbench.results.run import ReportData
from cipherbench.store.db import Store
from cipherbench.store.sql_schema import CT_FIELDS


def load(store: Store, run_ids: Iterable[int] = (), with_samples: bool = True) -> ReportData:
    """The stored runs (results.run.load), each with the side-channel verdicts of other runs
    that vouch for its builds, their constant-time marks, and the other versions of its
    libraries timed at each use case's winning point on its host. The answer is computed
    here, once per run, and every writer shows it (Run.answers)."""
    data = results_run.load(store, run_ids, with_samples)
    for run in data.runs:
        checks = ct_checks(store, run.id)
        run.ct = [{k: x.get(k) for k in CT_FIELDS} for x in rows_beside(run.id, run.ct, checks)]
        run.ct_marks = {k: mark for k, (mark, _) in checks.items()}
        run.answers = recommend(run.measurements, run.implementations, ct=run.ct_marks)
        run.versions = {a.spec.case: version_gaps(store, a, run.id, run.meta.host) for a in run.answers}
    return data


def write_all(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    # The exporters are imported here, not with the package: the commands that only read the
    # answer from it (show, recommend, the end of run: report.answer) would otherwise load
    # plotly and every table's module, about half a second of CPU each time they start.
    from cipherbench.report import html, markdown, results_csv, results_json
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for exporter in (html, markdown, results_csv, results_json):
        written += exporter.write(data, out)
    return written


__all__ = ["ReportData", "load", "write_all"]
