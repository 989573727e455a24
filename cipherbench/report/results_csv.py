"""results.csv: one row per measurement, with a header (columns: results.document.CSV_COLUMNS);
fits.csv: one row per series, the fit of time against size (analysis/fit.py)."""
from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cipherbench.analysis.fit import SeriesFit, fits
from cipherbench.ct.show import cells
from cipherbench.results.document import CSV_COLUMNS
from cipherbench.results.rules import point_count
from cipherbench.results.run import MEASUREMENT_FIELDS, ReportData, fields_of


def write(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    path = out / "results.csv"
    n = write_measurements(data, path)
    count = point_count(m for _, m in data.measurements())
    assert n == count.rows  # a row per point, timed or not
    return [(path, f"a row per point: {count.short()}"), write_fits(data, out)]


def write_measurements(data: ReportData, path: Path) -> int:
    """One row per measurement, with the header; returns how many rows."""
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for row in csv_rows(data):
            w.writerow([cell(v) for v in row])
            n += 1
    return n


def csv_rows(data: ReportData) -> Iterator[list[Any]]:
    side = {run: cells(run.ct) for run in data.runs}
    for run, m in data.measurements():
        info = run.impl_info(m.impl)
        row = fields_of(m, MEASUREMENT_FIELDS)
        row.update(run_uuid=run.uuid, run_id=run.id, profile=run.profile, host=run.meta.host,
                   library=info.library, version=info.version,
                   warnings="; ".join(m.warnings or []),
                   features=" ".join(m.features) if m.features is not None else None,
                   side_channel=side.get(run, {}).get((m.impl, m.primitive)) or None)
        yield [row[c] for c in CSV_COLUMNS]


def cell(v: object) -> object:
    """Empty for null, floats in full precision; a text cell a spreadsheet would take for a
    formula (=, +, -, @, tab, CR first) is prefixed with an apostrophe."""
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return v


def write_fits(data: ReportData, out: Path) -> tuple[Path, str]:
    path = out / "fits.csv"
    cols = ["run_uuid", *SeriesFit.__dataclass_fields__, "implausible"]
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for run in data.runs:
            for s in fits(run.measurements):
                w.writerow([cell(v) for v in (run.uuid, *(getattr(s, c) for c in cols[1:]))])
                n += 1
    return path, f"{n} series fits"
