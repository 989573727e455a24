"""benchmarks/noise --peers (benchmarks/peers.py): each peer's parser (benchmarks/tools/libtools.py)
on output the tools printed on this project's 2-vCPU Debian 12 host (OpenSSL 3.0.19, Botan
2.19.3, bench-slope of libgcrypt 1.10.1; tests/data/peers holds the longer ones), the points
each invocation reads, the spreads and their matching with cipherbench's points of the same
work, the shared share of each round, the interleaving, and the one-line refusals."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import peers  # noqa: E402
from peers import PeerPoint, PeerRound, Tool  # noqa: E402
from repeat import REPEAT_TOLERANCE, ProfileRun, repeatability  # noqa: E402
from tools import libtools  # noqa: E402

from cipherbench.kinds import Operation, Workload  # noqa: E402
from cipherbench.measure.clock import SHARED  # noqa: E402
from cipherbench.store.db import Store  # noqa: E402

DATA = REPO / "tests" / "data" / "peers"
MIB = 1024 * 1024
SIZES = (16, 256, 1024, 8192, 16384)
ALL = peers.Settings(tuple(peers.SLOPE), SIZES, 1, 100, Path("/nowhere"))
E, H = Operation.ENCRYPT, Operation.HASH

# `openssl speed -elapsed -mr -seconds 1 ...` stdout, as printed here
OPENSSL_CBC_16384 = "+H:16384\n+F:25:AES-128-CBC:121925592.23\n"  # -bytes 16384 -evp aes-128-cbc
OPENSSL_SHA256_256 = "+H:256\n+F:25:sha256:60273047.79\n"  # -bytes 256 -evp sha256
OPENSSL_CHACHA_ALL = ("+H:16:64:256:1024:8192:16384\n"  # -evp chacha20-poly1305, its six sizes
                      "+F:25:ChaCha20-Poly1305:23479683.17:132870144.00:240840744.55:107397322.77:675708928.00:"
                      "252402162.16\n")


# ---------------------------------------------------------------- parsers on real output
def test_openssl_speed_reads_the_sizes_of_its_header_and_bytes_per_second():
    assert libtools.parse_openssl_speed(OPENSSL_CBC_16384) == {("aes-128-cbc", 16384): 121.92559223}
    assert libtools.parse_openssl_speed(OPENSSL_SHA256_256) == {("sha256", 256): 60.27304779}
    got = libtools.parse_openssl_speed(OPENSSL_CHACHA_ALL)
    assert got == {("chacha20-poly1305", 16): 23.47968317, ("chacha20-poly1305", 64): 132.870144,
                   ("chacha20-poly1305", 256): 240.84074455, ("chacha20-poly1305", 1024): 107.39732277,
                   ("chacha20-poly1305", 8192): 675.708928, ("chacha20-poly1305", 16384): 252.40216216}


def test_openssl_speed_without_figures_reads_nothing():
    # an unknown -evp name: openssl prints only its error (stderr), status 1
    err = ("speed: no-such-cipher is an unknown cipher or digest\n800B965A917F0000:error:0308010C:digital "
           "envelope routines:inner_evp_generic_fetch:unsupported:../crypto/evp/evp_fetch.c:386:\n")
    assert libtools.parse_openssl_speed("") == {} and libtools.parse_openssl_speed(err) == {}
    # the timed stretch's own lines (stderr) carry no figure
    assert libtools.parse_openssl_speed("+DT:AES-128-CBC:1:16384\n+R:7665:AES-128-CBC:1.030000\n") == {}


def test_botan_speed_reads_each_algorithms_own_operation_in_bytes_per_ns():
    out = (DATA / "botan-speed.json").read_text()
    got = libtools.parse_botan_speed(out)
    assert set(got) == {(a.name, n) for a in libtools.BOTAN_SPEED for n in SIZES}
    # encrypt, not decrypt nor key schedule; GCM printed with its tag length and provider
    assert got[("AES-128/CBC/NoPadding", 16)] == pytest.approx(4732240 / 86941075 * 1e3)
    assert got[("AES-128/GCM", 8192)] == pytest.approx(130310144 / 83429313 * 1e3)
    assert got[("CTR-BE(AES-128)", 1024)] == pytest.approx(145301504 / 100000426 * 1e3)
    assert got[("SHA-256", 16384)] == pytest.approx(58114048 / 100013376 * 1e3)  # a hash's "hash"
    decrypt = next(r for r in json.loads(out) if r["op"] == "decrypt" and r["algo"] == "ChaCha20Poly1305"
                   and r["buf_size"] == 256)
    assert got[("ChaCha20Poly1305", 256)] != pytest.approx(decrypt["events"] / decrypt["nanos"] * 1e3)


def test_botan_speed_takes_the_best_provider_and_nothing_without_json():
    recs = json.loads((DATA / "botan-speed.json").read_text())
    slower = dict(next(r for r in recs if r["algo"].startswith("AES-128/GCM") and r["op"] == "encrypt"
                       and r["buf_size"] == 16), algo="AES-128/GCM(16) [base]", nanos=10**9)
    got = libtools.parse_botan_speed(json.dumps([slower, *recs]))
    assert got[("AES-128/GCM", 16)] == pytest.approx(2064000 / 94246220 * 1e3)
    assert libtools.parse_botan_speed("Unknown algorithm 'NoSuch-Cipher'\n") == {}
    assert libtools.parse_botan_speed('[{"algo": "SHA-256", "op": "hash"}]') == {}  # not botan's records


def test_bench_slope_names_carry_algorithm_mode_and_the_second_pass_counts():
    got = libtools.parse_bench_slope((DATA / "bench-slope-cipher.csv").read_text())
    assert len(got) == 35
    assert got["AES CBC enc"] == 1412 * MIB / 1e6 and got["AES ECB enc"] == 3443 * MIB / 1e6
    assert got["CHACHA20 POLY1305 enc"] == 1828 * MIB / 1e6 and got["AES GCM enc"] == 6033 * MIB / 1e6
    assert libtools.parse_bench_slope((DATA / "bench-slope-hash.csv").read_text()) == {"SHA256": 1292 * MIB / 1e6}


# ---------------------------------------------------------------- what each round runs and reads
def test_openssl_runs_one_process_per_algorithm_and_size_and_reads_its_point():
    invs = peers.openssl_invocations(ALL)
    assert len(invs) == len(libtools.OPENSSL_SPEED) * len(SIZES)
    cbc = next(i for i in invs if i.argv[-1] == "aes-128-cbc" and "16384" in i.argv)
    assert cbc.argv == ("openssl", "speed", "-elapsed", "-mr", "-seconds", "1", "-bytes", "16384",
                        "-evp", "aes-128-cbc")
    assert cbc.read(OPENSSL_CBC_16384) == {PeerPoint(Tool.OPENSSL, "aes-128-cbc", 16384, E, Workload.BULK): 121.92559223}
    sha = next(i for i in invs if i.argv[-1] == "sha256" and "256" in i.argv)
    # EVP_Digest per call: a whole message, which the quick profile does not time
    assert sha.read(OPENSSL_SHA256_256) == {PeerPoint(Tool.OPENSSL, "sha-256", 256, H, Workload.MESSAGE): 60.27304779}
    assert cbc.read(OPENSSL_SHA256_256) == {}  # another process's figure is not this one's


def test_botan_and_bench_slope_rounds_read_every_point_they_are_asked():
    (botan,) = peers.botan_invocations(ALL)
    got = botan.read((DATA / "botan-speed.json").read_text())
    assert set(got) == peers.expected(Tool.BOTAN, ALL)
    assert got[PeerPoint(Tool.BOTAN, "aes-128-gcm", 16, E, Workload.MESSAGE)] == pytest.approx(2064000 / 94246220 * 1e3)
    cipher, hashes = peers.bench_slope_invocations(ALL)
    assert cipher.argv[1:] == ("--csv", "cipher", "aes", "chacha20")
    assert hashes.argv[1:] == ("--csv", "hash", "sha256", "sha256")
    got = {**cipher.read((DATA / "bench-slope-cipher.csv").read_text()),
           **hashes.read((DATA / "bench-slope-hash.csv").read_text())}
    assert set(got) == peers.expected(Tool.BENCH_SLOPE, ALL)
    assert got[PeerPoint(Tool.BENCH_SLOPE, "sha-256", None, H, None)] == 1292 * MIB / 1e6


def test_a_narrowed_round_asks_only_for_its_primitives():
    one = peers.Settings(("aes-128-ctr",), (16, 1024), 2, 300, Path("/x"))
    assert [i.argv[5:] for i in peers.openssl_invocations(one)] == [
        ("2", "-bytes", "16", "-evp", "aes-128-ctr"), ("2", "-bytes", "1024", "-evp", "aes-128-ctr")]
    assert peers.botan_invocations(one)[0].argv[2:] == ("--msec=300", "--format=json", "--buf-size=16,1024",
                                                        "CTR-BE(AES-128)")
    assert [i.argv for i in peers.bench_slope_invocations(one)] == [("/x/bench-slope", "--csv", "cipher", "aes")]
    assert peers.bench_slope_invocations(peers.Settings(("sha-256",), SIZES))[0].argv[2:] == ("hash", "sha256",
                                                                                               "sha256")


# ---------------------------------------------------------------- spreads, matching, shares
def point(tool=Tool.OPENSSL, prim="aes-128-ctr", size=1024, op=E, wl=Workload.BULK) -> PeerPoint:
    return PeerPoint(tool, prim, size, op, wl)


def test_peer_spreads_are_max_over_min_of_the_points_every_round_gave():
    rng = random.Random(47)
    for _ in range(200):
        pts = [point(size=n) for n in SIZES]
        rounds = [PeerRound(Tool.OPENSSL, datetime.now(UTC), figures={p: rng.uniform(50, 5000) for p in pts})
                  for _ in range(rng.randint(2, 5))]
        dropped = rng.choice(pts)
        del rng.choice(rounds).figures[dropped]
        spreads = peers.peer_spreads(rounds)
        assert set(spreads) == set(pts) - {dropped}
        for p, s in spreads.items():
            vals = [r.figures[p] for r in rounds]
            assert s == pytest.approx(max(vals) / min(vals) - 1)
        assert peers.within(spreads.values()) == (sum(1 for s in spreads.values() if s <= REPEAT_TOLERANCE),
                                                  len(pts) - 1)
    assert peers.within([0.0, 0.02, 0.0299, 0.031, 0.5]) == (3, 5)


def run_data(figures: dict[tuple[str, str, str, str, int], float]) -> dict:
    return {"measurements": [{"impl": i, "primitive": p, "operation": o, "workload": w, "size": n,
                              "ns_per_call": v, "error": None} for (i, p, o, w, n), v in figures.items()]}


def test_each_peer_point_sits_beside_our_point_of_the_same_work_only():
    keys = [("openssl", "aes-128-ctr", "encrypt", "bulk", 1024), ("botan", "aes-128-ctr", "encrypt", "bulk", 1024),
            ("openssl", "aes-128-gcm", "encrypt", "message", 1024), ("openssl", "aes-128-ctr", "encrypt", "bulk", 16)]
    a = run_data(dict(zip(keys, [100.0, 200.0, 300.0, 400.0])))
    b = run_data(dict(zip(keys, [102.0, 220.0, 303.0, 400.0])))
    ours = peers.ours_spreads([ProfileRun(1.0, a, []), ProfileRun(1.0, b, []), ProfileRun(1.0, None, ["failed"])])
    assert ours == repeatability([a, b], min_size=0)[2]  # every size, in time
    peer = {point(): 0.05, point(Tool.BOTAN): 0.01, point(prim="aes-128-gcm", wl=Workload.REKEY): 0.2,
            point(size=16): 0.3, point(Tool.BENCH_SLOPE, size=None, wl=None): 0.04}
    got = {(b.point.tool, b.point.primitive, b.point.size, b.point.workload): b.ours for b in peers.beside(peer, ours)}
    assert got[(Tool.OPENSSL, "aes-128-ctr", 1024, Workload.BULK)] == pytest.approx(0.02)
    assert got[(Tool.BOTAN, "aes-128-ctr", 1024, Workload.BULK)] == pytest.approx(0.1)  # botan's own, not openssl's
    assert got[(Tool.OPENSSL, "aes-128-ctr", 16, Workload.BULK)] == 0.0
    assert got[(Tool.OPENSSL, "aes-128-gcm", 1024, Workload.REKEY)] is None  # ours timed messages, not rekey
    assert got[(Tool.BENCH_SLOPE, "aes-128-ctr", None, None)] is None  # a slope is no one point
    # in the order of the report: primitive, workload, size
    assert [(b.point.primitive, b.point.size) for b in peers.beside({point(size=n): 0.0 for n in SIZES[::-1]}, ours)] \
        == [("aes-128-ctr", n) for n in SIZES]


def test_every_peer_point_keys_the_point_repeatability_gives():
    for tool, algos in ((Tool.OPENSSL, libtools.OPENSSL_SPEED), (Tool.BOTAN, libtools.BOTAN_SPEED)):
        for a in algos:
            key = PeerPoint(tool, a.primitive, 256, a.operation, a.workload).ours()
            data = run_data({key: 1.0})
            assert repeatability([data, data], min_size=0)[2] == {key: 0.0}


def test_each_rounds_shared_share_is_judged_against_all_the_peers_readings():
    usual = 3.4
    low = usual * (1 - SHARED) - 0.01
    rounds = {Tool.OPENSSL: [PeerRound(Tool.OPENSSL, datetime.now(UTC), readings=[usual] * 8 + [low] * 2),
                             PeerRound(Tool.OPENSSL, datetime.now(UTC), readings=[usual] * 10)],
              Tool.BOTAN: [PeerRound(Tool.BOTAN, datetime.now(UTC), readings=[low] * 5),
                           PeerRound(Tool.BOTAN, datetime.now(UTC))]}
    # botan's first round was shared throughout: against its own readings it would look alone
    assert peers.round_shares(rounds) == {Tool.OPENSSL: [0.2, 0.0], Tool.BOTAN: [1.0, None]}


# ---------------------------------------------------------------- the run around them
def test_a_peer_runs_pinned_and_the_clock_is_read_while_it_runs(tmp_path):
    flag = tmp_path / "read"
    # the process ends only once the clock has been read: read while it runs, not after
    script = (f"import os, pathlib, time\nwhile not pathlib.Path({str(flag)!r}).exists(): time.sleep(0.01)\n"
              "print(sorted(os.sched_getaffinity(0)))\nprint('+H:16', flush=True)\nraise SystemExit(3)")
    cpu = max(os.sched_getaffinity(0))
    status, out, err = peers.run_pinned((sys.executable, "-c", script), cpu, lambda: flag.touch())
    assert (status, out, err) == (3, f"[{cpu}]\n+H:16\n", "")


def test_rounds_interleave_ours_and_every_peer(monkeypatch, tmp_path):
    order = []

    @contextmanager
    def no_engine(**_):
        yield type("S", (), {"native": lambda self: None})()

    monkeypatch.setattr(peers, "Session", no_engine)
    monkeypatch.setattr(peers, "profile_run", lambda db, profile, extra: order.append(("ours", extra))
                        or ProfileRun(1.0, None, ["x"]))
    monkeypatch.setattr(peers, "peer_round", lambda t, s, cpu, clock: order.append((t.value, cpu))
                        or PeerRound(t, datetime.now(UTC)))
    o = peers.Options(3, "quick", ("--impl", "openssl"), tuple(Tool), ALL, tmp_path)
    ours, started, rounds = peers.measure(o, 1)
    assert order == [("ours", ("--impl", "openssl")), ("openssl", 1), ("botan", 1), ("bench-slope", 1)] * 3
    assert len(ours) == len(started) == 3 and all(len(r) == 3 for r in rounds.values())
    order.clear()
    peers.measure(peers.Options(2, "quick", (), (Tool.BOTAN,), ALL, tmp_path, with_runs="sqlite:///x"), None)
    assert order == [("botan", None)] * 2  # ours come from the store


def test_a_missing_tool_is_built_once_and_named_in_one_line_when_it_cannot_be(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(peers.subprocess, "run", lambda argv, **kw: calls.append(argv))
    got = peers.missing_tool((Tool.BENCH_SLOPE,), tmp_path / "bin")
    assert calls == [[str(REPO / "benchmarks" / "tools" / "build.sh"), str(tmp_path)]]
    assert got == (f"noise: bench-slope is missing and benchmarks/tools/build.sh could not build it into "
                   f"{tmp_path / 'bin'} (its output above)")
    calls.clear()
    monkeypatch.setattr(peers.shutil, "which", lambda name: None)
    assert peers.missing_tool(tuple(Tool), tmp_path / "bin") == "noise: openssl is missing (Debian package openssl)"
    assert calls == []  # build.sh does not install openssl


def noise(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "benchmarks" / "noise"), *args], capture_output=True,
                          text=True, timeout=120, cwd=str(REPO))


@pytest.mark.parametrize("args, line", [
    (("--tools", "openssl,cryptest"), "noise: --tools takes openssl, botan, bench-slope; got 'openssl,cryptest'"),
    (("--primitive", "aes-256-xts"), "noise: --primitive takes the 'quick' profile's aes-128-cbc, aes-128-ctr, "
                                     "aes-128-gcm, chacha20-poly1305, sha-256; got 'aes-256-xts'"),
    (("--profile", "quik"), "noise: no profile 'quik' in registry/experiments.toml"),
    (("--botan-msec", "0"), "noise: --tools names one tool at least; --openssl-seconds and --botan-msec are positive"),
])
def test_bad_options_get_one_line(args, line):
    p = noise("--peers", *args)
    assert (p.returncode, p.stdout, p.stderr.strip()) == (2, "", line)


def test_with_runs_needs_two_runs_of_the_profile_in_the_store(tmp_path):
    Store(f"sqlite:///{tmp_path / 'empty.sqlite'}")  # the tables, no run
    p = noise("--peers", "--tools", "openssl", "--with-runs", str(tmp_path / "empty.sqlite"))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.strip() == "noise: --with-runs: the store holds 0 complete 'quick' runs; two at least are compared"
    p = noise("--peers", "--tools", "openssl", "--with-runs", str(tmp_path / "none.sqlite"))
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert p.stderr.startswith("noise: --with-runs: ") and "Traceback" not in p.stderr
