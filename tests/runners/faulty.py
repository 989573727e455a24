#!/usr/bin/env python3
"""A deliberately wrong runner, for tests of the verification gate and of bad runners.

It speaks the protocol and offers implementation "faulty" for aes-128-cbc,
aes-128-ctr and aes-128-gcm, computing through the native engine's OpenSSL
except where MODE breaks it:
  cbc-chain   CBC chains the previous *plaintext* block instead of the ciphertext
              (its own decrypt inverts that, so only known answers and
              cross-implementation agreement can catch it)
  gcm-any-tag GCM decryption accepts any tag
  ctr-swap    CTR output has the bytes of every 32-bit word reversed
  crash       exits while answering the first encrypt
  hang        never answers the first encrypt
  hang-once   never answers the first encrypt of aes-128-ctr, once: the first process to be
              asked one creates the file named by $FAULTY_MARKER, and the processes started
              after it (the runner started again) answer
  garbage     answers the first encrypt with a line that is not JSON
  zero-key-unsupported  answers `unsupported` to any request with an all-zero key, as Mono
              refuses DES weak keys (not wrong: verify must skip those known answers)
  bench-ns-number  answers every bench with "ns": 12345, a number where the protocol has a list
  bench-tsc-garbage  answers every bench with "tsc": ["abc"]
  bench-crash      exits while answering its third timed batch (a crash mid-run)
  bench-fields-ignored  drops the bench fields `inplace` and `repeat_iv` (times in place, a
              fresh nonce each message, whatever is asked), as a runner that predates them does
  lenient     answers `ok` where the registry forbids the input, as a library that takes any
              key length, pads a partial block or checks a shortened tag would: a key or IV of
              the wrong length is cut or zero-padded to the right one, a partial CBC block is
              zero-padded, associated data given to CBC or CTR is ignored, a GCM tag one byte short
              is compared as a prefix, and a GCM input shorter than the tag is answered as not
              authentic
  jit         correct, but says in hello that it compiles as it runs (`jit`), and appends one
              line to the file named by $FAULTY_MARKER per bench request: the request's
              `warmup_ms` and the CPUs the runner may run on as it answers
  ct-coarse   answers ct-sample with a coarse timer's times, drawn from the seed: the fixed
              class 100 or 120 ticks, the random class 100, 105 or 120; a crop below 120 then
              holds one value for the fixed class and two for the random one
  correct     nothing broken
"""
import json
import os
import random
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
ENGINE = os.path.join(os.path.dirname(__file__), "..", "..", "build", "engine", "cipherbench-engine")
eng = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def engine(req):
    eng.stdin.write(json.dumps(req) + "\n")
    eng.stdin.flush()
    return json.loads(eng.stdout.readline())


def ecb(key, data, enc=True):
    r = engine({"op": "encrypt" if enc else "decrypt", "impl": "openssl", "primitive": "aes-128-ecb",
                "key": key, "input": data.hex()})
    return bytes.fromhex(r["output"])


def wrong_cbc(req, enc):
    data, prev = bytes.fromhex(req["input"]), bytes.fromhex(req["iv"])
    out = b""
    for i in range(0, len(data), 16):
        blk = data[i:i + 16]
        if enc:
            out += ecb(req["key"], bytes(a ^ b for a, b in zip(blk, prev)))
            prev = blk  # the fault: chain the plaintext
        else:
            p = bytes(a ^ b for a, b in zip(ecb(req["key"], blk, False), prev))
            out += p
            prev = p
    return {"status": "ok", "output": out.hex()}


LENGTHS = {"aes-128-cbc": (16, 16), "aes-128-ctr": (16, 16), "aes-128-gcm": (16, 12)}


def fit(hexstr, n):
    """hexstr cut or zero-padded to n bytes."""
    return (bytes.fromhex(hexstr) + bytes(n))[:n].hex()


def gcm_seal(req, data):
    """The engine's OpenSSL AES-128-GCM encryption of data under the request's key, IV and AD."""
    r = engine({"op": "encrypt", "impl": "openssl", "primitive": "aes-128-gcm", "key": req["key"],
                "iv": req["iv"], "aad": req.get("aad", ""), "input": data.hex()})
    return bytes.fromhex(r["output"])


