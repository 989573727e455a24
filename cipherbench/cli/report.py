"""Commands on stored results: report, compare, export, import.

Imported by cipherbench.cli, on whose group the commands register.
"""
from __future__ import annotations

import json
from pathlib import Path

import click

from cipherbench.cli.app import Ctx
from cipherbench.console import Cell, Col, Grid, Paragraph, lit, out
from cipherbench.errors import CipherbenchError, UsageError, did_you_mean
from cipherbench.kinds import Operation, Verdict
from cipherbench.results.rules import point_count
from cipherbench.store.db import Store, describe

DB_HELP = "Result store for this command (overrides the global --db)."


def _store(c: Ctx, db: str | None) -> Store:
    return Store(db or c.db, create=False)


def _size(n: int) -> str:
    for unit, m in (("MB", 1e6), ("kB", 1e3)):
        if n >= m:
            return f"{n / m:.1f} {unit}"
    return f"{n} B"


# ---------------------------------------------------------------------------- report
@click.command()
@click.option("--db", default=None, metavar="URL", help=DB_HELP)
@click.option("--run", "run_ids", type=int, multiple=True, metavar="ID",
              help="Run to report (repeatable; default: the latest complete run).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write index.html, report.md, results.csv and results.json to.")
@click.pass_obj
def report(c: Ctx, db, run_ids, out_dir: Path):
    """Write a self-contained HTML report with interactive plots, Markdown tables, CSV and JSON."""
    from cipherbench import report as rep

    store = _store(c, db)
    data = rep.load(store, run_ids)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir}: not a folder (the report is several files)")
    try:
        written = rep.write_all(data, out_dir)
    except OSError as e:
        raise CipherbenchError(f"cannot write the report to {out_dir}: {e.strerror or e}") from None
    runs = ", ".join(f"run {r.id} ({r.profile or '-'}, {point_count(r.measurements).short()}, "
                     f"{len({m.impl for m in r.measurements})} implementations)" for r in data.runs)
    out.print(f"report of {runs} from {describe(store.url)} written to {out_dir}/:")
    for path, what in written:
        out.print(f"  {path.name:<22} {_size(path.stat().st_size):>9}  {what}")
    exps = sorted(data.published)
    if exps:
        out.print(f"  then and now: published figures beside {', '.join(exps)}")
    unverified = sorted({f"{m.impl} {m.primitive}" for r in data.runs for m in r.measurements
                         if not Verdict.shown(m.verified)})
    if unverified:
        out.print(f"[yellow]  marked as not verified: {', '.join(unverified[:6])}"
                  f"{' …' if len(unverified) > 6 else ''}[/]")
    out.print(f"open {out_dir / 'index.html'} in a browser (works offline)")


# ---------------------------------------------------------------------------- compare
def _verdict(v: str) -> str:
    return {"faster": "[green]faster[/]", "slower": "[red]slower[/]",
            "no significant difference": "no significant difference",
            "too few samples": "[dim]too few samples[/]"}.get(v, v)


def _f(x, digits=3):
    from cipherbench.report.tables import num
    return num(x, digits)


@click.command("compare")
@click.argument("run_a", type=int)
@click.argument("run_b", type=int)
@click.option("--db", default=None, metavar="URL", help="Store of run A (and of B unless --db-b).")
@click.option("--db-b", default=None, metavar="URL", help="Store of run B, if it is another one.")
@click.option("--impl-a", default=None, metavar="IMPL", help="Only this implementation of A, matched against --impl-b's "
              "points of B (the same run or another): two implementations or builds timed in one run's rounds.")
