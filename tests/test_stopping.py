"""Sequential stopping and planned sizes (measure/stopping.py): which points get the next
round, which sizes stand on their series' line, which are flagged; then the measurer's
rounds under those rules, with sessions whose answers are exact."""
import math

import pytest

from cipherbench import registry
from cipherbench.measure.figures import half_width
from cipherbench.measure.measurer import Measurer
from cipherbench.measure.point import Point
from cipherbench.measure.stopping import SizeTime, Standing, StopRule, line_of, next_round
from cipherbench.registry import NULL_PRIMITIVE

SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144,
         524288, 1048576]


def test_the_next_round_goes_to_points_below_the_floor_or_still_wide_and_never_past_their_cap():
    rule = StopRule(within=0.01, floor=4)
    points = [
        Standing(timed=3, half_width=0.0, cap=7),       # below the floor: narrow or not, it goes on
        Standing(timed=4, half_width=0.004, cap=7),     # +-0.4 %: settled
        Standing(timed=4, half_width=0.013, cap=7),     # +-1.3 %: still wide
        Standing(timed=7, half_width=0.05, cap=7),      # wide, but at its cap
        Standing(timed=5, half_width=math.inf, cap=7),  # too few batches on a core alone to judge
        Standing(timed=4, half_width=0.01, cap=7),      # exactly at the target: settled
        Standing(timed=2, half_width=0.2, cap=2),       # a long call's two batches: at its cap
    ]
    assert next_round(points, rule) == [0, 2, 4]


def _point(per_call_ns: list[float], size: int = 1024) -> Point:
    pt = Point("x", registry.load()["aes-128-cbc"], "encrypt", "bulk", size)
    pt.raw = [{"warmup": True, "loops": 10, "ns": 99_999.0}] + [
        {"warmup": False, "loops": 10, "ns": ns * 10} for ns in per_call_ns]
    return pt


def test_the_half_width_is_the_low_quantile_interval_from_order_statistics_relative_to_it():
    # forty batches of 1000-1039 ns: the figure is the tenth quantile, the 4th lowest (1003),
    # its 95 % interval the 1st to the 9th lowest (1000-1008: stats.quantile_interval)
    assert half_width(_point([1000 + i for i in range(40)][::-1])) == pytest.approx(4 / 1003)
    # five batches cannot give a tenth quantile an interval of 90 %: not settled, whatever
    # their spread (the point gets rounds while its cap allows)
    assert half_width(_point([1000, 1010, 990, 1005, 995])) == math.inf
    # cycles where every batch has its clock: a clock that moved 10 % moves nothing in cycles
    pt = _point([1000, 1100] * 20)
    for s, ghz in zip(pt.raw[1:], (3.3, 3.0) * 20):
        s["core_ghz"] = ghz
    assert half_width(pt) == pytest.approx(0.0)
    assert half_width(_point([])) == 0.0  # nothing timed yet: nothing to judge


def test_an_exact_line_puts_its_sizes_from_a_tenth_overhead_down_on_the_line():
    # 100 ns a call + 1.5 ns a byte: the per-byte part is 90 % of the time from 600 B on
    line = line_of([SizeTime(s, 100 + 1.5 * s) for s in SIZES])
    assert line.fit is not None and line.fit.ns_per_byte == pytest.approx(1.5)
    assert sorted(line.on_line) == [s for s in SIZES if s >= 1024]
    assert line.departs == {}


def test_a_size_departing_from_a_tight_line_is_flagged_and_not_counted_on_it():
    times = [SizeTime(s, (100 + 1.5 * s) * (1.10 if s == 1024 else 1.0)) for s in SIZES]
    line = line_of(times)
    assert line.fit is not None and line.fit.ns_per_byte == pytest.approx(1.50931, rel=1e-5)
    assert list(line.departs) == [1024] and line.departs[1024] == pytest.approx(0.093738, rel=1e-4)
    assert 1024 not in line.on_line and sorted(line.on_line) == [s for s in SIZES if s >= 2048]
    assert line.off_line_note(1024) == ("+9.4% from the straight line over its series' sizes (100 ns + "
                                        "1.509 ns/B): the time per byte changes at this size")
    assert line.off_line_note(2048) is None


