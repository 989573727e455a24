"""Reduced rounds through the protocol, diffusion and avalanche (cipherbench/analysis/diffusion.py),
security margins, and the AES-candidate experiment's table with its new columns."""
import json
import sqlite3

import numpy as np
import pytest

from cipherbench.analysis import diffusion as dif
from cipherbench.analysis import margins
from cipherbench.errors import UsageError
from cipherbench.measure import ops
from cipherbench.results.run import Diffusion

RNG_SEED = 20240


@pytest.fixture(scope="module")
def s(native_session):
    if "reference" not in native_session.impls:
        pytest.skip("the reference implementation is not built")
    return native_session


def ask(s, impl, **req):
    return s.ask(impl, dict({"op": "encrypt"}, **req))


# ---------------------------------------------------------------------------- protocol: rounds
def test_hello_announces_the_rounds_the_reference_ciphers_run(s):
    r = s.impls["reference"].rounds
    # FIPS 197: 10/12/14 rounds; the reference accepts 1..14 for every key length.
    assert r["aes-128-ecb"]["full"] == 10 and r["aes-128-ecb"]["max"] == 14
    assert r["aes-256-cbc"]["full"] == 14
    # RFC 2612: 48 rounds = 12 quad-rounds, the reference's unit.
    assert r["cast256-128-ecb"]["full"] == 12 and r["cast256-128-ecb"]["unit"].startswith("quad-round")
    # DEAL: 6 rounds for 128/192-bit keys, 8 for 256-bit keys.
    assert (r["deal-128-ecb"]["full"], r["deal-256-ecb"]["full"]) == (6, 8)
    others = [i for i in s.impls.values() if i.name != "reference" and i.available]
    assert others and all(not i.rounds for i in others)


def test_rounds_is_refused_as_unsupported_by_a_full_round_implementation(s):
    impl = next((i.name for i in s.impls.values()
                 if i.name != "reference" and i.available and "aes-128-ecb" in i.primitives), None)
    if impl is None:
        pytest.skip("no library implementation of aes-128-ecb is built")
    key, block = "00" * 16, "00" * 16
    full = ask(s, impl, primitive="aes-128-ecb", key=key, input=block)
    assert full["status"] == "ok" and "rounds" not in full
    r = ask(s, impl, primitive="aes-128-ecb", key=key, input=block, rounds=3)
    assert r["status"] == "unsupported" and "full round count" in r["message"]
    with pytest.raises(UsageError, match="cannot run aes-128-ecb with 3 rounds"):
        ops.crypt(s, impl, s.reg["aes-128-ecb"], bytes(16), None, None, bytes(16), False, rounds=3)


def test_rounds_out_of_range_is_an_error_and_honoured_rounds_are_echoed(s):
    key = "000102030405060708090a0b0c0d0e0f"
    block = "00112233445566778899aabbccddeeff"
    for bad in (0, 15, "3", -1):
        r = ask(s, "reference", primitive="aes-128-ecb", key=key, input=block, rounds=bad)
        assert r["status"] == "error" and "rounds" in r["message"], bad
    # FIPS 197 C.1: AES-128 of this block under this key.
    r = ask(s, "reference", primitive="aes-128-ecb", key=key, input=block, rounds=10)
    assert r == dict(r, status="ok", rounds=10, output="69c4e0d86a7b0430d8cdb78070b4c55a")
    assert "rounds" not in ask(s, "reference", primitive="aes-128-ecb", key=key, input=block, rounds=None)


def test_a_runner_that_ignores_rounds_is_not_taken_for_reduced_rounds(s):
    class OldRunner:  # answers the full cipher and knows nothing of the field
        def ask(self, impl, req):
            return {"status": "ok", "output": req["input"]}
    with pytest.raises(UsageError, match="ignored the round count"):
        ops.crypt(OldRunner(), "old", s.reg["aes-128-ecb"], bytes(16), None, None, bytes(16), False, rounds=2)


