"""The constant-time mark of a timed implementation: the latest side-channel verdict stored
for the same build, whichever run stored it.

A ct result belongs to the build it checked: the runner's identity (its program's bytes and
how it was started), what the runner announced for the implementation (library, version,
notes) and the primitive's code path. That is the verification cache's pair identity
(kat/cache.py, pair_key) without the known-answer and gate fingerprints, so new vectors do
not void a ct verdict, while a rebuilt library or another code path does.

The rule, in one place (`mark_of`), and what each mark means and lets through
`recommend --constant-time`, in one table (`FACTS`):
- secret taint (valgrind, native code) decides where it ran on the timed code path: any
  secret-dependent branch or memory index is a leak, none is clean; where valgrind's CPU made
  the library take another path (the timed one uses instructions valgrind cannot run: SHA-NI,
  AVX-512), it decides nothing and the mark says so ("another path only");
- a statistical leak (checks.Standing.LEAK: well above the host's noise floor in every
  batch) is a leak wherever it is seen;
- a statistical suspect (above the bar, short of a leak; or an earlier version's one-batch
  leak) is "suspect", never a leak: taint clean or not run, the mark says to repeat the test
  on a quiet core;
- the statistical test's "no leak detected" is never "constant-time" for native code that
  taint can check: there it leaves the mark at "not checked"; for the language runners,
  which taint cannot check, it is the best evidence there is and is shown as such.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from cipherbench.codepath import code_label, stored
from cipherbench.ct.checks import Method, Secret, Standing, TaintVerdict, checks_for, stat_standing
from cipherbench.kat.identity import pair_key
from cipherbench.kinds import PrimitiveKind
from cipherbench.results.run import CtRow, Implementation
from cipherbench.store.db import Store

#: Taint phases that are key setup; the others (encrypt, decrypt) handle data.
KEYSETUP_PHASES = frozenset({"keysetup"})


class CtStatus(StrEnum):
    CLEAN = "clean"  # taint saw nothing secret-dependent on the timed code path
    NO_LEAK_DETECTED = "no leak detected"  # statistics only, where taint cannot check
    SUSPECT = "suspect"  # a timing difference short of a leak: repeat on a quiet core
    LEAKS = "leaks"
    NOT_CHECKED = "not checked"
    NO_CHECK = "no check applies"  # cipherbench ct has none for it (ct.checks.checks_for)
    # taint ran, but on the path valgrind's CPU allows, not the one timed: valgrind 3.19 shows no
    # SHA-NI or AVX-512 and cannot run them (OpenSSL's SHA-256 forced onto SHA-NI under it: SIGILL)
    OTHER_PATH = "another path only"


@dataclass(frozen=True)
class StatusFacts:
    """What a mark shows and what it lets through: the marks and the `--constant-time`
    filter read both here, never anything else."""

    symbol: str
    vouched: bool  # counts as constant-time for `recommend --constant-time`
    legend: str


FACTS = {
    CtStatus.CLEAN: StatusFacts("ct✓", True, "constant-time (taint: no secret-dependent branch or table index)"),
    CtStatus.NO_LEAK_DETECTED: StatusFacts("ct~", True, "no timing leak detected (statistics)"),
    CtStatus.SUSPECT: StatusFacts("ct!", False, "suspect timing (not confirmed on repeat: repeat on a quiet core)"),
    CtStatus.LEAKS: StatusFacts("ct✗", False, "leaks"),
    CtStatus.NOT_CHECKED: StatusFacts("ct?", False, "not checked (cipherbench ct)"),
    CtStatus.NO_CHECK: StatusFacts("ct-", False, "no check of ours applies (a hash in a language runner)"),
    CtStatus.OTHER_PATH: StatusFacts("ct*", False, "checked on another code path only: the timed one uses "
                                     "instructions valgrind cannot run (SHA-NI, AVX-512)"),
}


class Where(StrEnum):
    KEY_SETUP = "key setup"
    DATA = "data"  # encryption, decryption, a tag check, a hash


@dataclass(frozen=True)
class Leak:
    kind: str  # FindingKind's value (index, branch), or "timing" for a statistical leak
    where: Where
    secret: str  # Secret's value: key or plaintext

    def text(self) -> str:
        return f"{self.kind} in {self.where.value}"

    def advice(self) -> str:
        """What the leak means, for someone who has to decide whether to use the build."""
        what = "the key" if self.secret == "key" else "the secret data"
        if self.kind == "index":
            return (f"table lookups at addresses computed from {what}: another program on the same machine "
                    f"(a cache attack) can learn {what}")
        if self.kind == "branch":
            return f"{what} decides which code runs: the time taken can reveal {what}"
        return f"the time taken depends on {what}: an attacker who can time many calls may learn it"


#: What a suspect mark means, for someone who has to decide whether to use the build.
SUSPECT_ADVICE = ("not confirmed well above this host's noise in every batch, so not a verdict either way: "
                  "repeat cipherbench ct on a quiet core (nothing on its sibling hyperthread) or with more "
                  "--samples")

#: What "another path only" means, for someone who has to decide whether to use the build.
OTHER_PATH_ADVICE = ("valgrind cannot run its instructions, so taint followed the path valgrind's CPU allows and "
                     "no check of ours covers the one timed; cipherbench ct --long shows both paths")


@dataclass(frozen=True)
class CtMark:
    status: CtStatus
    method: Method | None = None  # the check that vouched for the status
    run_id: int | None = None  # the run that stored it
    when: datetime | None = None
    detail: str = ""  # a leak: what (index or branch) and where (key setup or data)
    leaks: tuple[Leak, ...] = ()

    @property
    def vouched(self) -> bool:
        """Counts as constant-time for `recommend --constant-time` (FACTS)."""
        return FACTS[self.status].vouched

    def symbol(self) -> str:
        """The mark beside a name in the answer box (FACTS; LEGEND says what each means)."""
        return FACTS[self.status].symbol

    def advice(self) -> list[str]:
        """What the mark means for someone choosing a build: one line per leak, or the
        suspect's one line."""
        if self.status is CtStatus.LEAKS:
            return [f"{leak.text()}: {leak.advice()}" for leak in self.leaks]
        if self.status is CtStatus.SUSPECT:
            return [f"suspect {self.detail}: {SUSPECT_ADVICE}"]
        if self.status is CtStatus.OTHER_PATH:
            return [f"{self.detail or 'the timed path'}: {OTHER_PATH_ADVICE}"]
        return []

    def labelled(self) -> str:
        """The symbol, then the few words: 'ct! suspect: timing in data; repeat on a quiet core
        (stat, run 5)', as a build left out by `--constant-time` is told."""
        return f"{self.symbol()} {self.short().removeprefix('ct ')}"

    def short(self) -> str:
        """A few words for the answer box: 'ct clean (taint, run 3)'."""
        if self.status is CtStatus.NOT_CHECKED:
            return "ct not checked" + (f" ({self.detail})" if self.detail else "")
        if self.status is CtStatus.NO_CHECK:
            return "ct: no check applies"
        if self.status is CtStatus.OTHER_PATH:
            head = "ct another path only" + (f": {self.detail} beyond valgrind" if self.detail else "")
            return f"{head} ({self.method.value if self.method else '?'}, run {self.run_id})"
        if self.status is CtStatus.LEAKS:
            head = "ct LEAKS" + (f": {self.detail}" if self.detail else "")
        elif self.status is CtStatus.SUSPECT:
            head = "ct suspect" + (f": {self.detail}" if self.detail else "") + "; repeat on a quiet core"
        else:
            head = f"ct {self.status.value}"
        return f"{head} ({self.method.value if self.method else '?'}, run {self.run_id})"


