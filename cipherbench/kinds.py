"""The closed vocabularies of cipherbench: what a primitive is, what is timed, how, and
what came of it. Each is a ``StrEnum`` whose values are the words the protocol, the
store, the registry and the results document use, so a member compares equal to
its word and is stored as it."""
from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class PrimitiveKind(StrEnum):
    """registry/primitives.toml's `kind`."""

    CIPHER = "cipher"  # a block cipher in an unauthenticated mode
    STREAM = "stream"
    AEAD = "aead"
    HASH = "hash"
    NULL = "null"  # the harness's own cost: a call that does nothing


class Operation(StrEnum):
    """What a timed call does (protocol `bench`, field `operation`)."""

    ENCRYPT = "encrypt"
    DECRYPT = "decrypt"
    DECRYPT_FORGED = "decrypt-forged"  # an AEAD open whose tag does not verify
    KEYSETUP = "keysetup"
    KEYSETUP_DECRYPT = "keysetup-decrypt"
    HASH = "hash"

    @property
    def is_keysetup(self) -> bool:
        """A key schedule alone: it has no message, so no size and no throughput."""
        return self in (Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT)

    @classmethod
    def timed(cls) -> tuple[Operation, ...]:
        """The operations a user may ask `run` for (hashes always run HASH)."""
        return tuple(o for o in cls if o is not cls.HASH)


class Workload(StrEnum):
    """How calls are strung together in a batch (docs/method.md, "Workloads")."""

    BULK = "bulk"  # one keyed context, one message, `loops` calls of `size` bytes
    MESSAGE = "message"  # every call a whole message: IV, associated data, data, tag
    REKEY = "rekey"  # `message` plus key setup every time


class CodeFeature(StrEnum):
    """What a code path uses: the instruction sets and the kind of code that do the work, as
    an implementation announces them per primitive (docs/protocol.md, `hello`, `features`).
    PORTABLE is the explicit none: compiled from a portable language (C, Rust, Go, Java,
    Python's C extensions, ...) for the baseline CPU, no hand-written assembly, no intrinsics.
    Declared in the order a label names them (codepath.code_label): the crypto instructions
    first, then the vector sets, then the kind of code."""

    VAES = "vaes"  # AES rounds on 256/512-bit vectors
    AES_NI = "aes-ni"
    VPCLMUL = "vpclmul"  # carry-less multiplication on 256/512-bit vectors
    PCLMUL = "pclmul"  # carry-less multiplication (GHASH, POLYVAL)
    SHA_NI = "sha-ni"  # x86's SHA-1/SHA-256 instructions
    GFNI = "gfni"
    ARMV8_CE = "armv8-ce"  # the ARMv8 cryptography extensions: AES, PMULL, SHA-1/SHA-2
    AVX512 = "avx512"
    AVX2 = "avx2"
    AVX = "avx"
    SSE41 = "sse4.1"
    SSSE3 = "ssse3"
    SSE2 = "sse2"
    BMI2 = "bmi2"
    NEON = "neon"
    ASM = "asm"  # hand-written assembly using none of the sets above (integer registers, tables)
    PORTABLE = "portable"  # none of the above: the explicit "nothing CPU-specific"


class CycleSource(StrEnum):
    """Where a measurement's cycles come from. The free-text detail (which clock
    range, how often it was read) is stored beside it, for people only."""

    COUNTER = "counter"  # a hardware core-cycle counter (perf_event)
    BATCH_CLOCK = "batch-clock"  # each batch's ns x the core clock measured around it
    RUN_CLOCK = "run-clock"  # ns x one core clock measured before and after the run
    NONE = "none"  # neither: no cycles


class Verdict(StrEnum):
    """A pair's verification outcome, as stored with each measurement."""

    PASSED = "passed"
    FAILED = "failed"
    UNVERIFIED = "unverified"  # no known answer it could run
    NOT_APPLICABLE = "n/a"  # the null primitive: nothing to verify

    @classmethod
    def shown(cls, verdict: str | None) -> bool:
        """Verified enough to show as a result: passed, or nothing to verify (the null
        primitive). None, a point never judged, is not."""
        return verdict in (cls.PASSED, cls.NOT_APPLICABLE)

    @classmethod
    def of_all(cls, verdicts: Iterable[str | None]) -> Verdict:
        """One verdict for several pairs shown together: failed if any failed, unverified if
        any is not shown as verified, else passed."""
        vs = set(verdicts)
        if cls.FAILED in vs:
            return cls.FAILED
        return cls.UNVERIFIED if any(not cls.shown(v) for v in vs) else cls.PASSED


class RunKind(StrEnum):
    """What a stored run holds, as the command that made it says (runs.kind)."""

    SPEED = "speed"  # `run`: a profile or an experiment timed on this machine
    CT = "ct"  # `ct`: side-channel checks, no timed points
    BUILDS = "builds"  # `builds run`: compiler x flag variants timed beside the ordinary build
    FLEET = "fleet"  # one machine's run of `fleet run`

    @property
    def timed(self) -> bool:
        """Its measurements are figures that show, report, compare and recommend read."""
        return self is not RunKind.CT


class Untimed(StrEnum):
    """Why a planned point has no figures. Only a FAULT counts against a run (it could have
    been timed: its run is incomplete and `run` exits 1); the others are said apart, with
    their reason: the gate working, and a limit a runner states."""

    FAILED_VERIFICATION = "failed verification"  # the pair failed the gate: never timed
    UNSUPPORTED = "unsupported by design"  # the runner answered `unsupported`: not offered that way
    FAULT = "could not be timed"  # a runner's error, a lost runner, an interruption

    @classmethod
    def of(cls, error: str | None, verified: str | None, unsupported: bool | None = None) -> Untimed | None:
        """The one rule: a point with an error failed verification, was unsupported by its
        runner, or is a fault; None: it has figures. `unsupported` None: not known (a
        document written before it was recorded): a fault unless it failed verification."""
        if error is None:
            return None
        if verified == Verdict.FAILED:
            return cls.FAILED_VERIFICATION
        return cls.UNSUPPORTED if unsupported else cls.FAULT


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETE = "complete"
    FAILED = "failed"  # ended by an error; what was timed before it is kept
    INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM; what was timed is kept
    DEAD = "dead"  # found still "running" with no process behind it (kill -9, power loss)
    INCOMPLETE = "incomplete"  # ran to the end, but a runner died or points failed


#: The runs that ran to the end: what a finding or a step is judged on.
FINISHED = (RunStatus.COMPLETE, RunStatus.INCOMPLETE)
