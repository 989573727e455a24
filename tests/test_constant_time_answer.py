"""Constant-time joins the answer: a ct verdict belongs to the build and code path it
checked, vouches for that build in any run of the store, the newest verdict wins, and the
statistical test's 'no leak detected' is never 'constant-time' for native code."""
from datetime import UTC, datetime

import pytest

from cipherbench.analysis.constant_time import CtStatus, ct_marks, mark_of
from cipherbench.analysis.recommend import Exclusion, Filters, UseCase, recommend
from cipherbench.ct.checks import Method, StatVerdict, TaintVerdict
from cipherbench.kinds import RunKind
from cipherbench.results.run import CtRow, Implementation, Measurement
from cipherbench.store.db import Store


def taint(verdict, secret="key", kind=None, phase=None, path_differs=False):
    return {"impl": "openssl", "method": Method.TAINT.value, "secret": secret, "verdict": verdict.value,
            "first_kind": kind, "first_phase": phase, "path_differs": path_differs, "primitive": "aes-128-gcm"}


def stat(verdict, secret="key"):
    return {"impl": "openssl", "method": Method.STAT.value, "secret": secret, "verdict": verdict.value,
            "primitive": "aes-128-gcm"}


def rows(*dicts):
    return [CtRow.of(d) for d in dicts]


CLEAN, NO_LEAK = TaintVerdict.CLEAN, StatVerdict.NO_LEAK_DETECTED


@pytest.mark.parametrize("rows,native,status,method,detail", [
    ([taint(CLEAN), taint(CLEAN, "plaintext"), stat(NO_LEAK)], True, CtStatus.CLEAN, Method.TAINT, ""),
    ([taint(TaintVerdict.INDEX, kind="index", phase="keysetup"), stat(NO_LEAK)], True, CtStatus.LEAKS,
     Method.TAINT, "index in key setup"),
    ([taint(TaintVerdict.BRANCH, "plaintext", kind="branch", phase="encrypt")], True, CtStatus.LEAKS,
     Method.TAINT, "branch in data"),
    ([taint(CLEAN), stat(StatVerdict.LEAK, "plaintext")], True, CtStatus.LEAKS, Method.STAT,
     "timing in data"),
    # a statistical finding short of a leak on repeat, or an earlier version's one-batch leak
    ([taint(CLEAN), stat(StatVerdict.SUSPECT, "plaintext")], True, CtStatus.SUSPECT, Method.STAT,
     "timing in data"),
    ([stat(StatVerdict.DUDECT_LEAK)], False, CtStatus.SUSPECT, Method.STAT, "timing in key setup"),
    ([stat(NO_LEAK), stat(NO_LEAK, "plaintext")], True, CtStatus.NOT_CHECKED, Method.STAT,
     "statistics only: taint not run"),
    ([stat(NO_LEAK)], False, CtStatus.NO_LEAK_DETECTED, Method.STAT, ""),
    # taint followed another code path than the timed one: it decides nothing, and says so
    ([taint(CLEAN, path_differs=True)], True, CtStatus.OTHER_PATH, Method.TAINT, ""),
    ([dict(taint(CLEAN, "plaintext", path_differs=True), details={"native_features": ["sha-ni"]}),
      stat(NO_LEAK)], True, CtStatus.OTHER_PATH, Method.TAINT, "SHA-NI"),
    ([taint(TaintVerdict.INDEX, kind="index", phase="keysetup", path_differs=True)], True, CtStatus.OTHER_PATH,
     Method.TAINT, ""),
    ([taint(CLEAN, path_differs=True), stat(StatVerdict.SUSPECT)], True, CtStatus.SUSPECT, Method.STAT,
     "timing in key setup"),
    ([stat(StatVerdict.UNSUPPORTED)], False, CtStatus.NOT_CHECKED, None, ""),
])
def test_the_rule(rows, native, status, method, detail):
    m = mark_of([CtRow.of(r) for r in rows], native, run_id=7)
    assert (m.status, m.method, m.detail) == (status, method, detail)
    assert m.vouched == (status in (CtStatus.CLEAN, CtStatus.NO_LEAK_DETECTED))


IMPL = {"name": "openssl", "runner": "native", "library": "openssl", "version": "3.0.19", "available": True,
        "reason": None, "primitives": {"aes-128-gcm": "default provider, AES-NI"}, "notes": {}}


class Impl:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _run(store, kind, build="B1", version="3.0.19", ct_rows=(), when=0):
    rid = store.begin_run(uuid=f"{kind}{len(store.run_ids())}", kind=kind.value, status="complete",
                          started_at=datetime(2026, 11, 1 + when, tzinfo=UTC))
    store.add_implementations(rid, [Impl(**dict(IMPL, version=version))], {"native": build})
    store.add_ct_results(rid, [dict(r, impl="openssl") for r in ct_rows])
    return rid


def test_a_verdict_vouches_for_the_same_build_in_any_run_and_the_newest_wins(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    speed = _run(store, RunKind.SPEED)
    assert ct_marks(store, speed) == {}
    clean = _run(store, RunKind.CT, ct_rows=[taint(CLEAN)], when=1)
    _run(store, RunKind.CT, build="other engine", ct_rows=[taint(TaintVerdict.INDEX, kind="index")], when=2)
    _run(store, RunKind.CT, version="3.5.9", ct_rows=[taint(TaintVerdict.INDEX, kind="index")], when=3)
    mark = ct_marks(store, speed)[("openssl", "aes-128-gcm")]
    assert (mark.status, mark.method, mark.run_id) == (CtStatus.CLEAN, Method.TAINT, clean)
    assert mark.short() == f"ct clean (taint, run {clean})" and mark.symbol() == "ct✓"
    leak = _run(store, RunKind.CT, ct_rows=[taint(TaintVerdict.INDEX, kind="index", phase="encrypt")], when=4)
    mark = ct_marks(store, speed)[("openssl", "aes-128-gcm")]
    assert (mark.status, mark.run_id, mark.detail) == (CtStatus.LEAKS, leak, "index in data")


def test_recommend_constant_time_ranks_only_what_a_verdict_vouches_for():
    ms = [Measurement.of({"impl": i, "primitive": "aes-128-gcm", "operation": "encrypt", "workload": "bulk",
                          "size": 16384, "ns_per_call": 16384 / mb * 1e3, "ns_low": None, "ns_high": None,
                          "mb_per_s": mb, "provider": "", "verified": "passed", "error": None, "warnings": []})
          for i, mb in (("openssl", 4000), ("nettle", 3000))]
    impls = [Implementation(i, runner="native", library=i) for i in ("openssl", "nettle")]
    marks = {("nettle", "aes-128-gcm"): mark_of(rows(taint(CLEAN)), True, run_id=3)}
    plain = recommend(ms, impls, cases=[UseCase.BULK_AEAD], ct=marks)[0]
    assert [(f.impl, f.ct.symbol()) for f in plain.ranked] == [("openssl", "ct?"), ("nettle", "ct✓")]
    only = recommend(ms, impls, Filters(constant_time=True), [UseCase.BULK_AEAD], ct=marks)[0]
    assert [f.impl for f in only.ranked] == ["nettle"]
    assert [(e.impl, e.reason, e.detail) for e in only.excluded] == [
        ("openssl", Exclusion.NOT_CONSTANT_TIME, "ct? not checked")]
