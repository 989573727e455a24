import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Fixtures and hooks of their own modules (tests/fixtures_*.py)
pytest_plugins = ["fixtures_bytecode"]
# pytest-xdist's workers run with COLUMNS=80 and LINES=24 set; the commands the tests start
# must see the environment a plain `pytest` gives them (a test that wants a width sets it).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

BUILD = Path(os.environ.get("CIPHERBENCH_BUILD", REPO / "build"))
ENGINE = Path(os.environ.get("CIPHERBENCH_ENGINE", BUILD / "engine" / "cipherbench-engine"))
FAULTY = REPO / "tests" / "runners" / "faulty.py"
#: The tests' builds that a fresh clone would make again (the engine variants of tests/test_builds.py
#: and tests/test_seed_axes.py, the s390x engine of tests/test_arch.py), kept outside the clone,
#: as the Makefile keeps ccache's and cargo's (CI clones afresh every run): each is rebuilt when
#: its key changes (the sources, the compiler's version, the flags: builds/make.py cache_key,
#: arch/build.py build_key), and built under a lock, so two clones never build one at once.
TEST_BUILDS = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cipherbench" / "test-builds"
os.environ.setdefault("CIPHERBENCH_VARIANTS", str(TEST_BUILDS / "variants"))
#: The gate's computed records (kat/cache.py, PreparedCache), shared by every test and every
#: command a test starts, kept outside the clone by their content (the corpora's fingerprint
#: and the oracles' runners' identities, which name the clone's paths relative to it): each set
#: is computed once (seconds to tens of seconds: model and carry answers asked of the ECB
#: oracles), and a second run or a second clone of the same code computes none. Only computed
#: known answers are shared: each test keeps its own verification results.
#: (CIPHERBENCH_PREPARED_DIR set empty: each results file's records beside it, as for a user.)
os.environ.setdefault("CIPHERBENCH_PREPARED_DIR", str(TEST_BUILDS / "prepared"))
#: Records of other corpora (other code) kept this long after they were made, for another
#: clone's suite that may still be running on that code
STALE_PREPARED_S = 2 * 86400


def pytest_sessionstart(session):
    """The shared records of other corpora (kat/cache.py names each file by the fingerprint
    of the corpora it was computed against) are of no use to this code: removed once older than
    STALE_PREPARED_S (another clone's suite may be running on other code)."""
    from cipherbench.kat.cache import corpus_fingerprint, shared_prepared
    shared = shared_prepared()
    if shared is None or not shared.is_dir():
        return
    today = corpus_fingerprint()[:16]
    for old in shared.glob("*.pickle"):
        try:
            if not old.name.startswith(today) and time.time() - old.stat().st_mtime > STALE_PREPARED_S:
                old.unlink(missing_ok=True)
        except FileNotFoundError:  # another clone's session removed it first
            pass


@pytest.fixture(autouse=True)
def _store_environment():
    """What a test leaves in the store's and the fleet's environment is undone after it: a
    member's credentials set PGPASSFILE and the store's authority in the process itself
    (Credentials.use_store, as `--credentials` does), and the tests share two worker
    processes, so a later test of another file would reach its stores as a fleet member and
    be refused. The state a module's fixture set before the test is the state restored."""
    from cipherbench.fleet.security import CREDENTIALS_ENV
    from cipherbench.store.pgauth import STORE_CA_ENV
    before = {k: os.environ.get(k) for k in ("PGPASSFILE", STORE_CA_ENV, CREDENTIALS_ENV)}
    yield
    for k, v in before.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(autouse=True)
def _remembered_secrets():
    """The secrets a command run in this process remembered (cli.main: redact.remember, a set
    of the process's, which every message is searched for) are forgotten after the test: the
    tests share two worker processes, and a later test's `hide` would search each message for
    every secret of every earlier test, one expression compiled of all their forms per call.
    A hypothesis test that runs cli.main leaves dozens of them, and the carrier test after it
    took about 30 s of CPU instead of 2."""
    from cipherbench import redact
    before = set(redact._known)
    yield
    redact._known.clear()
    redact._known.update(before)


