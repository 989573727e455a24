"""The verification gate: nothing is timed until it has shown it computes the right thing.

Checks per (implementation, primitive):
  kat           known answers from every corpus that has the primitive (encrypt
                and decrypt, or hash), counted per corpus; every AEAD a model computes
                gets `model` ones in each pair of AD and message length classes, with
                forged tags to reject, and DESX with none from a published corpus gets
                some, over a verified ECB oracle where the model needs one
                (cipherbench/kat/model_oracle.py);
                answers computed over an oracle never vouch for the oracle itself
                (KnownAnswer.over): they are checked there, not counted as verifying it;
  roundtrip     decrypt(encrypt(m)) == m for deterministic messages of many lengths;
  differential  the same deterministic inputs through every implementation of
                the primitive give the same output (the group that agrees with
                the known answers, else the largest group, is right);
  forgery       AEADs: its own ciphertext with a bit of the tag's first or last byte, of the
                ciphertext's first byte or of the AD's changed is rejected;
                AEAD known answers marked expect_reject (CAVP FAIL, Wycheproof invalid)
                must be rejected too;
  streaming     the same message fed in pieces (protocol field `chunks`) gives the
                one-call output (a different output fails); a runner that cannot take
                pieces (unsupported, or an error saying why) is recorded as
                checks["streaming_not_checked"] with its reason, not as a failure;
  inplace       the same message with the output written over the input (protocol
                field `inplace`) gives the same output, encrypting and decrypting; a
                runner that does not offer it is recorded as checks["inplace_not_checked"];
  long_bulk     every long answer that passed in one call is asked again fed as the timed
                bulk loop feeds a message (bulk_feeds: pieces of every size timed, in
                place) and compared with the same answer; a runner that offers neither
                way is recorded as checks["long_bulk_not_checked"].
An `unsupported` answer to one known answer (a DES weak key the library refuses, a
64 KiB AAD beyond its CCM) is a skip, kept with its reason, never a failure.
A pair passes when every check it ran passed and at least one known answer of its
own passed (a rejected forgery alone proves nothing: rejecting everything would pass);
it is 'unverified' when it has no known answer, or every one was skipped, however many
implementations it agrees with; 'failed' otherwise, with a minimal reproduction.
"""
from __future__ import annotations

import hashlib
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum

from cipherbench.errors import RunnerError
from cipherbench.kat import corpora, iterated
from cipherbench.kat.collect import batch_lengths, det_bytes
from cipherbench.kat.corpora import carry as model_carry
from cipherbench.kat.corpora import every_byte
from cipherbench.kat.corpora.long_answers import LARGEST, long_size
from cipherbench.kat.model_oracle import ModelCorpus, forged_tags, oracle_primitives
from cipherbench.kat.vectors import KnownAnswer, LongAnswer
from cipherbench.kinds import Operation, PrimitiveKind, Verdict
from cipherbench.registry import Primitive


class Unsupported(Exception):
    """The runner answered `unsupported` to one request (docs/protocol.md: not a failure)."""


class _StepFailed(Exception):
    """One encryption inside an iterated procedure answered an error."""


class UnverifiedReason(StrEnum):
    ALL_SKIPPED = "all-skipped"
    ONLY_FORGERIES = "only-forgeries"
    ONLY_OWN_ORACLE = "only-own-oracle"
    NO_KNOWN_ANSWER = "no-known-answer"

    @property
    def sentence(self) -> str:
        return {UnverifiedReason.ALL_SKIPPED: "every known answer was skipped (the runner answered unsupported)",
                UnverifiedReason.ONLY_FORGERIES: "its corpora hold only forgeries to reject, no known answer",
                UnverifiedReason.ONLY_OWN_ORACLE: ("its only known answers were computed over its own ECB "
                                                   "(it is the models' oracle), which cannot vouch for it"),
                UnverifiedReason.NO_KNOWN_ANSWER: "no corpus has a known answer for it"}[self]


def first_difference(expected: object, actual: object) -> str | None:
    """Where two outputs part: "byte 3: expected 0x1f, got 0x3c" (or where one ends); None
    unless both are bytes and differ. A byte-order or alignment fault shows in the first word."""
    if not isinstance(expected, bytes) or not isinstance(actual, bytes) or expected == actual:
        return None
    i = next((i for i, (e, a) in enumerate(zip(expected, actual, strict=False)) if e != a), None)
    if i is not None:
        return f"byte {i}: expected 0x{expected[i]:02x}, got 0x{actual[i]:02x}"
    n = min(len(expected), len(actual))
    return f"byte {n}: expected {len(expected)} bytes, got {len(actual)}"


