"""The measurer's rounds: every point gets its batches; uncertain ones get more, within a budget."""
import contextlib
import itertools
import statistics
import threading

import pytest

from cipherbench import registry
from cipherbench.measure.measurer import MAX_FACTOR, Measurer
from cipherbench.measure.point import Point
from cipherbench.measure.stopping import StopRule


class FakeSession:
    """Answers bench with a fixed ns per call per implementation: 'steady' always the
    same, 'noisy' spread evenly over 1000-1200 ns batch by batch (the golden ratio's
    fractions), so the interval of its low quantile narrows only with many batches:
    about +-1.7 % at 40 batches, +-1.3 % at 80."""

    def __init__(self):
        self.k = itertools.count()

    def ask(self, impl, req, replica=None):
        if impl == "steady":
            return {"status": "ok", "ns": [1000.0 * req["loops"]] * req.get("batches", 1)}
        return {"status": "ok", "ns": [1000.0 * (1 + 0.2 * (next(self.k) * 0.6180339887 % 1)) * req["loops"]
                                       for _ in range(req.get("batches", 1))]}


def _timed(pt):
    """Timed requests (rounds), each of Measurer.sub_batches batches."""
    from cipherbench.measure.measurer import timed_batches
    return timed_batches(pt)


def test_only_uncertain_points_get_more_rounds_and_never_past_the_cap():
    p = registry.load()["aes-128-cbc"]
    steady, noisy = Point("steady", p, "encrypt", "bulk", 1024), Point("noisy", p, "encrypt", "bulk", 1024)
    Measurer(FakeSession(), batch_ms=1, batches=5, warmup_batches=1).run([steady, noisy])
    assert _timed(steady) == 5 and steady.extra_batches == 0
    # 'noisy''s low quantile is uncertain by +-1.7 % over its 5 x 8 batches: more rounds until
    # it is within +-1.5 % (8 rounds, 64 batches), well inside the budget of 5
    assert noisy.extra_batches == 3 and _timed(noisy) == 8
    assert _timed(noisy) <= 5 * MAX_FACTOR


def test_extra_rounds_end_with_the_budget_and_a_partial_round_goes_to_the_most_unsure():
    p = registry.load()["aes-128-cbc"]
    pts = [Point("noisy", p, "encrypt", "bulk", n) for n in (1024, 2048)]
    Measurer(FakeSession(), batch_ms=1, batches=3, warmup_batches=0).run(pts)
    # 3 rounds planned for 2 points: a budget of 3 extra requests covers one more round of
    # both, and then one more for one of them, never more
    assert sorted(pt.extra_batches for pt in pts) == [1, 2]


