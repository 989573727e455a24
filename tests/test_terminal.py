"""Every command that prints a table, as a person sees it in an 80 x 24 terminal (tmux), on a
store whose implementations carry the names other runs give them (IMPL==VERSION,
RELEASE:impl, IMPL%ARCH, IMPL@COMPILER:FLAGS) and a long library name. The commands come
from the command line's registry (cipherbench/cli/__init__.py): one added without a screen
here, or without the reason it has none, fails test_every_command_is_on_a_screen.

All screens run one after another in one tmux window, captured once (capture-pane -J joins
the lines the terminal wrapped, so a line wider than the window shows whole). A screen
fails on a line wider than 80 columns, an ellipsis right after a letter or a figure (a name
or number cut short; a cut between words is ' …'), a name of the store cut where a line
breaks, or a figure split across lines."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field

import pytest
from conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (packages.txt)")

WIDTH = 80
#: An ellipsis right after a letter, a digit or a closing mark: something cut short.
CUT = re.compile(r"[\w,.)\]]…")
#: A figure that ends a line or a cell with a short group of thousands: the rest was wrapped.
SPLIT_FIGURE = re.compile(r"(?<![\w,.])\d{1,3}(?:,\d{3})*,\d{0,2}(?=\s{2,}|$)")
#: What a name is made of on a screen (a colon or dot that ends it is punctuation).
TOKEN = re.compile(r"[\w.:=%@+\-]*[\w=%@+\-]")
#: The marks of a name's structure: a start of a name with one of them, shown alone, was cut.
STRUCTURE = re.compile(r"[-=:%@]")

#: The engine's implementations the store's second run also holds under the names that other
#: runs give them: a release's (==), a release environment's (:), an architecture's (%), a
#: compiler variant's (@); the second pyca-cryptography release is twice as fast, a step.
RENAMED = {
    "openssl": [("openssl==3.0.19", "native", 1.0), ("bookworm:openssl", "bookworm", 1.0),
                ("openssl%s390x", "native", 1.0), ("openssl@gcc:O3", "native", 1.0)],
    "nettle": [("pyca-cryptography==41.0.7", "python", 1.0), ("pyca-cryptography==42.0.0", "python", 2.0)],
}
LONG_LIBRARY = "OpenSSL 3.0.19 27 Jan 2026 (gcc 12.2.0 -O3 -march=native, libssl-dev 3.0.19-1~deb12u1 of bookworm)"
NAMES = {n for copies in RENAMED.values() for n, _, _ in copies} | {"openssl", "nettle", "pyca-cryptography"}


@dataclass
class Home:
    db: str
    env: dict[str, str] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)  # implementations and primitives: never shown in part
    known: set[str] = field(default_factory=set)  # every name a screen may print whole


def _renamed(doc: dict) -> dict:
    """Run 1's document with the RENAMED copies of its implementations beside the originals."""
    doc = json.loads(json.dumps(doc))
    doc["run"]["uuid"] = uuid.uuid4().hex
    for base, copies in RENAMED.items():
        impl = next(i for i in doc["implementations"] if i["impl"] == base)
        ms = [m for m in doc["measurements"] if m["impl"] == base]
        vs = [v for v in doc["verifications"] if v["impl"] == base]
        for name, runner, faster in copies:
            library = LONG_LIBRARY if "@" in name else impl["library"]
            doc["implementations"].append(dict(impl, impl=name, runner=runner, library=library))
            doc["verifications"] += [dict(v, impl=name) for v in vs]
            for m in ms:
                m = dict(m, impl=name)
                for k in ("ns_per_call", "ns_low", "ns_high", "cycles_per_call", "cycles_low", "cycles_high",
                          "cycles_per_byte"):
                    m[k] = m[k] / faster if m.get(k) else m.get(k)
                m["mb_per_s"] = m["mb_per_s"] * faster if m.get("mb_per_s") else m.get("mb_per_s")
                m["samples"] = [dict(s, ns=s["ns"] / faster) for s in m.get("samples", [])]
                doc["measurements"].append(m)
    return doc


