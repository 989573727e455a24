"""The versioned results document (docs/results-format.md) of one stored run, and the
check of a document's header before its fields are (results/schema.py)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cipherbench import __version__
from cipherbench.errors import UsageError
from cipherbench.results.run import (
    DIFFUSION_FIELDS,
    IMPLEMENTATION_FIELDS,
    MEASUREMENT_FIELDS,
    RUN_FIELDS,
    SAMPLE_FIELDS,
    VERIFICATION_FIELDS,
    Run,
    fields_of,
)
from cipherbench.store.records import FIELDS

SCHEMA = "cipherbench-results"
VERSION = 1

#: The run's identity and the implementation's library, then every measurement field.
CSV_COLUMNS = ("run_uuid", "run_id", "profile", "host", "impl", "library", "version",
               *(f for f in FIELDS if f != "impl"), "side_channel")


def results_document(run: Run, fits: Sequence[dict[str, Any]], with_samples: bool = True) -> dict[str, Any]:
    """The versioned, self-describing results document for one run. `fits` are the run's
    series fits as the document holds them (analysis.fit.fit_fields): derived, not stored,
    so the layer that computes them passes them in."""
    ms = []
    for m in run.measurements:
        d = fields_of(m, MEASUREMENT_FIELDS)
        if with_samples:
            d["samples"] = [fields_of(s, SAMPLE_FIELDS) for s in m.samples]
        ms.append(d)
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "generated_by": f"cipherbench {__version__}",
        "run": fields_of(run.meta, RUN_FIELDS),
        "context": run.context,
        "implementations": [fields_of(i, IMPLEMENTATION_FIELDS) for i in run.implementations],
        "verifications": [fields_of(v, VERIFICATION_FIELDS) for v in run.verifications],
        "measurements": ms,
        "diffusion": [fields_of(d, DIFFUSION_FIELDS) for d in run.diffusion],
        "fits": list(fits),
        "ct": [dict(x) for x in run.ct],
    }


def check_document(doc: Any) -> dict[str, Any]:
    """Accept any document of this schema and major version; unknown fields are ignored."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise UsageError(f"not a {SCHEMA} document (no \"schema\": \"{SCHEMA}\" field)")
    v = doc.get("version")
    if not isinstance(v, int) or v > VERSION or v < 1:
        raise UsageError(f"{SCHEMA} version {v!r} is not supported; this cipherbench reads "
                         f"version {VERSION} (upgrade cipherbench to read newer files)")
    run = doc.get("run") or {}
    if not run.get("uuid"):
        raise UsageError("the document has no run uuid (\"run\": {\"uuid\": ...})")
    return doc