NOT_CHECKED = CtMark(CtStatus.NOT_CHECKED)
NO_CHECK = CtMark(CtStatus.NO_CHECK)


def unchecked(native: bool, kind: PrimitiveKind) -> CtMark:
    """The mark of a pair no stored check speaks for: "not checked" where `cipherbench ct` has a
    check to make, else "no check applies" (the legend then never sends a user to a command
    that cannot check it)."""
    return NOT_CHECKED if checks_for(native, kind) else NO_CHECK

#: What the marks mean, one line under the answer.
LEGEND = ", ".join(f"{f.symbol} {f.legend}" for f in FACTS.values())


def _leaks(rows: Sequence[CtRow]) -> tuple[Leak, ...]:
    """The leaks of leaking results, each once: taint's first finding (kind and phase), or a
    statistical leak's secret (timed calls set the key up and encrypt: a key leak may be in
    either, so it is placed in key setup only when the key was the secret)."""
    found: list[Leak] = []
    for r in rows:
        if r.first_phase:
            where = Where.KEY_SETUP if r.first_phase in KEYSETUP_PHASES else Where.DATA
        else:
            where = Where.KEY_SETUP if r.secret == Secret.KEY else Where.DATA
        leak = Leak(r.first_kind or "timing", where, r.secret)
        if leak not in found:
            found.append(leak)
    return tuple(found)


