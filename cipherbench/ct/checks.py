"""The side-channel checks as values: their methods and secrets, which apply to a pair
(checks_for), their typed results as stored (store.ct_results) and shown, and the rules that
make a verdict of them."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from cipherbench.codepath import Features
from cipherbench.kinds import PrimitiveKind

#: Welch's t thresholds named in every statistical result: the TVLA convention (Goodwill et
#: al., "A testing methodology for side-channel resistance validation", NIST NIAT 2011) and
#: dudect's (Reparaz, Balasch, Verbauwhede, DATE 2017: > 10 "probably", > 500 "definitely").
TVLA_T = 4.5
DUDECT_T = 10.0
DUDECT_DEFINITE_T = 500.0

#: Independent batches of the statistical test (ct/dudect.py): a leak is declared only when
#: every one shows it.
REPEATS = 2
#: A leak stands "well above the noise floor" when every batch reaches this many times the bar
#: (the larger of TVLA_T and the floor) at one test, with one sign. Measured on the project's
#: shared 2-CPU hosts, batches of 20,000 calls (docs/method.md, "Side channels"): the null
#: implementation's floor 1.0 to 2.7; OpenSSL's, Nettle's and ring's AES-128-GCM at most 4.1;
#: go-std's with a secret plaintext 2 to 21, its sign changing between batches; the planted
#: leak (engine/adapters/leaky) 248 to 300.
LEAK_OVER_FLOOR = 10.0


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


def checks_for(native: bool, kind: PrimitiveKind, methods: Iterable[Method] = tuple(Method),
               secrets: Iterable[Secret] = tuple(Secret)) -> list[tuple[Method, Secret]]:
    """The checks `cipherbench ct` can make of one pair, of those asked for: taint runs the native
    engine only; a hash's one secret is its message, which taint alone follows (ct-sample times
    ciphers). A language runner's hash has none: no check of ours applies to it."""
    secrets = list(secrets)
    return [(m, s) for m in methods if m != Method.TAINT or native
            for s in secrets if kind != PrimitiveKind.HASH or (m == Method.TAINT and s == Secret.PLAINTEXT)]


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
    # above the bar in a batch, or in the batches together, but not well above the host's
    # noise floor in every batch: on a shared core, not a verdict either way
    SUSPECT = "suspect: repeat on a quiet core"
    LEAK = f"leak: |t| over {LEAK_OVER_FLOOR:g} times the host's noise floor in each of {REPEATS} batches"
    # written by earlier versions, from one batch and no floor: still read (stat_standing)
    TVLA_LEAK = f"leak: |t| > {TVLA_T} (TVLA)"
    DUDECT_LEAK = f"leak: |t| > {DUDECT_T:g} (dudect: probably not constant time)"
    DUDECT_DEFINITE = f"leak: |t| > {DUDECT_DEFINITE_T:g} (dudect: definitely not constant time)"
    UNSUPPORTED = "runner does not offer ct-sample"
    NOT_RUN = "not checked"


class Standing(StrEnum):
    """What a statistical verdict amounts to, whichever version wrote it (stat_standing)."""
    NONE = "no leak detected"
    SUSPECT = "suspect"
    LEAK = "leak"
    NOT_CHECKED = "not checked"


#: The one reading of every statistical verdict. An earlier version's leak came from one batch
#: against a fixed threshold, never repeated nor set against the host's noise: suspect.
STANDING = {StatVerdict.NO_LEAK_DETECTED: Standing.NONE, StatVerdict.SUSPECT: Standing.SUSPECT,
            StatVerdict.LEAK: Standing.LEAK, StatVerdict.TVLA_LEAK: Standing.SUSPECT,
            StatVerdict.DUDECT_LEAK: Standing.SUSPECT, StatVerdict.DUDECT_DEFINITE: Standing.SUSPECT,
            StatVerdict.UNSUPPORTED: Standing.NOT_CHECKED, StatVerdict.NOT_RUN: Standing.NOT_CHECKED}


