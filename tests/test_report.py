"""report, export and import as a user runs them, checked against the stored values;
index.html opened in real headless Chromium."""
import csv
import json
import math
import os
import sqlite3
import subprocess
import sys

import pytest
from conftest import REPO, faulty

from cipherbench.kinds import Verdict

ARTIFACTS = REPO / "build" / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"


def cli(db, *args, timeout=300):
    e = dict(os.environ, CIPHERBENCH_DB=db)
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True,
                          timeout=timeout, env=e, cwd=REPO)


@pytest.fixture()
def main(capsys):
    """The CLI's entry point in this process (no interpreter start-up): (status, stdout, stderr)."""
    from cipherbench.cli import main as cb_main

    def run(db, *args):
        code = 0
        try:
            cb_main(["--db", db, *args])
        except SystemExit as e:
            code = e.code or 0
        o = capsys.readouterr()
        return code, o.out, o.err
    return run


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """One tiny run: openssl (CBC, ECB, SHA-256, key setup, bulk and rekey), the harness
    baseline, and a runner whose CBC fails verification (so it is never timed)."""
    d = tmp_path_factory.mktemp("report")
    db = f"sqlite:///{d / 'r.sqlite'}"
    r = cli(db, "--runner", faulty("cbc-chain"), "run", "--no-extra-rounds", "--impl", "openssl", "--impl", "null",
            "--impl", "faulty", "--primitive", "aes-128-cbc", "--primitive", "aes-128-ecb",
            "--primitive", "sha-256", "--sizes", "16,1024", "--operation", "encrypt", "--operation", "decrypt",
            "--operation", "keysetup", "--operation", "keysetup-decrypt", "--workload", "bulk",
            "--workload", "rekey", "--batch-ms", "1", "--batches", "3")
    assert r.returncode == 0, r.stderr
    out = d / "out"
    rep = cli(db, "report", "--out", str(out))
    assert rep.returncode == 0, rep.stderr
    return {"db": db, "path": d / "r.sqlite", "out": out, "stdout": rep.stdout, "dir": d}


def rows(path, q, *args):
    con = sqlite3.connect(path)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(q, args)]
    finally:
        con.close()


def test_report_writes_every_file_and_says_so(stored):
    out = stored["out"]
    for name in ("index.html", "report.md", "results.csv", "results.json"):
        assert (out / name).stat().st_size > 0
        assert name in stored["stdout"]
    assert "run 1" in stored["stdout"] and "marked as not verified: faulty aes-128-cbc" in stored["stdout"]


def test_csv_is_one_row_per_measurement_with_the_stored_values(stored):
    db_rows = {m["id"]: m for m in rows(stored["path"], "select * from measurements")}
    with open(stored["out"] / "results.csv", newline="") as f:
        got = list(csv.DictReader(f))
    assert len(got) == len(db_rows)
    timed = [r for r in got if r["mb_per_s"]]
    assert timed and all(r["verified"] != "failed" for r in timed)
    by_key = {(m["impl"], m["primitive"], m["operation"], m["workload"], m["size"]): m for m in db_rows.values()}
    for r in timed:
        m = by_key[(r["impl"], r["primitive"], r["operation"], r["workload"], int(r["size"]))]
        assert float(r["ns_per_call"]) == m["ns_per_call"]
        assert float(r["mb_per_s"]) == m["mb_per_s"]
        # MB/s = bytes per call / ns per call x 10^3, as stored
        assert abs(float(r["mb_per_s"]) - int(r["size"]) / float(r["ns_per_call"]) * 1e3) < 1e-9 * float(r["mb_per_s"])
        assert r["cycle_source"] == m["cycle_source"] and r["run_uuid"]
    assert {r["library"] for r in got if r["impl"] == "openssl"} == {"OpenSSL"}
    failed = [r for r in got if r["impl"] == "faulty"]
    assert failed and all(r["verified"] == "failed" and r["error"] and not r["mb_per_s"] for r in failed)


