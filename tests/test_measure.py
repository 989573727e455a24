"""The measurer's rounds: every point gets its batches; uncertain ones get more, within a budget."""
import itertools

from cipherbench import registry
from cipherbench.measure import MAX_FACTOR, Measurer, Point


class FakeSession:
    """Answers bench with a fixed ns per call per implementation: 'steady' always the
    same, 'noisy' alternating 20 % apart, so its median stays uncertain."""

    def __init__(self):
        self.flip = itertools.cycle([1.0, 1.2])

    def ask(self, impl, req, replica=None):
        per_call = 1000.0 if impl == "steady" else 1000.0 * next(self.flip)
        return {"status": "ok", "ns": [per_call * req["loops"]]}


def _timed(pt):
    return sum(1 for s in pt.raw if not s["warmup"])


def test_only_uncertain_points_get_more_rounds_and_never_past_the_cap():
    p = registry.load()["aes-128-cbc"]
    steady, noisy = Point("steady", p, "encrypt", "bulk", 1024), Point("noisy", p, "encrypt", "bulk", 1024)
    Measurer(FakeSession(), batch_ms=1, batches=5, warmup_batches=1).run([steady, noisy])
    assert _timed(steady) == 5 and steady.extra_batches == 0
    # the budget (half the planned 10 batches) allows 5 more rounds of the one uncertain point
    assert noisy.extra_batches == 5 and _timed(noisy) == 10
    assert _timed(noisy) <= 5 * MAX_FACTOR


def test_extra_rounds_stop_when_the_budget_cannot_cover_every_uncertain_point():
    p = registry.load()["aes-128-cbc"]
    pts = [Point("noisy", p, "encrypt", "bulk", n) for n in (1024, 2048)]
    Measurer(FakeSession(), batch_ms=1, batches=3, warmup_batches=0).run(pts)
    # 3 rounds planned for 2 points: a budget of 3 extra batches covers one more round of
    # both, and then too few are left for another
    assert [pt.extra_batches for pt in pts] == [1, 1]


class LinearSession:
    """ns per call = 200 + 0.5 * size, exactly; counts the requests per size."""

    def __init__(self):
        self.asked = {}

    def ask(self, impl, req, replica=None):
        self.asked[req["size"]] = self.asked.get(req["size"], 0) + 1
        return {"status": "ok", "ns": [(200 + 0.5 * req["size"]) * req["loops"]]}


def test_calibration_predicts_from_the_sizes_before_and_keeps_the_settling_batch_as_warm_up():
    p = registry.load()["aes-128-cbc"]
    sizes = [16, 64, 256, 1024, 4096, 16384]
    pts = [Point("x", p, "encrypt", "bulk", n) for n in sizes]
    fake = LinearSession()
    Measurer(fake, batch_ms=1, batches=3, warmup_batches=1).run(pts)
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

    def ask(self, impl, req, replica=None):
        self.warmups.setdefault(req["size"], []).append(req.get("warmup_ms"))
        return {"status": "ok", "ns": [(50 + self.k * req["size"]) * req["loops"]]}


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