def test_no_line_where_the_slope_is_not_known_to_a_percent_or_too_few_sizes():
    # five sizes with one 10 % off: the slope's standard error is above 1 % of it
    quick = [16, 256, 1024, 8192, 16384]
    assert line_of([SizeTime(s, (100 + 1.5 * s) * (1.10 if s == 8192 else 1.0)) for s in quick]).fit is None
    # a per-call cost falling with size (GCM's below 1 KiB) is no line either
    assert line_of([SizeTime(s, 600 + 0.3 * s - 200 * (s < 1024)) for s in quick]).fit is None
    assert line_of([SizeTime(s, 100 + 1.5 * s) for s in (16, 1024, 16384)]).fit is None  # three sizes


class ShakySession:
    """ns per call = (200 + 0.5 x size) x a factor: 'steady' always 1; 'wobbly' spread evenly
    over 1.00-1.15 batch by batch (the golden ratio's fractions), so every point's figure is
    about the same multiple of the line while the interval of its tenth quantile stays wider
    than +-1 % through seven requests of eight batches."""

    def __init__(self):
        self.k = 0

    def ask(self, impl, req, replica=None):
        out = []
        for _ in range(req.get("batches", 1)):
            self.k += 1
            factor = 1 + 0.15 * (self.k * 0.6180339887 % 1) if impl == "wobbly" else 1.0
            out.append((200 + 0.5 * req["size"]) * factor * req["loops"])
        return {"status": "ok", "ns": out}


def _timed(pt):
    """Timed requests (rounds), each of Measurer.sub_batches batches."""
    from cipherbench.measure.measurer import timed_batches
    return timed_batches(pt)


def test_settled_points_stop_at_the_floor_and_the_saving_is_counted_by_primitive():
    p = registry.load()["aes-128-cbc"]
    steady = Point("steady", p, "encrypt", "bulk", 1024)
    wobbly = Point("wobbly", p, "encrypt", "bulk", 1024)
    m = Measurer(ShakySession(), batch_ms=1, batches=7, warmup_batches=1, extra_share=0,
                 stop=StopRule(within=0.01, floor=4))
    m.run([steady, wobbly])
    assert _timed(steady) == 4 and _timed(wobbly) == 7
    sk = m.skipped["aes-128-cbc"]
    assert (sk.rounds, sk.on_line) == (3, 0)
    # each batch was calibrated to 1 ms of calls (1 ms / 712 ns = 1404 calls, 0.9997 ms)
    assert sk.ms == pytest.approx(3 * 1404 * 712 / 1e6)


def test_planned_sizes_stop_the_large_sizes_of_a_line_at_the_floor_and_time_every_size():
    p = registry.load()["aes-128-cbc"]
    sizes = [16, 64, 256, 1024, 4096, 16384]
    pts = [Point("wobbly", p, "encrypt", "bulk", n) for n in sizes]
    m = Measurer(ShakySession(), batch_ms=1, batches=7, warmup_batches=1, extra_share=0,
                 stop=StopRule(within=0.01, floor=4), planned_sizes=True)
    m.run(pts)
    # 0.5 x size is 90 % of the time from 3600 B: 4096 and 16384 stop at 4, the others need 7
    assert {pt.size: _timed(pt) for pt in pts} == {16: 7, 64: 7, 256: 7, 1024: 7, 4096: 4, 16384: 4}
    assert (m.skipped["aes-128-cbc"].rounds, m.skipped["aes-128-cbc"].on_line) == (6, 6)
    assert all(pt.off_line is None for pt in pts)
    # without planned sizes every wobbly point gets its seven
    again = [Point("wobbly", p, "encrypt", "bulk", n) for n in sizes]
    Measurer(ShakySession(), batch_ms=1, batches=7, warmup_batches=1, extra_share=0,
             stop=StopRule(within=0.01, floor=4)).run(again)
    assert [_timed(pt) for pt in again] == [7] * 6


