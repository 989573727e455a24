"""Verification kept between commands: a pair whose runner, library and known answers have
not changed since it was verified is not verified again.

A result is kept under the pair's identity (kat/identity.py): the implementation's name and
everything its runner announced for it (library, version loaded at run time, the code path
per primitive, the runtime), the bytes of the runner's program and build (`runner_identity`),
and a fingerprint of every known answer the gate could use and of the gate's own code
(`corpus_fingerprint`). Any change to one of them is a different key, so the old result is
simply not found. Each entry says when it was obtained and against what.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from cipherbench.errors import CipherbenchError
from cipherbench.kat.corpora import cavp, pycryptodome
from cipherbench.kat.corpora.long_answers import LARGEST, long_size
from cipherbench.kat.identity import cache_file, digest_file, files_under, pair_key, runner_identity, runner_ids
from cipherbench.kat.outcome import PairResult
from cipherbench.kat.prepared import Prepared
from cipherbench.kat.verify import Verifier
from cipherbench.paths import BUILD, REPO

#: Python distributions whose data the corpora read: each corpus names its own.
CORPUS_PACKAGES = (cavp.PACKAGE, pycryptodome.PACKAGE)
#: Environment variables that point a corpus at other files (kat/corpora/).
CORPUS_LOCATIONS = ("CIPHERBENCH_WYCHEPROOF_DIR", "CIPHERBENCH_SHARED_VECTORS", "CIPHERBENCH_CRYPTOPP_VECTORS")
#: The shared test-vector files read in place (kat/corpora/shared.py).
SHARED_VECTORS = REPO.parent / "shared" / "vectors"


#: The gate's modules that keep and name its results, not check pairs: a change to them changes
#: no result, and must not send 3,578 pairs through the gate again (an hour at 1 MiB).
NOT_CHECKS = frozenset({"cache.py", "identity.py"})


@lru_cache(maxsize=1)
def corpus_fingerprint() -> str:
    """Every input of the gate but the runners: its checking code (kat/ but NOT_CHECKS), the registry, the project's
    vector files, the shared vector files (by name, size and time: they are large), the
    corpus packages' versions and the fetched Wycheproof pin."""
    h = hashlib.sha256()
    for p in [p for p in files_under(REPO / "cipherbench" / "kat", "*.py") if p.name not in NOT_CHECKS] + files_under(
            REPO / "vectors") + [REPO / "registry" / "primitives.toml"]:
        digest_file(h, p)
    if SHARED_VECTORS.is_dir():
        for p in files_under(SHARED_VECTORS):
            st = p.stat()
            h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}".encode())
    for dist in CORPUS_PACKAGES:
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    wycheproof = BUILD / "wycheproof.json"
    if wycheproof.exists():
        digest_file(h, wycheproof)
    for var in CORPUS_LOCATIONS:  # a corpus read from elsewhere is another corpus
        h.update(f"{var}={os.environ.get(var, '')}".encode())
    return h.hexdigest()


def to_json(r: PairResult) -> dict[str, Any]:
    """A result as JSON: its counters as plain objects, its set as a sorted list."""
    d = {}
    for f in fields(r):
        v = getattr(r, f.name)
        d[f.name] = sorted(v) if isinstance(v, set) else dict(v) if isinstance(v, dict) else v
    return d


def from_json(d: dict[str, Any]) -> PairResult:
    known = {f.name for f in fields(PairResult)}
    r = PairResult(**{k: v for k, v in d.items() if k in known})
    r.agrees_with_verified = set(r.agrees_with_verified)
    for counter in ("checks", "corpus_counts", "skipped_counts"):
        setattr(r, counter, defaultdict(int, getattr(r, counter)))
    return r


@dataclass
class Entry:
    obtained_at: str  # ISO 8601, UTC
    corpus: str  # corpus_fingerprint() it was obtained against
    runner: str  # runner_identity() of the runner that answered
    result: dict[str, Any]
    depth: int  # the message length its long answers reached (corpora/long_answers.py, long_size)


#: Results of another corpus fingerprint than the reading command's are dropped this long after
#: they were obtained: two checkouts of different gate code (a branch beside main) keep each other's.
STALE_DAYS = 7


def _read(path: Path) -> tuple[dict[str, Entry], dict[str, dict[str, str]]]:
    """The entries and missing corpora a results file holds; a file that cannot be read holds none."""
    try:
        raw = json.loads(path.read_text())
        return ({k: Entry(**v) for k, v in raw.get("entries", {}).items()},
                {c: dict(m) for c, m in raw.get("missing_corpora", {}).items()})
    except (OSError, ValueError, TypeError, AttributeError):
        return {}, {}


