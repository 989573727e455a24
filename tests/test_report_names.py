"""No name breaks a report. Hostile implementation, primitive, host and profile names
(an HTML comment opener, script elements, an attribute break with an image, a newline, a
pipe, a leading '=' or '#', Markdown's markup, generated ones) go through every writer:
index.html is parsed with an HTML5 parser (html5lib: the tokenizer's script and comment
states as a browser runs them) and must hold its JSON block intact, equal to the data, and
exactly the elements a report with benign names holds; report.md is parsed as CommonMark
with GitHub's tables and must keep every row's cells and show each name as written, with
no HTML; results.csv and results.json keep each name exactly."""
import csv
import json
import re

import html5lib
import pytest
from conftest import results_document
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

HOSTILE_IMPLS = ["@x<!--<script>", '"><img src=x onerror=alert(1)>', "a\nb|c", "=1+2", "`x`*y*_z_[l](u)",
                 "</script><script>alert(2)</script>", "# h", "- item", "1. item", "a\\|b", "<!-- x -->"]
HOSTILE_PRIMS = ["aes-128-ctr", "<!--<script>|\n=x"]
HOSTILE_HOST = "<b>host</b>|\n# h"
HOSTILE_PROFILE = "<i>p</i>|="


def benign(names: list[str], stem: str) -> list[str]:
    """Names of the same count and order that hold nothing but letters and digits."""
    return [f"{stem}{i:02d}" for i in range(len(names))]


def report_of(tmp, doc, plotly_stub=None, monkeypatch=None):
    """report.load and write_all of a store holding only `doc` (as `cipherbench report` runs them)."""
    from cipherbench import report
    from cipherbench.results.transfer import import_document, read_document
    from cipherbench.store.db import Store
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "doc.json"
    path.write_text(json.dumps(doc))
    store = Store(f"sqlite:///{tmp / 'r.sqlite'}")
    import_document(store, read_document(path))
    report.write_all(report.load(store), tmp / "out")
    store.engine.dispose()
    return tmp / "out"


def elements(tree) -> list[tuple[str, tuple[str, ...]]]:
    """Every element of a parsed page in document order: its tag and its attributes' names."""
    return [(e.tag, tuple(sorted(e.attrib))) for e in tree.iter() if isinstance(e.tag, str)]


def parse(page: str):
    return html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)


def json_block(tree):
    [block] = [e for e in tree.iter("script") if e.get("id") == "cipherbench-results"]
    return json.loads(block.text)


# ---------------------------------------------------------------------------- the hostile names
@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """(hostile report folder, benign report folder): the same document, names differing."""
    tmp = tmp_path_factory.mktemp("names")
    hostile = report_of(tmp / "hostile", results_document("b" * 32, HOSTILE_IMPLS, HOSTILE_PRIMS, host=HOSTILE_HOST,
                                                          profile=HOSTILE_PROFILE))
    plain = report_of(tmp / "benign", results_document("c" * 32, benign(HOSTILE_IMPLS, "impl"),
                                                       ["aes-128-ctr", "prim01"], host="host", profile="quick"))
    return hostile, plain


def test_index_html_holds_its_json_intact_and_no_element_a_name_made(reports):
    hostile, plain = reports
    page = parse((hostile / "index.html").read_text())
    assert elements(page) == elements(parse((plain / "index.html").read_text()))
    assert not list(page.iter("img"))
    results = json.loads((hostile / "results.json").read_text())
    [block] = json_block(page)
    assert block["run"] == results["run"] and block["implementations"] == results["implementations"]
    assert block["measurements"] == [{k: v for k, v in m.items() if k != "samples"} for m in results["measurements"]]
    assert {i["impl"] for i in block["implementations"]} == set(HOSTILE_IMPLS)
    assert block["run"]["host"] == HOSTILE_HOST and block["run"]["profile"] == HOSTILE_PROFILE
    # every table cell naming an implementation shows it as written
    cells = {"".join(td.itertext()) for td in page.iter("td")}
    assert set(HOSTILE_IMPLS) <= cells


def test_the_json_block_escapes_every_character_that_could_end_or_open_an_element(reports):
    text = (reports[0] / "index.html").read_text()
    blob = text.split('<script type="application/json" id="cipherbench-results">', 1)[1].split("</script>", 1)[0]
    assert not set("<>&\u2028\u2029") & set(blob)
    assert "\\u003c!--\\u003cscript\\u003e" in blob  # "@x<!--<script>", escaped as JSON reads it back