def test_every_reference_cipher_inverts_at_every_round_count(s):
    """decrypt(encrypt(x, r), r) = x for every reference ECB primitive and every r in 1..max;
    r = full is the full cipher and every other r gives something else."""
    rng = np.random.default_rng(RNG_SEED)
    ref = s.impls["reference"]
    checked = 0
    for name, info in sorted(ref.rounds.items()):
        p = s.reg[name]
        if p.mode != "ecb":
            continue
        key = rng.bytes(p.key_bytes)
        data = rng.bytes(2 * p.block_bytes)
        full = ops.crypt(s, "reference", p, key, None, None, data, False)
        for r in range(1, info["max"] + 1):
            ct = ops.crypt(s, "reference", p, key, None, None, data, False, rounds=r)
            assert ops.crypt(s, "reference", p, key, None, None, ct, True, rounds=r) == data, (name, r)
            assert (ct == full) == (r == info["full"]), (name, r)
            checked += 1
    assert checked > 300  # eighteen ciphers, their key sizes, every round count


# ---------------------------------------------------------------------------- AES: exact diffusion
def _changed_bytes(ch: np.ndarray) -> np.ndarray:
    """(samples, 128 input bits, 128 output bits) -> (samples, 128, 16): output byte changed."""
    return ch.reshape(ch.shape[0], ch.shape[1], 16, 8).any(axis=3)


def test_aes_diffusion_is_exactly_what_its_structure_implies(s):
    """Reduced AES (FIPS 197; the reference's r rounds = initial AddRoundKey, r - 1 full rounds
    and a final round without MixColumns). Input byte b = 4c + row sits in column c.
    1 round: SubBytes maps a nonzero byte difference to a nonzero one and ShiftRows moves it to
    column c - row, so exactly one output byte, 4((c - row) mod 4) + row, changes.
    2 rounds: MixColumns (branch number 5) spreads one active byte over all four bytes of column
    c' = (c - row) mod 4; the final ShiftRows moves byte (c', row2) to column c' - row2: exactly
    four bytes change, one per column. 3 rounds: after the second MixColumns every column is
    fully active, so all sixteen bytes change, for every key, block and flipped bit."""
    p = s.reg["aes-128-ecb"]
    smp = dif.Sampling(keys=4, blocks=8, seed=7)  # 32 samples: a pair of probability 1/2 is missed with 2^-32
    byte_of_bit = np.arange(128) // 8
    row, col = byte_of_bit % 4, byte_of_bit // 4
    c1 = (col - row) % 4
    one = np.zeros((128, 16), bool)
    one[np.arange(128), 4 * c1 + row] = True
    two = np.zeros((128, 16), bool)
    for r2 in range(4):
        two[np.arange(128), 4 * ((c1 - r2) % 4) + r2] = True
    for rounds, expect in ((1, one), (2, two), (3, np.ones((128, 16), bool))):
        ch = dif.changes(s, "reference", p, rounds, smp)
        assert ch.shape == (32, 128, 128)
        assert (_changed_bytes(ch) == expect).all(), rounds
    rows = dif.profile(s, "reference", p, smp)
    assert [r.rounds for r in rows] == [1, 2, 3, None]
    assert [r.complete for r in rows] == [False, False, True, True]
    assert [r.dependent_pairs for r in rows[:2]] == [128 * 8, 128 * 32]  # 1 byte, then 4 bytes per bit
    sm = dif.summary(rows)
    assert sm.full_diffusion_rounds == 3 and sm.full_rounds == 10
    assert sm.overall == pytest.approx(10 * max(sm.d1, sm.d2 / 2))


def test_full_aes_passes_the_avalanche_criteria_and_reduced_aes_fails_them(s):
    p = s.reg["aes-128-ecb"]
    smp = dif.Sampling(keys=8, blocks=32, seed=1999)
    full = dif.measure(s, "reference", p, None, smp)
    assert full.samples == 256 and full.mean_bits is not None and 63 < full.mean_bits < 65
    assert dif.passes(full, "sac") and dif.passes(full, "bic")
    two = dif.measure(s, "reference", p, 2, smp)
    assert two.sac_p is not None and two.sac_p < 1e-100 and not dif.passes(two, "sac")
    # the same seed gives the same figures from another implementation of the same cipher
    other = next((i.name for i in s.impls.values()
                  if i.name != "reference" and i.available and "aes-128-ecb" in i.primitives), None)
    if other:
        o = dif.measure(s, other, p, None, smp)
        assert (o.mean_bits, o.sac_p, o.bic_max_corr) == (full.mean_bits, full.sac_p, full.bic_max_corr)


