"""Move runs between stores as results documents (docs/results-format.md).

Export writes the document of one run with its raw samples. Import writes it
into any store (SQLite or PostgreSQL) under a new run id in one transaction,
and refuses a run whose uuid the store already holds.
"""
from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.results.document import check_document
from cipherbench.results.run import IMPLEMENTATION_FIELDS, MEASUREMENT_FIELDS, SAMPLE_FIELDS, VERIFICATION_FIELDS
from cipherbench.results.schema import checked
from cipherbench.store.db import Store, describe, hidden_run_fields, kind_of_old_run
from cipherbench.store.sql_schema import (
    CT_FIELDS,
    DIFFUSION_FIELDS,
    SCHEMA_VERSION,
    ct_results,
    diffusion,
    measurements,
    run_implementations,
    runs,
    samples,
    verifications,
)


def write_document(doc: dict[str, Any], path: Path) -> None:
    """An exported results document (results/document.py), as `read_document` reads it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")


def read_document(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{path} is not JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise UsageError(f"{path} nests deeper than any results document does") from None
    return checked(check_document(doc), str(path))


def _when(s: datetime | None) -> datetime | None:
    """A time as the document check left it; one without a zone is taken as UTC."""
    if s is None:
        return None
    return s if s.tzinfo else s.replace(tzinfo=UTC)


def already_there(store: Store, uuid: str) -> int | None:
    with store.engine.connect() as c:
        return c.execute(select(runs.c.id).where(runs.c.uuid == uuid)).scalar()


def import_document(store: Store, doc: dict[str, Any]) -> int:
    """Write one results document, as read_document checked it, as a new run; returns its
    id in this store."""
    run = doc["run"]
    uuid = run["uuid"]
    msg = (f"run {uuid} is already in {describe(store.url)} as run {{}}; "
           "importing it twice would count its measurements twice")
    existing = already_there(store, uuid)
    if existing is not None:
        raise CipherbenchError(msg.format(existing))
    try:
        with store.engine.begin() as c:  # all or nothing
            rid = c.execute(runs.insert().values(
                uuid=uuid, started_at=_when(run.get("started_at")) or datetime.now().astimezone(),
                finished_at=_when(run.get("finished_at")), status=run.get("status") or "complete",
                profile=run.get("profile"), host=run.get("host"),
                kind=run.get("kind") or kind_of_old_run(run.get("profile")).value,
                cipherbench_version=run.get("cipherbench_version"), git_revision=run.get("git_revision"),
                context=doc.get("context") or {}, warnings=run.get("warnings") or [], schema_version=SCHEMA_VERSION,
                **hidden_run_fields({"command": run.get("command"), "settings": run.get("settings") or {}}),
                )).inserted_primary_key[0]
            impls = [dict({k: i.get(k) for k in IMPLEMENTATION_FIELDS}, run_id=rid)
                     for i in doc.get("implementations", [])]
            if impls:
                c.execute(run_implementations.insert(), impls)
            vers = [dict({k: v.get(k) for k in VERIFICATION_FIELDS}, run_id=rid)
                    for v in doc.get("verifications", [])]
            if vers:
                c.execute(verifications.insert(), vers)
            for m in doc.get("measurements", []):
                row = {k: m.get(k) for k in MEASUREMENT_FIELDS}
                row["aad_size"] = row["aad_size"] or 0
                mid = c.execute(measurements.insert().values(run_id=rid, **row)).inserted_primary_key[0]
                raw = [dict({k: s.get(k) for k in SAMPLE_FIELDS}, measurement_id=mid)
                       for s in m.get("samples", [])]
                for i, s in enumerate(raw):
                    if s["seq"] is None:
                        s["seq"] = i
                if raw:
                    c.execute(samples.insert(), raw)
            diff = [dict({k: d.get(k) for k in DIFFUSION_FIELDS}, run_id=rid) for d in doc.get("diffusion", [])]
            if diff:
                c.execute(diffusion.insert(), diff)
            side = [dict({k: x.get(k) for k in CT_FIELDS}, run_id=rid) for x in doc.get("ct", [])]
            if side:
                c.execute(ct_results.insert(), side)
    except IntegrityError:  # another import of the same run won the race
        raise CipherbenchError(msg.format(already_there(store, uuid))) from None
    return int(rid)