@pytest.fixture(scope="session")
def engine():
    """The native engine, for tests that talk to runners; without it they are skipped, and
    the pure-Python tests (statistics, models, registry, store, imports) still run."""
    if not ENGINE.exists():
        pytest.skip(f"needs the native engine: {ENGINE} is missing (make engine)")
    return ENGINE


#: Test modules whose every test talks to built runners (the engine as an ECB oracle, the
#: language runners, relinked engines), directly rather than through the fixtures above.
NEEDS_RUNNERS = {"test_compare", "test_report", "test_conformance", "test_model_aead", "test_placement",
                 "test_postgres", "test_session"}


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    longest_first(config, items)
    if ENGINE.exists():
        return
    skip = pytest.mark.skip(reason=f"needs the built engine and runners: {ENGINE} is missing (make engine runners)")
    for item in items:
        if item.module.__name__ in NEEDS_RUNNERS:
            item.add_marker(skip)


# ---------------------------------------------------------------------------- longest first
# `make test` runs two workers with --dist loadgroup --no-loadscope-reorder: a unit of work is
# one test, or every test of a module that uses a fixture made once for several of its tests
# (module or class scope: the unit keeps them on one worker, which makes it once). The workers
# take units in the order given here, one at a time as they finish, longest first; without
# --no-loadscope-reorder xdist would put the units with the most tests first instead.
#: Seconds per test (setup, call and teardown) in the last run here that ran it: outside the clone,
#: beside TEST_BUILDS, so that a fresh clone's run (CI's) has the order too
TEST_SECONDS = TEST_BUILDS.parent / "test-seconds.json"
_took: dict[str, float] = {}
#: Fixture scopes that make one value for several tests of a module
SHARED_SCOPES = ("module", "class", "package")


#: TEST_SECONDS as this run read it at its start, once (another run may rewrite the file while
#: this one's workers collect, and xdist needs their orders the same): the workers' copy is
#: given to them in their workerinput
SECONDS, SECONDS_READ = "cipherbench_test_seconds", pytest.StashKey[dict[str, float]]()


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config.stash[SECONDS_READ] = last_seconds()


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, in the process that starts the workers
def pytest_configure_node(node):
    node.workerinput[SECONDS] = node.config.stash[SECONDS_READ]


def plain_id(nodeid: str) -> str:
    """A test's node id without the group xdist appends to it under loadgroup ("...@group"; an
    "@" inside a parameter's brackets is the parameter's)."""
    return nodeid.rsplit("@", 1)[0] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid


def unit_of(item) -> str:
    """The unit of work `item` goes in: its module's, when it uses a fixture of SHARED_SCOPES;
    else its own."""
    if any(defs[-1].scope in SHARED_SCOPES for defs in item._fixtureinfo.name2fixturedefs.values()):
        return item.nodeid.split("::")[0]
    return item.nodeid


def longest_first(config, items) -> None:
    """The units of work (unit_of) in the order of their last run's time here, longest first
    (units never run here first of all, in their own order), each unit's tests together: the
    last units to start are then short ones, not a two-minute one. A module's unit is marked
    xdist_group (its name the module's). Every worker is given the seconds its run read at
    its start, so they agree on the order, as xdist needs."""
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(unit_of(item), []).append(item)
    for unit, members in units.items():
        if unit != members[0].nodeid:
            for item in members:
                item.add_marker(pytest.mark.xdist_group(unit))
    seconds = config.workerinput[SECONDS] if hasattr(config, "workerinput") else config.stash[SECONDS_READ]

    def took(members: list) -> float:
        return sum(seconds.get(item.nodeid, float("inf")) for item in members)
    items[:] = [item for members in sorted(units.values(), key=lambda m: -took(m)) for item in members]


