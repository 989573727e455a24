"""The typed results of the side-channel checks, as stored (store.ct_results) and shown."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

#: Welch's t thresholds named in every statistical result: the TVLA convention (Goodwill et
#: al., "A testing methodology for side-channel resistance validation", NIST NIAT 2011) and
#: dudect's (Reparaz, Balasch, Verbauwhede, DATE 2017: > 10 "probably", > 500 "definitely").
TVLA_T = 4.5
DUDECT_T = 10.0
DUDECT_DEFINITE_T = 500.0


class Method(StrEnum):
    TAINT = "taint"
    STAT = "stat"


class Secret(StrEnum):
    """What is secret in one check: the key, or the plaintext (the key then public)."""
    KEY = "key"
    PLAINTEXT = "plaintext"


class FindingKind(StrEnum):
    """memcheck's two uninitialised-value reports, read as TIMECOP reads them."""
    BRANCH = "branch"  # "Conditional jump or move depends on uninitialised value(s)"
    INDEX = "index"    # "Use of uninitialised value of size N": an address computed from it


#: The taint phase of an AEAD's tag computation and comparison (engine/src/taint.cpp).
VERIFY_PHASE = "verify"


class TaintVerdict(StrEnum):
    CLEAN = "nothing secret-dependent seen"
    INDEX = "secret-dependent memory index"
    BRANCH = "secret-dependent branch"
    BRANCH_AND_INDEX = "secret-dependent branch and memory index"
    NOT_RUN = "not checked"


class StatVerdict(StrEnum):
    NO_LEAK_DETECTED = "no leak detected"
    TVLA_LEAK = f"leak: |t| > {TVLA_T} (TVLA)"
    DUDECT_LEAK = f"leak: |t| > {DUDECT_T:g} (dudect: probably not constant time)"
    DUDECT_DEFINITE = f"leak: |t| > {DUDECT_DEFINITE_T:g} (dudect: definitely not constant time)"
    UNSUPPORTED = "runner does not offer ct-sample"
    NOT_RUN = "not checked"


@dataclass
class TaintFinding:
    kind: FindingKind
    phase: str            # keysetup, encrypt, decrypt (engine/src/taint.cpp)
    what: str             # memcheck's own words
    function: str
    obj: str              # the object file (library) of the first frame
    location: str = ""    # file:line where debug information says
    secret_origin: bool = True  # the value came from the client request that marked the secret

    @property
    def on_public_outcome(self) -> bool:
        """A branch in an AEAD's tag check (engine/src/taint.cpp, phase verify): on a value
        derived from the key, but one whose outcome, accept or reject, the caller learns
        anyway. TIMECOP declassifies the same comparison. Memory indexes there still count."""
        return self.kind is FindingKind.BRANCH and self.phase == VERIFY_PHASE

    def where(self) -> str:
        lib = self.obj.rsplit("/", 1)[-1]
        return f"{self.function or '??'} ({lib}{', ' + self.location if self.location else ''})"


@dataclass
class TaintResult:
    impl: str
    primitive: str
    secret: Secret
    verdict: TaintVerdict
    findings: list[TaintFinding] = field(default_factory=list)
    provider: str = ""          # the code path the library announced under valgrind
    native_provider: str = ""   # the one it announces natively, which the speed figures time
    roundtrip: bool | None = None  # decryption gave the message back under valgrind
    phase_errors: dict = field(default_factory=dict)  # memcheck's error count per phase
    other_uninitialised: int = 0  # errors whose origin is not the secret (not findings)
    seconds: float = 0.0
    error: str = ""

    @property
    def path_differs(self) -> bool:
        return bool(self.provider and self.native_provider and self.provider != self.native_provider)

    @property
    def first(self) -> TaintFinding | None:
        """The first finding the verdict counts (a branch on a tag check's outcome does not)."""
        return next((f for f in self.findings if f.secret_origin and not f.on_public_outcome), None)


@dataclass
class StatResult:
    impl: str
    primitive: str
    secret: Secret              # the class that varies: random key, or random plaintext
    verdict: StatVerdict
    measurements: int = 0       # timed calls kept, both classes
    max_t: float | None = None  # the largest |t| over the crops
    crop: str = ""              # which crop gave it ("none", "p90", ..., "second order")
    timer: str = ""
    provider: str = ""
    seconds: float = 0.0
    error: str = ""

    def statement(self) -> str:
        """One line that names the thresholds and never says constant-time of a pass."""
        if self.verdict in (StatVerdict.UNSUPPORTED, StatVerdict.NOT_RUN):
            return self.verdict.value + (f": {self.error}" if self.error else "")
        head = (f"no leak detected after {self.measurements:,} measurements"
                if self.verdict == StatVerdict.NO_LEAK_DETECTED else self.verdict.value)
        return (f"{head}; max |t| = {self.max_t:.2f} ({self.crop}); thresholds: TVLA {TVLA_T}, "
                f"dudect {DUDECT_T:g}")


def stat_verdict(max_t: float) -> StatVerdict:
    if max_t > DUDECT_DEFINITE_T:
        return StatVerdict.DUDECT_DEFINITE
    if max_t > DUDECT_T:
        return StatVerdict.DUDECT_LEAK
    if max_t > TVLA_T:
        return StatVerdict.TVLA_LEAK
    return StatVerdict.NO_LEAK_DETECTED


def taint_verdict(findings: list[TaintFinding]) -> TaintVerdict:
    kinds = {f.kind for f in findings if f.secret_origin and not f.on_public_outcome}
    if kinds == {FindingKind.BRANCH, FindingKind.INDEX}:
        return TaintVerdict.BRANCH_AND_INDEX
    if FindingKind.BRANCH in kinds:
        return TaintVerdict.BRANCH
    if FindingKind.INDEX in kinds:
        return TaintVerdict.INDEX
    return TaintVerdict.CLEAN


def as_row(result: TaintResult | StatResult) -> dict:
    """The store's row (store.ct_results) of one result."""
    if isinstance(result, TaintResult):
        first = result.first
        return dict(impl=result.impl, primitive=result.primitive, method=Method.TAINT.value,
                    secret=result.secret.value, verdict=result.verdict.value, provider=result.provider,
                    native_provider=result.native_provider, path_differs=result.path_differs,
                    first_kind=first.kind.value if first else None, first_phase=first.phase if first else None,
                    first_where=first.where() if first else None,
                    findings=[dict(asdict(f), kind=f.kind.value) for f in result.findings],
                    details={"roundtrip": result.roundtrip, "phase_errors": result.phase_errors,
                             "other_uninitialised": result.other_uninitialised},
                    seconds=result.seconds, error=result.error or None)
    return dict(impl=result.impl, primitive=result.primitive, method=Method.STAT.value,
                secret=result.secret.value, verdict=result.verdict.value, provider=result.provider,
                measurements=result.measurements, max_t=result.max_t,
                details={"crop": result.crop, "timer": result.timer, "statement": result.statement(),
                         "thresholds": {"tvla": TVLA_T, "dudect": DUDECT_T, "dudect_definite": DUDECT_DEFINITE_T}},
                seconds=result.seconds, error=result.error or None)
