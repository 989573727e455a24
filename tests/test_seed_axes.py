"""The 2008 study's findings on distributions, compilers and CPUs get their verdicts from the
store's runs that measured those axes (registry/published-figures.toml `from`, [sources];
report/verdicts.py), each naming the runs it used; without such runs each says "not
measured" and the command that would measure it. `reproduce --dry-run` prints the plan and
its estimate.

Every run here is real and small: the study's experiment through `run` (one library, a few
ciphers, one size); a compiler matrix of three variants built for the reference Serpent only
(cached beside the variants cache, so only the first run of this file builds them), timed by
the pipeline as `builds run` times a matrix; two machines' runs of a fleet, each through the
pipeline with the host name its run records set to the machine's, recorded as a fleet records
them; a debian-releases run over the first release environment created here (skipped with the
reason where none is). Nothing here asserts a timing or a verdict's value: which way a
finding goes is the machine's to say; that each finding gets one, from which runs, is asserted.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ENV_NAME, REPO

from cipherbench.kinds import RunKind
from cipherbench.report.verdicts import FindingVerdict, RunRef

STUDY = "bingmann2008"
#: One library that offers the CPU finding's two ciphers and its reference, and Blowfish.
IMPL = "nettle"
PRIMITIVES = ("aes-256-ecb", "cast5-128-ecb", "serpent-256-ecb", "blowfish-448-ecb")
SMALL = {"sizes": [1024], "batches": 2, "batch_ms": 1, "processes": 1, "extra_rounds": False}
HOSTS = ("fleet-a", "fleet-b")

#: The runs each source stands for, in words, and the command each names without one.
WHAT = {"debian-releases": "debian-releases run", "compiler-matrix": "compiler-matrix run",
        "fleet": "fleet run with at least two machines"}
MEASURE = {
    "debian-releases": "cipherbench run --experiment debian-releases",
    "compiler-matrix": "cipherbench builds run --matrix quick",
    "fleet": "cipherbench fleet run --experiment bingmann2008-machines --machines 2 --scheduler ADDRESS (docs/fleet.md)",
}


def cli(db: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, env=dict(os.environ, COLUMNS="200"))


def axis_findings() -> list[dict]:
    with open(REPO / "registry" / "published-figures.toml", "rb") as f:
        return [f for f in tomllib.load(f)["experiments"][STUDY]["findings"] if "from" in f]


@pytest.fixture(scope="module")
def study(engine, tmp_path_factory) -> tuple[Path, int, str]:
    """A store with one small run of the study's experiment, made by `run`: (its file, the
    run's id, what `run` printed)."""
    path = tmp_path_factory.mktemp("study") / "study.sqlite"
    args = ["run", "--experiment", STUDY, "--impl", IMPL, "--sizes", "1024", "--operation", "encrypt",
            "--workload", "bulk", "--batches", "2", "--batch-ms", "1", "--processes", "1", "--no-extra-rounds"]
    for p in PRIMITIVES:
        args += ["--primitive", p]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CIPHERBENCH_VERIFY_CACHE", str(path.parent / "verify-cache.json"))
        r = cli(f"sqlite:///{path}", *args)
    assert r.returncode == 0, r.stderr
    return path, 1, " ".join(r.stdout.split())


def copy_of(study: tuple[Path, int, str], tmp_path: Path) -> str:
    shutil.copy(study[0], tmp_path / "r.sqlite")
    return f"sqlite:///{tmp_path / 'r.sqlite'}"


def verdicts_of(db: str, run_id: int) -> dict[str, object]:
    """Finding text -> its verdict, as the report has them (report.load, report/experiments.py)."""
    from cipherbench.report import experiments, load
    from cipherbench.store.db import Store
    [sec] = experiments.sections(load(Store(db, create=False), [run_id], with_samples=False))
    return {claim: v for (claim, _), v in zip(sec.findings, sec.verdicts, strict=True)}


