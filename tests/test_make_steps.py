"""The steps of `make bench` and `make test`: the Debian packages of the default path and of
each axis (packages.txt's sections, scripts/install-system-deps, cipherbench/system_packages.py),
the runners built side by side (scripts/build-runners), and each step's time (scripts/step)."""
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

from cipherbench import durations, system_packages
from cipherbench.durations import StepEnd, step_line
from cipherbench.system_packages import Axis, PackagesError

INSTALLER = REPO / "scripts" / "install-system-deps"
NOT_A_PACKAGE = "cipherbench-test-no-such-package"


def sections() -> dict[str, list[str]]:
    """packages.txt's sections as the file reads: header -> its packages ("" before the first)."""
    got: dict[str, list[str]] = {"": []}
    name = ""
    for line in (REPO / "packages.txt").read_text().splitlines():
        if line.strip().startswith("["):
            name = line.strip()[1:-1]
            got[name] = []
        elif line.split("#")[0].strip():
            got[name].append(line.split("#")[0].strip())
    return got


def installed(pkg: str) -> bool:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
    return "install ok installed" in r.stdout


def test_every_section_is_an_axis_and_the_tests_install_all_they_use():
    assert set(sections()) - {""} == {a.value for a in Axis}
    make = (REPO / "Makefile").read_text()
    [axes] = re.findall(r"^TEST_AXES := (.*)$", make, re.M)
    # benchmarks/noise is the one user of its section, and no test runs it
    assert set(axes.split()) == {a.value for a in Axis} - {Axis.NOISE.value}


#: packages.txt as the installer reads it: comments, blank lines, a package in two sections
PACKAGES_TXT = """# the default path [not a section: a comment]
bash
cipherbench-test-core-b   # a comment after
  cipherbench-test-core-a

[builds]
# what builds uses
cipherbench-test-builds
bash
[test]
cipherbench-test-builds
cipherbench-test-only
"""


def installer_in(tmp_path: Path, text: str = PACKAGES_TXT) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(INSTALLER, tmp_path / "scripts")
    (tmp_path / "packages.txt").write_text(text)
    return tmp_path / "scripts" / "install-system-deps"