def stat_standing(verdict: str) -> Standing:
    """A stored verdict's standing; a value no version wrote is not a check."""
    try:
        return STANDING[StatVerdict(verdict)]
    except ValueError:
        return Standing.NOT_CHECKED


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
    native_features: Features | None = None  # that path as data (codepath.py); None: not announced
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
    measurements: int = 0       # timed calls kept, both classes, every batch
    max_t: float | None = None  # the largest |t| over the crops, in any batch
    crop: str = ""              # which crop gave it ("none", "cropped at p90", ..., "second order")
    timer: str = ""
    provider: str = ""
    seconds: float = 0.0
    error: str = ""
    batch_t: list[float] = field(default_factory=list)  # each batch's largest |t|
    combined_t: float | None = None  # the batches together: the largest |sum of t| / sqrt(batches)
    repeated_t: float | None = None  # the largest |t| every batch reached at one test, with one sign
    floor: float | None = None  # the noise floor measured alongside (dudect.REFERENCE); None: none was

    def statement(self) -> str:
        """One line that names the thresholds and never says constant-time of a pass."""
        if self.verdict in (StatVerdict.UNSUPPORTED, StatVerdict.NOT_RUN):
            return self.verdict.value + (f": {self.error}" if self.error else "")
        head = (f"no leak detected after {self.measurements:,} measurements"
                if self.verdict == StatVerdict.NO_LEAK_DETECTED else self.verdict.value)
        batches = " and ".join(f"{t:.1f}" for t in self.batch_t)
        floor = (f"noise floor {self.floor:.1f} (measured alongside)" if self.floor is not None
                 else "no noise floor measured")
        return (f"{head}; max |t| = {self.max_t:.2f} ({self.crop}), by batch {batches or '-'}; {floor}; "
                f"thresholds: TVLA {TVLA_T}, leak {leak_bar(self.floor):.1f} in every batch")


def suspect_bar(floor: float | None) -> float:
    """The |t| above which a batch, or the batches together, are suspect: TVLA's threshold, or
    the host's noise floor where its noise reaches further."""
    return max(TVLA_T, floor or 0.0)


def leak_bar(floor: float | None) -> float:
    """The |t| every batch must reach, at one test and with one sign, for a leak."""
    return LEAK_OVER_FLOOR * suspect_bar(floor)


def stat_verdict(largest_t: float, combined_t: float, repeated_t: float, floor: float | None) -> StatVerdict:
    """The statistical test's rule (StatResult has the figures). A leak only where every batch
    stands well above the host's noise floor measured at the same time; with no floor measured,
    nothing can stand above it. Anything above the suspect bar short of that is suspect."""
    if floor is not None and repeated_t >= leak_bar(floor):
        return StatVerdict.LEAK
    if max(largest_t, combined_t) > suspect_bar(floor):
        return StatVerdict.SUSPECT
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
                             "other_uninitialised": result.other_uninitialised,
                             "native_features": None if result.native_features is None
                             else [f.value for f in result.native_features]},
                    seconds=result.seconds, error=result.error or None)
    return dict(impl=result.impl, primitive=result.primitive, method=Method.STAT.value,
                secret=result.secret.value, verdict=result.verdict.value, provider=result.provider,
                measurements=result.measurements, max_t=result.max_t,
                details={"crop": result.crop, "timer": result.timer, "statement": result.statement(),
                         "batches": result.batch_t, "combined_t": result.combined_t,
                         "repeated_t": result.repeated_t, "floor": result.floor,
                         "thresholds": {"tvla": TVLA_T, "dudect": DUDECT_T, "dudect_definite": DUDECT_DEFINITE_T,
                                        "suspect": suspect_bar(result.floor), "leak": leak_bar(result.floor)}},
                seconds=result.seconds, error=result.error or None)
