"""One figure per point in every view: a store that timed AES-128-GCM at 16 KiB both as a bulk
stream and as whole messages shows the same figure for that point, with the same workload
named beside it, in the run's summary, the answer (`recommend`, the end of `run`), the
report's first plot and `show`."""
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO

from cipherbench.cli.summary import show_summary
from cipherbench.console import out
from cipherbench.kinds import RunKind
from cipherbench.report import overview
from cipherbench.results.run import load
from cipherbench.store.db import Store

#: (implementation, primitive, workload, size) -> MB/s: OpenSSL's stream faster than its
#: messages at 16 KiB, ring's messages faster than its stream, as the runs that misled had them
FIGURES = {("openssl", "aes-128-gcm", "bulk", 16384): 4190.0, ("openssl", "aes-128-gcm", "message", 16384): 3726.0,
           ("ring", "aes-128-gcm", "bulk", 16384): 5600.0, ("ring", "aes-128-gcm", "message", 16384): 7762.0,
           ("openssl", "aes-128-gcm", "bulk", 16): 300.0, ("openssl", "aes-128-gcm", "message", 16): 150.0,
           ("ring", "aes-128-gcm", "bulk", 16): 280.0, ("ring", "aes-128-gcm", "message", 16): 160.0,
           ("openssl", "sha-256", "bulk", 16384): 2000.0, ("ring", "sha-256", "bulk", 16384): 1900.0,
           ("openssl", "sha-256", "bulk", 16): 200.0, ("ring", "sha-256", "bulk", 16): 150.0}
#: the figure that stands for each point the views show, and its workload
STANDS = {("ring", "aes-128-gcm", 16384): (7762.0, "message"), ("ring", "aes-128-gcm", 16): (160.0, "message"),
          ("openssl", "sha-256", 16384): (2000.0, "bulk"), ("openssl", "sha-256", 16): (200.0, "bulk")}


class Impl:
    def __init__(self, name, runner, library):
        self.name, self.runner, self.library, self.version = name, runner, library, "1"
        self.available, self.reason, self.primitives, self.notes, self.environment = True, None, {}, {}, None


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("one") / "r.sqlite"
    s = Store(f"sqlite:///{path}")
    rid = s.begin_run(uuid="both", kind=RunKind.SPEED.value, host="here", status="complete", profile="quick")
    s.add_implementations(rid, [Impl("openssl", "native", "OpenSSL"), Impl("ring", "rust", "ring")])
    rows = []
    for (impl, prim, wl, size), mb in FIGURES.items():
        ns = size / mb * 1e3
        op = "hash" if prim == "sha-256" else "encrypt"
        rows.append((dict(impl=impl, primitive=prim, operation=op, workload=wl, size=size, loops=1, n=5,
                          ns_per_call=ns, ns_low=ns * 0.99, ns_high=ns * 1.01, mb_per_s=mb, verified="passed",
                          warnings=[], provider=""), []))
    s.add_measurements(rid, rows)
    return s, rid, path


def printed(fn, *args, width=160) -> str:
    old = out.width
    out.width = width
    try:
        with out.capture() as cap:
            fn(*args)
    finally:
        out.width = old
    return cap.get()


def cli(path, *args) -> str:
    r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", f"sqlite:///{path}", *args],
                       capture_output=True, text=True, cwd=REPO, env=dict(os.environ, COLUMNS="160"))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def summary_rows(text: str) -> dict[str, list[str]]:
    """The run summary's table: primitive -> the cells of its rows (its smallest size's row,
    then its largest size's, which leaves the primitive and workload cells blank)."""
    rows: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        cells = line.split()
        if cells and cells[0] in ("aes-128-gcm", "sha-256"):
            current = rows[cells[0]] = cells
        elif current is not None and line.startswith(" ") and len(cells) == 4:
            current += cells
        else:
            current = None
    return rows


def point_rows(text: str) -> dict[tuple[str, str, str, int], str]:
    """`show --long`'s tables: (implementation, primitive, workload, size) -> its MB/s cell, each
    row read under the title that names its primitive and operation/workload."""
    rows, title = {}, None
    for line in text.splitlines():
        named = re.fullmatch(r"(\S+) \w+/(\w+)", line)
        if named:
            title = named.groups()
            continue
        cells = line.split()
        if title and len(cells) > 3 and cells[2] in ("B", "KiB"):
            size = int(cells[1]) * (1024 if cells[2] == "KiB" else 1)
            rows[(cells[0], title[0], title[1], size)] = cells[3]
    return rows


def test_the_summary_the_answer_the_overview_and_show_give_one_figure_per_point(store):
    s, rid, path = store
    # the run's summary: the fastest library at the smallest and the largest size, workload named
    text = printed(show_summary, s, rid)
    rows = summary_rows(text)
    assert rows["aes-128-gcm"] == ["aes-128-gcm", "message", "16", "B", "ring", "160", "16", "KiB", "ring", "7,762"]
    assert rows["sha-256"] == ["sha-256", "bulk", "16", "B", "openssl", "200", "16", "KiB", "openssl", "2,000"]
    # the answer after it (print_short), recommend and show's first lines: the same figure, named
    bulk_aead = "Bulk authenticated encryption at 16 KiB: ring aes-128-gcm ct? 7,762 (message)"
    hashing = "Hashing at 16 KiB: openssl sha-256 ct? 2,000 (bulk)"
    shown = cli(path, "show", str(rid))
    for view in (text, shown):
        assert re.search(re.escape(bulk_aead) + r" \[", view), view
        assert re.search(re.escape(hashing) + r" \[", view), view
    answer = cli(path, "recommend", "--case", "bulk-aead", "--case", "hash")
    assert "Bulk authenticated encryption at 16 KiB, message workload" in answer
    assert re.search(r"^1 +ring +aes-128-gcm +7,762 ", answer, re.M), answer
    assert "Hashing at 16 KiB, bulk workload" in answer
    assert re.search(r"^1 +openssl +sha-256 +2,000 ", answer, re.M), answer
    # show --long lists every point: each workload's figure in a table that names the workload
    points = point_rows(cli(path, "show", str(rid), "--long"))
    assert points == {k: f"{mb:,.0f}" for k, mb in FIGURES.items()}, points
    # the report's first plot: the bars' figures and the workload on each bar
    data = load(s, [rid], with_samples=False)
    fig = overview.best_per_size_figure(data)
    bars = {(prim, size_text): (x, text) for trace in fig.data
            for prim, x, text, size_text in zip(trace.y, trace.x, trace.text, [trace.name] * len(trace.y))}
    for (impl, prim, size), (mb, workload) in STANDS.items():
        x, label = bars[(prim, "16 KiB" if size == 16384 else "16 B")]
        assert x == pytest.approx(mb) and label.startswith(f"{impl} ") and label.endswith(f"({workload})"), label
