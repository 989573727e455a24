"""Drawing mutants, and naming the equivalent ones.

Each mutant is drawn with one seeded generator: an operator (equal weights), a family the
operator can act in, a wrapped implementation offering such a primitive, the primitive,
then the operator's parameters. Whether a mutant is equivalent (it cannot change any answer
the registry allows at the sizes timed) is decided by `equivalent`, from the registry's
facts and the depth alone, never by running it.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TypeVar

from cipherbench.kinds import PrimitiveKind
from cipherbench.mutate.faults import (
    Direction,
    Facts,
    Fault,
    Field,
    Forbidden,
    LengthClass,
    Operator,
    Position,
    Remap,
    Scope,
    TagFault,
    TailKind,
)
from cipherbench.registry import Primitive, Registry

#: the largest message any profile times (registry/experiments.toml), and the smallest
#: size any profile times: the size thresholds are the powers of two between
LARGEST = 1 << 20
SMALLEST = 16
THRESHOLDS = tuple(1 << k for k in range(SMALLEST.bit_length() - 1, LARGEST.bit_length()))
WIDTHS = (8, 16, 32, 64)
BATCHES = (2, 4, 8, 16)
KEY_SIZES = (128, 192, 256)  # the key sizes a key-size-specific fault is drawn for
#: ChaCha and Salsa make keystream in 64-byte blocks; a stream without blocks (RC4) is
#: given the same unit for its batches
STREAM_BLOCK = 64


class Family(StrEnum):
    BLOCK = "block modes"
    AEAD = "AEADs"
    STREAM = "stream ciphers"
    HASH = "hashes"
    XTS = "XTS"


def family_of(p: Primitive) -> Family | None:
    return {PrimitiveKind.AEAD: Family.AEAD, PrimitiveKind.STREAM: Family.STREAM,
            PrimitiveKind.HASH: Family.HASH}.get(PrimitiveKind(p.kind)) or (
        (Family.XTS if p.mode == "xts" else Family.BLOCK) if p.kind == PrimitiveKind.CIPHER else None)


def family_of_facts(p: Facts) -> Family:
    """A mutated primitive's family, from the facts its fault carries."""
    if p.kind == PrimitiveKind.CIPHER:
        return Family.XTS if p.mode == "xts" else Family.BLOCK
    return {PrimitiveKind.AEAD: Family.AEAD, PrimitiveKind.STREAM: Family.STREAM}.get(PrimitiveKind(p.kind),
                                                                                     Family.HASH)


@dataclass(frozen=True)
class CounterModel:
    bits: int  # the counter's width
    start: int | None  # where it starts (None: the IV sets it)
    keystream: str  # Facts.keystream


#: stream ciphers and the AEADs built on them: (counter bits, first data block's counter, the raw
#: stream that gives their keystream from counter 0). RFC 8439 2.4 and 2.8 (ChaCha20's 32-bit
#: counter; the AEAD's data from counter 1), draft-irtf-cfrg-xchacha-03 (the same after
#: HChaCha20), Salsa20's 64-bit counter from 0 (Bernstein 2005).
STREAM_COUNTERS = {"chacha20": (32, 0, "chacha20"), "xchacha20": (32, 0, "xchacha20"),
                   "salsa20": (64, 0, "salsa20"), "salsa20r12": (64, 0, "salsa20r12"),
                   "xsalsa20": (64, 0, "xsalsa20"), "chacha20-poly1305": (32, 1, "chacha20"),
                   "xchacha20-poly1305": (32, 1, "xchacha20")}


def counter_model(p: Primitive, offered: set[str]) -> CounterModel | None:
    """How a counter fault is emulated for p through an implementation offering `offered`,
    or None when it cannot be: CTR (the whole IV block one big-endian counter, SP 800-38A
    B.1), GCM with a 96-bit IV (inc32 from 2, SP 800-38D 7.1; keystream from the same
    cipher's ECB), and the streams above (keystream from their raw stream)."""
    if p.kind == PrimitiveKind.CIPHER and p.mode == "ctr":
        return CounterModel(p.block_bytes * 8, None, "ctr")
    if p.mode == "gcm" and p.iv_bytes == 12:
        ecb = p.name.rsplit("-", 1)[0] + "-ecb"
        return CounterModel(32, 2, f"ecb:{ecb}") if ecb in offered else None
    known = STREAM_COUNTERS.get(p.name)
    if known is None or known[2] not in offered:
        return None
    return CounterModel(known[0], known[1], f"raw:{known[2]}")


