"""Debian releases as environments, with the real thing: a bullseye root filesystem built
by mmdebstrap with OpenSSL 1.1.1w, the engine built inside with gcc 10, started inside.

The environment is created once per machine and reused from the cache directory
($CIPHERBENCH_ENVS or ~/.cache/cipherbench/envs): the first `make test` builds it
(about 3 to 6 minutes, most of it mmdebstrap; the time is printed), later ones find it;
tests/conftest.py's release_env makes it once a run for this file and tests/test_seed_axes.py.
Without root or Debian's archive these tests are skipped, saying why.
"""
import json
import os
import subprocess
import sys

import pytest
from conftest import ENV_NAME, ENV_RELEASE, REPO

RELEASE, ENV = ENV_RELEASE, ENV_NAME  # OpenSSL's adapter only: the smallest environment that says something
IMPL = f"{ENV}:openssl"

#: FIPS-197 appendix C.1: AES-128 of 00112233...ff under key 00010203...0f.
FIPS197_KEY = "000102030405060708090a0b0c0d0e0f"
FIPS197_PT = "00112233445566778899aabbccddeeff"
FIPS197_CT = "69c4e0d86a7b0430d8cdb78070b4c55a"
#: FIPS 180-2 appendix B.1: SHA-256("abc").
SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def cli(*args, db=None, timeout=900):
    env = dict(os.environ)
    if db:
        env["CIPHERBENCH_DB"] = db
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=REPO)


@pytest.fixture(scope="module")
def environment(release_env):
    """The environment, created once a machine and found up to date once a run
    (tests/conftest.py, release_env); `env list --json`."""
    return release_env


def test_the_record_names_the_release_its_openssl_and_its_compiler(environment):
    rec = next(e for e in environment if e["name"] == ENV)
    assert (rec["release"], rec["suite"]) == (RELEASE, RELEASE)
    assert rec["debian_version"].startswith("11.")
    versions = {p["package"]: p["version"] for p in rec["packages"]}
    assert versions["libssl-dev"].startswith("1.1.1w")
    assert rec["compiler"].startswith("g++ 10.")
    assert rec["engine_problem"] == "" and rec["adapters_not_compiled"] == []
    openssl = next(i for i in rec["implementations"] if i["name"] == "openssl")
    assert openssl["available"] and openssl["version"].startswith("OpenSSL 1.1.1w")


def test_its_implementations_carry_its_name_and_release(environment):
    r = cli("--env", ENV, "list", "--json")
    assert r.returncode == 0, r.stderr
    impls = {i["name"]: i for i in json.loads(r.stdout)["implementations"]}
    assert impls[IMPL]["version"].startswith("OpenSSL 1.1.1w")
    assert impls[IMPL]["environment"]["release"] == RELEASE
    assert impls[IMPL]["environment"]["package_version"].startswith("1.1.1w")
    assert impls[IMPL]["environment"]["compiler"].startswith("g++ 10.")
    assert impls[IMPL]["primitives"]["aes-128-gcm"].startswith("built in")  # no providers in 1.1.1
    # the host's own OpenSSL is still there, under its own name and its own release
    assert impls["openssl"]["version"].startswith("OpenSSL 3.")
    assert impls["openssl"]["environment"]["host"] is True


def test_known_answers_through_the_environment(environment):
    r = cli("--env", ENV, "encrypt", IMPL, "aes-128-ecb", "--key", FIPS197_KEY, "--in", FIPS197_PT)
    assert (r.returncode, r.stdout.strip()) == (0, FIPS197_CT), r.stderr
    r = cli("--env", ENV, "decrypt", IMPL, "aes-128-ecb", "--key", FIPS197_KEY, "--in", FIPS197_CT)
    assert (r.returncode, r.stdout.strip()) == (0, FIPS197_PT), r.stderr
    r = cli("--env", ENV, "hash", IMPL, "sha-256", "--in", "616263")
    assert (r.returncode, r.stdout.strip()) == (0, SHA256_ABC), r.stderr


def test_verify_passes_in_the_environment(environment):
    args = ["--env", ENV, "verify", "--impl", IMPL, "--json"]
    for p in ("aes-128-cbc", "aes-128-gcm", "aes-128-ctr", "chacha20-poly1305", "sha-256"):
        args += ["--primitive", p]
    r = cli(*args)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    summary = json.loads(r.stdout)["summary"]
    assert (summary["pairs"], summary["passed"], summary["failed"]) == (5, 5, 0)


def test_a_run_measures_both_generations_and_stores_where_each_was_built(environment, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    r = cli("--env", ENV, "run", "--impl", "openssl", "--impl", IMPL, "--primitive", "aes-128-ctr",
            "--sizes", "1024", "--batch-ms", "1", "--batches", "2", "--processes", "1", "--no-extra-rounds",
            "--json", db=db)
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)
    measured = {m["impl"]: m for m in run["measurements"]}
    assert measured[IMPL]["verified"] == "passed" and measured[IMPL]["ns_per_call"] > 0
    assert measured["openssl"]["verified"] == "passed"
    envs = {i["impl"]: i["environment"] for i in run["implementations"]}
    assert envs[IMPL]["release"] == RELEASE and envs["openssl"]["host"] is True
    shown = cli("show", db=db)
    assert f"built in: {IMPL}: {RELEASE} (Debian 11." in shown.stdout


def test_an_environment_not_built_is_one_line():
    r = cli("--env", "no-such-env", "list")
    assert r.returncode != 0
    assert r.stderr.strip().count("\n") == 0
    assert "no environment 'no-such-env'" in r.stderr


