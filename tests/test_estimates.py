"""Every estimate a command prints comes from one rule (durations.Planned.estimate) over one
rough figure per kind of work (cli/estimates.py): the same work has the same estimate in
`run --list-experiments`, `reproduce --dry-run` and the command that does it."""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys

from conftest import REPO

from cipherbench.ct.checks import REPEATS
from cipherbench.paths import REPO as PACKAGE_ROOT


def cli(db: str, *args: str, **env: str) -> list[str]:
    r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True, text=True,
                       cwd=REPO, timeout=120, env=dict(os.environ, COLUMNS="200", **env))
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_a_matrix_s_experiment_has_the_estimate_of_the_command_that_runs_it(tmp_path):
    db = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    rows = [re.match(r"([a-z0-9-]+)\s+(~?[\d.]+ (?:min \d+ s|min|s|h))  ", x) for x in cli(db, "run", "--list-experiments")]
    listed = {m.group(1): m.group(2) for m in rows if m}
    plan = cli(db, "reproduce", "bingmann2008", "--dry-run")
    steps = {m.group(1): m.group(2) for x in plan if (m := re.search(r": cipherbench (.+?)  \[(.+?)\]", x))}
    quick = steps["builds run --matrix quick"]
    study = steps["run --experiment bingmann2008"]
    assert quick.startswith("~") and listed["compilers-quick"].startswith("~")

    def time_of(name: str) -> str:
        return listed[name]

    assert time_of("compilers-quick") == quick  # its variants' builds with it, as `builds run` says
    assert time_of("bingmann2008") == study
    assert any("compilers-quick: cipherbench builds run --matrix quick" in x for x in
               cli(db, "run", "--list-experiments"))


def test_the_same_work_has_one_plan_in_every_maker():
    from cipherbench.builds import matrix as matrix_mod
    from cipherbench.cli import estimates
    quick = matrix_mod.load().matrix("quick")
    assert estimates.of_preset(quick.experiment, {}) == estimates.of_matrix(quick)
    assert estimates.of_preset("quick", {"quick": 91.0}).estimate().short() == "1 min 31 s"
    assert estimates.of_preset("quick", {}).command == "cipherbench run --profile quick"


def calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)]


def test_every_estimate_goes_through_the_one_rule():
    """Only durations.py applies the rule (its `estimate`), and every announcement takes a
    Planned from cli/estimates.py, whose makers hold every rough figure."""
    makers = {f.name for f in ast.parse((PACKAGE_ROOT / "cipherbench" / "cli" / "estimates.py").read_text()).body
              if isinstance(f, ast.FunctionDef) and f.name.startswith("of_")}
    assert {"of_preset", "of_plan", "of_matrix", "of_checks", "of_installs"} <= makers
    announced = []
    for path in (PACKAGE_ROOT / "cipherbench").rglob("*.py"):
        tree = ast.parse(path.read_text())
        if path.name != "durations.py":
            assert [c.lineno for c in calls(tree, "estimate") if not isinstance(c.func, ast.Attribute)] == [], path
        for c in calls(tree, "announced"):
            arg = c.args[0]
            assert isinstance(arg, ast.Call) and getattr(arg.func, "id", None) in makers, (path, c.lineno)
            announced.append(arg.func.id)  # type: ignore[union-attr]
    assert sorted(set(announced)) == ["of_checks", "of_matrix", "of_plan"]  # ct, builds run, run


def test_a_narrowed_plan_is_remembered_as_itself_not_as_every_narrowed_plan(tmp_path, monkeypatch):
    """One narrowed ct or run took 7 s: another narrowed one is not expected to take 7 s (ct
    was once estimated at 24 s from a wider check's time and took 2.5 s); the same one is."""
    from cipherbench import durations
    from cipherbench.cli import estimates
    from cipherbench.ct.checks import Method
    from cipherbench.pipeline import RunPlan
    monkeypatch.setattr(durations, "DURATIONS", tmp_path / "durations.json")
    small = RunPlan.from_preset("quick", implementations=["openssl"], primitives=["sha-256"], sizes=[16])
    other = RunPlan.from_preset("quick", implementations=["nettle"], primitives=["sha-256"], sizes=[16])
    a, b = estimates.of_plan(small, {}, narrowed=True), estimates.of_plan(other, {}, narrowed=True)
    assert a.command == b.command == "cipherbench run --profile quick (narrowed)" and a.key != b.key
    with durations.announced(a):
        pass
    assert list(json.loads((tmp_path / "durations.json").read_text())) == [a.key]  # remembered as itself
    durations.remember(a.key, 9.0)
    assert estimates.of_plan(small, {}, narrowed=True).estimate() == durations.Estimate(9.0, True)
    assert not b.estimate().measured and b.estimate().seconds == estimates.run_seconds(other)
    stat = [Method.STAT] * 2
    one = estimates.of_checks("cipherbench ct (narrowed)", stat, 1000, None, "openssl aes-128-gcm 1000")
    two = estimates.of_checks("cipherbench ct (narrowed)", stat, 1000, None, "leaky rc4 1000")
    durations.remember(one.key, 7.0)
    # two statistical checks, each REPEATS batches of 1000 calls and as many of the noise floor's reference
    rough = 2 * 2 * REPEATS * 1000 / 1000 * estimates.STAT_S_PER_1000
    assert one.estimate().seconds == 7.0 and two.estimate() == durations.Estimate(rough, False)


def test_a_plan_whose_pairs_the_gate_holds_is_not_announced_with_their_verification(tmp_path, monkeypatch):
    """The standard profile's first run with every pair's gate cached at 1 MiB was announced at
    40 minutes (half a second a pair verified) and took 12: a pair the results file holds as
    deep as the plan's largest size costs no verification in the estimate, one held less deep
    still does."""
    from cipherbench.cli import estimates
    from cipherbench.kat.cache import Entry, VerifyCache, corpus_fingerprint
    from cipherbench.kat.corpora.long_answers import long_size
    from cipherbench.pipeline import RunPlan
    path = tmp_path / "verify-cache.json"
    monkeypatch.setenv("CIPHERBENCH_VERIFY_CACHE", str(path))
    plan = RunPlan.from_preset("quick", implementations=["openssl"], primitives=["sha-256", "aes-128-cbc"])
    plan_deep = long_size(max(plan.sizes))

    def estimate_with(depths: list[int]) -> float:
        cache = VerifyCache(path)
        cache.entries = {f"pair-{i}": Entry("2026-11-29T12:00:00+00:00", corpus_fingerprint(), "r", {}, d)
                         for i, d in enumerate(depths)}
        cache.save({})
        estimates._held.cache_clear()
        return estimates.run_seconds(plan)

    none, shallow = estimate_with([]), estimate_with([long_size(16)] * 2)
    assert shallow == none
    assert none - estimate_with([plan_deep]) == estimates.VERIFY_S_PER_PAIR
    # the rough figure's pairs are the plan's primitives over the usual implementations: 24,
    # whatever more the file holds
    assert none - estimate_with([plan_deep] * 5) == 5 * estimates.VERIFY_S_PER_PAIR
    assert none - estimate_with([plan_deep] * 100) == 24 * estimates.VERIFY_S_PER_PAIR