def lenient(req, op):
    """The request made valid (lenient mode), or an answer when no valid request fits it."""
    prim = req.get("primitive")
    key_bytes, iv_bytes = LENGTHS[prim]
    req = dict(req, key=fit(req.get("key", ""), key_bytes), iv=fit(req.get("iv", ""), iv_bytes))
    if prim != "aes-128-gcm":
        req.pop("aad", None)  # associated data given to a mode without any: ignored
    data = bytes.fromhex(req.get("input", ""))
    if prim == "aes-128-cbc" and len(data) % 16:
        req["input"] = (data + bytes(-len(data) % 16)).hex()
    if prim == "aes-128-gcm" and op == "decrypt":
        if len(data) < 16:
            return {"status": "ok", "authentic": False}
        if len(data) >= 31:  # a tag one byte short: the message is one byte longer
            for cut in (16, 15):
                ct, tag = data[:-cut], data[-cut:]
                # GCM's keystream does not depend on the message: encrypting the ciphertext
                # gives the plaintext, and encrypting that gives the ciphertext and its tag
                pt = gcm_seal(req, ct)[:len(ct)]
                if gcm_seal(req, pt)[len(ct):len(ct) + cut] == tag:
                    return {"status": "ok", "authentic": True, "output": pt.hex()}
    return req


def answer(req):
    op = req.get("op")
    if op == "hello":
        return {"status": "ok", "protocol": 1, "runner": "faulty", "language": "Python",
                "runtime": sys.version.split()[0], "clocks": {"monotonic": "time.perf_counter_ns"},
                "implementations": [{"name": "faulty", "library": "faulty", "version": os.environ.get("FAULTY_VERSION", MODE),
                                     "available": True, "primitives": [
                                         {"name": n, "provider": "deliberately wrong"}
                                         for n in ("aes-128-cbc", "aes-128-ctr", "aes-128-gcm")]}],
                **({"jit": True} if MODE == "jit" else {})}  # absent, as in every other mode, means the same
    if op in ("encrypt", "decrypt"):
        if MODE == "crash":
            sys.exit(3)
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "hang-once" and req.get("primitive") == "aes-128-ctr":
            try:
                os.close(os.open(os.environ["FAULTY_MARKER"], os.O_CREAT | os.O_EXCL))
                time.sleep(3600)
            except FileExistsError:
                pass
        if MODE == "garbage":
            return "this is not json"
        prim = req.get("primitive")
        key = req.get("key", "")
        if MODE == "zero-key-unsupported" and key and set(key) == {"0"}:
            return {"status": "unsupported", "message": "this implementation refuses an all-zero key"}
        if MODE == "lenient":
            req = lenient(req, op)
            if "op" not in req:
                return req
        if MODE == "cbc-chain" and prim == "aes-128-cbc":
            return wrong_cbc(req, op == "encrypt")
        r = engine(dict(req, impl="openssl"))
        if MODE == "gcm-any-tag" and prim == "aes-128-gcm" and op == "decrypt" and r.get("authentic") is False:
            n = len(req["input"]) // 2 - 16
            return {"status": "ok", "authentic": True, "output": "00" * n}
        if MODE == "ctr-swap" and prim == "aes-128-ctr" and r.get("output"):
            b = bytes.fromhex(r["output"])
            b = b"".join(b[i:i + 4][::-1] for i in range(0, len(b), 4))
            r["output"] = b.hex()
        return r
    if op == "ct-sample" and MODE == "ct-coarse":
        rng = random.Random(req["seed"])
        classes = [rng.getrandbits(1) for _ in range(req["samples"])]
        times = [120 if rng.random() < 0.1 else 100 + 5 * c * rng.getrandbits(1) for c in classes]
        return {"status": "ok", "vary": req["vary"], "samples": req["samples"], "timer": "coarse ticks",
                "classes": classes, "times": times}
    if op == "bench":
        if MODE == "bench-fields-ignored":
            req = {k: v for k, v in req.items() if k not in ("inplace", "repeat_iv")}
        if MODE == "jit":
            with open(os.environ["FAULTY_MARKER"], "a") as log:
                log.write(json.dumps({"size": req.get("size"), "warmup_ms": req.get("warmup_ms"),
                                      "cpus": sorted(os.sched_getaffinity(0))}) + "\n")
        r = engine(dict(req, impl="openssl"))
        if MODE == "bench-ns-number" and r.get("status") == "ok":
            r["ns"] = 12345
        if MODE == "bench-tsc-garbage" and r.get("status") == "ok":
            r["tsc"] = ["abc"]
        if MODE == "bench-crash":
            BENCHES.append(1)
            if len(BENCHES) == 3:
                sys.exit(4)
        return r
    return {"status": "error", "message": f"unknown op {op!r}"}


BENCHES: list[int] = []
for line in sys.stdin:
    try:
        req = json.loads(line)
    except ValueError:
        print(json.dumps({"id": None, "status": "error", "message": "malformed request"}), flush=True)
        continue
    if req.get("op") == "quit":
        break
    resp = answer(req)
    if isinstance(resp, str):
        print(resp, flush=True)
        continue
    resp["id"] = req.get("id")
    print(json.dumps(resp), flush=True)
