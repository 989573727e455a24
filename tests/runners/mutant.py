#!/usr/bin/env python3
"""A mutant runner: the native engine's OpenSSL with exactly one behaviour broken, for
tests that the verification gate catches each class of bug that could otherwise be timed.

    mutant.py MODE

It speaks docs/protocol.md and offers implementation "mutant" for aes-128-ecb,
aes-128-cbc, aes-128-ctr and aes-128-gcm, answering every request through the engine's
`openssl` implementation except where MODE breaks it:

  ctr-wrap32   CTR's counter wraps in its low 32 bits: the block after ...ffffffff gets
               the upper 96 bits unchanged instead of the carry (a 32-bit counter
               variable, as in GCM's inc32, used for the registry's 128-bit counter)
  ctr-wrap64   the same in the low 64 bits (a uint64_t counter with a fixed upper half)
  above-8k     the last output byte is wrong when one library call takes more than 8 KiB
               (a bug in the bulk path of a library that switches code paths with the
               length; with `chunks`, each piece is a call)
  inplace      the output is wrong when written over the input (protocol field `inplace`)
  chunked      the output is wrong when the input is fed in pieces (protocol field `chunks`)
  gcm-short-tag  GCM decryption compares only the first 12 bytes of the tag
  ctr-wrap8, ctr-wrap16  CTR's counter wraps in its low 8 or 16 bits (a byte or a 16-bit
               word incremented alone)
  decrypt-above-8k  the last output byte of a decryption is wrong when one call takes more
               than 8 KiB (one direction only, above every published answer's length)
  block-counter-16  ChaCha20's keystream is wrong from block counter 65536 on (a 16-bit
               block counter), in chacha20 and chacha20-poly1305: the first byte from there
  batch-tail   the last output byte is wrong when the message is longer than 16 blocks and
               not a multiple of 16 (a tail after a 16-block batch; ChaCha's block is 64 bytes)
  correct      nothing broken (the control)

The protocol's `fill` and `digest` are honoured here, not passed on: the mode breaks the
whole input, as a runner honouring them over a broken library would.

Requests go to the engine one at a time; the engine is found as tests/conftest.py finds it.
"""
import hashlib
import json
import os
import subprocess
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
MODES = ("ctr-wrap8", "ctr-wrap16", "ctr-wrap32", "ctr-wrap64", "above-8k", "inplace", "chunked", "gcm-short-tag",
         "decrypt-above-8k", "block-counter-16", "batch-tail", "correct")
PRIMITIVES = ("aes-128-ecb", "aes-128-cbc", "aes-128-cfb", "aes-128-ctr", "aes-128-gcm", "chacha20", "chacha20-poly1305")
#: registry/primitives.toml's counters: ChaCha20's block counter starts at 0, the AEAD's at 1
CHACHA_START = {"chacha20": 0, "chacha20-poly1305": 1}
ENGINE = os.environ.get("CIPHERBENCH_ENGINE") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "engine", "cipherbench-engine")
BLOCK = 16

if MODE not in MODES:
    sys.exit(f"mutant.py: unknown mode {MODE!r}; accepted: {', '.join(MODES)}")
eng = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def engine(req: dict) -> dict:
    eng.stdin.write(json.dumps(dict(req, impl="openssl")) + "\n")
    eng.stdin.flush()
    return json.loads(eng.stdout.readline())


def flip_at(r: dict, i: int) -> dict:
    """Byte i of the output changed, where the output reaches it."""
    if r.get("status") == "ok" and len(r.get("output", "")) > 2 * i:
        out = bytearray.fromhex(r["output"])
        out[i] ^= 0x01
        r["output"] = out.hex()
    return r


def message_bytes(req: dict, n: int) -> int:
    """The message's length: the input's, but an AEAD decryption's tag."""
    aead = req.get("primitive") in ("aes-128-gcm", "chacha20-poly1305")
    return n - 16 if aead and req.get("op") == "decrypt" else n


def flip_last(r: dict) -> dict:
    if r.get("status") == "ok" and r.get("output"):
        out = bytearray.fromhex(r["output"])
        out[-1] ^= 0x01
        r["output"] = out.hex()
    return r


def wrapped_ctr(req: dict, bits: int) -> dict:
    """CTR with a counter that wraps in its low `bits` bits: the blocks from the wrap on
    are encrypted from the IV with those bits cleared and no carry above them."""
    data, iv = bytes.fromhex(req.get("input", "")), int(req.get("iv", "00" * BLOCK), 16)
    wrap_at = (1 << bits) - (iv & ((1 << bits) - 1))  # blocks before the low bits wrap
    plain = {k: v for k, v in req.items() if k not in ("chunks", "inplace")}
    if wrap_at * BLOCK >= len(data):
        r = engine(plain)
    else:
        head = engine(dict(plain, input=data[:wrap_at * BLOCK].hex()))
        low_cleared = (iv >> bits << bits).to_bytes(BLOCK, "big")
        tail = engine(dict(plain, input=data[wrap_at * BLOCK:].hex(), iv=low_cleared.hex()))
        if head.get("status") != "ok" or tail.get("status") != "ok":
            return head if head.get("status") != "ok" else tail
        r = dict(head, output=head["output"] + tail["output"])
    for field, echo in (("chunks", "chunked"), ("inplace", "inplace")):
        if req.get(field):
            r[echo] = True
    return r