def _records(home, db: str) -> dict[str, str]:
    """The records the list commands read, with the same names: installed releases, a release
    environment, an architecture, and a fleet run; the variables that point at them."""
    from cipherbench.arch.architecture import Arch, ArchRecord, arch_build
    from cipherbench.envs.environment import EnvRecord, ImplementationRecord
    from cipherbench.fleet.state import FleetRecords, HostState
    from cipherbench.pipeline import RunPlan
    from cipherbench.releases.release import PACKAGES, Release, ReleaseRecord
    from cipherbench.store.db import Store
    env = {"CIPHERBENCH_RELEASES_DIR": str(home / "releases"), "CIPHERBENCH_ENVS": str(home / "envs"),
           "CIPHERBENCH_ARCH_DIR": str(home / "arch")}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        for version in ("41.0.7", "42.0.0"):
            r = Release(PACKAGES["pyca-cryptography"], version)
            r.root.mkdir(parents=True)
            r.write(ReleaseRecord("pyca-cryptography", version, "pypi", "cryptography", version,
                                  "OpenSSL 3.1.4 24 Oct 2023 (bundled by cryptography)",
                                  "OpenSSL 3.1.4 default provider, AES-NI and PCLMUL", 63, False, 41.5,
                                  "2026-11-27T10:00:00+00:00"))
        (home / "envs" / "bookworm" / "rootfs").mkdir(parents=True)
        (home / "envs" / "bookworm" / "env.json").write_text(EnvRecord(
            name="bookworm", release="bookworm", suite="bookworm", debian_version="12.12", mirror="",
            adapters=["openssl"], compiler="g++ 12.2.0", compiler_package="g++-12 12.2.0-14", cmake="3.25.1",
            implementations=[ImplementationRecord("openssl", "OpenSSL", "OpenSSL 3.0.19 27 Jan 2026", True)],
            built_at="2026-11-27T10:00:00+00:00").to_json())
        b = arch_build(Arch.S390X)
        b.root.mkdir(parents=True)
        b.write(ArchRecord(arch="s390x", triplet="s390x-linux-gnu", compiler="s390x-linux-gnu-g++ 12.2.0",
                           qemu="qemu-s390x-static 7.2.19", suite="bookworm", mirror="m", options={},
                           sysroot=str(b.root / "sysroot"),
                           implementations=[ImplementationRecord("openssl", "OpenSSL", "OpenSSL 3.0.19", True)],
                           built_at="2026-11-27T10:00:00+00:00"))
        records = FleetRecords(Store(db))
        fid = records.begin("k", RunPlan.from_preset("quick"), "cipherbench fleet run --machines 2", "local")
        records.set_host(fid, "lab-a.example.org", HostState.COMPLETE, 1)
        records.set_host(fid, "lab-b.example.org", HostState.FAILED, detail="runner native crashed: openssl==3.0.19")
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    return env


@pytest.fixture(scope="module")
def home(tmp_path_factory, engine) -> Home:
    """Run 1: the engine's OpenSSL and Nettle, timed here; run 2: the same with RENAMED copies."""
    from cipherbench import registry
    from cipherbench.report.results_json import document
    from cipherbench.results.run import load_run
    from cipherbench.store.db import Store
    where = tmp_path_factory.mktemp("terminal")
    db = f"sqlite:///{where / 'r.sqlite'}"
    env = {"CIPHERBENCH_DB": db, "CIPHERBENCH_VERIFY_CACHE": str(where / "verify-cache.json"),
           "CIPHERBENCH_DURATIONS": str(where / "durations.json"), "CIPHERBENCH_TEST_LEAKY": "1"}
    r = subprocess.run([sys.executable, "-m", "cipherbench", "run", "--impl", "openssl", "--impl", "nettle",
                        "--primitive", "aes-128-gcm", "--primitive", "chacha20-poly1305", "--primitive", "sha-256",
                        "--sizes", "16,1k,16k", "--batch-ms", "1", "--batches", "2"],
                       capture_output=True, text=True, cwd=REPO, timeout=600, env=dict(os.environ, **env))
    assert r.returncode == 0, r.stderr
    doc = where / "run2.json"
    doc.write_text(json.dumps(_renamed(document(load_run(Store(db), 1))), default=str))
    r = subprocess.run([sys.executable, "-m", "cipherbench", "import", str(doc)], capture_output=True, text=True,
                       cwd=REPO, timeout=120, env=dict(os.environ, **env))
    assert r.returncode == 0 and "as run 2" in r.stdout, r.stdout + r.stderr
    env.update(_records(where, db))
    from cipherbench.cli.stored_run import path_label
    from cipherbench.codepath import NAMES as FEATURE_NAMES
    from cipherbench.store.db import Store
    reg = registry.load()
    paths = {path_label(m) for m in Store(db).run(2)["measurements"]}  # code paths as labels (codepath.code_label)
    names = NAMES | {p.name for p in reg} | paths
    # a label's features, and a label's first features up to a '+', are labels themselves
    # (an implementation's words name "AES-NI" too): whole, never a label cut short
    labels = set(FEATURE_NAMES.values()) | {"+".join(x.split("+")[:k]) for x in paths for k in range(1, x.count("+") + 1)}
    return Home(db, env, names, names | labels | {p.family for p in reg} | {"bookworm", "s390x"})