# ---------------------------------------------------------------------------- the axes' runs
def builds_run(db: str) -> int:
    """Three variants (gcc-12 -O2 and -O3, clang-16 -O2) of the reference Serpent, verified and
    timed beside the ordinary build as `builds run` does (pipeline/variant_builds.py)."""
    from cipherbench.builds import make
    from cipherbench.builds import matrix as matrix_mod
    from cipherbench.pipeline import RunPlan, run_plan, variant_builds
    from cipherbench.store.db import Store
    with open(matrix_mod.BUILDS_FILE, "rb") as f:
        data = tomllib.load(f)
    data["matrices"]["axes-test"] = {
        "title": "test: two compilers, two gcc flag sets", "targets": ["reference"], "experiment": "compilers-quick",
        "reference_ciphers": ["serpent"],
        "rows": [{"compilers": ["gcc-12"], "flagsets": ["O2", "O3"]}, {"compilers": ["clang-16"], "flagsets": ["O2"]}]}
    bf = matrix_mod.parse(data)
    m = bf.matrix("axes-test")
    with pytest.MonkeyPatch.context() as mp:  # not the quick matrix's own variants of the same names
        mp.setattr(make, "CACHE", make.CACHE.parent / "variants-axes-test")
        recs = make.make_matrix(m, bf, variant_builds.training_set(m))
    assert [r.status.value for r in recs] == ["built"] * 3, [r.error for r in recs]
    vr = variant_builds.VariantRun(m, tuple(recs), ("reference",))
    plan = RunPlan.from_preset(m.experiment, implementations=vr.impls(), primitives=["serpent-256-ecb"],
                               kind=RunKind.BUILDS, **SMALL)
    return run_plan(plan, Store(db), extra_specs=vr.runners).run_id


def fleet_runs(db: str) -> list[int]:
    """Two machines' runs of one fleet run: each the pipeline's, as a fleet task makes it
    (kind fleet), under the machine's host name; recorded as the fleet records its machines."""
    from cipherbench.fleet.state import FleetRecords, HostState, fleet_key
    from cipherbench.pipeline import RunPlan, run_plan
    from cipherbench.store.db import Store
    store = Store(db)
    plan = RunPlan.from_preset(STUDY, implementations=[IMPL], primitives=list(PRIMITIVES), operations=["encrypt"],
                               workloads=["bulk"], kind=RunKind.FLEET, **SMALL)
    records = FleetRecords(store)
    fleet = records.begin(fleet_key(plan, list(HOSTS), None), plan, "test", "local")
    ids = []
    for host in HOSTS:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(platform, "node", lambda host=host: host)
            ids.append(run_plan(plan, store).run_id)
        records.set_host(fleet, host, HostState.COMPLETE, ids[-1])
    return ids


def created_env() -> str | None:
    """The first release environment created here with an OpenSSL its engine offers."""
    from cipherbench.envs import all_envs
    for e in all_envs():
        if e.exists() and any(i.name == "openssl" and i.available for i in e.record().implementations):
            return e.name
    return None


def releases_run(db: str, env: str) -> int:
    from cipherbench.pipeline import RunPlan, run_plan
    from cipherbench.store.db import Store
    plan = RunPlan.from_preset("debian-releases", implementations=["openssl", f"{env}:openssl"], envs=[env],
                               primitives=["aes-128-ctr"], **SMALL)
    return run_plan(plan, Store(db)).run_id


def refs(db: str, ids: list[int]) -> tuple[RunRef, ...]:
    from cipherbench.report.verdicts import RunRef
    from cipherbench.results.run import load_run
    from cipherbench.store.db import Store
    return tuple(RunRef.of(load_run(Store(db, create=False), i, with_samples=False)) for i in ids)


# ---------------------------------------------------------------------------- tests
def test_without_the_axes_runs_each_finding_names_the_command_that_measures_it(study, tmp_path):
    said = study[2]  # what `run --experiment bingmann2008` printed
    for f in axis_findings():
        assert (f"published: {f['text']} this run: not measured: no {WHAT[f['from']]} in this store; measure it "
                f"with: {MEASURE[f['from']]}") in said, f["text"]
    # the report says the same
    got = verdicts_of(copy_of(study, tmp_path), study[1])
    for f in axis_findings():
        v = got[f["text"]]
        assert v.verdict is FindingVerdict.NOT_MEASURED and v.runs == ()
        assert v.figure.endswith(f"measure it with: {MEASURE[f['from']]}")