def test_figures_catch_dependent_output_bits_and_the_identity():
    rng = np.random.default_rng(3)
    ch = rng.integers(0, 2, size=(512, 16, 16)).astype(bool)
    f = dif.figures(ch)
    assert f["sac_p"] > dif.ALPHA and f["bic_p"] > dif.ALPHA and f["complete"]
    ch[:, :, 1] = ch[:, :, 0]  # output bit 1 changes exactly when bit 0 does
    f = dif.figures(ch)
    assert f["bic_max_corr"] == pytest.approx(1.0) and f["bic_p"] < 1e-50
    ident = np.broadcast_to(np.eye(16, dtype=bool), (64, 16, 16))  # a flip changes only its own bit
    f = dif.figures(np.array(ident))
    assert (f["mean_bits"], f["complete"], f["dependent_pairs"], f["sac_max_dev"]) == (1.0, False, 16, 0.5)


def test_overall_count_reproduces_gladmans_published_row():
    """Gladman 1999 (seed 002) printed 1-round, 2-round and overall figures; full rounds x
    max(d1, d2/2) gives his overall count: RC6 15/42 -> 420 (20 rounds), E2 39/48 -> 468
    (12), DEAL 17/49 -> 147 (6), HPC 64/64 -> 512 (8)."""
    def rows(full, d1, d2):
        return [Diffusion("x", "y", rounds=1, full_rounds=full, mean_bits=d1, complete=False, rounds_unit="round"),
                Diffusion("x", "y", rounds=2, full_rounds=full, mean_bits=d2, complete=False, rounds_unit="round")]
    for full, d1, d2, overall in ((20, 15, 42, 420), (12, 39, 48, 468), (6, 17, 49, 147), (8, 64, 64, 512)):
        assert dif.summary(rows(full, d1, d2)).overall == overall


# ---------------------------------------------------------------------------- security margins
def test_security_margins_carry_the_published_figures_with_citations():
    m = margins.load()
    # shared/reference/security-margins.md, (a) Biham 1999 and (b) best attacks
    assert (m["aes"].min_secure.rounds, m["aes"].min_secure.of) == (8, 10)
    assert (m["serpent"].min_secure.rounds, m["mars"].min_secure.rounds, m["cast256"].min_secure.rounds) == (17, 20, 40)
    assert m["aes"].attack(128).text() == "7 of 10" and m["aes"].attack(256).text() == "9 of 14"
    assert m["chacha20"].attack(256).text() == "7 of 20" and m["chacha20"].block_bytes == 64
    assert m["sm4"].attack(128).margin == pytest.approx(0.25)
    assert m["tnepres"].attack(128) == m["serpent"].attack(128)
    for fam, e in m.items():
        for _, a in e.attacks:
            assert a.reference and a.kind and a.status in ("V", "M"), fam
    for fam in ("aes", "camellia", "chacha20", "salsa20", "serpent", "twofish", "3des", "blowfish", "idea",
                "cast5", "seed", "aria", "sm4", "gost"):
        assert m[fam].attacks, fam


def test_security_columns_are_derived_from_the_stored_cycles():
    from cipherbench.report.ciphers import security_value
    from cipherbench.results.run import Run

    def m(op, cpb):
        return {"impl": "reference", "primitive": "rc6-128-ecb", "operation": op, "workload": "bulk",
                "size": 4096, "ns_per_call": 1.0, "cycles_per_byte": cpb, "error": None}
    run = Run.of(1, {"uuid": "x"}, {}, [], [], [m("encrypt", 10.0), m("decrypt", 12.0)])
    # mean of 160 and 192 cycles per 16-byte block, x Biham's 21 of 20 rounds
    assert security_value(run, "reference", "rc6-128-ecb", "min_secure_cycles")[0] == pytest.approx(176 * 21 / 20)
    assert security_value(run, "reference", "rc6-128-ecb", "min_secure_rounds")[0] == "21 of 20 (unchecked)"
    assert security_value(run, "reference", "rc6-128-ecb", "attack_rounds")[0] == "15 of 20"
    # another implementation that measured nothing gets no row of figures from the data file
    assert security_value(run, "openssl", "rc6-128-ecb", "attack_rounds") == (None, [])


