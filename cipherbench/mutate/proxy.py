"""The mutant runner: a proxy that speaks docs/protocol.md, forwards every request to a real
runner and breaks the answers one fault (faults.Fault) names.

    python cipherbench/mutate/proxy.py FAULT-JSON -- REAL-RUNNER-COMMAND...
    python cipherbench/mutate/proxy.py FAULT-JSON --pipes REQUESTS ANSWERS

The second form talks to a real runner already running, through two named pipes (its
standard input and output), so that one runner serves mutant after mutant: runners keep
no state between requests (docs/protocol.md), and starting one costs more than checking
most mutants. Its own requests carry ids of its own, and any other answer found in the
pipe (one left by a proxy stopped mid-request) is passed over.

It announces the real runner's implementation under its own name with the one primitive
the fault is in. A request the fault does not touch goes through unchanged, `fill` and
`digest` included; one it touches is asked with its whole input (the proxy generates the
`fill` bytes as the protocol defines them) and its answer digested here, so the fault acts
on the whole message, as a broken library would. Faults that need other outputs of the
same key (keystream at another counter, the tag of another ciphertext) ask the real runner
for them: no cipher is computed here.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a file: the checkout this file is in comes first
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherbench.kinds import Operation, PrimitiveKind  # noqa: E402 (after the path above)
from cipherbench.mutate.faults import (  # noqa: E402 (after the path above)
    Direction,
    Fault,
    Forbidden,
    Operator,
    Position,
    Remap,
    Scope,
    TagFault,
    TailKind,
)

Req = dict[str, Any]
CRYPT = ("encrypt", "decrypt", "hash")


def generated(seed: bytes, n: int) -> bytes:
    """docs/protocol.md `fill`: SHA-256(seed || i), i as 8 bytes big-endian, cut to n bytes."""
    return b"".join(hashlib.sha256(seed + i.to_bytes(8, "big")).digest() for i in range(-(-n // 32)))[:n]


def xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big") if a else b""


class Proxy:
    def __init__(self, fault: Fault, real: list[str] | None = None, pipes: tuple[str, str] | None = None):
        """Start the real runner's command, or attach to one through its two named pipes."""
        self.f = fault
        self.p = fault.facts
        self.real: subprocess.Popen[bytes] | None = None
        if pipes is not None:
            self.to_real: IO[bytes] = open(pipes[0], "wb")  # noqa: SIM115 (held for the proxy's life)
            self.from_real: IO[bytes] = open(pipes[1], "rb")  # noqa: SIM115
        else:
            self.real = subprocess.Popen(real or [], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            assert self.real.stdin is not None and self.real.stdout is not None
            self.to_real, self.from_real = self.real.stdin, self.real.stdout
        self.ids = itertools.count()
        self.id_prefix = f"mutant-{os.getpid()}-"

    def close(self) -> None:
        self.to_real.close()
        if self.real is not None:
            self.real.wait()

    # ------------------------------------------------------------------ the real runner
    def ask(self, req: Req) -> Req:
        rid = f"{self.id_prefix}{next(self.ids)}"
        self.to_real.write(json.dumps(dict(req, id=rid)).encode() + b"\n")
        self.to_real.flush()
        while True:
            line = self.from_real.readline()
            if not line:
                sys.exit(f"mutant proxy: the real runner closed its output answering {req.get('op')!r}")
            answer: Req = json.loads(line)
            if answer.get("id") == rid:
                return answer

    def ask_crypt(self, req: Req, **change: Any) -> Req:
        """A helper request of the same key to the real runner: no optional fields."""
        plain = {k: v for k, v in req.items() if k not in ("chunks", "inplace", "fill", "digest", "id")}
        return self.ask(dict(plain, **change))

    # ------------------------------------------------------------------ the protocol
    def answer(self, req: Req) -> Req:
        op = req.get("op")
        if op == "hello":
            return self.hello(self.ask(req))
        if op in CRYPT and req.get("impl") == self.f.impl and req.get("primitive") == self.p.name \
                and self.direction_holds(str(op)):
            return self.crypt(req)
        return self.ask(req)

    def hello(self, r: Req) -> Req:
        if r.get("status") != "ok":
            return r
        impls = [dict(im, primitives=[p for p in im.get("primitives", []) if p.get("name") == self.p.name],
                      version=f"{im.get('version', '')} (mutant)")
                 for im in r.get("implementations", []) if im.get("name") == self.f.impl]
        return dict(r, runner="mutant", implementations=impls)

    def direction_holds(self, op: str) -> bool:
        d = self.f.direction
        return d is Direction.BOTH or (op == Operation.DECRYPT) == (d is Direction.DECRYPT)

    def message_bytes(self, req: Req) -> int:
        fill = req.get("fill") or {}
        n = int(fill.get("bytes", 0)) + len(str(req.get("input", ""))) // 2
        return n - self.p.tag_bytes if self.p.kind == PrimitiveKind.AEAD and req.get("op") == Operation.DECRYPT else n

    def crypt(self, req: Req) -> Req:
        if not self.may_touch(req):
            return self.ask(req)
        fill, digest = req.pop("fill", None), req.pop("digest", None)
        if fill is not None:
            try:
                req["input"] = (generated(bytes.fromhex(fill["seed"]), int(fill["bytes"]))
                                + bytes.fromhex(req.get("input", ""))).hex()
            except (ValueError, TypeError, KeyError):
                return self.ask(dict(req, fill=fill, **({"digest": digest} if digest else {})))
        r = HANDLERS[self.f.operator](self, req)
        if fill is not None and r.get("status") == "ok":
            r["filled"] = True
        if digest == "sha256" and "output" in r:
            r["output_sha256"] = hashlib.sha256(bytes.fromhex(r.pop("output"))).hexdigest()
        return r

    def may_touch(self, req: Req) -> bool:
        """Whether the fault can act on this request before its input is read: only then is
        a long (`fill`) request asked with its whole input."""
        op = self.f.operator
        if op in (Operator.FLIP, Operator.TAIL):
            return self.message_bytes(req) >= self.f.threshold
        if op is Operator.REMAP:
            # a key-size-specific fault acts on the primitive's own key size (draw.equivalent
            # names one drawn for a size the primitive lacks)
            return self.f.key_bits == 0 or len(str(req.get("key", ""))) // 2 == self.p.key_bytes
        return True

    # ------------------------------------------------------------------ the faults
    def body_of(self, req: Req, out: bytes) -> int:
        """The length of the output's body: an AEAD encryption's output ends with its tag."""
        if self.p.kind == PrimitiveKind.AEAD and req.get("op") == Operation.ENCRYPT:
            return max(0, len(out) - self.p.tag_bytes)
        return len(out)

    def flipped(self, r: Req, req: Req, at: int, mask: int) -> Req:
        out = bytearray.fromhex(r.get("output", ""))
        if r.get("status") != "ok" or not 0 <= at < self.body_of(req, bytes(out)):
            return r
        out[at] ^= mask
        return dict(r, output=out.hex())

    def flip(self, req: Req) -> Req:
        bulk = bool(req.get("chunks") or req.get("inplace"))
        if (self.f.scope is Scope.BULK and not bulk) or (self.f.scope is Scope.MESSAGE and bulk):
            return self.ask(req)
        r = self.ask(req)
        n = self.body_of(req, bytes.fromhex(r.get("output", "")))
        return self.flipped(r, req, 0 if self.f.position is Position.FIRST else n - 1, self.f.mask)

    def tail(self, req: Req) -> Req:
        r = self.ask(req)
        n, batch = self.message_bytes(req), self.f.batch * self.p.block_bytes
        if self.p.kind == PrimitiveKind.HASH:  # a digest has no tail: the fault shows in its first byte
            hit = n % batch != 0 if self.f.tail is TailKind.REMAINDER else n > 0 and n % batch == 0
            return self.flipped(r, req, 0, 0x01) if hit and n > batch else r
        if self.f.tail is TailKind.REMAINDER:
            return self.flipped(r, req, n // batch * batch, 0x01) if n > batch and n % batch else r
        return self.flipped(r, req, n - 1, 0x01) if n > 0 and n % batch == 0 else r

    def remap(self, req: Req) -> Req:
        name = self.f.field.value
        if name not in req or req.get("op") == Operation.HASH:
            return self.ask(req)
        try:
            b = bytearray.fromhex(req[name])
        except (ValueError, TypeError):
            return self.ask(req)
        i = self.f.index
        if self.f.remap is Remap.IGNORED and i < len(b):
            b[i] = 0
        elif self.f.remap is Remap.MISREAD:
            b = bytearray(x ^ 1 if x == self.f.value else x for x in b)
        elif self.f.remap is Remap.SWAPPED and i + 1 < len(b):
            b[i], b[i + 1] = b[i + 1], b[i]
        return self.ask(dict(req, **{name: b.hex()}))

    def tag(self, req: Req) -> Req:
        aad, n = len(str(req.get("aad", ""))) // 2, self.message_bytes(req)
        if not (self.f.aad_class.holds(aad) and self.f.msg_class.holds(n)):
            return self.ask(req)
        r = self.ask(req)
        if self.f.tag_fault is TagFault.WRONG:
            if req.get("op") != Operation.ENCRYPT or r.get("status") != "ok":
                return r
            out = bytearray.fromhex(r["output"])
            if len(out) >= self.p.tag_bytes:
                out[len(out) - self.p.tag_bytes + self.f.index % self.p.tag_bytes] ^= self.f.mask
            return dict(r, output=out.hex())
        if req.get("op") != Operation.DECRYPT or r.get("status") != "ok" or r.get("authentic") is not False:
            return r
        body = bytes.fromhex(req.get("input", ""))[:max(0, n)]
        # a plausible plaintext: the body run through the keystream again (the plaintext
        # itself for the modes built on CTR), else the body as it came
        e = self.ask_crypt(req, op="encrypt", input=body.hex())
        plain = bytes.fromhex(e["output"])[:len(body)] if e.get("status") == "ok" else body
        return dict(r, authentic=True, output=plain.hex())

    def forbidden(self, req: Req) -> Req:
        r = self.ask(req)
        if r.get("status") != "error":
            return r
        p, why = self.p, self.f.forbidden
        data = bytes.fromhex(req.get("input", "")) if _hex(req.get("input", "")) else b""
        if why is Forbidden.PARTIAL_BLOCK and p.whole_blocks and len(data) % p.block_bytes:
            whole = len(data) // p.block_bytes * p.block_bytes
            head = self.ask_crypt(req, input=data[:whole].hex()) if whole else {"status": "ok", "output": ""}
            out = bytes.fromhex(head["output"]) if head.get("status") == "ok" else data[:whole]
            return {"status": "ok", "output": (out + data[whole:]).hex()}
        for field, size in ((Forbidden.KEY_LENGTH, p.key_bytes), (Forbidden.IV_LENGTH, p.iv_bytes)):
            name = "key" if field is Forbidden.KEY_LENGTH else "iv"
            given = str(req.get(name, ""))
            if why is field and size and _hex(given) and len(given) // 2 != size:
                fitted = (bytes.fromhex(given) + bytes(size))[:size].hex()
                return self.ask_crypt(req, **{name: fitted})
        if why is Forbidden.SHORT_TAG and p.kind == PrimitiveKind.AEAD and req.get("op") == Operation.DECRYPT \
                and len(data) < p.tag_bytes:
            return {"status": "ok", "authentic": False}
        return r

    def counter(self, req: Req) -> Req:
        r = self.ask(req)
        if r.get("status") != "ok" or (self.p.kind == PrimitiveKind.AEAD and req.get("op") == Operation.DECRYPT
                                       and r.get("authentic") is not True):
            return r
        try:
            delta = self.counter_delta(req)
        except (KeyError, ValueError):
            return r
        if delta is None:
            return r
        out = bytes.fromhex(r["output"])
        n = self.body_of(req, out)
        if self.p.kind == PrimitiveKind.AEAD and req.get("op") == Operation.ENCRYPT:
            # the ciphertext the broken counter gives, with the tag that ciphertext gets: the
            # real runner's encryption of the plaintext that yields it under the right keystream
            plain = xor(bytes.fromhex(req["input"]), delta[:n])
            return dict(r, output=self.ask_crypt(req, input=plain.hex())["output"])
        return dict(r, output=(xor(out[:n], delta[:n]) + out[n:]).hex())

    def counter_delta(self, req: Req) -> bytes | None:
        """Right keystream xor the broken one, over the message; None when no block's
        counter differs."""
        p, u = self.p, self.p.block_bytes
        n = self.message_bytes(req)
        blocks = -(-n // u)
        iv = bytes.fromhex(req.get("iv", ""))
        start = p.counter_start if p.counter_start is not None else int.from_bytes(iv, "big")
        modulus, low = 1 << p.counter_bits, (1 << self.f.width) - 1
        wrong = {}
        for j in range(blocks):
            right, broken = (start + j) % modulus, (start & ~low) | ((start + j) & low)
            if broken != right:
                wrong[j] = (right, broken)
        if not wrong:
            return None
        counters = sorted({c for pair in wrong.values() for c in pair})
        ks = self.keystream(req, counters, iv)
        delta = bytearray(blocks * u)
        for j, (right, broken) in wrong.items():
            delta[j * u:(j + 1) * u] = xor(ks[right], ks[broken])
        return bytes(delta)

    def keystream(self, req: Req, counters: list[int], iv: bytes) -> dict[int, bytes]:
        """The keystream block at each counter value, asked of the real runner (Facts.keystream)."""
        p, u = self.p, self.p.block_bytes
        how, _, name = p.keystream.partition(":")
        if how == "ctr":  # the mode itself from the first counter of each run of consecutive ones
            ks: dict[int, bytes] = {}
            for first, count in runs(counters, 1 << p.counter_bits):
                out = bytes.fromhex(self.ask_crypt(req, op="encrypt", iv=first.to_bytes(u, "big").hex(),
                                                   input=bytes(count * u).hex())["output"])
                ks.update({(first + i) % (1 << p.counter_bits): out[i * u:(i + 1) * u] for i in range(count)})
            return ks
        if how == "ecb":  # GCM's counter blocks: the IV, then the 32-bit counter
            blocks = b"".join(iv + c.to_bytes(4, "big") for c in counters)
            plain = {k: v for k, v in req.items() if k not in ("iv", "aad")}
            out = bytes.fromhex(self.ask_crypt(plain, op="encrypt", primitive=name, input=blocks.hex())["output"])
            return {c: out[i * u:(i + 1) * u] for i, c in enumerate(counters)}
        # a raw stream from counter 0 under the same key and nonce
        plain = {k: v for k, v in req.items() if k != "aad"}
        out = bytes.fromhex(self.ask_crypt(plain, op="encrypt", primitive=name,
                                           input=bytes((max(counters) + 1) * u).hex())["output"])
        return {c: out[c * u:(c + 1) * u] for c in counters}


def runs(counters: list[int], modulus: int) -> list[tuple[int, int]]:
    """Sorted counter values as (first, count) runs of consecutive values."""
    out: list[tuple[int, int]] = []
    for c in counters:
        if out and (out[-1][0] + out[-1][1]) % modulus == c:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((c, 1))
    return out


def _hex(s: object) -> bool:
    try:
        bytes.fromhex(str(s))
    except ValueError:
        return False
    return True


HANDLERS = {Operator.FLIP: Proxy.flip, Operator.COUNTER: Proxy.counter, Operator.TAIL: Proxy.tail,
            Operator.REMAP: Proxy.remap, Operator.TAG: Proxy.tag, Operator.FORBIDDEN: Proxy.forbidden}


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[1] == "--":
        proxy = Proxy(Fault.from_json(argv[0]), real=argv[2:])
    elif len(argv) == 4 and argv[1] == "--pipes":
        proxy = Proxy(Fault.from_json(argv[0]), pipes=(argv[2], argv[3]))
    else:
        sys.stderr.write("usage: proxy.py FAULT-JSON -- REAL-RUNNER-COMMAND... | FAULT-JSON --pipes REQUESTS ANSWERS\n")
        return 2
    for line in sys.stdin.buffer:
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("not an object")
        except ValueError:
            resp: Req = {"id": None, "status": "error", "message": "malformed request"}
        else:
            if req.get("op") == "quit":
                break
            resp = dict(proxy.answer(req), id=req.get("id"))
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()
    proxy.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
