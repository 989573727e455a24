"""A command starts only the runners it needs, and names implementations as if all had started."""
import pytest
from conftest import faulty

from cipherbench.errors import UsageError
from cipherbench.measure.runner import builtin_runners
from cipherbench.measure.session import Session

BUILT = [s.name for s in builtin_runners() if not s.unavailable]


def started(s: Session) -> list[str]:
    return [r.spec.name for r in s.runners if r.hello]


def test_a_session_starts_the_native_engine_and_the_given_runners_only():
    with Session((faulty("correct"),), pin=False) as s:
        assert started(s) == ["native", "faulty"]
        assert s.implementation("openssl").runner == "native"
        assert s.implementation("faulty").runner == "faulty"
        assert {im.runner for im, _ in s.pairs(("openssl", "faulty"), ("aes-128-cbc",))} == {"native", "faulty"}
        assert started(s) == ["native", "faulty"]


@pytest.mark.skipif("csharp" not in BUILT, reason="the C# runner is not built")
def test_naming_an_implementation_starts_runners_in_order_up_to_its_own():
    order = [s.name for s in builtin_runners()]
    with Session(pin=False) as s:
        assert s.implementation("mono").runner == "csharp"
        assert started(s) == [n for n in order[: order.index("csharp") + 1] if n in BUILT]


def test_an_unknown_name_starts_everything_and_lists_what_exists():
    with Session(pin=False) as s:
        with pytest.raises(UsageError) as e:
            s.implementation("nosuchlib")
        assert started(s) == BUILT
        assert "available: " in str(e.value) and "openssl" in str(e.value)


def test_without_an_implementation_filter_every_runner_starts():
    with Session(pin=False) as s:
        runners = {im.runner for im, _ in s.pairs((), ("sha-256",))}
    assert started(s) == BUILT
    # every built runner offers SHA-256 through at least one implementation
    assert runners == set(BUILT)


def test_a_clashing_name_belongs_to_the_earlier_runner():
    """Two runners announcing "faulty": the first keeps the name, the second's is prefixed with
    its runner's, numbered since the first has that name."""
    ctr = {"op": "encrypt", "primitive": "aes-128-ctr", "key": "00" * 16, "iv": "00" * 16, "input": "00" * 16}
    with Session((faulty("correct"), faulty("ctr-swap")), pin=False) as s:
        assert started(s) == ["native", "faulty", "faulty-2"]
        want = s.ask("openssl", ctr)["output"]
        assert s.ask("faulty", ctr)["output"] == want
        assert s.ask("faulty-2:faulty", ctr)["output"] != want


def _maps_of(pid: int) -> str:
    with open(f"/proc/{pid}/maps") as f:
        return "".join(line for line in f if "[stack]" in line or "[heap]" in line)


def test_runners_start_at_the_same_addresses_only_when_asked_for_a_fixed_layout():
    # The engine's stack and heap are where a library's working buffers land; with
    # randomisation off they must be at the same addresses in two separate starts.
    with Session(pin=False, fixed_layout=True) as a, Session(pin=False, fixed_layout=True) as b:
        pa, pb = a.native().proc.pid, b.native().proc.pid
        assert a.native().layout == b.native().layout == "fixed"
        assert _maps_of(pa) == _maps_of(pb) != ""
    with Session(pin=False) as a, Session(pin=False) as b:
        assert a.native().layout == b.native().layout == "random"
        assert _maps_of(a.native().proc.pid) != _maps_of(b.native().proc.pid)


def test_replicas_spread_requests_over_processes_with_their_own_layouts():
    with Session(pin=False, replicas=3) as s:
        native = next(r for r in s.runners if r.spec.name == "native")
        procs = [native.process] + native.replicas
        assert s.processes_of("openssl") == 3 and len({p.proc.pid for p in procs}) == 3
        assert len({_maps_of(p.proc.pid) for p in procs}) == 3  # three address layouts
        counts = [0, 0, 0]
        for i, p in enumerate(procs):  # count what each process is asked
            def counted(reqs, timeout=None, _i=i, _orig=p.request_many):
                counts[_i] += len(reqs)
                return _orig(reqs, timeout)
            p.request_many = counted
        req = {"op": "encrypt", "primitive": "aes-128-ecb", "key": "00" * 16, "input": "00" * 16}
        # FIPS 197 appendix C.1 key schedule aside: AES-128(0, 0) = 66e94bd4ef8a2c3b884cfa59ca342b2e
        outs = [s.ask("openssl", req, replica=r)["output"] for r in range(6)]
        assert outs == ["66e94bd4ef8a2c3b884cfa59ca342b2e"] * 6
        assert counts == [2, 2, 2]  # request r went to process r mod 3


class _Partial:
    """A runner's stdin that takes at most `most` bytes a write(2), as a pipe does for a writer
    stopped and continued mid-write (Ctrl-Z and fg, a profiler attaching) or signalled."""

    def __init__(self, raw, most: int):
        self.raw, self.most = raw, most

    def write(self, data) -> int:
        return self.raw.write(bytes(data[: self.most]))

    def __getattr__(self, name):
        return getattr(self.raw, name)


@pytest.mark.parametrize("most", [7, 4096, 65536])
def test_requests_reach_the_runner_whole_when_the_pipe_takes_part_of_a_write(engine, most):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    from cipherbench.measure.runner import RunnerProcess
    proc = RunnerProcess(builtin_runners()[0])
    try:
        proc.proc.stdin = _Partial(proc.proc.stdin, most)
        key, iv = bytes(range(16)), bytes(range(16, 32))
        inputs = [bytes([n]) * size for n, size in ((1, 150_000), (2, 17), (3, 70_000))]
        reqs = [{"op": "encrypt", "impl": "openssl", "primitive": "aes-128-ctr", "key": key.hex(), "iv": iv.hex(),
                 "input": data.hex()} for data in inputs]
        answers = proc.request_many(reqs, timeout=20)
        for data, answer in zip(inputs, answers):
            want = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor().update(data)
            assert bytes.fromhex(answer["output"]) == want
    finally:
        proc.close()


def test_two_runner_commands_of_one_engine_keep_their_implementations_apart(engine, tmp_path):
    """Every wrapper's hello says `native`, the built-in engine's name: each gets it numbered,
    and its implementations theirs (RUNNER:impl), none overwriting another's."""
    wrappers = []
    for name in ("slow", "same", "same"):
        w = tmp_path / str(len(wrappers)) / name
        w.parent.mkdir()
        w.write_text(f"#!/bin/sh\nexec {engine} \"$@\"\n")
        w.chmod(0o755)
        wrappers.append(str(w))
    with Session(extra_runners=tuple(wrappers), only_runners={"native"}, pin=False) as s:
        names = sorted(n for n in s.impls if n.endswith("reference"))
        assert names == ["native-2:reference", "native-3:reference", "native-4:reference", "reference"]
        runners = [s.impls[n].runner for n in ("reference", "native-2:reference", "native-3:reference",
                                               "native-4:reference")]
        assert runners == ["native", "native-2", "native-3", "native-4"]
        pids = {s.runner_process(r).proc.pid for r in runners}
        assert len(pids) == 4
