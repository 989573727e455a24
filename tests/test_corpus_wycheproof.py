"""The wycheproof corpus (cipherbench/kat/corpora/wycheproof.py): exact records from the pinned module
(testvectors_v1/<file>, tcId as cited), what it maps and skips, and how it says it is missing.
Tests that read the installed module skip when `make vectors` could not fetch it; the rules
and the install step are also checked on files and a `go` made here, without network."""
import json
from pathlib import Path

import pytest

from cipherbench.kat import corpora
from cipherbench.kat.collect import CorpusMissing
from cipherbench.kat.corpora import wycheproof as cw

H = bytes.fromhex


def _installed(wanted):
    try:
        return cw.load(set(wanted))
    except CorpusMissing as e:
        pytest.skip(f"corpus wycheproof not installed: {e}")


def _one(kas, where):
    found = [k for k in kas if k.where == where]
    assert len(found) == 1, (where, found)
    return found[0]


# ---------------------------------------------------------------------------- the pinned module
@pytest.fixture(scope="module")
def wp():
    return _installed({"camellia-128-ccm", "seed-128-gcm", "sm4-128-gcm", "aria-256-ccm", "aria-128-cbc",
                       "aes-128-gcmsiv", "aes-128-xts", "aes-192-xts", "aes-128-gcm", "aes-128-ccm", "aes-128-eax",
                       "aes-128-siv", "chacha20-poly1305", "xchacha20-poly1305"})


def test_camellia_ccm_record_maps_to_key_iv_aad_message_and_ct_tag(wp):
    # camellia_ccm_test.json tcId 12 (keySize 128, ivSize 96, tagSize 128).
    k = _one(wp, "camellia_ccm_test.json: tcId 12")
    assert k.primitive == "camellia-128-ccm" and k.corpus == "wycheproof" and not k.expect_reject
    assert k.key == H("9415f925bcb41dc25e86c826dbc8bf68") and k.iv == H("bdffaa763b916ff0ee3f3ce4")
    assert k.aad == H("705d676cd8a94451") and k.input == H("feb36167eafc02c8e2bd6e13817686ba")
    assert k.output == H("5e9f70ff539eb2bc8dd347885a364fe4" "bda220f3fb6e62b4b72b0cf59fb66436")
    assert cw.VERSION in k.source and "camellia_ccm_test.json" in k.source


def test_a_modified_tag_is_loaded_as_a_forgery_to_reject(wp):
    # camellia_ccm_test.json tcId 52: "Flipped bit 0 in tag" (result invalid, flag ModifiedTag).
    k = _one(wp, "camellia_ccm_test.json: tcId 52")
    assert k.expect_reject and k.input == b""
    assert (k.key, k.iv, k.aad) == (H("000102030405060708090a0b0c0d0e0f"), H("505152535455565758595a5b"), b"")
    assert k.output == H("93dfead08208123fd84c4e5337964496" "8594dc0e45ea301dc7fd9c2547605902")


