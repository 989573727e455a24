"""`cipherbench fleet`: run one plan on many machines (Dask distributed), start a
scheduler or a worker, and show or report a fleet run. docs/fleet.md says how."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.options import Sizes
from cipherbench.console import Cell, Col, Grid, err, lit, out
from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.fleet import cluster, exposure, names, security
from cipherbench.fleet.machine import engine_path, keep_off_measuring_cpu, this_host
from cipherbench.kinds import Operation
from cipherbench.paths import REPO
from cipherbench.redact import command_line, redact

# The store, the fleet's records, the run pipeline and the task are imported by the commands
# that use them: `fleet init`, `worker` and `scheduler` start without SQLAlchemy, pydantic and
# the gate (a worker's command is started on every machine, and execs Dask at once).
if TYPE_CHECKING:
    from cipherbench.fleet.state import FleetRecords
    from cipherbench.pipeline import RunPlan
    from cipherbench.store.db import Store


@click.group("fleet", epilog="In this order: 1. cipherbench fleet init DIR --machine NAME ... --db-host DBHOST "
             "(credentials; copy each member's folder to its machine); 2. cipherbench fleet scheduler --credentials "
             "DIR/scheduler; 3. on each machine, cipherbench fleet worker tls://SCHEDULER:8786 --credentials "
             "DIR/machines/NAME; 4. cipherbench fleet run --credentials DIR/clients/NAME --db URL ...; then "
             "cipherbench fleet status and cipherbench fleet report (docs/fleet.md).")
def fleet_group():
    """Run a plan on many machines through Dask distributed, one task per machine."""


def credentials_option(f):
    return click.option("--credentials", type=click.Path(file_okay=False, path_type=Path), default=None,
                        envvar=security.CREDENTIALS_ENV, metavar="DIR",
                        help="This machine's folder from 'fleet init': mutual TLS with the fleet's "
                             "authority, the store's password file, and the store reached with sslmode=verify-full "
                             f"against that authority (default: ${security.CREDENTIALS_ENV}).")(f)


def insecure_option(f):
    return click.option("--insecure", is_flag=True,
                        help="Without --credentials, listen on or talk to a non-loopback address all the same: "
                             "anyone reaching it runs code on every worker.")(f)


def _warn_insecure(command: str, *opened: str | None) -> None:
    said = exposure.insecure_warning(command, list(opened))
    if said:
        err.print(said, markup=False, soft_wrap=True)


def _credentials(folder: Path | None) -> security.Credentials | None:
    creds = security.Credentials.load(folder)
    if creds:
        creds.use_store()
    return creds


@fleet_group.command("init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--machine", "machines", multiple=True, metavar="NAME[,NAME]",
              help="A measuring machine, by its host name (repeatable).")
@click.option("--client", "clients", multiple=True, metavar="NAME[,NAME]",
              help="A machine that runs 'fleet run' (repeatable; default: this one).")
@click.option("--db-host", required=True, metavar="HOST",
              help="The store's server, as the store's URL names it: the password files name it, and libpq "
                   "gives the password to no other.")
@click.option("--db-port", type=click.IntRange(1, 65535), default=security.DEFAULT_PORT, show_default=True)
@click.option("--db-name", default=security.DEFAULT_DATABASE, show_default=True, help="The store's database.")
@click.option("--db-role", default=security.DEFAULT_ROLE, show_default=True, help="The store's PostgreSQL role.")
@click.option("--db-alt-name", "alt_names", multiple=True, metavar="HOST",
              help="Another name or address the store server's certificate holds besides --db-host (repeatable); "
                   "the password files name --db-host only.")
@click.option("--db-clients", default="all", show_default=True, metavar="CIDR",
              help="The network the store's role may log in from (pg_hba.conf's address field).")
@click.option("--days", type=click.IntRange(1, 3650), default=security.DEFAULT_DAYS, show_default=True,
              help="How long the certificates are valid.")
@click.option("--scheduler-host", default="SCHEDULER", help="The scheduler's address, for the instructions.")
@click.option("--rotate", is_flag=True, help="Make a new authority and a new store password, and re-issue every "
                                             "member: the old folders no longer get in.")
def fleet_init(folder: Path, machines, clients, db_host, db_port, db_name, db_role, alt_names, db_clients, days,
               scheduler_host, rotate):
    """Make a fleet's credentials: an authority, a certificate and key per machine and
    client, the store role's password, and the store server's certificate and TLS
    settings; says where each goes."""
    store = security.StoreAddress(db_host, db_port, db_name, db_role)
    names.check(names.NameKind.HOST, scheduler_host, "--scheduler-host")
    done = security.init_fleet(folder, _hosts_option(machines) or [], _hosts_option(clients) or [this_host()],
                               store, days, rotate, _hosts_option(alt_names) or [], db_clients)
    for line in security.instructions(done, scheduler_host):
        out.print(line, markup=False, soft_wrap=True)


def _plan(c: Ctx, profile, experiment, impls, primitives, sizes, operations, batches, batch_ms, processes,
          extra_rounds) -> RunPlan:
    """The plan every machine runs, as `run` would build it from the same options."""
    from cipherbench.pipeline import RunPlan
    from cipherbench.pipeline.plan import DEFAULT_PRESET
    if profile and experiment:
        raise UsageError("give --profile or --experiment, not both")
    return RunPlan.from_preset(
        experiment or profile or DEFAULT_PRESET, implementations=list(impls), primitives=list(primitives),
        sizes=sizes, operations=list(operations), batch_ms=batch_ms,
        batches=batches, processes=processes, extra_rounds=extra_rounds, runners=list(c.runner_cmds),
        builtin=c.builtin)


def describe_plan(plan: RunPlan) -> str:
    parts = [plan.preset]
    if plan.implementations:
        parts.append("impl " + ",".join(plan.implementations))
    if plan.primitives:
        parts.append("primitive " + ",".join(plan.primitives))
    parts.append("sizes " + ",".join(map(str, plan.sizes)))
    return ", ".join(parts)


def _hosts_option(hosts) -> list[str] | None:
    names = [h for text in hosts for h in text.replace(",", " ").split() if h]
    return names or None


def _targets(conn: cluster.Connection, records: FleetRecords, key: str, plan: RunPlan, hosts: list[str] | None,
             machines: int | None, wait: float, fresh: bool) -> tuple[int, list[str], list[str]]:
    """(fleet run id, its machines, the machines still to measure): the incomplete fleet
    run of the same command when there is one (unless --new), else a new one."""
    from cipherbench.fleet.state import HostState
    fleet_id = None if fresh else records.resumable(key)
    recorded = records.hosts(fleet_id) if fleet_id else {}
    if fleet_id and recorded:
        pending = [h for h, r in recorded.items() if r.state is not HostState.COMPLETE]
        if pending:
            cluster.wait_for_hosts(conn.client, pending, None, wait)
            records.reopen(fleet_id)
        return fleet_id, list(recorded), pending
    targets = cluster.wait_for_hosts(conn.client, hosts, machines, wait)
    command = command_line(sys.argv)
    fleet_id = fleet_id or records.begin(key, plan, command, conn.scheduler)
    for h in targets:
        records.set_host(fleet_id, h, HostState.PENDING)
    return fleet_id, targets, list(targets)


def _summary(records: FleetRecords, fleet_id: int) -> Grid:
    t = Grid([Col("machine", Cell.NAME), Col("state", Cell.NAME, key=False), Col("run", Cell.FIGURE),
              Col("seconds", Cell.FIGURE), Col("detail")], title=f"fleet run {fleet_id}")
    for h, r in records.hosts(fleet_id).items():
        t.add_row(lit(h), r.state.value, str(r.run_id or ""), f"{r.seconds:.1f}" if r.seconds else "",
                  lit(r.detail or ""))
    return t


@fleet_group.command("run")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler, e.g. tcp://10.0.0.1:8786 (default: a LocalCluster of one worker here).")
@click.option("--machines", type=click.IntRange(1), default=None, help="Run on this many of the machines present.")
@click.option("--hosts", multiple=True, metavar="NAME[,NAME]", help="Run on these machines (repeatable).")
@click.option("--profile", default=None, help="A preset from registry/experiments.toml (default: quick).")
@click.option("--experiment", default=None, help="A named experiment from registry/experiments.toml.")
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--sizes", type=Sizes(), default=None, help="Bytes per call, e.g. 16,1024,16k,16KiB,1M.")
@click.option("--operation", "operations", multiple=True,
              type=click.Choice([o.value for o in Operation.timed()]))
@click.option("--batches", type=click.IntRange(1, 1000), default=None, help="Timed batches per point.")
@click.option("--batch-ms", type=click.FloatRange(0.01, 10_000), default=None, help="Target length of one timed batch.")
@click.option("--processes", type=click.IntRange(1, 16), default=None, help="As for `run`.")
@click.option("--extra-rounds/--no-extra-rounds", default=True, help="As for `run`.")
@click.option("--wait", type=float, default=30.0, show_default=True,
              help="Seconds to wait for the machines' workers to join.")
@click.option("--lost-after", type=float, default=60.0, show_default=True,
              help="Seconds a machine's worker may be gone before its run counts as lost.")
@click.option("--new", "fresh", is_flag=True, help="Start a new fleet run even if the last one of this "
                                                   "command is incomplete.")
@credentials_option
@insecure_option
@click.pass_obj
def fleet_run(c: Ctx, scheduler, machines, hosts, profile, experiment, impls, primitives, sizes, operations,
              batches, batch_ms, processes, extra_rounds, wait, lost_after, fresh, credentials, insecure):
    """Run a plan on every target machine and store each machine's run; running the same
    command again measures only the machines that did not complete."""
    plan = _plan(c, profile, experiment, impls, primitives, sizes, operations, batches, batch_ms, processes,
                 extra_rounds)
    wanted = _hosts_option(hosts)
    for name in wanted or []:
        names.check(names.NameKind.MACHINE, name, "--hosts")
    if wanted and machines:
        raise UsageError("give --machines or --hosts, not both")
    creds = _credentials(credentials)
    if scheduler is not None:
        _warn_insecure("run", exposure.scheduler_to_join(scheduler, creds is not None, insecure))
    from cipherbench.fleet.state import fleet_key
    from cipherbench.store.db import default_url
    url = c.db or default_url()
    if scheduler and url.startswith("sqlite"):
        raise UsageError("a fleet on a scheduler needs a store every machine reaches: "
                         "--db postgresql://USER@HOST/DB")
    store, records = _records(url)  # creates the schema here, before machines write to it at once
    conn = cluster.connect(scheduler, wait, creds)
    try:
        if conn.note:
            err.print(f"fleet: local worker: {conn.note}", markup=False)
        key = fleet_key(plan, wanted, machines)
        fleet_id, targets, pending = _targets(conn, records, key, plan, wanted, machines, wait, fresh)
        done = len(targets) - len(pending)
        err.print(f"fleet run {fleet_id}: {describe_plan(plan)} on {len(targets)} machine(s) via {conn.scheduler}"
                  + (f"; {done} already complete, measuring {', '.join(pending)}" if done else ""), markup=False)
        if pending:
            _dispatch(conn, records, plan, store, fleet_id, pending, lost_after)
    finally:
        conn.close()
    _finish(records, fleet_id, store)


def _dispatch(conn: cluster.Connection, records: FleetRecords, plan: RunPlan, store: Store, fleet_id: int,
              pending: list[str], lost_after: float) -> None:
    """Submit and watch; losing the scheduler itself ends the command in one line, and
    the fleet run stays for the same command to complete."""
    from cipherbench.fleet import dispatch
    from cipherbench.fleet.state import FleetStatus
    try:
        futures = dispatch.submit(conn.client, plan, store.url, fleet_id, pending)
        with dispatch.HostBoard(err, pending) as board:
            dispatch.watch(conn.client, futures, records, board, fleet_id, lost_after)
    except OSError as e:  # distributed's CommClosedError is one
        records.finish(fleet_id, FleetStatus.INCOMPLETE)
        raise CipherbenchError(f"lost the scheduler {conn.scheduler} during fleet run {fleet_id} "
                               f"({type(e).__name__}); what the machines stored is kept, and the same "
                               "command completes the rest") from None


def _finish(records: FleetRecords, fleet_id: int, store: Store) -> None:
    """The fleet run's status, each machine's, and exit 1 unless every machine completed."""
    from cipherbench.fleet.state import FleetStatus, HostState
    from cipherbench.store.db import describe
    hosts_now = records.hosts(fleet_id)
    ok = all(r.state is HostState.COMPLETE for r in hosts_now.values())
    records.finish(fleet_id, FleetStatus.COMPLETE if ok else FleetStatus.INCOMPLETE)
    out.print(_summary(records, fleet_id))
    n_ok = sum(r.state is HostState.COMPLETE for r in hosts_now.values())
    out.print(f"fleet run {fleet_id}: {n_ok} of {len(hosts_now)} machines complete in {describe(store.url)}"
              + ("" if ok else "; the same command measures the rest"))
    if not ok:
        sys.exit(1)


@fleet_group.command("worker")
@click.argument("scheduler")
@click.option("--listen", default=None, metavar="HOST",
              help="Address the worker and its nanny serve on (default: with --credentials Dask's, every "
                   "interface; without, 127.0.0.1).")
@credentials_option
@insecure_option
def fleet_worker(scheduler, listen, credentials, insecure):
    """Serve this machine to the fleet: one single-threaded Dask worker advertising
    host-<hostname>, kept off the measuring CPU."""
    host = names.check(names.NameKind.MACHINE, this_host(), "this machine's host name")
    creds = _credentials(credentials)
    joined = exposure.scheduler_to_join(scheduler, creds is not None, insecure)
    listen, listening = exposure.listen_host(listen, creds is not None, insecure)
    if creds is not None and host not in creds.machine_names():
        raise UsageError(f"--credentials {creds.folder} is for {', '.join(sorted(creds.machine_names()))}, and this "
                         f"machine is {host}: give its own folder ('cipherbench fleet init DIR --machine {host}')")
    cluster.need_distributed()
    engine = engine_path()
    if not engine.exists():
        raise CipherbenchError(f"cipherbench is not built on this machine ({engine} is missing): "
                               f"run 'make deps engine runners' in {REPO}, then start the worker again")
    _warn_insecure("worker", joined, listening)
    argv = cluster.worker_argv(scheduler, host, listen, creds)
    err.print(f"fleet worker {host} for {redact(scheduler)}: {keep_off_measuring_cpu()}", markup=False)
    os.execve(argv[0], argv, cluster.dask_env())


@fleet_group.command("scheduler")
@click.option("--host", "--listen", "host", default=None, metavar="HOST",
              help="Address to listen on (default: with --credentials Dask's, every interface; without, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=8786, show_default=True)
@credentials_option
@insecure_option
def fleet_scheduler(host, port, credentials, insecure):
    """Start a Dask scheduler for a fleet (`dask scheduler`), with mutual TLS given
    --credentials; without, on loopback only (unless --insecure)."""
    creds = security.Credentials.load(credentials)
    host, listening = exposure.listen_host(host, creds is not None, insecure)
    cluster.need_distributed()
    _warn_insecure("scheduler", listening and f"{listening}:{port}")
    argv = cluster.scheduler_argv(host, port, creds)
    os.execve(argv[0], argv, cluster.dask_env())


def _records(url: str | None, create: bool = True) -> tuple[Store, FleetRecords]:
    """The store at `url` and the fleet runs recorded in it."""
    from cipherbench.fleet.state import FleetRecords
    from cipherbench.store.db import Store
    store = Store(url, create=create)
    return store, FleetRecords(store)


def _fleet(records: FleetRecords, fleet_id: int | None, store: Store) -> tuple[int, dict]:
    """The fleet run asked for (the latest by default) and its record."""
    from cipherbench.store.db import describe
    fid = fleet_id or records.latest()
    found = records.fleet(fid) if fid is not None else None
    if fid is None or found is None:
        raise CipherbenchError(f"no fleet run {fleet_id or ''} in {describe(store.url)}".replace("  ", " ")
                               + " (run 'cipherbench fleet run')")
    return fid, found


@fleet_group.command("status")
@click.argument("fleet_id", required=False, type=int)
@credentials_option
@click.pass_obj
def fleet_status(c: Ctx, fleet_id, credentials):
    """Each machine's state in a fleet run (the latest by default)."""
    _credentials(credentials)
    store, records = _records(c.db, create=False)
    fid, f = _fleet(records, fleet_id, store)
    out.print(_summary(records, fid))
    out.print(f"fleet run {fid}: {f['status']}; command: {f['command']}", markup=False)