def test_json_is_versioned_self_describing_and_keeps_raw_samples(stored):
    doc = json.loads((stored["out"] / "results.json").read_text())
    assert doc["schema"] == "cipherbench-results" and doc["version"] == 1
    run = rows(stored["path"], "select * from runs")[0]
    assert doc["run"]["uuid"] == run["uuid"] and doc["context"] == json.loads(run["context"])
    assert "cpu" in doc["context"] and "cpu" not in doc["measurements"][0]
    assert {i["impl"] for i in doc["implementations"]} >= {"openssl", "null", "faulty"}
    assert {(v["impl"], v["primitive"], v["status"]) for v in doc["verifications"]} >= {
        ("faulty", "aes-128-cbc", "failed"), ("openssl", "aes-128-cbc", "passed")}
    db = rows(stored["path"], "select m.impl, m.primitive, m.operation, m.workload, m.size, s.seq, s.warmup, "
                              "s.loops, s.ns from samples s join measurements m on m.id = s.measurement_id")
    flat = sorted((m["impl"], m["primitive"], m["operation"], m["workload"], m["size"], s["seq"], bool(s["warmup"]),
                   s["loops"], s["ns"]) for m in doc["measurements"] for s in m["samples"])
    assert flat == sorted((r["impl"], r["primitive"], r["operation"], r["workload"], r["size"], r["seq"],
                           bool(r["warmup"]), r["loops"], r["ns"]) for r in db)
    timed = [m for m in doc["measurements"] if m["ns_per_call"]]
    # one warm-up and three timed requests of eight batches each
    assert all(len(m["samples"]) == 1 + 3 * 8 and sum(s["warmup"] for s in m["samples"]) == 1 for m in timed)
    assert all(sorted({s["request"] for s in m["samples"] if not s["warmup"]}) == [0, 1, 2] for m in timed)


def test_markdown_tables_carry_units_sources_and_marks(stored):
    md = (stored["out"] / "report.md").read_text()
    m = rows(stored["path"], "select * from measurements where impl='openssl' and primitive='aes-128-cbc' "
                             "and operation='encrypt' and workload='bulk' and size=1024")[0]
    # openssl speed prints 1000s of bytes per second with a 'k'
    assert f"{m['mb_per_s'] * 1e3:.2f}k" in md and "1000s of bytes/s" in md and "MB/s = 10⁶ bytes/s" in md
    assert "Cycle source" in md and m["cycle_source"] in md
    # the failed implementation appears, marked, and is not timed
    assert "⚠ faulty" in md and "FAILED verification" in md and "not timed" in md
    # Gladman-style: key setup a:b and cycles per block = cycles/byte x 16
    ks = {r["operation"]: r["cycles_per_call"] for r in rows(
        stored["path"], "select operation, cycles_per_call from measurements where impl='openssl' and "
                        "primitive='aes-128-ecb' and operation like 'keysetup%' and workload='bulk'")}
    assert f"{ks['keysetup']:,.0f}:{ks['keysetup-decrypt']:,.0f}" in md
    enc = rows(stored["path"], "select cycles_per_byte from measurements where impl='openssl' and "
                               "primitive='aes-128-ecb' and operation='encrypt' and workload='bulk' and size=1024")[0]
    from cipherbench.report.tables import num
    assert num(enc["cycles_per_byte"] * 16, 4) in md


def test_html_is_self_contained_and_marks_what_is_not_verified(stored):
    html = (stored["out"] / "index.html").read_text()
    import re
    # no script, stylesheet or image loaded from anywhere (plotly.js only names a CDN as its
    # default for geographic maps, which this report never draws)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", html)
    assert "(FAILED verification: not timed)" in html  # legend entry of the failed implementation
    assert html.count('class="cb-plot"') >= 5  # throughput x3, heat map, key setup, enc/dec, workloads
    data = json.loads(html.split('id="cipherbench-results">', 1)[1].split("</script>", 1)[0])
    assert data[0]["schema"] == "cipherbench-results"


