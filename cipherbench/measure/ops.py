"""One-shot operations with the registry's rules checked before anything is sent."""
from __future__ import annotations

import re

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive

_HEX = re.compile(r"^([0-9a-fA-F]{2})*$")


def parse_hex(option: str, text: str | None) -> bytes | None:
    if text is None:
        return None
    t = text.strip()
    if t.startswith(("0x", "0X")):
        t = t[2:]
    if not _HEX.match(t):
        bad = "an odd number of digits" if re.fullmatch(r"[0-9a-fA-F]*", t) else "characters other than 0-9 a-f"
        raise UsageError(f"{option} is not hex ({bad}): give two hex digits per byte, e.g. {option} 00ff")
    return bytes.fromhex(t)


def check_request(p: Primitive, key: bytes | None, iv: bytes | None, aad: bytes | None,
                  data: bytes, decrypt: bool) -> None:
    """UsageError naming what was wrong and what is accepted."""
    if p.kind == PrimitiveKind.HASH:
        raise UsageError(f"{p.name} is a hash: use 'cipherbench hash'")
    key = key or b""
    if len(key) != p.key_bytes:
        raise UsageError(f"{p.name} takes a {p.key_bytes}-byte key ({2 * p.key_bytes} hex digits); "
                         f"--key has {len(key)} bytes")
    if p.iv_bytes and iv is None:
        raise UsageError(f"{p.name} needs --iv: {p.iv_bytes} bytes ({2 * p.iv_bytes} hex digits)")
    if iv and len(iv) != p.iv_bytes:
        what = "takes no IV" if not p.iv_bytes else f"takes a {p.iv_bytes}-byte IV/nonce ({2 * p.iv_bytes} hex digits)"
        raise UsageError(f"{p.name} {what}; --iv has {len(iv)} bytes")
    if aad and p.kind != PrimitiveKind.AEAD:
        raise UsageError(f"{p.name} is not an AEAD and takes no --aad")
    n = len(data)
    if p.kind == PrimitiveKind.AEAD and decrypt:
        if n < p.tag_bytes:
            raise UsageError(f"{p.name} decryption input is ciphertext followed by the {p.tag_bytes}-byte tag; "
                             f"--in has only {n} bytes")
        n -= p.tag_bytes
    if p.whole_blocks and n % p.block_bytes:
        raise UsageError(f"{p.name} takes whole {p.block_bytes}-byte blocks (no padding); --in has {n} bytes")


def _answer(resp: dict, impl: str, p: Primitive) -> dict:
    if resp["status"] == "unsupported":
        raise UsageError(f"{impl} does not offer {p.name}: {resp.get('message', '')}".rstrip(": "))
    if resp["status"] == "error":
        raise CipherbenchError(f"{impl} failed on {p.name}: {resp.get('message', 'no message')}")
    return resp


def _output(resp: dict, impl: str) -> bytes:
    try:
        return bytes.fromhex(resp["output"])
    except (KeyError, TypeError, ValueError):
        raise CipherbenchError(f"{impl} answered without valid hex output") from None


def crypt(session, impl: str, p: Primitive, key: bytes | None, iv: bytes | None,
          aad: bytes | None, data: bytes, decrypt: bool, rounds: int | None = None) -> bytes | None:
    """Ciphertext (AEAD: ciphertext || tag), plaintext, or None for a rejected AEAD message.
    `rounds`: a reduced-round variant (docs/protocol.md), in the unit the implementation announced."""
    check_request(p, key, iv, aad, data, decrypt)
    req: dict[str, str | int] = {"op": "decrypt" if decrypt else "encrypt", "primitive": p.name,
           "key": (key or b"").hex(), "input": data.hex()}
    if iv:
        req["iv"] = iv.hex()
    if aad:
        req["aad"] = aad.hex()
    if rounds is not None:
        req["rounds"] = rounds
    resp = session.ask(impl, req)
    if rounds is not None and resp.get("status") == "unsupported":
        raise UsageError(f"{impl} cannot run {p.name} with {rounds} rounds: {resp.get('message', 'unsupported')}")
    resp = _answer(resp, impl, p)
    if rounds is not None and resp.get("rounds") != rounds:
        # A runner written before the field ignores it and answers the full cipher.
        raise UsageError(f"{impl} ignored the round count: its runner runs {p.name} only with full rounds")
    if p.kind == PrimitiveKind.AEAD and decrypt and resp.get("authentic") is False:
        return None
    return _output(resp, impl)


def digest(session, impl: str, p: Primitive, data: bytes) -> bytes:
    if p.kind != PrimitiveKind.HASH:
        raise UsageError(f"{p.name} is not a hash: use 'cipherbench encrypt'")
    resp = _answer(session.ask(impl, {"op": "hash", "primitive": p.name, "input": data.hex()}), impl, p)
    return _output(resp, impl)
