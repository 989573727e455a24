"""What only an OpenSSL of 3.2 or later does, through a release environment whose library it is:
trixie's (OpenSSL 3.5), built by mmdebstrap with OpenSSL's adapter only and the engine built
inside with its gcc 14. Created once a machine and reused from the environments' cache
(tests/conftest.py, new_openssl_env; about 2 minutes the first time); skipped, saying why,
without root or Debian's archive.

SM4-XTS came with OpenSSL 3.2, with two tweak conventions and GB/T 17964-2021's as the default;
the registry's XTS is IEEE Std 1619's (engine/adapters/openssl/compat.inc, ask_ieee_xts). The
host's OpenSSL 3.0 has no SM4-XTS at all, so only an environment can check it.
"""
import json
import os
import subprocess
import sys

import pytest
from conftest import NEW_ENV_NAME, NEW_ENV_RELEASE, REPO

IMPL = f"{NEW_ENV_NAME}:openssl"

#: OpenSSL's test/recipes/30-test_evp_data/evpciph_sm4.txt, "SM4 XTS test vectors, while the XTS
#: mode is standardized in IEEE Std 1619-2007" (XTSStandard = IEEE): key, tweak and the first
#: three blocks of its plaintext. The vector is 56 bytes (ciphertext stealing); the registry's XTS
#: takes whole blocks, so the expected answer is its first two blocks, then the whole third block
#: before stealing, whose first 8 bytes are the vector's stolen last 8. The third block's other 8
#: bytes are what Botan 2, libgcrypt and Crypto++ answer on the host (cipherbench encrypt).
SM4_XTS_KEY = "2b7e151628aed2a6abf7158809cf4f3c000102030405060708090a0b0c0d0e0f"
SM4_XTS_TWEAK = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
SM4_XTS_PT = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52ef"
SM4_XTS_IEEE = "e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f832627d16c0db6d2cfc741314642ed88079d"
#: The same file's GB/T 17964-2021 answer to the same input (XTSStandard = GB, OpenSSL's
#: default): the same first block, another second.
SM4_XTS_GB_SECOND_BLOCK = "2c5c581bd6242fc51e08964fb4f60fdb"


def cli(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ), cwd=REPO)


@pytest.fixture(scope="module")
def environment(new_openssl_env):
    return new_openssl_env


def test_the_environment_holds_an_openssl_with_sm4_xts(environment):
    rec = next(e for e in environment if e["name"] == NEW_ENV_NAME)
    assert (rec["release"], rec["engine_problem"], rec["adapters_not_compiled"]) == (NEW_ENV_RELEASE, "", [])
    openssl = next(i for i in rec["implementations"] if i["name"] == "openssl")
    major, minor = (int(x) for x in openssl["version"].split()[1].split(".")[:2])
    assert openssl["available"] and (major, minor) >= (3, 2), openssl["version"]
    r = cli("--env", NEW_ENV_NAME, "list", "--json")
    assert r.returncode == 0, r.stderr
    impls = {i["name"]: i for i in json.loads(r.stdout)["implementations"]}
    assert "sm4-128-xts" in impls[IMPL]["primitives"]


def test_sm4_xts_gives_ieee_1619s_answer_not_gbts(environment):
    r = cli("--env", NEW_ENV_NAME, "encrypt", IMPL, "sm4-128-xts", "--key", SM4_XTS_KEY, "--iv", SM4_XTS_TWEAK,
            "--in", SM4_XTS_PT)
    assert (r.returncode, r.stdout.strip()) == (0, SM4_XTS_IEEE), r.stderr
    assert r.stdout.strip()[32:64] != SM4_XTS_GB_SECOND_BLOCK
    r = cli("--env", NEW_ENV_NAME, "decrypt", IMPL, "sm4-128-xts", "--key", SM4_XTS_KEY, "--iv", SM4_XTS_TWEAK,
            "--in", SM4_XTS_IEEE)
    assert (r.returncode, r.stdout.strip()) == (0, SM4_XTS_PT), r.stderr


def test_verify_passes_sm4_xts_and_aes_xts_in_the_environment(environment):
    """The whole gate: known answers derived over the published ECB vectors, the model's answers
    across every carry, Wycheproof's AES-XTS; AES-XTS, which takes no such parameter, unchanged."""
    r = cli("--env", NEW_ENV_NAME, "verify", "--impl", IMPL, "--primitive", "sm4-128-xts",
            "--primitive", "aes-128-xts", "--primitive", "aes-256-xts", "--json")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    summary = json.loads(r.stdout)["summary"]
    assert (summary["pairs"], summary["passed"], summary["failed"]) == (3, 3, 0)