def test_html_renders_in_headless_chromium(stored):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: 'chromium' is in packages.txt (make test installs it)")
    from playwright.sync_api import sync_playwright
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            requests = []
            page.on("request", lambda req: requests.append(req.url) if not req.url.startswith(("file:", "data:"))
                    else None)
            page.goto((stored["out"] / "index.html").as_uri())
            page.wait_for_load_state("load")
            n_divs = page.locator("div.cb-plot").count()
            page.wait_for_function(
                "document.querySelectorAll('.js-plotly-plot .main-svg').length > 0 && "
                "[...document.querySelectorAll('div.cb-plot .plotly-graph-div')].every("
                "d => d.classList.contains('js-plotly-plot') && d.querySelector('svg.main-svg'))",
                timeout=30000)
            rendered = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')]"
                                     ".filter(d => d.querySelector('svg.main-svg')).length")
            traces = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(d => d.data.length)")
            page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
        finally:
            browser.close()
    assert n_divs >= 5 and rendered == n_divs
    assert all(t >= 1 for t in traces)
    assert errors == []
    assert requests == []  # works offline: nothing fetched


def test_then_and_now_beside_a_named_experiment(stored, tmp_path, main):
    """A run whose profile is a named experiment gets the published figures beside its own."""
    exp = tmp_path / "run.json"
    assert main(stored["db"], "export", "--out", str(exp))[0] == 0
    doc = json.loads(exp.read_text())
    doc["run"]["profile"], doc["run"]["uuid"] = "aes-candidates", "0" * 32
    exp.write_text(json.dumps(doc))
    db2 = f"sqlite:///{tmp_path / 'exp.sqlite'}"
    assert main(db2, "import", str(exp))[0] == 0
    code, out, err = main(db2, "report", "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "then and now" in out and "aes-candidates" in out
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Then and now: The fifteen AES candidates" in md and "Gladman" in md
    row = next(line for line in md.splitlines() if line.startswith("| Rijndael | published"))
    assert "305:1389" in row and "| 374 |" in row and "70.2" in row
    ks = {m["operation"]: m["cycles_per_call"] for m in doc["measurements"]
          if m["impl"] == "openssl" and m["primitive"] == "aes-128-ecb" and m["workload"] == "bulk"
          and m["operation"].startswith("keysetup")}
    assert f"| today: openssl | {ks['keysetup']:,.0f}:{ks['keysetup-decrypt']:,.0f} |" in md
    assert "| MARS | published (1999) |" in md and "today: not measured in this run" in md


def test_export_then_import_is_the_same_run_and_refused_twice(stored, tmp_path, main):
    f = tmp_path / "run.json"
    r = cli(stored["db"], "export", "--run", "1", "--out", str(f))  # once as a user types it
    assert r.returncode == 0 and "exported run 1" in r.stdout
    a = json.loads(f.read_text())
    first = tmp_path / "first.json"
    first.write_text(json.dumps(dict(a, run=dict(a["run"], uuid="1" * 32))))
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert main(other, "import", str(first))[0] == 0
    code, out, err = main(other, "import", str(f))
    assert code == 0 and "as run 2" in out, err
    again = tmp_path / "again.json"
    assert main(other, "export", "--run", "2", "--out", str(again))[0] == 0
    assert a == json.loads(again.read_text())
    code, out, err = main(other, "import", str(f))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "already in" in err and a["run"]["uuid"] in err


def test_bad_input_is_one_line(stored, tmp_path, main):
    empty = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    from cipherbench.store.db import Store
    Store(empty)
    code, out, err = main(empty, "report", "--out", str(tmp_path / "o"))
    assert code == 1 and "no complete run" in err and len(err.strip().splitlines()) == 1
    code, out, err = main(stored["db"], "report", "--run", "99", "--out", str(tmp_path / "o"))
    assert code == 2 and "no run 99" in err and len(err.strip().splitlines()) == 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "cipherbench-results", "version": 99, "run": {"uuid": "x"}}))
    code, out, err = main(stored["db"], "import", str(bad))
    assert code == 2 and "version 99" in err and len(err.strip().splitlines()) == 1
    bad.write_text("{not json")
    code, out, err = main(stored["db"], "import", str(bad))
    assert code == 2 and "not JSON" in err


