"""The command line as a user meets it: exact outputs, one-line errors, exit codes."""
import json
import os

from conftest import faulty

CBC = ["--key", "2b7e151628aed2a6abf7158809cf4f3c", "--iv", "000102030405060708090a0b0c0d0e0f"]


def one_line_error(r, code):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cipherbench: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


def test_encrypt_sp800_38a_cbc(cb):
    r = cb("encrypt", "openssl", "aes-128-cbc", *CBC, "--in", "6bc1bee22e409f96e93d7e117393172a")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "7649abac8119b246cee98e9b12e9197d\n"


def test_decrypt_and_hash(cb):
    r = cb("decrypt", "openssl", "aes-128-cbc", *CBC, "--in", "7649abac8119b246cee98e9b12e9197d")
    assert r.stdout == "6bc1bee22e409f96e93d7e117393172a\n"
    r = cb("hash", "openssl", "sha-256", "--in", "616263")
    assert r.stdout == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"


def test_aead_output_is_ciphertext_then_tag_and_forgery_exits_1(cb):
    args = ["--key", "00000000000000000000000000000000", "--iv", "000000000000000000000000"]
    r = cb("encrypt", "openssl", "aes-128-gcm", *args, "--in", "00000000000000000000000000000000")
    assert r.stdout.strip() == "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"
    r = cb("decrypt", "openssl", "aes-128-gcm", *args, "--in",
           "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bdde")
    assert "does not verify" in one_line_error(r, 1)
    assert r.stdout == ""


def test_bad_input_gets_one_line_and_status_2(cb):
    cases = [
        (["encrypt", "nosuchlib", "aes-128-cbc", *CBC, "--in", "00" * 16], "unknown implementation 'nosuchlib'"),
        (["encrypt", "openssl", "aes-999-cbc", *CBC, "--in", "00" * 16], "unknown primitive 'aes-999-cbc'"),
        (["encrypt", "openssl", "aes-128-cbc", "--key", "2b7e", "--iv", "00" * 16, "--in", "00" * 16],
         "takes a 16-byte key"),
        (["encrypt", "openssl", "aes-128-cbc", "--key", "00" * 16, "--iv", "00" * 8, "--in", "00" * 16],
         "16-byte IV"),
        (["encrypt", "openssl", "aes-128-cbc", *CBC, "--in", "zz"], "--in is not hex"),
        (["encrypt", "openssl", "aes-128-cbc", *CBC, "--in", "abc"], "--in is not hex"),
        (["encrypt", "openssl", "aes-128-cbc", *CBC, "--in", "00" * 17], "whole 16-byte blocks"),
        (["encrypt", "openssl", "aes-128-ecb", "--key", "00" * 16, "--iv", "00" * 16, "--in", "00" * 16],
         "takes no IV"),
        (["hash", "openssl", "aes-128-cbc", "--in", "00"], "not a hash"),
        (["run", "--profile", "nope"], "unknown profile"),
        (["run", "--sizes", "12x"], "--sizes"),
        (["verify", "--profile", "nope"], "unknown profile"),
        (["verify", "--profile", "quick", "--up-to", "64"], "--up-to or --profile, not both"),
        (["frobnicate"], "No such command"),
    ]
    for args, needle in cases:
        line = one_line_error(cb(*args), 2)
        assert needle in line, (args, line)


def test_unsupported_primitive_is_a_clear_line(cb):
    r = cb("encrypt", "openssl", "rijndael256-256-ecb", "--key", "00" * 32, "--in", "00" * 32)
    assert "does not offer rijndael256-256-ecb" in one_line_error(r, 2)


def test_runners_that_crash_hang_or_print_garbage(cb):
    args = ["encrypt", "faulty", "aes-128-cbc", *CBC, "--in", "00" * 16]
    line = one_line_error(cb("--runner", faulty("crash"), *args), 1)
    assert "runner faulty exited with status 3" in line
    line = one_line_error(cb("--runner", faulty("garbage"), *args), 1)
    assert "not protocol JSON" in line and "this is not json" in line
    line = one_line_error(cb("--runner", faulty("hang"), *args,
                             env={"CIPHERBENCH_RUNNER_TIMEOUT": "3"}), 1)
    assert "did not answer 'encrypt' within 3 s" in line


def test_an_unknown_implementation_names_the_runners_that_did_not_start(cb):
    """The implementation asked for may belong to a runner that failed to start: the one
    line says which runner and why, not only which names exist."""
    r = cb("--runner", "sh -c 'echo broken at start >&2; exit 4'", "encrypt", "nosuch", "aes-128-cbc", *CBC,
           "--in", "00" * 16)
    line = one_line_error(r, 2)
    assert line.startswith("cipherbench: error: unknown implementation 'nosuch'; available: ")
    assert line.endswith("(runners that did not start: sh: runner sh exited with status 4 while answering "
                         "'hello'; its stderr ends: broken at start)")


def test_list_json_names_every_implementation_and_problems(cb):
    import json
    r = cb("list", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    impls = {i["name"]: i for i in data["implementations"]}
    assert "aes-128-gcm" in impls["openssl"]["primitives"]
    assert impls["openssl"]["version"].startswith("OpenSSL 3")
    assert impls["null"]["primitives"] == {"null": "inline copy"}
    assert data["store"].endswith("results.sqlite")


def test_busy_shares_are_each_cpus_busy_fraction_between_two_readings():
    """What the busy-machine warning stands on (cli.BUSY_AT_START): /proc/stat's counters."""
    from cipherbench.measure.context import busy_shares, cpu_times
    before = {"cpu0": (100, 0, 1000), "cpu1": (500, 10, 2000)}
    after = {"cpu0": (150, 0, 1100), "cpu1": (500, 10, 2100), "cpu2": (1, 0, 5)}
    assert busy_shares(before, after) == {"cpu0": 0.5, "cpu1": 0.0}  # cpu2 appeared: no share
    now = cpu_times()
    assert len(now) == os.cpu_count() and all(0 <= b <= t for b, _s, t in now.values())


def test_a_runner_stopped_for_a_hang_fails_its_pair_alone(cb, tmp_path):
    """Verification stops a runner that hangs and starts it again: the pair it hung on fails,
    and the pairs after it are verified on the new process instead of failing with the old."""
    env = {"CIPHERBENCH_RUNNER_TIMEOUT": "3", "FAULTY_MARKER": str(tmp_path / "hung")}
    r = cb("--runner", faulty("hang-once"), "verify", "--impl", "faulty", "--json", env=env)
    assert (tmp_path / "hung").exists()
    results = {v["primitive"]: v for v in json.loads(r.stdout)["results"]}
    assert [f["check"] for f in results["aes-128-ctr"]["failures"]] == ["runner"]
    assert "did not answer 'encrypt' within 3 s" in results["aes-128-ctr"]["failures"][0]["actual"]
    assert results["aes-128-cbc"]["failures"] == [] and results["aes-128-gcm"]["failures"] == []
    assert results["aes-128-gcm"]["checks"]["kat"] > 0