def pytest_runtest_logreport(report):
    """Each test's setup, call and teardown, added up (in the process that runs pytest: with
    xdist, the one that hears every worker's reports)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        test = plain_id(report.nodeid)
        _took[test] = _took.get(test, 0.0) + report.duration


def last_seconds() -> dict[str, float]:
    try:
        return dict(json.loads(TEST_SECONDS.read_text()))
    except (OSError, ValueError, TypeError):
        return {}


def pytest_sessionfinish(session):
    """The tests' seconds added to those of the tests this run did not run, written whole
    (renamed into place: a run that reads it meanwhile reads the old file or the new)."""
    if _took and not os.environ.get("PYTEST_XDIST_WORKER"):
        seconds = last_seconds()
        seconds.update({test: round(took, 2) for test, took in _took.items()})
        TEST_SECONDS.parent.mkdir(parents=True, exist_ok=True)
        partial = TEST_SECONDS.with_name(f"{TEST_SECONDS.name}.{os.getpid()}")
        partial.write_text(json.dumps(seconds, indent=0, sort_keys=True))
        partial.replace(TEST_SECONDS)


@pytest.fixture(autouse=True)
def own_verify_cache(tmp_path, monkeypatch):
    """Every test, and every command it starts, verifies against a cache of its own, and
    remembers the durations of long commands in a file of its own (estimates stay the plan's)."""
    monkeypatch.setenv("CIPHERBENCH_VERIFY_CACHE", str(tmp_path / "verify-cache.json"))
    monkeypatch.setenv("CIPHERBENCH_DURATIONS", str(tmp_path / "durations.json"))


@pytest.fixture()
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'results.sqlite'}"


@pytest.fixture()
def cb(db, engine, tmp_path):
    """Run the CLI as a user does; returns CompletedProcess. Each test has its own
    verification cache, so no test sees what another verified."""
    def run(*args, env=None, timeout=300):
        e = dict(os.environ, CIPHERBENCH_DB=db, CIPHERBENCH_VERIFY_CACHE=str(tmp_path / "verify-cache.json"),
                 CIPHERBENCH_DURATIONS=str(tmp_path / "durations.json"))
        e.update(env or {})
        return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True,
                              text=True, timeout=timeout, env=e, cwd=REPO)
    return run


def faulty(mode: str) -> str:
    return f"{sys.executable} {FAULTY} {mode}"


@pytest.fixture(scope="session")
def native_session(engine):
    from cipherbench.measure.session import Session
    s = Session(builtin=True, only_runners={"native"}, pin=False)
    yield s
    s.close()


@pytest.fixture
def shared_vectors():
    """The published vectors read in place beside the clone (kat/cache.py SHARED_VECTORS):
    a test whose pairs pass verification only on them is skipped, with the reason, without them."""
    from cipherbench.kat.cache import SHARED_VECTORS
    if not SHARED_VECTORS.is_dir():
        pytest.skip(f"needs the shared test vectors at {SHARED_VECTORS}, which this clone does not have beside it")


def results_document(uuid: str, impls: list[str], prims: list[str], host: str = "lab-1", profile: str = "quick",
                     command: str = "cipherbench run", settings: dict | None = None) -> dict:
    """A small results document (docs/results-format.md) made without running anything: every
    implementation verified and timed on every primitive at 16 and 1024 bytes, encryption in
    bulk, three timed batches each, the figures made up (the i-th implementation's j-th
    primitive takes 100 (i+1) (j+1) ns per 16 bytes). For `cipherbench import`, then report."""
    ms, vers, imps = [], [], []
    for i, impl in enumerate(impls):
        imps.append({"impl": impl, "runner": "native", "library": f"{impl} library", "version": "1.0",
                     "available": True, "primitives": {p: "portable C" for p in prims}})
        for j, prim in enumerate(prims):
            vers.append({"impl": impl, "primitive": prim, "status": "passed"})
            for size in (16, 1024):
                ns = 100.0 * (i + 1) * (j + 1) * size / 16
                ms.append({"impl": impl, "primitive": prim, "operation": "encrypt", "workload": "bulk", "size": size,
                           "loops": 10, "n": 3, "ns_per_call": ns, "ns_low": ns * 0.99, "ns_high": ns * 1.01,
                           "mb_per_s": size / ns * 1e3, "rel_mad": 0.01, "verified": "passed",
                           "provider": "portable C",
                           "samples": [{"warmup": False, "loops": 10, "ns": ns * 10 * (1 + k / 100)} for k in range(3)]})
    return {"schema": "cipherbench-results", "version": 1,
            "run": {"uuid": uuid, "started_at": "2026-01-02T03:04:05+00:00", "finished_at": "2026-01-02T03:05:05+00:00",
                    "status": "complete", "profile": profile, "kind": "speed", "command": command, "host": host,
                    "cipherbench_version": "0.1.0", "settings": settings or {}, "warnings": []},
            "context": {"host": host}, "implementations": imps, "verifications": vers, "measurements": ms}