#: Hostile results documents: each is refused with one line naming the first bad field.
HOSTILE = {
    "measurements": ("a string where the list belongs", lambda d: d.__setitem__("measurements", "abc")),
    "measurements[0].size": ("a size of 10^30", lambda d: d["measurements"][0].__setitem__("size", 10**30)),
    "measurements[1].size": ("a size that is a word", lambda d: d["measurements"][1].__setitem__("size", "abc")),
    "measurements[0].mb_per_s": ("a figure that is a word", lambda d: d["measurements"][0].__setitem__("mb_per_s", "fast")),
    "measurements[0].impl": ("a null name", lambda d: d["measurements"][0].__setitem__("impl", None)),
    "measurements[0].operation": ("an unknown operation", lambda d: d["measurements"][0].__setitem__("operation", "x")),
    "measurements[0].verified": ("an unknown verdict", lambda d: d["measurements"][0].__setitem__("verified", "yes")),
    "measurements[0].warnings": ("warnings as a string", lambda d: d["measurements"][0].__setitem__("warnings", "w")),
    "measurements[0].samples[0].ns": ("a NaN time", lambda d: d["measurements"][0]["samples"][0].__setitem__("ns", math.nan)),
    "implementations[0].primitives": ("primitives as a string",
                                      lambda d: d["implementations"][0].__setitem__("primitives", "aes")),
    "run.started_at": ("a date that is not one", lambda d: d["run"].__setitem__("started_at", "yesterday")),
}


@pytest.mark.parametrize("field", sorted(HOSTILE))
def test_a_hostile_document_is_one_line_naming_its_field_and_nothing_is_written(stored, tmp_path, main, field):
    f = tmp_path / "run.json"
    assert main(stored["db"], "export", "--out", str(f))[0] == 0
    doc = json.loads(f.read_text())
    HOSTILE[field][1](doc)
    f.write_text(json.dumps(doc))
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    code, out, err = main(other, "import", str(f))
    assert code == 2 and len(err.strip().splitlines()) == 1, (HOSTILE[field][0], err)
    assert f"run.json: {field}: " in err, err
    assert not (tmp_path / "other.sqlite").exists()  # refused before the store is opened


def test_a_document_nested_past_reason_is_one_line(stored, tmp_path, main):
    f = tmp_path / "deep.json"
    f.write_text('{"schema": "cipherbench-results", "version": 1, "run": {"uuid": "d", "x": '
                 + "[" * 100_000 + "]" * 100_000 + "}}")
    code, out, err = main(stored["db"], "import", str(f))
    assert code == 2 and "nests deeper" in err and len(err.strip().splitlines()) == 1


def test_unknown_fields_are_ignored_on_import(stored, tmp_path, main):
    f = tmp_path / "run.json"
    assert main(stored["db"], "export", "--out", str(f))[0] == 0
    doc = json.loads(f.read_text())
    doc["future_field"] = {"x": 1}
    doc["run"]["uuid"] = "f" * 32
    doc["measurements"][0]["future"] = 2
    f.write_text(json.dumps(doc))
    code, out, err = main(f"sqlite:///{tmp_path / 'n.sqlite'}", "import", str(f))
    assert code == 0, err


def test_published_quantities_are_computed_from_the_stored_measurements(stored):
    """What published-figures.toml can ask of a run, each against the stored row."""
    from cipherbench.registry_models import CellNow
    from cipherbench.report.experiments import now_value
    from cipherbench.results.run import load_run
    from cipherbench.store.db import Store
    run = load_run(Store(stored["db"], create=False), 1)

    def stored_row(prim, op, wl, size):
        return next(m for m in run.measurements if m.key == ("openssl", prim, op, wl, size))
    # seconds for N whole messages with key setup each time (the PHP/mcrypt timing)
    v, _ = now_value(run, "openssl", "aes-128-cbc", CellNow.model_validate(
        {"quantity": "seconds", "calls": 50, "size": 1024, "operation": "encrypt", "workload": "rekey"}))
    assert v == 50 * stored_row("aes-128-cbc", "encrypt", "rekey", 1024).ns_per_call / 1e9
    # Mbit/s at the largest bulk size; a hash is asked for as "encrypt" and found as "hash"
    v, _ = now_value(run, "openssl", "sha-256", CellNow.model_validate(
        {"quantity": "mbit_per_s", "operation": "encrypt"}))
    assert v == stored_row("sha-256", "hash", "bulk", 1024).mb_per_s * 8
    # cycles per 16-byte block, and key setup as encryption:decryption schedule
    v, _ = now_value(run, "openssl", "aes-128-ecb", CellNow.model_validate(
        {"quantity": "cycles_per_block", "operation": "decrypt"}))
    assert v == stored_row("aes-128-ecb", "decrypt", "bulk", 1024).cycles_per_byte * 16
    v, _ = now_value(run, "openssl", "aes-128-ecb", CellNow.model_validate({"quantity": "keysetup_cycles"}))
    a = stored_row("aes-128-ecb", "keysetup", "bulk", 0).cycles_per_call
    b = stored_row("aes-128-ecb", "keysetup-decrypt", "bulk", 0).cycles_per_call
    assert v == f"{a:,.0f}:{b:,.0f}"
    # not measured stays empty rather than being extrapolated
    assert now_value(run, "openssl", "aes-128-cbc", CellNow.model_validate(
        {"quantity": "seconds", "calls": 50, "size": 1048576, "operation": "encrypt", "workload": "rekey"})) == (None, [])