def test_create_without_root_or_archive_says_so_in_one_line(monkeypatch):
    from cipherbench.envs import EnvError, build
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(EnvError, match="needs root"):
        build.preflight(RELEASE, "http://deb.debian.org/debian")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    if not build.shutil.which("mmdebstrap") or not build.shutil.which("bwrap"):
        pytest.skip("mmdebstrap or bwrap not installed")
    with pytest.raises(EnvError, match="cannot be reached"):
        build.preflight(RELEASE, "http://127.0.0.1:9/debian")  # the discard port: nothing listens


def test_a_partial_build_is_not_an_environment(tmp_path, monkeypatch):
    from cipherbench.envs import all_envs, env_named
    monkeypatch.setenv("CIPHERBENCH_ENVS", str(tmp_path))
    (tmp_path / ".sid.partial-123" / "rootfs").mkdir(parents=True)
    (tmp_path / "trixie" / "rootfs").mkdir(parents=True)  # renamed, but its record never written
    assert all_envs() == [] and not env_named("trixie").exists()
    r = subprocess.run([sys.executable, "-m", "cipherbench", "--env", "trixie", "list"], capture_output=True,
                       text=True, env=dict(os.environ, CIPHERBENCH_ENVS=str(tmp_path)), cwd=REPO)
    assert r.returncode != 0 and "no environment 'trixie'" in r.stderr


def _measurement(impl, ns, jitter):
    samples = [{"seq": i, "warmup": False, "loops": 100, "ns": 100 * (ns + jitter * ((i % 5) - 2)),
                "set_aside": None} for i in range(10)]
    return {"impl": impl, "primitive": "aes-128-cbc", "operation": "encrypt", "workload": "bulk", "size": 1024,
            "ns_per_call": ns, "mb_per_s": 1024 / ns * 1e3, "error": None, "verified": "passed",
            "samples": samples, "warnings": []}


def test_the_releases_section_gives_each_release_its_ratio_to_the_host_with_an_interval():
    from cipherbench.report import releases
    from cipherbench.results.run import ReportData, Run
    env = {"release": "bullseye", "debian_version": "11.11", "host": False, "package": "libssl-dev",
           "package_version": "1.1.1w-0+deb11u1", "compiler": "g++ 10.2.1"}
    host = {"release": "bookworm", "debian_version": "12.12", "host": True, "package": "libssl-dev",
            "package_version": "3.0.17-1~deb12u2", "compiler": "g++ 12.2.0"}
    run = Run.of(1, {"uuid": "u", "profile": "debian-releases"}, {},
              [{"impl": "openssl", "version": "OpenSSL 3.0.17 1 Jul 2025", "environment": host},
               {"impl": "bullseye:openssl", "version": "OpenSSL 1.1.1w  11 Sep 2023", "environment": env}],
              [], [_measurement("openssl", 1000.0, 5.0), _measurement("bullseye:openssl", 800.0, 4.0)])
    [row] = releases.rows(run)
    old, new = row.cells  # in Debian's order: 11 before 12
    assert (old.build.release, new.build.release) == ("bullseye", "bookworm")
    assert old.ratio == pytest.approx(1.25)  # 1000 ns on the host, 800 in bullseye: 1.25 times the speed
    assert old.low < 1.25 < old.high and old.verdict == "faster"
    [t] = releases.tables(run, ReportData([run]))
    assert t.columns == ["primitive", "size", "bullseye (1.1.1w) MB/s", "bookworm (3.0.17), host MB/s",
                         "bullseye vs host"]
    assert t.rows[0][-1].startswith("×1.25 [") and t.rows[0][-1].endswith("▲")


def _descendants(pid: int) -> list[int]:
    from pathlib import Path
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            out += [int(child)] + _descendants(int(child))
    return out


def test_the_engine_inside_runs_pinned_to_the_measuring_cpu(environment):
    """bwrap starts the engine as its child: the affinity set before exec reaches it."""
    from cipherbench.measure.environments import runner_specs
    from cipherbench.measure.session import Session, measuring_cpu
    with Session(builtin=False, extra_specs=tuple(runner_specs([ENV])), pin=True) as s:
        assert IMPL in s.impls
        proc = s.process_of(IMPL).proc
        inside = [p for p in _descendants(proc.pid)
                  if os.readlink(f"/proc/{p}/exe").endswith("cipherbench-engine")]
        assert inside, "the engine is not among bwrap's children"
        assert all(os.sched_getaffinity(p) == {measuring_cpu()} for p in inside + [proc.pid])


def test_remove_deletes_an_environment_and_list_no_longer_shows_it(tmp_path):
    from cipherbench.envs.environment import EnvRecord
    rec = EnvRecord(name="old", release="bullseye", suite="bullseye", debian_version="11.11",
                    mirror="http://deb.debian.org/debian", adapters=["openssl"], compiler="g++ 10.2.1",
                    compiler_package="g++-10 10.2.1-6", cmake="3.18.4-2+deb11u1")
    (tmp_path / "old" / "rootfs").mkdir(parents=True)
    (tmp_path / "old" / "env.json").write_text(rec.to_json())
    env = dict(os.environ, CIPHERBENCH_ENVS=str(tmp_path))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "cipherbench", "env", *args], capture_output=True,
                              text=True, env=env, cwd=REPO)
    listed = json.loads(run("list", "--json").stdout)
    assert [(e["name"], e["release"], e["compiler"]) for e in listed] == [("old", "bullseye", "g++ 10.2.1")]
    if os.geteuid() != 0:
        pytest.skip("env remove needs root")
    r = run("remove", "old")
    assert r.returncode == 0 and not (tmp_path / "old").exists()
    assert json.loads(run("list", "--json").stdout) == []
    r = run("remove", "old")
    assert r.returncode != 0 and r.stderr.strip().count("\n") == 0 and "no environment 'old'" in r.stderr