#: ct's taint check of the test-only RC4 that leaks its key (CIPHERBENCH_TEST_LEAKY=1 announces it).
LEAKY = ("ct", "--impl", "leaky", "--primitive", "rc4", "--method", "taint")
#: The screens, by command path: the arguments of each (run 1 is the engine's, run 2 the same
#: with the names above; the fleet run, the releases, environment and architecture are
#: records made by `home`). `run` comes last: its run would be the latest.
SCREENS: dict[str, list[tuple[str, ...]]] = {
    "list": [("list",), ("list", "--primitives")],
    "verify": [("verify", "--impl", "openssl", "--primitive", "aes-128-gcm")],
    "show": [("show", "2"), ("show", "2", "--long")],
    "runs": [("runs",)],
    "recommend": [("recommend", "2"), ("recommend", "2", "--long")],
    "compare": [("compare", "1", "2")],
    "diffusion": [("diffusion", "aes-128-ecb", "--rounds", "1-2", "--keys", "2", "--blocks", "2")],
    "avalanche": [("avalanche", "openssl", "aes-128-ecb", "--keys", "2", "--blocks", "2")],
    "conformance": [("conformance", "native")],
    "ct": [("ct", "--impl", "openssl", "--primitive", "aes-128-gcm", "--method", "stat", "--samples", "1000"),
           ("ct", "--impl", "openssl", "--primitive", "aes-128-gcm", "--method", "stat", "--samples", "1000",
            "--long")] + ([LEAKY] if shutil.which("valgrind") else []),
    "env list": [("env", "list")],
    "arch list": [("arch", "list")],
    "builds list": [("builds", "list")],
    "fleet status": [("fleet", "status")],
    "versions list": [("versions", "list")],
    "reproduce": [("reproduce", "bingmann2008", "--dry-run")],
    "run": [("run", "--list-experiments"),
            ("run", "--impl", "nettle", "--primitive", "sha-256", "--sizes", "16", "--batch-ms", "1", "--batches",
             "2")],
}
#: What `run` ends with, for run 2 (its release names, its library's steps): the code that
#: prints the end of a run, on a stored run.
RUN_END = ("python", "-c", "from cipherbench.cli.summary import print_steps, show_summary; "
           "from cipherbench.store.db import Store; s = Store(); show_summary(s, 2); print_steps(s, 2)")
#: Commands whose tables are another command's, printed by the same code: the screen that shows it.
SAME_TABLES = {"arch verify": "verify", "builds run": "show", "fleet run": "show",
               "bench": "run, then verify (the quick profile and the whole gate: minutes, not a screen's time)",
               "mutate": "test_mutate_s_score_table_at_80_columns (a real mutant takes half a minute)"}
#: Commands that print no table.
NO_TABLE = {"encrypt", "decrypt", "hash", "report", "export", "import", "env create", "env remove", "arch add",
            "arch remove", "builds make", "fleet init", "fleet scheduler", "fleet worker", "fleet report", "fleet export",
            "versions add", "versions remove"}


def command_paths() -> list[str]:
    """Every command of the command line, a group's as 'group sub', from its registry."""
    import click

    from cipherbench.cli import COMMANDS, cli
    paths = []
    ctx = click.Context(cli)
    for name in sorted(COMMANDS):
        cmd = cli.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            paths += [f"{name} {sub}" for sub in sorted(cmd.list_commands(ctx))]
        else:
            paths.append(name)
    return paths


