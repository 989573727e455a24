"""The checks of one (implementation, primitive) pair: known answers, iterated procedures,
round trips, streaming, in place and forgeries (kat/verify.py says what each is); the long
answers' are kat/long_checks.py's."""
from __future__ import annotations

from cipherbench.errors import RunnerError
from cipherbench.kat import iterated
from cipherbench.kat.asker import Unsupported
from cipherbench.kat.collect import det_bytes
from cipherbench.kat.feeds import inplace_length, message_lengths, stream_chunks
from cipherbench.kat.long_checks import LongChecks
from cipherbench.kat.model_oracle import forged_tags
from cipherbench.kat.outcome import PairResult
from cipherbench.kat.prepared import Prepared
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive


class _StepFailed(Exception):
    """One encryption inside an iterated procedure answered an error."""


class PairChecks(LongChecks):
    """One runner process's checks of its pairs, one pair at a time (check_pair)."""

    def __init__(self, session, progress=None, replica: int | None = None):
        super().__init__(session, replica)
        self.progress = progress  # callable(str) or None

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