# ---------------------------------------------------------------------------- made once a run
# The suite runs on two workers (pytest-xdist, make test); what several test files need and
# takes seconds to make is made once a run, by whichever worker asks first, under a lock the
# other waits on, in the folder every worker's temporary folders sit in.
@contextlib.contextmanager
def locked(path: Path):
    """An exclusive lock on `path` (made if missing) while the block runs, across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run_root(tmp_path_factory) -> Path:
    """The folder this run's workers share: the parent of each worker's temporary folder
    (without xdist, the run's own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The folder `name`, made by `make(folder)` once a run, whichever worker asks first; a
    make that failed leaves nothing, and the next asker tries again."""
    root = run_root(tmp_path_factory)
    done = root / name
    with locked(root / f"{name}.lock"):
        if not done.is_dir():
            partial = root / f"{name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
            make(partial)
            partial.rename(done)
    return done


def cipherbench(db: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout)


#: The two small runs the narrow-terminal tests read (tests/test_narrow.py; tests/test_terminal.py
#: makes a run and a renamed copy of its own): three libraries, an AEAD and a hash, at 16 B and
#: 16 KiB, runs 1 and 2 (for compare).
SMALL_RUN = ("run", "--impl", "openssl", "--impl", "nettle", "--impl", "gcrypt", "--primitive", "aes-128-gcm",
             "--primitive", "sha-256", "--sizes", "16,16k", "--batch-ms", "1", "--batches", "2")


@pytest.fixture(scope="session")
def two_small_runs(tmp_path_factory, engine) -> Path:
    """A store holding SMALL_RUN twice, made once a run; copy it (small_store_copy) before
    writing to it."""
    def make(folder: Path) -> None:
        for _ in range(2):
            r = cipherbench(f"sqlite:///{folder / 'r.sqlite'}", *SMALL_RUN)
            assert r.returncode == 0, r.stderr
    return made_once(tmp_path_factory, "two-small-runs", make) / "r.sqlite"


def small_store_copy(two_small_runs: Path, folder: Path) -> str:
    """A copy of the two small runs' store of the caller's own (a test may add runs to it)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(two_small_runs, folder / "r.sqlite")
    return f"sqlite:///{folder / 'r.sqlite'}"


# ---------------------------------------------------------------------------- a Debian release
#: The release environment of the tests (tests/test_envs.py, tests/test_seed_axes.py): bullseye
#: with OpenSSL's adapter only, the smallest environment that says something.
ENV_RELEASE, ENV_NAME = "bullseye", "bullseye-openssl"
#: A release whose OpenSSL is 3.2 or later (3.5 in trixie), with OpenSSL's adapter only: what
#: only a newer OpenSSL does (tests/test_envs_openssl3.py: SM4-XTS's two tweak conventions).
NEW_ENV_RELEASE, NEW_ENV_NAME = "trixie", "trixie-openssl"


def archive_reachable(release: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://deb.debian.org/debian/dists/{release}/Release", timeout=20):
            return True
    except OSError:
        return False


def openssl_env(tmp_path_factory, pytestconfig, release: str, name: str) -> list[dict]:
    """The environment `name` of `release` with OpenSSL's adapter, created (once a machine: the
    environments' cache, about 2 to 6 minutes, most of it mmdebstrap) or found up to date, once a
    run, under a lock the other worker waits on; `env list --json`. Skipped, saying why, without
    root or Debian's archive."""
    from cipherbench.envs import env_named
    if not env_named(name).exists():
        if os.geteuid() != 0:
            pytest.skip(f"building the {release} environment needs root (mmdebstrap)")
        if not archive_reachable(release):
            pytest.skip(f"Debian's archive (deb.debian.org) has no reachable {release}")

    def make(folder: Path) -> None:
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "cipherbench", "env", "create", release, "--name", name,
                            "--adapter", "openssl"], capture_output=True, text=True, cwd=REPO, timeout=1800)
        assert r.returncode == 0, r.stdout + r.stderr
        reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
        if reporter:
            reporter.write_line(f"\n[{name}] env create {release} --name {name}: "
                                f"{time.monotonic() - t0:.0f} s ({'reused' if 'up to date' in r.stdout else 'built'})")
    made_once(tmp_path_factory, f"env-{name}", make)
    r = subprocess.run([sys.executable, "-m", "cipherbench", "env", "list", "--json"], capture_output=True, text=True,
                       cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="session")
