"""Inputs the registry forbids, generated from its rules, and what a runner must answer.

The registry states, per primitive (registry/primitives.toml, cipherbench/registry.py):
  key_bytes     the one key length it takes (the name fixes it: blowfish-128 takes 16
                bytes even where the library takes any length);
  iv_bytes      the one IV or nonce length (0: it takes none);
  whole_blocks  the input is whole blocks (ECB, CBC, XTS: no padding anywhere);
  tag_bytes     an AEAD's ciphertext ends with a tag of exactly this length;
  kind          only an AEAD takes associated data.
A runner that answers `ok` to an input just outside one of these rules would be verified
and timed on something the registry does not name (a library that pads a partial block, or
takes a 15-byte Blowfish key, computes a different primitive). So for every rule each
primitive has, the lengths just outside it are asked, and the answer must be an `error`
(docs/protocol.md: wrong key or IV lengths and partial blocks are errors). Whether the
runner's own check or its library refuses does not matter.

An AEAD also gets forgeries: a ciphertext it produced itself with its tag changed, and with
its tag cut short by a byte (a tag length outside the one allowed). The right answer is `ok`
with `"authentic": false` and no output, or an `error`; an authentic answer is a failure.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive

#: the associated data of the AEAD requests
AAD_BYTES = 5
#: the message of a non-whole-block primitive's requests: a partial block after two
MESSAGE_BYTES = 33
#: the protocol operations every length rule is asked in
DIRECTIONS = ("encrypt", "decrypt")


class Expect(StrEnum):
    ERROR = "error"  # a length outside a rule: an error
    NOT_AUTHENTIC = "not-authentic"  # a forgery: ok and not authentic, or an error


@dataclass(frozen=True)
class Forbidden:
    """One request the registry forbids (without `impl`), what it breaks, and what must come back."""
    what: str
    request: dict = field(hash=False, compare=False)
    expect: Expect = Expect.ERROR


def _det(label: str, n: int) -> bytes:
    return hashlib.shake_256(f"cipherbench forbidden {label}".encode()).digest(n) if n else b""


@dataclass(frozen=True)
class Valid:
    """Inputs every rule allows; each forbidden request changes one of them."""
    key: bytes
    iv: bytes
    aad: bytes
    message: bytes

    @staticmethod
    def of(p: Primitive) -> Valid:
        n = 2 * p.block_bytes if p.whole_blocks else MESSAGE_BYTES
        return Valid(_det(f"key/{p.name}", p.key_bytes), _det(f"iv/{p.name}", p.iv_bytes),
                     _det(f"aad/{p.name}", AAD_BYTES if p.kind == PrimitiveKind.AEAD else 0),
                     _det(f"msg/{p.name}", n))

    def request(self, p: Primitive, op: str, **change) -> dict:
        fields = {"key": self.key, "iv": self.iv, "aad": self.aad, "input": self.message, **change}
        req = {"op": op, "primitive": p.name}
        for name, value in fields.items():
            if name == "input" or value:
                req[name] = value.hex()
        return req


def near(n: int) -> list[int]:
    """The lengths just outside a rule of exactly n bytes."""
    return [m for m in (n - 1, n + 1) if m >= 0]


def length_rules(p: Primitive) -> list[Forbidden]:
    """Every request just outside p's key, IV and whole-block rules."""
    if p.kind not in (PrimitiveKind.CIPHER, PrimitiveKind.STREAM, PrimitiveKind.AEAD):
        return []
    v = Valid.of(p)
    # key and IV lengths in both directions: a decryption that takes a wrong length is as
    # wrong as an encryption that does, and nothing else would ever ask it
    out = [Forbidden(f"{op} with a {n}-byte key ({p.name} takes {p.key_bytes})",
                     v.request(p, op, key=_det(f"key/{p.name}/{n}", n)))
           for n in near(p.key_bytes) if n for op in DIRECTIONS]
    out += [Forbidden(f"{op} with a {n}-byte IV ({p.name} takes {p.iv_bytes or 'none'})",
                      v.request(p, op, iv=_det(f"iv/{p.name}/{n}", n)))
            for n in near(p.iv_bytes) if n for op in DIRECTIONS]
    if p.whole_blocks:
        for n in (p.block_bytes - 1, 2 * p.block_bytes + 1):
            for op in DIRECTIONS:
                out.append(Forbidden(f"{op} of {n} bytes ({p.name} takes whole {p.block_bytes}-byte blocks)",
                                     v.request(p, op, input=_det(f"msg/{p.name}/{n}", n))))
    if p.kind != PrimitiveKind.AEAD:
        out += [Forbidden(f"{op} with {AAD_BYTES} bytes of associated data ({p.name} is no AEAD)",
                          v.request(p, op, aad=_det(f"aad/{p.name}", AAD_BYTES))) for op in DIRECTIONS]
    else:
        n = p.tag_bytes - 1
        out.append(Forbidden(f"decrypt of {n} bytes (shorter than the {p.tag_bytes}-byte tag)",
                             v.request(p, "decrypt", input=_det(f"msg/{p.name}/{n}", n))))
    return out


def sealing(p: Primitive) -> dict | None:
    """The encryption whose output forgeries() changes; None for a primitive that is no AEAD."""
    return Valid.of(p).request(p, "encrypt") if p.kind == PrimitiveKind.AEAD else None


def forgeries(p: Primitive, sealed: bytes) -> list[Forbidden]:
    """p's own ciphertext `sealed` (message || tag) with its tag changed or cut short."""
    v = Valid.of(p)
    t = len(sealed) - p.tag_bytes
    flipped_last = sealed[:-1] + bytes([sealed[-1] ^ 0x01])
    flipped_first = sealed[:t] + bytes([sealed[t] ^ 0x80]) + sealed[t + 1:]
    cases = [("the tag's last byte changed", flipped_last), ("the tag's first byte changed", flipped_first),
             (f"the tag cut to {p.tag_bytes - 1} bytes (it is {p.tag_bytes})", sealed[:-1])]
    return [Forbidden(f"a forgery: {what}", v.request(p, "decrypt", input=data), Expect.NOT_AUTHENTIC)
            for what, data in cases]


def refused(f: Forbidden, resp: dict) -> str | None:
    """None when resp refuses f as it must, else what is wrong."""
    st = resp.get("status")
    if f.expect is Expect.NOT_AUTHENTIC:
        if st == "error" or (st == "ok" and resp.get("authentic") is False and "output" not in resp):
            return None
        return f"answered {st} with authentic = {resp.get('authentic')!r}: a forgery accepted"
    if st == "error":
        return None
    return f"answered {st}{': ' + str(resp.get('message')) if resp.get('message') else ''}, expected an error"
