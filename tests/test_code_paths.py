"""A code path is data: every implementation announces the features its path uses
(docs/protocol.md, `features`), every label is made from that list alone
(codepath.code_label), and the words beside it never contradict it. Held over every
implementation and primitive the engine and the language runners offer here."""
from __future__ import annotations

import itertools
import json
import random
import re

import pytest

from cipherbench.analysis.recommend import Figure
from cipherbench.cli.stored_run import path_label
from cipherbench.codepath import NAMES, UNKNOWN, code_label, in_order, read_features
from cipherbench.kinds import CodeFeature
from cipherbench.measure import protocol
from cipherbench.measure.runner import RunnerProcess, builtin_runners
from cipherbench.results.run import Measurement

#: How people write each feature in a runner's words (its own name first); a word that
#: negates one ("no AES-NI", "without PCLMUL") must never stand beside that feature.
SPELLINGS: dict[CodeFeature, tuple[str, ...]] = {
    CodeFeature.AES_NI: ("aes-ni", "aesni"), CodeFeature.VAES: ("vaes",), CodeFeature.VPCLMUL: ("vpclmul", "vpclmulqdq"),
    CodeFeature.PCLMUL: ("pclmul", "pclmulqdq", "clmul"), CodeFeature.SHA_NI: ("sha-ni", "shani", "shaext"),
    CodeFeature.GFNI: ("gfni",), CodeFeature.ARMV8_CE: ("armv8", "pmull"), CodeFeature.AVX512: ("avx-512", "avx512"),
    CodeFeature.AVX2: ("avx2",), CodeFeature.AVX: ("avx",), CodeFeature.SSE41: ("sse4.1", "sse41"),
    CodeFeature.SSSE3: ("ssse3",), CodeFeature.SSE2: ("sse2",), CodeFeature.BMI2: ("bmi2",), CodeFeature.NEON: ("neon",),
    CodeFeature.ASM: ("asm", "assembly"), CodeFeature.PORTABLE: ("portable", "pure go", "pure java", "java code",
                                                                   "managed code", "c++", "provider base", "base code", "c code",
                                                                   "inline copy", "test-only", "c;"),
}
NEGATIONS = ("no ", "without ", "not ")


def named(text: str, spelling: str) -> bool:
    """`spelling` stands in `text` as a word of its own ("avx" is not "avx2")."""
    return re.search(rf"(?<![a-z0-9]){re.escape(spelling)}(?![a-z0-9])", text) is not None


def negated(text: str, spelling: str) -> bool:
    return any(re.search(rf"{neg}{re.escape(spelling)}(?![a-z0-9])", text) for neg in NEGATIONS)


# ---------------------------------------------------------------------------- the list and its label
def test_every_feature_has_a_label_and_every_set_one_order():
    assert set(NAMES) == set(CodeFeature) and len(set(NAMES.values())) == len(NAMES)
    cpu = [f for f in CodeFeature if f is not CodeFeature.PORTABLE]
    rnd = random.Random(48)
    for n in range(1, 5):
        for combo in itertools.combinations(cpu, n):
            shuffled = list(combo)
            rnd.shuffle(shuffled)
            label = code_label(shuffled)
            assert label.split("+") == [NAMES[f] for f in cpu if f in combo]  # one order, whatever came
            found, problem = read_features([f.value for f in shuffled])
            assert problem is None and found == in_order(combo) and code_label(found) == label
    assert code_label([CodeFeature.PORTABLE]) == "portable"
    assert code_label(None) == UNKNOWN


@pytest.mark.parametrize("value, problem", [
    ([], "non-empty"), ("aes-ni", "non-empty"), (["aes-ni", "aes-ni"], "twice"),
    (["portable", "avx2"], "'portable'"), (["AES-NI"], "'AES-NI'"), (["aes-ni", 3], "3"), ([None], "None"),
])
def test_a_list_the_protocol_does_not_allow_is_unknown_and_said_why(value, problem):
    found, why = read_features(value)
    assert found is None and problem in why
    with pytest.raises(ValueError):
        protocol.PrimitiveOffer.model_validate({"name": "aes-128-gcm", "features": value})