def test_compiler_and_cpu_findings_are_judged_on_the_builds_and_fleet_runs(study, tmp_path, shared_vectors):
    db = copy_of(study, tmp_path)
    builds, machines = builds_run(db), fleet_runs(db)
    got = verdicts_of(db, study[1])
    by_source = {"compiler-matrix": refs(db, [builds]), "fleet": refs(db, machines)}
    assert [r.kind for r in by_source["fleet"]] == [RunKind.FLEET] * 2
    assert [r.host for r in by_source["fleet"]] == list(HOSTS)
    for f in axis_findings():
        if f["from"] not in by_source:
            continue
        v = got[f["text"]]
        assert v.verdict is not FindingVerdict.NOT_MEASURED, (f["text"], v.figure)
        assert v.runs == by_source[f["from"]]
        assert v.figure.endswith(f"(from {', '.join(map(str, v.runs))})")
        assert f"run {v.runs[0].id} ({v.runs[0].kind.value}" in v.figure
    figures = {f["now"].get("compilers") or next(iter(f["now"])): got[f["text"]].figure for f in axis_findings()}
    # what each compared, from the variants timed: gcc against clang; gcc 12 (2022) is the
    # older compiler, clang 16 (2023) the newer, of another family; -O3 against gcc's -O2
    ciphers = "each with its best flags per cipher (geometric mean over the 1 cipher both built)"
    assert "gcc-12 (the fastest gcc) at " in figures["gcc/other"]
    assert f"] the speed of clang-16 (the fastest other compiler), {ciphers}" in figures["gcc/other"]
    assert "gcc-12 (2022, the older) at " in figures["older/newer"]
    assert (f"] the speed of clang-16 (2023, the newer), {ciphers}; the run timed one version of each compiler, so "
            "the older and the newer are of two families") in figures["older/newer"]
    assert "gcc -O3 alone at " in figures["o3_alone"]
    assert "the best other: gcc-12:O2 on 1)" in figures["o3_alone"]
    assert f"on {', '.join(HOSTS)}, cycles per byte relative to aes-256-ecb" in figures["robustness"]
    ranked = figures["robustness"].split("median over implementations): ", 1)[1].split(" (from run ", 1)[0]
    assert sorted(p.split(" ")[0] for p in ranked.split(", ")) == sorted(PRIMITIVES[1:])


def test_a_fleet_demo_s_machines_exported_and_adopted_into_the_study_s_store_judge_the_cpu_finding(
        study, tmp_path, shared_vectors):
    """What `reproduce` does with the namespaced demo's fleet (cipherbench/fleet/demo.py): each
    complete machine's run written by `fleet export` in the demo's store, then imported into the
    study's store and recorded there as one complete fleet run, which the CPU finding is judged on."""
    from cipherbench.errors import CipherbenchError
    from cipherbench.fleet import demo
    from cipherbench.pipeline import RunPlan
    from cipherbench.store.db import Store
    away = f"sqlite:///{tmp_path / 'demo.sqlite'}"
    fleet_runs(away)
    r = cli(away, "fleet", "export", "--out", str(tmp_path / "demo" / demo.RUNS_DIR))
    assert r.returncode == 0, r.stderr
    assert sorted(demo.Demo(tmp_path / "demo").runs()) == list(HOSTS)
    db = copy_of(study, tmp_path)
    plan = RunPlan.from_preset("bingmann2008-machines")
    fid, ids = demo.adopt(Store(db), plan, demo.Demo(tmp_path / "demo"), "test")
    [f] = [f for f in axis_findings() if f["from"] == "fleet"]
    v = verdicts_of(db, study[1])[f["text"]]
    assert v.verdict is not FindingVerdict.NOT_MEASURED, v.figure
    assert v.runs == refs(db, ids) and [r.host for r in v.runs] == list(HOSTS)
    assert [r.kind for r in v.runs] == [RunKind.FLEET] * 2
    with pytest.raises(CipherbenchError, match=r"^run [0-9a-f-]+ is already in .* as run \d+; importing it twice"):
        demo.adopt(Store(db), plan, demo.Demo(tmp_path / "demo"), "test")