def test_a_published_ratio_keeps_three_significant_digits_however_small():
    """A cipher 600 times slower than another is 0.00167x, not 0.00x, and so are the ends of
    its interval; and the claim that it is more than twice as fast is reversed by it. The
    points have no batches: the interval is the stored figures' (1 % either way), ends
    against ends."""
    from cipherbench.registry_models import Expect, Now
    from cipherbench.report.verdicts import FindingVerdict, ratio_verdict
    from cipherbench.results.run import Run

    def m(prim, mb):
        ns = (1 << 20) / mb * 1e3
        return {"impl": "x", "primitive": prim, "operation": "encrypt", "workload": "bulk", "size": 1 << 20,
                "mb_per_s": mb, "ns_per_call": ns, "ns_low": ns * 0.99, "ns_high": ns * 1.01, "error": None}
    run = Run.of(1, {}, {}, [], [{"impl": "x", "primitive": p, "status": "passed"}
                              for p in ("twofish-256-cbc", "aes-128-cbc")],
              [m("twofish-256-cbc", 1.0), m("aes-128-cbc", 600.0)])
    v = ratio_verdict(run, Now(ratio=("twofish-256-cbc", "aes-128-cbc")), Expect(above=2))
    # 1/600 = 0.001667; its ends 0.99/1.01/600 = 0.001634 and 1.01/0.99/600 = 0.001700
    assert v.figure == "x: twofish-256-cbc at 0.00167× [0.00163–0.0017] the speed of aes-128-cbc (1 MiB)"
    assert v.verdict is FindingVerdict.REVERSED
    assert ratio_verdict(run, Now(ratio=("aes-128-cbc", "twofish-256-cbc")), Expect(above=2)).verdict \
        is FindingVerdict.HOLDS
    assert ratio_verdict(run, Now(ratio=("aes-128-cbc", "twofish-256-cbc")), Expect(between=(1.5, 2))).verdict \
        is FindingVerdict.CHANGED


def test_the_heatmap_warns_only_when_a_cell_is_unverified_or_failed(stored):
    """The relative heatmap's warning stood under every run, even one whose points all passed."""
    from cipherbench import report
    from cipherbench.report import speed
    from cipherbench.store.db import Store

    d = report.load(Store(stored["db"]), ())
    rel = speed.relative(d)
    assert {n: f for n, f in zip(rel.names, rel.flags) if f} == {"faulty": Verdict.FAILED}
    assert "rows contain unverified or failed cells" in (stored["out"] / "index.html").read_text()
    for r in d.runs:
        r.measurements = [m for m in r.measurements if m.impl != "faulty"]
    assert speed.relative(d).flags and not any(speed.relative(d).flags)


def test_the_writers_show_the_answer_the_loader_computed(stored):
    """report.load computes the answer once per run (Run.answers); report.md and index.html
    show that one, never an answer of their own."""
    from cipherbench import report
    from cipherbench.report import answer, html, markdown
    from cipherbench.store.db import Store

    d = report.load(Store(stored["db"]), ())
    (run,) = d.runs
    full_md, full_html = answer.markdown_lines(run.answers, run.versions), answer.html_section(run.answers, run.versions)
    run.answers = run.answers[:1]
    one_md, one_html = answer.markdown_lines(run.answers, run.versions), answer.html_section(run.answers, run.versions)
    assert full_md != one_md and full_html != one_html
    text, page = markdown.render(d), html.render(d)[0]
    assert "\n".join(one_md) in text and "\n".join(full_md) not in text
    assert one_html in page and full_html not in page


