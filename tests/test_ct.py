"""The side-channel checks (cipherbench/ct): the taint check under valgrind, dudect's
t-test over the protocol's ct-sample, their records, store and display.

The leaky implementation is engine/adapters/leaky: RC4 plus a load indexed by the first
key byte and a branch on its lowest bit (sixteen key schedules instead of one), announced
only with CIPHERBENCH_TEST_LEAKY=1. Timing verdicts are asserted only where the leak is
thousands of cycles (the leaky key setup); a clean implementation's |t| is never asserted,
as the machine is shared and noisy.
"""
import csv
import json
import shutil

import numpy as np
import pytest
from conftest import ENGINE

from cipherbench.ct import dudect, taint
from cipherbench.ct.checks import (
    REPEATS,
    FindingKind,
    Secret,
    StatResult,
    StatVerdict,
    TaintFinding,
    TaintVerdict,
    leak_bar,
    taint_verdict,
)

LEAKY = {"CIPHERBENCH_TEST_LEAKY": "1"}
needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")


def _results(stdout: str) -> dict:
    return {(r["method"], r["secret"]): r for r in json.loads(stdout)["results"]}


@needs_valgrind
def test_the_leaky_implementation_is_flagged_by_both_checks(cb):
    r = cb("ct", "--impl", "leaky", "--primitive", "rc4", "--secret", "key", "--samples", "6000", "--json",
           env=LEAKY)
    assert r.returncode == 0, r.stderr
    got = _results(r.stdout)
    tk = got[("taint", "key")]
    assert tk["verdict"] == TaintVerdict.BRANCH_AND_INDEX.value
    assert tk["first_phase"] == "keysetup" and "LeakyRc4::set_key" in tk["first_where"]
    kinds = {(f["kind"], f["phase"]) for f in tk["findings"] if "set_key" in f["function"]}
    assert {("branch", "keysetup"), ("index", "keysetup")} <= kinds
    assert tk["details"]["roundtrip"] is True  # RC4's output, decrypted under valgrind
    st = got[("stat", "key")]  # thousands of cycles: well above the floor in both batches
    assert st["measurements"] == REPEATS * 6000 and st["verdict"] == StatVerdict.LEAK.value
    assert st["details"]["floor"] is not None and len(st["details"]["batches"]) == REPEATS
    assert st["details"]["repeated_t"] >= leak_bar(st["details"]["floor"])


def test_the_leaky_implementation_is_absent_unless_asked(native_session):
    assert "leaky" not in native_session.impls


@needs_valgrind
def test_chacha20_from_openssl_is_not_flagged_by_taint():
    res = taint.check(ENGINE, "openssl", "chacha20", Secret.KEY)
    assert res.error == "" and res.verdict == TaintVerdict.CLEAN, res
    assert res.provider  # the code path the library reported under valgrind


@needs_valgrind
def test_a_secret_plaintext_check_of_cryptopp_rc2_runs_to_a_verdict(native_session):
    """Crypto++'s RC2 keeps its EffectiveKeyLength parameter until a key is set; a decryptor
    left unkeyed threw from a destructor and the check ended in SIGABRT ("not checked")."""
    if "rc2-128-ecb" not in getattr(native_session.impls.get("cryptopp"), "primitives", {}):
        pytest.skip("no Crypto++ RC2 in this engine")
    res = taint.check(ENGINE, "cryptopp", "rc2-128-ecb", Secret.PLAINTEXT)
    assert res.error == "" and res.verdict == TaintVerdict.INDEX, res
    assert res.first.phase == "encrypt"  # S-box lookups at data-dependent indexes


@needs_valgrind
def test_a_byte_table_cipher_indexes_memory_with_its_key():
    """The project's reference Rijndael (engine/reference/rijndael): table lookups at
    key-derived indexes, from key setup on; the path timed natively is the same."""
    res = taint.check(ENGINE, "reference", "aes-128-ecb", Secret.KEY, native_provider="portable C")
    assert res.error == "" and res.verdict == TaintVerdict.INDEX, res
    assert (res.first.kind, res.first.phase, res.first.function) == (FindingKind.INDEX, "keysetup", "rij_set_key")
    assert {f.phase for f in res.findings} == {"keysetup", "encrypt", "decrypt"}
    assert res.roundtrip is True and res.path_differs


