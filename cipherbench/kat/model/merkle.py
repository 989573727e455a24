"""The iteration the hash models share (md4.py, ripemd160.py, sm3.py, sha512t.py): Merkle-
Damgard with length strengthening, as RFC 1320 section 3.1-3.2, FIPS 180-4 section 5.1 and
GB/T 32905 section 5.2 each define it: the message, a 1 bit, zero bits up to the block's length
field, and the message's length in bits in that field (8 bytes for 64-byte blocks, 16 for
128-byte ones), in the hash's byte order; every block compressed into the state in turn.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

#: compress(state, the block as words): the state updated in place
Compress = Callable[[list[int], tuple[int, ...]], None]


@dataclass(frozen=True)
class Iterated:
    """One hash's iteration: its block, its words' struct code and byte order, its compression."""

    block: int  # bytes: 64 or 128
    word: str  # struct code of a word: "I" (32 bits) or "Q" (64 bits)
    order: str  # "<" little-endian (MD4, RIPEMD-160) or ">" big-endian (SHA-2, SM3)
    compress: Compress

    def absorb(self, state: list[int], data: bytes) -> list[int]:
        """A copy of state with data's whole blocks compressed into it."""
        state = list(state)
        fmt = f"{self.order}{self.block // struct.calcsize(self.word)}{self.word}"
        for i in range(0, len(data) - len(data) % self.block, self.block):
            self.compress(state, struct.unpack_from(fmt, data, i))
        return state

    def finish(self, state: list[int], data: bytes, total: int) -> list[int]:
        """The final state: data, the rest of a message of `total` bytes, padded."""
        field = self.block // 8
        bits = ((8 * total) % 2 ** (8 * field)).to_bytes(field, "little" if self.order == "<" else "big")
        return self.absorb(state, data + b"\x80" + bytes(-(total + 1 + field) % self.block) + bits)

    def digest(self, state: list[int]) -> bytes:
        return struct.pack(f"{self.order}{len(state)}{self.word}", *state)

    def digests(self, iv: list[int] | tuple[int, ...], prefix: bytes, tails: list[bytes]) -> list[bytes]:
        """The digest of prefix || tail for each tail, prefix (whole blocks) compressed once."""
        if len(prefix) % self.block:
            raise ValueError(f"the shared prefix must be whole {self.block}-byte blocks")
        state = self.absorb(list(iv), prefix)
        return [self.digest(self.finish(state, t, len(prefix) + len(t))) for t in tails]
