"""benchmarks/tools/libtools.py (how fidelity reads the library tools) on lines the tools
printed on this machine, and the engine's `bench` field `inplace: false` (separate output
buffer) with the measurer's refusal of a runner that does not echo it."""
import json
import subprocess
import sys

import pytest
from conftest import ENGINE, REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from tools import libtools  # noqa: E402

MIB = 1024 * 1024


def test_bench_slope_csv():
    # bench-slope --csv cipher aes aes (libgcrypt 1.10.1): the eighth field is MiB/s; of the
    # two passes the second, warmed one counts
    out = ("cipher,AES,ECB enc,,,0.243,ns/B,3931,MiB/s,,c/B\n"
           "cipher,AES,CTR enc,,,0.048,ns/B,19869,MiB/s,,c/B\n"
           "cipher,AES,GCM enc,,,0.180,ns/B,5292,MiB/s,,c/B\n"
           "cipher,AES,ECB enc,,,0.253,ns/B,3770,MiB/s,,c/B\n")
    got = libtools.parse_bench_slope(out)
    assert got == {"AES ECB enc": 3770 * MIB / 1e6, "AES CTR enc": 19869 * MIB / 1e6, "AES GCM enc": 5292 * MIB / 1e6}


def test_nettle_benchmark_in_place_rows_follow_their_mode():
    out = ("         Algorithm         mode Mbyte/s\n\n"
           "            aes128  ECB encrypt 8864.83\n"
           "            aes128          CTR 4650.81\n"
           "            aes128   (in-place) 3833.58\n"
           "        gcm_aes128      encrypt 1899.25\n"
           "        gcm_aes128      encrypt 1801.75\n")
    got = libtools.parse_nettle_benchmark(out)
    assert got["aes128 CTR"] == pytest.approx(4650.81 * MIB / 1e6)
    assert got["aes128 CTR in-place"] == pytest.approx(3833.58 * MIB / 1e6)
    assert got["gcm_aes128 encrypt"] == pytest.approx(1899.25 * MIB / 1e6)  # the first of a repeated name


def test_mbedtls_and_wolfcrypt_lines():
    assert libtools.parse_mbedtls_benchmark("  AES-GCM-128              :      47174 KiB/s,         55 cycles/byte") \
        == {"AES-GCM-128": 47174 * 1024 / 1e6}
    csv = "Algorithm,MB/s,Cycles per byte,\nAES-128-CTR,66.320692,36.872562,\nBenchmark complete\n"
    assert libtools.parse_wolfcrypt_benchmark(csv) == {"AES-128-CTR": 66.320692}


def test_ols_slope_is_bench_slopes_least_squares():
    # exact line: 7 ns + 0.05 ns/B
    sizes = list(libtools.SLOPE_SIZES)
    assert libtools.ols_slope(sizes, [7 + 0.05 * n for n in sizes]) == pytest.approx(0.05)


def test_every_row_names_a_key_its_parser_reads():
    for tool in libtools.LIBRARY_TOOLS:
        assert len({r.pair for r in tool.rows}) == len(tool.rows), tool.name


def test_bench_slopes_rows_name_what_it_prints():
    # `bench-slope --csv cipher aes chacha20` as printed here (tests/data/peers): fidelity's rows read it
    got = libtools.parse_bench_slope((REPO / "tests" / "data" / "peers" / "bench-slope-cipher.csv").read_text())
    assert {r.tool_key for r in libtools.BENCH_SLOPE.rows} == {"AES ECB enc", "AES CBC enc", "AES CTR enc",
                                                                "AES GCM enc"} <= set(got)


def bench(req: dict) -> dict:
    base = {"op": "bench", "impl": "openssl", "primitive": "aes-128-ctr", "workload": "bulk", "size": 64,
            "loops": 10, "batches": 2, "key": "01" * 16, "iv": "a0" * 16}
    out = subprocess.run([str(ENGINE)], input=json.dumps({**base, **req}) + "\n", capture_output=True, text=True,
                         timeout=60)
    return json.loads(out.stdout.splitlines()[0])


def test_engine_times_into_a_separate_buffer_on_request(engine):
    r = bench({"operation": "encrypt", "inplace": False})
    assert r["status"] == "ok" and r["inplace"] is False and len(r["ns"]) == 2
    assert "inplace" not in bench({"operation": "encrypt"})
    assert bench({"operation": "decrypt", "inplace": False})["status"] == "unsupported"
    assert bench({"operation": "encrypt", "inplace": "no"})["status"] == "error"


def test_engine_repeats_the_iv_of_encrypted_messages_on_request(engine):
    r = bench({"operation": "encrypt", "workload": "message", "repeat_iv": True, "iv": "00" * 16})
    assert r["status"] == "ok" and r["repeat_iv"] is True and len(r["ns"]) == 2
    assert "repeat_iv" not in bench({"operation": "encrypt", "workload": "message"})
    assert bench({"operation": "encrypt", "repeat_iv": True})["status"] == "unsupported"  # bulk: one message
    assert bench({"operation": "decrypt", "workload": "message", "repeat_iv": True})["status"] == "unsupported"
    assert bench({"operation": "encrypt", "workload": "message", "repeat_iv": 1})["status"] == "error"


def test_a_point_sends_its_iv_and_conventions():
    from cipherbench import registry
    from cipherbench.kinds import Operation
    from cipherbench.measure.point import Point

    prim = registry.load()["aes-128-ctr"]
    own = Point("openssl", prim, Operation.ENCRYPT, "message", 64).request(loops=3)
    assert own["iv"] == "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf" and "repeat_iv" not in own and "inplace" not in own
    zero = Point("openssl", prim, Operation.ENCRYPT, "message", 64, iv=bytes(16), repeat_iv=True,
                 separate_output=True).request(loops=3)
    assert zero["iv"] == "00" * 16 and zero["repeat_iv"] is True and zero["inplace"] is False


def test_a_runner_that_ignores_separate_output_gets_no_figure(engine):
    """Its figure would be the in-place one under the other's name: the measurer refuses it."""
    from conftest import faulty

    from cipherbench.kinds import Operation
    from cipherbench.measure.point import Point
    from cipherbench.measure.session import Session
    from cipherbench.pipeline import RunPlan
    from cipherbench.pipeline.execute import time_points

    with Session(extra_runners=(faulty("bench-fields-ignored"),), only_runners={"native"}, pin=False) as s:
        prim = s.reg["aes-128-ctr"]
        pts = [Point(impl, prim, Operation.ENCRYPT, workload, 1024, separate_output=sep, repeat_iv=rep)
               for workload, sep, rep in (("bulk", True, False), ("message", False, True))
               for impl in ("openssl", "faulty")]
        plan = RunPlan.from_preset("quick", batch_ms=2, batches=2, warmup_batches=1)
        figs = time_points(s, plan, pts, seed=1)
    assert figs[0] is not None and figs[0].mb_per_s > 0 and figs[2] is not None and figs[2].mb_per_s > 0
    assert figs[1] is None and pts[1].error.endswith("does not time encryption into a separate output buffer")
    assert figs[3] is None and pts[3].error.endswith("does not time messages from one repeated IV")
