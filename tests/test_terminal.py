"""The commands as a person sees them in an 80 x 24 terminal (tmux): recommend, recommend
--long, show, compare and ct on a small store built here. A screen fails on a number cut
short ('11,4…'), a line wider than the terminal, or a word cut in the middle ('th…')."""
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest
from conftest import REPO, small_store_copy

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (packages.txt)")

#: A figure followed by an ellipsis: a number rich cut to fit.
CUT_NUMBER = re.compile(r"\d[\d,.]*…")
#: A letter followed by an ellipsis: a word cut in the middle (a cut between words is ' …').
CUT_WORD = re.compile(r"[A-Za-z]…")
DONE = "__cipherbench_done__"


def screen(db: str, *args: str, env: dict[str, str] | None = None) -> list[str]:
    """What the command leaves in an 80 x 24 tmux window, every line of its scrollback,
    wrapped lines joined (capture-pane -J) so that a line the terminal wrapped shows whole."""
    name = f"cb-{uuid.uuid4().hex[:8]}"
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    cmd = (f"cd {shlex.quote(str(REPO))} && env {exports} {shlex.quote(sys.executable)} -m cipherbench "
           f"--db {shlex.quote(db)} {' '.join(shlex.quote(a) for a in args)}; echo {DONE}; sleep 600")
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd], check=True)
    try:
        subprocess.run(["tmux", "set-option", "-t", name, "history-limit", "20000"], check=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            text = subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-", "-t", name],
                                  capture_output=True, text=True, check=True).stdout
            if DONE in text:
                return [x.rstrip() for x in text.split(DONE)[0].splitlines()]
            time.sleep(0.5)
        raise AssertionError(f"{args} did not finish in tmux")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


@pytest.fixture(scope="module")
def store(two_small_runs, tmp_path_factory):
    """Runs 1 and 2 (for compare), made once a run (tests/conftest.py, two_small_runs)."""
    return small_store_copy(two_small_runs, tmp_path_factory.mktemp("terminal"))


@pytest.mark.parametrize("args", [("recommend",), ("recommend", "--long"), ("show",), ("compare", "1", "2")],
                         ids=" ".join)
def test_a_screen_at_80_columns_cuts_nothing(store, args):
    lines = screen(store, *args)
    assert lines and not any("Traceback" in x for x in lines), lines
    assert [x for x in lines if len(x) > 80] == []
    assert [x for x in lines if CUT_NUMBER.search(x)] == []
    assert [x for x in lines if CUT_WORD.search(x)] == []


def test_ct_at_80_columns_cuts_nothing(store):
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    lines = screen(store, "ct", "--impl", "leaky", "--primitive", "rc4", "--method", "taint",
                   env={"CIPHERBENCH_TEST_LEAKY": "1"})
    text = " ".join(lines)
    assert "LEAKS" in text and "index: an address computed from the secret" in text
    assert [x for x in lines if len(x) > 80] == []
    assert [x for x in lines if CUT_NUMBER.search(x) or CUT_WORD.search(x)] == []