def test_every_command_is_on_a_screen():
    """Each command prints its table on a screen here, shares one with a command that does,
    or prints none: a new command fails here until it is one of these."""
    paths = command_paths()
    assert "versions list" in paths and "ct" in paths and len(paths) > 30
    placed = set(SCREENS) | set(SAME_TABLES) | NO_TABLE
    assert [p for p in paths if p not in placed] == []
    assert sorted(placed - set(paths)) == []


@dataclass
class Screen:
    args: tuple[str, ...]
    lines: list[str]
    status: int


@pytest.fixture(scope="module")
def screens(home: Home, tmp_path_factory) -> dict[tuple[str, ...], Screen]:
    """Every screen, one after another in one 80 x 24 tmux window, captured once."""
    cases = [a for path in SCREENS for a in SCREENS[path] if path != "run"] + [RUN_END] + SCREENS["run"]
    script = tmp_path_factory.mktemp("tmux") / "screens.sh"
    lines = [f"cd {shlex.quote(str(REPO))}"] + [f"export {k}={shlex.quote(v)}" for k, v in home.env.items()]
    for i, args in enumerate(cases):
        cmd = ([sys.executable, *args[1:]] if args[0] == "python"
               else [sys.executable, "-m", "cipherbench", *args])
        lines += [f"echo '@@screen {i}@@'", " ".join(shlex.quote(x) for x in cmd), f"echo \"@@end {i} $?@@\""]
    lines.append("echo '@@all done@@'; sleep 3600")
    script.write_text("\n".join(lines) + "\n")
    conf = script.with_name("tmux.conf")  # a server of its own, whose window keeps every line
    conf.write_text("set -g history-limit 500000\n")
    tmux = ["tmux", "-L", f"cb-{uuid.uuid4().hex[:8]}", "-f", str(conf)]
    subprocess.run([*tmux, "new-session", "-d", "-s", "screens", "-x", str(WIDTH), "-y", "24", f"sh {script}"],
                   check=True)
    try:
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            text = subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-", "-t", "screens"],
                                  capture_output=True, text=True, check=True).stdout
            if "@@all done@@" in text:
                break
            time.sleep(1)
        else:
            raise AssertionError("the screens did not finish in tmux in 15 minutes")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    (script.parent / "screens.txt").write_text(text)  # what the terminal showed, for a failure's reader
    found = {}
    for i, args in enumerate(cases):
        body = text.split(f"@@screen {i}@@\n", 1)[1]
        shown, end = body.split(f"@@end {i} ", 1)
        found[args] = Screen(args, [x.rstrip() for x in shown.splitlines()], int(end.split("@@", 1)[0]))
    return found


def cut_names(lines: list[str], home: Home) -> list[str]:
    """Tokens that are a name cut short: the start of an implementation's or a primitive's
    name, past a mark of its structure, that is no name itself."""
    starts = {n[:k] for n in home.names for k in range(4, len(n)) if STRUCTURE.search(n[:k])} - home.known
    return [t for x in lines for t in TOKEN.findall(x) if t in starts]


def faults(screen: Screen, home: Home) -> dict[str, list[str]]:
    got = {"wider than 80": [x for x in screen.lines if len(x) > WIDTH],
           "cut short": [x for x in screen.lines if CUT.search(x)],
           "figure split": [x for x in screen.lines if SPLIT_FIGURE.search(x)],
           "name cut": cut_names(screen.lines, home),
           "error": [x for x in screen.lines if "Traceback" in x or "internal error" in x]}
    return {k: v for k, v in got.items() if v}


@pytest.mark.parametrize("args", [a for path in SCREENS for a in SCREENS[path]] + [RUN_END], ids=" ".join)
def test_a_screen_at_80_columns_cuts_nothing(screens, home, args):
    screen = screens[args]
    assert screen.lines, args
    assert screen.status == 0, screen.lines[-5:]
    assert faults(screen, home) == {}


def test_the_release_names_are_on_the_screens_whole(screens, home):
    """The names made for run 2 reach the screens that read it, each whole on one line."""
    for args in (("show", "2"), ("show", "2", "--long"), ("recommend", "2", "--long")):
        text = screens[args].lines
        for name in NAMES - {"pyca-cryptography"}:
            assert any(re.search(rf"(?<![\w.:=%@+\-]){re.escape(name)}(?![\w.:=%@+\-])", x) for x in text), \
                (args, name)
    versions = " ".join(screens[("versions", "list")].lines)
    assert "pyca-cryptography==41.0.7" in versions and "pyca-cryptography==42.0.0" in versions
    # the end of a library's run names its step, between the two releases
    end = " ".join(" ".join(screens[RUN_END].lines).split())
    assert "candidate: cryptography 42.0.0: after 41.0.7;" in end and "×2.00" in end