@dataclass
class PairResult:
    impl: str
    primitive: str
    checks: dict = field(default_factory=lambda: defaultdict(int))
    corpus_counts: dict = field(default_factory=lambda: defaultdict(int))  # KATs passed, per corpus
    skipped_counts: dict = field(default_factory=lambda: defaultdict(int))  # KATs skipped, per corpus
    skips: list = field(default_factory=list)  # the first few skipped KATs, with the runner's reason
    failures: list = field(default_factory=list)
    vouched: bool = False  # a known answer of its own passed
    agrees_with_verified: set = field(default_factory=set)  # passed implementations with its outputs
    model_oracle: str | None = None  # the ECB oracle of its `model` known answers (model_oracle.py)
    no_model_because: str | None = None  # why a modelled primitive got no `model` known answers
    # the longest message of a known answer it passed: timing a larger size times unverified code
    verified_bytes: int = 0

    @property
    def status(self) -> str:
        if self.failures:
            return "failed"
        return "passed" if self.vouched else "unverified"

    @property
    def unverified_reason(self) -> UnverifiedReason | None:
        """Why a pair has no known answer of its own, as a value (the sentence follows from it)."""
        if self.status != Verdict.UNVERIFIED:
            return None
        if self.skipped_counts:
            return UnverifiedReason.ALL_SKIPPED
        if self.checks.get("kat_reject"):
            return UnverifiedReason.ONLY_FORGERIES
        if self.checks.get("kat_own_oracle"):
            return UnverifiedReason.ONLY_OWN_ORACLE
        return UnverifiedReason.NO_KNOWN_ANSWER

    @property
    def unverified_because(self) -> str | None:
        reason = self.unverified_reason
        if reason is None:
            return None
        why = reason.sentence
        if reason is UnverifiedReason.NO_KNOWN_ANSWER and self.no_model_because:
            why += f", and no model computed one: {self.no_model_because}"
        if self.agrees_with_verified:
            why += f"; it agrees with {', '.join(sorted(self.agrees_with_verified))}"
        return why

    def fail(self, check: str, **repro):
        if len(self.failures) < 5:  # the first few are what a reader needs
            first = first_difference(repro.get("expected"), repro.get("actual"))
            self.failures.append({"check": check, "impl": self.impl, "primitive": self.primitive,
                                  **{k: (v.hex() if isinstance(v, bytes) else v) for k, v in repro.items()},
                                  **({"first_difference": first} if first else {})})

    def passed_answer(self, corpus: str, message_bytes: int, over: str):
        """A known answer of its own passed: it vouches, and says how long a message was
        checked, unless it was computed over this implementation's own output (its `over`),
        which is then only counted (checks["kat_own_oracle"]): consistent, not independent."""
        self.corpus_counts[corpus] += 1
        if over == self.impl:
            self.checks["kat_own_oracle"] += 1
            return
        self.vouched = True
        self.verified_bytes = max(self.verified_bytes, message_bytes)

    def skip(self, corpus: str, vector: str, source: str, reason: str):
        self.checks["kat_skipped"] += 1
        self.skipped_counts[corpus] += 1
        if len(self.skips) < 5:
            self.skips.append({"corpus": corpus, "vector": vector, "source": source, "reason": reason})

    def as_row(self) -> dict:
        checks = dict(self.checks)
        checks["kat_by_corpus"] = dict(self.corpus_counts)
        if self.skipped_counts:
            checks["kat_skipped_by_corpus"] = dict(self.skipped_counts)
            checks["kat_skips"] = self.skips
        if self.unverified_because:
            checks["unverified_because"] = self.unverified_because
            checks["unverified_reason"] = self.unverified_reason
        if self.model_oracle:
            checks["model_oracle"] = self.model_oracle
        if self.status == Verdict.PASSED:
            checks["verified_up_to_bytes"] = self.verified_bytes
        return {"impl": self.impl, "primitive": self.primitive, "status": self.status,
                "checks": checks, "failures": self.failures}


def message_lengths(p: Primitive) -> list[int]:
    """The round trips' lengths, which the differential check compares across implementations:
    a few of each primitive's own, and those at and after each batch width of its block
    (collect.batch_lengths: 2, 4, 8 and 16 blocks, whole and not), where a bulk path hands
    over to its tail; a stream cipher's block is its 64-byte keystream block."""
    if p.kind == PrimitiveKind.HASH:
        own = [0, 1, 3, 55, 56, 63, 64, 65, 127, 128, 129, 200, 1000, 4097]
    elif p.whole_blocks:
        b = p.block_bytes
        own = [b, 2 * b, 3 * b, 7 * b, 64 * b] if p.mode != "xts" else [b, 2 * b, 5 * b, 64 * b]
    else:
        own = [0, 1, 15, 16, 17, 63, 64, 65, 100, 1000, 4099]
    if p.kind not in (PrimitiveKind.HASH, PrimitiveKind.CIPHER, PrimitiveKind.STREAM, PrimitiveKind.AEAD):
        return own
    unit = p.block_bytes or 64
    return sorted(set(own) | set(batch_lengths(unit, partial=not p.whole_blocks)))


def stream_chunks(p: Primitive, n: int) -> list[list[int]] | None:
    """Ways to cut an n-byte message for the streaming check, tried in order until a
    runner takes one; None to skip this length.
    Stream-like modes, stream ciphers and AEADs (n = 100): pieces of 1, 15 and 17 bytes, then
    the rest; failing that, whole blocks (16 and 32 bytes; 64 for stream ciphers), as the
    bulk workload feeds them. Whole-block modes (n = 7 blocks): one block, two, the rest.
    XTS is not cut: a data unit is one call in the libraries' APIs (IEEE 1619 tweaks each
    data unit)."""
    if p.kind not in (PrimitiveKind.CIPHER, PrimitiveKind.STREAM, PrimitiveKind.AEAD) or p.mode == "xts":
        return None
    if p.whole_blocks:
        b = p.block_bytes
        return [[b, 2 * b]] if n == 7 * b else None
    if n != 100:
        return None
    b = p.block_bytes or 64
    return [[1, 15, 17], [b, 2 * b] if 3 * b <= n else [b]]


def inplace_length(p: Primitive) -> int:
    """The message length of the in-place check, one of the round-trip lengths: three
    blocks for whole-block modes (XTS: five), else 100 bytes (a partial block included)."""
    if p.kind == PrimitiveKind.HASH:
        return -1
    if p.whole_blocks:
        return 3 * p.block_bytes if p.mode != "xts" else 5 * p.block_bytes
    return 100


