"""How the gate cuts and feeds a message: the round trips' lengths, the streaming check's
pieces, the in-place check's length, and the ways a long answer is fed as the timed bulk
loops feed theirs."""
from __future__ import annotations

from dataclasses import dataclass

from cipherbench.kat.collect import batch_lengths
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive


def message_lengths(p: Primitive) -> list[int]:
    """The round trips' lengths, which the differential check compares across implementations:
    a few of each primitive's own, and those at and after each batch width of its block
    (collect.batch_lengths: 2, 4, 8 and 16 blocks, whole and not), where a bulk path hands
    over to its tail; a stream cipher's block is its 64-byte keystream block."""
    if p.kind == PrimitiveKind.HASH:
        own = [0, 1, 3, 55, 56, 63, 64, 65, 127, 128, 129, 200, 1000, 4097]
    elif p.whole_blocks:
        b = p.block_bytes
        own = [b, 2 * b, 3 * b, 7 * b, 64 * b] if p.mode != "xts" else [b, 2 * b, 5 * b, 64 * b]
    else:
        own = [0, 1, 15, 16, 17, 63, 64, 65, 100, 1000, 4099]
    if p.kind not in (PrimitiveKind.HASH, PrimitiveKind.CIPHER, PrimitiveKind.STREAM, PrimitiveKind.AEAD):
        return own
    unit = p.block_bytes or 64
    return sorted(set(own) | set(batch_lengths(unit, partial=not p.whole_blocks)))


def stream_chunks(p: Primitive, n: int) -> list[list[int]] | None:
    """Ways to cut an n-byte message for the streaming check, tried in order until a
    runner takes one; None to skip this length.
    Stream-like modes, stream ciphers and AEADs (n = 100): pieces of 1, 15 and 17 bytes, then
    the rest; failing that, whole blocks (16 and 32 bytes; 64 for stream ciphers), as the
    bulk workload feeds them. Whole-block modes (n = 7 blocks): one block, two, the rest.
    XTS is not cut: a data unit is one call in the libraries' APIs (IEEE 1619 tweaks each
    data unit)."""
    if p.kind not in (PrimitiveKind.CIPHER, PrimitiveKind.STREAM, PrimitiveKind.AEAD) or p.mode == "xts":
        return None
    if p.whole_blocks:
        b = p.block_bytes
        return [[b, 2 * b]] if n == 7 * b else None
    if n != 100:
        return None
    b = p.block_bytes or 64
    return [[1, 15, 17], [b, 2 * b] if 3 * b <= n else [b]]


def inplace_length(p: Primitive) -> int:
    """The message length of the in-place check, one of the round-trip lengths: three
    blocks for whole-block modes (XTS: five), else 100 bytes (a partial block included)."""
    if p.kind == PrimitiveKind.HASH:
        return -1
    if p.whole_blocks:
        return 3 * p.block_bytes if p.mode != "xts" else 5 * p.block_bytes
    return 100


#: the smallest size a profile times (registry/experiments.toml): the first piece of bulk_pieces
SMALLEST_PIECE = 16


def bulk_pieces(p: Primitive, n: int) -> tuple[int, ...]:
    """The pieces (protocol field `chunks`) an n-byte message is cut into to be fed as the timed
    loops feed theirs. A `bulk` batch of `bench` hands one keyed context `size` bytes per call,
    call after call, in place (docs/protocol.md, `bench`; the engine's update_many), at sizes
    that are powers of two from 16 bytes. Here two calls of each such size, smallest first, as
    long as both fit, then the rest in one more call: every call size a bulk loop makes below n,
    a repeat of each (a library's steady state between equal calls) and each change from one
    size to the next, in one request of a few dozen numbers. Whole-block modes get whole blocks
    (a size rounded up to the block, then doubled); a megabyte is 30 pieces of 16 B to
    256 KiB, then 32 bytes."""
    unit = p.block_bytes if p.whole_blocks else 1
    size = -(-SMALLEST_PIECE // unit) * unit
    pieces: list[int] = []
    left = n
    while 2 * size <= left:
        pieces += [size, size]
        left -= 2 * size
        size *= 2
    return tuple(pieces)


@dataclass(frozen=True)
class BulkFeed:
    """One way of feeding a message as the timed loops do: in pieces (`chunks`; none: one
    call), and with the output written over the input (`inplace`)."""

    chunks: tuple[int, ...]
    inplace: bool

    def fields(self) -> dict:
        """The request's optional fields (docs/protocol.md, `encrypt`)."""
        return {**({"chunks": list(self.chunks)} if self.chunks else {}),
                **({"inplace": True} if self.inplace else {})}

    def echoes(self) -> tuple[str, ...]:
        """The answer's fields that say the runner honoured them."""
        return (("chunked",) if self.chunks else ()) + (("inplace",) if self.inplace else ())

    def describe(self) -> str:
        how = (f"in {len(self.chunks)} pieces of {self.chunks[0]} to {self.chunks[-1]} bytes (each size twice), "
               "then the rest" if self.chunks else "in one call")
        return how + (", in place" if self.inplace else ", into a separate buffer")


def bulk_feeds(p: Primitive, n: int) -> list[BulkFeed]:
    """The ways to feed an n-byte long answer as the timed loops do, tried in order until a
    runner honours one: in pieces and in place (the bulk loop itself), in pieces alone (a
    runner without in-place operation), in place alone (an API that takes a message in one
    call, as CCM's). XTS is not cut: a data unit is one call (IEEE 1619), as stream_chunks says.
    A hash is fed in pieces only, as its bulk loop updates one context: its output is a digest,
    with no buffer to write over the input."""
    if p.kind == PrimitiveKind.HASH:
        return [BulkFeed(bulk_pieces(p, n), False)]
    pieces = bulk_pieces(p, n) if p.mode != "xts" else ()
    return ([BulkFeed(pieces, True), BulkFeed(pieces, False)] if pieces else []) + [BulkFeed((), True)]


#: a long answer's request as the gate first asks it: one call, into a separate buffer
ONE_CALL = BulkFeed((), False)