@needs_valgrind
def test_an_aead_s_tag_check_outcome_is_public_but_its_table_lookups_count():
    """OpenSSL's GCM compares the tag it computed from the secret key in finish, and branches
    on the outcome: that branch is on a public result (phase verify) and is not a leak; the
    rest of the phases are clean. The rule, on findings made up for it: a branch in verify
    does not count, a memory index there does."""
    res = taint.check(ENGINE, "openssl", "aes-128-gcm", Secret.KEY)
    assert res.error == "" and res.verdict == TaintVerdict.CLEAN and res.roundtrip is True, res
    assert {f.phase for f in res.findings} <= {"verify"} and all(f.on_public_outcome for f in res.findings)
    assert "verify" in res.phase_errors
    branch = TaintFinding(FindingKind.BRANCH, "verify", "Conditional jump", "CRYPTO_memcmp", "libcrypto.so.3")
    index = TaintFinding(FindingKind.INDEX, "verify", "Use of uninitialised value of size 8", "gcm_gmult", "lib.so")
    assert taint_verdict([branch]) == TaintVerdict.CLEAN
    assert taint_verdict([branch, index]) == TaintVerdict.INDEX
    assert taint_verdict([TaintFinding(FindingKind.BRANCH, "decrypt", "x", "f", "o")]) == TaintVerdict.BRANCH


@needs_valgrind
def test_a_hash_is_checked_with_its_message_secret():
    """A hash has no key: its message is the secret (a password, HMAC's inner block), in one
    phase, hash; asked for a key, the engine says a hash has none."""
    res = taint.check(ENGINE, "openssl", "md5", Secret.PLAINTEXT, native_provider="default provider")
    assert res.error == "" and res.verdict == TaintVerdict.CLEAN and not res.path_differs, res
    assert set(res.phase_errors) == {"hash"}
    keyed = taint.check(ENGINE, "openssl", "md5", Secret.KEY)
    assert "its secret is the message ('plaintext'), it has no key" in keyed.error


@needs_valgrind
def test_valgrind_cannot_run_sha_ni(monkeypatch):
    """Why a SHA-NI path is beyond taint: valgrind's CPU (3.19) shows no SHA-NI, and OpenSSL made
    to take it anyway (OPENSSL_ia32cap's second word: CPUID leaf 7 EBX, bit 29 SHA; OpenSSL's
    OPENSSL_ia32cap(3)) dies of an illegal instruction (signal 4) under it. Natively the engine
    hashes on that path wherever the CPU has SHA-NI. Should a valgrind ever run it, this fails,
    and the mark "another path only" (analysis/constant_time.py) is to be revisited."""
    monkeypatch.setenv("OPENSSL_ia32cap", ":0x20000000")
    res = taint.check(ENGINE, "openssl", "sha-256", Secret.PLAINTEXT)
    assert res.verdict == TaintVerdict.NOT_RUN and res.error.startswith("exit status -4"), res