def test_a_line_floor_below_the_floor_stops_the_large_sizes_there_and_no_other():
    """line_floor 2: the lines are judged after two rounds; 4096 and 16384 stop at two,
    the sizes below still get the floor of four and then go on while wide."""
    p = registry.load()["aes-128-cbc"]
    sizes = [16, 64, 256, 1024, 4096, 16384]
    pts = [Point("wobbly", p, "encrypt", "bulk", n) for n in sizes]
    m = Measurer(ShakySession(), batch_ms=1, batches=7, warmup_batches=1, extra_share=0,
                 stop=StopRule(within=0.01, floor=4, line_floor=2), planned_sizes=True)
    m.run(pts)
    assert {pt.size: _timed(pt) for pt in pts} == {16: 7, 64: 7, 256: 7, 1024: 7, 4096: 2, 16384: 2}
    assert (m.skipped["aes-128-cbc"].rounds, m.skipped["aes-128-cbc"].on_line) == (10, 10)
    steady = [Point("steady", p, "encrypt", "bulk", n) for n in sizes]
    Measurer(ShakySession(), batch_ms=1, batches=7, warmup_batches=1, extra_share=0,
             stop=StopRule(within=0.01, floor=4, line_floor=2), planned_sizes=True).run(steady)
    assert [_timed(pt) for pt in steady] == [4, 4, 4, 4, 2, 2]
    assert StopRule(0.01, 3, 5).on_line_floor == 3 and StopRule(0.01, 3).on_line_floor == 3


def test_a_short_run_says_what_it_expects_what_it_took_and_what_stopping_saved(tmp_path):
    import json
    import os
    import re
    import sqlite3
    import subprocess
    import sys

    from conftest import REPO
    db, durations = tmp_path / "s.sqlite", tmp_path / "durations.json"
    cmd = [sys.executable, "-m", "cipherbench", "--db", f"sqlite:///{db}", "run", "--impl", "openssl",
           "--primitive", "aes-128-ctr", "--sizes", "1024,16k", "--batch-ms", "1"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO,
                       env=dict(os.environ, COLUMNS="200", CIPHERBENCH_DURATIONS=str(durations)))
    assert r.returncode == 0, r.stderr
    label = "cipherbench run --profile quick (narrowed)"
    assert re.search(rf"^{re.escape(label)}: expected ~[\d.]+ s \(a rough figure from its plan\)$", r.stderr, re.M)
    took = re.search(rf"^{re.escape(label)}: took [\d.]+ s \(expected [\d.]+ s\)$", r.stderr, re.M)
    saved = re.search(r"^sequential stopping \(intervals within \+-1\.0%, at least 4 batches\) saved (\d+) timed "
                      r"batches, about [\d.]+ s of timing", r.stderr, re.M)
    phases = re.search(r"^time by phase: start ([\d.]+) s, verify ([\d.]+) s, timing ([\d.]+) s, storing ([\d.]+) s$",
                       r.stderr, re.M)
    assert took and saved and phases, r.stderr
    # remembered for the next estimate of the same narrowed plan, under the label and a digest of
    # what the plan does (cli/estimates.py): another narrowing is another plan
    (key, seconds), = json.loads(durations.read_text()).items()
    assert re.fullmatch(rf"{re.escape(label)} [0-9a-f]{{12}}", key) and seconds > 0
    with sqlite3.connect(db) as c:
        context, settings = c.execute("SELECT context, settings FROM runs").fetchone()
    stored = json.loads(context)["skipped_by_stopping"]
    assert sum(v["batches"] for v in stored.values()) == int(saved.group(1))
    assert set(stored) <= {"aes-128-ctr", NULL_PRIMITIVE}  # the harness cost is timed too
    # where the time went, stored with the run as printed (to the hundredth)
    assert list(json.loads(context)["phases_s"]) == ["start", "verify", "timing", "storing"]
    assert list(json.loads(context)["phases_s"].values()) == [float(g) for g in phases.groups()]
    assert json.loads(settings)["stopping_rule"] == {"half_width_within": 0.01, "floor": 4, "planned_sizes": True,
                                                     "line_floor": 4}