def test_a_failed_pair_shows_its_vector_and_first_differing_byte(stored):
    """faulty cbc-chain chains the previous plaintext block: its first block of NIST SP 800-38A
    F.2.1 (CBC-AES128.Encrypt) is right, its second is AES_K(P2 xor P1) = 05495a29..., where
    the published ciphertext has 5086cb9b... (tests/test_report_failures.py)."""
    md = (stored["out"] / "report.md").read_text().splitlines()
    assert ("| ⚠ faulty | aes-128-cbc | kat encrypt | aes-sp800-38a.vec:26 (cipherbench) | byte 16 of 64 "
            "| …cee98e9b12e9197d\\[50\\]86cb9b507219ee… | …cee98e9b12e9197d\\[05\\]495a294cb949fd… |") in md
    page = (stored["out"] / "index.html").read_text()
    assert ('<tr class="failed"><td class="l">faulty</td><td class="l">aes-128-cbc</td><td class="l">kat encrypt</td>'
            '<td class="l">aes-sp800-38a.vec:26 (cipherbench)</td><td class="l">byte 16 of 64</td>'
            '<td class="l">…cee98e9b12e9197d[50]86cb9b507219ee…</td>'
            '<td class="l">…cee98e9b12e9197d[05]495a294cb949fd…</td></tr>') in page


def test_verified_on_names_the_run_host_and_each_other_cpu(stored, tmp_path, monkeypatch):
    """The run's host by its own verification, then s390x by an `arch verify` record stored through
    arch/verified.py (openssl passed there; faulty failed at byte 16 of the SP 800-38A vector)."""
    from cipherbench import report
    from cipherbench.arch import verified
    from cipherbench.arch.architecture import Arch, ArchRecord, arch_build, host_arch
    from cipherbench.kat.outcome import PairResult
    from cipherbench.report import html, markdown
    from cipherbench.store.db import Store

    monkeypatch.setenv("CIPHERBENCH_ARCH_DIR", str(tmp_path))
    d = report.load(Store(stored["db"]), (), with_samples=False)
    before = markdown.render(d).splitlines()
    host = host_arch()
    assert f"| ⚠ faulty | {host} (1 of 1 pairs FAILED) | – |" in before and f"| openssl | {host} | – |" in before
    b = arch_build(Arch.S390X)
    b.root.mkdir()
    b.write(ArchRecord(arch="s390x", triplet="s390x-linux-gnu", compiler="c", qemu="q", suite="bookworm",
                       mirror="m", options={}, sysroot="/nowhere"))
    ok = [PairResult("openssl%s390x", p, vouched=True) for p in ("aes-128-cbc", "aes-128-ecb")]
    bad = PairResult("faulty%s390x", "aes-128-cbc", vouched=True)
    bad.fail("kat encrypt", expected=bytes.fromhex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee"),
             actual=bytes.fromhex("7649abac8119b246cee98e9b12e9197d05495a294cb949fd"))
    verified.record(b, [*ok, bad], 1.0, 4096)
    md = markdown.render(d).splitlines()
    assert md[md.index("### Verified on") + 2:md.index("### Verified on") + 6] == [
        "| implementation | verified on | failed on other CPUs |", "|---|---|---|",
        f"| ⚠ faulty | {host} (1 of 1 pairs FAILED), s390x (1 of 1 pairs FAILED) | faulty on s390x: aes-128-cbc: "
        "kat encrypt; first difference at byte 16: expected 0x50, got 0x05 |",
        f"| openssl | {host}, s390x | – |"]
    page = html.render(d)[0]
    assert (f'<tr class=""><td class="l">openssl</td><td class="l">{host}, s390x</td>'
            '<td class="l">–</td></tr>') in page
    # the host's architecture is the run's own (its context's uname -m), not the reporting machine's
    d.runs[0].context = dict(d.runs[0].context, machine="aarch64")
    assert "| openssl | arm64, s390x | – |" in markdown.render(d).splitlines()
    d.runs[0].context = {k: v for k, v in d.runs[0].context.items() if k != "machine"}  # a run stored before it
    assert "| openssl | host (architecture not recorded), s390x | – |" in markdown.render(d).splitlines()