def facts_of(p: Primitive, offered: set[str]) -> Facts:
    unit = p.block_bytes or STREAM_BLOCK
    c = counter_model(p, offered)
    return Facts(p.name, str(p.kind), p.mode or "", p.key_bytes, p.iv_bytes, p.tag_bytes, unit, p.whole_blocks,
                 c.bits if c else 0, c.start if c else None, c.keystream if c else "")


# ---------------------------------------------------------------------------- domains
def _in_domain(op: Operator, p: Primitive, offered: set[str]) -> bool:
    """Whether the operator can act on p at all (which family it is drawn from)."""
    if op is Operator.COUNTER:
        return counter_model(p, offered) is not None
    if op is Operator.TAG:
        return p.kind == PrimitiveKind.AEAD
    if op in (Operator.REMAP, Operator.FORBIDDEN):
        return p.kind != PrimitiveKind.HASH
    return True


@dataclass(frozen=True)
class Target:
    """A wrapped implementation: its runner, its name, the primitives it offers."""

    runner: str
    impl: str
    primitives: tuple[str, ...]


def draw(reg: Registry, targets: list[Target], n: int, seed: int) -> list[Fault]:
    """n mutants, the same for the same seed and offers."""
    rng = random.Random(seed)
    eligible: dict[tuple[Operator, Family], list[tuple[Target, list[Primitive]]]] = {}
    for op in Operator:
        for t in targets:
            offered = set(t.primitives)
            for name in sorted(offered):
                p = reg.get(name)
                fam = family_of(p) if p is not None else None
                if p is None or fam is None or not _in_domain(op, p, offered):
                    continue
                group = eligible.setdefault((op, fam), [])
                if not group or group[-1][0] is not t:
                    group.append((t, []))
                group[-1][1].append(p)
    faults = []
    for _ in range(n):
        op = pick(rng, Operator)
        fam = rng.choice([f for f in Family if (op, f) in eligible])
        t, prims = rng.choice(eligible[(op, fam)])
        p = rng.choice(prims)
        base = Fault(op, t.runner, t.impl, facts_of(p, set(t.primitives)), direction=pick(rng, Direction))
        faults.append(_PARAMS[op](rng, base))
    return faults


E = TypeVar("E", bound=StrEnum)


def pick(rng: random.Random, kind: type[E]) -> E:
    """One member of an enumeration, drawn."""
    members: list[E] = list(kind)
    return rng.choice(members)


def _flip(rng: random.Random, f: Fault) -> Fault:
    return replace(f, threshold=rng.choice(THRESHOLDS), scope=pick(rng, Scope),
                   position=pick(rng, Position), mask=rng.choice([1 << b for b in range(8)] + [0xFF]))


def _counter(rng: random.Random, f: Fault) -> Fault:
    return replace(f, width=rng.choice(WIDTHS))


def _tail(rng: random.Random, f: Fault) -> Fault:
    return replace(f, batch=rng.choice(BATCHES), tail=pick(rng, TailKind), threshold=rng.choice(THRESHOLDS))


def _remap(rng: random.Random, f: Fault) -> Fault:
    """A byte of the field (a pair of neighbours, when swapped); the key size is any, the
    primitive's own, or another (a fault in a schedule the primitive never runs)."""
    field = Field.KEY if f.facts.iv_bytes == 0 else pick(rng, Field)  # an IV where the primitive takes one
    how = pick(rng, Remap)
    size = f.facts.key_bytes if field is Field.KEY else f.facts.iv_bytes
    own = f.facts.key_bytes * 8
    return replace(f, field=field, remap=how, index=rng.randrange(max(1, size - (how is Remap.SWAPPED))),
                   value=rng.randrange(256), key_bits=rng.choice((0, own, rng.choice([k for k in KEY_SIZES if k != own]))))


def _tag(rng: random.Random, f: Fault) -> Fault:
    fault = pick(rng, TagFault)  # a tag is made in encryption and checked in decryption
    return replace(f, tag_fault=fault, direction=Direction.ENCRYPT if fault is TagFault.WRONG else Direction.DECRYPT,
                   aad_class=pick(rng, LengthClass),
                   msg_class=pick(rng, LengthClass), index=rng.randrange(16),
                   mask=rng.choice([1 << b for b in range(8)]))


