"""benchmarks/placement.py, and the engine's rule that Crypto++'s archive members start on
64-byte lines (engine/adapters/cryptopp/build.cmake), on the real engine and archive."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ENGINE, REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import placement  # noqa: E402

AES_LOOP = "CryptoPP::Rijndael_Enc_AdvancedProcessBlocks_AESNI"
GHASH = "CryptoPP::GCM_AuthenticateBlocks_CLMUL"


def cryptopp_archive() -> Path:
    """The archive the engine links Crypto++ from, from its 'linkage' note; skips otherwise."""
    if not shutil.which("objcopy") or not shutil.which("ninja"):
        pytest.skip("binutils or ninja missing")
    out = subprocess.run([str(ENGINE)], input='{"op":"hello"}\n', capture_output=True, text=True, timeout=60)
    impl = next((i for i in json.loads(out.stdout.splitlines()[0])["implementations"]
                 if i["name"] == "cryptopp" and i["available"]), None)
    linkage = (impl or {}).get("notes", {}).get("linkage", "")
    if not linkage.startswith("static ("):
        pytest.skip(f"the engine does not link Crypto++'s archive ({linkage or 'no cryptopp adapter'})")
    return Path(linkage[len("static ("):].split(",")[0].rstrip(")"))


@pytest.mark.parametrize("symbol", [AES_LOOP, GHASH])
def test_engine_keeps_the_compilers_placement(symbol):
    archive = cryptopp_archive()
    offset, code = placement.compiled_code(archive, symbol)
    assert len(code) > 100
    # the members' .text on lines: the function is where the compiler put it within a line
    assert placement.symbol_address(ENGINE, symbol) % 64 == offset % 64
    # and reading the engine by bytes, as fidelity reads the stripped cryptest, agrees with nm
    assert placement.placement(ENGINE, code) == offset % 64


def test_relinked_engine_puts_the_loop_where_asked(tmp_path):
    archive = cryptopp_archive()
    own = placement.symbol_address(ENGINE, AES_LOOP) % 64
    want = (own + 16) % 64
    path, pad = placement.relinked(ENGINE, archive, AES_LOOP, want, tmp_path)
    assert placement.symbol_address(path, AES_LOOP) % 64 == want
    assert pad in (0, 16, 32, 48)
    # still an engine: AES-128-CTR from the relinked archive against SP 800-38A F.5.1's first block
    req = {"op": "encrypt", "id": 1, "impl": "cryptopp", "primitive": "aes-128-ctr",
           "key": "2b7e151628aed2a6abf7158809cf4f3c", "iv": "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
           "input": "6bc1bee22e409f96e93d7e117393172a"}
    out = subprocess.run([str(path)], input=json.dumps(req) + "\n", capture_output=True, text=True, timeout=60)
    answer = json.loads(out.stdout.splitlines()[-1])
    assert answer.get("output") == "874d6191b620e3261bef6864990db6ce", answer


def test_placement_needs_a_majority(tmp_path):
    code = bytes(range(128))
    f = tmp_path / "blob"
    f.write_bytes(b"\0" * 80 + code[:64] + b"\xff" * 40 + code[64:])  # the halves 40 bytes apart
    assert placement.placement(f, code, chunk=16, step=16) is None  # 4 votes for 16, 4 for 56
    f.write_bytes(b"\0" * 80 + code[:64] + b"\xff" * 40 + code[64:] + b"\0" * 7 + code[64:80])
    assert placement.placement(f, code, chunk=16, step=16) == 16  # one piece repeated: it has no vote
    twice = bytes(range(64)) * 2
    f.write_bytes(b"\0" * 80 + twice)
    assert placement.placement(f, twice, chunk=16, step=16) is None  # every piece twice: no vote at all
    f.write_bytes(b"\0" * 100 + code)
    assert placement.placement(f, code, chunk=16, step=16) == 100 % 64
