"""Every run states its condition (how shared its core was) and how it repeats the run before
it of the same plan (analysis/condition.py)."""
from cipherbench.analysis.condition import condition, repeat, spread
from cipherbench.results.rules import REPEAT_TOLERANCE
from cipherbench.results.run import Run


def _run(run_id: int, cycles: dict[tuple[str, int], float], adds: list[float],
         preempted: list[bool] | None = None, context: dict | None = None) -> Run:
    """A run of aes-128-ctr bulk encryption, one measurement a (implementation, size) with the
    given cycles per call, and timed batches carrying the given parallel-adds readings."""
    ms = []
    for (impl, size), cyc in cycles.items():
        samples = [{"seq": i, "warmup": False, "loops": 10, "ns": cyc * 10 / 3.0, "core_ghz": 3.0,
                    "adds_per_cycle": a, "preempted": (preempted or [None] * len(adds))[i]}
                   for i, a in enumerate(adds)]
        ms.append({"impl": impl, "primitive": "aes-128-ctr", "operation": "encrypt", "workload": "bulk",
                   "size": size, "loops": 10, "n": len(samples), "ns_per_call": cyc / 3.0,
                   "mb_per_s": size / (cyc / 3.0) * 1e3, "cycles_per_call": cyc, "verified": "passed",
                   "samples": samples})
    impls = [{"impl": i, "runner": "native", "library": i, "version": "1", "available": True}
             for i in sorted({k[0] for k in cycles})]
    return Run.of(run_id, {"uuid": f"u{run_id}", "profile": "quick", "kind": "speed", "status": "complete"},
                  context or {}, impls, [], ms)


def test_the_condition_is_the_share_of_timed_batches_on_a_shared_core():
    # eight readings at the usual 3.4, two 10 % below it: a fifth of the batches found it shared
    run = _run(1, {("a", 1024): 4000.0}, [3.4] * 8 + [3.06, 3.06])
    c = condition(run)
    assert (c.batches, c.shared, c.shared_share, c.reference_ghz) == (10, 2, 0.2, 3.0)
    assert c.words().startswith("the measuring core was shared at 20% of its 10 timed batches")
    assert condition(_run(2, {("a", 1024): 4000.0}, [3.4] * 10)).shared == 0


def test_the_condition_names_the_preempted_batches_and_where_the_requests_ran():
    choice = {"cpus": [0, 1], "requests": {"0": 30, "1": 10}, "alone_when_chosen": 36, "moves": 5,
              "peeks": 52, "peek_seconds": 0.01}
    run = _run(1, {("a", 1024): 4000.0}, [3.4] * 4, [False, True, True, None], {"cpu_choice": choice})
    c = condition(run)
    assert c.preempted == 2 and c.choices is not None and c.choices.requests == {0: 30, 1: 10}
    assert c.words() == ("the measuring core was shared at 0% of its 4 timed batches (by a thread on its other "
                         "hardware thread); 2 preempted by another process; each request ran on the CPU whose "
                         "core read the most alone just before it (CPU 0: 30, CPU 1: 10; 90% read alone when "
                         "chosen); run clock 3.00 GHz")
    failed = condition(_run(2, {("a", 1024): 4000.0}, [3.4] * 4,
                            context={"cpu_choice": {"problem": "the core watch stopped: runner native exited"}}))
    assert failed.choices is None and failed.words().endswith(
        "; every request on the measuring CPU: the core watch stopped: runner native exited; run clock 3.00 GHz")
    assert condition(_run(3, {("a", 1024): 4000.0}, [3.4] * 4)).words().endswith(
        "hardware thread); run clock 3.00 GHz")  # an older run, or one CPU: nothing said of either


def test_a_run_repeats_an_earlier_one_point_by_point_within_the_tolerance():
    first = {("a", 16): 1000.0, ("a", 1024): 4000.0, ("b", 16): 2000.0, ("b", 1024): 9000.0}
    # a's 1 KiB point 2.9 % slower (repeats), b's 16 B point 3.1 % slower (does not)
    second = {**first, ("a", 1024): 4000.0 * 1.029, ("b", 16): 2000.0 * 1.031}
    r = repeat(_run(2, second, [3.4] * 4), _run(1, first, [3.4] * 4))
    assert (r.earlier, r.points_within, r.points) == (1, 3, 4)
    assert r.words().startswith("against run 1 (the same plan on this host): 3 of 4 points within 3%")
    assert spread([1.0, 1.029]) <= REPEAT_TOLERANCE < spread([1.0, 1.031])