def _forbidden(rng: random.Random, f: Fault) -> Fault:
    """One of the rules the registry states for the primitive: a key length always, a
    partial block where whole blocks are required, an IV length where it takes an IV, a tag
    length for an AEAD (in decryption, where a tag is taken)."""
    p = f.facts
    rules = [Forbidden.KEY_LENGTH] + [r for r, holds in ((Forbidden.PARTIAL_BLOCK, p.whole_blocks),
                                                          (Forbidden.IV_LENGTH, p.iv_bytes > 0),
                                                          (Forbidden.SHORT_TAG, p.kind == PrimitiveKind.AEAD)) if holds]
    rule = rng.choice(rules)
    return replace(f, forbidden=rule, direction=Direction.DECRYPT if rule is Forbidden.SHORT_TAG else f.direction)


_PARAMS: dict[Operator, Callable[[random.Random, Fault], Fault]] = {
    Operator.FLIP: _flip, Operator.COUNTER: _counter, Operator.TAIL: _tail, Operator.REMAP: _remap,
    Operator.TAG: _tag, Operator.FORBIDDEN: _forbidden}


# ---------------------------------------------------------------------------- equivalence
def equivalent(f: Fault, depth: int) -> str | None:
    """Why the fault cannot change any answer the registry allows at sizes up to `depth` (the
    largest size timed), or None. A rule from the registry's facts, never a run."""
    p = f.facts
    if p.kind == PrimitiveKind.HASH and f.direction is Direction.DECRYPT:
        return "a hash has no decryption"
    if f.operator in (Operator.FLIP, Operator.TAIL) and f.threshold > depth:
        return f"it acts on messages of {f.threshold} B or more; the largest size timed is {depth} B"
    return _RULES[f.operator](f, depth)


def _counter_rule(f: Fault, depth: int) -> str | None:
    p = f.facts
    if f.width >= p.counter_bits:
        return (f"{p.name}'s counter has {p.counter_bits} bits: a carry out of its low {f.width} bits is the "
                f"counter's own wrap, as the specification counts it")
    if p.counter_start is not None:
        first = (1 << f.width) - (p.counter_start % (1 << f.width))  # blocks before the first wrong one
        if first * p.block_bytes >= depth:
            return (f"its counter starts at {p.counter_start} and first carries out of {f.width} bits after "
                    f"{first * p.block_bytes} B; the largest size timed is {depth} B")
    return None


def _remap_rule(f: Fault, depth: int) -> str | None:
    p = f.facts
    size = p.key_bytes if f.field is Field.KEY else p.iv_bytes
    if f.key_bits and f.key_bits != p.key_bytes * 8:
        return f"{p.name} takes only {p.key_bytes * 8}-bit keys; the fault is in {f.key_bits}-bit keys' round keys"
    if size == 0:
        return f"{p.name} takes no {f.field.value}"
    if f.remap is Remap.IGNORED and f.index >= size:
        return f"{p.name}'s {f.field.value} has {size} bytes, no byte {f.index}"
    if f.remap is Remap.SWAPPED and f.index + 1 >= size:
        return f"{p.name}'s {f.field.value} has {size} bytes, no bytes {f.index} and {f.index + 1}"
    if f.field is Field.KEY and f.remap is Remap.MISREAD and p.name.split("-")[0] in ("des", "3des"):
        return "the low bit of every DES key byte is parity, which the cipher ignores"
    return None


def _forbidden_rule(f: Fault, depth: int) -> str | None:
    p = f.facts
    if f.forbidden is Forbidden.PARTIAL_BLOCK and not p.whole_blocks:
        return f"{p.name} takes any length: no partial block is forbidden"
    if f.forbidden is Forbidden.IV_LENGTH and p.iv_bytes == 0:
        return f"{p.name} takes no IV: the registry states no IV length to break"
    if f.forbidden is Forbidden.SHORT_TAG and (p.kind != PrimitiveKind.AEAD or f.direction is Direction.ENCRYPT):
        return "only an AEAD decryption takes a tag" if p.kind != PrimitiveKind.AEAD else \
            "the fault is in encryption, which takes no tag"
    return None


def _none(f: Fault, depth: int) -> str | None:
    return None


_RULES: dict[Operator, Callable[[Fault, int], str | None]] = {
    Operator.FLIP: _none, Operator.COUNTER: _counter_rule, Operator.TAIL: _none, Operator.REMAP: _remap_rule,
    Operator.TAG: _none, Operator.FORBIDDEN: _forbidden_rule}
