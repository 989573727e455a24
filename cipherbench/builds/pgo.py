"""Profile-guided builds, trained on the benchmark itself.

An instrumented build of the variant runs the matrix's experiment untimed: for every
implementation it announces and every (primitive, size) of the experiment it offers, one
`bench` request of three batches of about 2 MB each (docs/protocol.md), so the profile sees
the same ciphers, modes and sizes the timing will. The final build in the same tree then
uses that profile:

- gcc: -fprofile-generate, then -fprofile-use with the .gcda files the run left beside
  the objects (-fprofile-partial-training: code the training never ran is optimised as
  without a profile, not for size; gcc 10 and later).
- clang: -fprofile-instr-generate with LLVM_PROFILE_FILE, `llvm-profdata merge`, then
  -fprofile-instr-use=FILE (clang's user manual, "Profiling with Instrumentation").
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from cipherbench import registry
from cipherbench.builds.matrix import Family

BYTES_PER_BATCH = 2_000_000


def training_requests(hello: dict, training, reg) -> list[dict]:
    reqs = []
    for im in hello.get("implementations", []):
        offered = {p["name"] for p in im.get("primitives", []) if isinstance(p, dict)}
        for prim, size in training:
            p = reg.get(prim)
            if prim not in offered or p is None:
                continue
            size = size - size % p.block_bytes if p.whole_blocks and p.block_bytes else size
            if size <= 0:
                continue
            req = {"op": "bench", "impl": im["name"], "primitive": prim, "operation": "encrypt",
                   "size": size, "loops": max(1, BYTES_PER_BATCH // size), "batches": 3,
                   "key": "0f" * p.key_bytes}
            if p.iv_bytes:
                req["iv"] = "00" * p.iv_bytes
            reqs.append(req)
    return reqs


def train(engine: Path, training, log, env: dict | None = None) -> str:
    """Run the instrumented engine on the experiment; a line saying what it ran."""
    hello = subprocess.run([str(engine)], input='{"op":"hello","id":0}\n', capture_output=True, text=True,
                           env=env, timeout=120)
    try:
        announced = json.loads(hello.stdout.splitlines()[0])
    except (ValueError, IndexError):
        return "training failed: the instrumented engine did not answer hello"
    reqs = training_requests(announced, training, registry.load())
    text = "".join(json.dumps(dict(r, id=i)) + "\n" for i, r in enumerate(reqs, 1))
    out = subprocess.run([str(engine)], input=text, capture_output=True, text=True, env=env, timeout=1800)
    answers = [json.loads(ln) for ln in out.stdout.splitlines() if ln.strip()]
    ok = sum(1 for a in answers if a.get("status") == "ok")
    log.write(f"PGO training: {ok} of {len(reqs)} bench requests answered ok\n")
    return f"trained on {ok} of {len(reqs)} (implementation, primitive, size) of the experiment, untimed"


def build_with_profile(plan, tree: Path, log, jobs: int, compile_fn) -> tuple[bool, float, str]:
    """Instrument, train, rebuild with the profile; (success, CPU seconds of both builds, how trained)."""
    c = plan.variant.compiler
    engine = tree / "cipherbench-engine"
    for stale in list(tree.rglob("*.gcda")) + list(tree.glob("*.profraw")) if tree.exists() else []:
        stale.unlink()
    if c.family is Family.GCC:
        gen, gen_link = ["-fprofile-generate", "-fprofile-update=single"], ["-fprofile-generate"]
        env = None
    else:
        gen, gen_link = ["-fprofile-instr-generate"], ["-fprofile-instr-generate"]
        env = dict(os.environ, LLVM_PROFILE_FILE=str(tree / "pgo-%p.profraw"))
    ok, cpu = compile_fn(plan, tree, log, jobs, gen, gen_link)
    if not ok:
        return False, cpu, ""
    trained = train(engine, plan.training, log, env)
    if c.family is Family.GCC:
        use, use_link = ["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile"], ["-fprofile-use"]
    else:
        profdata = tree / "pgo.profdata"
        raws = sorted(str(p) for p in tree.glob("*.profraw"))
        merged = subprocess.run([c.profdata, "merge", "-o", str(profdata), *raws], stdout=log,
                                stderr=subprocess.STDOUT)
        if merged.returncode != 0 or not raws:
            log.write("PGO: no profile to merge\n")
            return False, cpu, trained
        use = [f"-fprofile-instr-use={profdata}", "-Wno-profile-instr-unprofiled", "-Wno-profile-instr-out-of-date"]
        use_link = []
    ok, cpu2 = compile_fn(plan, tree, log, jobs, use, use_link)
    return ok, cpu + cpu2, trained