def test_the_profiles_set_the_target_and_the_floor_and_a_plan_may_turn_stopping_off(tmp_path):
    from cipherbench.errors import UsageError
    from cipherbench.pipeline.plan import RunPlan, load_presets
    from cipherbench.pipeline.resume import min_batches
    quick = RunPlan.from_preset("quick")
    assert quick.stop_rule == StopRule(within=0.01, floor=4) and quick.planned_sizes
    # a resumed run times a point that stopped early again: 7 requests of 8 batches each, counted in batches
    assert min_batches(quick) == 7 * 8
    assert RunPlan.from_preset("quick", stopping=False).stop_rule is None
    assert RunPlan.from_preset("quick", extra_rounds=False).stop_rule is None  # exactly --batches
    assert RunPlan.from_preset("quick", batches=2).stop_rule == StopRule(within=0.01, floor=2)
    assert RunPlan.from_preset("standard").stop_rule == StopRule(within=0.015, floor=2, line_floor=2)
    bad = tmp_path / "experiments.toml"
    bad.write_text('[profiles.x]\ntitle = "x"\nsizes = [16]\nstop_within = 0.01\n')
    with pytest.raises(UsageError, match=r"\[profiles.x\].*stop_within and min_batches go together"):
        load_presets(bad)


def test_every_profiles_floor_gives_a_point_the_batches_its_own_interval_needs():
    """A point that stops at its floor (or at the line's floor) must hold enough batches for
    the figure's interval to reach INTERVAL_CONFIDENCE: a tenth quantile of 12 batches never
    does, and a profile whose floor and cap were under that sent every point to its cap with
    no interval at all. Judged for every preset with a stopping rule, from the registry."""
    from cipherbench.measure.figures import INTERVAL_CONFIDENCE
    from cipherbench.measure.stats import QUANTILE, quantile_interval
    from cipherbench.pipeline.plan import RunPlan, load_presets
    need = next(n for n in range(2, 1000) if quantile_interval(n, QUANTILE)[2] >= INTERVAL_CONFIDENCE)
    assert need == 22  # 1 - 0.9^n >= 0.9: the lowest batch is below the tenth quantile at 90 %
    stopping = {name: RunPlan.from_preset(name) for name in load_presets()}
    stopping = {name: plan for name, plan in stopping.items() if plan.stop_rule is not None}
    assert {"quick", "standard"} <= set(stopping)
    for name, plan in stopping.items():
        rule = plan.stop_rule
        assert rule is not None
        assert rule.on_line_floor * plan.sub_batches >= need, name


def test_rounds_beyond_the_planned_ones_need_the_usual_width_or_a_wider_target():
    from cipherbench.measure.measurer import UNSURE, extra_within
    assert UNSURE == 0.015
    assert extra_within(None) == 0.015
    assert extra_within(StopRule(within=0.01, floor=4)) == 0.015  # a narrower target: planned rounds only
    assert extra_within(StopRule(within=0.02, floor=3)) == 0.02


class KinkedSession:
    """ns per call = 100 + 1.5 x size, and 10 % more at 1024 B: a size off its series' line."""

    def ask(self, impl, req, replica=None):
        ns = (100 + 1.5 * req["size"]) * (1.10 if req["size"] == 1024 else 1.0)
        return {"status": "ok", "ns": [ns * req["loops"]] * req.get("batches", 1)}


def test_a_size_off_its_series_line_is_timed_on_its_own_and_flagged_among_its_warnings():
    from cipherbench.measure.clock import CoreClock
    from cipherbench.measure.figures import figures
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in SIZES]
    Measurer(KinkedSession(), batch_ms=1, batches=5, warmup_batches=1, extra_share=0,
             stop=StopRule(within=0.01, floor=3), planned_sizes=True).run(pts)
    kinked = next(pt for pt in pts if pt.size == 1024)
    assert [pt.size for pt in pts if pt.off_line] == [1024]
    f = figures(kinked, CoreClock.of_run(None, None, pts))
    assert f.summary.median == pytest.approx((100 + 1.5 * 1024) * 1.10)  # its own median, never the line's
    assert f.warnings == [kinked.off_line] and kinked.off_line.startswith("+9.4% from the straight line")


