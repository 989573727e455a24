"""One loader for every reader of stored runs: a stored run -> `Run`.

Everything downstream (analysis, HTML, Markdown, CSV, JSON, compare, export) reads what
`load()` returns, so nothing above the store queries it itself. The results document
(docs/results-format.md) is built from a `Run` in results/document.py.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select

from cipherbench import registry
from cipherbench.errors import CipherbenchError
from cipherbench.paths import REPO
from cipherbench.store.db import (
    CT_FIELDS,
    DIFFUSION_FIELDS,
    Store,
    describe,
    measurements,
    samples,
)
from cipherbench.store.records import FIELDS, message_of

PUBLISHED_FILE = REPO / "registry" / "published-figures.toml"

KEYSETUP_OPS = ("keysetup", "keysetup-decrypt")
# Fields of a stored measurement that belong in the document (store ids do not).
MEASUREMENT_FIELDS = FIELDS
# core_ghz and adds_per_cycle of a sample: the core clock and the parallel adds per cycle measured
# around that batch (absent in documents of older versions; they read as null, as the store's
# later schemas read an earlier store)
SAMPLE_FIELDS = ("seq", "warmup", "loops", "ns", "tsc", "core_cycles", "core_ghz", "adds_per_cycle",
                 "set_aside")
IMPLEMENTATION_FIELDS = ("impl", "runner", "library", "version", "available", "reason",
                         "primitives", "notes", "environment")
VERIFICATION_FIELDS = ("impl", "primitive", "status", "checks", "failures", "verified_at")
RUN_FIELDS = ("uuid", "profile", "status", "started_at", "finished_at", "command", "host",
              "cipherbench_version", "git_revision", "settings", "warnings")


def iso(t) -> str | None:
    """Datetimes as ISO 8601 in UTC. SQLite hands back naive values (stored as
    UTC), PostgreSQL aware ones; both print the same."""
    if t is None:
        return None
    if isinstance(t, str):
        t = datetime.fromisoformat(t)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.astimezone(UTC).isoformat()


@dataclass(eq=False)  # identity: runs are used as dict keys and in sets
class Run:
    """One stored run with everything it measured."""

    id: int  # in the store it was read from
    meta: dict  # RUN_FIELDS
    context: dict
    implementations: list[dict]
    verifications: list[dict]
    measurements: list[dict]  # MEASUREMENT_FIELDS + "id" + "samples" (list of SAMPLE_FIELDS)
    store: str = ""
    diffusion: list[dict] = field(default_factory=list)  # DIFFUSION_FIELDS (cipherbench/diffusion.py)
    ct: list[dict] = field(default_factory=list)  # store.CT_FIELDS: side-channel checks (cipherbench/ct)

    @property
    def uuid(self) -> str:
        return self.meta["uuid"]

    @property
    def profile(self) -> str:
        return self.meta.get("profile") or ""

    def impl_info(self, impl: str) -> dict:
        for i in self.implementations:
            if i["impl"] == impl:
                return i
        return {}

    def verification(self, impl: str, primitive: str) -> str:
        """passed / failed / unverified / n/a (the null primitive)."""
        for v in self.verifications:
            if v["impl"] == impl and v["primitive"] == primitive:
                return v["status"]
        for m in self.measurements:
            if m["impl"] == impl and m["primitive"] == primitive and m.get("verified"):
                return m["verified"]
        return "unverified"


@dataclass
class ReportData:
    runs: list[Run]
    published: dict = field(default_factory=dict)  # experiment name -> published-figures entry

    @property
    def multi(self) -> bool:
        return len(self.runs) > 1

    def series_name(self, run: Run, impl: str) -> str:
        return f"{impl} (run {run.id})" if self.multi else impl

    def measurements(self):
        """(run, measurement) for every stored measurement, in stored order."""
        for r in self.runs:
            for m in r.measurements:
                yield r, m


def resolve_runs(store: Store, run_ids) -> list[int]:
    ids = list(run_ids)
    if not ids:
        rid = store.latest_run(complete_only=True)
        if rid is None:
            raise CipherbenchError(f"no complete run stored in {describe(store.url)} yet "
                                   "(run 'cipherbench run' first, or name one with --run)")
        ids = [rid]
    return ids


def load_run(store: Store, run_id: int, with_samples: bool = True) -> Run:
    r = store.run(run_id)  # raises a one-line UsageError for an unknown id
    ms = []
    for m in r["measurements"]:
        d = {k: m.get(k) for k in MEASUREMENT_FIELDS}
        d["id"] = m["id"]
        d["warnings"] = d["warnings"] or []
        d["samples"] = []
        ms.append(d)
    if with_samples and ms:
        by_id = {m["id"]: m for m in ms}
        q = (select(samples).join(measurements, samples.c.measurement_id == measurements.c.id)
             .where(measurements.c.run_id == run_id)
             .order_by(samples.c.measurement_id, samples.c.seq))
        with store.engine.connect() as c:
            for s in c.execute(q).mappings():
                by_id[s["measurement_id"]]["samples"].append({k: s[k] for k in SAMPLE_FIELDS})
    meta = {k: r.get(k) for k in RUN_FIELDS}
    meta["started_at"], meta["finished_at"] = iso(meta["started_at"]), iso(meta["finished_at"])
    meta["settings"] = meta["settings"] or {}
    meta["warnings"] = [message_of(w) for w in meta["warnings"] or []]
    return Run(id=run_id, meta=meta, context=r.get("context") or {},
               implementations=[{k: i.get(k) for k in IMPLEMENTATION_FIELDS} for i in r["implementations"]],
               verifications=[{k: v.get(k) for k in VERIFICATION_FIELDS} for v in r["verifications"]],
               measurements=ms, store=describe(store.url),
               diffusion=[{k: d.get(k) for k in DIFFUSION_FIELDS} for d in r.get("diffusion", [])],
               ct=[{k: x.get(k) for k in CT_FIELDS} for x in r.get("ct", [])])


def load_published(path: Path = PUBLISHED_FILE) -> dict:
    if not path.exists():
        return {}
    with open(path, "rb") as f:
        return tomllib.load(f).get("experiments", {})


def load(store: Store, run_ids=(), with_samples: bool = True) -> ReportData:
    """The one loading function every exporter shares."""
    runs = [load_run(store, rid, with_samples) for rid in resolve_runs(store, run_ids)]
    published = load_published()
    return ReportData(runs, {r.profile: published[r.profile] for r in runs if r.profile in published})


# ---------------------------------------------------------------------------- helpers
def primitive(name: str):
    return registry.load().get(name)


def per_call_samples(m: dict) -> list[float]:
    """Nanoseconds per call of the timed batches the measurement's figures stand on: not
    warm-ups, nor batches set aside because the core was shared (measure.figures)."""
    return [s["ns"] / s["loops"] for s in m.get("samples", [])
            if not s["warmup"] and s["loops"] and not s.get("set_aside")]


def mb_interval(m: dict) -> tuple[float | None, float | None]:
    """MB/s at the ends of the median's confidence interval (low MB/s = high ns)."""
    size = m["size"]
    if not size or not m.get("ns_low") or not m.get("ns_high"):
        return None, None
    return size / m["ns_high"] * 1e3, size / m["ns_low"] * 1e3


def usable(m: dict) -> bool:
    return not m.get("error") and m.get("ns_per_call") is not None
