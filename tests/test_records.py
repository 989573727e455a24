"""The measurement record is defined once (store/records.py); the store, the results
document, the CSV and docs/results-format.md follow it."""
from __future__ import annotations

import re

from cipherbench.paths import REPO
from cipherbench.results.document import CSV_COLUMNS
from cipherbench.results.run import MEASUREMENT_FIELDS
from cipherbench.store.records import FIELDS
from cipherbench.store.sql_schema import measurements


def documented_fields(section: str) -> list[str]:
    """The backticked names in the first column of a section's table, in order."""
    text = (REPO / "docs" / "results-format.md").read_text()
    body = text.split(f"### `{section}`", 1)[1].split("\n#", 1)[0]
    names = []
    for line in body.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([a-z_]+)`", line.split("|")[1])
    return names


def test_store_columns_are_the_record():
    assert [c.name for c in measurements.columns][2:] == list(FIELDS)


def test_document_and_csv_follow_the_record():
    assert MEASUREMENT_FIELDS == FIELDS
    assert CSV_COLUMNS[7:-1] == FIELDS[1:] and CSV_COLUMNS[-1] == "side_channel"  # then cipherbench ct's cell


def test_results_format_documents_every_field_in_order():
    doc = [n for n in documented_fields("measurements") if n != "samples"]
    assert doc == list(FIELDS)
