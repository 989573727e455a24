"""The reference ciphers' multi-block ECB entry points (cbref.h `encrypt_blocks`/`decrypt_blocks`,
used by ECB requests of several blocks): they must give exactly what the same blocks give one
request at a time, at full and reduced rounds, and what the libraries give for the same cipher."""
import numpy as np
import pytest

from cipherbench.measure import ops

# 37 blocks: Serpent's lane groups of 8 (four of them and five blocks left over), Twofish's
# pairs (eighteen and one left over).
BLOCKS = 37
RNG_SEED = 8008


@pytest.fixture(scope="module")
def s(native_session):
    if "reference" not in native_session.impls:
        pytest.skip("the reference implementation is not built")
    return native_session


def _ecb_primitives(s):
    return [s.reg[n] for n in sorted(s.impls["reference"].rounds) if s.reg[n].mode == "ecb"]


def _blockwise(s, impl, p, key, data, decrypt, rounds=None):
    b = p.block_bytes
    return b"".join(ops.crypt(s, impl, p, key, None, None, data[i:i + b], decrypt, rounds=rounds)
                    for i in range(0, len(data), b))


def test_many_blocks_in_one_request_equal_one_block_at_a_time(s):
    rng = np.random.default_rng(RNG_SEED)
    checked = expected = 0
    for p in _ecb_primitives(s):
        info = s.impls["reference"].rounds[p.name]
        key = rng.bytes(p.key_bytes)
        data = rng.bytes(BLOCKS * p.block_bytes)
        expected += 1 + sum(r <= info["max"] for r in (2, 3))
        # the full cipher, and an even and an odd reduced count (paths differ by parity)
        for rounds in [None] + [r for r in (2, 3) if r <= info["max"]]:
            ct = ops.crypt(s, "reference", p, key, None, None, data, False, rounds=rounds)
            assert ct == _blockwise(s, "reference", p, key, data, False, rounds), (p.name, rounds)
            pt = ops.crypt(s, "reference", p, key, None, None, ct, True, rounds=rounds)
            assert pt == data, (p.name, rounds)
            assert _blockwise(s, "reference", p, key, ct, True, rounds) == data, (p.name, rounds)
            checked += 1
    assert checked == expected and checked > 100  # eighteen ciphers, their key sizes


@pytest.mark.parametrize("name", ["serpent-128-ecb", "serpent-256-ecb", "twofish-128-ecb", "twofish-192-ecb"])
def test_many_blocks_agree_with_every_library_that_has_the_cipher(s, name):
    """Serpent (NESSIE byte order) and Twofish are in Botan and libgcrypt, among others: an
    independent implementation checks the multi-block path on data no known answer covers."""
    p = s.reg[name]
    others = [i.name for i in s.impls.values()
              if i.name != "reference" and i.available and name in i.primitives]
    if not others:
        pytest.skip(f"no library implementation of {name} is built")
    rng = np.random.default_rng(RNG_SEED + p.key_bytes)
    key = rng.bytes(p.key_bytes)
    data = rng.bytes(BLOCKS * p.block_bytes)
    ct = ops.crypt(s, "reference", p, key, None, None, data, False)
    for impl in others:
        assert ops.crypt(s, impl, p, key, None, None, data, False) == ct, impl
        assert ops.crypt(s, impl, p, key, None, None, ct, True) == data, impl
