"""Known answers through the same path the CLI uses (session -> runner -> adapter)."""
import pytest

from cipherbench import ops
from cipherbench.vectors import project_vectors

VECTORS = project_vectors()


def test_vector_files_cover_every_aes_mode_and_the_named_documents():
    prims = {k.primitive for k in VECTORS}
    for kb in (128, 192, 256):
        for mode in ("ecb", "cbc", "cfb", "ofb", "ctr"):
            assert f"aes-{kb}-{mode}" in prims
    assert {"aes-128-gcm", "chacha20", "chacha20-poly1305", "sha-256", "md5", "sha3-256",
            "blake2b-512"} <= prims
    assert all(k.source for k in VECTORS), "every vector names its source document"


@pytest.mark.parametrize("ka", VECTORS, ids=lambda k: f"{k.primitive}@{k.where}")
def test_openssl_known_answer(native_session, ka):
    s = native_session
    p = s.reg[ka.primitive]
    if ka.primitive not in s.impls["openssl"].primitives:
        pytest.skip(f"OpenSSL does not offer {ka.primitive}; the next test covers whoever does")
    if p.kind == "hash":
        assert ops.digest(s, "openssl", p, ka.input) == ka.output
        return
    assert ops.crypt(s, "openssl", p, ka.key, ka.iv, ka.aad, ka.input, decrypt=False) == ka.output
    assert ops.crypt(s, "openssl", p, ka.key, ka.iv, ka.aad, ka.output, decrypt=True) == ka.input


def test_every_native_implementation_passes_its_known_answers(native_session):
    """Whatever each native implementation offers of the vector files' primitives must pass."""
    s = native_session
    checked = 0
    for ka in VECTORS:
        p = s.reg[ka.primitive]
        for im in s.impls.values():
            if not im.available or ka.primitive not in im.primitives:
                continue
            if p.kind == "hash":
                got = ops.digest(s, im.name, p, ka.input)
            else:
                got = ops.crypt(s, im.name, p, ka.key, ka.iv, ka.aad, ka.input, decrypt=False)
            assert got == ka.output, f"{im.name} {ka.primitive} {ka.where}"
            checked += 1
    assert checked >= len(VECTORS)


def test_gcm_rejects_a_modified_tag(native_session):
    s = native_session
    ka = next(k for k in VECTORS if k.primitive == "aes-128-gcm" and k.aad)
    bad = ka.output[:-1] + bytes([ka.output[-1] ^ 1])
    assert ops.crypt(s, "openssl", s.reg["aes-128-gcm"], ka.key, ka.iv, ka.aad, bad, decrypt=True) is None