def release_env(tmp_path_factory, pytestconfig) -> list[dict]:
    """bullseye-openssl (openssl_env)."""
    return openssl_env(tmp_path_factory, pytestconfig, ENV_RELEASE, ENV_NAME)


@pytest.fixture(scope="session")
def new_openssl_env(tmp_path_factory, pytestconfig) -> list[dict]:
    """trixie-openssl (openssl_env)."""
    return openssl_env(tmp_path_factory, pytestconfig, NEW_ENV_RELEASE, NEW_ENV_NAME)


# ---------------------------------------------------------------------------- kept in build/
@contextlib.contextmanager
def environ(name: str, value: str):
    """os.environ[name] = value while the block runs (the commands and modules that read it
    then), as it was after."""
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


#: Where the tests keep their other CPUs' engines (outside the clone: TEST_BUILDS) and their
#: libraries' releases (in it: a release's venv links the clone's runner libraries): made once a
#: machine, rebuilt when what they are made from changes (cipherbench/arch, cipherbench/releases).
ARCH_DIR, RELEASES_DIR = TEST_BUILDS / "arch", BUILD / "releases-test"
#: The releases of pyca/cryptography the tests install (tests/test_releases.py): 41.0.7 and
#: 42.0.0, whose bundled OpenSSL moved from 3.1.4 to 3.2.0.
PYCA_RELEASES = ("41.0.7", "42.0.0")
#: The npm releases of noble the tests install (tests/test_releases_npm.py): @noble/ciphers
#: 1.3.0 (CommonJS with an exports map) and 2.0.0 (ES modules, no map), @noble/hashes 1.8.0.
NOBLE_RELEASES = (("noble-ciphers", "1.3.0"), ("noble-ciphers", "2.0.0"), ("noble-hashes", "1.8.0"))


@pytest.fixture(scope="session")
def s390x_fault_engine():
    """The s390x engine with the planted faults (tests/test_arch.py's FAULT_BUILD: the reference
    RC6 alone), cross-built once a machine under ARCH_DIR (again when the engine's sources
    change) and checked up to date once a run, under a lock on that folder: two workers, or
    two runs, never build it at once. (ArchBuild, ArchRecord); CIPHERBENCH_ARCH_DIR names the
    folder while the build's users run (arch_dir)."""
    from cipherbench.arch.architecture import Arch, BuildOptions, arch_build
    from cipherbench.arch.build import add
    options = BuildOptions(adapters=("null", "reference"), reference_ciphers=("rc6",), test_faults=True)
    with locked(ARCH_DIR / ".lock"), environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        rec = add(Arch.S390X, options, say=lambda s: None, install=False)
        return arch_build(Arch.S390X, options), rec


@pytest.fixture(scope="session")
def riscv64_reference_engine():
    """The riscv64 engine with the reference ciphers alone (tests/test_arch_runtimes.py): the cross
    toolchain's own C library suffices, no sysroot, no network; cross-built once a machine under
    ARCH_DIR, as s390x_fault_engine. (ArchBuild, ArchRecord)."""
    from cipherbench.arch.architecture import Arch, BuildOptions, arch_build
    from cipherbench.arch.build import add
    options = BuildOptions(adapters=("null", "reference"))
    with locked(ARCH_DIR / ".lock"), environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        rec = add(Arch.RISCV64, options, say=lambda s: None, install=False)
        return arch_build(Arch.RISCV64, options), rec