def markdown_tables(text: str) -> list[list[str]]:
    """Each table of a Markdown text: its lines."""
    tables: list[list[str]] = []
    last = False
    for line in text.splitlines():
        if line.startswith("|"):
            if not last:
                tables.append([])
            tables[-1].append(line)
        last = line.startswith("|")
    return tables


def cells_of(line: str) -> int:
    """A table line's cells: the pipes that are not escaped, less one."""
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line)) - 1


def check_markdown(text: str, names: list[str]) -> None:
    """Every table keeps its header's cells on every row; CommonMark with GitHub's tables
    finds no HTML in it, a cell for each name, and each name as written (its line breaks
    as spaces) in the text."""
    tables = markdown_tables(text)
    assert tables
    for t in tables:
        assert len({cells_of(line) for line in t}) == 1, t
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(text)
    assert not [t for t in tokens if t.type.startswith("html")]
    inline = [t for t in tokens if t.type == "inline"]
    shown = "\n".join("".join(c.content for c in t.children or [] if c.type in ("text", "code_inline"))
                      for t in inline)
    for name in names:
        assert re.sub(r"[\n\r\u2028\u2029]+", " ", name) in shown, name


def test_report_md_keeps_every_row_s_cells_and_shows_each_name_as_written(reports):
    hostile, plain = reports
    text = (hostile / "report.md").read_text()
    check_markdown(text, [*HOSTILE_IMPLS, *HOSTILE_PRIMS, HOSTILE_HOST, HOSTILE_PROFILE])
    assert [len(t) for t in markdown_tables(text)] == [len(t) for t in markdown_tables((plain / "report.md").read_text())]


def check_csv_and_json(out, impls: list[str]) -> None:
    """results.csv and results.json name each implementation exactly (a CSV cell that a
    spreadsheet would take for a formula starts with an apostrophe)."""
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    guarded = {("'" + n if n[:1] in ("=", "+", "-", "@", "\t", "\r") else n) for n in impls}
    assert {r["impl"] for r in rows} == guarded
    doc = json.loads((out / "results.json").read_text())
    assert {m["impl"] for m in doc["measurements"]} == set(impls)


def test_csv_and_json_keep_each_name_exactly(reports):
    check_csv_and_json(reports[0], HOSTILE_IMPLS)


# ---------------------------------------------------------------------------- generated names
#: Printable ASCII with markup's characters drawn often, line breaks of every kind, and a
#: letter outside ASCII.
NAME = st.text(st.sampled_from("<>!-/&|`*_[]#=\"' \\\n\r\u2028\u2029é") | st.characters(min_codepoint=0x20,
                                                                                         max_codepoint=0x7E),
               min_size=1, max_size=16).filter(lambda n: n.strip() == n and n.strip())
SHAPE = dict(impls=3, prims=1)


@pytest.fixture(scope="module")
def stub_plotly():
    """plotly.js out of index.html (4.6 MB that html5lib reads in seconds): the library is a
    constant, parsed whole by the tests above; what a name can do is in the rest."""
    from cipherbench.report import html
    real = html.get_plotlyjs
    html.get_plotlyjs = lambda: "/* plotly.js */"
    yield
    html.get_plotlyjs = real


@pytest.fixture(scope="module")
def benign_stubbed(tmp_path_factory, stub_plotly):
    out = report_of(tmp_path_factory.mktemp("benign-stub"),
                    results_document("d" * 32, benign(["x"] * SHAPE["impls"], "impl"), ["prim00"]))
    return elements(parse((out / "index.html").read_text()))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAME, min_size=SHAPE["impls"] + 1, max_size=SHAPE["impls"] + 1, unique=True), host=NAME)
@example(names=["<!--", "<script>", '"><img src=x onerror=alert(1)>', "=x|y"], host="a\nb")
def test_generated_names_break_no_writer(names, host, tmp_path_factory, benign_stubbed):
    impls, prim = names[:SHAPE["impls"]], names[SHAPE["impls"]]
    out = report_of(tmp_path_factory.mktemp("generated"), results_document("e" * 32, impls, [prim], host=host))
    page = parse((out / "index.html").read_text())
    assert elements(page) == benign_stubbed
    [block] = json_block(page)
    assert {i["impl"] for i in block["implementations"]} == set(impls) and block["run"]["host"] == host
    assert {m["primitive"] for m in block["measurements"]} == {prim}
    check_markdown((out / "report.md").read_text(), [*impls, prim, host])
    check_csv_and_json(out, impls)