@click.option("--impl-b", default=None, metavar="IMPL", help="With --impl-a: the implementation of B.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def compare_cmd(c: Ctx, run_a, run_b, db, db_b, impl_a, impl_b, as_json):
    """Ratio B/A of MB/s per matched point, with a bootstrap interval and a significance label."""
    from cipherbench.analysis import compare as cmp
    from cipherbench.results.run import load_run

    store_a = _store(c, db)
    store_b = Store(db_b, create=False) if db_b else store_a
    store_a.check_timed(run_a, "compare"), store_b.check_timed(run_b, "compare")
    if (impl_a is None) != (impl_b is None):
        raise UsageError("--impl-a and --impl-b go together: an implementation of each run")
    a, b = load_run(store_a, run_a), load_run(store_b, run_b)
    for run, impl, which in ((a, impl_a, "A"), (b, impl_b, "B")):
        if impl is not None and impl not in {m.impl for m in run.measurements}:
            raise UsageError(f"run {run.id} ({which}) timed no point of '{impl}'"
                             f"{did_you_mean(impl, sorted({m.impl for m in run.measurements}))}")
    res = cmp.compare(a, b, impls=(impl_a, impl_b) if impl_a is not None else None)
    if as_json:
        click.echo(json.dumps(comparison_document(res, run_a, run_b, a, b), indent=1))
        return
    if not res.points and not res.not_comparable:
        raise CipherbenchError(f"runs {run_a} and {run_b} have no point in common "
                               "(same implementation, primitive, operation, workload and size)")
    print_comparison(res, run_a, run_b, a, b, f" in {b.store}" if db_b else "")


def comparison_document(res, run_a, run_b, a, b) -> dict:
    from cipherbench.analysis import compare as cmp
    from cipherbench.measure.stats import QUANTILE
    return {
        "a": {"run": run_a, "uuid": a.uuid, "store": a.store, "impl": res.impls[0] if res.impls else None},
        "b": {"run": run_b, "uuid": b.uuid, "store": b.store, "impl": res.impls[1] if res.impls else None},
        "method": {"ratio": f"the {QUANTILE:.0%} quantile of ns per call (at each run's clock) of A / of B "
                            "(= MB/s of B / MB/s of A)",
                   "interval": f"percentile bootstrap, {cmp.BOOTSTRAP} resamples",
                   "test": f"bootstrap two-sided p, at least {cmp.MIN_SAMPLES} samples per side; "
                           f"Benjamini-Hochberg false-discovery rate {cmp.ALPHA} across the points; "
                           f"never a difference within {cmp.MARGIN:.0%} of 1"},
        "context_differences": [dict(zip(("what", "a", "b"), d)) for d in res.context_differences()],
        "points": [p.as_dict() for p in res.points],
        "only_in_a": [list(k) for k in res.only_a], "only_in_b": [list(k) for k in res.only_b],
        "not_comparable": [list(k) for k in res.not_comparable]}


def print_comparison(res, run_a, run_b, a, b, where_b: str) -> None:
    from cipherbench.analysis import compare as cmp
    from cipherbench.measure.stats import QUANTILE
    caption = (f"B/A = MB/s of B over MB/s of A (for key setup: setups per second), from each point's figure "
               f"(the {QUANTILE:.0%} quantile of its timed per-call samples, at its run's clock); interval: "
               f"{int(cmp.CONFIDENCE * 100)}% percentile bootstrap over those samples; verdict: the bootstrap's "
               f"two-sided p with at least {cmp.MIN_SAMPLES} samples on each side, q < {cmp.ALPHA} after the "
               "Benjamini-Hochberg correction across all points (false-discovery rate controlled; q = adjusted "
               f"p), and only beyond {cmp.MARGIN:.0%} of 1 (runs of the same code on one host differ by about that)")
    ia, ib = (f"{lit(res.impls[0])} of ", f"{lit(res.impls[1])} of ") if res.impls else ("", "")
    out.print(Paragraph(f"B = {ib}run {run_b}{where_b} ({b.profile}, {lit(b.meta.host)}) against "
                        f"A = {ia}run {run_a} ({a.profile}, {lit(a.meta.host)})", markup=True))
    for table in comparison_tables(res):
        out.print(table)
    out.print(Paragraph(caption))
    print_comparison_notes(res)


def comparison_tables(res) -> list[Grid]:
    """The comparison as a table per (implementation, primitive, operation), those three in its
    title, a row per size."""
    groups: dict[tuple[str, str, str, str], list] = {}
    for p in res.points:
        groups.setdefault((p.impl, p.primitive, f"{p.operation}/{p.workload}", p.verified), []).append(p)
    tables = []
    for (impl, prim, op, verified), points in groups.items():
        t = Grid([Col("size", Cell.FIGURE, key=True), Col("A MB/s", Cell.FIGURE), Col("B MB/s", Cell.FIGURE),
                  Col("B/A", Cell.FIGURE), Col("interval", Cell.FIGURE), Col("n A/B", Cell.FIGURE, fold=1),
                  Col("q", Cell.FIGURE, fold=2), Col("verdict", Cell.NAME, key=False)],
                 title=f"[bold]{lit(impl)} {lit(prim)}[/] {op} ({verified})")
        for p in points:
            t.add_row(*comparison_cells(p)[3:11])
        tables.append(t)
    return tables


def comparison_cells(p) -> list[str]:
    keysetup = Operation(p.operation).is_keysetup
    ci = f"{p.low:.3f}–{p.high:.3f}" if p.low is not None else "-"
    ver = {"passed": "passed", "n/a": "n/a", "failed": "[red]FAILED[/]"}.get(p.verified, "[yellow]unverified[/]")
    return [lit(p.impl), lit(p.primitive), f"{p.operation}/{p.workload}", str(p.size) if not keysetup else "-",
            _f(p.a.mb_per_s) if not keysetup else f"{_f(p.a.ns_per_call)} ns",
            _f(p.b.mb_per_s) if not keysetup else f"{_f(p.b.ns_per_call)} ns",
            f"{p.ratio:.3f}", ci, f"{p.n_a}/{p.n_b}",
            f"{p.q_value:.3g}" if p.q_value is not None else "-", _verdict(p.verdict), ver]


def print_comparison_notes(res) -> None:
    counts: dict[str, int] = {}
    for p in res.points:
        counts[p.verdict] = counts.get(p.verdict, 0) + 1
    out.print(f"{len(res.points)} matched points: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    for what, va, vb in res.context_differences():
        out.print(f"[yellow]differs: {lit(what)}: A {lit(va)} / B {lit(vb)}[/]")
    for label, keys in (("only in A", res.only_a), ("only in B", res.only_b)):
        if keys:
            out.print(f"{len(keys)} points {label} (e.g. {lit(' '.join(map(str, keys[0])))})")
    for k in res.not_comparable:
        out.print(f"[yellow]not comparable: {lit(' '.join(map(str, k[:5])))}: {lit(k[5])}[/]")


# ---------------------------------------------------------------------------- export / import
@click.command("export")
@click.option("--db", default=None, metavar="URL", help=DB_HELP)
@click.option("--run", "run_id", type=int, default=None, metavar="ID",
              help="Run to export (default: the latest complete run).")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="File to write: .json = the results document with raw samples (docs/results-format.md), "
                   ".csv = one row per measurement.")
@click.pass_obj
def export_cmd(c: Ctx, db, run_id, out_file: Path):
    """Write one run as a results document (.json, raw samples included) or as CSV rows (.csv)."""
    from cipherbench.report import results_json
    from cipherbench.results import transfer
    from cipherbench.results.run import load_run, resolve_runs

    suffix = out_file.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise UsageError(f"--out {out_file}: the extension says the format: .json (the results document) "
                         "or .csv (one row per measurement)")
    store = _store(c, db)
    rid = run_id or resolve_runs(store, [])[0]  # a run named may be of any kind: a ct run moves too
    if suffix == ".csv":
        n = export_csv(store, rid, out_file)
        out.print(f"exported run {rid} to {out_file}: {n} points, a row each, timed or not (raw samples: export to .json)")
        return
    doc = results_json.document(load_run(store, rid))
    transfer.write_document(doc, out_file)
    n = sum(len(m.get("samples", [])) for m in doc["measurements"])
    out.print(f"exported run {rid} ({doc['run']['uuid']}) to {out_file}: "
              f"{len(doc['measurements'])} measurements, {n} raw samples")


def export_csv(store: Store, run_id: int, path: Path) -> int:
    """results.csv's rows (report/results_csv.py) for one run, to a file of the user's name."""

    from cipherbench.report.results_csv import write_measurements
    from cipherbench.results.run import ReportData, load_run

    path.parent.mkdir(parents=True, exist_ok=True)
    return write_measurements(ReportData([load_run(store, run_id, with_samples=False)]), path)


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--db", default=None, metavar="URL", help=DB_HELP)
@click.pass_obj
def import_cmd(c: Ctx, file: Path, db):
    """Add a run from a results document to the store under a new run id."""
    from cipherbench.results import transfer

    doc = transfer.read_document(file)
    store = Store(db or c.db)  # creates the schema in a new store
    rid = transfer.import_document(store, doc)
    n = sum(len(m.get("samples", [])) for m in doc["measurements"])
    out.print(f"imported run {doc['run']['uuid']} as run {rid} in {describe(store.url)}: "
              f"{len(doc['measurements'])} measurements, {n} raw samples")
