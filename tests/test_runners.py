"""Language runners: library quirks each runner guards, checked against known answers."""
import pytest

from cipherbench.runner import builtin_runners
from cipherbench.session import Session

BUILT = {s.name for s in builtin_runners() if not s.unavailable}

# NIST SP 800-38A F.3.13, CFB128-AES128.Encrypt (also in vectors/aes-sp800-38a.vec)
CFB = {"primitive": "aes-128-cfb", "key": "2b7e151628aed2a6abf7158809cf4f3c",
       "iv": "000102030405060708090a0b0c0d0e0f",
       "input": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"}
CFB_OUT = ("3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
           "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6")


@pytest.mark.skipif("php" not in BUILT, reason="the PHP runner is not built")
def test_php_mcrypt_cfb_takes_whole_block_pieces_and_refuses_what_libmcrypt_gets_wrong():
    with Session(only_runners={"php"}, pin=False) as s:
        r = s.ask("php-mcrypt", dict(CFB, op="encrypt", chunks=[16, 32]))
        assert (r["status"], r["output"], r["chunked"]) == ("ok", CFB_OUT, True)
        r = s.ask("php-mcrypt", dict(CFB, op="decrypt", input=CFB_OUT, chunks=[48]))
        assert (r["status"], r["output"]) == ("ok", CFB["input"])
        r = s.ask("php-mcrypt", dict(CFB, op="encrypt", chunks=[1, 15, 17]))
        assert r["status"] == "unsupported" and "after a partial block" in r["message"]
        # the last piece may end anywhere: nothing continues after it
        r = s.ask("php-mcrypt", dict(CFB, op="encrypt", input=CFB["input"][:2 * 40], chunks=[32]))
        assert (r["status"], r["output"]) == ("ok", CFB_OUT[:2 * 40])
        bench = dict(CFB, op="bench", operation="encrypt", loops=2)
        r = s.ask("php-mcrypt", dict(bench, size=17))
        assert r["status"] == "unsupported" and "after a partial block" in r["message"]
        assert s.ask("php-mcrypt", dict(bench, size=17, workload="rekey"))["status"] == "ok"
        assert s.ask("php-mcrypt", dict(bench, size=32))["status"] == "ok"
