"""One injected fault, as a value: its operator and parameters, what it says in words, and
the facts of the primitive it breaks that the proxy needs (lengths, the raw keystream).

This module is what the proxy (proxy.py) reads its fault from, so it imports nothing but
the standard library and the base vocabularies: a proxy process starts in tens of
milliseconds, one per mutant.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any

from cipherbench.kinds import PrimitiveKind


class Operator(StrEnum):
    """The fault classes, drawn with equal weight."""

    FLIP = "flip"  # an output byte or bit wrong, above a size, in one direction or workload
    COUNTER = "counter"  # the block counter's carry dropped at a word boundary
    TAIL = "tail"  # the blocks after the last whole SIMD batch wrong, or the last whole batch
    REMAP = "remap"  # a key or IV byte misread, ignored or swapped (the key schedule wrong)
    TAG = "tag"  # a wrong tag for one length class, or a decryption that accepts a wrong tag
    FORBIDDEN = "forbidden"  # `ok` with plausible output where the registry says `error`


class Direction(StrEnum):
    ENCRYPT = "encrypt"  # encryption, and a hash's one operation
    DECRYPT = "decrypt"
    BOTH = "both"


class Scope(StrEnum):
    """Which calls a fault is in (the workloads as the protocol shows them: a timed `bulk`
    loop feeds one keyed context in pieces and in place, `message` and `rekey` make every
    call a whole message in separate buffers)."""

    ANY = "any"
    BULK = "bulk"  # only calls fed in pieces (`chunks`) or written in place (`inplace`)
    MESSAGE = "message"  # only whole messages in one call into a separate buffer


class Position(StrEnum):
    FIRST = "first"  # the output's first byte (its body's, for an AEAD)
    LAST = "last"  # the body's last byte


class TailKind(StrEnum):
    REMAINDER = "remainder"  # a length that is no multiple of the batch: the first byte after it
    EXACT = "exact"  # a length that is a multiple of the batch: its last byte


class Field(StrEnum):
    KEY = "key"
    IV = "iv"


class Remap(StrEnum):
    IGNORED = "ignored"  # the byte read as zero
    MISREAD = "misread"  # a byte of one value read as that value xor 1 (a table fault)
    SWAPPED = "swapped"  # the byte swapped with its neighbour (a byte-order fault)


class LengthClass(StrEnum):
    """Length classes of AEAD associated data and messages."""

    ANY = "any"
    EMPTY = "empty"
    PARTIAL = "partial"  # not a multiple of 16 bytes
    WHOLE = "whole"  # a non-zero multiple of 16 bytes

    def holds(self, n: int) -> bool:
        if self is LengthClass.ANY:
            return True
        if self is LengthClass.EMPTY:
            return n == 0
        return n > 0 and (n % 16 != 0) == (self is LengthClass.PARTIAL)


class TagFault(StrEnum):
    WRONG = "wrong"  # encryption answers a tag with one bit wrong
    ACCEPTS = "accepts"  # decryption accepts a wrong tag and answers a plausible plaintext


class Forbidden(StrEnum):
    """The inputs the registry forbids (docs/protocol.md: wrong key, IV, tag lengths and a
    partial block are an `error`) that the fault answers `ok` instead."""

    PARTIAL_BLOCK = "partial-block"
    KEY_LENGTH = "key-length"
    IV_LENGTH = "iv-length"
    SHORT_TAG = "short-tag"  # an AEAD decryption given fewer bytes than the tag


@dataclass(frozen=True)
class Facts:
    """What the proxy must know of the primitive it breaks (registry.Primitive's lengths)."""

    name: str
    kind: str  # kinds.PrimitiveKind's word
    mode: str
    key_bytes: int
    iv_bytes: int
    tag_bytes: int
    block_bytes: int  # the cipher block; a hash's compression block; 64 for ChaCha and Salsa
    whole_blocks: bool
    # counter faults: the counter's width in bits, where it starts (None: the IV sets it),
    # and how the proxy gets keystream at any counter (draw.counter_model)
    counter_bits: int = 0
    counter_start: int | None = None
    keystream: str = ""  # "ctr" (the mode itself), "ecb:NAME" (counter blocks), "raw:NAME" (a stream from 0)


@dataclass(frozen=True)
class Fault:
    """One mutant's fault: the implementation it is injected into and its parameters (the
    operator's; the others keep their defaults)."""

    operator: Operator
    runner: str  # the wrapped runner's name (native, python)
    impl: str  # the implementation inside it
    facts: Facts
    direction: Direction = Direction.BOTH
    threshold: int = 0  # bytes: the fault acts on messages at least this long
    scope: Scope = Scope.ANY
    position: Position = Position.FIRST
    mask: int = 0x01  # the bits flipped
    width: int = 0  # counter: the word whose carry is dropped, in bits
    batch: int = 0  # tail: blocks per batch
    tail: TailKind = TailKind.REMAINDER
    field: Field = Field.KEY
    remap: Remap = Remap.IGNORED
    index: int = 0  # remap: the byte's index
    value: int = 0  # remap MISREAD: the byte value misread
    key_bits: int = 0  # remap: only for keys of this many bits (0: any)
    aad_class: LengthClass = LengthClass.ANY
    msg_class: LengthClass = LengthClass.ANY
    tag_fault: TagFault = TagFault.WRONG
    forbidden: Forbidden = Forbidden.PARTIAL_BLOCK

    @property
    def primitive(self) -> str:
        return self.facts.name

    def describe(self) -> str:
        """The fault in one line, as the score tables list survivors."""
        where = f"{self.runner}/{self.impl} {self.primitive}"
        return f"{where}: {_SAYS[self.operator](self)}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Fault:
        raw: dict[str, Any] = json.loads(text)
        raw["facts"] = Facts(**raw["facts"])
        for f in fields(cls):
            kind = _ENUMS.get(f.name)
            if kind is not None:
                raw[f.name] = kind(raw[f.name])
        return cls(**raw)


_ENUMS: dict[str, type[StrEnum]] = {
    "operator": Operator, "direction": Direction, "scope": Scope, "position": Position, "tail": TailKind,
    "field": Field, "remap": Remap, "aad_class": LengthClass, "msg_class": LengthClass, "tag_fault": TagFault,
    "forbidden": Forbidden}


def _dir(f: Fault) -> str:
    return "encryption and decryption" if f.direction is Direction.BOTH else f"{f.direction.value}ion"


def _bits(mask: int) -> str:
    return "the whole byte" if mask == 0xFF else f"bit {mask.bit_length() - 1}"


def _says_flip(f: Fault) -> str:
    scope = {Scope.ANY: "", Scope.BULK: ", only fed in pieces or in place (bulk)",
             Scope.MESSAGE: ", only whole one-call messages"}[f.scope]
    what = "hash" if f.facts.kind == PrimitiveKind.HASH else _dir(f)
    return (f"{_bits(f.mask)} of the output's {f.position.value} byte flipped in {what} of messages "
            f">= {f.threshold} B{scope}")


def _says_counter(f: Fault) -> str:
    return (f"the block counter's carry out of its low {f.width} bits is dropped in {_dir(f)} "
            f"(a {f.width}-bit counter word; counter {f.facts.counter_bits} bits)")


def _says_tail(f: Fault) -> str:
    unit = f.facts.block_bytes
    if f.tail is TailKind.REMAINDER:
        which = f"the first byte after the last whole batch of {f.batch} x {unit} B wrong"
    else:
        which = f"the last byte of a message that is a whole number of {f.batch} x {unit} B batches wrong"
    return f"{which}, in {_dir(f)} of messages >= {f.threshold} B"


def _says_remap(f: Fault) -> str:
    how = {Remap.IGNORED: f"{f.field.value} byte {f.index} ignored (read as zero)",
           Remap.MISREAD: f"{f.field.value} bytes of value 0x{f.value:02x} misread as 0x{f.value ^ 1:02x}",
           Remap.SWAPPED: f"{f.field.value} bytes {f.index} and {f.index + 1} swapped"}[f.remap]
    keys = f", only for {f.key_bits}-bit keys (their own round keys)" if f.key_bits else ""
    return f"{how} in {_dir(f)}{keys}"


def _says_tag(f: Fault) -> str:
    cls = f"associated data {f.aad_class.value}, message {f.msg_class.value}"
    if f.tag_fault is TagFault.WRONG:
        return f"encryption's tag byte {f.index} has {_bits(f.mask)} flipped ({cls})"
    return f"decryption accepts a wrong tag and answers a plaintext ({cls})"


def _says_forbidden(f: Fault) -> str:
    return {Forbidden.PARTIAL_BLOCK: "a partial block, which the mode forbids, is answered ok",
            Forbidden.KEY_LENGTH: "a key of a length the primitive does not take is answered ok",
            Forbidden.IV_LENGTH: "an IV of a length the primitive does not take is answered ok",
            Forbidden.SHORT_TAG: "a decryption shorter than the tag is answered ok (rejected as forged)",
            }[f.forbidden] + f" in {_dir(f)}"


_SAYS = {Operator.FLIP: _says_flip, Operator.COUNTER: _says_counter, Operator.TAIL: _says_tail,
         Operator.REMAP: _says_remap, Operator.TAG: _says_tag, Operator.FORBIDDEN: _says_forbidden}
