"""A bounded protocol fuzz of every built runner (docs/protocol.md, "Transport").

Each runner gets the same seeded stream of random and malformed lines: blank lines,
truncated requests, every field of every request replaced by a value of each wrong
type, numbers no runner may accept (loops of 10**18, ids that overflow to an infinity),
bytes that are not UTF-8, a megabyte-long line, deep nesting, random bytes. The test
asserts what the protocol promises: the runner neither crashes nor hangs, writes only
strict JSON objects with a valid status, one per line sent (a blank one too), in order.

The value pools hold nothing a runner may accept and then spend long on: every number
is either tiny or beyond the caps of docs/protocol.md ("bench"), and the JIT runners'
warm-up is asked to be 0 ms. The runners' line readers end a line at a lone carriage
return in three languages (documented in the protocol), so none is sent inside a line.
"""
from __future__ import annotations

import json
import queue
import random
import subprocess
import threading
import time

import pytest

from cipherbench.measure.runner import builtin_runners

SPECS = {s.name: s for s in builtin_runners()}
LINES_PER_RUNNER = 1000
#: seconds for one answer; the lines are all cheap, so a silent runner is hung
ANSWER_TIMEOUT = 20.0
SEED = 19

KEY, IV, GCM_IV = "2b7e151628aed2a6abf7158809cf4f3c", "000102030405060708090a0b0c0d0e0f", "00" * 12


def templates(impl: str) -> list[dict]:
    """Valid requests of every op, each cheap (a few calls of 64 bytes at most)."""
    block = "6bc1bee22e409f96e93d7e117393172a"
    return [
        {"op": "hello"},
        {"op": "encrypt", "impl": impl, "primitive": "aes-128-cbc", "key": KEY, "iv": IV, "input": block},
        {"op": "decrypt", "impl": impl, "primitive": "aes-128-ctr", "key": KEY, "iv": IV, "input": block,
         "chunks": [16], "inplace": True},
        {"op": "encrypt", "impl": impl, "primitive": "aes-128-gcm", "key": KEY, "iv": GCM_IV, "aad": "00",
         "input": block, "rounds": 10},
        {"op": "hash", "impl": impl, "primitive": "sha-256", "input": block},
        {"op": "bench", "impl": impl, "primitive": "aes-128-cbc", "operation": "encrypt", "workload": "bulk",
         "size": 64, "loops": 4, "batches": 2, "key": KEY, "iv": IV, "stack_offset": 64, "warmup_ms": 0},
        {"op": "bench", "impl": impl, "primitive": "sha-256", "operation": "hash", "size": 64, "loops": 4,
         "warmup_ms": 0},
        {"op": "cpu-clock", "thousands": 1, "best_of": 1, "parallel": False},
    ]


#: Raw JSON texts put in place of a field's value: every JSON type, numbers beyond every
#: cap, and tokens some parsers take although JSON has not got them.
WRONG_VALUES = ["null", "true", "false", "-1", "0", "1.5", "-0.0", '""', '"x"', '"zz"', '"\\u0000"',
                "[]", "{}", "[1,2]", '{"a":1}', "1000000000000000000", "18446744073709551616",
                "-9223372036854775809", "1e400", "-1e400", "1e-400", "NaN", "Infinity", "-Infinity",
                '"' + "ab" * 50000 + '"', "[" * 64 + "]" * 64]


def _text(req: dict, rid: int | None) -> str:
    return json.dumps(req if rid is None else dict(req, id=rid))


def _with_raw(req: dict, field: str, raw: str, rid: int) -> str:
    """The request with `field` (added if absent) set to the raw JSON text `raw`."""
    rest = {k: v for k, v in req.items() if k != field}
    body = json.dumps(dict(rest, id=rid))
    return body[:-1] + f", {json.dumps(field)}: {raw}}}"


def fixed_lines(impl: str) -> list[tuple[bytes, str | None]]:
    """The malformed lines every runner gets, whatever the seed, each with what its answer
    must be: "null-error" (an error with id null), "error", or None (any valid answer)."""
    t = templates(impl)
    bench = t[5]
    return [
        (b"", "null-error"), (b"   ", "null-error"), (b"\t", "null-error"), (b" \t ", "null-error"),
        (b"\r", "null-error"),
        (b'{"id": NaN, "op": "hello"}', "null-error"), (b'{"id": Infinity, "op": "hello"}', "null-error"),
        (b'{"id": 1e999, "op": "hello"}', "null-error"), (b'{"id": -1e999, "op": "hello"}', "null-error"),
        (_text(dict(bench, loops=10**18), 1).encode(), "error"),
        (_text(dict(bench, loops=2**63), 2).encode(), "error"),
        (_text(dict(bench, loops=10**9, size=1 << 30), 3).encode(), "error"),
        (_text(dict(bench, size=10**30), 4).encode(), "error"),
        (_text(dict(bench, batches=10**12), 5).encode(), "error"),
        (_text({"op": "cpu-clock", "thousands": 10**18}, 6).encode(), None),  # or unsupported
        (_text({"op": "cpu-clock", "thousands": 1, "best_of": 10**9}, 7).encode(), None),
        (b"\xff\xfe\xfd", "null-error"), (b'\xff{"op": "hello"}', "null-error"),
        (b'{"id": "\xc3\x28", "op": "hello"}', None), (b'{"id": 1, "op": "hel\xe2\x82lo"}', None),
        (b"\xc0\x80", "null-error"), (b'{"op": "hello"}\x00', "null-error"),
        (b"a" * (1 << 20), "null-error"), (_text(dict(t[1], input="ab" * (1 << 19) + "a"), 8).encode(), "error"),
        (b"[" * 100000, "null-error"), (b"{" * 100000, "null-error"), (b'{"a":' * 50000, "null-error"),
        (b"null", "null-error"), (b"1", "null-error"), (b'"hello"', "null-error"), (b"[]", "null-error"),
        (b"{}", None), (b'{"op": null}', None), (b'{"op": 1}', None), (b'{"op": "quit"x}', "null-error"),
        (b'{"op": "hello"} {"op": "hello"}', "null-error"), (b'{"op": "hello"}\r', None),
    ]


