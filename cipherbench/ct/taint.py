"""The secret-taint check (TIMECOP-style): the engine's `--taint` mode under valgrind memcheck.

engine/src/taint.cpp marks the key (or the plaintext) undefined with valgrind's client
requests and runs key setup, encryption and decryption, announcing each phase with a
client message. memcheck then reports, with the origin of the value, every conditional
jump and every address computed from the secret; its XML output (valgrind's
docs/internals/xml-output-protocol4.txt) is read here, in document order, so each
report falls in the phase announced before it. Only reports whose value was created by
the client request count as findings: anything else is uninitialised memory of another
kind (counted, not a finding).

Valgrind runs the program on its own synthetic CPU and shows it its own CPUID (3.19:
AES-NI, PCLMUL and AVX2, no AVX-512), so a library may take another code path than it
takes natively; the provider the engine reports under valgrind is kept beside the native
one and a difference is marked (TaintResult.path_differs).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from cipherbench.codepath import Features
from cipherbench.ct.checks import FindingKind, Secret, TaintFinding, TaintResult, TaintVerdict, taint_verdict
from cipherbench.errors import CipherbenchError

#: memcheck error kinds (xml-output-protocol4.txt, "ERRORS" for memcheck) that are findings.
KINDS = {"UninitCondition": FindingKind.BRANCH, "UninitValue": FindingKind.INDEX}

#: memcheck options: origins for every uninitialised value (--track-origins), the precise
#: (and slower) definedness of additions and comparisons that optimised code needs to
#: avoid false reports (--expensive-definedness-checks), and no cap on distinct errors.
VALGRIND_OPTIONS = ["--tool=memcheck", "--xml=yes", "--track-origins=yes", "--expensive-definedness-checks=yes",
                    "--error-limit=no", "--leak-check=no", "--num-callers=16", "--child-silent-after-fork=yes"]

#: Frames of valgrind's own preloaded replacements (memcpy, memcmp, ...): the finding is
#: their caller's.
PRELOAD = "vgpreload_"

#: How long one run under valgrind may take (a library's start-up under memcheck takes
#: seconds; a cipher's three phases take milliseconds natively, 20-50 times that here).
TIMEOUT_S = float(os.environ.get("CIPHERBENCH_TAINT_TIMEOUT", "300"))


def valgrind() -> str:
    path = shutil.which("valgrind")
    if path is None:
        raise CipherbenchError("valgrind is not installed (Debian package valgrind; 'make deps' installs it)")
    return path


def check(engine: Path, impl: str, primitive: str, secret: Secret, native_provider: str = "",
          native_features: Features | None = None) -> TaintResult:
    """One (implementation, primitive, secret) under memcheck. Never raises for the
    implementation's failure: the result says it (verdict NOT_RUN, error)."""
    started = time.monotonic()
    result = TaintResult(impl, primitive, secret, TaintVerdict.NOT_RUN, native_provider=native_provider,
                         native_features=native_features)
    with tempfile.TemporaryDirectory(prefix="cb-taint-") as tmp:
        xml_path = Path(tmp) / "memcheck.xml"
        argv = [valgrind(), *VALGRIND_OPTIONS, f"--xml-file={xml_path}",
                str(engine), "--taint", impl, primitive, secret.value]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            result.error = f"valgrind did not finish within {TIMEOUT_S:.0f} s"
            return _timed(result, started)
        answer = _answer(proc.stdout)
        if proc.returncode != 0 or answer is None:
            tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
            result.error = f"exit status {proc.returncode}: {tail[:300] or 'no output'}"
            return _timed(result, started)
        if not answer.get("client_requests"):
            result.error = "the engine was built without <valgrind/memcheck.h>: nothing was marked"
            return _timed(result, started)
        try:
            findings, others = parse_xml(xml_path.read_text(errors="replace"))
        except (OSError, ET.ParseError) as e:
            result.error = f"cannot read memcheck's XML output: {e}"
            return _timed(result, started)
    result.findings, result.other_uninitialised = findings, others
    result.verdict = taint_verdict(findings)
    result.provider = str(answer.get("provider", ""))
    result.roundtrip = answer.get("roundtrip")
    result.phase_errors = dict(answer.get("phase_errors") or {})
    if result.roundtrip is False:
        result.error = "under valgrind, decryption did not give the message back"
    return _timed(result, started)


def _timed(result: TaintResult, started: float) -> TaintResult:
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _answer(stdout: str) -> dict | None:
    """The engine's one JSON line, or None."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def parse_xml(text: str) -> tuple[list[TaintFinding], int]:
    """memcheck's XML: the findings, in order, and how many uninitialised-value errors
    had an origin other than the marked secret."""
    root = ET.fromstring(text)
    phase, findings, others = "", [], 0
    for node in root:
        if node.tag == "clientmsg":
            msg = (node.findtext("text") or "").strip()
            if msg.startswith("cb-phase "):
                phase = msg.split(None, 1)[1]
        elif node.tag == "error":
            kind = KINDS.get(node.findtext("kind") or "")
            if kind is None:
                continue
            finding = _finding(node, kind, phase)
            if finding.secret_origin:
                findings.append(finding)
            else:
                others += 1
    return findings, others


def _finding(node: ET.Element, kind: FindingKind, phase: str) -> TaintFinding:
    frames = node.find("stack")
    frame = None
    for f in (frames if frames is not None else []):
        frame = f
        if PRELOAD not in (f.findtext("obj") or ""):
            break
    fn = obj = loc = ""
    if frame is not None:
        fn, obj = frame.findtext("fn") or "", frame.findtext("obj") or ""
        if frame.findtext("file"):
            loc = f"{frame.findtext('file')}:{frame.findtext('line') or '?'}"
    if fn in ("", "??"):  # a stripped library's internal function: name the nearest caller that has one
        named = next((f.findtext("fn") for f in (frames if frames is not None else [])
                      if f.findtext("fn") not in (None, "", "??")), None)
        fn = f"?? (called from {named})" if named else "??"
    # The origin: "Uninitialised value was created by a client request" (the marked secret)
    origin = " ".join(t.text or "" for t in node.iter() if t.tag in ("auxwhat", "what"))
    return TaintFinding(kind=kind, phase=phase, what=node.findtext("what") or "", function=fn, obj=obj,
                        location=loc, secret_origin="client request" in origin)
