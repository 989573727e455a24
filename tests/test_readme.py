"""Every command line in the README's code blocks is one the command line takes: each option
it names exists on its command (or on cipherbench itself), a line without placeholders
parses as written, a line that can run offline in seconds runs (on a small store where it
reads one), and a fleet scheduler the README starts is one `fleet scheduler` does not
refuse. The README's lines are read from it: a line added there is checked here."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass

import click
import pytest
from conftest import REPO, small_store_copy

from cipherbench.cli import cli

#: A token that stands for a value the reader chooses: RUN, I, P, DIR, URL, F.json, 'CMD', ...
PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z0-9_/.]*|F\.\w+|CMD|\.\.\.|A|B)$")
#: cipherbench's own options that add what a machine must make first (an environment, an
#: architecture's engine, an installed release): a line with one does not run offline.
MADE_ELSEWHERE = ("--env", "--arch", "--release")
#: Command paths that run offline, on this machine's engine, in seconds.
OFFLINE = {"list", "encrypt", "decrypt", "hash", "runs", "show", "recommend", "compare", "env list", "arch list",
           "versions list", "builds list", "diffusion", "avalanche"}
#: Command paths that run offline with one option: it says what they would do, and does nothing.
OFFLINE_WITH = {"run": "--list-experiments", "reproduce": "--dry-run"}


@dataclass(frozen=True)
class Line:
    text: str  # as written, its continuation lines joined, its comment dropped
    output: str  # the README's line after it, where it shows what the command prints


def readme_lines() -> list[Line]:
    text = (REPO / "README.md").read_text()
    found: list[Line] = []
    for block in re.findall(r"^```\n(.*?)^```", text, re.S | re.M):
        rows = block.splitlines()
        i = 0
        while i < len(rows):
            line = rows[i]
            while line.split("#", 1)[0].rstrip().endswith("\\") and i + 1 < len(rows):
                i += 1
                line = line.split("#", 1)[0].rstrip()[:-1] + " " + rows[i].strip()
            i += 1
            after = rows[i] if i < len(rows) else ""
            for part in line.split("#", 1)[0].split("; "):
                if part.strip().startswith("cipherbench "):
                    found.append(Line(part.strip(), "" if after.startswith(("cipherbench", " ")) else after))
    return found


def command_of(tokens: list[str]) -> tuple[list[click.Command], list[str]]:
    """The chain of commands a line names (cipherbench, then each subcommand) and the path."""
    chain: list[click.Command] = [cli]
    path: list[str] = []
    ctx = click.Context(cli)
    rest = tokens[1:]
    while rest and isinstance(chain[-1], click.Group):
        t = rest.pop(0)
        if t.startswith("-"):
            opt = next((p for p in chain[-1].params if t in p.opts), None)
            if opt is not None and not getattr(opt, "is_flag", False):
                rest.pop(0)  # its value
            continue
        if PLACEHOLDER.match(t):  # "cipherbench --runner 'CMD' ...": any command
            break
        sub = chain[-1].get_command(ctx, t)  # type: ignore[attr-defined]
        assert sub is not None, f"no command {t!r} in {' '.join(tokens)}"
        chain.append(sub)
        path.append(t)
    return chain, path


def options_of(line: str) -> list[str]:
    return re.findall(r"(?<![\w-])--?[a-z][a-z0-9-]*", line.replace("[", " ").replace("]", " ").replace("|", " "))


LINES = readme_lines()


def test_the_readme_has_the_lines_checked_here():
    paths = {" ".join(command_of(shlex.split(x.text.replace("[", "").replace("]", "")))[1]) for x in LINES}
    assert {"list", "encrypt", "run", "recommend", "show", "fleet init", "fleet scheduler", "versions add"} <= paths


@pytest.mark.parametrize("line", LINES, ids=lambda x: x.text[:60])
def test_every_option_of_a_readme_line_exists(line):
    tokens = shlex.split(re.sub(r"\[[^\]]*\]", "", line.text))  # the options in brackets are checked below
    chain, _ = command_of(tokens)
    known = {o for cmd in chain for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
    assert [o for o in options_of(line.text) if o not in known] == []


def verbatim(line: Line) -> list[str] | None:
    """The line as it runs: its bracketed flags kept where they take no value, other brackets
    dropped; None where a placeholder is left."""
    kept = re.sub(r"\[(--?[a-z][a-z0-9-]*)\]", r"\1", line.text)
    tokens = shlex.split(re.sub(r"\[[^\]]*\]", "", kept))
    return None if any(PLACEHOLDER.match(t) or "|" in t or t.startswith("~") for t in tokens) else tokens


@pytest.mark.parametrize("line", [x for x in LINES if verbatim(x)], ids=lambda x: x.text[:60])
def test_a_readme_line_without_placeholders_parses_as_written(line):
    tokens = verbatim(line)
    assert tokens is not None
    cli.make_context("cipherbench", tokens[1:], resilient_parsing=False).close()  # click parses each level


def test_a_readme_fleet_scheduler_is_one_the_command_starts():
    """Without --credentials a scheduler listens on loopback only: the README starts one from
    `fleet init`'s folder, or on loopback."""
    from cipherbench.fleet import security
    lines = [shlex.split(x.text) for x in LINES if " fleet scheduler " in f" {x.text} "]
    assert lines
    for tokens in lines:
        if "--credentials" not in tokens:
            host = tokens[tokens.index("--host") + 1] if "--host" in tokens else None
            security.plain_listen_host(host, "--insecure" in tokens)  # raises where it would refuse
    fleet = [x.text for x in LINES if " fleet " in x.text]
    assert fleet[0].startswith("cipherbench fleet init ")  # the credentials come first


@pytest.fixture(scope="module")
def small_store(tmp_path_factory, two_small_runs):
    """Runs 1 and 2 (compare A B) of the engine's libraries, made once a run (conftest.py,
    two_small_runs), copied: the lines read a store, they do not test the run that made it."""
    where = tmp_path_factory.mktemp("readme")
    env = dict(os.environ, CIPHERBENCH_DB=small_store_copy(two_small_runs, where), COLUMNS="100",
               CIPHERBENCH_VERIFY_CACHE=str(where / "vc.json"), CIPHERBENCH_DURATIONS=str(where / "d.json"),
               CIPHERBENCH_ENVS=str(where / "envs"), CIPHERBENCH_ARCH_DIR=str(where / "arch"),
               CIPHERBENCH_RELEASES_DIR=str(where / "releases"))
    return env


def offline(line: Line) -> bool:
    tokens = verbatim(line)
    if tokens is None:
        return False
    path = command_of(tokens)[1]
    runs = " ".join(path) in OFFLINE or OFFLINE_WITH.get(" ".join(path)) in tokens
    return runs and not any(t in MADE_ELSEWHERE for t in tokens[1:tokens.index(path[0])])


@pytest.mark.parametrize("line", [x for x in LINES if offline(x)], ids=lambda x: x.text[:60])
def test_a_readme_line_that_runs_offline_runs(small_store, line):
    tokens = verbatim(line)
    assert tokens is not None
    r = subprocess.run([sys.executable, "-m", "cipherbench", *tokens[1:]], capture_output=True, text=True, cwd=REPO,
                       timeout=120, env=small_store)
    assert r.returncode == 0, r.stderr
    if line.output:  # what the README says the line prints
        assert r.stdout.strip() == line.output.strip()