def merged(on_disk: dict[str, Entry], mine: dict[str, Entry]) -> dict[str, Entry]:
    """Two commands' results as one: every key of either, the deeper result where both have one,
    then the later; another fingerprint's results only while under STALE_DAYS old."""
    fp = corpus_fingerprint()
    now = datetime.now(UTC)
    out: dict[str, Entry] = {}
    for k, e in list(on_disk.items()) + list(mine.items()):
        if e.corpus != fp and not _recent(e.obtained_at, now):
            continue
        kept = out.get(k)
        if kept is None or (e.corpus == fp, e.depth, e.obtained_at) > (kept.corpus == fp, kept.depth, kept.obtained_at):
            out[k] = e
    return out


def _recent(obtained_at: str, now: datetime) -> bool:
    try:
        when = datetime.fromisoformat(obtained_at)
    except ValueError:
        return False
    return (now - when.astimezone(UTC)).days < STALE_DAYS


class VerifyCache:
    """The results of earlier verifications, read from and written back to one JSON file
    (atomically: a file renamed into place). A file that cannot be read is an empty cache."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_file()
        self.entries, self.missing = _read(self.path)

    def get(self, key: str, depth: int = LARGEST) -> tuple[PairResult, Entry] | None:
        """The pair's result, when it was obtained against today's corpora with long answers
        at least `depth` bytes long."""
        e = self.entries.get(key)
        if e is None or e.corpus != corpus_fingerprint() or e.depth < long_size(depth):
            return None
        return from_json(e.result), e

    def held(self, depth: int = LARGEST) -> int:
        """How many pairs' results it holds that get() would give at `depth` (today's corpora,
        long answers at least that deep), of whatever runner builds."""
        fp, size = corpus_fingerprint(), long_size(depth)
        return sum(1 for e in self.entries.values() if e.corpus == fp and e.depth >= size)

    def put(self, key: str, runner: str, r: PairResult, depth: int) -> None:
        """Keep a result, unless one as deep is kept already: a shallower check does not
        replace a deeper one."""
        kept = self.entries.get(key)
        if kept is not None and kept.corpus == corpus_fingerprint() and kept.depth > long_size(depth):
            return
        self.entries[key] = Entry(datetime.now(UTC).isoformat(timespec="seconds"), corpus_fingerprint(),
                                  runner, to_json(r), long_size(depth))

    def save(self, missing_corpora: dict[str, str]) -> None:
        """Write the results back, merged with what the file holds now: another command may
        have saved since this one read it (a study's hour-long run, begun before a whole gate
        that ended first, once wrote back the 303 results it had read over the gate's 3,578).
        Of two results for one key the deeper stands, then the later. Results of another
        corpus fingerprint (another checkout's gate code) stay while under STALE_DAYS old."""
        fp = corpus_fingerprint()
        self.missing[fp] = dict(missing_corpora)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # held until the new file is in place
                on_disk, missing = _read(self.path)
                self.entries = merged(on_disk, self.entries)
                missing[fp] = self.missing[fp]
                fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".verify-cache")
                with os.fdopen(fd, "w") as f:
                    json.dump({"entries": {k: asdict(e) for k, e in self.entries.items()},
                               "missing_corpora": {c: m for c, m in missing.items()
                                                   if any(e.corpus == c for e in self.entries.values())}}, f)
                os.replace(tmp, self.path)
        except OSError:
            pass  # a cache that cannot be written is only slower next time

    def missing_corpora(self) -> dict[str, str]:
        return dict(self.missing.get(corpus_fingerprint(), {}))


def _oracle_identity(s: Any, impl: str) -> str | None:
    """An oracle implementation as it is now: its runner's identity and what it announced
    (library, version); None when it is not there any more."""
    try:
        im = s.implementation(impl)
    except CipherbenchError:
        return None
    r = next((r for r in s.runners if r.spec.name == im.runner and r.hello), None)
    return pair_key(runner_identity(r.spec.argv, r.hello) if r else "", im.as_dict(), "oracle")


def shared_prepared() -> Path | None:
    """$CIPHERBENCH_PREPARED_DIR: a folder of computed records shared by every results file
    (the test suite's, so that its commands compute each set once a run and a second run none);
    None, or the variable empty: each results file's records sit next to it."""
    folder = os.environ.get("CIPHERBENCH_PREPARED_DIR", "")
    return Path(folder) if folder else None


class PreparedCache:
    """The computed records of the gate (prepared.Prepared) kept between runs, next to the
    results file: computing them asks the ECB oracles for tens of megabytes and takes about
    a minute. They are kept under the corpus fingerprint, the primitives and the
    implementations available (the oracle chosen depends on them), and used only while every
    oracle they came from is the same program with the same library. One file per depth
    (a quick run's and a full gate's do not replace each other); in a shared folder
    (shared_prepared), one file per key, named by the corpus fingerprint and the key, so that
    sets of different primitives do not replace each other either."""

    def __init__(self, results: Path, shared: Path | None = None):
        """results: the results file (VerifyCache.path) these records sit next to, unless
        `shared` names a folder they are kept in by their key."""
        self.results, self.shared = results, shared

    def path(self, depth: int, key: str = "") -> Path:
        if self.shared is not None:
            return self.shared / f"{corpus_fingerprint()[:16]}-{key[:32]}.pickle"
        return self.results.with_name(f"{self.results.stem}-prepared-{long_size(depth)}.pickle")

    @staticmethod
    def key(s: Any, prims: list[Any], depth: int) -> str:
        available = sorted(n for n, im in s.impls.items() if im.available)
        return hashlib.sha256(json.dumps([corpus_fingerprint(), sorted(p.name for p in prims), available,
                                          long_size(depth)]).encode()).hexdigest()

    def load(self, s: Any, prims: list[Any], depth: int) -> Prepared | None:
        key = self.key(s, prims, depth)
        try:
            with open(self.path(depth, key), "rb") as f:
                kept = pickle.load(f)  # a file of this project's own build folder, written below
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
            return None
        if not isinstance(kept, dict) or kept.get("key") != key:
            return None
        oracles = kept.get("oracles", {})
        if any(_oracle_identity(s, impl) != was for impl, was in oracles.items()):
            return None
        prepared = kept.get("prepared")
        return prepared if isinstance(prepared, Prepared) else None

    def save(self, s: Any, prims: list[Any], prepared: Prepared) -> None:
        key = self.key(s, prims, prepared.depth)
        kept = {"key": key, "prepared": prepared,
                "oracles": {impl: _oracle_identity(s, impl) for impl in prepared.oracles}}
        try:
            path = self.path(prepared.depth, key)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".verify-prepared")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(kept, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:
            pass  # only slower next time


def prepare(s: Any, prims: list[Any], keep: PreparedCache, depth: int) -> Prepared:
    """The gate's computed records for prims, long answers `depth` bytes long: the kept ones
    while still good, else computed and kept."""
    prepared = keep.load(s, prims, depth)
    if prepared is None:
        prepared = Verifier(s).prepare(prims, depth)
        keep.save(s, prims, prepared)
    return prepared


@dataclass
class Verified:
    """What the gate says of some pairs, and which of them it remembered."""

    results: list[PairResult]
    missing_corpora: dict[str, str]
    cached: dict[tuple[str, str], str]  # (impl, primitive) -> when the remembered result was obtained


def verify(s: Any, pairs: list[tuple[Any, Any]], progress: Any = None, reverify: bool = False,
           cache: VerifyCache | None = None, keep_prepared: PreparedCache | None = None,
           depth: int = LARGEST) -> Verified:
    """The gate over (Implementation, Primitive) pairs, remembering results: a pair whose key
    (pair_key) has a result obtained against today's corpora is not verified again, unless
    `reverify`, or checked with long answers shorter than `depth` bytes (the largest
    message to be timed). The computed records are kept next to the results (PreparedCache):
    `reverify` checks every pair again, against the same records while their oracles are
    unchanged. progress: callable(label) per pair, as Verifier's."""
    cache = cache or VerifyCache()
    keep_prepared = keep_prepared or PreparedCache(cache.path, shared_prepared())
    ids = runner_ids(s)
    found: dict[tuple[str, str], PairResult] = {}
    cached: dict[tuple[str, str], str] = {}
    unchecked = []
    for im, p in pairs:
        key = pair_key(ids.get(im.runner, ""), im.as_dict(), p.name)
        hit = None if reverify else cache.get(key, depth)
        if hit is None:
            unchecked.append((im, p, key))
            continue
        found[(im.name, p.name)], cached[(im.name, p.name)] = hit[0], hit[1].obtained_at
        if progress:
            progress(f"{im.name} {p.name} (remembered)")
    missing = cache.missing_corpora()
    if unchecked:
        prims = list({p.name: p for _, p, _ in unchecked}.values())
        v = Verifier(s, progress=progress)
        with s.spread():  # nothing here is timed: the runners may use every CPU (Session.spread)
            fresh = {(r.impl, r.primitive): r for r in v.run([(im, p) for im, p, _ in unchecked],
                                                             prepare(s, prims, keep_prepared, depth))}
        missing = v.missing_corpora
        for im, p, key in unchecked:
            r = fresh[(im.name, p.name)]
            found[(im.name, p.name)] = r
            if not any(f.get("check") == "runner" for f in r.failures):  # a runner's fault is not the pair's
                cache.put(key, ids.get(im.runner, ""), r, depth)
        cache.save(missing)
    return Verified([found[(im.name, p.name)] for im, p in pairs], missing, cached)