class ClockedSession(ShakySession):
    """ShakySession on a clock of its own: each request moves it on by its batches' time and
    0.5 ms more (the request's cost beyond its batches)."""

    def __init__(self):
        super().__init__()
        self.now = 0.0

    def ask(self, impl, req, replica=None):
        answer = super().ask(impl, req, replica)
        self.now += sum(answer["ns"]) / 1e9 + 0.0005
        return answer


def test_a_time_budget_cuts_only_rounds_beyond_the_floor_and_says_how_many_points_it_cut(monkeypatch):
    """Six sizes of a wobbly path (wide through all seven requests) and of a steady one (settled
    at the floor of four): with no budget the wobbly ones get seven requests and extra rounds;
    with a budget halfway between the floor's time and that, the run ends within it (to one
    request), every point keeps its floor, and the points left short are counted, not credited
    to stopping. The cost of a request beyond its batches is learnt from the rounds: 0.5 ms."""
    from types import SimpleNamespace

    from cipherbench.measure import measurer
    from cipherbench.pipeline.notes import WarningKind, budget_warning
    p = registry.load()["aes-128-cbc"]

    def run(batches: int, budget_s: float | None):
        fake = ClockedSession()
        monkeypatch.setattr(measurer, "time", SimpleNamespace(monotonic=lambda: fake.now, perf_counter=lambda: fake.now))
        pts = [Point(impl, p, "encrypt", "bulk", n) for impl in ("wobbly", "steady")
               for n in (16, 64, 256, 1024, 4096, 16384)]
        m = Measurer(fake, batch_ms=1, batches=batches, warmup_batches=1, extra_share=0.5,
                     stop=StopRule(within=0.01, floor=4), budget_s=budget_s)
        m.run(pts)
        return m, pts, fake.now

    _, _, floor_s = run(4, None)  # calibration and the floor alone
    _, free, free_s = run(7, None)
    assert [_timed(pt) for pt in free] == [7 + pt.extra_batches for pt in free[:6]] + [4] * 6
    budget = (floor_s + free_s) / 2
    m, pts, took = run(7, budget)
    assert took <= budget + 0.0015
    assert all(_timed(pt) >= 4 for pt in pts) and [_timed(pt) for pt in pts[6:]] == [4] * 6
    assert sum(map(_timed, pts)) < sum(map(_timed, free))
    short = [pt for pt in pts if id(pt) in m.cut]
    assert short and all(pt.impl == "wobbly" and _timed(pt) < 7 for pt in short)
    assert m.budget.per_request_s() == pytest.approx(0.0005)
    # what stopping saved: the steady points' three each, never the rounds the budget cut
    assert sum(sk.rounds for sk in m.skipped.values()) == sum(
        7 - _timed(pt) for pt in pts if id(pt) not in m.cut and _timed(pt) < 7) == 18
    w = budget_warning(budget, len(m.cut), len(pts))
    assert w.kind is WarningKind.TIME_BUDGET and w.value == len(short) and f"{len(short):,} of 12 points" in w.message
    assert budget_warning(budget, 0, 12) is None


def test_a_time_budget_fits_the_requests_most_needed_first_in_what_is_left():
    from cipherbench.measure.stopping import TimeBudget
    b = TimeBudget(seconds=1.0, started=10.0)
    assert b.per_request_s() == 0.0 and b.fitting([0.3, 0.3, 0.3, 0.3], now=10.0) == 3
    b.saw(wall_s=0.5, batches_s=0.3, requests=4)  # 50 ms a request beyond its batches
    assert b.per_request_s() == pytest.approx(0.05)
    assert b.fitting([0.3, 0.3, 0.3], now=10.2) == 2  # 0.8 s left: 0.35 + 0.35
    assert b.fitting([0.9, 0.01], now=10.2) == 0  # the most needed first, never past it
    assert b.fitting([0.1], now=11.5) == 0
