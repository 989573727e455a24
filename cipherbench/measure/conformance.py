"""The runner conformance suite: conformance/cases.json against any runner, then every
input the registry forbids (measure/forbidden.py) for every primitive each implementation
offers.

A runner is conformant when every case passes for every implementation it
announces. Cases are data; this module only substitutes placeholders, sends
each request and compares the answer with the case's expectations. The forbidden inputs
are generated from the registry's rules, so a new primitive or rule is asked without a
case written for it.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from cipherbench import registry
from cipherbench.errors import RunnerError
from cipherbench.kinds import PrimitiveKind
from cipherbench.measure import forbidden
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


def _restarted(spec: RunnerSpec, timeout: float) -> RunnerProcess:
    """A fresh process of spec, greeted, after one died or hung."""
    proc = RunnerProcess(spec, timeout=timeout)
    proc.request({"op": "hello"})
    return proc


def run_forbidden(proc: RunnerProcess, spec: RunnerSpec, offered: dict[str, set[str]], reg,
                  timeout: float = 60) -> tuple[list[CaseResult], RunnerProcess]:
    """Every input the registry forbids (measure/forbidden.py), for every primitive each
    implementation offers: one result per (implementation, primitive), failed with the
    requests that were not refused. Returns the process to go on with (a fresh one when
    this one died)."""
    results = []
    for impl, prims in offered.items():
        for pname in sorted(prims):
            p = reg.get(pname)
            if p is None:
                continue
            try:
                wrong = not_refused(proc, impl, p)
            except RunnerError as e:
                wrong = [f"the runner died: {e}"]
                proc.close()
                proc = _restarted(spec, timeout)
            results.append(CaseResult(f"refuses every input the registry forbids for {pname}", impl,
                                      not wrong, "; ".join(wrong[:4]) + (f" (and {len(wrong) - 4} more)"
                                                                          if len(wrong) > 4 else "")))
    return results, proc


def not_refused(proc: RunnerProcess, impl: str, p) -> list[str]:
    """What was not refused among p's forbidden inputs, asked of impl."""
    cases = forbidden.length_rules(p)
    seal = forbidden.sealing(p)
    asked = [dict(c.request, impl=impl) for c in cases] + ([dict(seal, impl=impl)] if seal else [])
    answers = proc.request_many(asked)
    wrong = [f"{c.what}: {why}" for c, r in zip(cases, answers) if (why := forbidden.refused(c, r))]
    sealed = _output(answers[-1]) if seal else None
    if sealed is not None and len(sealed) >= p.tag_bytes:
        forged = forbidden.forgeries(p, sealed)
        for c, r in zip(forged, proc.request_many([dict(c.request, impl=impl) for c in forged])):
            if why := forbidden.refused(c, r):
                wrong.append(f"{c.what}: {why}")
    return wrong


def _output(resp: dict) -> bytes | None:
    """An ok answer's output bytes; None for any other answer or one that is not hex."""
    try:
        return bytes.fromhex(resp["output"]) if resp.get("status") == "ok" else None
    except (KeyError, TypeError, ValueError):
        return None


def run_suite(spec: RunnerSpec, timeout: float = 60, forbidden_inputs: bool = True) -> list[CaseResult]:
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
                    proc.close()
                    proc = _restarted(spec, timeout)  # go on with a fresh process
                    continue
                results.append(CaseResult(case["name"], impl or "-", why is None, why or ""))
        if forbidden_inputs:
            more, proc = run_forbidden(proc, spec, offered, reg, timeout)
            results.extend(more)
    finally:
        proc.close()
    return results