def short_tag_decrypt(req: dict) -> dict:
    """GCM decryption that checks only the first 12 bytes of the tag: the last four are
    replaced by the right ones (computed by encrypting the plaintext it recovers)."""
    r = engine(req)
    if r.get("status") != "ok" or r.get("authentic") is not False:
        return r
    ct = bytes.fromhex(req["input"])
    body, tag = ct[:-16], ct[-16:]
    # the plaintext under the same key and nonce: CTR is its own inverse, so encrypting the
    # ciphertext body gives it back, and its encryption gives the right tag
    plain = bytes.fromhex(engine(dict(req, op="encrypt", input=body.hex()))["output"])[:len(body)]
    right = bytes.fromhex(engine(dict(req, op="encrypt", input=plain.hex()))["output"])[-16:]
    if right[:12] != tag[:12]:
        return r
    return {"status": "ok", "authentic": True, "output": plain.hex()}


def generated(seed: bytes, n: int) -> bytes:
    """docs/protocol.md `fill`: SHA-256(seed || i), i as 8 bytes big-endian, cut to n bytes."""
    return b"".join(hashlib.sha256(seed + i.to_bytes(8, "big")).digest() for i in range(-(-n // 32)))[:n]


def longest_call(req: dict, n: int) -> int:
    """The most bytes one library call takes: the input, or with `chunks` the longest piece."""
    chunks = [c for c in req.get("chunks") or [] if isinstance(c, int)]
    return max(chunks + [n - sum(chunks)])


def crypt(req: dict) -> dict:
    fill, digest = req.pop("fill", None), req.pop("digest", None)
    if fill is not None:
        req["input"] = (generated(bytes.fromhex(fill["seed"]), fill["bytes"]) + bytes.fromhex(req.get("input", ""))).hex()
    r = broken(req)
    if fill is not None and r.get("status") == "ok":
        r["filled"] = True
    if digest == "sha256" and "output" in r:
        r["output_sha256"] = hashlib.sha256(bytes.fromhex(r.pop("output"))).hexdigest()
    return r


def broken(req: dict) -> dict:
    prim, data = req.get("primitive"), req.get("input", "")
    if MODE.startswith("ctr-wrap") and prim == "aes-128-ctr":
        return wrapped_ctr(req, int(MODE[len("ctr-wrap"):]))
    if MODE == "gcm-short-tag" and prim == "aes-128-gcm" and req.get("op") == "decrypt":
        return short_tag_decrypt(req)
    r = engine(req)
    if MODE == "above-8k" and longest_call(req, len(data) // 2) > 8192:
        return flip_last(r)
    if (MODE == "inplace" and req.get("inplace")) or (MODE == "chunked" and req.get("chunks")):
        return flip_last(r)
    if MODE == "decrypt-above-8k" and req.get("op") == "decrypt" and longest_call(req, len(data) // 2) > 8192:
        return flip_last(r)
    if MODE == "block-counter-16" and prim in CHACHA_START:
        return flip_at(r, (65536 - CHACHA_START[prim]) * 64)
    unit = 64 if prim in CHACHA_START else BLOCK
    n = message_bytes(req, len(data) // 2)
    if MODE == "batch-tail" and n > 16 * unit and n % (16 * unit):
        return flip_last(r)
    return r


def answer(req: dict) -> dict:
    op = req.get("op")
    if op == "hello":
        return {"status": "ok", "protocol": 1, "runner": "mutant", "language": "Python",
                "runtime": sys.version.split()[0], "clocks": {"monotonic": "the engine's", "tsc": None,
                                                              "core_cycles": None},
                "implementations": [{"name": "mutant", "library": "OpenSSL through the engine", "version": MODE,
                                     "available": True, "primitives": [
                                         {"name": n, "provider": f"mutant: {MODE}"} for n in PRIMITIVES]}]}
    if op in ("encrypt", "decrypt"):
        return crypt(req)
    if op == "bench":
        return engine(req)
    return {"status": "unsupported" if op == "cpu-clock" else "error", "message": f"op {op!r} is not offered"}


def main() -> int:
    for line in sys.stdin:
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("not an object")
        except ValueError:
            print(json.dumps({"id": None, "status": "error", "message": "malformed request"}), flush=True)
            continue
        if req.get("op") == "quit":
            break
        resp = answer(req)
        resp["id"] = req.get("id")
        print(json.dumps(resp), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
