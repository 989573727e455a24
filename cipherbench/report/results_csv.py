"""results.csv: one row per measurement, with a header (columns: data.CSV_COLUMNS)."""
from __future__ import annotations

import csv
from pathlib import Path

from cipherbench.report.data import CSV_COLUMNS, ReportData, csv_rows


def write(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    path = out / "results.csv"
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for row in csv_rows(data):
            w.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])
            n += 1
    return [(path, f"{n} measurements")]