def test_sm4_gcm_known_test_vector_is_rfc_8998s(wp):
    # sm4_gcm_test.json tcId 1 (flag Ktv) is RFC 8998 appendix A.1's SM4-GCM example.
    k = _one(wp, "sm4_gcm_test.json: tcId 1")
    assert k.primitive == "sm4-128-gcm"
    assert (k.key, k.iv) == (H("0123456789abcdeffedcba9876543210"), H("00001234567800000000abcd"))
    assert k.aad == H("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    assert k.input == H("aa" * 8 + "bb" * 8 + "cc" * 8 + "dd" * 8 + "ee" * 8 + "ff" * 8 + "ee" * 8 + "aa" * 8)
    assert k.output == H("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
                         "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
                         "83de3541e4c2b58177e065a9bf7b62ec")


def test_counts_per_primitive_only_the_registry_sizes(wp):
    def count(prim, reject):
        return sum(k.primitive == prim and k.expect_reject == reject for k in wp)
    # Valid / invalid records of the ivSize 96, tagSize 128 groups at the pinned version; the
    # 33 other CCM groups per key size (other nonce and tag sizes) are not loaded.
    assert (count("camellia-128-ccm", False), count("camellia-128-ccm", True)) == (51, 27)
    assert (count("aria-256-ccm", False), count("aria-256-ccm", True)) == (51, 27)
    assert (count("seed-128-gcm", False), count("seed-128-gcm", True)) == (38, 27)
    assert (count("sm4-128-gcm", False), count("sm4-128-gcm", True)) == (38, 27)
    # aes_gcm_siv keySize 128 has 67 valid records: capped at 64, first and last kept.
    assert (count("aes-128-gcmsiv", False), count("aes-128-gcmsiv", True)) == (64, 32)
    siv = [k for k in wp if k.primitive == "aes-128-gcmsiv" and not k.expect_reject]
    assert (siv[0].where, siv[-1].where) == ("aes_gcm_siv_test.json: tcId 1", "aes_gcm_siv_test.json: tcId 67")
    # XTS: only the 16-byte-tweak group, whose one message is two whole blocks.
    assert count("aes-128-xts", False) == 1 and count("aes-192-xts", False) == 1
    assert count("aria-128-cbc", False) == 24
    for k in wp:
        if k.primitive.endswith(("-ccm", "-gcm", "-gcmsiv")):
            assert len(k.iv) == 12 and (k.expect_reject or len(k.output) == len(k.input) + 16), k.where


def test_xts_record_is_data_key_tweak_key_and_the_16_byte_tweak(wp):
    # aes_xts_test.json tcId 121: keySize 256 (two AES-128 keys), ivSize 128, a 32-byte message.
    k = _one(wp, "aes_xts_test.json: tcId 121")
    assert k.primitive == "aes-128-xts"
    assert k.key == H("96e1e4896fb2cd05f133a6a100bc5609a7ac3ca6d81721e922dadd69ad07a892")
    assert k.iv == H("e70d83a77a2ce722ac214c00837acedf")
    assert k.input == H("91a17e4dfcc3166a1add26ff0e7c12056e8a654f28a6de24f4ba739ceb5b5b18")
    assert k.output == H("993a00edbab95941dc103cef8c14744818a3c76186a0d1756b9c87580583e827")


def test_cbc_pkcs5_message_gets_its_padding_written_out(wp):
    # aria_cbc_pkcs5_test.json tcId 17: a 13-byte message, so 3 bytes of 03 (RFC 5652 6.3).
    k = _one(wp, "aria_cbc_pkcs5_test.json: tcId 17")
    assert k.primitive == "aria-128-cbc" and k.key == H("4ed56753de6f75a032ebabca3ce27971")
    assert k.iv == H("9a2c5e91d4f0b9b9da64b46c5c2c8cb2")
    assert k.input == H("0c8c0f5619d9f8da5339281285" "030303")
    assert k.output == H("4d3b8ccdff85ab95aeb3a8061e341362")
    # tcId 1, the empty message: one whole block of padding.
    assert _one(wp, "aria_cbc_pkcs5_test.json: tcId 1").input == bytes([16]) * 16
    assert cw.pkcs7_pad(bytes(16)) == bytes(16) + bytes([16]) * 16


def test_files_the_pycryptodome_corpus_runs_are_not_loaded_twice(wp):
    assert not any(k.primitive in ("aes-128-gcm", "aes-128-ccm", "aes-128-eax", "aes-128-siv",
                                   "chacha20-poly1305", "xchacha20-poly1305") for k in wp)


def test_pycryptodomes_copies_are_the_pinned_files():
    # The dedup rule rests on this: the six files corpora/pycryptodome.py reads hold the same records.
    try:
        vdir, _ = cw.vectors_dir()
    except CorpusMissing as e:
        pytest.skip(f"corpus wycheproof not installed: {e}")
    from cipherbench.kat.corpora.pycryptodome import package_root
    try:
        root, _ = package_root()
    except CorpusMissing as e:
        pytest.skip(str(e))

    def records(path):
        return sorted((g.get("ivSize"), g.get("keySize"), g.get("tagSize"), json.dumps(t, sort_keys=True))
                      for g in json.loads(path.read_text())["testGroups"] for t in g["tests"])
    for stem in cw.COVERED_BY_PYCRYPTODOME:
        ours, theirs = vdir / f"{stem}.json", root / "Cipher" / "wycheproof" / f"{stem}.json"
        assert records(ours) == records(theirs), stem


# ---------------------------------------------------------------------------- the rules, on files made here
def _module(tmp_path, monkeypatch, stem, groups):
    (tmp_path / "testvectors_v1").mkdir()
    (tmp_path / "testvectors_v1" / f"{stem}.json").write_text(json.dumps(
        {"algorithm": "SEED-GCM", "testGroups": groups}))
    monkeypatch.setenv(cw.ENV_DIR, str(tmp_path))


def _t(tc, result="valid", flags=("Pseudorandom",), iv="00" * 12, tag="11" * 16):
    return {"tcId": tc, "flags": list(flags), "key": "22" * 16, "iv": iv, "aad": "33", "msg": "44",
            "ct": "55", "tag": tag, "result": result}


def test_only_exact_sizes_known_flags_and_valid_or_invalid_records_are_taken(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "seed_gcm_test", [
        {"keySize": 128, "ivSize": 96, "tagSize": 128, "tests": [
            _t(1), _t(2, "invalid", ["ModifiedTag"]), _t(3, "acceptable"), _t(4, flags=["SomeNewVariant"]),
            _t(5, iv="00" * 8), _t(6, tag="11" * 12)]},
        {"keySize": 128, "ivSize": 64, "tagSize": 128, "tests": [_t(7, iv="00" * 8)]},
        {"keySize": 128, "ivSize": 96, "tagSize": 96, "tests": [_t(8, tag="11" * 12)]},
    ])
    kas = cw.load({"seed-128-gcm"})
    assert [(k.where, k.expect_reject) for k in kas] == [("seed_gcm_test.json: tcId 1", False),
                                                         ("seed_gcm_test.json: tcId 2", True)]
    assert kas[0].output == H("55" + "11" * 16) and kas[0].aad == H("33") and kas[0].input == H("44")
    assert cw.load({"seed-128-ccm"}) == []  # seed_ccm_test.json is not in this module: nothing


# ---------------------------------------------------------------------------- missing, and the install step
def test_missing_module_directory_is_reported_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv(cw.ENV_DIR, str(tmp_path / "nowhere"))
    with pytest.raises(CorpusMissing, match="CIPHERBENCH_WYCHEPROOF_DIR.*no testvectors_v1"):
        cw.load({"camellia-128-ccm"})
    by_prim, missing = corpora.load_all({"camellia-128-ccm"})
    assert "no testvectors_v1" in missing["wycheproof"]
    assert not any(k.corpus == "wycheproof" for kas in by_prim.values() for k in kas)


def test_without_a_record_of_the_download_the_corpus_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.delenv(cw.ENV_DIR, raising=False)
    monkeypatch.setattr(cw, "marker", lambda: tmp_path / "wycheproof.json")
    with pytest.raises(CorpusMissing, match="not downloaded: `make vectors`"):
        cw.load({"seed-128-ccm"})
    # A record of another version is not trusted either.
    (tmp_path / "wycheproof.json").write_text(json.dumps({"module": cw.MODULE, "version": "v0.0.1",
                                                          "sum": "h1:x", "dir": str(tmp_path)}))
    with pytest.raises(CorpusMissing, match="not the pinned"):
        cw.load({"seed-128-ccm"})


def test_install_without_go_records_why_and_verify_reports_it(tmp_path, monkeypatch):
    monkeypatch.delenv(cw.ENV_DIR, raising=False)
    monkeypatch.setattr(cw, "marker", lambda: tmp_path / "build" / "wycheproof.json")
    monkeypatch.setattr(cw.shutil, "which", lambda name: None)
    line = cw.install()
    assert "go is not installed" in line and "verify runs without them" in line
    assert json.loads((tmp_path / "build" / "wycheproof.json").read_text())["error"].startswith("go is not installed")
    with pytest.raises(CorpusMissing, match="not downloaded: go is not installed"):
        cw.load({"seed-128-ccm"})


def _fake_go(tmp_path, monkeypatch, reply: dict, rc=0):
    calls = []

    class Done:
        returncode, stdout, stderr = rc, json.dumps(reply), ""

    def run(argv, **kw):
        calls.append(argv)
        assert not (Path(kw["cwd"]) / "go.mod").exists()  # outside any module
        return Done()
    monkeypatch.delenv(cw.ENV_DIR, raising=False)
    monkeypatch.setattr(cw, "marker", lambda: tmp_path / "wycheproof.json")
    monkeypatch.setattr(cw.shutil, "which", lambda name: "/fake/go")
    monkeypatch.setattr(cw.subprocess, "run", run)
    return calls


def test_install_records_the_directory_go_reports_and_is_quick_the_second_time(tmp_path, monkeypatch):
    mod = tmp_path / "mod"
    (mod / "testvectors_v1").mkdir(parents=True)
    calls = _fake_go(tmp_path, monkeypatch, {"Path": cw.MODULE, "Version": cw.VERSION, "Sum": cw.MODULE_SUM,
                                             "Dir": str(mod)})
    assert cw.install().startswith("  wycheproof test vectors:")
    assert calls == [["/fake/go", "mod", "download", "-json", f"{cw.MODULE}@{cw.VERSION}"]]
    assert cw.vectors_dir()[0] == mod / "testvectors_v1"
    assert cw.install() == "" and len(calls) == 1  # already in place: go is not asked again


def test_install_refuses_a_module_whose_hash_is_not_the_pinned_one(tmp_path, monkeypatch):
    mod = tmp_path / "mod"
    (mod / "testvectors_v1").mkdir(parents=True)
    _fake_go(tmp_path, monkeypatch, {"Sum": "h1:AAAA", "Dir": str(mod)})
    assert "not the pinned" in cw.install()
    with pytest.raises(CorpusMissing, match="module hash 'h1:AAAA' is not the pinned"):
        cw.vectors_dir()


def test_install_passes_on_gos_own_error(tmp_path, monkeypatch):
    _fake_go(tmp_path, monkeypatch, {"Path": cw.MODULE, "Error": "dial tcp: lookup failed"}, rc=1)
    assert "dial tcp: lookup failed" in cw.install()
    with pytest.raises(CorpusMissing, match="go mod download .* failed: dial tcp: lookup failed"):
        cw.vectors_dir()


def test_install_command_line_rejects_other_arguments(capsys):
    assert cw.main(["fetch"]) == 2
    assert "usage: python -m cipherbench.kat.corpora wycheproof install" in capsys.readouterr().err


# ---------------------------------------------------------------------------- through verify
def test_verify_runs_the_wycheproof_vectors(cb):
    _installed({"camellia-128-ccm"})
    r = cb("verify", "--impl", "botan", "--primitive", "camellia-128-ccm", "--json")
    data = json.loads(r.stdout or "{}")
    if not data.get("results"):
        pytest.skip(f"botan does not offer camellia-128-ccm here: {r.stderr[-300:]}")
    (row,) = data["results"]
    assert r.returncode == 0 and row["status"] == "passed", row
    assert row["checks"]["kat_by_corpus"]["wycheproof"] == 51 + 27  # known answers and rejected forgeries
    assert row["checks"]["kat_reject"] >= 27


def test_verify_names_the_missing_corpus_and_runs_the_rest(cb, tmp_path):
    r = cb("verify", "--impl", "openssl", "--primitive", "aes-128-cbc", "--json",
           env={cw.ENV_DIR: str(tmp_path)})
    assert r.returncode == 0, r.stderr[-2000:]
    data = json.loads(r.stdout)
    assert "has no testvectors_v1 folder" in data["corpora_missing"]["wycheproof"]
    assert data["results"][0]["status"] == "passed"