@pytest.fixture(scope="session")
def arm64_go_runner():
    """The Go runner cross-built for arm64 (cipherbench/arch/runtimes.py: GOARCH, cgo off) under
    ARCH_DIR once a machine (go's cache makes it seconds after), under the same lock.
    (ArchBuild, RuntimeRecord). Skipped without go."""
    return cross_built("arm64", "go")


@pytest.fixture(scope="session")
def s390x_rust_runner():
    """The Rust runner cross-built for s390x (cipherbench/arch/runtimes.py: Debian's rustc-web, the
    s390x standard library of its release from trixie) under ARCH_DIR once a machine, as
    arm64_go_runner; cargo's cross target folder makes it about a minute after the first (thin LTO
    of the runner's crate). (ArchBuild, RuntimeRecord). Skipped without Debian's rustc-web."""
    return cross_built("s390x", "rust")


def cross_built(arch_name: str, runtime_name: str):
    """A language runner cross-built for an architecture (cipherbench/arch/runtimes.py) under
    ARCH_DIR once a machine (kept while its sources, compiler and library are the same:
    RuntimeRecord.sources), under the lock on that folder; (ArchBuild, RuntimeRecord). Skipped
    without the compiler it takes: go, or Debian's rustc-web."""
    from cipherbench.arch import runtimes
    from cipherbench.arch.architecture import Arch, arch_build
    rt = runtimes.Runtime(runtime_name)
    if rt is runtimes.Runtime.GO and shutil.which("go") is None:
        pytest.skip("needs go (runners/go/manifest.toml)")
    if rt is runtimes.Runtime.RUST and not runtimes.package_version(runtimes.RUST_PACKAGE):
        pytest.skip("needs Debian's rustc-web and cargo-web (runners/rust/manifest.toml)")
    with locked(ARCH_DIR / ".lock"), environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        recs = runtimes.add(Arch(arch_name), say=lambda s: None, runtimes=(rt,))
        return arch_build(Arch(arch_name)), recs[rt]


@pytest.fixture(scope="session")
def ppc64el_go_runner():
    """The Go runner cross-built for ppc64el (GOARCH ppc64le), as arm64_go_runner."""
    return cross_built("ppc64el", "go")


@pytest.fixture(scope="session")
def ppc64el_rust_runner():
    """The Rust runner cross-built for ppc64el: Debian's rustc-web with the ppc64el standard library
    of its release (bookworm-security's very build, else trixie's: runtimes.RUST_STD_PLACES), as
    s390x_rust_runner. (ArchBuild, RuntimeRecord)."""
    return cross_built("ppc64el", "rust")


@pytest.fixture(scope="session")
def pyca_releases():
    """PYCA_RELEASES installed (or found installed) under RELEASES_DIR, once a machine, under a
    lock on that folder; version -> (Release, newly installed). CIPHERBENCH_RELEASES_DIR names
    the folder while their users run."""
    if not (BUILD / "runners" / "python.ok").exists():
        pytest.skip("needs the Python runner (make runners)")
    from cipherbench.releases.install import install
    from cipherbench.releases.release import PACKAGES
    from cipherbench.releases.release import Release as Installed
    with locked(RELEASES_DIR / ".lock"), environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        return {v: install(Installed(PACKAGES["pyca-cryptography"], v)) for v in PYCA_RELEASES}


@pytest.fixture(scope="session")
def noble_releases():
    """NOBLE_RELEASES installed (or found installed) by npm under RELEASES_DIR, once a machine,
    under a lock on that folder; (package, version) -> (ReleaseRecord, newly installed)."""
    if not (BUILD / "runners" / "node.ok").exists():
        pytest.skip("needs the Node runner (make runners)")
    if shutil.which("npm") is None:
        pytest.skip("needs npm (NodeSource's nodejs ships it; Debian's is the npm package)")
    from cipherbench.releases.install import install
    from cipherbench.releases.release import PACKAGES
    from cipherbench.releases.release import Release as Installed
    with locked(RELEASES_DIR / ".lock"), environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        return {(p, v): install(Installed(PACKAGES[p], v)) for p, v in NOBLE_RELEASES}
