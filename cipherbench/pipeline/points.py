"""The points of a run plan: every (implementation, primitive, operation, workload, size)
the session's runners offer, and the harness's own cost beside them."""
from __future__ import annotations

from dataclasses import replace

from cipherbench import registry
from cipherbench.envs.plan import offered
from cipherbench.kinds import Operation, PrimitiveKind, Verdict, Workload
from cipherbench.measure.point import Point
from cipherbench.measure.session import Session
from cipherbench.pipeline.plan import RunPlan
from cipherbench.registry import NULL_IMPL, NULL_PRIMITIVE


def whole_block_sizes(p: registry.Primitive, sizes: list[int]) -> list[int]:
    """The sizes a primitive is timed at. Modes that take whole blocks (ECB, CBC, XTS) get
    the largest whole number of blocks not above each size, so a 24-byte-block Rijndael is
    timed at 16,368 bytes for 16 KiB instead of not at all; a size below one block is left out."""
    if not p.whole_blocks:
        return list(sizes)
    out = [s - s % p.block_bytes for s in sizes]
    return list(dict.fromkeys(s for s in out if s > 0))


def operations_for(p: registry.Primitive, asked: list[Operation]) -> list[Operation]:
    """Hashes always hash; a forged decryption only exists for an AEAD."""
    if p.kind == PrimitiveKind.HASH:
        return [Operation.HASH]
    return [o for o in asked if o is not Operation.DECRYPT_FORGED or p.kind == PrimitiveKind.AEAD]


def plan_points(s: Session, plan: RunPlan) -> list[Point]:
    """Every point of the plan the session offers, in a stable order, the null primitive's
    (the harness's own cost, measured the same way) last."""
    points = []
    for im, p in s.pairs(offered(s, plan.implementations), plan.primitives):
        if p.kind == PrimitiveKind.NULL:
            continue
        for op in operations_for(p, plan.operations):
            for wl in plan.workloads_for(PrimitiveKind(p.kind)):
                if p.kind == PrimitiveKind.HASH and wl is Workload.REKEY:
                    continue
                for size in ([0] if op.is_keysetup else whole_block_sizes(p, plan.sizes)):
                    points.append(Point(im.name, p, op, wl, size, provider=im.primitives.get(p.name, ""),
                                        features=im.features.get(p.name)))
    if plan.parallel > 1:  # each point also on parallel CPUs at once, beside itself on one
        points += [replace(pt, parallel=plan.parallel, raw=[]) for pt in points
                   if s.parallel_of(pt.impl) == plan.parallel]
    for im in s.impls.values():
        if im.available and NULL_PRIMITIVE in im.primitives and (not plan.implementations
                                                                 or NULL_IMPL in plan.implementations):
            for size in plan.sizes:
                points.append(Point(im.name, s.reg["null"], Operation.ENCRYPT, Workload.BULK, size,
                                    provider=im.primitives["null"], features=im.features.get("null"),
                                    verified=Verdict.NOT_APPLICABLE))
    return points