@fleet_group.command("report")
@click.argument("fleet_id", required=False, type=int)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write the report to (as `cipherbench report`).")
@credentials_option
@click.pass_obj
def fleet_report(c: Ctx, fleet_id, out_dir: Path, credentials):
    """The report of a fleet run's complete machines, side by side."""
    _credentials(credentials)
    store, records = _records(c.db, create=False)
    fid, _ = _fleet(records, fleet_id, store)
    run_ids = records.complete_runs(fid)
    if not run_ids:
        raise CipherbenchError(f"fleet run {fid} has no complete machine yet")
    from cipherbench import report as rep  # the report's formats, once there is one to write
    written = rep.write_all(rep.load(store, run_ids), out_dir)
    out.print(f"fleet run {fid}: report of runs {', '.join(map(str, run_ids))} written to {out_dir}/")
    for path, what in written:
        out.print(f"  {path.name:<22} {what}")


@fleet_group.command("export")
@click.argument("fleet_id", required=False, type=int)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write each machine's run to, as HOST.json (made if missing).")
@credentials_option
@click.pass_obj
def fleet_export(c: Ctx, fleet_id, out_dir: Path, credentials):
    """Each complete machine's run of a fleet run (the latest by default) as a results
    document, HOST.json, raw samples included: what `cipherbench import` reads into another store."""
    from cipherbench.report import results_json
    from cipherbench.results import transfer
    from cipherbench.results.run import load_run
    _credentials(credentials)
    store, records = _records(c.db, create=False)
    fid, _ = _fleet(records, fleet_id, store)
    from cipherbench.fleet.state import HostState
    done = {h: r.run_id for h, r in records.hosts(fid).items() if r.state is HostState.COMPLETE and r.run_id}
    if not done:
        raise CipherbenchError(f"fleet run {fid} has no complete machine yet")
    out_dir.mkdir(parents=True, exist_ok=True)
    for host, rid in done.items():
        names.check(names.NameKind.MACHINE, host, "a fleet machine's name")  # it names a file
        transfer.write_document(results_json.document(load_run(store, rid)), out_dir / f"{host}.json")
        out.print(f"fleet run {fid}: {host}'s run {rid} written to {out_dir / host}.json", markup=False)
