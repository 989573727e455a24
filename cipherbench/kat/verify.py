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

Here the gate over many pairs (lanes, the differential check); one pair's checks are
kat/pair_checks.py's (the long answers' kat/long_checks.py's, the requests
kat/asker.py's), the lengths and pieces it asks kat/feeds.py's, the records computed
first kat/prepared.py's, and a pair's outcome kat/outcome.py's.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from cipherbench.kat import prepared as prepared_records
from cipherbench.kat.corpora.long_answers import LARGEST
from cipherbench.kat.outcome import PairResult
from cipherbench.kat.pair_checks import PairChecks
from cipherbench.kat.prepared import Prepared
from cipherbench.registry import Primitive


class Verifier(PairChecks):
    """The gate over many pairs: each runner process checks its own (kat/pair_checks.py), then
    the differential check compares each primitive's outputs across implementations."""

    def __init__(self, session, progress=None, replica: int | None = None):
        super().__init__(session, progress, replica)
        self.missing_corpora: dict[str, str] = {}

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
        """The records prepared for prims over this session's runners (kat/prepared.py)."""
        return prepared_records.prepare(self.s, prims, depth)

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
