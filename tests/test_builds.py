"""Variant builds (cipherbench/builds, registry/builds.toml): the matrix file is checked on
load, and SUPERCOP's rule holds with real builds: a variant built with a deliberate fault
fails its known answers, is stored as failed and is never timed, while the ordinary build
of the same cipher in the same run passes and is timed; a variant that does not compile is
reported as such and never started. Nothing here asserts a timing."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from cipherbench.builds import make, runners
from cipherbench.builds import matrix as matrix_mod
from cipherbench.builds.make import BuildStatus
from cipherbench.errors import UsageError
from cipherbench.kinds import RunKind
from cipherbench.paths import REPO
from cipherbench.store.db import Store

ENGINE = REPO / "build" / "engine" / "cipherbench-engine"


def _data() -> dict:
    with open(matrix_mod.BUILDS_FILE, "rb") as f:
        return tomllib.load(f)


def cb(*args, db: str | None = None):
    env = dict(os.environ)
    if db:
        env["CIPHERBENCH_DB"] = db
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=1800)


def test_matrices_as_asked():
    bf = matrix_mod.load()
    quick, full = bf.matrix("quick"), bf.matrix("full")
    assert {v.compiler.id for v in quick.variants} == {"gcc-12", "clang-16"}
    assert len(quick.variants) == 6
    host = [v for v in full.variants if not v.compiler.env]
    assert len(host) == 36  # seed 001's study had 35 combinations
    flagsets = {v.flagset.id for v in full.variants}
    for want in ("O0", "O1", "O2", "O3", "Os", "O0-native", "O3-native", "Os-native",
                 "O3-unroll", "O3-omitfp", "O3-lto", "O3-pgo"):
        assert want in flagsets
    assert {v.compiler.id for v in host} == {"gcc-11", "gcc-12", "clang-14", "clang-16"}
    # and the release environments' compilers, built and run inside them, reference ciphers only
    envs = {v.compiler.id: v.compiler.env for v in full.variants if v.compiler.env}
    assert envs == {"gcc-10": "bullseye", "gcc-14": "trixie", "gcc-16": "sid"}
    assert all(full.targets_of(v) == (matrix_mod.Target.REFERENCE,) for v in full.variants if v.compiler.env)
    assert all(not v.flagset.test_only for m in (quick, full) for v in m.variants)
    assert quick.variants[-1].suffix == "@clang-16:O3-native"


@pytest.mark.parametrize("edit, named", [
    (lambda d: d["flagsets"]["O2"].update(flgs=["-O2"]), "flgs in [flagsets.O2]"),
    (lambda d: d["compilers"]["gcc-12"].update(famly="gcc"), "famly in [compilers.gcc-12]"),
    (lambda d: d["matrices"]["quick"]["rows"][0].update(flagsets=["O2", "O9"]), "flag set 'O9'"),
    (lambda d: d["matrices"]["quick"]["rows"][0].update(compilers=["icc"]), "compiler 'icc'"),
    (lambda d: d["matrices"]["quick"].update(targets=["openssl"]), "targets is 'openssl'"),
    (lambda d: d["flagsets"]["O3-lto"].update(lto=False), "[flagsets.O3-lto]: lto = true"),
    (lambda d: d.update(matrix={}), "unknown key(s) matrix in the file"),
])
def test_a_misspelt_or_unknown_name_is_an_error_naming_it(edit, named):
    d = _data()
    edit(d)
    with pytest.raises(UsageError) as e:
        matrix_mod.parse(d)
    assert named in str(e.value)


def test_unknown_matrix_is_one_line_and_exit_2():
    r = cb("builds", "make", "--matrix", "nosuch")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "cipherbench: error: unknown build matrix 'nosuch'; known: fault, full, quick"]


def test_a_variant_that_does_not_compile_is_failed_and_never_a_runner(tmp_path, monkeypatch):
    monkeypatch.setattr(make, "CACHE", tmp_path)
    bf = matrix_mod.load()
    gcc = bf.compilers["gcc-12"]
    bad = matrix_mod.FlagSet("bad", ("-O1", "-fthis-option-does-not-exist"))
    m = matrix_mod.Matrix("bad", "", (matrix_mod.Target.REFERENCE,), "compilers-fault",
                          (matrix_mod.Variant(gcc, bad),), ("rc6",))
    (rec,) = make.make_matrix(m, bf, training=())
    assert rec.status is BuildStatus.FAILED
    assert rec.engine == ""
    assert "this-option-does-not-exist" in open(rec.log).read()
    assert runners.built([rec]) == []


def test_a_variant_of_an_environment_not_created_here_is_left_out_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("CIPHERBENCH_ENVS", str(tmp_path))  # no environment at all
    bf = matrix_mod.load()
    away = make.unavailable(bf.matrix("full"))
    assert set(away) == {f"gcc-{n}:{f}" for n in (10, 14, 16) for f in ("O2", "O3", "O3-native")}
    assert "cipherbench env create trixie" in away["gcc-14:O3"]
    assert make.unavailable(bf.matrix("quick")) == {}


def test_builds_list_says_which_release_environment_builds_a_variant(monkeypatch, tmp_path):
    """A variant of a release environment's compiler is not built here until that environment
    is: `builds list` says so beside it, instead of a bare 'not built'."""
    monkeypatch.setenv("CIPHERBENCH_ENVS", str(tmp_path))  # no environment at all
    r = subprocess.run([sys.executable, "-m", "cipherbench", "builds", "list", "--matrix", "full"], capture_output=True,
                       text=True, env=dict(os.environ, COLUMNS="200"), cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    notes = {m.group(1): m.group(2) for x in lines if (m := re.fullmatch(r"\((\d+)\) (.*)", x))}
    m = matrix_mod.load().matrix("full")
    by_env = [v for v in m.variants if v.compiler.env]
    assert {v.compiler.env for v in by_env} == {"bullseye", "trixie", "sid"}
    for v in by_env:
        row = next(x for x in lines if x.split()[:1] == [v.label])
        mark = re.search(r"not built \((\d+)\)", row)
        assert mark, row
        assert notes[mark.group(1)] == (f"its compiler is release environment {v.compiler.env}'s, which builds it "
                                        f"inside; environment '{v.compiler.env}' is not created here ('cipherbench "
                                        f"env create {v.compiler.env}' makes it)")
    assert all("(" not in x.split("  ")[-1] for x in lines if x.split()[:1] and x.split()[0] in
               {v.label for v in m.variants if not v.compiler.env})


@pytest.mark.skipif(not ENGINE.exists(), reason="the ordinary engine is not built (make engine)")
def test_a_faulty_build_fails_verification_is_shown_failed_and_is_not_timed(tmp_path, shared_vectors):
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    r = cb("builds", "run", "--matrix", "fault", db=db)
    assert r.returncode == 0, r.stderr[-2000:]
    # shown as failed: the run's table and the failure's reproduction
    assert "not timed: failed verification" in r.stdout
    assert "FAILED reference@gcc-12:fault rc6-128-ecb: " in r.stdout + r.stderr
    store = Store(db, create=False)
    run = store.run(store.latest_run(kind=RunKind.BUILDS))  # a builds run, by its kind
    verdict = {(v["impl"], v["primitive"]): v["status"] for v in run["verifications"]}
    assert verdict[("reference@gcc-12:fault", "rc6-128-ecb")] == "failed"
    assert verdict[("reference", "rc6-128-ecb")] == "passed"  # the same cipher, built correctly
    by_impl = {m["impl"]: m for m in run["measurements"]}
    faulty, ordinary = by_impl["reference@gcc-12:fault"], by_impl["reference"]
    assert faulty["error"] == "not timed: failed verification"
    assert faulty["ns_per_call"] is None and store.samples_of(faulty["id"]) == []
    assert ordinary["error"] is None and ordinary["ns_per_call"] > 0
    # the build's record travels with the run
    notes = {i["impl"]: i["notes"] for i in run["implementations"]}
    assert '"flagset": "fault"' in notes["reference@gcc-12:fault"]["build"]


def _run_of(cycles: dict[str, float], failed=()):
    """A stored run in the report's form: `reference` and three variants on one cipher."""
    from cipherbench.results.run import Run
    impls, ms, vs = [], [], []
    for impl, cyc in cycles.items():
        label = impl.split("@")[1] if "@" in impl else None
        flags = {"gcc-12:O2": ["-O2"], "gcc-12:O3": ["-O3"], "clang-16:O3-native": ["-O3", "-march=native"]}
        notes = {"build": json.dumps({"flags": flags[label], "cpu_seconds": 60.0, "objects_text": 1000,
                                      "pgo": ""})} if label else {}
        impls.append({"impl": impl, "notes": notes})
        status = "failed" if impl in failed else "passed"
        vs.append({"impl": impl, "primitive": "serpent-256-ecb", "status": status})
        ms.append({"impl": impl, "primitive": "serpent-256-ecb", "operation": "encrypt", "size": 4096,
                   "ns_per_call": None if status == "failed" else cyc / 4,
                   "cycles_per_call": None if status == "failed" else cyc,
                   "error": "not timed: failed verification" if status == "failed" else None})
    return Run.of(1, {"uuid": "u"}, {}, impls, vs, ms)