def test_the_words_never_make_a_label():
    """Only the list does: a path announced without one is unknown whatever its words say,
    and the words of the paths that misled (an AES-NI label for "no AES-NI") change nothing."""
    for words in ("portable C tables (no AES-NI), GHASH 8-bit tables (no PCLMUL)", "default provider, AES-NI",
                  "libgcrypt hwf intel-aesni intel-vaes-vpclmul", "AES-NI + PCLMUL"):
        m = Measurement.of({"impl": "x", "primitive": "aes-128-gcm", "provider": words})
        assert m.path_label == UNKNOWN and path_label({"provider": words, "features": None}) == UNKNOWN
        figure = Figure("x", "aes-128-gcm", 16384, 1.0, None, None, 1.0, words, "native")
        assert figure.path_label == UNKNOWN
    tomcrypt = Measurement.of({"impl": "tomcrypt", "primitive": "aes-128-gcm", "features": ["portable"],
                               "provider": "portable C tables (no AES-NI), GHASH 8-bit tables (no PCLMUL)"})
    assert tomcrypt.path_label == "portable"


# ---------------------------------------------------------------------------- every announced path
def announced() -> list[tuple[str, str, str, str, object]]:
    """(runner, implementation, primitive, words, features) for every offer of every runner built here."""
    rows = []
    for spec in builtin_runners():
        if spec.unavailable:
            continue
        proc = RunnerProcess(spec)
        try:
            hello = proc.request({"op": "hello"}, timeout=120)
        finally:
            proc.close()
        for im in hello["implementations"]:
            for p in im.get("primitives", []):
                rows.append((spec.name, im["name"], p["name"], p.get("provider", ""), p.get("features")))
    return rows


@pytest.fixture(scope="module")
def offers(engine):
    rows = announced()
    assert {r[0] for r in rows} >= {"native"}
    return rows


def test_every_path_s_label_is_its_list_and_its_words_agree(offers):
    unknown = []
    for runner, impl, prim, words, value in offers:
        where = f"{runner} {impl} {prim}: {words!r} {value!r}"
        features, problem = read_features(value)
        assert problem is None, where
        if features is None:
            unknown.append(where)
            continue
        label = code_label(features)
        assert {f for f in CodeFeature if NAMES[f] in label.split("+")} == set(features), where
        text = words.lower()
        for f in features:
            assert not any(negated(text, s) for s in SPELLINGS[f]), where  # no "no X" beside X
            assert any(named(text, s) for s in SPELLINGS[f]), where  # the words name what the list says
    # the paths a runner does not follow (OpenSSL's ChaCha20, Nettle's undispatched code, HACL*,
    # ring, the kernel's drivers) are unknown: said, never guessed; they stay a minority
    assert len(unknown) < len(offers) / 4, unknown[:20]


def test_the_paths_that_misled_are_labelled_from_their_lists(offers):
    by = {(impl, prim): (words, value) for _, impl, prim, words, value in offers}
    # libtomcrypt and Debian's wolfSSL have no AES-NI code: their words said "no AES-NI"
    for impl in ("tomcrypt", "wolfssl"):
        if (impl, "aes-128-gcm") in by:
            assert code_label(read_features(by[(impl, "aes-128-gcm")][1])[0]) == "portable", by[(impl, "aes-128-gcm")]
    # pycryptodome loads a SHA-NI build of its SHA-256 where the CPU has SHA-NI (Crypto/Hash/SHA256.py)
    if ("pycryptodome", "sha-256") in by:
        with open("/proc/cpuinfo") as f:
            shani = " sha_ni " in next(x for x in f if x.startswith("flags")) + " "
        label = code_label(read_features(by[("pycryptodome", "sha-256")][1])[0])
        assert label == ("SHA-NI" if shani else "portable"), by[("pycryptodome", "sha-256")]


# ---------------------------------------------------------------------------- portable outliers
def sha256(impl, cpb, features, size=16384, ghz=3.0, spread=0.02):
    """A verified SHA-256 point at `cpb` cycles per byte on a `ghz` core."""
    mb = ghz * 1e3 / cpb
    ns = size / mb * 1e3
    return Measurement.of({"impl": impl, "primitive": "sha-256", "operation": "hash", "workload": "bulk",
                           "size": size, "ns_per_call": ns, "ns_low": ns * (1 - spread), "ns_high": ns * (1 + spread),
                           "mb_per_s": mb, "cycles_per_byte": cpb, "verified": "passed", "features": features,
                           "warnings": [], "error": None})