def test_the_distribution_finding_is_judged_on_a_debian_releases_run(study, tmp_path, release_env):
    env = ENV_NAME  # created once a run whichever test file asks first (tests/conftest.py, release_env)
    db = copy_of(study, tmp_path)
    rid = releases_run(db, env)
    [f] = [f for f in axis_findings() if f["from"] == "debian-releases"]
    v = verdicts_of(db, study[1])[f["text"]]
    assert v.verdict is not FindingVerdict.NOT_MEASURED, v.figure
    assert v.runs == refs(db, [rid]) and v.runs[0].kind is RunKind.SPEED
    assert v.figure.startswith(f["nearest"])  # Gentoo and etch: judged on the nearest kind, and it says so
    assert "each library's oldest Debian release at" in v.figure and "openssl bullseye (1.1.1" in v.figure
    assert "against bookworm (3." in v.figure


def test_reproduce_dry_run_prints_the_plan_and_its_estimate(tmp_path, monkeypatch):
    from cipherbench.cli.estimates import run_seconds as rough_seconds
    from cipherbench.durations import duration
    from cipherbench.pipeline.plan import load_presets
    # the estimate counts the pairs the gate's results file holds: one of its own, for the
    # command and this process alike (other tests write the shared one meanwhile)
    monkeypatch.setenv("CIPHERBENCH_VERIFY_CACHE", str(tmp_path / "verify-cache.json"))
    r = cli(f"sqlite:///{tmp_path / 'empty.sqlite'}", "reproduce", STUDY, "--dry-run", timeout=120)
    assert r.returncode == 0, r.stderr
    # a step wraps between words at the terminal's width, its lines after the first indented
    lines = [" ".join(x.split()) for x in re.split(r"\n(?=  \d\. |estimated time)", r.stdout.strip())]
    assert lines[0] == "cipherbench reproduce bingmann2008: Eight open-source libraries, fifteen ciphers (Bingmann 2008)"
    est = duration(rough_seconds(load_presets()[STUDY]))
    assert lines[1] == f"1. the study's experiment: cipherbench run --experiment {STUDY} [~{est}]"
    assert lines[2].startswith("2. compiler-matrix run: cipherbench builds run --matrix quick [~")
    env = created_env()
    if env is not None:
        assert lines[3].startswith(f"3. debian-releases run: cipherbench --env {env} ")
    else:
        assert lines[3] == ("3. debian-releases run: cipherbench run --experiment debian-releases [–] (not run: "
                            "no release environment is created here (cipherbench env create RELEASE))")
    from cipherbench.fleet import demo
    why = demo.blocker()  # the namespaced demo's two machines, where root may make them here
    if why is None:
        assert re.fullmatch(r"4\. fleet run with at least two machines: scripts/fleet-demo DIR -- --experiment "
                            r"bingmann2008-machines \[~[^]]+\] \(its 2 machines as network namespaces on this one, "
                            r"measuring at once\)", lines[4]), lines[4]
    else:
        assert lines[4] == f"4. fleet run with at least two machines: {MEASURE['fleet']} [–] (not run: {why})"
    assert lines[5].startswith("estimated time: ~") and len(lines) == 6
    assert not (tmp_path / "empty.sqlite").exists()  # nothing measured, no store made


def test_an_unknown_study_is_one_line_and_exit_2(tmp_path):
    r = cli(f"sqlite:///{tmp_path / 'x.sqlite'}", "reproduce", "bingman2008", "--dry-run", timeout=120)
    assert r.returncode == 2 and r.stderr.strip() == ("cipherbench: error: no published study 'bingman2008'; "
                                                      "did you mean bingmann2008?")


