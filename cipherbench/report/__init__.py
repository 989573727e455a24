"""Reports: one loader (data.load) and one exporter per format.

Every exporter module has `write(data: ReportData, out_dir: Path) -> [(path, what)]`.
"""
from __future__ import annotations

from pathlib import Path

from cipherbench.report import html, markdown, results_csv, results_json
from cipherbench.results.run import ReportData, load

EXPORTERS = (html, markdown, results_csv, results_json)


def write_all(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for exporter in EXPORTERS:
        written += exporter.write(data, out)
    return written


__all__ = ["EXPORTERS", "ReportData", "load", "write_all"]
