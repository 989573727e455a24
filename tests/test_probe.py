"""The probe around each batch (protocol `bench` field `probe`): the engine reads the core on
both sides of every batch it times, and each batch carries its own clock and shared-core
reading instead of its request's; with each reading every runner counts its timing thread's
involuntary context switches (`probe_switches`)."""
import itertools

import pytest

from cipherbench import registry
from cipherbench.errors import RunnerError
from cipherbench.kinds import Operation, Workload
from cipherbench.measure.clock import PROBE_THOUSANDS, bench_samples, probed
from cipherbench.measure.measurer import Measurer
from cipherbench.measure.point import Point
from cipherbench.measure.runner import builtin_runners
from cipherbench.measure.session import Session

KEY, IV = bytes(range(1, 17)).hex(), bytes(range(0xA0, 0xB0)).hex()
#: Every runner honours `probe`: each is checked with the first implementation it announces that
#: offers AES-128 in CTR mode, else in CBC (Mono has no CTR)
PRIMITIVES = ("aes-128-ctr", "aes-128-cbc")
BUILT = {s.name for s in builtin_runners() if not s.unavailable}


def bench(impl: str, batches: int, primitive: str = "aes-128-ctr", **extra) -> dict:
    return {"op": "bench", "impl": impl, "primitive": primitive, "operation": "encrypt",
            "size": 1024, "loops": 200, "batches": batches, "key": KEY, "iv": IV, **extra}


def served(s: Session) -> tuple[str, str]:
    """The first implementation of the session's runner (by name) with one of PRIMITIVES, and that primitive."""
    s.start_all()
    for primitive in PRIMITIVES:
        for name, im in sorted(s.impls.items()):
            if im.available and primitive in im.primitives:
                return name, primitive
    raise AssertionError(f"no implementation of {', '.join(PRIMITIVES)}")


@pytest.mark.parametrize("runner", sorted(s.name for s in builtin_runners()))
def test_a_runner_probes_before_the_first_batch_and_after_each_and_each_batch_gets_its_two_sides(runner, engine):
    if runner not in BUILT:
        pytest.fail(f"the {runner} runner is not built: make runners")
    with Session(only_runners={runner}, pin=False) as s:
        impl, primitive = served(s)
        for batches, placed in itertools.product((1, 3, 8), (None, 1536)):
            extra = {"probe": PROBE_THOUSANDS} | ({"stack_offset": placed} if placed is not None else {})
            r = s.ask(impl, bench(impl, batches, primitive, **extra))
            assert r["status"] == "ok" and r["probe_cycles"] == PROBE_THOUSANDS * 1000
            assert len(r["probe_ns"]) == len(r["probe_parallel_ns"]) == batches + 1
            assert all(isinstance(v, int) and v > 0 for v in r["probe_ns"] + r["probe_parallel_ns"])
            # the timing thread's involuntary context switches with each reading: a count that never falls
            switches = r["probe_switches"]
            assert len(switches) == batches + 1 and all(type(n) is int and n >= 0 for n in switches)
            assert switches == sorted(switches)
            samples = bench_samples(r, 200, warmup=False, batches=batches)
            assert isinstance(samples, list) and len(samples) == batches
            rate = [r["probe_cycles"] / ns for ns in r["probe_ns"]]
            adds = [a / b for a, b in zip(r["probe_ns"], r["probe_parallel_ns"])]
            for b, smp in enumerate(samples):
                assert smp["probed"] and smp["core_ghz"] == max(rate[b], rate[b + 1])
                assert smp["adds_per_cycle"] == min(adds[b], adds[b + 1])
        # without a probe asked: none answered, and batches wait for their requests' readings
        r = s.ask(impl, bench(impl, 4, primitive))
        assert r["status"] == "ok" and not {"probe_ns", "probe_parallel_ns", "probe_cycles", "probe_switches"} & set(r)
        smp = bench_samples(r, 200, warmup=False, batches=4)
        assert all(x["core_ghz"] is None and x["adds_per_cycle"] is None and "probed" not in x for x in smp)
        # out of range: one error line, and the next request is served (0: none)
        r = s.ask(impl, bench(impl, 2, primitive, probe=100001))
        assert (r["status"], r["message"]) == ("error", "probe must be in 0..100000")
        r = s.ask(impl, bench(impl, 2, primitive, probe=0))
        assert r["status"] == "ok" and "probe_ns" not in r and "probe_switches" not in r


