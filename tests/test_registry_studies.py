"""A study is registry entries only: a copy of registry/ (CIPHERBENCH_REGISTRY names it) with
one invented study added gets its verdicts from a stored run, decided from the stored figures,
with no code changed; and a bad entry in that copy is one line naming the file and the entry,
with a non-zero exit, never a traceback (cipherbench/registry_models.py, docs/findings.md)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_verdict_intervals import point

from cipherbench.errors import UsageError
from cipherbench.kinds import RunKind
from cipherbench.paths import REPO
from cipherbench.registry_models import Finding, FindingKind, load_published_figures, validated
from cipherbench.store.db import Store

BATCHES = 20

#: The invented study: an experiment to run, and its published claims (three findings of
#: existing kinds), appended to copies of the two files. The 3DES claim's end (0.45) is where
#: its figure is stored, with batches 5 % apart: not decided; the others are far from their ends.
EXPERIMENT = """
[experiments.tiny-study]
title = "An invented study: DES, Triple DES and AES"
primitives = ["des-56-ecb", "3des-168-ecb", "aes-128-ecb"]
sizes = [65536]
"""
STUDY = """
[experiments.tiny-study]
title = "An invented study: DES, Triple DES and AES"
citation = "none: a test's study (tests/test_registry_studies.py)"
findings = [
  { text = "AES at most three times the speed of DES.", now = { ratio = ["aes-128-ecb", "des-56-ecb"] }, expect = { between = [1.5, 3] } },
  { text = "AES fastest, Triple DES slowest.", now = { rank = "primitives" }, expect = { first = "aes", last = "3des" } },
  { text = "Triple DES under 0.45 times the speed of DES.", now = { ratio = ["3des-168-ecb", "des-56-ecb"] }, expect = { below = 0.45 } },
]
"""
#: Per-call ns of each primitive: AES 5x DES (outside [1.5, 3]: changed), DES/3DES = 0.45.
NS = {"des-56-ecb": 1000.0, "aes-128-ecb": 200.0, "3des-168-ecb": 2222.0}


def registry_copy(tmp_path: Path, experiments: str = EXPERIMENT, published: str = STUDY) -> Path:
    reg = tmp_path / "registry"
    shutil.copytree(REPO / "registry", reg)
    with open(reg / "experiments.toml", "a") as f:
        f.write(experiments)
    with open(reg / "published-figures.toml", "a") as f:
        f.write(published)
    return reg


def batches(ns: float, apart: float) -> list[float]:
    """Per-call times `apart` of ns from one to the next: the figure (the tenth quantile) is ns."""
    return [ns * (1 + apart * (i - 1)) for i in range(BATCHES)]


def stored_run(tmp_path: Path) -> str:
    """A store holding one verified run of the study's experiment: its three points' batches."""
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = Store(url)
    rid = store.begin_run(uuid="tiny", kind=RunKind.SPEED.value, host="here", status="complete", profile="tiny-study")
    for prim, ns in NS.items():  # stored as test_verdict_intervals stores its points, at its SIZE
        point(store, rid, prim, batches(ns, 0.05 if prim.startswith("3des") else 0.0001))
    return url


def cipherbench(registry: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, CIPHERBENCH_REGISTRY=str(registry))
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)


def test_a_study_added_as_registry_entries_gets_its_verdicts_from_a_stored_run(tmp_path):
    from cipherbench.report import experiments
    from cipherbench.results.run import ReportData, load_run, published_for
    reg = registry_copy(tmp_path)
    study = load_published_figures(reg / "published-figures.toml").studies["tiny-study"]
    assert [f.kind for f in study.findings] == [FindingKind.RATIO, FindingKind.RANK, FindingKind.RATIO]
    store = Store(stored_run(tmp_path), create=False)
    runs = [load_run(store, 1)]
    data = ReportData(runs, published_for(runs, {"tiny-study": study}), store)
    [sec] = experiments.sections(data)
    got = {claim: v for (claim, _), v in zip(sec.findings, sec.verdicts, strict=True)}
    ratio, rank, triple = (got[f.text] for f in study.findings)
    assert ratio.outcome() == "changed"
    assert ratio.figure.startswith("x: aes-128-ecb at 5× [")
    assert rank.outcome() == "holds"
    assert rank.figure.startswith("fastest first (best verified MB/s): aes-128-ecb ")
    assert triple.verdict.value == "not decided at this noise"
    assert triple.figure.startswith("x: 3des-168-ecb at 0.45× [")


def test_the_report_command_shows_the_added_studys_verdicts(tmp_path):
    """The whole path a user takes: the registry copy, the stored run, `cipherbench report`."""
    reg = registry_copy(tmp_path)
    r = cipherbench(reg, "report", "--db", stored_run(tmp_path), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "out" / "report.md").read_text()
    assert "## Then and now: An invented study: DES, Triple DES and AES" in md
    assert "| AES at most three times the speed of DES. | **changed** |" in md
    assert "| AES fastest, Triple DES slowest. | **holds** |" in md


@pytest.mark.parametrize("finding, line", [
    ('{ text = "t", now = { ratio = ["a", "b"] }, expect = { above = 2, below = 3 } }',
     "published-figures.toml: [experiments.tiny-study]: 'findings.0.expect': one of above, below, between; "
     "not above and below"),
    ('{ text = "t", now = { ratio = ["a", "b"], small = 16 } }',
     "published-figures.toml: [experiments.tiny-study]: 'findings.0.now': ratio takes no small"),
    ('{ text = "t", now = { ratio = ["a", "b"] }, from = "fleet", expect = { above = 2 } }',
     "published-figures.toml: [experiments.tiny-study]: 'findings.0': a ratio finding takes no `from`"),
    ('{ text = "t", now = { releases = "oldest/newest" }, from = "nowhere", expect = { above = 1 } }',
     "published-figures.toml: [experiments.tiny-study] 'findings.0.from': source 'nowhere', which [sources] lacks "
     "(known: compiler-matrix, debian-releases, fleet)"),
    ('{ text = "t", now = { rank = "primitives" }, expect = { above = 1 } }',
     "published-figures.toml: [experiments.tiny-study]: 'findings.0': a rank finding's expect is first and/or last"),
    ('{ text = "t", now = { ratio = ["a", "b"] }, expected = { above = 1 } }',
     "published-figures.toml: [experiments.tiny-study]: unknown key 'findings.0.expected'"),
])
def test_a_bad_finding_is_one_line_naming_the_file_and_the_entry(tmp_path, finding, line):
    bad = f'\n[experiments.tiny-study]\ntitle = "x"\ncitation = "y"\nfindings = [\n  {finding},\n]\n'
    reg = registry_copy(tmp_path, published=bad)
    with pytest.raises(UsageError) as e:
        load_published_figures(reg / "published-figures.toml")
    assert str(e.value) == line


def test_a_bad_entry_ends_the_command_with_its_one_line(tmp_path):
    bad = '\n[experiments.tiny-study]\ntitle = "x"\ncitation = "y"\nfindings = [{ text = "t", now = { rank = "ciphers" } }]\n'
    reg = registry_copy(tmp_path, published=bad)
    r = cipherbench(reg, "reproduce", "tiny-study")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].endswith(
        "published-figures.toml: [experiments.tiny-study]: 'findings.0.now.rank': Input should be 'primitives' or "
        "'implementations'")


def test_every_registry_finding_is_a_valid_model_and_each_kind_is_used():
    """The file as shipped passes the loader, and its studies use every kind a finding has."""
    studies = load_published_figures().studies
    kinds = {f.kind for s in studies.values() for f in s.findings}
    assert kinds == set(FindingKind)
    assert validated(Finding, {"text": "t", "needs": "a 486"}, "x").kind is None


@pytest.mark.parametrize("planted, line", [
    ('\n[ciphers.bogus]\nsame_as = "nothing"\n',
     "security-margins.toml: [ciphers.bogus] 'same_as': 'nothing', which [ciphers] lacks"),
    ('\n[ciphers.bogus]\nmin_secure = { rounds = 8, of = 10, key_bits = 128, status = "checked" }\n',
     "security-margins.toml: [ciphers.bogus]: 'min_secure.status': Input should be 'V' or 'M'"),
    ('\n[[ciphers.bogus.attacks]]\nkey_bits = [128]\nrounds = 7\nkind = "k"\nreference = "r"\nstatus = "V"\n',
     "security-margins.toml: [ciphers.bogus]: 'attacks.0.of': Field required"),
])
def test_a_bad_security_margin_is_one_line_naming_the_file_and_the_cipher(tmp_path, planted, line):
    from cipherbench.registry_models import load_security_margins
    assert refusal(tmp_path, "security-margins.toml", planted, load_security_margins) == line


def refusal(tmp_path, name: str, planted: str, load) -> str:
    """The one line `load` refuses a copy of registry/NAME with `planted` appended with."""
    reg = registry_copy(tmp_path)
    with open(reg / name, "a") as f:
        f.write(planted)
    with pytest.raises(UsageError) as e:
        load(reg / name)
    return str(e.value)


def test_the_minimal_secure_rounds_are_cited_from_the_source_the_file_names():
    from cipherbench.registry_models import load_security_margins
    m = load_security_margins()
    assert m.min_secure_source == "biham1999"
    assert m.min_secure_citation.startswith('E. Biham, "A Note on Comparing the AES Candidates"')


@pytest.mark.parametrize("planted, line", [
    ('\n[hashes.bogus]\ndigest_bit = 256\n',
     "primitives.toml: [hashes.bogus]: unknown key 'digest_bit' (accepted: block_bits, digest_bits, note, params, "
     "spec, title)"),
    ('\n[aeads.bogus]\nkey_bits = 256\niv = 12\n', "primitives.toml: [aeads.bogus] lacks tag_bytes"),
    ('\n[ciphers.bogus]\nblock_bits = 64\nkey_bits = [64]\nmodes = ["ecb", "cbcx"]\n',
     "primitives.toml: [ciphers.bogus] names mode 'cbcx', which [modes] lacks"),
    ('\n[special.bogus]\nkind = "cypher"\n',
     "primitives.toml: [special.bogus]: kind 'cypher' (accepted: cipher, aead, stream, hash, null)"),
])
def test_a_bad_primitive_is_one_line_naming_the_file_and_the_entry(tmp_path, planted, line):
    from cipherbench import registry
    assert refusal(tmp_path, "primitives.toml", planted, registry.load) == line