class SpreadCallSession(FakeSession):
    """'slow' is one 50 ms call a request, each a tenth slower than the last (its two fastest
    never agree); the others as FakeSession."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def ask(self, impl, req, replica=None):
        if impl != "slow":
            return super().ask(impl, req, replica)
        self.calls += 1
        return {"status": "ok", "ns": [50e6 * (1 + 0.1 * self.calls) * req["loops"]] * req.get("batches", 1)}


def test_a_budget_short_of_every_unsure_point_goes_first_to_the_least_settled():
    """'slow' (its two fastest 10 % apart) is less settled than 'noisy' (+-1.7 %): a budget of
    one extra request goes to it; a budget of three covers both, then 'slow' again."""
    p = registry.load()["aes-128-cbc"]
    for share, extra in ((0.1, (1, 0)), (0.3, (2, 1))):
        noisy, slow = Point("noisy", p, "encrypt", "bulk", 1024), Point("slow", p, "encrypt", "bulk", 1024)
        Measurer(SpreadCallSession(), batch_ms=1, batches=5, warmup_batches=1, extra_share=share).run([noisy, slow])
        assert (slow.extra_batches, noisy.extra_batches) == extra


class LinearSession:
    """ns per call = 200 + 0.5 * size, exactly; counts the requests per size."""

    def __init__(self):
        self.asked = {}

    def ask(self, impl, req, replica=None):
        self.asked[req["size"]] = self.asked.get(req["size"], 0) + 1
        return {"status": "ok", "ns": [(200 + 0.5 * req["size"]) * req["loops"]] * req.get("batches", 1)}


def test_calibration_predicts_from_the_sizes_before_and_keeps_the_settling_batch_as_warm_up():
    p = registry.load()["aes-128-cbc"]
    sizes = [16, 64, 256, 1024, 4096, 16384]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in sizes]
    fake = LinearSession()
    Measurer(fake, batch_ms=1, sub_batches=1, batches=3, warmup_batches=1, extra_share=0).run(pts)
    # after two sizes, the log-log line through the nearest two lands within 2x of the probe
    assert all(fake.asked[n] == 1 + 3 for n in sizes[2:]), fake.asked
    for i, pt in enumerate(pts):
        warm = [s for s in pt.raw if s["warmup"]]
        assert len(warm) == 1
        # the first size probes a whole batch (1 ms), the others a quarter (PROBE_SHARE)
        probe = 1e6 if i == 0 else 0.25e6
        assert 0.5 * probe <= warm[0]["ns"] <= 2 * probe, (pt.size, warm)
        # loops scaled from the probe: the timed batches last the asked 1 ms (to a loop's time)
        per_call = 200 + 0.5 * pt.size
        assert all(abs(s["ns"] - 1e6) <= per_call / 2 for s in pt.raw if not s["warmup"]), pt.raw


def test_bench_requests_carry_keys_and_ivs_of_any_registry_length():
    reg = registry.load()
    for name in ("aes-128-cbc", "threefish1024-1024-cbc"):  # 16- and 128-byte key and IV
        p = reg[name]
        req = Point("x", p, "encrypt", "bulk", 1024).request(10)
        key, iv = bytes.fromhex(req["key"]), bytes.fromhex(req["iv"])
        assert (len(key), len(iv)) == (p.key_bytes, p.iv_bytes)
        assert key[:3] == b"\x01\x02\x03" and iv[:2] == b"\xa0\xa1"
    iv = bytes.fromhex(Point("x", reg["threefish1024-1024-cbc"], "encrypt", "bulk", 1024).request(1)["iv"])
    assert iv[95:98] == b"\xff\x00\x01"  # 0xa0 + i wraps at 256


class RecordingSession:
    """ns per call = 50 + ns_per_byte x size, exactly; records the warmup_ms each request
    carried, per size."""

    def __init__(self, ns_per_byte=1.0):
        self.k = ns_per_byte
        self.warmups = {}
        self.requests = []

    def ask(self, impl, req, replica=None):
        self.requests.append(req)
        self.warmups.setdefault(req["size"], []).append(req.get("warmup_ms"))
        return {"status": "ok", "ns": [(50 + self.k * req["size"]) * req["loops"]] * req.get("batches", 1)}


def test_a_point_whose_one_call_outlasts_a_batch_gets_the_time_of_the_batches_in_fewer():
    p = registry.load()["aes-128-cbc"]
    small, big = Point("x", p, "encrypt", "bulk", 1024), Point("x", p, "encrypt", "bulk", 1 << 20)
    # 4 ms batches; 1 MiB at 10 ns/byte is one 10.5 ms call: 4 x 4 ms of time in 3 batches
    m = Measurer(RecordingSession(ns_per_byte=10.0), batch_ms=4, batches=4, warmup_batches=1,
                 long_call_batches=3, extra_share=0)
    m.run([small, big])
    assert (big.loops, _timed(big)) == (1, 3) and _timed(small) == 4
    # without the option every point gets its batches
    big2 = Point("x", p, "encrypt", "bulk", 1 << 20)
    Measurer(RecordingSession(ns_per_byte=10.0), batch_ms=4, batches=4, warmup_batches=1,
             extra_share=0).run([big2])
    assert _timed(big2) == 4


class NeighbourSession(RecordingSession):
    """As RecordingSession, but each request at `big` bytes takes its call's time times the next
    of `slowdowns` (a neighbour on the core only ever adds time), in the order they come."""

    def __init__(self, ns_per_byte, big, slowdowns):
        super().__init__(ns_per_byte)
        self.big, self.slowdowns = big, list(slowdowns)

    def ask(self, impl, req, replica=None):
        r = super().ask(impl, req, replica)
        if req["size"] == self.big:
            r["ns"] = [ns * self.slowdowns.pop(0) for ns in r["ns"]]
        return r


ONE_MIB = 1 << 20


@pytest.mark.parametrize("slowdowns, requests", [
    ([1.0, 1.008], 2),  # the two fastest agree at the floor: it stops there
    ([1.3, 1.0, 1.006], 3),  # the first met the neighbour: the third confirms the second
    ([1.3, 1.1, 1.5, 1.0, 1.2, 1.0], 5),  # never two alike within the target: the cap
    ([1.25, 1.25, 1.0], 2),  # two alike on a shared core read as settled: the rule's known limit
])
def test_a_one_call_point_stands_once_its_two_fastest_batches_agree(slowdowns, requests):
    """Under a stopping rule a point whose one call fills its request (1 MiB of a slow cipher)
    can never hold the 22 batches of its figure's interval: it stops once its two fastest
    batches are within the target of each other, after the floor, or at long_call_batches."""
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in (1024, 4096, ONE_MIB)]
    fake = NeighbourSession(10.0, ONE_MIB, slowdowns + [1.0] * 10)
    m = Measurer(fake, batch_ms=1, sub_batches=4, batches=3, warmup_batches=1, long_call_batches=5,
                 extra_share=0, stop=StopRule(within=0.01, floor=2))
    m.run(pts)
    assert pts[2].loops == 1 and _timed(pts[2]) == requests
    call = 50 + 10.0 * ONE_MIB
    assert sorted(s["ns"] for s in pts[2].raw) == sorted(call * f for f in slowdowns[:requests])


@pytest.mark.parametrize("ns_per_byte, cap", [(10.0, 5), (100.0, 2), (60.0, 4)])
def test_a_one_call_points_cap_is_cut_to_long_call_ms_but_never_below_the_floor(ns_per_byte, cap):
    """long_call_ms: at 1 MiB a slow path's call lasts 10 ms (5 fit in 60 ms), 105 ms (the
    floor of 2 stands) or 63 ms (60 ms of calls would be 0: the floor; 300 ms hold 4)."""
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in (1024, 4096, ONE_MIB)]
    fake = NeighbourSession(ns_per_byte, ONE_MIB, [1.3, 1.1, 1.5, 1.2, 1.4, 1.25])
    budget = 60.0 if ns_per_byte == 10.0 else 300.0
    m = Measurer(fake, batch_ms=1, sub_batches=4, batches=3, warmup_batches=1, long_call_batches=5,
                 long_call_ms=budget, extra_share=0, stop=StopRule(within=0.01, floor=2))
    m.run(pts)
    assert m._plan[id(pts[2])] == cap and _timed(pts[2]) == cap  # no two alike: each runs to its cap


class BreakSession(RecordingSession):
    """As RecordingSession, but from `fast_from` bytes on every byte costs 0.25 ns: a path
    whose line through its smaller sizes overestimates its large ones twentyfold."""

    def __init__(self, ns_per_byte, fast_from):
        super().__init__(ns_per_byte)
        self.fast_from = fast_from

    def ask(self, impl, req, replica=None):
        if req["size"] < self.fast_from:
            return super().ask(impl, req, replica)
        self.requests.append(req)
        return {"status": "ok", "ns": [(50 + 0.25 * req["size"]) * req["loops"]] * req.get("batches", 1)}


@pytest.mark.parametrize("ns_per_byte", [4.0, 10.0, 40.0])
def test_a_point_whose_one_call_outlasts_two_batches_by_its_line_is_not_calibrated(ns_per_byte):
    """A point whose path's line (two calibrated sizes or more) puts one call beyond two
    batches gets no calibration request: one call a batch is all a probe could say. Its first
    request is timed; every request asks one call; the call's time is the point's cost."""
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in (1024, 4096, 1 << 20)]
    fake = RecordingSession(ns_per_byte=ns_per_byte)
    m = Measurer(fake, batch_ms=1, sub_batches=4, batches=3, warmup_batches=1, long_call_batches=3, extra_share=0)
    m.run(pts)
    big = [r for r in fake.requests if r["size"] == 1 << 20]
    assert [r["loops"] * r.get("batches", 1) for r in big] == [1, 1, 1] and all(not r.get("warmup") for r in big)
    assert not [s for s in pts[2].raw if s["warmup"]] and _timed(pts[2]) == 3
    assert {s["ns"] for s in pts[2].raw} == {50 + ns_per_byte * (1 << 20)}
    assert all([s for s in pt.raw if s["warmup"]] for pt in pts[:2])  # those two were calibrated
    # below two batches a call is calibrated as before
    short = Point("x", p, "encrypt", "bulk", 256)
    fake2 = RecordingSession(ns_per_byte=ns_per_byte)
    Measurer(fake2, batch_ms=1, sub_batches=4, batches=3, warmup_batches=1, long_call_batches=3,
             extra_share=0).run([Point("x", p, "encrypt", "bulk", n) for n in (16, 64)] + [short])
    assert [s for s in short.raw if s["warmup"]]


def test_a_line_that_overestimates_a_large_size_costs_one_short_request_then_full_batches():
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in (1024, 4096, 1 << 20)]
    fake = BreakSession(ns_per_byte=10.0, fast_from=1 << 20)  # the line says 10.5 ms, a call is 0.26 ms
    Measurer(fake, batch_ms=1, sub_batches=4, batches=3, warmup_batches=1, long_call_batches=3,
             extra_share=0).run(pts)
    big = [r["loops"] * r.get("batches", 1) for r in fake.requests if r["size"] == 1 << 20]  # calls a request
    assert big[0] == 1 and all(n > 1 for n in big[1:]), big
    per_request = [sum(s["ns"] for s in pts[2].raw if s["request"] == k) for k in range(1, _timed(pts[2]))]
    assert all(0.5e6 <= ns <= 2e6 for ns in per_request), per_request  # about batch_ms from the second on


def test_jit_warm_up_only_at_a_paths_first_size_when_the_preset_says_so():
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in (16, 1024, 16384)]
    fake = RecordingSession()
    Measurer(fake, batch_ms=1, batches=2, warmup_batches=1, jit_warmup_ms=150,
             jit_size_warmup=False).run(pts)
    assert set(fake.warmups[16]) == {150} and set(fake.warmups[1024]) == set(fake.warmups[16384]) == {0}
    fake = RecordingSession()
    Measurer(fake, batch_ms=1, batches=2, warmup_batches=1, jit_warmup_ms=150).run(pts)
    assert all(set(v) == {150} for v in fake.warmups.values())  # the runner gives further sizes a tenth


class DriftingMachine:
    """A core whose clock climbs 0.05 GHz at every clock measurement (3.0, 3.05, ...):
    each batch runs between two measurements, at their mean, and a call costs exactly
    `cycles` core cycles, so its time falls as the clock climbs."""

    def __init__(self, cycles: float = 4000.0):
        self.cycles = cycles
        self.reads = 0

    def ghz(self):
        return 3.0 + 0.05 * self.reads

    def batch_clock(self):
        g = self.ghz()
        self.reads += 1
        return g

    def ask(self, impl, req, replica=None):
        # before the first reading (calibration, warm-up) the clock is the first reading's
        running_at = self.ghz() - 0.025 if self.reads else self.ghz()
        return {"status": "ok", "ns": [self.cycles / running_at * req["loops"]] * req.get("batches", 1)}


def test_each_timed_batch_carries_the_clock_measured_around_it_and_cycles_come_batch_by_batch():
    from cipherbench.measure.clock import CoreClock
    from cipherbench.measure.figures import figures
    p = registry.load()["aes-128-cbc"]
    pts = [Point("x", p, "encrypt", "bulk", 1024), Point("y", p, "encrypt", "bulk", 1024)]
    machine = DriftingMachine()
    Measurer(machine, batch_ms=1, sub_batches=1, extra_share=0, batches=6, warmup_batches=1, batch_clock=machine.batch_clock).run(pts)
    # 6 rounds of 2 batches, a clock reading before each round and after every batch; each
    # batch carries the mean of the readings either side of it
    assert machine.reads == 6 * 3
    got = sorted(s["core_ghz"] for pt in pts for s in pt.raw if not s["warmup"])
    assert [round(g, 9) for g in got] == [round(3.025 + 0.05 * k, 9) for k in range(18) if k % 3 != 2]
    for pt in pts:
        timed = [s for s in pt.raw if not s["warmup"]]
        assert all(s["core_ghz"] is None for s in pt.raw if s["warmup"])
        assert len(timed) == 6 and all(s["core_ghz"] for s in timed)
        # the clock climbed 3.0 -> 3.85 GHz: 25 % apart in time, not at all in cycles, so the
        # time's spread asks for no further rounds
        assert pt.extra_batches == 0
        clock = CoreClock.of_run(3.0, 3.85, pts)
        assert (clock.batch_low, clock.batch_high) == (3.025, 3.825)
        f = figures(pt, clock)
        assert abs(f.cycles_per_call - 4000.0) < 1e-6 and abs(f.cycles_per_byte - 4000.0 / 1024) < 1e-9
        # every batch: 4000 cycles per call, to the last bits of a double
        assert 4000 - 1e-9 < f.cycles.low <= f.cycles.high < 4000 + 1e-9
        assert f.cycle_source.startswith("estimated: each batch's ns x the core clock") \
            and "3.025-3.825 GHz" in f.cycle_source
        clocks = [s["core_ghz"] for s in timed]
        assert abs(f.core_ghz - statistics.median(clocks)) < 1e-12
        # the time figure is those cycles at the run's clock (the highest batch's): the
        # same for every batch, so the climb leaves no spread in time either (the batches of
        # about 1 ms ran a little faster than calibrated as the clock rose: the one warning)
        assert clock.reference == max(s["core_ghz"] for q in pts for s in q.raw if not s["warmup"]) == 3.825
        assert abs(f.summary.figure - 4000.0 / clock.reference) < 1e-6 and f.summary.mad < 1e-9
        assert abs(f.mb_per_s - 1024 / (4000.0 / clock.reference) * 1e3) < 1e-6
        assert f.warnings == ["requests under 1 ms: timer resolution matters; use a larger --batch-ms"]


class ProbingMachine(DriftingMachine):
    """Implementation 'probing' answers every timed request with a probe on both sides of each
    batch (a core at 3.0 GHz, 4.0 adds a cycle); 'plain' ignores the field."""

    def ask(self, impl, req, replica=None):
        r = super().ask(impl, req, replica)
        if impl == "probing" and req.get("probe"):
            n = req.get("batches", 1) + 1
            r |= {"probe_cycles": req["probe"] * 1000, "probe_ns": [req["probe"] * 1000 // 3] * n,
                  "probe_parallel_ns": [req["probe"] * 1000 // 12] * n}
        return r


@pytest.mark.parametrize("impls", [("probing",), ("probing", "plain"), ("plain",)])
def test_the_batch_clock_is_read_only_for_rounds_with_a_batch_its_runner_did_not_probe(impls):
    from cipherbench.measure.clock import run_readings
    p = registry.load()["aes-128-cbc"]
    pts = [Point(i, p, "encrypt", "bulk", 1024) for i in impls]
    machine = ProbingMachine()
    Measurer(machine, batch_ms=1, sub_batches=2, extra_share=0, batches=5, warmup_batches=1,
             batch_clock=machine.batch_clock).run(pts)
    # the first round cannot know who probes: read before it and after each batch; after it,
    # rounds of probed batches alone are not read at all, the others as before
    later = 0 if impls == ("probing",) else 4 * (1 + len(impls))
    assert machine.reads == 1 + len(impls) + later
    for pt in pts:
        timed = [s for s in pt.raw if not s["warmup"]]
        assert len(timed) == 10 and all(s["core_ghz"] for s in timed)
        if pt.impl == "probing":  # each its own readings, never the batch clock's
            assert all(s["probed"] and s["core_ghz"] == 3.0 and s["adds_per_cycle"] == 4.0 for s in timed)
        else:
            assert not any(s.get("probed") for s in timed)
    # the run's shared-core readings: the batch clock's and the probed batches' own
    readings = run_readings(None, pts)
    assert readings == ([4.0] * 10 if "probing" in impls else None)


class SlowWhileCalibratedSession:
    """A code path that ran `slow` times slower during the point's calibration (its warm-up
    requests) than it does when timed: 1000 ns a call timed."""

    def __init__(self, slow: float):
        self.slow = slow

    def ask(self, impl, req, replica=None):
        per_call = 1000.0 * (self.slow if req.get("probe") is None else 1.0)
        return {"status": "ok", "ns": [per_call * req["loops"]] * req.get("batches", 1)}


@pytest.mark.parametrize("slow", [1.0, 2.0, 5.0, 18.0, 1000.0])
def test_a_point_whose_calibration_read_its_path_slow_gets_full_batches_from_its_second_request(slow):
    from cipherbench.measure.measurer import RESCALE_BELOW, RESCALE_MOST
    p = registry.load()["aes-128-cbc"]
    pt = Point("x", p, "encrypt", "bulk", 1024)
    # a clock between batches makes every timed request ask for the probe: the fake's sign
    Measurer(SlowWhileCalibratedSession(slow), batch_ms=1, sub_batches=1, extra_share=0, batches=4,
             warmup_batches=1, batch_clock=lambda: 3.0).run([pt])
    requests = [s["loops"] * 1000.0 for s in pt.raw if not s["warmup"]]
    assert len(requests) == 4
    # the first request is as long as the calibration planned: 1 ms at the slow speed
    assert requests[0] == pytest.approx(1e6 / slow, rel=0.01)
    if 1 / slow >= RESCALE_BELOW:  # short enough a miss to keep (at most three times)
        assert requests[1:] == [requests[0]] * 3
    else:  # every later one fills its batch, within what one step may scale
        want = min(1e6, requests[0] * RESCALE_MOST)
        assert all(r == pytest.approx(want, rel=0.01) for r in requests[1:2])
        assert all(r == pytest.approx(1e6, rel=0.01) for r in requests[2:])


def test_without_a_clock_between_batches_cycles_are_time_times_the_runs_clock():
    from cipherbench.measure.clock import CoreClock
    from cipherbench.measure.figures import figures
    p = registry.load()["aes-128-cbc"]
    pt = Point("x", p, "encrypt", "bulk", 1024)
    dead = iter([3.5, None])  # the engine answers once, then cannot: no batch gets both ends
    Measurer(LinearSession(), batch_ms=1, batches=3, warmup_batches=1,
             batch_clock=lambda: next(dead, None)).run([pt])
    assert all(s["core_ghz"] is None for s in pt.raw)
    f = figures(pt, CoreClock.of_run(3.0, 3.2, [pt]))
    assert f.core_ghz == 3.1 and abs(f.cycles_per_call - (200 + 512) * 3.1) < 1e-6 and f.cycles is None
    assert f.cycle_source == "estimated: ns x core clock 3.100 GHz measured by a dependent-add chain"


def test_timed_batches_step_through_the_stack_offsets_of_a_page_and_warm_ups_stay_put():
    from cipherbench.measure.measurer import stack_offset
    p = registry.load()["aes-128-cbc"]
    pt = Point("x", p, "encrypt", "bulk", 1024)
    fake = RecordingSession()
    Measurer(fake, batch_ms=1, batches=6, warmup_batches=2, extra_share=0).run([pt])
    asked = [r.get("stack_offset") for r in fake.requests]
    first = next(i for i, a in enumerate(asked) if a is not None)
    assert first >= 2 and set(asked[:first]) == {None}  # calibration and warm-ups stay put
    assert asked[first:] == [0, 1552, 3104, 560, 2112, 3664]  # 16 x (97 k mod 256)
    assert sorted({stack_offset(k) % 64 for k in range(4)}) == [0, 16, 32, 48]
    assert len({stack_offset(k) for k in range(256)}) == 256
    Measurer(fake := RecordingSession(), batch_ms=1, batches=2, warmup_batches=1, place_stack=False).run([pt])
    assert all("stack_offset" not in r for r in fake.requests)


def test_with_a_reading_every_few_batches_each_batch_gets_the_clock_interpolated_by_its_place():
    p = registry.load()["aes-128-cbc"]
    pts = [Point(f"i{n}", p, "encrypt", "bulk", 1024) for n in range(5)]
    machine = DriftingMachine()
    Measurer(machine, batch_ms=1, batches=2, warmup_batches=1, extra_share=0,
             batch_clock=machine.batch_clock, clock_every=2).run(pts)
    # per round: a reading before, after the 2nd and 4th batch, and after the last (5th)
    assert machine.reads == 2 * 4
    first_round = sorted([s for s in pt.raw if not s["warmup"]][0]["core_ghz"] for pt in pts)
    # readings 3.00, 3.05, 3.10, 3.15: two batches a quarter and three quarters between the
    # first two, two between the next two, the last alone halfway
    assert [round(g, 9) for g in first_round] == [3.0125, 3.0375, 3.0625, 3.0875, 3.125]
    from cipherbench.measure.clock import CoreClock
    from cipherbench.measure.figures import figures
    f = figures(pts[0], CoreClock.of_run(3.0, 3.35, pts, every=2))
    assert f.cycle_source == ("estimated: each batch's ns x the core clock measured around it (interpolated "
                              "between readings 2 batches apart) by a dependent-add chain (3.013-3.325 GHz "
                              "in this run)")


class ScriptedEngine:
    """Answers cpu-clock with chain_cycles / ns = the next GHz of a script."""

    def __init__(self, ghz):
        self.ghz = list(ghz)

    def request(self, req):
        assert req == {"op": "cpu-clock", "thousands": 350, "best_of": 2, "parallel": True}
        if not self.ghz:
            return {"status": "error", "message": "gone"}
        g = self.ghz.pop(0)
        adds = 3.4 if g > 3.0 else 2.5  # (a slow reading comes with few parallel adds here)
        return {"status": "ok", "chain_cycles": 350_000, "ns": 350_000 / g, "parallel_ns": 350_000 / g / adds}


def test_the_batch_clock_takes_a_low_reading_again_and_keeps_a_real_step():
    from cipherbench.measure.clock import BatchClock
    steady = [3.6] * 15
    # a preempted chain (1.3), read again: 3.59 stands
    clock = BatchClock(ScriptedEngine(steady + [1.3, 3.59]))
    assert [round(clock(), 6) for _ in range(16)] == [3.6] * 15 + [3.59]
    # a real step down by 10 %: two readings agree, the lower clock stands at once
    clock = BatchClock(ScriptedEngine(steady + [3.24, 3.25]))
    assert [round(clock(), 6) for _ in range(16)][-1] == 3.25
    # three retries, all disturbed differently: the highest stands
    clock = BatchClock(ScriptedEngine(steady + [1.3, 2.0, 2.9, 2.5]))
    assert [round(clock(), 6) for _ in range(16)][-1] == 2.9
    # the engine stops answering: None from then on
    dead = ScriptedEngine([3.6])
    clock = BatchClock(dead)
    assert clock() == 3.6 and clock() is None and clock.native is None


def test_the_batch_clock_keeps_the_parallel_adds_of_the_reading_it_keeps():
    from cipherbench.measure.clock import BatchClock
    clock = BatchClock(ScriptedEngine([3.6] * 15 + [1.3, 3.59]))
    for _ in range(15):
        clock()
    assert clock.adds_per_cycle == 3.4
    # the preempted reading (1.3 GHz, 2.5 adds) was taken again: the kept one's 3.4 stands
    assert round(clock(), 6) == 3.59 and abs(clock.adds_per_cycle - 3.4) < 1e-9
    assert len(clock.readings) == 16  # one per kept reading
    # an engine that does not run the parallel chains: no adds, the clock as before
    old = BatchClock(type("Old", (), {"request": lambda self, r: {"status": "ok", "chain_cycles": 350_000,
                                                                   "ns": 100_000}})())
    assert old() == 3.5 and old.adds_per_cycle is None and old.readings == []


class SharedCoreMachine:
    """A core at a steady 3.0 GHz where a call costs 4000 cycles alone. Clock readings
    listed in `shared` find the core shared (2.7 parallel adds a cycle against 3.4), and
    a batch next to such a reading runs a quarter slower (5000 cycles a call). Called, it
    is the batch clock (BatchClock's interface: GHz, then adds_per_cycle and readings)."""

    def __init__(self, shared: set[int]):
        self.shared = shared
        self.reads = 0

    def __call__(self):
        self.adds_per_cycle = 2.7 if self.reads in self.shared else 3.4
        self.readings = getattr(self, "readings", []) + [self.adds_per_cycle]
        self.reads += 1
        return 3.0

    def ask(self, impl, req, replica=None):
        # a batch runs between readings reads-1 and reads
        busy = self.reads and ({self.reads - 1, self.reads} & self.shared)
        return {"status": "ok", "ns": [(5000 if busy else 4000) / 3.0 * req["loops"]] * req.get("batches", 1)}


def test_batches_timed_on_a_shared_core_are_set_aside_when_enough_ran_alone():
    from cipherbench.measure.clock import CoreClock
    from cipherbench.measure.figures import figures
    p = registry.load()["aes-128-cbc"]
    pt = Point("x", p, "encrypt", "bulk", 1024)
    # one point, a reading before and after each of 8 rounds (16 readings): those of rounds
    # 3 and 4 (readings 4-7) find the core shared
    machine = SharedCoreMachine(shared={4, 5, 6, 7})
    Measurer(machine, batch_ms=1, sub_batches=1, batches=8, warmup_batches=1, extra_share=0,
             batch_clock=machine).run([pt])
    timed = [s for s in pt.raw if not s["warmup"]]
    assert [s["adds_per_cycle"] for s in timed] == [3.4, 3.4, 2.7, 2.7, 3.4, 3.4, 3.4, 3.4]
    clock = CoreClock.of_run(3.0, 3.0, [pt])
    assert clock.usual_adds == 3.4
    f = figures(pt, clock)
    assert f.shared_batches == 2 and f.shared_kept == 0 and f.summary.n == 6
    # all six batches on the core alone cost 4000 cycles a call: so does the figure
    assert abs(f.cycles_per_call - 4000) < 1e-6 and not f.warnings
    # the samples say which two were set aside, so what is read back from the store (compare)
    # stands on the same batches: 4000/3 ns a call each, not the shared batches' 5000/3
    assert [s["set_aside"] for s in timed] == [False, False, True, True, False, False, False, False]
    assert not any(s["set_aside"] for s in pt.raw if s["warmup"])
    from cipherbench.results.run import Measurement, per_call_samples
    assert per_call_samples(Measurement.of({"samples": pt.raw})) == [4000 / 3.0] * 6
    # the same batches judged against no usual level: all eight count, the median moves
    f_all = figures(pt, CoreClock(3.0, ""))
    assert f_all.shared_batches == 0 and f_all.summary.n == 8
    assert not any(s["set_aside"] for s in pt.raw)


def test_a_point_mostly_on_a_shared_core_gets_more_rounds_then_keeps_all_and_warns():
    from cipherbench.measure.clock import ALONE_BATCHES, CoreClock
    from cipherbench.measure.figures import figures
    p = registry.load()["aes-128-cbc"]
    pt = Point("x", p, "encrypt", "bulk", 1024)
    # readings 0-9 of 16 shared: rounds 0-4 ran on a shared core (the request of round 5 sits
    # between readings 10 and 11, alone); three batches a request
    machine = SharedCoreMachine(shared=set(range(10)))
    m = Measurer(machine, batch_ms=1, sub_batches=3, batches=6, warmup_batches=1, extra_share=1.0, batch_clock=machine)
    m.run([pt])
    timed = [s for s in pt.raw if not s["warmup"]]
    # only round 5's three batches ran alone after the six planned, fewer than ALONE_BATCHES:
    # more rounds (readings go on from 12, alone: every extra request ran alone), until the
    # alone batches' tenth quantile has its interval or the cap (twice the planned) is reached
    assert ALONE_BATCHES == 4 and pt.extra_batches == 6 and _timed(pt) == 12 and len(timed) == 12 * 3
    assert sum(1 for s in timed if s["adds_per_cycle"] == 3.4) == 7 * 3
    f = figures(pt, CoreClock.of_run(3.0, 3.0, [pt]))
    assert f.shared_batches == 5 * 3 and f.summary.n == 7 * 3 and abs(f.cycles_per_call - 4000) < 1e-6
    # without those rounds, three batches alone of eighteen cannot stand for the point: all
    # count, with a warning that says why the figure may read slow. Its low quantile is still
    # the alone batches' 4000 cycles (the second lowest of 18: stats.quantile_index)
    pt2 = Point("x", p, "encrypt", "bulk", 1024)
    machine = SharedCoreMachine(shared=set(range(10)))
    Measurer(machine, batch_ms=1, sub_batches=3, batches=6, warmup_batches=1, extra_share=0, batch_clock=machine).run([pt2])
    f = figures(pt2, CoreClock.of_run(3.0, 3.0, [pt2]))
    assert f.shared_batches == 0 and f.shared_kept == 5 * 3 and f.summary.n == 6 * 3
    assert abs(f.cycles_per_call - 4000) < 1e-6 and abs(f.cycles.median - 5000) < 1e-6
    # its interval spans both levels (4000 to 5000), and says so
    assert f.warnings == ["its figure is uncertain by +-12.5% (18 batches, 85% confidence): give it more batches "
                          "(--batches) or longer ones (--batch-ms)",
                          "the core was shared during 15 of 18 batches (parallel adds 2.70 a cycle, 3.40 on a "
                          "core alone), most likely by another guest on its other hardware thread; its figure "
                          "stands on the fastest of them, which may still read slow"]


def test_a_run_says_the_core_was_shared_when_more_than_a_twentieth_of_its_readings_found_it_so():
    from cipherbench.measure.clock import shared_core_warning
    quiet = [3.4] * 95
    assert shared_core_warning(quiet + [2.9] * 5, 3.4) is None  # 5 of 100: the usual few
    assert shared_core_warning(quiet + [3.3] * 20, 3.4) is None  # 3 % below: within reach of a clock step
    assert shared_core_warning(quiet + [2.9] * 6, 3.4) == (
        "the core was shared at 6 of 101 clock readings (parallel adds a cycle more than 5% below the usual "
        "3.40), most likely by another guest on its other hardware thread; batches next to those readings "
        "were set aside where enough of a point's ran alone (measurements' shared_batches)")
    assert shared_core_warning([], None) is None and shared_core_warning([2.0], None) is None


def test_the_shared_core_warning_carries_its_share_of_readings_as_a_value():
    from cipherbench.measure.clock import SHARED_RUN_WARNING, CoreClock
    from cipherbench.pipeline.notes import WarningKind, clock_warnings
    clock = CoreClock(ghz=3.4, source="test", before=3.4, after=3.4, usual_adds=3.4)
    readings = [3.4] * 75 + [2.9] * 25  # a quarter of the readings found the core shared
    (w,) = [w for w in clock_warnings(clock, readings) if w.kind is WarningKind.SHARED_CORE]
    assert (w.threshold, w.value) == (SHARED_RUN_WARNING, 0.25)
    assert w.as_dict()["value"] == 0.25 and "25 of 100" in w.message
    assert not [w for w in clock_warnings(clock, [3.4] * 100) if w.kind is WarningKind.SHARED_CORE]


class CostSession(FakeSession):
    """'slow' takes 50 ms a call (one call is longer than a 1 ms batch); others as FakeSession."""

    def ask(self, impl, req, replica=None):
        if impl == "slow":
            return {"status": "ok", "ns": [50e6 * req["loops"]] * req.get("batches", 1)}
        return super().ask(impl, req, replica)


def test_progress_counts_expected_work_learned_from_calibration_and_grows_before_extra_rounds():
    p = registry.load()["aes-128-cbc"]
    pts = [Point(i, p, "encrypt", "bulk", 1024) for i in ("steady", "noisy", "slow")]
    m = Measurer(CostSession(), batch_ms=1, batches=5, warmup_batches=2)
    total = m.expected_ms(pts)
    # before calibration: a 1 ms probe and 1 + 5 batches of 1 ms for each point
    assert total == 3 * (1 + 6)
    seen = {"done": 0.0, "total": total, "most": 0.0, "grows": []}

    def advance(ms, label):
        seen["done"] += ms
        seen["most"] = max(seen["most"], seen["done"] / seen["total"])

    def grow(ms, note):
        seen["total"] += ms
        seen["grows"].append((round(ms, 3), note))

    m.progress, m.on_grow = advance, grow
    m.run(pts)
    # calibration found 'slow' at 50 ms a batch: the estimate grew by its 6 batches' 49 ms
    # extra each, before any of them ran (the others' batches land within a loop of 1 ms);
    # then one grow per extra round, by the batches of the points it goes to: 'noisy' until its
    # low quantile is within +-1.5 % (3 rounds); 'slow' (one call a batch: 5 batches give its
    # low quantile no interval) stands on its two fastest batches, which agree: none
    first, *extra = seen["grows"]
    assert first[0] == pytest.approx(6 * 49.0, abs=0.1) and first[1] is None
    assert [(round(ms), note) for ms, note in extra] == [(1, "extra rounds")] * 3
    assert (pts[1].extra_batches, pts[2].extra_batches) == (3, 0)
    # the bar ends exactly full, and never ran past full on the way
    assert seen["done"] == pytest.approx(seen["total"])
    assert seen["most"] <= 1 + 1e-9


class TwoCpuSession(RecordingSession):
    """Implementation 'jit' compiles as it runs, 'aot' does not; every request records whether
    its implementation's process had been moved elsewhere() when it was asked."""

    def __init__(self):
        super().__init__()
        self.moved = set()
        self.log = []  # (impl, size, warmup_ms, inside elsewhere)

    def jit(self, impl):
        return impl == "jit"

    def process_of(self, impl):
        return impl  # one process per implementation

    @contextlib.contextmanager
    def elsewhere(self, impls):
        assert impls == ["jit"]
        self.moved = set(impls)
        yield True
        self.moved = set()
        self.left_at = len(self.log)

    def ask(self, impl, req, replica=None):
        self.log.append((impl, req["size"], req.get("warmup_ms"), impl in self.moved))
        return super().ask(impl, req, replica)


@pytest.mark.parametrize("size_warmup", [True, False])
def test_jit_points_warm_up_elsewhere_during_the_others_calibration_and_are_calibrated_after_it(size_warmup):
    p = registry.load()["aes-128-cbc"]
    sizes = (16, 1024, 16384)
    pts = [Point(i, p, "encrypt", "bulk", n) for i in ("jit", "aot") for n in sizes]
    fake = TwoCpuSession()
    Measurer(fake, batch_ms=1, sub_batches=1, extra_share=0, batches=2, warmup_batches=1, jit_warmup_ms=150,
             jit_size_warmup=size_warmup).run(pts)
    inside = [entry for entry in fake.log if entry[3]]
    # inside the block: one warm-up request for each size that gets a warm-up, and only the JIT's
    warmed = sizes if size_warmup else sizes[:1]
    assert sorted(inside) == sorted(("jit", n, 150, True) for n in warmed)
    # until the block ends, only the other points are asked on the measuring CPU (their
    # calibration, and rounds where the warm-ups outlast it: the next test); every JIT request
    # after it is on the measuring CPU, and every point gets its two timed batches
    before = fake.log[:fake.left_at]
    assert {e[0] for e in before if not e[3]} == {"aot"}
    assert not any(e[3] for e in fake.log[fake.left_at:])
    assert all(_timed(pt) == 2 and pt.error is None for pt in pts)


class SlowWarmupSession(TwoCpuSession):
    """The JIT implementation's warm-ups last until the other implementation has been asked
    `until` times (or 10 s pass): warm-ups that outlast the others' calibration."""

    def __init__(self, until: int):
        super().__init__()
        self.until, self.enough = until, threading.Event()

    def ask(self, impl, req, replica=None):
        if impl == "jit" and impl in self.moved:
            self.enough.wait(10)
        elif impl == "aot" and sum(e[0] == "aot" for e in self.log) + 1 >= self.until:
            self.enough.set()
        return super().ask(impl, req, replica)


@pytest.mark.parametrize("stop", [None, StopRule(within=0.01, floor=2)])
def test_while_jit_warm_ups_run_elsewhere_the_others_get_the_rounds_every_point_gets_and_no_more(stop):
    p = registry.load()["aes-128-cbc"]
    sizes = (16, 1024, 16384)
    pts = [Point(i, p, "encrypt", "bulk", n) for i in ("jit", "aot") for n in sizes]
    # held until the 'aot' points have had their calibration (two requests a point with this
    # fake) and their first rounds: the floor, or every planned round without a stopping rule
    floor, calibration = (2 if stop else 3), 2 * len(sizes)
    fake = SlowWarmupSession(until=calibration + floor * len(sizes))
    Measurer(fake, batch_ms=1, sub_batches=1, extra_share=0, batches=3, warmup_batches=1, jit_warmup_ms=150,
             stop=stop).run(pts)
    in_block = [e for e in fake.log[:fake.left_at] if e[0] == "aot"]
    aot = [pt for pt in pts if pt.impl == "aot"]
    assert len(in_block) == calibration + floor * len(sizes)
    assert all(_timed(pt) >= floor for pt in aot)
    # and in all, each point what the same run gives it without a head start (a session with
    # no JIT runner: every point calibrated, then the rounds)
    same = [Point(i, p, "encrypt", "bulk", n) for i in ("jit", "aot") for n in sizes]
    Measurer(RecordingSession(), batch_ms=1, sub_batches=1, extra_share=0, batches=3, warmup_batches=1,
             jit_warmup_ms=150, stop=stop).run(same)
    assert [_timed(pt) for pt in pts] == [_timed(pt) for pt in same]
    assert all(pt.error is None and _timed(pt) >= floor for pt in pts)
    # the JIT points were asked on the measuring CPU only after their warm-ups ended
    assert all(e[0] == "aot" or e[3] for e in fake.log[:fake.left_at])


class HungWarmupSession(TwoCpuSession):
    """The JIT implementation's warm-up hangs until the test lets it go (or 10 s pass)."""

    def __init__(self):
        super().__init__()
        self.asked, self.release, self.released_by_test = threading.Event(), threading.Event(), None

    def ask(self, impl, req, replica=None):
        if impl == "jit":
            self.asked.set()
            self.released_by_test = self.release.wait(10)
        return super().ask(impl, req, replica)


def test_an_interrupt_during_calibration_does_not_wait_for_a_hung_warm_up():
    from cipherbench.measure.warmup import warmed_elsewhere
    p = registry.load()["aes-128-cbc"]
    fake = HungWarmupSession()
    with pytest.raises(KeyboardInterrupt), \
            warmed_elsewhere(fake, [Point("jit", p, "encrypt", "bulk", 16)], lambda pt: pt.request(1)):
        assert fake.asked.wait(10)
        raise KeyboardInterrupt
    fake.release.set()  # only now: had leaving the block waited for the warm-up, it would have timed out
    for _ in range(100):
        if fake.released_by_test is not None:
            break
        threading.Event().wait(0.1)
    assert fake.released_by_test is True