#: the smallest size a profile times (registry/experiments.toml): the first piece of bulk_pieces
SMALLEST_PIECE = 16


def bulk_pieces(p: Primitive, n: int) -> tuple[int, ...]:
    """The pieces (protocol field `chunks`) an n-byte message is cut into to be fed as the timed
    loops feed theirs. A `bulk` batch of `bench` hands one keyed context `size` bytes per call,
    call after call, in place (docs/protocol.md, `bench`; the engine's update_many), at sizes
    that are powers of two from 16 bytes. Here two calls of each such size, smallest first, as
    long as both fit, then the rest in one more call: every call size a bulk loop makes below n,
    a repeat of each (a library's steady state between equal calls) and each change from one
    size to the next, in one request of a few dozen numbers. Whole-block modes get whole blocks
    (a size rounded up to the block, then doubled); a megabyte is 30 pieces of 16 B to
    256 KiB, then 32 bytes."""
    unit = p.block_bytes if p.whole_blocks else 1
    size = -(-SMALLEST_PIECE // unit) * unit
    pieces: list[int] = []
    left = n
    while 2 * size <= left:
        pieces += [size, size]
        left -= 2 * size
        size *= 2
    return tuple(pieces)


@dataclass(frozen=True)
class BulkFeed:
    """One way of feeding a message as the timed loops do: in pieces (`chunks`; none: one
    call), and with the output written over the input (`inplace`)."""

    chunks: tuple[int, ...]
    inplace: bool

    def fields(self) -> dict:
        """The request's optional fields (docs/protocol.md, `encrypt`)."""
        return {**({"chunks": list(self.chunks)} if self.chunks else {}),
                **({"inplace": True} if self.inplace else {})}

    def echoes(self) -> tuple[str, ...]:
        """The answer's fields that say the runner honoured them."""
        return (("chunked",) if self.chunks else ()) + (("inplace",) if self.inplace else ())

    def describe(self) -> str:
        how = (f"in {len(self.chunks)} pieces of {self.chunks[0]} to {self.chunks[-1]} bytes (each size twice), "
               "then the rest" if self.chunks else "in one call")
        return how + (", in place" if self.inplace else ", into a separate buffer")


def bulk_feeds(p: Primitive, n: int) -> list[BulkFeed]:
    """The ways to feed an n-byte long answer as the timed loops do, tried in order until a
    runner honours one: in pieces and in place (the bulk loop itself), in pieces alone (a
    runner without in-place operation), in place alone (an API that takes a message in one
    call, as CCM's). XTS is not cut: a data unit is one call (IEEE 1619), as stream_chunks says.
    A hash is fed in pieces only, as its bulk loop updates one context: its output is a digest,
    with no buffer to write over the input."""
    if p.kind == PrimitiveKind.HASH:
        return [BulkFeed(bulk_pieces(p, n), False)]
    pieces = bulk_pieces(p, n) if p.mode != "xts" else ()
    return ([BulkFeed(pieces, True), BulkFeed(pieces, False)] if pieces else []) + [BulkFeed((), True)]


#: How long a runner may take to answer a long answer's request: the usual two minutes, and
#: four more per MiB of message. A MiB of CFB8 is a million block-cipher calls, and a runtime
#: that makes each one through its API (mcrypt, Node's, .NET's, Bouncy Castle's) took over two
#: minutes on a shared core; a runner that overruns is stopped, and every pair waiting on it
#: fails with it.
LONG_TIMEOUT_S, LONG_TIMEOUT_S_PER_MIB = 120.0, 240.0


def long_timeout(message_bytes: int) -> float:
    return LONG_TIMEOUT_S + LONG_TIMEOUT_S_PER_MIB * message_bytes / (1 << 20)


#: a long answer's request as the gate first asks it: one call, into a separate buffer
ONE_CALL = BulkFeed((), False)


@dataclass
class Prepared:
    """What the gate computes before it asks any pair (Verifier.prepare): the same for the
    same corpora, primitives and oracle implementations, so it can be kept between runs."""

    known: dict[str, list[KnownAnswer]]  # primitive -> its short known answers, every corpus's
    long: dict[str, list[LongAnswer]]  # primitive -> its long answers (corpora/carry.py)
    oracle_of: dict[str, str]  # primitive -> the ECB oracle its model records came from
    no_model: dict[str, str]  # modelled primitive -> why it got no model records
    missing_corpora: dict[str, str]  # corpus -> why it could not be read
    oracles: list[str]  # the implementations that served as ECB oracles
    depth: int  # the message length the long answers reach (corpora/long_answers.py, long_size)
    # primitive -> (its oracle implementation, short and long answers over a second oracle):
    # what that implementation is checked on in place of the answers over its own ECB
    for_oracle: dict[str, tuple[str, list[KnownAnswer], list[LongAnswer]]] = field(default_factory=dict)

    def answers_for(self, impl: str, primitive: str) -> tuple[list[KnownAnswer], list[LongAnswer]]:
        """The short and long answers impl is checked on: every one of the primitive's, but
        where impl is the oracle they were computed over and a second oracle computed them
        again, those instead."""
        known, long = self.known.get(primitive, []), self.long.get(primitive, [])
        alt = self.for_oracle.get(primitive)
        if alt is None or alt[0] != impl:
            return known, long
        _, alt_known, alt_long = alt
        if alt_known:
            known = [k for k in known if k.over != impl] + alt_known
        if alt_long:
            long = [la for la in long if la.over != impl] + alt_long
        return known, long


class Verifier:
    def __init__(self, session, progress=None, replica: int | None = None):
        self.s = session
        self.progress = progress  # callable(str) or None
        self.replica = replica  # which process of each runner answers (Session.ask); None: the first
        self.missing_corpora: dict[str, str] = {}
        # answers sent ahead: (impl, op, input) -> [(request, answer)], oldest last
        self._ahead: dict[tuple, list[tuple[dict, dict]]] = {}

    # ------------------------------------------------------------------ primitives of one call
    @staticmethod
    def _crypt_request(p, op, key, iv, aad, data, **extra) -> dict:
        req = {"op": op, "primitive": p.name, "key": key.hex(), "input": data.hex(), **extra}
        if iv:
            req["iv"] = iv.hex()
        if aad:
            req["aad"] = aad.hex()
        return req

    @staticmethod
    def _hash_request(p, data) -> dict:
        return {"op": "hash", "primitive": p.name, "input": data.hex()}

    def _ask(self, impl, req: dict, timeout: float | None = None) -> dict:
        """One request's answer: sent ahead by prefetch() if it was, else asked now (within
        `timeout`, else the runner's usual one)."""
        # keyed by a few fields and matched by whole-dict equality: serialising every request
        # for a key cost the gate more than a tenth of its own time
        waiting = self._ahead.get((impl, req.get("op"), req.get("input")), []) if self._ahead else []
        for i in range(len(waiting) - 1, -1, -1):
            if waiting[i][0] == req:
                return waiting.pop(i)[1]
        return self.s.ask(impl, req, timeout=timeout, replica=self.replica)

    def prefetch(self, impl, reqs: list[dict], chunk: int = 512):
        """Send requests whose answers the checks will ask for, in chunks, ahead of the
        checks: independent requests (each known answer's encryption and decryption)
        need not wait for one another's round trip."""
        for i in range(0, len(reqs), chunk):
            part = reqs[i:i + chunk]
            for req, resp in zip(part, self.s.ask_many(impl, part, replica=self.replica)):
                self._ahead.setdefault((impl, req.get("op"), req.get("input")), []).insert(0, (req, resp))

    def _crypt(self, impl, p, op, key, iv, aad, data, **extra) -> dict:
        return self._ask(impl, self._crypt_request(p, op, key, iv, aad, data, **extra))

    @staticmethod
    def _refused(r: dict) -> str:
        """The runner's reason for a non-ok answer; raises Unsupported for `unsupported`."""
        if r["status"] == "unsupported":
            raise Unsupported(r.get("message") or "unsupported")
        return r.get("message", r["status"])

    def _encrypt(self, impl, p, key, iv, aad, data):
        r = self._crypt(impl, p, "encrypt", key, iv, aad, data)
        if r["status"] != "ok":
            return None, self._refused(r)
        return bytes.fromhex(r.get("output", "")), None

    def _decrypt(self, impl, p, key, iv, aad, data):
        r = self._crypt(impl, p, "decrypt", key, iv, aad, data)
        if r["status"] != "ok":
            return None, None, self._refused(r)
        if p.kind == PrimitiveKind.AEAD and not r.get("authentic", False):
            return None, False, None
        return bytes.fromhex(r.get("output", "")), True, None

    def _optional(self, impl, p, op, key, iv, aad, data, field, value, echo):
        """(output or None, why not checked or None, error or None) for a request with an
        optional protocol field (`chunks`, `inplace`) that a runner confirms with `echo`: true."""
        r = self._crypt(impl, p, op, key, iv, aad, data, **{field: value})
        if r["status"] == "unsupported":
            return None, r.get("message") or f"the runner does not take '{field}'", None
        if r["status"] != "ok":
            return None, None, r.get("message", r["status"])
        if r.get(echo) is not True:
            return None, f"the runner ignored '{field}' (answered without \"{echo}\": true)", None
        if p.kind == PrimitiveKind.AEAD and op == Operation.DECRYPT and not r.get("authentic", False):
            return None, None, "rejected as forged"
        return bytes.fromhex(r.get("output", "")), None, None

    def _hash(self, impl, p, data):
        r = self._ask(impl, self._hash_request(p, data))
        if r["status"] != "ok":
            return None, self._refused(r)
        return bytes.fromhex(r.get("output", "")), None

    # ------------------------------------------------------------------ checks
    def kat(self, res: PairResult, p: Primitive, kas: list[KnownAnswer]):
        ahead = []
        for ka in kas:
            if ka.expect_reject:
                if p.kind == PrimitiveKind.AEAD:
                    ahead.append(self._crypt_request(p, "decrypt", ka.key, ka.iv, ka.aad, ka.output))
            elif p.kind == PrimitiveKind.HASH:
                ahead.append(self._hash_request(p, ka.input))
            else:
                ahead.append(self._crypt_request(p, "encrypt", ka.key, ka.iv, ka.aad, ka.input))
                ahead.append(self._crypt_request(p, "decrypt", ka.key, ka.iv, ka.aad, ka.output))
        self.prefetch(res.impl, ahead)
        try:
            self._kat_each(res, p, kas)
        finally:
            self._ahead.clear()  # answers a failed encryption made unnecessary

    def _kat_each(self, res: PairResult, p: Primitive, kas: list[KnownAnswer]):
        for ka in kas:
            if ka.expect_reject and p.kind != PrimitiveKind.AEAD:
                continue  # only an AEAD can reject; a loader never emits these for others
            try:
                self._kat_one(res, p, ka)
            except Unsupported as e:
                res.skip(ka.corpus, ka.where, ka.source, str(e))

    def _kat_one(self, res: PairResult, p: Primitive, ka: KnownAnswer):
        where = {"source": ka.source, "vector": ka.where, "corpus": ka.corpus}
        if ka.expect_reject:
            back, ok, err = self._decrypt(res.impl, p, ka.key, ka.iv, ka.aad, ka.output)
            res.checks["kat"] += 1
            res.checks["kat_reject"] += 1
            if err is not None or ok or back is not None:
                res.fail("kat forgery accepted" if err is None else "kat forgery",
                         key=ka.key, iv=ka.iv, aad=ka.aad, input=ka.output,
                         expected="rejection", actual=err or back or "accepted", **where)
                return
            res.corpus_counts[ka.corpus] += 1
            return  # a rejection alone never vouches: rejecting everything would pass
        if p.kind == PrimitiveKind.HASH:
            out, err = self._hash(res.impl, p, ka.input)
            res.checks["kat"] += 1
            if out != ka.output:
                res.fail("kat", input=ka.input, expected=ka.output, actual=out or err, **where)
                return
        else:
            out, err = self._encrypt(res.impl, p, ka.key, ka.iv, ka.aad, ka.input)
            res.checks["kat"] += 1
            if out != ka.output:
                res.fail("kat encrypt", key=ka.key, iv=ka.iv, aad=ka.aad, input=ka.input,
                         expected=ka.output, actual=out if out is not None else err, **where)
                return
            back, ok, err = self._decrypt(res.impl, p, ka.key, ka.iv, ka.aad, ka.output)
            if back != ka.input:
                res.fail("kat decrypt", key=ka.key, iv=ka.iv, aad=ka.aad, input=ka.output,
                         expected=ka.input, actual=back if back is not None else (err or "rejected as forged"),
                         **where)
                return
        res.passed_answer(ka.corpus, len(ka.input), ka.over)

    def long(self, res: PairResult, p: Primitive, las: list[LongAnswer]):
        """Long answers (vectors.LongAnswer): each asked with its input generated by the runner
        (`fill`) and its output answered as a SHA-256 (`digest`), all at once, in one call;
        then each that passed is asked again as the timed loops feed a message (long_bulk)."""
        passed = []
        for la, r in zip(las, self._long_answers(res.impl, p, [(la, ONE_CALL) for la in las])):
            try:
                if self._long_one(res, p, la, r):
                    passed.append(la)
            except Unsupported as e:
                res.skip(la.corpus, la.where, la.source, str(e))
        self.long_bulk(res, p, passed)

    @staticmethod
    def _long_timeout(asked: list[tuple[LongAnswer, BulkFeed]]) -> float:
        """How long each answer to long answers' requests may take (long_timeout)."""
        return long_timeout(max((la.message_bytes for la, _ in asked), default=0))

    def _long_answers(self, impl, p: Primitive, asked: list[tuple[LongAnswer, BulkFeed]]) -> list[dict]:
        """The answers to long answers' requests, sent all at once. A runner that does not echo
        `filled`, or answers without a digest where one was asked, is asked again with the whole
        input, and its output hashed here: the check is the same either way. A request fed in a
        way the runner refused (unsupported, an error, an answer without the way's echoes) is
        not asked again: the way is refused whatever the input."""
        reqs = [self._long_request(p, la, True, feed) for la, feed in asked]
        answers = []
        timeout = self._long_timeout(asked)
        answers_to = self.s.ask_many(impl, reqs, timeout=timeout, replica=self.replica)
        for (la, feed), r in zip(asked, answers_to):
            took = feed == ONE_CALL or (r.get("status") == "ok" and all(r.get(e) is True for e in feed.echoes()))
            if took and not self._long_honoured(la, r):
                r = self._ask(impl, self._long_request(p, la, False, feed), timeout)
            answers.append(r)
        return answers

    def _long_request(self, p: Primitive, la: LongAnswer, generated: bool, feed: BulkFeed = ONE_CALL) -> dict:
        if p.kind == PrimitiveKind.HASH:  # a digest is short: `fill` alone, no `digest`
            req = dict(self._hash_request(p, la.tail if generated else la.data()), **feed.fields())
            return dict(req, fill=la.fill.field()) if generated and la.fill.size else req
        if not generated:
            return self._crypt_request(p, la.operation, la.key, la.iv, la.aad, la.data(), **feed.fields())
        extra = {"fill": la.fill.field()} if la.fill.size else {}
        return self._crypt_request(p, la.operation, la.key, la.iv, la.aad, la.tail, digest="sha256", **extra,
                                   **feed.fields())

    @staticmethod
    def _long_honoured(la: LongAnswer, r: dict) -> bool:
        """Whether an answer to a generated request is one to the whole input."""
        if r.get("status") != "ok" or (la.fill.size and r.get("filled") is not True):
            return False
        return r.get("authentic") is False or "output_sha256" in r or "output" in r

    @staticmethod
    def _long_wrong(p: Primitive, la: LongAnswer, r: dict) -> str | None:
        """What an `ok` answer to a long answer's request gave instead of its output, or None."""
        if p.kind == PrimitiveKind.AEAD and la.operation is Operation.DECRYPT and not r.get("authentic", False):
            return "rejected as forged"
        got = r.get("output_sha256") or hashlib.sha256(bytes.fromhex(r.get("output", ""))).hexdigest()
        return None if got == la.output_sha256.hex() else f"an output whose SHA-256 is {got}"

    def _long_one(self, res: PairResult, p: Primitive, la: LongAnswer, r: dict) -> bool:
        """Whether the one-call answer r is the long answer's (a mismatch is recorded)."""
        res.checks["kat"] += 1
        actual = self._refused(r) if r["status"] != "ok" else self._long_wrong(p, la, r)
        if actual is None:
            res.passed_answer(la.corpus, la.message_bytes, la.over)
            return True
        self._long_failed(res, la, "kat {op} (long: output compared by SHA-256)", actual, ONE_CALL)
        return False

    def _long_failed(self, res: PairResult, la: LongAnswer, check: str, actual: str, feed: BulkFeed):
        res.fail(check.format(op=la.operation), key=la.key, iv=la.iv, aad=la.aad,
                 input=(f"{la.fill.size} bytes generated from seed {la.fill.seed.hex()} (docs/protocol.md, fill), "
                        f"then {len(la.tail)} bytes (LongAnswer.tail)"),
                 **feed.fields(),
                 expected=f"an output of {la.output_bytes} bytes whose SHA-256 is {la.output_sha256.hex()}",
                 actual=actual, source=la.source, vector=la.where, corpus=la.corpus)

    def long_bulk(self, res: PairResult, p: Primitive, las: list[LongAnswer]):
        """The long answers that passed in one call, asked again fed as the timed bulk loop feeds
        a message (bulk_feeds: in pieces of every size timed, in place) and compared with the
        same answer, not with the one-call output: a fault only in pieces or only in place is a
        failure of its own. The ways are tried in order, all the pair's answers at once per way;
        a runner that honours none (unsupported, an error, no echo) is recorded as
        checks["long_bulk_not_checked"], a way refused before another was taken as
        checks["long_bulk_note"], neither a failure."""
        asking = [(i, la, ways) for i, la in enumerate(las) if (ways := bulk_feeds(p, la.message_bytes))]
        refused: dict[int, list[str]] = defaultdict(list)  # index in las -> the ways it was refused
        unchecked: list[str] = []
        while asking:
            answers = self._long_answers(res.impl, p, [(la, ways[0]) for _, la, ways in asking])
            left = []
            for (i, la, ways), r in zip(asking, answers):
                why = self._long_fed(res, p, la, ways[0], r)
                if why is None:
                    continue
                refused[i].append(f"{la.operation} {ways[0].describe()}: {why}")
                if len(ways) > 1:
                    left.append((i, la, ways[1:]))
                else:
                    unchecked += refused.pop(i)
            asking = left
        if unchecked:
            res.checks["long_bulk_not_checked"] = "; ".join(unchecked)
        if refused:
            res.checks["long_bulk_note"] = "; ".join(why for whys in refused.values() for why in whys)

    def _long_fed(self, res: PairResult, p: Primitive, la: LongAnswer, feed: BulkFeed, r: dict) -> str | None:
        """None when the answer fed this way was checked (a mismatch is recorded as a
        failure), else why it was not."""
        if r["status"] == "unsupported":
            return r.get("message") or "unsupported"
        if r["status"] != "ok":
            return f"error: {r.get('message', r['status'])}"
        ignored = [echo for echo in feed.echoes() if r.get(echo) is not True]
        if ignored:
            return f"the runner answered without {', '.join(f'{e!r}: true' for e in ignored)}"
        res.checks["long_bulk"] += 1
        actual = self._long_wrong(p, la, r)
        if actual is not None:
            self._long_failed(res, la, f"kat {{op}} (long, fed as the bulk loop feeds it: {feed.describe()})",
                              actual, feed)
        return None

    def iterated(self, res: PairResult, p: Primitive):
        """The published procedures whose final output is the known answer (cipherbench/kat/iterated.py)."""
        for proc in iterated.PROCEDURES.get(p.name, []):
            def encrypt(key, iv, aad, data):
                out, err = self._encrypt(res.impl, p, key, iv, aad, data)
                if out is None:
                    raise _StepFailed(err)
                return out
            res.checks["kat"] += 1
            try:
                out = proc.run(encrypt)
            except Unsupported as e:
                res.skip(iterated.CORPUS, proc.primitive, proc.source, str(e))
                continue
            except _StepFailed as e:
                out = None
                err = str(e)
            if out != proc.expected:
                res.fail("kat iterated", expected=proc.expected, actual=out if out is not None else err,
                         source=proc.source, corpus=iterated.CORPUS,
                         note="the final output of the procedure in cipherbench/kat/iterated.py")
                continue
            res.corpus_counts[iterated.CORPUS] += 1
            res.vouched = True

    def roundtrip_and_collect(self, res: PairResult, p: Primitive) -> dict:
        """Round trips on deterministic inputs; returns {case: output} for the differential check."""
        outputs = {}
        lengths = message_lengths(p)
        # every first request (an encryption or a hash) goes ahead: none depends on another
        firsts = []
        for n in lengths:
            key, iv, aad, msg = self._roundtrip_inputs(p, n)
            firsts.append(self._hash_request(p, msg) if p.kind == PrimitiveKind.HASH
                          else self._crypt_request(p, "encrypt", key, iv, aad, msg))
        self.prefetch(res.impl, firsts)
        try:
            for n in lengths:
                try:
                    self._roundtrip_one(res, p, n, outputs)
                except Unsupported as e:  # an offered primitive must take these ordinary inputs
                    res.fail("roundtrip", actual=f"unsupported: {e}", length=n)
        finally:
            self._ahead.clear()
        return outputs

    @staticmethod
    def _roundtrip_inputs(p: Primitive, n: int):
        """(key, iv, aad, message) of the round trip of length n: deterministic, per primitive."""
        label = f"{p.name}/{n}"
        key, iv = det_bytes("key/" + label, p.key_bytes), det_bytes("iv/" + label, p.iv_bytes)
        if p.mode == "xts" and key[: len(key) // 2] == key[len(key) // 2:]:
            key = key[::-1]
        aad = det_bytes("aad/" + label, 13) if p.kind == PrimitiveKind.AEAD else b""
        return key, iv, aad, det_bytes("msg/" + label, n)

    def _roundtrip_one(self, res: PairResult, p: Primitive, n: int, outputs: dict):
        key, iv, aad, msg = self._roundtrip_inputs(p, n)
        if p.kind == PrimitiveKind.HASH:
            out, err = self._hash(res.impl, p, msg)
            if out is None:
                res.fail("hash", input=msg, actual=err)
                return
            outputs[n] = (out, dict(input=msg))
            return
        ct, err = self._encrypt(res.impl, p, key, iv, aad, msg)
        if ct is None:
            res.fail("encrypt", key=key, iv=iv, aad=aad, input=msg, actual=err)
            return
        outputs[n] = (ct, dict(key=key, iv=iv, aad=aad, input=msg))
        back, ok, err = self._decrypt(res.impl, p, key, iv, aad, ct)
        res.checks["roundtrip"] += 1
        if back != msg:
            res.fail("roundtrip", key=key, iv=iv, aad=aad, input=ct, expected=msg,
                     actual=back if back is not None else (err or "its own ciphertext rejected as forged"))
        if p.kind == PrimitiveKind.AEAD:
            self.forgery(res, p, key, iv, aad, ct)
        chunks = stream_chunks(p, n)
        if chunks and back == msg:
            self.streaming(res, p, key, iv, aad, msg, ct, chunks)
        if n == inplace_length(p) and back == msg:
            self.inplace(res, p, key, iv, aad, msg, ct)

    def streaming(self, res, p, key, iv, aad, msg, ct, tiers):
        """The same message fed in pieces (protocol field `chunks`) must give the one-call output,
        encrypting and decrypting. A different output fails the pair; a runner that cannot take
        the pieces (unsupported, or an error naming why) is noted and the next way is tried."""
        refused = []
        for chunks in tiers:
            why = self._stream_once(res, p, key, iv, aad, msg, ct, chunks)
            if why is None:
                if refused:
                    res.checks["streaming_note"] = "; ".join(refused)
                return
            refused.append(f"pieces {chunks}: {why}")
        res.checks["streaming_not_checked"] = "; ".join(refused)

    def _stream_once(self, res, p, key, iv, aad, msg, ct, chunks) -> str | None:
        """None when checked (a mismatch is recorded as a failure), else why it was not."""
        for op, data, want in (("encrypt", msg, ct), ("decrypt", ct, msg)):
            out, skipped, err = self._optional(res.impl, p, op, key, iv, aad, data, "chunks", chunks, "chunked")
            if skipped or (err and err != "rejected as forged"):
                return skipped or f"error: {err}"
            res.checks["streaming"] += 1
            if out != want:
                res.fail(f"streaming {op} (input in pieces of {chunks} bytes, then the rest)",
                         key=key, iv=iv, aad=aad, input=data, expected=want,
                         actual=out if out is not None else err)
                return None
        return None

    def inplace(self, res, p, key, iv, aad, msg, ct):
        """The same message with the output written over the input (protocol field `inplace`)
        must give the same output, encrypting and decrypting: the timed loops work in place, so
        an API that breaks on aliased buffers would time something it never verified."""
        for op, data, want in (("encrypt", msg, ct), ("decrypt", ct, msg)):
            out, why, err = self._optional(res.impl, p, op, key, iv, aad, data, "inplace", True, "inplace")
            if why:
                res.checks["inplace_not_checked"] = why
                return
            res.checks["inplace"] += 1
            if out != want:
                res.fail(f"inplace {op} (output written over the input)", key=key, iv=iv, aad=aad,
                         input=data, expected=want, actual=out if out is not None else err)
                return

    def forgery(self, res, p, key, iv, aad, ct):
        """Its own ciphertext changed must be rejected: the tag at both ends (forged_tags), the
        ciphertext's first byte, the associated data's first byte."""
        cases = [(what, forged, aad) for what, forged in forged_tags(ct, p.tag_bytes)]
        if len(ct) > p.tag_bytes:
            cases.append(("ciphertext changed", bytes([ct[0] ^ 0x80]) + ct[1:], aad))
        if aad:
            cases.append(("associated data changed", ct, bytes([aad[0] ^ 0x01]) + aad[1:]))
        for what, c2, a2 in cases:
            back, ok, err = self._decrypt(res.impl, p, key, iv, a2, c2)
            res.checks["forgery"] += 1
            if ok or back is not None:
                res.fail(f"forgery ({what}) accepted", key=key, iv=iv, aad=a2, input=c2,
                         expected="rejection", actual=back or "accepted")

    # ------------------------------------------------------------------ the whole gate
    def run(self, pairs, prepared: Prepared | None = None) -> list[PairResult]:
        """The gate over (Implementation, Primitive) pairs. The corpora and computed records
        are prepared first; then every runner process checks its own pairs in a thread of its
        own (one process answers one request at a time, and while one waits for its runner
        another's Python runs), and the differential check compares each primitive's outputs
        once all are in. A session with replicas splits a runner's pairs over its processes:
        the native runner holds half the implementations. `prepared`: the records prepare()
        computed for these pairs' primitives, kept from an earlier run (kat/cache.py)."""
        by_prim: dict[str, list] = defaultdict(list)
        for im, p in pairs:
            by_prim[p.name].append((im, p))
        if prepared is None:
            prepared = self.prepare([items[0][1] for items in by_prim.values()])
        self.missing_corpora = prepared.missing_corpora
        # a lane per runner process: a runner started with replicas (Session, replicas=) has its
        # pairs dealt out over its processes in turn
        lanes: dict[tuple[int, int], list] = defaultdict(list)
        dealt: dict[int, int] = defaultdict(int)
        for _, items in sorted(by_prim.items()):
            for im, p in items:
                runner = id(self.s.process_of(im.name))
                replica = dealt[runner] % self.s.processes_of(im.name)
                dealt[runner] += 1
                lanes[(runner, replica)].append((im, p))
        stop = threading.Event()

        def lane(replica, pairs) -> list:
            """One process's pairs, each with its outcome; a Verifier of its own holds the
            answers it sent ahead."""
            own = Verifier(self.s, self.progress, replica)
            done = []
            for im, p in pairs:
                if stop.is_set():
                    break
                outcome = own.check_pair(im, p, prepared)
                done.append(((im.name, p.name), outcome))
                if outcome[1] is None:  # its runner failed: one stopped for a hang starts again,
                    self.s.revive(im.name, replica)  # or the lane's next pairs would fail with it
            return done
        pool = ThreadPoolExecutor(max_workers=max(1, len(lanes)), thread_name_prefix="verify")
        try:
            futures = [pool.submit(lane, replica, pairs) for (_, replica), pairs in lanes.items()]
            checked = dict(item for f in futures for item in f.result())
        finally:
            stop.set()  # Ctrl-C or a fault: the other lanes stop at their next pair
            pool.shutdown(wait=False, cancel_futures=True)
        results: list[PairResult] = []
        for pname, items in sorted(by_prim.items()):
            group = [checked[(im.name, pname)] for im, _ in items]
            self.differential(items[0][1], [r for r, _ in group], {r.impl: o for r, o in group if o is not None})
            results.extend(r for r, _ in group)
        return results

    def prepare(self, prims, depth: int = LARGEST) -> Prepared:
        """Every corpus's known answers for prims, and the computed ones: modelled primitives
        without a published known answer get `model` ones, computed over an ECB oracle that
        passes that ECB primitive's published known answers (model_oracle.py), and counter
        carries and long answers of `depth` bytes (the largest size to be timed) come over
        the same oracles (corpora/carry.py)."""
        known, missing = corpora.load_all(
            {p.name for p in prims} | oracle_primitives(prims) | model_carry.oracle_primitives(prims))
        models = ModelCorpus(self.s)
        models.extend(prims, known)
        carry = model_carry.CarryCorpus(self.s, models, long_size(depth))
        carry.extend(prims, known)
        every_byte.extend(prims, known)
        for_oracle = {name: (impl, kas, []) for name, (impl, kas) in models.for_oracle.items()}
        for name, (impl, short, long) in carry.for_oracle.items():
            if name in for_oracle and for_oracle[name][0] == impl:
                short = for_oracle[name][1] + short
            for_oracle[name] = (impl, short, long)
        return Prepared(dict(known), carry.long, models.oracle_of, models.missing, missing,
                        models.oracle_impls(), long_size(depth), for_oracle)

    def check_pair(self, im, p: Primitive, prepared: Prepared) -> tuple[PairResult, dict | None]:
        """One pair's own checks; its outputs for the differential check (None when its
        runner failed before giving them)."""
        if self.progress:
            self.progress(f"{im.name} {p.name}")
        res = PairResult(im.name, p.name, model_oracle=prepared.oracle_of.get(p.name),
                         no_model_because=prepared.no_model.get(p.name))
        known, long = prepared.answers_for(im.name, p.name)
        try:
            self.kat(res, p, known)
            self.long(res, p, long)
            self.iterated(res, p)
            return res, self.roundtrip_and_collect(res, p)
        except RunnerError as e:
            res.fail("runner", actual=str(e))
            return res, None

    def differential(self, p: Primitive, results: list[PairResult], outs: dict):
        if len(outs) < 2:
            return
        by_impl = {r.impl: r for r in results}
        cases = set().union(*(o.keys() for o in outs.values()))
        for case in sorted(cases):
            groups: dict[bytes, list[str]] = defaultdict(list)
            inputs = None
            for impl, o in outs.items():
                if case in o:
                    groups[o[case][0]].append(impl)
                    inputs = o[case][1]
            if len(groups) == 1:
                for impls in groups.values():
                    verified = {i for i in impls if by_impl[i].vouched and not by_impl[i].failures}
                    for i in impls:
                        by_impl[i].checks["differential"] += 1
                        by_impl[i].agrees_with_verified |= verified - {i}
                continue
            # Disagreement: the group containing a KAT-verified implementation is right; else the largest.
            def rank(item):
                out, impls = item
                return (any(by_impl[i].vouched and not by_impl[i].failures for i in impls), len(impls))
            right_out, right = max(groups.items(), key=rank)
            for out, impls in groups.items():
                for i in impls:
                    by_impl[i].checks["differential"] += 1
                    if out is not right_out:
                        by_impl[i].fail("differential", expected=right_out, actual=out,
                                        agrees_with=sorted(right), **inputs)