@needs_valgrind
def test_a_hash_timed_on_sha_ni_is_marked_checked_on_another_path_only(cb, db, native_session):
    """OpenSSL's SHA-256, timed on SHA-NI: ct --run checks it (taint, message secret), on the path
    valgrind's CPU allows, which finds nothing; the timed path is not the one followed, so the
    mark is "another path only" (ct*), naming the timed path's features, never "not checked"."""
    from cipherbench.analysis.constant_time import CtStatus, ct_marks
    from cipherbench.codepath import code_label
    from cipherbench.kinds import CodeFeature, RunKind
    from cipherbench.store.db import Store
    timed = native_session.impls["openssl"].features.get("sha-256")
    if timed is None or CodeFeature.SHA_NI not in timed:
        pytest.skip(f"this CPU's OpenSSL SHA-256 path is {code_label(timed)}, not SHA-NI: taint follows it")
    r = cb("run", "--impl", "openssl", "--primitive", "sha-256", "--sizes", "64", "--batch-ms", "1", "--batches", "2")
    assert r.returncode == 0, r.stderr
    run = Store(db).latest_run()
    r = cb("ct", "--run", str(run), "--method", "taint", "--short", env={"COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    [row] = Store(db).run(Store(db).latest_run(kind=RunKind.CT))["ct"]
    assert (row["method"], row["secret"], row["verdict"]) == ("taint", "plaintext", TaintVerdict.CLEAN.value)
    assert row["path_differs"] is True and row["details"]["native_features"] == ["sha-ni"]
    mark = ct_marks(Store(db), run)[("openssl", "sha-256")]
    assert (mark.status, mark.detail, mark.symbol()) == (CtStatus.OTHER_PATH, "SHA-NI", "ct*")
    text = " ".join(r.stdout.split())
    assert "sha-256 another path only: SHA-NI beyond valgrind (taint)" in text
    assert "valgrind cannot run its instructions" in text


MEMCHECK_XML = """<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>4</protocolversion>
<clientmsg><tid>1</tid><text>cb-phase keysetup
</text></clientmsg>
<error><unique>0x0</unique><tid>1</tid><kind>UninitValue</kind>
  <what>Use of uninitialised value of size 8</what>
  <stack><frame><ip>0x1</ip><obj>/usr/lib/x86_64-linux-gnu/libfoo.so.1</obj><fn>foo_set_key</fn>
    <dir>/src</dir><file>foo.c</file><line>42</line></frame></stack>
  <auxwhat>Uninitialised value was created by a client request</auxwhat>
  <stack><frame><ip>0x2</ip><obj>/x/cipherbench-engine</obj><fn>run</fn></frame></stack>
</error>
<clientmsg><tid>1</tid><text>cb-phase encrypt
</text></clientmsg>
<error><unique>0x1</unique><tid>1</tid><kind>UninitCondition</kind>
  <what>Conditional jump or move depends on uninitialised value(s)</what>
  <stack><frame><ip>0x3</ip><obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj><fn>bcmp</fn></frame>
    <frame><ip>0x4</ip><obj>/usr/lib/libbar.so</obj><fn>bar_encrypt</fn></frame></stack>
  <auxwhat>Uninitialised value was created by a client request</auxwhat>
</error>
<error><unique>0x2</unique><tid>1</tid><kind>UninitCondition</kind>
  <what>Conditional jump or move depends on uninitialised value(s)</what>
  <stack><frame><ip>0x5</ip><obj>/usr/lib/libbar.so</obj><fn>bar_init</fn></frame></stack>
  <auxwhat>Uninitialised value was created by a heap allocation</auxwhat>
</error>
<error><unique>0x4</unique><tid>1</tid><kind>UninitValue</kind>
  <what>Use of uninitialised value of size 8</what>
  <stack><frame><ip>0x6</ip><obj>/usr/lib/libstripped.so.4</obj></frame>
    <frame><ip>0x7</ip><obj>/usr/lib/libstripped.so.4</obj><fn>stripped_set_key</fn></frame></stack>
  <auxwhat>Uninitialised value was created by a client request</auxwhat>
</error>
<error><unique>0x3</unique><tid>1</tid><kind>InvalidRead</kind><what>Invalid read of size 4</what></error>
</valgrindoutput>
"""


def test_memcheck_xml_is_read_in_phase_order_and_by_origin():
    findings, others = taint.parse_xml(MEMCHECK_XML)
    assert [(f.kind, f.phase, f.function) for f in findings] == [
        (FindingKind.INDEX, "keysetup", "foo_set_key"), (FindingKind.BRANCH, "encrypt", "bar_encrypt"),
        (FindingKind.INDEX, "encrypt", "?? (called from stripped_set_key)")]
    assert findings[0].where() == "foo_set_key (libfoo.so.1, foo.c:42)"
    assert others == 1  # the heap allocation's value is not the secret
    assert taint_verdict(findings) == TaintVerdict.BRANCH_AND_INDEX
    assert taint_verdict(findings[:1]) == TaintVerdict.INDEX and taint_verdict([]) == TaintVerdict.CLEAN


def test_welch_t_finds_a_shift_and_not_its_absence():
    rng = np.random.default_rng(17)
    classes = rng.integers(0, 2, 20000)
    same = rng.gamma(9.0, 50.0, 20000)  # a timing-like long tail, same for both classes
    t_same, _ = dudect.welch_max(classes, same)
    shifted = same + 40.0 * classes
    t_shift, _ = dudect.welch_max(classes, shifted)
    assert t_shift > 10 > t_same


def test_verdicts_name_the_thresholds_and_never_say_constant_time():
    ok = StatResult("x", "aes-128-ecb", Secret.KEY, StatVerdict.NO_LEAK_DETECTED, measurements=40000, max_t=1.25,
                    crop="none", batch_t=[1.25, 0.5], floor=2.0)
    assert ok.statement() == ("no leak detected after 40,000 measurements; max |t| = 1.25 (none), by batch 1.2 and "
                              "0.5; noise floor 2.0 (measured alongside); thresholds: TVLA 4.5, leak 45.0 in every "
                              "batch")
    high = StatResult("x", "aes-128-ecb", Secret.KEY, StatVerdict.SUSPECT, measurements=40000, max_t=9.0,
                      crop="cropped at p50", batch_t=[9.0, 3.0], floor=6.0)
    assert high.statement().startswith("suspect: repeat on a quiet core; max |t| = 9.00 (cropped at p50)")
    assert high.statement().endswith("noise floor 6.0 (measured alongside); thresholds: TVLA 4.5, leak 60.0 in "
                                     "every batch")


def test_ct_sample_draws_classes_from_the_seed(native_session):
    req = {"op": "ct-sample", "primitive": "aes-128-ecb", "vary": "plaintext", "samples": 64, "seed": 5,
           "key": "2b7e151628aed2a6abf7158809cf4f3c", "input": "00" * 16}
    a, b = native_session.ask("openssl", req), native_session.ask("openssl", req)
    c = native_session.ask("openssl", dict(req, seed=6))
    assert a["status"] == "ok" and a["classes"] == b["classes"] != c["classes"]
    assert len(a["times"]) == 64 and set(a["classes"]) == {0, 1} and a["timer"]
    bad = native_session.ask("openssl", dict(req, samples=0))
    assert bad["status"] == "error" and "samples" in bad["message"]
    short = native_session.ask("openssl", dict(req, input="00" * 15))
    assert short["status"] == "error" and "whole 16-byte blocks" in short["message"]
    assert native_session.ask("openssl", dict(req, primitive="sha-256"))["status"] == "unsupported"


def test_a_speed_run_s_builds_are_checked_and_the_results_shown_beside_it(cb, db, tmp_path):
    """ct --run N checks what run N timed, in a ct run of its own; the verdicts are shown
    with run N (show, every report format) because they checked the same builds."""
    from cipherbench.kinds import RunKind
    from cipherbench.store.db import Store
    r = cb("run", "--impl", "openssl", "--impl", "nettle", "--primitive", "aes-128-ecb", "--primitive", "sha-256",
           "--sizes", "64", "--batch-ms", "1", "--batches", "2")
    assert r.returncode == 0, r.stderr
    run = Store(db).latest_run()
    r = cb("ct", "--impl", "openssl", "--secret", "plaintext", "--method", "stat", "--samples", "2000",
           "--run", str(run))
    assert r.returncode == 0, r.stderr
    checked = Store(db).latest_run(kind=RunKind.CT)
    own = Store(db).run(checked)
    assert own["profile"] == f"ct:run-{run}" and own["kind"] == "ct"
    assert [(x["impl"], x["primitive"]) for x in own["ct"]] == [("openssl", "aes-128-ecb")]  # no hash, no nettle
    assert "stat plaintext" in r.stdout and "LEAK = over 10 times the larger of TVLA's 4.5" in r.stdout.replace("\n", " ")
    shown = cb("show", str(run))
    assert shown.returncode == 0 and "side channel (cipherbench ct)" in shown.stdout
    assert "stat plaintext: " in shown.stdout and "n=4,000" in shown.stdout
    rows = own["ct"]
    assert [(x["method"], x["secret"], x["measurements"]) for x in rows] == [("stat", "plaintext", 4000)]
    # every report format carries them, and an export moves them to another store
    out = tmp_path / "report"
    assert cb("report", "--out", str(out), "--run", str(run)).returncode == 0
    assert "Side channels, run" in (out / "report.md").read_text()
    assert "Side channels, run" in (out / "index.html").read_text()
    with open(out / "results.csv", newline="") as f:
        cells = {(r["impl"], r["primitive"]): r["side_channel"] for r in csv.DictReader(f)}
        assert cells[("openssl", "aes-128-ecb")].startswith("stat plaintext: ") and cells[("nettle", "aes-128-ecb")] == ""
    assert json.loads((out / "results.json").read_text())["ct"][0]["measurements"] == 4000
    assert cb("export", "--run", str(checked), "--out", str(tmp_path / "run.json")).returncode == 0  # the ct run
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert cb("--db", other, "import", str(tmp_path / "run.json")).returncode == 0
    assert [x["max_t"] for x in Store(other).run(Store(other).latest_run(kind=RunKind.CT))["ct"]] == [rows[0]["max_t"]]


def test_an_older_store_gains_the_table(tmp_path):
    import sqlite3

    from cipherbench.store.db import Store
    path = tmp_path / "old.sqlite"
    Store(f"sqlite:///{path}")
    with sqlite3.connect(path) as con:
        con.execute("DROP TABLE ct_results")
    Store(f"sqlite:///{path}", create=False)
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT count(*) FROM ct_results").fetchone() == (0,)


def test_bad_input_is_one_line(cb):
    r = cb("ct", "--primitive", "aes-129-ecb")
    assert r.returncode != 0 and "unknown primitive 'aes-129-ecb'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = cb("ct", "--experiment", "nonsense")
    assert r.returncode != 0 and "unknown experiment 'nonsense'" in r.stderr


@needs_valgrind
def test_ct_prints_a_verdict_a_non_expert_can_act_on_at_80_columns(cb):
    """At 80 columns: a verdict per pair by the answer's rule, what each leak means, and a
    one-line legend; no line is wider than the terminal."""
    r = cb("ct", "--impl", "leaky", "--primitive", "rc4", "--method", "taint", env=dict(LEAKY, COLUMNS="80"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(x) <= 80 for x in lines), max(lines, key=len)
    text = " ".join(x.strip() for x in lines)
    assert "LEAKS: branch in key setup" in text or "LEAKS: index in key setup" in text
    assert "can learn the key" in text or "can reveal the key" in text
    assert "index: an address computed from the secret (table lookups: cache attacks)" in text