def test_show_long_is_a_row_per_point_with_its_interval_and_batches(screens):
    """`show` is a row per series; --long a row per point, each with its interval and batches."""
    short, long = screens[("show", "2")].lines, screens[("show", "2", "--long")].lines
    assert any(x.startswith("impl") and "16 B" in x and "1 KiB" in x for x in short)
    assert any("interval" in x and "batches" in x for x in long)
    assert not any(x.startswith("impl") and "batches" in x for x in short)
    rows = [x for x in long if x.startswith("openssl@gcc:O3 ")]
    assert len(rows) >= 9  # 16 B, 1 KiB and 16 KiB of three series at least
    assert len([x for x in short if x.startswith("openssl@gcc:O3 ")]) < len(rows)


def test_a_table_that_does_not_fit_folds_its_columns_under_it_whole(screens, home):
    """recommend --long at 80 columns with the long names: the code path, in words, goes under
    the table, a line per group of rows that share it, named by their rank and names."""
    lines = screens[("recommend", "2", "--long")].lines
    assert not any("code path" in x for x in lines if x.startswith(" #"))  # not a column at 80
    text = " ".join(" ".join(lines).split())
    rank = r"(?:=|\d+)"
    same = ", ".join(f"{rank} {re.escape(n)} aes-128-gcm" for n in
                     ("openssl", "openssl==3.0.19", "bookworm:openssl", "openssl%s390x", "openssl@gcc:O3"))
    assert len(re.findall(same + ": code path ", text)) == 2, text  # bulk and small messages


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_ct_says_what_a_leak_means_at_80_columns(screens):
    text = " ".join(" ".join(screens[LEAKY].lines).split())
    assert "LEAKS" in text and "index: an address computed from the secret" in text


def test_recommend_shows_every_ranked_row_whole_with_its_mark_and_code_path(screens, home):
    """Each row the short answer shows: its rank, names, MB/s and interval on one line, its ct
    mark and code path whole beside them or under the table (not squeezed out of it)."""
    import json

    from cipherbench.codepath import code_label, stored
    from cipherbench.report.answer import interval, mbps
    r = subprocess.run([sys.executable, "-m", "cipherbench", "recommend", "2", "--json"], capture_output=True,
                       text=True, cwd=REPO, timeout=120, env=dict(os.environ, **home.env))
    lines = screens[("recommend", "2")].lines
    text = " ".join(" ".join(lines).split())
    for a in json.loads(r.stdout):
        for f in a["ranked"][:5]:
            cells = [f["impl"], f["primitive"], mbps(f["mb_per_s"])]
            span = interval(type("F", (), {"mb_low": f["mb_low"], "mb_high": f["mb_high"]})())
            assert any(all(re.search(rf"(?<!\S){re.escape(c)}(?!\S)", x) for c in [*cells, span]) for x in lines), f
            for word in (code_label(stored(f["features"])), "ct?"):
                assert re.search(rf"(?<!\S){re.escape(word)}(?![\w+-])", text), (word, f["impl"])


def test_mutate_s_score_table_at_80_columns(home):
    """mutate's tables, by operator and by family, as it prints them, in 80 columns."""
    from rich.console import Console

    from cipherbench.cli.mutate import score_table
    from cipherbench.mutate.score import Tally
    rows = {"authenticated encryption (AEAD) modes": Tally(1000, 120, 3, 870, 7), "stream ciphers": Tally(96, 2, 0, 94, 0)}
    console = Console(width=WIDTH, color_system=None)
    with console.capture() as cap:
        console.print(score_table("family", rows, Tally(1096, 122, 3, 964, 7)))
    lines = cap.get().splitlines()
    assert lines[2].split() == ["authenticated", "encryption", "1000", "120", "3", "870", "7", "99.2", "%"]
    assert lines[3].split() == ["(AEAD)", "modes"] and lines[-1].split() == ["all", "1096", "122", "3", "964", "7",
                                                                            "99.3", "%"]
    assert faults(Screen(("mutate",), lines, 0), home) == {}
