"""The runner conformance suite: conformance/cases.json against any runner.

A runner is conformant when every case passes for every implementation it
announces. Cases are data; this module only substitutes placeholders, sends
each request and compares the answer with the case's expectations.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from cipherbench import registry
from cipherbench.errors import RunnerError
from cipherbench.kinds import PrimitiveKind
from cipherbench.measure.runner import RunnerProcess, RunnerSpec
from cipherbench.paths import REPO

CASES = REPO / "conformance" / "cases.json"
PATTERN_1MIB = bytes(range(256)) * 4096  # byte i is i & 0xFF, for 1 MiB


@dataclass
class CaseResult:
    case: str
    impl: str
    passed: bool
    detail: str = ""


def _substitute(obj, subs: dict):
    if isinstance(obj, str):
        return subs.get(obj, obj)
    if isinstance(obj, dict):
        return {k: _substitute(v, subs) for k, v in obj.items()}
    return obj


def _check(resp: dict, expect: dict) -> str | None:
    """None if resp meets expect, else what is wrong."""
    st = resp.get("status")
    if "status" in expect and st != expect["status"]:
        return f"status {st!r}, expected {expect['status']!r} ({resp.get('message', '')})"
    if "status_in" in expect and st not in expect["status_in"]:
        return f"status {st!r}, expected one of {expect['status_in']}"
    if st == "ok" and "if_ok" in expect:  # what an ok answer must hold when other statuses may do
        why = _check(resp, expect["if_ok"])
        if why:
            return why
    for key in ("id", "protocol", "authentic", "output", "inplace"):
        if key in expect and resp.get(key) != expect[key]:
            got = resp.get(key)
            return f"{key} = {str(got)[:70]!r}, expected {str(expect[key])[:70]!r}"
    for key in expect.get("has", []):
        if key not in resp:
            return f"answer lacks '{key}'"
    for key in expect.get("absent", []):
        if key in resp:
            return f"answer has '{key}', which must be absent"
    if "message_contains" in expect and expect["message_contains"] not in str(resp.get("message", "")):
        return f"message {resp.get('message')!r} does not mention {expect['message_contains']!r}"
    if "ct_samples" in expect:  # ct-sample: one class (0 or 1) and one time per call
        n, cls, times = expect["ct_samples"], resp.get("classes"), resp.get("times")
        if not (isinstance(cls, list) and isinstance(times, list) and len(cls) == len(times) == n):
            return f"ct-sample must answer {n} classes and {n} times"
        if set(cls) - {0, 1} or not all(isinstance(t, int) and t >= 0 for t in times):
            return "ct-sample classes must be 0 or 1 and times non-negative integers"
    n = expect.get("ns_batches") or (expect.get("ns_batches_if_ok") if st == "ok" else None)
    if n:
        ns = resp.get("ns")
        if not isinstance(ns, list) or len(ns) != n or not all(isinstance(x, (int, float)) and x > 0 for x in ns):
            return f"ns = {ns!r}, expected {n} positive numbers"
        for clock in ("tsc", "core_cycles"):
            v = resp.get(clock)
            if v is not None and (not isinstance(v, list) or len(v) != n):
                return f"{clock} must be null or a list of {n}"
    return None


def check_hello(hello: dict, reg) -> list[str]:
    problems = []
    if hello.get("protocol") != 1:
        problems.append(f"protocol {hello.get('protocol')!r}, expected 1")
    names = set()
    for im in hello.get("implementations", []):
        n = im.get("name")
        if not n or n in names:
            problems.append(f"implementation name {n!r} missing or repeated")
        names.add(n)
        for p in im.get("primitives", []):
            pname = p.get("name") if isinstance(p, dict) else p
            if pname not in reg:
                problems.append(f"{n} offers {pname!r}, which is not in the registry")
        if im.get("available", True) and not im.get("version"):
            problems.append(f"{n} reports no version")
        if not im.get("available", True) and not im.get("reason"):
            problems.append(f"{n} is unavailable without a reason")
    return problems


def run_suite(spec: RunnerSpec, timeout: float = 60) -> list[CaseResult]:
    reg = registry.load()
    cases = json.loads(CASES.read_text())["cases"]
    proc = RunnerProcess(spec, timeout=timeout)
    results: list[CaseResult] = []
    try:
        hello = proc.request({"op": "hello"})
        for problem in check_hello(hello, reg):
            results.append(CaseResult("hello is valid", "-", False, problem))
        impls = [im for im in hello.get("implementations", []) if im.get("available", True)]
        offered = {im["name"]: {p["name"] if isinstance(p, dict) else p for p in im.get("primitives", [])}
                   for im in impls}
        anyimpl = impls[0]["name"] if impls else "none"
        unoffered = next((p.name for p in reg if p.name not in offered.get(anyimpl, set())
                          and p.kind == PrimitiveKind.CIPHER), "aes-128-cbc")
        base = {"$ANY": anyimpl, "$UNOFFERED": unoffered, "$PATTERN_1MIB": PATTERN_1MIB.hex(),
                "$SHA256_PATTERN_1MIB": hashlib.sha256(PATTERN_1MIB).hexdigest()}
        for case in cases:
            targets = [None]
            if "per_impl" in case:
                targets = [n for n, prims in offered.items() if case["per_impl"] in prims]
            for impl in targets:
                subs = dict(base, **({"$IMPL": impl} if impl else {}))
                try:
                    if "raw" in case:
                        resp = proc.request_raw(case["raw"])
                    else:
                        req = _substitute(case["request"], subs)
                        if "id" in req:
                            resp = proc.request_raw(json.dumps(req))
                        else:
                            resp = proc.request(req)
                    why = _check(resp, _substitute(case["expect"], subs))
                except RunnerError as e:
                    why = str(e)
                    results.append(CaseResult(case["name"], impl or "-", False, why))
                    proc = RunnerProcess(spec, timeout=timeout)  # go on with a fresh process
                    proc.request({"op": "hello"})
                    continue
                results.append(CaseResult(case["name"], impl or "-", why is None, why or ""))
    finally:
        proc.close()
    return results