def test_report_relates_each_build_to_the_ordinary_one():
    from cipherbench.report import builds as rb
    run = _run_of({"reference": 40000, "reference@gcc-12:O2": 40000, "reference@gcc-12:O3": 32000,
                   "reference@clang-16:O3-native": 25000})
    (lib,) = rb.libraries(run)
    assert lib.speedup("gcc-12:O3", "serpent-256-ecb") == pytest.approx(1.25)
    assert rb.compiler_scores([lib]) == {"clang-16": pytest.approx(1.6), "gcc-12": pytest.approx(1.25)}
    assert rb.compiler_scores([lib], plain_only=True) == {"gcc-12": pytest.approx(1.25)}
    t = rb.library_table(lib)
    assert [r[2] for r in t.rows] == ["1.00", "1.60", "1.00", "1.25"]  # ordinary, then by label
    found = dict(rb.findings([lib]))
    assert found[next(k for k in found if "Intel" in k)].startswith("clang-16 is fastest")
    assert "28.0 %" in found[next(k for k in found if "Intel" in k)]  # 1.6 / 1.25


def test_report_shows_a_failed_variant_failed_and_never_ranks_it():
    from cipherbench.report import builds as rb
    run = _run_of({"reference": 40000, "reference@gcc-12:O2": 40000, "reference@gcc-12:O3": 32000,
                   "reference@clang-16:O3-native": 25000}, failed={"reference@clang-16:O3-native"})
    (lib,) = rb.libraries(run)
    t = rb.library_table(lib)
    assert t.rows[1][2] == "failed" and t.row_marks[1] == "failed"
    best = rb.best_table([lib])
    assert best.rows[0][2] == "gcc-12:O3"