def _leak_detail(rows: Sequence[CtRow]) -> str:
    return ", ".join(leak.text() for leak in _leaks(rows))


def _timed_path(rows: Sequence[CtRow]) -> str:
    """The timed path's label (codepath.code_label) from the features the runner announced
    natively, as the taint check stored them; "" where none were announced."""
    for r in rows:
        features = stored((r.details or {}).get("native_features"))
        if features is not None:
            return code_label(features)
    return ""


def mark_of(rows: Sequence[CtRow], native: bool, run_id: int | None = None,
            when: datetime | None = None) -> CtMark:
    """The mark one run's ct results give a (build, primitive), by the rule above."""
    ok = [r for r in rows if not r.error]
    ran = [r for r in ok if r.method == Method.TAINT and r.verdict != TaintVerdict.NOT_RUN]
    taint = [r for r in ran if not r.path_differs]
    stat = [r for r in ok if r.method == Method.STAT and stat_standing(r.verdict) is not Standing.NOT_CHECKED]
    taint_leaks = [r for r in taint if r.verdict != TaintVerdict.CLEAN]
    stat_leaks = [r for r in stat if stat_standing(r.verdict) is Standing.LEAK]
    suspects = [r for r in stat if stat_standing(r.verdict) is Standing.SUSPECT]
    if taint_leaks:
        return CtMark(CtStatus.LEAKS, Method.TAINT, run_id, when, _leak_detail(taint_leaks), _leaks(taint_leaks))
    if stat_leaks:
        return CtMark(CtStatus.LEAKS, Method.STAT, run_id, when, _leak_detail(stat_leaks), _leaks(stat_leaks))
    if suspects:
        return CtMark(CtStatus.SUSPECT, Method.STAT, run_id, when, _leak_detail(suspects), _leaks(suspects))
    if taint:
        return CtMark(CtStatus.CLEAN, Method.TAINT, run_id, when)
    if ran:  # every taint check ran on another path than the timed one
        return CtMark(CtStatus.OTHER_PATH, Method.TAINT, run_id, when, _timed_path(ran))
    if stat and not native:
        return CtMark(CtStatus.NO_LEAK_DETECTED, Method.STAT, run_id, when)
    if stat:
        return CtMark(CtStatus.NOT_CHECKED, Method.STAT, run_id, when, "statistics only: taint not run")
    return NOT_CHECKED


def ct_marks(store: Store, run_id: int) -> dict[tuple[str, str], CtMark]:
    """(implementation, primitive) of run `run_id` -> the mark of the newest run that checked
    the same build and code path; pairs never checked are absent."""
    return {k: mark for k, (mark, _rows) in ct_checks(store, run_id).items()}


def ct_checks(store: Store, run_id: int) -> dict[tuple[str, str], tuple[CtMark, list[Mapping[str, Any]]]]:
    """ct_marks, with the stored ct results each mark was made from (to show beside the run)."""
    ours: dict[str, tuple[str, str]] = {}  # pair key -> (impl, primitive)
    for im in (Implementation.of(i) for i in store.run(run_id)["implementations"]):
        if im.build:
            for prim in im.primitives or {}:
                ours[pair_key(im.build, _announced(im), prim)] = (im.impl, prim)
    found: dict[str, tuple[int, datetime, bool]] = {}
    grouped: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for rid, started, impl_row, row in store.ct_checked():  # newest run first
        im, ct = Implementation.of(impl_row), CtRow.of(row)
        if not im.build:
            continue
        key = pair_key(im.build, _announced(im), ct.primitive)
        if key in ours and (key not in found or found[key][0] == rid):
            found[key] = (rid, started, im.runner == "native")
            grouped[(key, rid)].append(row)
    return {ours[k]: (mark_of([CtRow.of(r) for r in grouped[(k, rid)]], native, rid, started), grouped[(k, rid)])
            for k, (rid, started, native) in found.items()}


def _announced(im: Implementation) -> dict[str, Any]:
    """A stored implementation as the runner announced it (pair_key's input)."""
    return {"name": im.impl, "library": im.library, "version": im.version, "notes": im.notes,
            "primitives": im.primitives or {}}


def rows_beside(run_id: int, own: Sequence[Mapping[str, Any]],
                checks: Mapping[tuple[str, str], tuple[CtMark, list[Mapping[str, Any]]]]) -> list[Mapping[str, Any]]:
    """What run `run_id` shows of side channels: its own ct results, then those of other runs
    that vouch for its builds (ct_checks)."""
    return [*own, *(x for _, found in checks.values() for x in found if x.get("run_id") != run_id)]
