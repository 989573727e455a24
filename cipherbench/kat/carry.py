"""Which counter carries the gate crosses, derived from the registry's `counter` statements
(registry/primitives.toml, cipherbench/registry.py Counter).

A counter-based primitive (CTR, GCM, CCM, EAX, ChaCha20, Salsa20 and their kin) carries out
of each 8-, 16-, 32- and 64-bit word of its counter, and wraps its whole counter; a library
that keeps the counter in words of its own (a 32-bit word incremented alone, a byte-wise
add) goes wrong at one of these and nowhere else. The gate asks, for every width:
  - a counter the IV sets (`start = "iv"`, CTR): a short message whose IV puts the low
    `width` bits at 2^width - 2, with the next bit clear, so that the third block carries out
    of exactly those bits (the wrap of the whole counter for `width` = its bits);
  - a counter that starts at a fixed value (ChaCha20 at 0, GCM at 2): a message long enough
    to reach the carry, when that is at most REACH bytes; beyond, the carry is out of reach
    of any message the gate can ask (ChaCha20's 32-bit carry is at 256 GiB), said so;
  - a counter derived from the nonce (EAX's OMAC of it): as a counter the IV sets, where
    the derivation can be inverted (INVERTIBLE: the nonce of a chosen OMAC comes from the
    cipher's decryption); otherwise no record chooses where it falls, said so.
`crossed` says which carries a message crosses, from its IV and length, so the tests hold
every record the gate asks to what it claims, and every carry within reach to a record.
"""
from __future__ import annotations

from dataclasses import dataclass

from cipherbench.registry import CARRY_WORDS, Primitive

#: the registry's `derived` counters whose nonce the gate computes from a chosen counter
INVERTIBLE = {"omac": "aead.eax_nonce_for: the nonce whose OMAC is a chosen block, by the cipher's decryption"}

#: the longest message the gate asks to reach a counter's carry: 8 MiB, past ChaCha20's and
#: Salsa20's 16-bit block-counter carry (4 MiB) and GCM's and CCM's (1 MiB)
REACH = 1 << 23


@dataclass(frozen=True)
class CarryCase:
    """A carry of p's counter: out of the low `width` bits (the counter's own width: its wrap)."""
    width: int
    #: message bytes that reach it from a fixed start; 0 when the IV chooses where it falls
    reach_bytes: int
    #: why no message the gate asks crosses it; "" when one does
    out_of_reach: str = ""


def cases(p: Primitive) -> list[CarryCase]:
    """Every carry of p's counter (none for a primitive without one)."""
    c = p.counter
    if c is None:
        return []
    out = []
    for w in c.carries():
        block = c.carry_block(w)
        if c.start is None:
            why = "" if not c.derived or c.derived in INVERTIBLE else (
                f"the counter starts at the nonce's {c.derived}, which no record here chooses")
            out.append(CarryCase(w, 0, why))
            continue
        assert block is not None
        need = block * c.unit + 1  # the first byte of the block after the carry
        why = "" if need <= REACH else (
            f"the counter starts at {c.start} and carries out of {w} bits only after "
            f"{block * c.unit:,} bytes, beyond the {REACH:,} a message here reaches")
        out.append(CarryCase(w, need, why))
    return out


def reach_bytes(p: Primitive) -> int:
    """The shortest message crossing every carry of p's fixed-start counter within REACH
    (0 when there is none)."""
    return max((k.reach_bytes for k in cases(p) if not k.out_of_reach), default=0)


def chosen_iv(p: Primitive, width: int, random_iv: bytes) -> bytes:
    """An IV for a counter the IV sets: random_iv with its low `width` counter bits at
    2^width - 2 and, below the counter's own width, the next bit clear, so that the third
    block's counter carries out of exactly `width` bits."""
    c = p.counter
    assert c is not None and c.start is None and (not c.derived or c.derived in INVERTIBLE)
    v = int.from_bytes(random_iv, c.order)
    v = v >> width << width | ((1 << width) - 2)
    if width < c.bits:
        v &= ~(1 << width)
    return v.to_bytes(len(random_iv), c.order)


def _next_width(bits: int, width: int) -> int:
    return next((w for w in CARRY_WORDS if width < w < bits), bits)


def crossed(p: Primitive, iv: bytes, message_bytes: int, counter: bytes = b"") -> set[int]:
    """The widths out of which, and only out of which, some step of the counter carries
    while it numbers a message of message_bytes: a carry out of `width` bits that stops
    before the next width (or is the counter's wrap). A derived counter's first value is
    `counter` (empty: unknown, nothing crossed)."""
    c = p.counter
    if c is None or (c.derived and not counter):
        return set()
    first = c.start if c.start is not None else int.from_bytes(counter or iv, c.order)
    last = first + -(-message_bytes // c.unit) - 1  # the last block's counter, before any wrap
    out = set()
    for w in c.carries():
        step, stop = 1 << w, 1 << _next_width(c.bits, w)
        k = (first // step + 1) * step  # the first counter value after a carry out of w bits
        while k <= last:
            if w == c.bits or k % stop:
                out.add(w)
                break
            k += step
    return out
