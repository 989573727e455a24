"""The engine's own SHA-256 (`fill`, `digest`) on both its code paths, the fills it keeps,
and the long hex `input` read beside nlohmann's parser (engine/src/line_io.cpp): the
answers are computed here (hashlib; AES-128-CTR by the cryptography package or the openssl
command) or were recorded from the engine before that shortcut existed, and must match
byte for byte."""
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

KEY = bytes(range(16))
IV = bytes(range(16, 32))
SIZES = [0, 1, 55, 56, 63, 64, 65, 1000, (1 << 20) + 7]
#: CIPHERBENCH_ENGINE_SHA for each SHA-256 path: None lets the engine choose (the SHA
#: extensions where the CPU has them), "portable" forces the portable code.
PATHS = [None, "portable"]


def cpu_has_sha_ni() -> bool:
    try:
        return any(line.startswith("flags") and " sha_ni" in line
                   for line in Path("/proc/cpuinfo").read_text().splitlines())
    except OSError:
        return False


def run(engine, lines, sha=None) -> list[str]:
    """The engine's answer lines, as written, to the request lines, in one process."""
    env = dict(os.environ)
    env.pop("CIPHERBENCH_ENGINE_SHA", None)
    if sha:
        env["CIPHERBENCH_ENGINE_SHA"] = sha
    data = "".join(line + "\n" for line in lines).encode()
    r = subprocess.run([str(engine)], input=data, capture_output=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    out = r.stdout.decode().split("\n")
    assert out[-1] == "" and len(out) == len(lines) + 1
    return out[:-1]


def fill(seed: bytes, n: int) -> bytes:
    """docs/protocol.md, `fill`: SHA-256(seed || 0) || SHA-256(seed || 1) || ..., cut to n."""
    return b"".join(hashlib.sha256(seed + i.to_bytes(8, "big")).digest() for i in range((n + 31) // 32))[:n]


def ctr(data: bytes) -> bytes:
    """AES-128-CTR, the whole IV block one big-endian counter (the registry's CTR): with the
    cryptography package where it is installed, else with the openssl command."""
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    except ImportError:
        openssl = shutil.which("openssl")
        if not openssl:
            pytest.skip("needs the cryptography package or the openssl command for AES-128-CTR")
        r = subprocess.run([openssl, "enc", "-aes-128-ctr", "-K", KEY.hex(), "-iv", IV.hex(), "-nosalt"],
                           input=data, capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout
    e = Cipher(algorithms.AES(KEY), modes.CTR(IV)).encryptor()
    return e.update(data) + e.finalize()


def request(impl="openssl", primitive="aes-128-ctr", **fields) -> str:
    req = {"op": "encrypt", "impl": impl, "primitive": primitive, "input": ""}
    if primitive != "null":  # output = input, no key
        req.update(key=KEY.hex(), iv=IV.hex())
    req.update(fields)
    return json.dumps(req, separators=(",", ":"))


def test_the_sha_extensions_are_chosen_where_the_cpu_has_them_and_portable_is_forced(engine):
    def impl(sha):
        env = {k: v for k, v in os.environ.items() if k != "CIPHERBENCH_ENGINE_SHA"}
        if sha:
            env["CIPHERBENCH_ENGINE_SHA"] = sha
        r = subprocess.run([str(engine), "--sha256-impl"], capture_output=True, text=True, timeout=30, env=env)
        assert r.returncode == 0
        return r.stdout.strip()
    assert impl(None) == ("sha-ni" if cpu_has_sha_ni() else "portable")
    assert impl("portable") == "portable"


@pytest.mark.parametrize("sha", PATHS)
def test_fill_and_digest_match_python_for_every_padding_case(engine, sha):
    """output_sha256 of AES-128-CTR (OpenSSL's and the reference code's) and of the null
    primitive over fill bytes, for lengths on each side of SHA-256's padding boundaries
    (55/56: the length field fits the last block or not; 63/64/65: a whole block)."""
    seed = bytes.fromhex("5eed")
    lines, want = [], []
    for i, n in enumerate(SIZES):
        f = fill(seed, n)
        for impl in ("openssl", "reference"):
            lines.append(request(impl, fill={"seed": seed.hex(), "bytes": n}, digest="sha256", id=i))
            want.append(hashlib.sha256(ctr(f)).hexdigest())
        lines.append(request("null", "null", fill={"seed": seed.hex(), "bytes": n}, digest="sha256", id=i))
        want.append(hashlib.sha256(f).hexdigest())
    for line, answer, expected in zip(lines, run(engine, lines, sha), want):
        a = json.loads(answer)
        assert a["status"] == "ok" and a["filled"] is True, (line[:120], a)
        assert a["output_sha256"] == expected, line[:120]


@pytest.mark.parametrize("sha", PATHS)
def test_fill_seeds_of_every_length_give_pythons_bytes(engine, sha):
    """Seeds from 0 to 200 bytes: the seed's whole blocks are hashed once and the counter's
    tail (one or two blocks) per 32 bytes; the null primitive answers the fill itself."""
    seeds = [bytes((7 * i + j) % 256 for j in range(i)) for i in
             (0, 1, 2, 47, 48, 55, 56, 57, 63, 64, 65, 111, 112, 119, 120, 127, 128, 200)]
    lines = [request("null", "null", fill={"seed": s.hex(), "bytes": 97}, input="abcd") for s in seeds]
    for s, answer in zip(seeds, run(engine, lines, sha)):
        assert json.loads(answer)["output"] == (fill(s, 97) + b"\xab\xcd").hex(), len(s)


def test_repeated_and_alternating_fills_give_the_same_bytes(engine):
    """The engine keeps its last fills: whether a request's fill is generated or copied,
    by seed and byte count (the same seed with another count is another fill), the
    answer is the same."""
    order = [("aa", 1000), ("bb", 1000), ("aa", 1000), ("aa", 1001), ("cc", 64), ("bb", 1000),
             ("aa", 1000), ("aa", 1001), ("aa", 999), ("", 1000), ("aa", 1000)]
    lines = [request("null", "null", fill={"seed": s, "bytes": n}, id=i) for i, (s, n) in enumerate(order)]
    for (s, n), answer in zip(order, run(engine, lines)):
        assert json.loads(answer)["output"] == fill(bytes.fromhex(s), n).hex(), (s, n)


def test_a_long_hex_input_answers_as_the_same_bytes_given_as_fill(engine):
    """1 MiB + 7 bytes sent as 2 MB of hex (lower and upper case) give the answer of the same
    bytes generated by `fill`, with an output or a digest; the output line is written byte for
    byte as nlohmann's dump writes it."""
    seed, n = bytes.fromhex("c0ffee"), (1 << 20) + 7
    data = fill(seed, n)
    out = ctr(data).hex()
    by_fill = {"fill": {"seed": seed.hex(), "bytes": n}}
    lines = [request(**by_fill, id=1), request(input=data.hex(), id=1), request(input=data.hex().upper(), id=1),
             request(**by_fill, digest="sha256", id=2), request(input=data.hex(), digest="sha256", id=2)]
    a = run(engine, lines)
    assert a[0] == '{"filled":true,"id":1,"output":"' + out + '","status":"ok"}'
    assert a[1] == a[2] == '{"id":1,"output":"' + out + '","status":"ok"}'
    digest = hashlib.sha256(bytes.fromhex(out)).hexdigest()
    assert a[3] == '{"filled":true,"id":2,"output_sha256":"' + digest + '","status":"ok"}'
    assert a[4] == '{"id":2,"output_sha256":"' + digest + '","status":"ok"}'


# The same 1 MiB + 7 bytes as hex, in requests the engine must answer as it did before the
# long input was read beside nlohmann's parser: each answer below was recorded from that
# engine (commit 49fd00f). Digest answers keep them short.
LONG = fill(bytes.fromhex("c0ffee"), (1 << 20) + 7).hex()
HEAD = ('{"id":0,"op":"encrypt","impl":"openssl","primitive":"aes-128-ctr","key":"' + KEY.hex() +
        '","iv":"' + IV.hex() + '","digest":"sha256",')
DIGEST_OF_LONG = "f3d16ec8e1e3ea8abad2ca5079ac5f675d5a6e5449a090a27431607a84a822d0"
DIGEST_OF_32 = "6f02fe553b4778446500ac1dac73a6a7cfa2f794f506f3e435863565ebb0abd0"  # LONG[:64]


def with_input(text: str, end: str = "}") -> str:
    """The request with `"input":"<text>"` and then `end`: text as it stands in the line."""
    return HEAD + '"input":"' + text + '"' + end


def ok(digest):
    return '{"id":0,"output_sha256":"' + digest + '","status":"ok"}'


def error(message, id="0"):
    return '{"id":' + id + ',"message":' + json.dumps(message) + ',"status":"error"}'


LONG_CASES = {
    "plain": (with_input(LONG), ok(DIGEST_OF_LONG)),
    "uppercase": (with_input(LONG.upper()), ok(DIGEST_OF_LONG)),
    "bad hex at the end": (with_input(LONG[:-2] + "g0"), error("field 'input' is not hex")),
    "bad hex at the start": (with_input("x" + LONG[1:]), error("field 'input' is not hex")),
    "odd length": (with_input(LONG[:-1]), error("field 'input' has an odd number of hex digits")),
    "an escaped digit": (with_input(f"\\u{ord(LONG[0]):04x}" + LONG[1:]), ok(DIGEST_OF_LONG)),
    "an escaped newline": (with_input(LONG + "\\n"), error("field 'input' has an odd number of hex digits")),
    "an escaped quote": (with_input(LONG[:-1] + '\\"'), error("field 'input' is not hex")),
    "an escaped member name": (HEAD + '"\\u0069nput":"' + LONG + '"}', ok(DIGEST_OF_LONG)),
    "duplicated, the last counts": (with_input(LONG, ',"input":"' + LONG[:64] + '"}'), ok(DIGEST_OF_32)),
    "duplicated, the last null": (with_input(LONG, ',"input":null}'), error("missing field 'input'")),
    "null": (HEAD + '"input":null}', error("missing field 'input'")),
    "a number": (HEAD + '"input":12}', error("field 'input' must be a hex string")),
    "nested only": (HEAD[:-1] + ',"x":{"input":"' + LONG + '"}}', error("missing field 'input'")),
    # nlohmann's messages give the column (and what it read last) in the line as sent
    "unterminated object": (with_input(LONG, ""), error(
        "malformed request: not JSON ([json.exception.parse_error.101] parse error at line 1, column 2097342: "
        "syntax error while parsing object - unexpected end of input; expected '}')", id="null")),
    "trailing text": (with_input(LONG, "} x"), error(
        "malformed request: not JSON ([json.exception.parse_error.101] parse error at line 1, column 2097344: "
        "syntax error while parsing value - invalid literal; last read: '\"" + LONG + "\"} x'; expected end of input)",
        id="null")),
}


def test_long_inputs_get_the_answers_recorded_before(engine):
    names = list(LONG_CASES)
    answers = run(engine, [LONG_CASES[k][0] for k in names])
    for name, answer in zip(names, answers):
        assert answer == LONG_CASES[name][1], (name, answer[:300])