@pytest.mark.parametrize("cpb, features, flagged_as", [
    (2.5, ["portable"], True),  # pycryptodome's SHA-NI build, announced portable
    (2.5, ["sha-ni"], False),  # the same figure, truthfully labelled
    (2.5, None, False),  # unknown: nothing to hold it to
    (6.0, ["portable"], False),  # within PORTABLE_OUTLIER of portable C
])
def test_a_portable_label_far_faster_than_every_portable_path_is_flagged(cpb, features, flagged_as):
    from cipherbench.analysis.plausibility import PORTABLE_OUTLIER, flagged, portable_outliers
    from cipherbench.analysis.recommend import Exclusion, UseCase, recommend
    from cipherbench.results.run import Implementation
    peers = [sha256("tomcrypt", 13.0, ["portable"]), sha256("beecrypt", 18.0, ["portable"]),
             sha256("mcrypt", 15.0, ["portable"])]
    suspect = sha256("pycryptodome", cpb, features)
    small = [sha256(m.impl, c, f, size=16) for m, c, f in ((suspect, cpb, features), *((p, 13.0, ["portable"])
                                                                                         for p in peers))]
    found = portable_outliers([*peers, suspect, *small])
    assert [o.impl for o in found] == (["pycryptodome"] if flagged_as else [])  # never at 16 B: runners' costs
    if flagged_as:
        assert found[0].ratio == pytest.approx(13.0 / 2.5) and found[0].ratio > PORTABLE_OUTLIER
        assert found[0].other == "tomcrypt"
        key = ("pycryptodome", "sha-256", "hash", "bulk", 16384)
        assert flagged([*peers, suspect])[key].startswith("implausible: announced portable, yet ")
        impls = [Implementation(m.impl, runner="native", library=m.impl) for m in [*peers, suspect]]
        a = recommend([*peers, suspect], impls, cases=[UseCase.HASH])[0]
        assert [(e.impl, e.reason) for e in a.excluded] == [("pycryptodome", Exclusion.IMPLAUSIBLE)]
    # one peer is not enough to judge by
    assert portable_outliers([peers[0], sha256("pycryptodome", 1.0, ["portable"])]) == []


# ---------------------------------------------------------------------------- from hello to every view
def test_a_runner_s_list_is_read_once_and_its_absence_is_unknown():
    from cipherbench.measure.runner import external_runner
    from cipherbench.measure.session import RunnerInfo, Session
    s = Session(builtin=False, pin=False)
    hello = {"implementations": [{"name": "lib", "primitives": [
        {"name": "aes-128-gcm", "provider": "AES-NI + PCLMUL", "features": ["pclmul", "aes-ni"]},
        {"name": "aes-128-cbc", "provider": "portable C (no AES-NI)"},  # a runner written before the field
        {"name": "sha-256", "provider": "SHA-NI", "features": ["portable", "sha-ni"]},
        {"name": "md5", "provider": "C", "features": ["portable"]}]}]}
    s._adopt(RunnerInfo(external_runner("somerunner")), hello)
    im = s.impls["lib"]
    assert im.features == {"aes-128-gcm": (CodeFeature.AES_NI, CodeFeature.PCLMUL), "aes-128-cbc": None,
                           "sha-256": None, "md5": (CodeFeature.PORTABLE,)}
    assert im.notes["problems"] == ["sha-256: features has 'portable' (nothing CPU-specific) beside other features"]
    assert [code_label(im.features[p]) for p in im.primitives] == ["AES-NI+PCLMUL", UNKNOWN, UNKNOWN, "portable"]


def test_a_run_stores_each_path_s_list_and_every_view_labels_it_from_there(cb, db):
    r = cb("run", "--impl", "tomcrypt", "--impl", "openssl", "--primitive", "aes-128-gcm", "--sizes", "1024",
           "--workload", "bulk", "--batch-ms", "1", "--batches", "3", "--json", timeout=900)
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)
    stored = {m["impl"]: m["features"] for m in run["measurements"]}
    hello = {(impl, prim): value for _, impl, prim, _, value in announced() if prim == "aes-128-gcm"}
    assert stored == {i: hello[(i, "aes-128-gcm")] for i in ("tomcrypt", "openssl")} and stored["tomcrypt"] == ["portable"]
    assert {i["impl"]: i["features"]["aes-128-gcm"] for i in run["implementations"] if i["impl"] in stored} == stored
    labels = {i: code_label(read_features(f)[0]) for i, f in stored.items()}
    answer = cb("recommend", "--case", "bulk-aead", "--size", "1024", "--long", env={"COLUMNS": "250"}).stdout
    for impl, label in labels.items():
        row = next(x for x in answer.splitlines() if x.split()[1:2] == [impl])  # rank, implementation, ...
        assert f"  {label}: " in row, row  # the label, then the implementation's own words
    narrow = cb("show", "--long", env={"COLUMNS": "80"}).stdout
    for impl, label in labels.items():
        assert any(x.split()[:1] == [impl] and label[:10] in x for x in narrow.splitlines()), narrow