# ---------------------------------------------------------------------------- CLI
def test_diffusion_and_avalanche_commands(cb):
    r = cb("diffusion", "aes-128-ecb", "--keys", "2", "--blocks", "16")
    assert r.returncode == 0, r.stderr
    assert "every output bit depends on every input bit after 3 rounds" in r.stdout
    r = cb("diffusion", "aes-128-ecb", "--rounds", "1-2", "--keys", "1", "--blocks", "2", "--json")
    doc = json.loads(r.stdout)
    assert [x["rounds"] for x in doc["rows"]] == [1, 2, None] and doc["summary"]["full_rounds"] == 10
    r = cb("avalanche", "reference", "aes-128-ecb", "--keys", "4", "--blocks", "16")
    assert r.returncode == 0 and "strict avalanche criterion: consistent" in r.stdout, r.stderr
    for args, msg in ((("avalanche", "reference", "aes-128-cbc"), "give an ECB primitive (aes-128-ecb)"),
                      (("diffusion", "aes-128-ecb", "--rounds", "15"), "with 1 to 14 rounds"),
                      (("diffusion", "aes-128-ecb", "--rounds", "x"), "--rounds takes")):
        r = cb(*args)
        assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


# ---------------------------------------------------------------------------- the experiment and its report
def test_aes_candidates_experiment_stores_diffusion_and_reports_the_table(cb, db, tmp_path):
    r = cb("run", "--experiment", "aes-candidates", "--primitive", "aes-128-ecb", "--primitive", "rc6-128-ecb",
           "--batch-ms", "1", "--batches", "2")
    assert r.returncode == 0, r.stderr
    con = sqlite3.connect(db[len("sqlite:///"):])
    con.row_factory = sqlite3.Row
    rows = [dict(x) for x in con.execute("select * from diffusion order by id")]
    con.close()
    aes = [x for x in rows if x["primitive"] == "aes-128-ecb"]
    assert [x["rounds"] for x in aes] == [1, 2, 3, None] and all(x["samples"] == 256 for x in aes)
    assert {x["primitive"] for x in rows} == {"aes-128-ecb", "rc6-128-ecb"}
    out = tmp_path / "out"
    rep = cb("report", "--out", str(out))
    assert rep.returncode == 0, rep.stderr
    md = (out / "report.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| cipher | figures from | key set-up 128"))
    for col in ("min secure rounds", "min secure cycles (128)", "diffusion 1 round", "diffusion 2 rounds",
                "overall diffusion", "rounds to full diffusion", "best attack today (128)"):
        assert col in header
    row = next(line for line in md.splitlines() if line.startswith("| Rijndael | published"))
    assert "| 8 | 344 | 17 | 64 | 332 |" in row  # Gladman's printed figures
    lines = md.splitlines()
    today = lines[lines.index(row) + 1]
    d1, d2 = aes[0]["mean_bits"], aes[1]["mean_bits"]
    assert "today: reference" in today and "| 8 of 10 (unchecked) |" in today and "| 7 of 10 |" in today
    from cipherbench.report.tables import num
    assert f"| {num(d1, 4)} | {num(d2, 4)} | {num(10 * max(d1, d2 / 2), 4)} | 3 |" in today
    assert "## Security margin" in md and "reference | rc6-128-ecb | 20 | 15 of 20 | 25% |" in md
    assert "## Diffusion (Gladman 1999) and avalanche of the full cipher" in md
    html = (out / "index.html").read_text()
    assert "rounds to full diffusion" in html and "Security margin" in html
    doc = json.loads((out / "results.json").read_text())
    assert len(doc["diffusion"]) == len(rows) and doc["diffusion"][0]["mean_bits"] == rows[0]["mean_bits"]
    # export and import keep the diffusion rows
    f, f2 = tmp_path / "run.json", tmp_path / "again.json"
    assert cb("export", "--out", str(f)).returncode == 0
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert cb("--db", other, "import", str(f)).returncode == 0
    assert cb("--db", other, "export", "--out", str(f2)).returncode == 0
    assert json.loads(f2.read_text())["diffusion"] == json.loads(f.read_text())["diffusion"] == doc["diffusion"]
