"""A measurement's point: what is timed (implementation, primitive, operation, workload,
size), the raw batches it got, and the `bench` request that times it."""
from __future__ import annotations

from dataclasses import dataclass, field

from cipherbench.codepath import Features
from cipherbench.kinds import PrimitiveKind, Untimed
from cipherbench.registry import Primitive
from cipherbench.variant import with_parallel

# what a runner that did not echo a convention field failed to do
IGNORED = {"inplace": "encryption into a separate output buffer", "repeat_iv": "messages from one repeated IV"}


@dataclass
class Point:
    impl: str
    primitive: Primitive
    operation: str
    workload: str
    size: int
    provider: str = ""
    features: Features | None = None  # the code path as data (codepath.py); None: not announced
    loops: int = 0
    raw: list = field(default_factory=list)  # dicts: warmup, loops, ns, tsc, core_cycles, core_ghz
    error: str | None = None
    verified: str = "unverified"
    extra_batches: int = 0  # timed batches added because the median was still uncertain
    # timed on this many CPUs at once (Session.ask_parallel): each batch's samples carry every
    # CPU's ns in `parallel_ns`; stored under `stored_name`, beside the same point on one CPU
    parallel: int = 1
    unsupported: bool = False  # the runner answered `unsupported`: not offered that way, not a fault
    note: str | None = None  # said with the point's warnings (e.g. why it is unverified at its size)
    off_line: str | None = None  # planned sizes: how its median departs from its series' line
    requests: int = 0  # timed requests so far: each asks for its sub-batches at once (Measurer.sub_batches)

    @property
    def stored_name(self) -> str:
        return with_parallel(self.impl, self.parallel)

    @property
    def untimed(self) -> Untimed | None:
        """Why the point has no figures (kinds.Untimed), or None."""
        return Untimed.of(self.error, self.verified, self.unsupported)
    # encryption written to a second buffer (protocol `bench` field `inplace: false`); a
    # runner that does not echo it timed in place, and the point is refused (_batch)
    separate_output: bool = False
    # the IV or initial counter the timed calls start from; None: byte i is 0xa0 + i
    iv: bytes | None = None
    # every message starts from `iv` instead of the next nonce (protocol `bench` field
    # `repeat_iv`), as bench-slope's CTR rows restart at zero; refused without the echo
    repeat_iv: bool = False

    def conventions(self) -> dict[str, bool]:
        """The bench fields this point asks for that a runner must echo to have honoured them."""
        asked = {"inplace": False} if self.separate_output else {}
        return asked | ({"repeat_iv": True} if self.repeat_iv else {})

    @property
    def label(self) -> str:
        return f"{self.impl} {self.primitive.name} {self.operation}/{self.workload} {self.size} B"

    def request(self, loops: int, batches: int = 1, warmup_ms: int | None = None,
                stack_offset: int | None = None) -> dict:
        p = self.primitive
        req = {"op": "bench", "primitive": p.name, "operation": self.operation,
               "workload": self.workload, "size": self.size, "loops": loops, "batches": batches}
        if warmup_ms is not None:
            req["warmup_ms"] = int(warmup_ms)
        if stack_offset is not None:
            req["stack_offset"] = int(stack_offset)
        req.update(self.conventions())
        if p.kind != PrimitiveKind.HASH:
            # byte i of the key is i + 1, of the IV 0xa0 + i, both mod 256 (Threefish-1024's are
            # 128 bytes long)
            req["key"] = bytes((1 + i) & 0xFF for i in range(p.key_bytes)).hex()
            if p.iv_bytes:
                iv = self.iv if self.iv is not None else bytes((0xA0 + i) & 0xFF for i in range(p.iv_bytes))
                req["iv"] = iv.hex()
        return req


def requests_of(batches: list[dict]) -> int:
    """The timed requests the batches came in (several batches a request, measurer.split; a
    batch without its request, from an older store, counts as one)."""
    return len({s.get("request") for s in batches} - {None}) + sum(1 for s in batches if s.get("request") is None)