def random_lines(impl: str, rng: random.Random, n: int) -> list[bytes]:
    """n lines drawn from templates: truncated, a field given a wrong value, a field
    dropped, or random bytes."""
    t = templates(impl)
    lines = []
    for i in range(n):
        req = rng.choice(t)
        rid = 1000 + i
        kind = rng.random()
        if kind < 0.25:  # truncated
            text = _text(req, rid)
            lines.append(text[:rng.randrange(1, len(text))].encode())
        elif kind < 0.75:  # one field, the op included, given a wrong value
            field = rng.choice([*req, "id"])
            lines.append(_with_raw(req, field, rng.choice(WRONG_VALUES), rid).encode())
        elif kind < 0.85:  # one field missing (warmup_ms stays: without it, a JIT warms up for a second)
            field = rng.choice([f for f in req if f != "warmup_ms"] or ["op"])
            lines.append(_text({k: v for k, v in req.items() if k != field}, rid).encode())
        elif kind < 0.9:  # valid, crlf-terminated
            lines.append(_text(req, rid).encode() + b"\r")
        else:  # random bytes, no line end or carriage return among them
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
            lines.append(raw.replace(b"\n", b" ").replace(b"\r", b" "))
    return lines


def _strict(token):
    raise ValueError(f"{token} is not JSON")


class Exchange:
    """Feed lines to a runner from one thread while another collects its answers."""

    def __init__(self, argv: list[str]):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # never let stderr fill

    def _read(self):
        for line in self.proc.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def send(self, lines: list[bytes]):
        def write():
            try:
                for line in lines:
                    self.proc.stdin.write(line + b"\n")
                self.proc.stdin.flush()
            except OSError:
                pass  # the runner died: the reader sees it
        threading.Thread(target=write, daemon=True).start()

    def answer(self, what: str) -> dict:
        try:
            line = self.answers.get(timeout=ANSWER_TIMEOUT)
        except queue.Empty:
            self.proc.kill()
            pytest.fail(f"no answer to {what} within {ANSWER_TIMEOUT:.0f} s: the runner hangs")
        assert line is not None, f"the runner exited ({self.proc.wait()}) before answering {what}"
        assert line.endswith(b"\n")
        resp = json.loads(line.decode("utf-8"), parse_constant=_strict)  # strict JSON only
        assert isinstance(resp, dict) and resp.get("status") in ("ok", "unsupported", "error"), line[:200]
        return resp


def _first_impl(hello: dict) -> str:
    impls = [im["name"] for im in hello.get("implementations", []) if im.get("available", True)]
    return impls[0] if impls else "none"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_runner_survives_random_and_malformed_lines(name):
    spec = SPECS[name]
    if spec.unavailable:
        pytest.skip(f"runner {name}: {spec.unavailable}")
    started = time.monotonic()
    ex = Exchange(spec.argv)
    ex.send([b'{"id": 0, "op": "hello"}'])
    impl = _first_impl(ex.answer("hello"))
    rng = random.Random(f"{SEED}:{name}")
    fixed = fixed_lines(impl)
    lines = [line for line, _ in fixed] + random_lines(impl, rng, LINES_PER_RUNNER - len(fixed))
    expect = [want for _, want in fixed]
    ex.send(lines + [b'{"id": "last", "op": "hello"}'])
    for i, line in enumerate(lines):
        resp = ex.answer(f"line {i} ({line[:60]!r})")
        want = expect[i] if i < len(expect) else None
        if want == "null-error":
            assert (resp["status"], resp["id"]) == ("error", None), f"line {i} {line[:60]!r}: {str(resp)[:300]}"
        elif want == "error":
            assert resp["status"] == "error", f"line {i} {line[:60]!r}: {str(resp)[:300]}"
    assert ex.answer("the last hello")["id"] == "last"  # one answer per line, in order
    ex.proc.stdin.close()
    assert ex.proc.wait(timeout=10) == 0
    print(f"runner {name}: {len(lines) + 2} lines in {time.monotonic() - started:.1f} s")