# Every loop that times batches in runners/php/runner.php: one per implementation, operation
# and workload (each carries its own Probe::before and Probe::after).
PHP_LOOPS = [("php-openssl", "sha-256", Operation.HASH, Workload.BULK),
             ("php-openssl", "aes-128-gcm", Operation.ENCRYPT, Workload.MESSAGE),
             ("php-openssl", "aes-128-gcm", Operation.DECRYPT, Workload.BULK),
             ("php-openssl", "aes-128-cbc", Operation.ENCRYPT, Workload.REKEY),
             ("php-mcrypt", "aes-128-cbc", Operation.KEYSETUP, Workload.BULK),
             *[("php-mcrypt", "aes-128-cbc", Operation.ENCRYPT, w) for w in Workload],
             ("php-sodium", "blake2b-512", Operation.HASH, Workload.BULK),
             ("php-sodium", "blake2b-512", Operation.HASH, Workload.MESSAGE),
             ("php-sodium", "xsalsa20", Operation.ENCRYPT, Workload.BULK),
             ("php-sodium", "chacha20-poly1305", Operation.ENCRYPT, Workload.BULK),
             ("php-sodium", "chacha20-poly1305", Operation.DECRYPT_FORGED, Workload.BULK),
             ("php-hash", "sha-256", Operation.HASH, Workload.BULK),
             ("php-hash", "sha-256", Operation.HASH, Workload.MESSAGE)]


def test_every_php_loop_probes_around_each_of_its_batches(engine):
    if "php" not in BUILT:
        pytest.fail("the php runner is not built: make runners")
    prims = registry.load()
    with Session(only_runners={"php"}, pin=False) as s:
        for impl, name, op, workload in PHP_LOOPS:
            p = prims[name]
            keyed = {} if op is Operation.HASH else {"key": bytes(range(p.key_bytes)).hex(), "iv": "00" * p.iv_bytes}
            r = s.ask(impl, {"op": "bench", "impl": impl, "primitive": name, "operation": op.value,
                             "workload": workload.value, "size": 64, "loops": 3, "batches": 3, "probe": 2, **keyed})
            assert r["status"] == "ok", (impl, name, op, workload, r)
            assert r["probe_cycles"] == 2000 and len(r["probe_ns"]) == len(r["probe_parallel_ns"]) == 4


def malformed_answers():
    """Every way a probe field can break docs/protocol.md, for a request of two batches."""
    ok = {"status": "ok", "ns": [1e6, 1e6], "probe_cycles": 30000, "probe_ns": [1e4, 1e4, 1e4],
          "probe_parallel_ns": [3e3, 3e3, 3e3]}
    for field in ("probe_ns", "probe_parallel_ns"):
        for bad in ([1e4, 1e4], [1e4] * 4, [1e4, 0, 1e4], [1e4, -1, 1e4], [1e4, "x", 1e4], [1e4, True, 1e4],
                    [1e4, float("nan"), 1e4], "1e4", 5):
            yield ok | {field: bad}
    yield {k: v for k, v in ok.items() if k != "probe_parallel_ns"}
    for bad in (None, 0, -5, 1.5, "30000", True):
        yield ok | {"probe_cycles": bad}


@pytest.mark.parametrize("answer", list(malformed_answers()))
def test_a_malformed_probe_is_the_runners_fault_never_a_clock(answer):
    with pytest.raises(RunnerError):
        probed(answer, 2)


class ProbingSession:
    """Answers bench as the engine does when asked for a probe: every batch 1000 ns a call,
    the probes on its two sides reading 2.0 and 3.0 GHz alternately (so each batch's clock is
    3.0 GHz, the higher side's), while the batch clock between requests always reads 4.0 GHz."""

    def __init__(self):
        self.asked: list[dict] = []

    def ask(self, impl, req, replica=None):
        self.asked.append(req)
        n = req.get("batches", 1)
        r = {"status": "ok", "ns": [1000.0 * req["loops"]] * n}
        if req.get("probe"):
            cycles = req["probe"] * 1000
            serial = [cycles / (2.0 if k % 2 else 3.0) for k in range(n + 1)]
            r |= {"probe_cycles": cycles, "probe_ns": serial, "probe_parallel_ns": [ns / 3.4 for ns in serial]}
        return r


def test_a_probed_batch_keeps_its_own_readings_and_only_timed_batches_ask_for_probes():
    s = ProbingSession()
    pt = Point("x", registry.load()["aes-128-cbc"], "encrypt", "bulk", 1024)
    Measurer(s, batch_ms=1, sub_batches=4, extra_share=0, batches=3, warmup_batches=1,
             batch_clock=lambda: 4.0).run([pt])
    timed = [x for x in pt.raw if not x["warmup"]]
    assert len(timed) == 12 and all(x["core_ghz"] == 3.0 and abs(x["adds_per_cycle"] - 3.4) < 1e-12 for x in timed)
    assert all(x["core_ghz"] is None for x in pt.raw if x["warmup"])
    assert [bool(r.get("probe")) for r in s.asked] == [False] * (len(s.asked) - 3) + [True] * 3
