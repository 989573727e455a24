"""Every runner, the native one included, passes the language-neutral conformance suite."""
import pytest
from conftest import faulty

from cipherbench.measure.conformance import run_suite
from cipherbench.measure.runner import RunnerSpec, builtin_runners
from cipherbench.paths import BUILD, REPO

RUNNER_DIRS = sorted(p.parent.name for p in (REPO / "runners").glob("*/run"))


@pytest.mark.parametrize("lang", RUNNER_DIRS)
def test_every_runner_folder_built(lang):
    assert (BUILD / "runners" / f"{lang}.ok").exists(), \
        f"runner {lang} did not build: see {BUILD / 'runners' / (lang + '.log')}"


@pytest.mark.parametrize("spec", [s for s in builtin_runners() if not s.unavailable], ids=lambda s: s.name)
def test_runner_conforms(spec):
    results = run_suite(spec)
    bad = [f"{r.case} [{r.impl}]: {r.detail}" for r in results if not r.passed]
    assert not bad, "\n".join(bad)
    assert len(results) >= 10


def test_the_suite_catches_a_wrong_runner():
    spec = RunnerSpec("faulty", faulty("ctr-swap").split(), builtin=False)
    bad = [r for r in run_suite(spec) if not r.passed]
    assert any("AES-128-CTR known answer" in r.case for r in bad)
    assert not any("AES-128-CBC known answer" in r.case for r in bad)