def test_reproduce_runs_its_steps_in_order_says_a_failed_one_in_a_line_and_ends_with_the_verdicts(
        study, tmp_path, capsys):
    from cipherbench.cli.reproduce import Step, print_verdicts, run_steps
    from cipherbench.durations import Estimate
    from cipherbench.errors import CipherbenchError
    from cipherbench.pipeline import RunOutcome, RunPlan, run_plan
    from cipherbench.store.db import Store

    def experiment(store: Store) -> RunOutcome:
        plan = RunPlan.from_preset(STUDY, implementations=[IMPL], primitives=["cast5-128-ecb"], operations=["encrypt"],
                                   workloads=["bulk"], **SMALL)
        return run_plan(plan, store)

    def matrix(store: Store) -> RunOutcome:
        raise CipherbenchError("compiler(s) not installed: clang-16 (clang-16) (run 'make deps')")

    store = Store(copy_of(study, tmp_path))
    rough = Estimate(60.0, False)
    steps = [Step("the study's experiment", f"cipherbench run --experiment {STUDY}", rough, experiment),
             Step("compiler-matrix run", MEASURE["compiler-matrix"], rough, matrix),
             Step("fleet run with at least two machines", MEASURE["fleet"], Estimate(0.0, False), None, "not run")]
    assert run_steps(store, steps) == (2, 1)  # the experiment's new run; one step failed
    print_verdicts(store, STUDY, 2)
    o = capsys.readouterr()
    said = o.out.splitlines()
    assert said[0] == f"step 1 of 3: the study's experiment: cipherbench run --experiment {STUDY}"
    assert said[1].startswith("step 1: run 2 is complete after ")
    assert said[2] == f"step 2 of 3: compiler-matrix run: {MEASURE['compiler-matrix']}"
    assert o.err.strip().splitlines() == ["cipherbench: step 2 (compiler-matrix run) failed: compiler(s) not installed: "
                                          "clang-16 (clang-16) (run 'make deps')"]
    assert "The study's findings, judged on run 2 and the store's other runs:" in said
    text = " ".join(o.out.split())  # a finding and its verdict wrap between words at the terminal's width
    for f in axis_findings():
        assert " ".join(f"published: {f['text']} today: not measured: no {WHAT[f['from']]} in this store; measure "
                        f"it with: {MEASURE[f['from']]}".split()) in text


def test_a_misspelt_source_key_is_one_line_naming_it(tmp_path):
    from cipherbench.errors import UsageError
    from cipherbench.report.verdicts import load_sources
    bad = tmp_path / "published-figures.toml"
    bad.write_text('[sources.fleet]\nkind = "fleet"\nmachine = 2\nwhat = "x"\nmeasure = "y"\n')
    with pytest.raises(UsageError) as e:
        load_sources(bad)
    assert str(e.value) == "published-figures.toml: [sources.fleet]: unknown key 'machine'"
    assert {n: s.kind for n, s in load_sources().items()} == {
        "compiler-matrix": RunKind.BUILDS, "debian-releases": RunKind.SPEED, "fleet": RunKind.FLEET}


def test_the_fleet_step_says_in_one_line_why_the_namespaced_demo_cannot_run_here(monkeypatch):
    """Checked before anything is made (cipherbench/fleet/demo.py, blocker): never a root-only
    failure halfway through a reproduction."""
    from cipherbench.cli.reproduce import fleet_step
    from cipherbench.fleet import demo
    from cipherbench.report.verdict_store import load_sources
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    step = fleet_step(load_sources()["fleet"])
    assert step.run is None and step.command == MEASURE["fleet"]
    assert step.note == "not run: the namespaced fleet demo needs root (it makes network namespaces and a bridge)"
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    found = shutil.which
    monkeypatch.setattr(shutil, "which", lambda t: None if t == "setpriv" else found(t))
    assert demo.blocker() == "the namespaced fleet demo needs setpriv (iproute2, util-linux)"
