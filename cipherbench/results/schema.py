"""The results document (docs/results-format.md) as a schema an import is checked against
before anything is written.

The models are made from the store's own tables, so a column added there is checked here
too: an Integer is a whole number within PostgreSQL's INTEGER (SQLite's is wider, the
narrower holds in both), a Float a finite number, a String no longer than its column, a
Boolean a boolean; nothing is coerced ("1.5" is not a number, true is not an integer).
On top of the column types: the fields the code decides on are their enumerations
(kinds.py), and the JSON fields the reports read have their shapes. Fields the document
may carry and this version does not know are ignored, as before.
"""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)
from sqlalchemy import JSON, Boolean, Column, DateTime, Float, Integer, String, Table, Text

from cipherbench.errors import UsageError
from cipherbench.kinds import CodeFeature, CycleSource, Operation, RunKind, RunStatus, Verdict, Workload
from cipherbench.store.sql_schema import (
    ct_results,
    diffusion,
    measurements,
    run_implementations,
    runs,
    samples,
    verifications,
)

#: PostgreSQL's INTEGER range.
INT_LOW, INT_HIGH = -(2**31), 2**31 - 1

Finite = Annotated[float, Strict(), Field(allow_inf_nan=False)]
Whole = Annotated[StrictInt, Field(ge=INT_LOW, le=INT_HIGH)]

#: Filled by the import itself, never taken from the document.
ASSIGNED = {"id", "run_id", "measurement_id", "schema_version", "pid"}

#: Fields whose values the code decides on, and JSON fields the reports read, by table.
REFINED: dict[str, dict[str, Any]] = {
    "runs": {"status": RunStatus, "kind": RunKind, "warnings": list[StrictStr | dict[StrictStr, Any]],
             "settings": dict[StrictStr, Any], "context": dict[StrictStr, Any]},
    "run_implementations": {"primitives": dict[StrictStr, StrictStr | None], "notes": dict[StrictStr, Any] | list[Any],
                            "features": dict[StrictStr, list[CodeFeature] | None]},
    "verifications": {"status": Verdict, "failures": list[Any], "checks": dict[StrictStr, Any]},
    "measurements": {"operation": Operation, "workload": Workload, "verified": Verdict, "cycle_kind": CycleSource,
                     "warnings": list[StrictStr], "features": list[CodeFeature]},
    "samples": {"parallel_ns": list[Finite]},
}

#: Fields without which a row means nothing, whatever the column allows.
REQUIRED: dict[str, set[str]] = {
    "runs": {"uuid"},
    "run_implementations": {"impl"},
    "verifications": {"impl", "primitive", "status"},
    "measurements": {"impl", "primitive", "operation", "workload", "size"},
    "samples": {"warmup", "loops", "ns"},
    "diffusion": {"impl", "primitive"},
    "ct_results": {"impl", "primitive", "method", "secret", "verdict"},
}


def _type_of(column: Column[Any]) -> Any:
    t = column.type
    if isinstance(t, Boolean):
        return StrictBool
    if isinstance(t, Integer):
        return Whole
    if isinstance(t, Float):
        return Finite
    if isinstance(t, DateTime):
        return datetime
    if isinstance(t, String) and not isinstance(t, Text) and t.length:
        return Annotated[StrictStr, Field(max_length=t.length)]
    if isinstance(t, (String, Text)):
        return StrictStr
    if isinstance(t, JSON):
        return Any
    raise TypeError(f"no document type for column {column.name} ({t!r})")


def model_of(table: Table, **more: Any) -> type[BaseModel]:
    """A model of one table's rows as the document holds them: every column but those the
    import assigns, typed as above; required where REQUIRED says, else null when absent."""
    refined = REFINED.get(table.name, {})
    required = REQUIRED.get(table.name, set())
    fields: dict[str, Any] = {}
    for c in table.columns:
        if c.name in ASSIGNED:
            continue
        kind = refined.get(c.name, _type_of(c))
        fields[c.name] = (kind, ...) if c.name in required else (kind | None, None)
    fields.update(more)
    return create_model(table.name.removesuffix("s"), __config__=ConfigDict(extra="ignore"), **fields)


SampleRow = model_of(samples)
#: A whole results document, as import reads it.
Document = create_model(
    "Document", __config__=ConfigDict(extra="ignore"),
    run=(model_of(runs), ...),
    context=(dict[StrictStr, Any] | None, None),
    implementations=(list[model_of(run_implementations)], []),  # type: ignore[misc]
    verifications=(list[model_of(verifications)], []),  # type: ignore[misc]
    measurements=(list[model_of(measurements, samples=(list[SampleRow], []))], []),  # type: ignore[misc,valid-type]
    diffusion=(list[model_of(diffusion)], []),  # type: ignore[misc]
    ct=(list[model_of(ct_results)], []),  # type: ignore[misc]
)


def checked(doc: dict[str, Any], source: str) -> dict[str, Any]:
    """The document as plain values once every field holds its type; one line naming the
    first field that does not, otherwise."""
    try:
        return Document.model_validate(doc).model_dump(mode="python")
    except ValidationError as e:
        first = e.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
        raise UsageError(f"{source}: {where}: {first['msg']} (of {e.error_count()} problems found)"
                         if e.error_count() > 1 else f"{source}: {where}: {first['msg']}") from None