@pytest.mark.skipif(not ENGINE.exists(), reason="the ordinary engine is not built (make engine)")
def test_engine_notes_join_every_implementation_and_a_bad_file_is_one_line(tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_text('{"build": "{\\"label\\": \\"x\\"}", "n": 3}')
    r = subprocess.run([str(ENGINE), "--notes", str(notes)], input='{"op":"hello","id":1}\n',
                       capture_output=True, text=True, timeout=60)
    hello = json.loads(r.stdout)
    ref = next(i for i in hello["implementations"] if i["name"] == "reference")
    assert ref["notes"]["build"] == '{"label": "x"}' and ref["notes"]["n"] == "3"
    notes.write_text("[1, 2]")
    for path, why in ((notes, "must hold a JSON object"), (tmp_path / "none.json", "cannot read notes file")):
        r = subprocess.run([str(ENGINE), "--notes", str(path)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and why in r.stderr


def _env_exists(name: str) -> bool:
    from cipherbench.envs.environment import EnvError, env_named
    try:
        return env_named(name).exists()
    except EnvError:
        return False


@pytest.mark.skipif(not _env_exists("trixie"), reason="environment trixie not created (cipherbench env create trixie)")
def test_a_variant_is_built_and_run_inside_its_environment_and_passes_its_known_answers(tmp_path, monkeypatch, shared_vectors):
    """gcc 14 in Debian 13's root filesystem builds RC6; the engine it made runs there (its
    C++ runtime is that release's) and reproduces RC6's known answers."""
    monkeypatch.setattr(make, "CACHE", tmp_path)
    bf = matrix_mod.load()
    gcc14 = bf.compilers["gcc-14"]
    m = matrix_mod.Matrix("env", "", (matrix_mod.Target.REFERENCE, matrix_mod.Target.CRYPTOPP), "compilers-fault",
                          (matrix_mod.Variant(gcc14, bf.flagsets["O2"]),), ("rc6",))
    (rec,) = make.make_matrix(m, bf, training=())
    assert rec.status is BuildStatus.BUILT, rec.error
    assert rec.env == "trixie" and rec.targets == ["reference"] and rec.compiler_version.startswith("gcc (Debian 14")
    from cipherbench import registry
    from cipherbench.kat.verify import Verifier
    from cipherbench.measure.session import Session
    with Session((), builtin=False, extra_specs=(runners.runner_spec(rec),)) as s:
        im = s.impls["reference@gcc-14:O2"]
        (res,) = Verifier(s).run([(im, registry.load()["rc6-128-ecb"])])
        assert res.as_row()["status"] == "passed", res.as_row()["failures"]


def test_compilers_are_ranked_over_the_ciphers_every_one_of_them_built():
    """A release environment's gcc builds the reference ciphers only: the ranking is over
    those, not over Crypto++'s ciphers that only the host's compilers built."""
    from cipherbench.report import builds as rb

    def lib(name, speedups):  # label -> cipher -> speed-up against a baseline of 100 per call
        ciphers = sorted({p for v in speedups.values() for p in v})
        return rb.Library(name, ciphers, {p: rb.Cell(100.0, "passed") for p in ciphers},
                          {lb: {p: rb.Cell(100.0 / x, "passed") for p, x in v.items()} for lb, v in speedups.items()})
    ref = lib("reference", {"gcc-12:O2": {"serpent": 1.0}, "gcc-14:O2": {"serpent": 1.2}})
    cpp = lib("cryptopp", {"gcc-12:O2": {"twofish": 3.0}})  # only the host's gcc built Crypto++
    scores = rb.compiler_scores([ref, cpp])
    assert scores == {"gcc-14": pytest.approx(1.2), "gcc-12": pytest.approx(1.0)}
    assert "over the 1 cipher every compiler built" in rb._compiler_finding([ref, cpp])
