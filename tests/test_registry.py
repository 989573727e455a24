"""The registry is the one list of names; its expansion must be exact."""
import re

from cipherbench import registry


def test_names_follow_the_grammar_and_are_unique():
    reg = registry.load()
    names = reg.names()
    assert len(names) == len(set(names))
    for p in reg:
        if p.kind in ("cipher",) or (p.kind == "aead" and p.mode):
            assert re.fullmatch(r"[a-z0-9]+-\d+-[a-z0-9]+", p.name), p.name
            assert p.name == f"{p.family}-{p.key_bits}-{p.mode}"


def test_parameters_of_common_primitives():
    reg = registry.load()
    cbc = reg["aes-128-cbc"]
    assert (cbc.kind, cbc.key_bytes, cbc.block_bytes, cbc.iv_bytes, cbc.whole_blocks) == ("cipher", 16, 16, 16, True)
    ctr = reg["aes-256-ctr"]
    assert (ctr.key_bytes, ctr.iv_bytes, ctr.whole_blocks) == (32, 16, False)
    gcm = reg["aes-128-gcm"]
    assert (gcm.kind, gcm.iv_bytes, gcm.tag_bytes) == ("aead", 12, 16)
    assert reg["aes-128-xts"].key_bytes == 32  # data key || tweak key
    assert (reg["3des-168-cbc"].key_bytes, reg["3des-112-cbc"].key_bytes, reg["des-56-ecb"].key_bytes) == (24, 16, 8)
    assert reg["rijndael256-256-cbc"].block_bytes == 32
    assert reg["blowfish-448-cbc"].key_bytes == 56
    c = reg["chacha20-poly1305"]
    assert (c.kind, c.key_bytes, c.iv_bytes, c.tag_bytes) == ("aead", 32, 12, 16)
    assert (reg["chacha20"].kind, reg["chacha20"].iv_bytes) == ("stream", 12)
    assert (reg["sha-256"].digest_bytes, reg["sha3-256"].digest_bytes, reg["blake2b-512"].digest_bytes) == (32, 32, 64)
    assert reg["md5"].kind == "hash"
    assert reg["null"].kind == "null"


def test_gcm_only_for_128_bit_blocks():
    reg = registry.load()
    assert "aes-128-gcm" in reg and "camellia-128-gcm" in reg
    assert "blowfish-128-gcm" not in reg and "rijndael256-256-gcm" not in reg


def test_variants_are_distinct_primitives():
    reg = registry.load()
    assert reg["mars-128-ecb"].params["key_schedule"] != reg["mars1998-128-ecb"].params["key_schedule"]
    assert reg["gost-256-ecb"].params["sbox"] != reg["magma-256-ecb"].params["sbox"]


def test_engine_table_matches_registry():
    text = registry.cpp_table(registry.load())
    assert 'CB_PRIMITIVE("aes-128-cbc", Cipher, "aes", "cbc", 16, 16, 16, 0, 0, true, 10)' in text
    assert 'CB_PRIMITIVE("chacha20-poly1305", Aead, "chacha20-poly1305", "", 32, 0, 12, 16, 0, false, 0)' in text
