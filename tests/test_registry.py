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


def test_cfb_feedback_widths_follow_the_block():
    reg = registry.load()
    # 8-bit CFB for every 64-bit-block cipher (the .NET DES/TripleDES/RC2 CFB) and for AES.
    for name in ("des-56-cfb8", "3des-112-cfb8", "3des-168-cfb8", "rc2-128-cfb8", "blowfish-128-cfb8", "idea-128-cfb8"):
        p = reg[name]
        assert (p.mode, p.block_bytes, p.iv_bytes, p.whole_blocks) == ("cfb8", 8, 8, False), name
    assert {p.family for p in reg if p.block_bytes == 8 and p.kind == "cipher"} == \
        {p.family for p in reg if p.mode == "cfb8" and p.block_bytes == 8}
    assert "aes-128-cfb8" in reg and "camellia-128-cfb8" not in reg
    # 128-bit segments only where the block is wider (for 128-bit blocks that is plain cfb).
    p = reg["rijndael256-256-cfb128"]
    assert (p.block_bytes, p.iv_bytes, p.key_bytes, p.whole_blocks) == (32, 32, 32, False)
    assert reg["rijndael192-128-cfb128"].block_bytes == 24
    assert {p.name for p in reg if p.mode == "cfb128"} == \
        {f"rijndael{b}-{k}-cfb128" for b in (192, 256) for k in (128, 192, 256)}
    assert 'CB_PRIMITIVE("des-56-cfb8", Cipher, "des", "cfb8", 8, 8, 8, 0, 0, false, 16)' in \
        registry.cpp_table(reg)


def test_published_ratios_name_primitives_their_experiment_times():
    """A finding's ratio can only be computed from names the experiment measures."""
    import tomllib

    from cipherbench.cli.app import EXPERIMENTS
    from cipherbench.results.run import load_published
    reg = registry.load()
    experiments = tomllib.loads(EXPERIMENTS.read_text())["experiments"]
    checked = 0
    for name, pub in load_published().items():
        timed = set(experiments[name]["primitives"])
        assert timed <= set(reg.names()), name
        for f in pub.findings:
            if f.now is not None and f.now.ratio is not None:
                assert set(f.now.ratio) <= timed, (name, f.text)
                checked += 1
    assert checked >= 7


def test_dotnet_experiment_times_cfb_as_the_net_classes_run_it():
    import tomllib

    from cipherbench.cli.app import EXPERIMENTS
    timed = tomllib.loads(EXPERIMENTS.read_text())["experiments"]["dotnet"]["primitives"]
    cfb = sorted(n for n in timed if "-cfb" in n)
    # DES/TripleDES/RC2: FeedbackSize 8; Rijndael: 128 (full block at 128 bits, a segment at 256).
    assert cfb == ["3des-112-cfb8", "3des-168-cfb8", "aes-128-cfb", "des-56-cfb8", "rc2-128-cfb8",
                   "rijndael256-256-cfb128"]
