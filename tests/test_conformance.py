"""Every runner, the native one included, passes the language-neutral conformance suite."""
import pytest
from conftest import faulty

from cipherbench.measure.conformance import run_suite
from cipherbench.measure.runner import RunnerProcess, RunnerSpec, builtin_runners
from cipherbench.paths import BUILD, REPO

RUNNER_DIRS = sorted(p.parent.name for p in (REPO / "runners").glob("*/run"))


@pytest.mark.parametrize("lang", RUNNER_DIRS)
def test_every_runner_folder_built(lang):
    assert (BUILD / "runners" / f"{lang}.ok").exists(), \
        f"runner {lang} did not build: see {BUILD / 'runners' / (lang + '.log')}"


@pytest.mark.parametrize("spec", [s for s in builtin_runners() if not s.unavailable], ids=lambda s: s.name)
def test_runner_conforms(spec):
    """Every case of conformance/cases.json, and every input the registry forbids for every
    (implementation, primitive) the runner offers (cipherbench/measure/forbidden.py)."""
    results = run_suite(spec)
    bad = [f"{r.case} [{r.impl}]: {r.detail}" for r in results if not r.passed]
    assert not bad, "\n".join(bad)
    assert len(results) >= 10
    proc = RunnerProcess(spec)
    try:
        hello = proc.request({"op": "hello"})
    finally:
        proc.close()
    offered = {(im["name"], p["name"] if isinstance(p, dict) else p) for im in hello["implementations"]
               if im.get("available", True) for p in im.get("primitives", [])}
    asked = {(r.impl, r.case.rsplit(" ", 1)[1]) for r in results
             if r.case.startswith("refuses every input the registry forbids")}
    assert asked == offered


def test_the_suite_catches_a_wrong_runner():
    spec = RunnerSpec("faulty", faulty("ctr-swap").split(), builtin=False)
    bad = [r for r in run_suite(spec) if not r.passed]
    assert any("AES-128-CTR known answer" in r.case for r in bad)
    assert not any("AES-128-CBC known answer" in r.case for r in bad)


# ---------------------------------------------------------------- inputs the registry forbids
def _allowed(p, req) -> bool:
    """Whether the registry's rules allow req: the key and IV lengths it states, whole blocks
    where it asks for them, an AEAD ciphertext at least as long as its tag, associated data
    only for an AEAD."""
    key, iv, data = (len(bytes.fromhex(req.get(f, ""))) for f in ("key", "iv", "input"))
    if key != p.key_bytes or iv != p.iv_bytes:
        return False
    if p.whole_blocks and data % p.block_bytes:
        return False
    if p.kind != "aead":
        return "aad" not in req
    return not (req["op"] == "decrypt" and data < p.tag_bytes)


def test_every_forbidden_request_breaks_one_rule_of_the_registry():
    """Each generated request breaks a rule, the valid one breaks none, and every rule a
    primitive has is broken on both sides (key, IV, whole blocks both ways, AEAD tag)."""
    from cipherbench import registry
    from cipherbench.measure import forbidden
    for p in registry.load():
        cases = forbidden.length_rules(p)
        if p.kind not in ("cipher", "stream", "aead"):
            assert cases == []
            continue
        assert _allowed(p, forbidden.Valid.of(p).request(p, "encrypt")), p.name
        assert all(not _allowed(p, c.request) for c in cases), p.name
        broken = [c.what.split(" (")[0] for c in cases]
        want = [f"{op} with a {n}-byte key" for n in (p.key_bytes - 1, p.key_bytes + 1)
                for op in ("encrypt", "decrypt")]
        want += [f"{op} with a {n}-byte IV" for n in (p.iv_bytes - 1, p.iv_bytes + 1) if n > 0
                 for op in ("encrypt", "decrypt")]
        if p.whole_blocks:
            want += [f"{op} of {n} bytes" for n in (p.block_bytes - 1, 2 * p.block_bytes + 1)
                     for op in ("encrypt", "decrypt")]
        want += ([f"decrypt of {p.tag_bytes - 1} bytes"] if p.kind == "aead"
                 else [f"{op} with 5 bytes of associated data" for op in ("encrypt", "decrypt")])
        assert broken == want, p.name


def test_forbidden_inputs_catch_a_lenient_runner():
    """A runner that cuts or pads a wrong key or IV, pads a partial block and takes a short tag
    fails exactly those cases; the same runner without the leniency fails none."""
    from cipherbench import registry
    from cipherbench.measure.conformance import not_refused
    reg = registry.load()
    lenient = RunnerProcess(RunnerSpec("faulty", faulty("lenient").split(), builtin=False))
    correct = RunnerProcess(RunnerSpec("faulty", faulty("correct").split(), builtin=False))
    try:
        for name in ("aes-128-cbc", "aes-128-ctr", "aes-128-gcm"):
            assert not_refused(correct, "faulty", reg[name]) == []
        wrong = {n: [w.split(":")[0] for w in not_refused(lenient, "faulty", reg[n])]
                 for n in ("aes-128-cbc", "aes-128-gcm")}
    finally:
        lenient.close()
        correct.close()
    keys_ivs = [f"{op} with {what}" for what in ("a 15-byte key (aes-128-{m} takes 16)", "a 17-byte key (aes-128-{m} takes 16)",
                                                  "a {a}-byte IV (aes-128-{m} takes {i})", "a {b}-byte IV (aes-128-{m} takes {i})")
                for op in ("encrypt", "decrypt")]  # each length rule asked in both directions
    assert wrong["aes-128-cbc"] == [w.format(m="cbc", a=15, b=17, i=16) for w in keys_ivs] + [
        f"{op} of {n} bytes (aes-128-cbc takes whole 16-byte blocks)" for n in (15, 33)
        for op in ("encrypt", "decrypt")] + [f"{op} with 5 bytes of associated data (aes-128-cbc is no AEAD)"
                                            for op in ("encrypt", "decrypt")]
    assert wrong["aes-128-gcm"] == [w.format(m="gcm", a=11, b=13, i=12) for w in keys_ivs] + [
        "decrypt of 15 bytes (shorter than the 16-byte tag)", "a forgery"]
