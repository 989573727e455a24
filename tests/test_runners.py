"""Language runners: library quirks each runner guards, checked against known answers."""
import pytest

from cipherbench.measure.runner import builtin_runners
from cipherbench.measure.session import Session

BUILT = {s.name for s in builtin_runners() if not s.unavailable}

# NIST SP 800-38A F.3.13, CFB128-AES128.Encrypt (also in vectors/aes-sp800-38a.vec)
CFB = {"primitive": "aes-128-cfb", "key": "2b7e151628aed2a6abf7158809cf4f3c",
       "iv": "000102030405060708090a0b0c0d0e0f",
       "input": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"}
CFB_OUT = ("3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
           "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6")


@pytest.mark.skipif("php" not in BUILT, reason="the PHP runner is not built")
def test_php_mcrypt_cfb_takes_whole_block_pieces_and_refuses_what_libmcrypt_gets_wrong():
    with Session(only_runners={"php"}, pin=False) as s:
        r = s.ask("php-mcrypt", dict(CFB, op="encrypt", chunks=[16, 32]))
        assert (r["status"], r["output"], r["chunked"]) == ("ok", CFB_OUT, True)
        r = s.ask("php-mcrypt", dict(CFB, op="decrypt", input=CFB_OUT, chunks=[48]))
        assert (r["status"], r["output"]) == ("ok", CFB["input"])
        r = s.ask("php-mcrypt", dict(CFB, op="encrypt", chunks=[1, 15, 17]))
        assert r["status"] == "unsupported" and "after a partial block" in r["message"]
        # the last piece may end anywhere: nothing continues after it
        r = s.ask("php-mcrypt", dict(CFB, op="encrypt", input=CFB["input"][:2 * 40], chunks=[32]))
        assert (r["status"], r["output"]) == ("ok", CFB_OUT[:2 * 40])
        bench = dict(CFB, op="bench", operation="encrypt", loops=2)
        r = s.ask("php-mcrypt", dict(bench, size=17))
        assert r["status"] == "unsupported" and "after a partial block" in r["message"]
        assert s.ask("php-mcrypt", dict(bench, size=17, workload="rekey"))["status"] == "ok"
        assert s.ask("php-mcrypt", dict(bench, size=32))["status"] == "ok"


@pytest.mark.skipif("csharp" not in BUILT, reason="the C# runner is not built")
def test_mono_cfb_is_what_the_net_classes_run_by_default():
    """DES/TripleDES/RC2 CFB is 8-bit (their FeedbackSize is 8); Rijndael's is 128 bits whatever
    the block, so 256-bit-block CFB with default settings is cfb128."""
    with Session(only_runners={"csharp"}, pin=False) as s:
        offered = s.implementation("mono").primitives
        assert {"des-56-cfb8", "3des-112-cfb8", "3des-168-cfb8", "rc2-128-cfb8", "aes-128-cfb8",
                "rijndael256-256-cfb128"} <= set(offered)
        assert not {"des-56-cfb", "3des-168-cfb", "rc2-128-cfb"} & set(offered)
        # Botan modes/cfb.vec [DES/CFB(8)], first record.
        r = s.ask("mono", {"op": "encrypt", "primitive": "des-56-cfb8", "key": "3400AA949E053449",
                           "iv": "2ABF031C3DD08BA5", "input": "CDD4BAAD59214E97"})
        assert (r["status"], r["output"]) == ("ok", "dfd8c7ee7485e30c")
        # NIST CAVP TCFB8MMT3.rsp [ENCRYPT] COUNT = 9: 10 bytes, past one block, three keys.
        r = s.ask("mono", {"op": "decrypt", "primitive": "3des-168-cfb8",
                           "key": "df97ab263768d6f461866e1c86d57a541301734c5dc86dae",
                           "iv": "d0ddad02a219226d", "input": "14a0743bf00ae9ec3c24"})
        assert (r["status"], r["output"]) == ("ok", "d5db2469ae56ecac5164")
        # RFC 2268's RC2 vector (16-byte key, 128 effective bits): E(K, 0) = 2269552ab0f85ca6, so
        # CFB8 with IV 0 and every plaintext byte 22 keeps the register at 0 (corpora/derived.py).
        r = s.ask("mono", {"op": "encrypt", "primitive": "rc2-128-cfb8", "key": "88bca90e90875a7f0f79c384627bafb2",
                           "iv": "00" * 8, "input": "22" * 17})
        assert (r["status"], r["output"]) == ("ok", "00" * 17)
        # Gladman's Rijndael-256 vector (vectors/rijndael-gladman.vec): E(K, X) starts a49406115dfb30a4...,
        # the first 16 bytes of CFB128 (and of full-block CFB) with IV = X and a zero plaintext.
        key = "2b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfe"
        x = "3243f6a8885a308d313198a2e03707344a4093822299f31d0082efa98ec4e6c8"
        seg = s.ask("mono", {"op": "encrypt", "primitive": "rijndael256-256-cfb128", "key": key, "iv": x,
                             "input": "00" * 48})
        full = s.ask("mono", {"op": "encrypt", "primitive": "rijndael256-256-cfb", "key": key, "iv": x,
                              "input": "00" * 48})
        assert seg["output"][:32] == full["output"][:32] == "a49406115dfb30a40418aafa4869b7c6"
        assert seg["output"][32:] != full["output"][32:]  # the second segment feeds back 16 bytes, not 32


JIT = [(r, i) for r, i in (("java", "sunjce"), ("node", "node-crypto"), ("csharp", "mono")) if r in BUILT]


@pytest.mark.parametrize("runner,impl", JIT)
def test_jit_runners_read_the_warm_up_the_orchestrator_asks_for(runner, impl):
    bench = {"op": "bench", "impl": impl, "primitive": "aes-128-cbc", "operation": "encrypt", "size": 64,
             "loops": 2, "batches": 1, "key": "00" * 16, "iv": "00" * 16}
    with Session(only_runners={runner}, pin=False) as s:
        r = s.ask(impl, dict(bench, warmup_ms=60001))
        assert r["status"] == "error" and "warmup_ms" in r["message"]
        r = s.ask(impl, dict(bench, warmup_ms=-1))
        assert r["status"] == "error" and "warmup_ms" in r["message"]
        r = s.ask(impl, dict(bench, warmup_ms=0))
        assert r["status"] == "ok" and len(r["ns"]) == 1 and r["ns"][0] > 0


def _cpu_has_avx() -> bool:
    with open("/proc/cpuinfo") as f:
        return any(line.startswith("flags") and " avx " in f" {line.split(':', 1)[1].strip()} "
                   for line in f)


@pytest.mark.parametrize("runner", sorted({"native", "python"} & BUILT))
def test_runners_holding_several_libraries_reset_the_vector_state_before_every_batch(runner):
    """hello says so from the reset's own answer: the engine's clean_vector_state() and the Python
    runner's libcb_vector_state.so report whether the CPU had AVX, so a missing or unloadable
    reset says 'not reset' here instead (docs/protocol.md, bench)."""
    with Session(only_runners={runner}, pin=False) as s:
        s.start_all()
        hello = next(r.hello for r in s.runners if r.spec.name == runner)
    want = "vzeroupper before every timed batch" if _cpu_has_avx() else "nothing to reset: no AVX on this CPU"
    assert hello["vector_state"] == want


@pytest.mark.skipif("java" not in BUILT, reason="the Java runner is not built")
def test_the_jvm_compiles_in_the_requesting_thread():
    """runners/java/run starts HotSpot with -Xbatch: compilation left running in the background
    after an answer slowed whatever was timed next on the measuring CPU by up to 60 %."""
    with Session(only_runners={"java"}, pin=False) as s:
        s.start_all()
        assert "-Xbatch" in s.implementation("sunjce").notes["jvm_options"].split()


PLACING = [r for r in ("native", "rust", "python") if r in BUILT]


@pytest.mark.parametrize("runner", PLACING)
def test_runners_that_place_their_stack_put_each_batch_where_asked(runner):
    """stack_offset: the timed frame lands at the asked offset within its page, up to one
    fixed rotation, in every process; out of range is an error; absent, nothing moves."""
    impl = {"native": "openssl", "rust": "rustcrypto", "python": "pycryptodome"}[runner]
    req = {"op": "bench", "impl": impl, "primitive": "aes-128-ctr", "operation": "encrypt", "size": 64,
           "loops": 2, "key": "01" * 16, "iv": "a0" * 16}
    rotations = set()
    for _ in range(2):  # two processes: two randomised layouts, one rotation
        with Session(only_runners={runner}, pin=False) as s:
            for offset in (0, 16, 1552, 4080):
                r = s.ask(impl, dict(req, stack_offset=offset))
                assert r["status"] == "ok" and r["stack_offset"] == offset
                rotations.add((r["stack_at"] - offset) % 4096)
            r = s.ask(impl, dict(req, stack_offset=4096))
            assert (r["status"], r["message"]) == ("error", "stack_offset must be in 0..4095")
            r = s.ask(impl, req)
            assert r["status"] == "ok" and "stack_offset" not in r and "stack_at" not in r
    assert len(rotations) == 1