def listed(installer: Path, *args: str) -> list[str]:
    """What the installer says is missing; the manifests read from this checkout."""
    r = subprocess.run([str(installer), "--missing", *args], capture_output=True, text=True, check=True,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    return r.stdout.split()


def test_the_installer_reads_the_default_path_and_each_section_apart(tmp_path):
    installer = installer_in(tmp_path)
    # the default path: the lines before the first section (and the manifests' packages, which
    # make test has installed), not a section's
    assert listed(installer) == ["cipherbench-test-core-a", "cipherbench-test-core-b"]
    # its two parts: the core's and the adapters' (the engine's build), then the runners'
    assert listed(installer, "--engine") == ["cipherbench-test-core-a", "cipherbench-test-core-b"]
    assert listed(installer, "--runners") == []
    assert listed(installer, "--axis", "builds") == ["cipherbench-test-builds"]
    assert listed(installer, "--axis", "test", "--axis", "builds", "cipherbench-test-extra") == [
        "cipherbench-test-builds", "cipherbench-test-extra", "cipherbench-test-only"]
    assert listed(installer, "bash") == []


def test_the_axis_packages_are_not_the_default_paths():
    core = set(sections()[""])
    assert core and not core & {p for name, pkgs in sections().items() if name for p in pkgs}


def manifest_packages() -> set[str]:
    from cipherbench import manifest
    return {p for m in manifest.adapters() + manifest.runners() for p in m.packages.default}


@pytest.mark.parametrize("kind", ["adapters", "runners"])
def test_the_manifests_packages_come_by_kind(kind):
    from cipherbench import manifest
    r = subprocess.run([system_python(), "-m", "cipherbench.manifest", "--packages", kind], capture_output=True,
                       text=True, cwd=REPO, check=True)
    folders = manifest.adapters() if kind == "adapters" else manifest.runners()
    assert r.stdout.split() == sorted({p for m in folders for p in m.packages.default})


def test_an_unknown_section_or_option_is_one_line():
    for args, what in ((["--missing", "--axis", "nosuch"], "packages.txt has no section [nosuch]"),
                       (["--nosuch"], "unknown option --nosuch")):
        r = subprocess.run([str(INSTALLER), *args], capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.strip().splitlines() == [r.stderr.strip()] and what in r.stderr


def test_an_axis_whose_packages_are_there_installs_nothing_and_says_nothing():
    for axis in set(Axis) - {Axis.NOISE}:
        assert system_packages.missing(axis) == [], "make test installs every section the tests use"
    said: list[str] = []
    assert system_packages.ensure(Axis.BUILDS, say=said.append) == [] and said == []


def test_a_missing_package_without_root_is_one_line_naming_the_command(monkeypatch):
    monkeypatch.setattr(system_packages, "can_install", lambda: False)
    with pytest.raises(PackagesError) as e:
        system_packages.ensure(Axis.ARCH, [NOT_A_PACKAGE])
    assert str(e.value) == (f"cipherbench arch needs Debian packages that are not installed: {NOT_A_PACKAGE}; install "
                            f"them as root: scripts/install-system-deps --axis arch {NOT_A_PACKAGE}")


def test_a_failed_installation_is_one_line(monkeypatch):
    """The installer's failure (here: a stand-in that fails as apt-get would) ends in one line."""
    said: list[str] = []
    real = system_packages._installer

    def failing(axis, extra, *options):
        if "--missing" in options:
            return real(axis, extra, *options)
        return subprocess.CompletedProcess([], 100, "", "E: Unable to locate package\nE: stopped\n")
    monkeypatch.setattr(system_packages, "_installer", failing)
    monkeypatch.setattr(system_packages, "can_install", lambda: True)
    with pytest.raises(PackagesError) as e:
        system_packages.ensure(Axis.ARCH, [NOT_A_PACKAGE], say=said.append)
    assert said == [f"cipherbench arch: first use here, installing its Debian packages {NOT_A_PACKAGE} "
                    f"(scripts/install-system-deps --axis arch {NOT_A_PACKAGE})"]
    assert str(e.value) == f"installing {NOT_A_PACKAGE} failed: E: Unable to locate package E: stopped"


# ---------------------------------------------------------------------------- each step's time
@pytest.mark.parametrize("seconds, end, line", [
    (52.4, StepEnd.DONE, "== engine: 52 s"), (3.24, StepEnd.FAILED, "== engine: failed after 3.2 s"),
    (341, StepEnd.TOTAL, "== engine: 5 min 41 s in all"), (3000, StepEnd.DONE, "== engine: 50 min")])
def test_a_step_line_writes_its_time_as_every_duration_is_written(seconds, end, line):
    assert step_line("engine", seconds, end) == line
    assert line.endswith(durations.duration(seconds) + {StepEnd.DONE: "", StepEnd.FAILED: "",
                                                         StepEnd.TOTAL: " in all"}[end])


def test_a_step_line_says_its_cpu_after_its_time():
    assert step_line("engine", 52.4, StepEnd.DONE, 100.2) == "== engine: 52 s, CPU 1 min 40 s"
    assert step_line("engine", 3.24, StepEnd.FAILED, 0.0) == "== engine: failed after 3.2 s, CPU 0.0 s"
    r = subprocess.run([system_python(), "-m", "cipherbench.durations", "--step", "vectors", "--cpu", "9.94", "75.2"],
                       capture_output=True, text=True, cwd=REPO)
    assert (r.returncode, r.stdout) == (0, "== vectors: 75 s, CPU 9.9 s\n")
    r = subprocess.run([system_python(), "-m", "cipherbench.durations", "--step", "v", "--cpu", "nan", "1"],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].endswith("not a number of seconds: nan")


def system_python() -> str:
    """The system's python3, as scripts/step finds it before the virtual environment exists."""
    found = shutil.which("python3", path="/usr/bin:/bin")
    assert found, "python3 is in packages.txt"
    return found


def test_the_step_line_needs_only_the_standard_library():
    r = subprocess.run([system_python(), "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from cipherbench.durations import main; sys.exit(main(['--step', 'vectors', '75.2']))",
                        str(REPO)], capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "== vectors: 75 s\n", "")
    assert "rich" not in subprocess.run([system_python(), "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                                         "import cipherbench.durations; print(sorted(sys.modules))", str(REPO)],
                                        capture_output=True, text=True, check=True).stdout


def test_scripts_step_runs_the_command_and_says_how_long_it_took(tmp_path):
    step = str(REPO / "scripts" / "step")
    r = subprocess.run([step, "a step", "sh", "-c", "echo inside; exit 0"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "inside"
    assert re.fullmatch(r"== a step: \d\.\d s, CPU \d\.\d s", r.stdout.splitlines()[1])
    r = subprocess.run([step, "a step", "sh", "-c", "exit 7"], capture_output=True, text=True)
    assert r.returncode == 7 and re.fullmatch(r"== a step: failed after \d\.\d s, CPU \d\.\d s\n", r.stdout)
    r = subprocess.run([step, "--since", "0", "make bench"], capture_output=True, text=True)
    assert r.returncode == 0 and re.fullmatch(r"== make bench: \d+\.\d h in all\n", r.stdout)  # since 1970


def test_scripts_step_counts_the_cpu_of_the_commands_processes_not_their_waiting():
    """The CPU is the command's processes' (a grandchild's too), from bash's `times`: a command
    that only sleeps used none, one that hashes 200 MB in a child of a child used some."""
    step = str(REPO / "scripts" / "step")
    r = subprocess.run([step, "waits", "sleep", "0.3"], capture_output=True, text=True)
    assert r.returncode == 0 and re.fullmatch(r"== waits: 0\.\d s, CPU 0\.0 s\n", r.stdout), r.stdout
    r = subprocess.run([step, "works", "sh", "-c", "head -c 200000000 /dev/zero | sha256sum >/dev/null"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and not re.search(r", CPU 0\.0 s$", r.stdout.strip()), r.stdout


# ---------------------------------------------------------------------------- a fresh machine's installs
def test_a_fresh_machine_is_one_without_the_default_paths_packages_but_essential_ones(tmp_path):
    """--fresh: none of packages.txt's default-path lines installed, Debian's Essential packages
    (bash, util-linux: every Debian has them) aside; one that is installed and not Essential
    (python3, make test's) and the machine is not fresh."""
    def fresh(core: str) -> int:
        (tmp_path / str(len(core))).mkdir()
        installer = installer_in(tmp_path / str(len(core)), core + "\n[builds]\npython3\n")
        return subprocess.run([str(installer), "--fresh"], capture_output=True, text=True).returncode
    assert fresh("util-linux\nbash\ncipherbench-test-core-a") == 0
    assert fresh("util-linux\npython3\ncipherbench-test-core-a") == 1
    assert subprocess.run([str(INSTALLER), "--fresh"]).returncode == 1  # this host: the tests' packages


def apt_command(installer: Path, *args: str) -> str:
    r = subprocess.run([str(installer), "--print-command", *args], capture_output=True, text=True, check=True,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    return r.stdout.strip()


def test_dpkg_unpacks_without_syncing_only_when_asked(tmp_path):
    installer = installer_in(tmp_path)
    assert apt_command(installer, "--engine").endswith(
        "apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "
        "cipherbench-test-core-a cipherbench-test-core-b")
    assert apt_command(installer, "--unsafe-io", "--axis", "builds").endswith(
        "apt-get -o DPkg::Lock::Timeout=600 -o DPkg::Options::=--force-unsafe-io install -y -q "
        "--no-install-recommends cipherbench-test-builds")
    assert apt_command(installer, "--unsafe-io", "bash") == ""  # installed: no command at all


def test_one_update_of_apts_lists_a_make_not_one_a_step(tmp_path):
    """--since EPOCH: lists this script updated after EPOCH (build/apt-updated) are not updated again."""
    installer = installer_in(tmp_path)
    update = "apt-get -o DPkg::Lock::Timeout=600 update -q"
    assert apt_command(installer, "--engine", "--since", "1000").splitlines()[0].endswith(update)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "apt-updated").touch()
    os.utime(tmp_path / "build" / "apt-updated", (2000, 2000))
    assert apt_command(installer, "--engine", "--since", "1000").splitlines()[0].endswith(" install -y -q "
                                                                                          "--no-install-recommends "
                                                                                          "cipherbench-test-core-a "
                                                                                          "cipherbench-test-core-b")
    assert apt_command(installer, "--engine", "--since", "3000").splitlines()[0].endswith(update)  # before make began
    assert apt_command(installer, "--engine").splitlines()[0].endswith(update)  # no --since: always


def make_dry(*goals: str, fresh: str | None) -> list[str]:
    """The commands `make -n GOALS` would run here, CB_FRESH_MACHINE as given (None: judged by make)."""
    env = {k: v for k, v in os.environ.items() if k != "CB_FRESH_MACHINE"}
    if fresh is not None:
        env["CB_FRESH_MACHINE"] = fresh
    r = subprocess.run(["make", "-n", "--no-print-directory", *goals], capture_output=True, text=True, cwd=REPO,
                       env=env, check=True)
    return r.stdout.splitlines()


def test_make_installs_without_dpkgs_sync_on_a_fresh_machine_alone():
    goals = ("engine-deps", "longest-runner-deps", "runner-deps", "test-deps")
    for fresh, unsafe in (("yes", True), ("no", False), (None, False)):  # None: this host, not fresh
        installs = [line for line in make_dry(*goals, fresh=fresh) if "scripts/install-system-deps" in line]
        assert len(installs) == 4 and all(("--unsafe-io" in line) == unsafe for line in installs), (fresh, installs)


def test_the_longest_runner_builds_packages_come_second_and_its_build_does_not_wait_for_the_others():
    """make runners-ready installs the core's, then the longest runner build's packages (Rust's
    toolchain), and starts the ready runners then, without the other runners' packages."""
    lines = make_dry("runners-ready", fresh="no")
    steps = [line.split('"')[1] for line in lines if line.startswith("scripts/step ")]
    assert steps == ["Debian packages: the core's and the adapters'", "Debian packages: the longest runner build's",
                     "runners that need only the core's packages"]
    r = subprocess.run([system_python(), "-m", "cipherbench.manifest", "--packages", "longest-runner"],
                       capture_output=True, text=True, cwd=REPO, check=True)
    from cipherbench import manifest
    rust = manifest.read(REPO / "runners" / "rust", manifest.FolderKind.RUNNER)
    assert r.stdout.split() == sorted(rust.packages.default)


def test_the_longest_runner_is_the_one_stating_the_longest_first_build():
    from cipherbench import manifest
    rust, go = (manifest.read(REPO / "runners" / n, manifest.FolderKind.RUNNER) for n in ("rust", "go"))
    assert manifest.longest_runner([go, rust]) == [rust]
    assert manifest.longest_runner([go]) == [go]
    assert manifest.longest_runner([dataclasses.replace(go, build_seconds=0)]) == []
    tie = dataclasses.replace(go, build_seconds=rust.build_seconds)
    assert manifest.longest_runner([rust, tie]) == [tie]  # a tie: by name, go before rust


# ---------------------------------------------------------------------------- runners side by side
def runner_tree(tmp_path: Path, scripts: dict[str, str]) -> Path:
    """A checkout with scripts/build-runners and these runners' build.sh."""
    (tmp_path / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "build-runners", tmp_path / "scripts")
    for lang, body in scripts.items():
        (tmp_path / "runners" / lang).mkdir(parents=True)
        (tmp_path / "runners" / lang / "build.sh").write_text(body)
    return tmp_path


def meets(other: str, tmp_path: Path, within_s: int) -> str:
    """A build that starts, then passes only if `other` starts while it waits."""
    return (f'touch "{tmp_path}/$(basename "$(dirname "$0")").started"\n'
            f'for i in $(seq {within_s * 10}); do [ -e "{tmp_path}/{other}.started" ] && exit 0; sleep 0.1; done\n'
            'echo "never met"; exit 1\n')


def build_runners(tree: Path, cpus: str) -> subprocess.CompletedProcess[str]:
    """The script with the CPUs it may use (nproc counts those)."""
    return subprocess.run(["taskset", "-c", cpus, str(tree / "scripts" / "build-runners")], capture_output=True,
                          text=True, timeout=120)


def test_runners_build_side_by_side_as_many_as_there_are_cpus(tmp_path):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.fail("the suite runs on two CPUs or more (pytest -n 2)")
    cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2])
    tree = runner_tree(tmp_path / "two", {"a": meets("b", tmp_path / "two", 60), "b": meets("a", tmp_path / "two", 60)})
    r = build_runners(tree, cpus)
    assert r.returncode == 0 and sorted(line.split(":")[0] for line in r.stdout.splitlines()) == [
        "  runner a", "  runner b"] and r.stdout.count(": built (") == 2, r.stdout
    assert sorted(p.stem for p in (tree / "build" / "runners").glob("*.ok")) == ["a", "b"]
    # on one CPU one at a time: whichever goes first waits for the other in vain, and fails alone
    tree = runner_tree(tmp_path / "one", {"a": meets("b", tmp_path / "one", 2), "b": meets("a", tmp_path / "one", 2)})
    r = build_runners(tree, cpus.split(",")[0])
    assert r.returncode == 0  # a runner's failure does not fail the build
    ok = sorted(p.stem for p in (tree / "build" / "runners").glob("*.ok"))
    [failed] = {"a", "b"} - set(ok)
    assert len(ok) == 1 and f"  runner {failed}: BUILD FAILED after " in r.stdout
    assert "    never met" in r.stdout and r.stdout.splitlines()[-1] == f"  runners not built: {failed} (their logs are above)"


def test_each_runners_line_says_its_builds_cpu(tmp_path):
    """A build's CPU is its own processes' (bash's `times` in the build's subshell): the one that
    sleeps used none while the one counting to a million in a child shell beside it did."""
    tree = runner_tree(tmp_path / "t", {"idle": "sleep 1\n",
                                        "busy": "bash -c 'i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done'\n"})
    r = build_runners(tree, ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2]))
    lines = dict(line.split(": ", 1) for line in r.stdout.splitlines())
    assert re.fullmatch(r"built \(\d+ s, CPU 0 s\)", lines["  runner idle"]), r.stdout
    assert re.fullmatch(r"built \(\d+ s, CPU [1-9]\d* s\)", lines["  runner busy"]), r.stdout
    assert not list((tree / "build" / "runners").glob("*.times"))


def test_the_longest_build_here_goes_first(tmp_path):
    order = tmp_path / "order"
    tree = runner_tree(tmp_path / "t", {lang: f'echo {lang} >> "{order}"\n' for lang in ("a", "b", "c")})
    (tree / "build" / "runners").mkdir(parents=True)
    for lang, seconds in (("a", 3), ("b", 90)):  # c was never built here: it goes first
        (tree / "build" / "runners" / f"{lang}.seconds").write_text(f"{seconds}\n")
    assert build_runners(tree, str(sorted(os.sched_getaffinity(0))[0])).returncode == 0
    assert order.read_text().split() == ["c", "b", "a"]


def test_a_first_build_goes_by_the_manifests_seconds(tmp_path):
    """A fresh machine has timed nothing: the manifests' build from nothing orders it, a runner
    timed here by its own time, one with neither first."""
    order = tmp_path / "order"
    tree = runner_tree(tmp_path / "t", {lang: f'echo {lang} >> "{order}"\n' for lang in ("a", "b", "c", "d")})
    (tree / "cipherbench").mkdir()
    (tree / "cipherbench" / "__init__.py").write_text("")
    # the manifests as cipherbench.manifest --build-seconds prints them (d states 0: none)
    (tree / "cipherbench" / "manifest.py").write_text('print("5 a\\n140 b\\n30 c\\n0 d")\n')
    (tree / "build" / "runners").mkdir(parents=True)
    (tree / "build" / "runners" / "a.seconds").write_text("60\n")  # timed here: its own time
    assert build_runners(tree, str(sorted(os.sched_getaffinity(0))[0])).returncode == 0
    assert order.read_text().split() == ["d", "b", "a", "c"]


def test_runners_whose_packages_are_in_build_first_and_each_runner_once(tmp_path):
    """--ready builds the runners whose packages are installed (make starts it beside the engine);
    the call after it, --since make's start, builds only the others; a runner another live call
    has claimed is skipped, a claim whose call is gone is taken over."""
    order = tmp_path / "order"
    tree = runner_tree(tmp_path / "t", {lang: f'echo {lang} >> "{order}"\n' for lang in ("a", "b", "c", "d")})
    (tree / "cipherbench").mkdir()
    (tree / "cipherbench" / "__init__.py").write_text("")
    # dpkg (the package of dpkg-query itself) is installed; the other package is no Debian package
    (tree / "cipherbench" / "manifest.py").write_text(
        'import sys\n'
        'print("a dpkg\\nb dpkg cipherbench-no-such-package\\nc\\nd" if "--runner-packages" in sys.argv else "")\n')
    (tree / "build" / "runners" / "d.claim").mkdir(parents=True)
    (tree / "build" / "runners" / "d.claim" / "pid").write_text(f"{os.getpid()}\n")  # a live call's
    cpu = str(sorted(os.sched_getaffinity(0))[0])
    since = str(int(time.time()) - 1)
    r = subprocess.run([str(tree / "scripts" / "build-runners"), "--ready", "--since", since], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and sorted(order.read_text().split()) == ["a", "c"], r.stdout + r.stderr
    r = subprocess.run(["taskset", "-c", cpu, str(tree / "scripts" / "build-runners"), "--since", since],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and sorted(order.read_text().split()) == ["a", "b", "c"], r.stdout  # d: claimed
    (tree / "build" / "runners" / "d.claim" / "pid").write_text("999999999\n")  # a call that is gone
    assert build_runners(tree, cpu).returncode == 0
    assert sorted(order.read_text().split()) == ["a", "a", "b", "b", "c", "c", "d"]  # no --since: every one
    assert not list((tree / "build" / "runners").glob("*.claim"))
    r = subprocess.run([str(tree / "scripts" / "build-runners"), "--soon"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr == "build-runners: unknown argument --soon (--ready, --since EPOCH)\n"


def test_every_runner_states_its_first_builds_seconds():
    r = subprocess.run([sys.executable, "-m", "cipherbench.manifest", "--build-seconds"], capture_output=True,
                       text=True, cwd=REPO, check=True)
    stated = {name: int(secs) for secs, name in (line.split() for line in r.stdout.splitlines())}
    assert sorted(stated) == sorted(p.name for p in (REPO / "runners").iterdir() if (p / "build.sh").is_file())
    assert all(s > 0 for s in stated.values()) and max(stated, key=stated.__getitem__) == "rust"
