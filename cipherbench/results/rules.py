"""The decisions every reader of stored points makes, each written once: which points a
speed table compares, which may be ranked as a library, how a size is written and which
size a whole-block size stands for. Reports, analysis and the commands ask here."""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cipherbench import registry
from cipherbench.kinds import Operation, PrimitiveKind, Untimed, Verdict, Workload
from cipherbench.registry import REFERENCE_IMPL

# results.run (and with it the store's SQLAlchemy) is imported by the rules on stored points
# when they are first asked: every command parses sizes here (cli/options.py), and those that
# never read the store (verify, fleet init, worker, scheduler) start without it.
if TYPE_CHECKING:
    from cipherbench.results.run import Measurement

#: Two figures of one point repeat when the larger is at most this much above the smaller:
#: the share by which runs of the same code on one host differ (benchmarks/README.md, noise).
#: So a comparison never calls a difference within it (analysis/compare.py, MARGIN), and the
#: answer never ranks two candidates within it (analysis/recommend.py, ranked_with_ties).
REPEAT_TOLERANCE = 0.03

#: A whole-block mode is timed at the largest whole number of blocks not above a size
#: (registry/experiments.toml): 16368 B stands for 16 KiB with a 24-byte block.
NEAR_SIZE = 0.9


def is_reference(impl: str, library: str = "") -> bool:
    """The project's own reference code, here or in a release environment (`<env>/reference`)."""
    return impl == REFERENCE_IMPL or impl.endswith(f"/{REFERENCE_IMPL}") or library == REFERENCE_IMPL


def is_parallel(m: Measurement) -> bool:
    """A point timed on several CPUs at once (run --parallel): its MB/s is one CPU's share
    under that load, shown in its own table, never ranked against libraries on one CPU."""
    return (m.parallel or 1) > 1


def is_bulk_speed(m: Measurement) -> bool:
    """A timed point of bulk encryption or hashing with a size: what speed rankings compare."""
    from cipherbench.results.run import usable
    return (usable(m) and m.size > 0 and m.workload is Workload.BULK
            and m.operation in (Operation.ENCRYPT, Operation.HASH))


def standing_workload(kinds: Collection[PrimitiveKind], timed: Iterable[Workload]) -> Workload:
    """Which workload's figure stands for a point (implementation, primitive, size) wherever
    one figure is shown for it (the answer, the run's summary, the report's overview): an
    AEAD's whole messages, each sealed with its own nonce, where they were timed (how AEADs
    are used; libsodium offers nothing else); else the bulk stream. `kinds`: the primitives'
    kinds the figures compare; `timed`: the workloads timed for them."""
    if PrimitiveKind.AEAD in kinds and Workload.MESSAGE in set(timed):
        return Workload.MESSAGE
    return Workload.BULK


def standing_points(measurements: Iterable[Measurement]) -> list[Measurement]:
    """The timed points of encryption or hashing with a size that stand for their point: per
    primitive, those of the workload standing_workload picks for what was timed of it."""
    from cipherbench.results.run import usable
    by_primitive: dict[str, list[Measurement]] = {}
    for m in measurements:
        if usable(m) and m.size > 0 and m.operation in (Operation.ENCRYPT, Operation.HASH):
            by_primitive.setdefault(m.primitive, []).append(m)
    reg = registry.load()
    out: list[Measurement] = []
    for name, points in by_primitive.items():
        p = reg.get(name)
        kinds = {PrimitiveKind(p.kind)} if p is not None else set()
        workload = standing_workload(kinds, (m.workload for m in points))
        out += [m for m in points if m.workload is workload]
    return out


def ranked_as_library(m: Measurement, verdict: Verdict | None = None, library: str = "") -> bool:
    """May this point stand in a ranking of libraries: it passed verification (`verdict`, the
    pair's, where the caller judges by pair; else the point's own), on one CPU at a time, and
    it is not the project's reference code (shown beside the libraries, never among them)."""
    passed = (verdict if verdict is not None else m.verified) == Verdict.PASSED
    return passed and not is_parallel(m) and not is_reference(m.impl, library)


def size_text(n: int) -> str:
    """16 -> "16 B", 16384 -> "16 KiB", 1048576 -> "1 MiB"; other sizes in bytes."""
    for unit, mult in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= mult and n % mult == 0:
            return f"{n // mult} {unit}"
    return f"{n} B"


#: The units a size may be given in, read case-insensitively: binary multiples, as
#: size_text writes them and the registry's sizes are. "kB" and "MB" are refused: they are
#: read as 1000 by some and 1024 by others.
SIZE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}
_SIZE = re.compile(r"\s*(\d+)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """"16", "16B", "1k", "16KiB", "1M", "1 MiB" -> bytes. ValueError, with what is taken,
    for anything else: the one reader of every option that takes a size."""
    m = _SIZE.fullmatch(text)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in SIZE_UNITS:
        hint = " (kB and MB are ambiguous: write 16k or 16KiB for 16384, 16000 for 16000)" \
            if unit in ("kb", "mb", "gb") else ""
        raise ValueError(f"{text.strip()!r} is not a size: bytes as 16, 16B, 1k, 16KiB, 1M or 1MiB{hint}")
    return int(m.group(1)) * SIZE_UNITS[unit]


def nominal_size(size: int) -> int:
    """The power of two a whole-block size stands for (16368 -> 16384); other sizes as they are."""
    up = 1 << max(0, math.ceil(math.log2(size)))
    return up if size >= NEAR_SIZE * up else size


@dataclass(frozen=True)
class PointCount:
    """A run's points: how many have figures, and how many do not, by kind (kinds.Untimed)
    with an example of each. What every count of a run's measurements says: `run`'s end,
    `show`, `report` and results.csv, whose rows are all the points."""

    timed: int = 0
    untimed: Counter[Untimed] = field(default_factory=Counter)
    example: dict[Untimed, str] = field(default_factory=dict)  # kind -> "impl primitive op/workload size: error"

    @property
    def rows(self) -> int:
        return self.timed + sum(self.untimed.values())

    @property
    def faults(self) -> int:
        """Points that could have been timed and were not: the ones that make a run incomplete."""
        return self.untimed[Untimed.FAULT]

    def text(self) -> str:
        """'792 points timed; 18 not timed: 18 unsupported by design (e.g. ...)'."""
        timed = f"{self.timed:,} points timed"
        if not self.untimed:
            return timed
        kinds = ", ".join(f"{n:,} {kind.value} (e.g. {self.example[kind]})" for kind, n in
                          sorted(self.untimed.items(), key=lambda kv: list(Untimed).index(kv[0])))
        return f"{timed}; {sum(self.untimed.values()):,} not timed: {kinds}"

    def short(self) -> str:
        """'792 points timed, 18 not timed (18 unsupported by design)': no examples."""
        if not self.untimed:
            return f"{self.timed:,} points timed"
        kinds = ", ".join(f"{n:,} {kind.value}" for kind, n in self.untimed.items())
        return f"{self.timed:,} points timed, {sum(self.untimed.values()):,} not timed ({kinds})"


def point_count(measurements: Iterable[Measurement]) -> PointCount:
    timed, untimed, example = 0, Counter[Untimed](), dict[Untimed, str]()
    for m in measurements:
        if m.untimed is None:
            timed += 1
            continue
        untimed[m.untimed] += 1
        where = " ".join(str(x) for x in (m.impl, m.primitive, f"{m.operation}/{m.workload}",
                                          size_text(m.size) if m.size else "") if x)
        example.setdefault(m.untimed, f"{where}: {m.error}")
    return PointCount(timed, untimed, example)
