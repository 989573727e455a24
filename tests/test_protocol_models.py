"""cipherbench/measure/protocol.py: every runner's real answers validate, and each malformed answer
a fault battery sent (a runner answering `"ns": 12345`, `tsc: ["abc"]`, `output: "zz"`, a
hello whose implementations are a string) is one RunnerError naming the runner and the field."""
import pytest

from cipherbench.errors import RunnerError
from cipherbench.measure import protocol
from cipherbench.measure.runner import RunnerProcess, builtin_runners

# NIST SP 800-38A F.2.1 CBC-AES128.Encrypt, first block
CBC = {"op": "encrypt", "impl": "openssl", "primitive": "aes-128-cbc", "key": "2b7e151628aed2a6abf7158809cf4f3c",
       "iv": "000102030405060708090a0b0c0d0e0f", "input": "6bc1bee22e409f96e93d7e117393172a"}
BENCH = {"op": "bench", "impl": "openssl", "primitive": "aes-128-cbc", "operation": "encrypt", "size": 64,
         "loops": 4, "batches": 3, "key": CBC["key"], "iv": CBC["iv"]}


@pytest.fixture(scope="module")
def engine():
    spec = next(s for s in builtin_runners() if s.name == "native")
    proc = RunnerProcess(spec)
    yield proc
    proc.close()


def test_the_engines_real_answers_validate(engine):
    hello = protocol.validate("native", "hello", engine.request({"op": "hello"}))
    assert isinstance(hello, protocol.HelloResponse) and hello.protocol == 1
    assert any(im.name == "openssl" for im in hello.implementations)
    enc = protocol.validate("native", "encrypt", engine.request(CBC))
    assert enc.output == "7649abac8119b246cee98e9b12e9197d"
    bench = protocol.validate("native", "bench", engine.request(BENCH))
    assert len(bench.ns) == 3
    clock = protocol.validate("native", "cpu-clock", engine.request({"op": "cpu-clock", "thousands": 1}))
    assert clock.chain_cycles == 1000
    digest = protocol.validate("native", "hash", engine.request(
        {"op": "hash", "impl": "openssl", "primitive": "sha-256", "input": "616263"}))
    # FIPS 180-2 appendix B.1: SHA-256("abc")
    assert digest.output == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.parametrize("spec", [s for s in builtin_runners() if not s.unavailable], ids=lambda s: s.name)
def test_every_runners_hello_validates(spec):
    proc = RunnerProcess(spec)
    try:
        hello = protocol.validate(spec.name, "hello", proc.request({"op": "hello"}))
    finally:
        proc.close()
    assert hello.implementations


GOOD_BENCH = {"status": "ok", "id": 4, "ns": [100, 110], "tsc": [300, 330], "core_cycles": None}
GOOD_HELLO = {"status": "ok", "id": 1, "protocol": 1, "runner": "r", "language": "x", "runtime": "y",
              "clocks": {"monotonic": "m", "tsc": None, "core_cycles": None},
              "implementations": [{"name": "a", "available": True, "primitives": [{"name": "aes-128-cbc"}]}]}


@pytest.mark.parametrize("op, resp, field", [
    ("bench", dict(GOOD_BENCH, ns=12345), "ns"),
    ("bench", dict(GOOD_BENCH, tsc=["abc"]), "tsc[0]"),
    ("bench", dict(GOOD_BENCH, ns=[]), "ns"),
    ("bench", dict(GOOD_BENCH, ns=[-5, 3]), "ns[0]"),
    ("bench", dict(GOOD_BENCH, ns=[True, 3]), "ns[0]"),
    ("bench", dict(GOOD_BENCH, ns=["12", 3]), "ns[0]"),
    ("bench", dict(GOOD_BENCH, tsc=[1]), "the answer"),  # one count for two batches
    ("encrypt", {"status": "ok", "id": 2, "output": "zz"}, "output"),
    ("encrypt", {"status": "ok", "id": 2, "output": "abc"}, "output"),
    ("encrypt", {"status": "ok", "id": 2}, "the answer"),
    ("decrypt", {"status": "ok", "id": 2, "output": "00", "authentic": "yes"}, "authentic"),
    ("hash", {"status": "ok", "id": 3, "output": 17}, "output"),
    ("hello", dict(GOOD_HELLO, implementations="openssl"), "implementations"),
    ("hello", dict(GOOD_HELLO, implementations=[{"name": ""}]), "implementations[0].name"),
    ("hello", dict(GOOD_HELLO, implementations=[{"name": "a", "primitives": "aes-128-cbc"}]),
     "implementations[0].primitives"),
    ("hello", dict(GOOD_HELLO, protocol=2), "protocol"),
    ("cpu-clock", {"status": "ok", "ns": "fast", "chain_cycles": 1000}, "ns"),
    ("bench", {"status": "done"}, "status"),
])
def test_a_malformed_answer_is_one_error_naming_runner_and_field(op, resp, field):
    with pytest.raises(RunnerError) as e:
        protocol.validate("badrunner", op, resp)
    msg = str(e.value)
    assert msg.startswith(f"runner badrunner answered '{op}' with a malformed field {field}:"), msg
    assert "\n" not in msg


def test_answers_that_are_not_ok_carry_no_op_fields():
    r = protocol.validate("r", "bench", {"status": "error", "id": 1, "message": "loops must be at most 1000000000"})
    assert r.status is protocol.Status.error
    assert protocol.validate("r", "cpu-clock", {"status": "unsupported", "id": 2}).status is protocol.Status.unsupported
    with pytest.raises(RunnerError, match="not an object"):
        protocol.validate("r", "hash", ["ok"])


def test_a_forgery_rejected_needs_no_output_and_unknown_fields_are_ignored():
    r = protocol.validate("r", "decrypt", {"status": "ok", "authentic": False, "id": 9, "later_field": 1})
    assert r.output is None and r.authentic is False
    ok = protocol.validate("r", "bench", GOOD_BENCH)
    assert ok.ns == [100, 110] and ok.core_cycles is None
    assert protocol.validate("r", "hello", GOOD_HELLO).implementations[0].primitives[0].name == "aes-128-cbc"
