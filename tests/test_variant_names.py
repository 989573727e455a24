"""Implementations' names and their axes (cipherbench/variant.py): every combination of the
axes, with values the registries hold, either reads back as it was written or is refused in
one line; and no module but variant.py takes a name apart at one of the grammar's separators."""
from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path

import pytest

from cipherbench.arch.architecture import Arch
from cipherbench.builds import matrix
from cipherbench.envs.environment import check_name
from cipherbench.errors import UsageError
from cipherbench.paths import REPO
from cipherbench.pipeline.plan import load_presets
from cipherbench.releases.release import PACKAGES
from cipherbench.variant import (
    Build,
    VariantAxis,
    VariantName,
    apart,
    engine_suffix,
    one_copy,
    parse,
    try_parse,
    with_parallel,
)

A = VariantAxis

# ---------------------------------------------------------------- values the registries hold
BUILDS = matrix.load()
#: environments the registry names: the experiments' and the compilers' of registry/builds.toml,
#: and a runner's name where it prefixes the second of two runners announcing one name
ENVIRONMENTS = sorted({check_name(e) for p in load_presets().values() for e in p.envs}
                      | {c.env for c in BUILDS.compilers.values() if c.env}) + ["faulty"]
ARCHITECTURES = [a.value for a in Arch]
#: a few labels of every matrix: the first and last variant of each, a release's compiler among them
LABELS = sorted({v.label for m in BUILDS.matrices.values() for v in (m.variants[0], m.variants[-1])}
                | {v.label for m in BUILDS.matrices.values() for v in m.variants if v.compiler.env})
#: versions as each ecosystem writes them (PyPI, Maven, Go's v-prefix, a crate's)
VERSIONS = ["41.0.7", "1.78.1", "v0.31.0", "0.17.14", "42.0.0rc1"]
PARALLEL = [2, 4, 256]
BASES = ["openssl", "reference", "native", *PACKAGES]

#: the axes that name which program ran the code: a name carries one of them at most
PROGRAMS = (A.ENVIRONMENT, A.BUILD, A.ARCHITECTURE, A.RELEASE)


def written(base: str, env: str | None, label: str | None, arch: str | None, version: str | None,
            copies: int) -> str:
    """The name as docs/ARCHITECTURE.md writes it, composed here apart from variant.py."""
    return ((f"{env}:" if env else "") + base + (f"@{label}" if label else "") + (f"%{arch}" if arch else "")
            + (f"=={version}" if version else "") + (f"*{copies}" if copies > 1 else ""))


def makes_sense(axes: frozenset[VariantAxis]) -> bool:
    """The rule, stated apart from variant.py's table: one program at most; nothing emulated is timed."""
    return len(axes & set(PROGRAMS)) <= 1 and not {A.ARCHITECTURE, A.PARALLEL} <= axes


@dataclass(frozen=True)
class Case:
    axes: frozenset[VariantAxis]
    base: str
    env: str | None
    label: str | None
    arch: str | None
    version: str | None
    copies: int

    @property
    def text(self) -> str:
        return written(self.base, self.env, self.label, self.arch, self.version, self.copies)

    def expected(self) -> VariantName:
        return VariantName(self.base, self.env, Build.parse(self.label) if self.label else None, self.arch,
                           self.version, self.copies)


def _pick(values: list, i: int, axis: VariantAxis, axes: frozenset[VariantAxis]):
    return values[i % len(values)] if axis in axes else None


def cases() -> list[Case]:
    """Every subset of the axes, each with several values of every axis it holds."""
    out = []
    for present in itertools.product((False, True), repeat=len(A)):
        axes = frozenset(a for a, on in zip(A, present) if on)
        for i in range(4):
            out.append(Case(axes, BASES[i * 3 % len(BASES)], _pick(ENVIRONMENTS, i, A.ENVIRONMENT, axes),
                            _pick(LABELS, i, A.BUILD, axes), _pick(ARCHITECTURES, i, A.ARCHITECTURE, axes),
                            _pick(VERSIONS, i, A.RELEASE, axes), _pick(PARALLEL, i, A.PARALLEL, axes) or 1))
    return out


CASES = cases()


def test_the_values_are_the_registries():
    assert {"bullseye", "trixie", "sid"} <= set(ENVIRONMENTS) and ARCHITECTURES == ["s390x", "arm64", "ppc64el", "riscv64"]
    assert "gcc-12:O2" in {v.label for m in BUILDS.matrices.values() for v in m.variants}
    assert any(lb.startswith("gcc-10:") for lb in LABELS)  # bullseye's compiler
    assert len(CASES) == 4 * 2 ** len(A) and len({c.axes for c in CASES}) == 2 ** len(A)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.text)
def test_every_combination_reads_back_or_is_refused_in_one_line(case: Case):
    if makes_sense(case.axes):
        v = parse(case.text)
        assert v == case.expected() and str(v) == case.text and parse(str(v)) == v
        assert v.base == case.base and v.axes == case.axes
        for axis in case.axes:  # any axis dropped is still a name, the base intact
            less = v.without(axis)
            assert parse(str(less)) == less and less.base == case.base and less.axes == case.axes - {axis}
            assert apart(case.text, axis) == (str(less), str(getattr(v, axis.value)))
    else:
        for attempt in (lambda: parse(case.text), case.expected):
            with pytest.raises(UsageError) as e:
                attempt()
            msg = str(e.value)
            assert "\n" not in msg and repr(case.text) in msg and "do not combine" in msg, msg
            named = [a for a in A if a.shape in msg]
            assert len(named) == 2 and set(named) <= case.axes, msg
        assert try_parse(case.text) is None and all(apart(case.text, a) == (case.text, None) for a in A)


def test_the_refusals_name_their_reason():
    """One of each refused pair, with the words that say why."""
    why = {"bullseye:reference@gcc-10:O2": "named by that compiler alone",
           "bullseye:openssl%s390x": "this host's CPU",
           "bullseye:pyca-cryptography==41.0.7": "language runner",
           "reference@gcc-12:O3%s390x": "cross-built once",
           "pyca-cryptography@gcc-12:O3==41.0.7": "as published",
           "openssl%s390x==3.0.0": "only the engine is cross-built",
           "openssl%s390x*2": "never timed"}
    for text, words in why.items():
        with pytest.raises(UsageError, match=words):
            parse(text)


@pytest.mark.parametrize("text, words", [
    ("", "it is empty"),
    ("bullseye:", "its implementation is empty"),
    (":openssl", "its environment is empty"),
    ("a:b:c", "its implementation 'b:c' holds :"),
    ("openssl@gcc-12", "its build 'gcc-12' is COMPILER:FLAGS"),
    ("openssl@:O3", "its compiler is empty"),
    ("openssl@gcc-12:O3:x", "its flag set 'O3:x' holds :"),
    ("openssl%", "its architecture is empty"),
    ("pyca==", "its release is empty"),
    ("pyca===1", "its implementation 'pyca=' holds ="),
    ("openssl*1", "one copy is the name alone"),
    ("openssl*02", "no count of parallel copies"),
    ("openssl*", "no count of parallel copies"),
    ("openssl*x", "no count of parallel copies"),
    ("open*ssl*2", "its implementation 'open\\*ssl' holds \\*"),
])
def test_a_malformed_name_is_one_line(text: str, words: str):
    with pytest.raises(UsageError, match=words) as e:
        parse(text)
    assert "\n" not in str(e.value) and repr(text) in str(e.value)
    assert try_parse(text) is None


def test_names_from_runners_are_read_whole():
    """A name without the grammar's characters is a base, whatever else it holds: a hostile
    runner's (tests/runners/hostile.py), a path-like stored one, a clash's runner prefix."""
    for text in ("[bold red]x[/]\x1b[2J", "x/reference", "go-std", "faulty:faulty"):
        assert str(parse(text)) == text
    assert parse("faulty:faulty").environment == "faulty"


def test_the_engines_suffixes_are_the_grammars():
    """What CB_IMPL_SUFFIX gives the engine of a variant and of another CPU."""
    quick = BUILDS.matrix("quick")
    assert quick.variants[-1].suffix == "@clang-16:O3-native" == engine_suffix(build=Build("clang-16", "O3-native"))
    assert engine_suffix(architecture="s390x") == "%s390x"
    for m in BUILDS.matrices.values():
        for v in m.variants:
            assert parse("reference" + v.suffix).build == v.build and Build.parse(v.label) == v.build
    with pytest.raises(UsageError, match="do not combine"):
        engine_suffix(build=Build("gcc-12", "O3"), architecture="s390x")


def test_parallel_copies_are_the_last_part_of_any_name():
    for name in ("openssl", "bullseye:openssl", "reference@gcc-12:O3", "pyca-cryptography==41.0.7",
                 "[bold red]x[/]"):
        assert with_parallel(name, 1) == name and one_copy(with_parallel(name, 3)) == name
    assert with_parallel("openssl", 2) == "openssl*2" == str(VariantName("openssl", parallel=2))
    assert one_copy("openssl*1") == "openssl*1" and one_copy("openssl") == "openssl"


# ---------------------------------------------------------------- no parsing elsewhere
PACKAGE = REPO / "cipherbench"
#: The grammar's separators that no other module may take a string apart at or write between
#: two parts ("==", "%", "@", "*"). ':' is left out: it is also a Debian version's epoch, a
#: classpath's separator and a keystream tag's, and an AST cannot tell those from a name; the
#: environment prefix and a build's label are read by variant.py alone all the same.
SEPARATORS = ("==", "%", "@", "*")
#: What takes a string apart: these methods with a separator in their first argument.
METHODS = {"split", "rsplit", "partition", "rpartition", "startswith", "endswith", "removeprefix",
           "removesuffix", "find", "rfind", "index", "rindex", "count"}
#: Files whose separators are other grammars' (each file's reason):
ALLOWED = {
    "variant.py": "the grammar itself",
    "redact.py": "URLs and connection strings: user@host, percent-encoding",
    "store/": "database URLs (user:password@host)",
    "fleet/": "scheduler addresses and TLS URLs (tls://host:port, user@host)",
    "releases/ecosystems/": "the registries' own syntax: pip's NAME==VERSION, go get's MODULE@VERSION, npm's NAME@VERSION",
    "kat/corpora/wycheproof.py": "Go's MODULE@VERSION of the pinned vectors module",
}
#: Literals that hold a separator but are words of another format, wherever they are.
OTHER_WORDS = {"=====": "a group's rule in the shared vector files (kat/corpora/shared.py)"}


def _has_separator(node: ast.expr, constants: frozenset[str] = frozenset()) -> bool:
    """A string literal, an f-string's literal part, or a name of `constants`, that holds a separator."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value not in OTHER_WORDS and any(s in node.value for s in SEPARATORS)
    if isinstance(node, ast.JoinedStr):
        return any(_has_separator(v) for v in node.values if isinstance(v, ast.Constant))
    return isinstance(node, ast.Name) and node.id in constants


def _separator_constants(tree: ast.Module) -> frozenset[str]:
    """The module's own names for a separator (`ARCH_SEP = "%"`), and the separators it imports
    (variant.py's, or another module's `*_SEP`)."""
    names = {t.id for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
             and n.value.value in SEPARATORS for t in n.targets if isinstance(t, ast.Name)}
    names |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
              and (n.module or "").startswith("cipherbench") for a in n.names if a.name.endswith("_SEP")}
    return frozenset(names)


def _joins_two_parts(node: ast.JoinedStr, constants: frozenset[str]) -> bool:
    """An f-string that writes a separator right after a value and before another
    (`f"{impl}@{label}"`), starts with one before a value (`f"%{arch}"`), or writes a
    separator's name (`f"{impl}{RELEASE_SEP}{version}"`)."""
    vals = node.values
    if any(isinstance(v, ast.FormattedValue) and _has_separator(v.value, constants) for v in vals):
        return True
    for i, v in enumerate(vals):
        if not (isinstance(v, ast.Constant) and isinstance(v.value, str)):
            continue
        before = i == 0 or isinstance(vals[i - 1], ast.FormattedValue)
        after = i + 1 < len(vals) and isinstance(vals[i + 1], ast.FormattedValue)
        if before and after and any(v.value == s for s in SEPARATORS):
            return True
    return False


def separator_uses(source: str) -> list[int]:
    """The lines where a string is taken apart at a separator, tested for one with `in`, or
    joined around one."""
    found = []
    tree = ast.parse(source)
    constants = _separator_constants(tree)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in METHODS
                and node.args and _has_separator(node.args[0], constants)):
            found.append(node.lineno)
        elif (isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)
              and _has_separator(node.left, constants)):
            found.append(node.lineno)
        elif isinstance(node, ast.JoinedStr) and _joins_two_parts(node, constants):
            found.append(node.lineno)
    return sorted(found)


def allowed(rel: str) -> bool:
    return any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in ALLOWED)


def test_no_module_but_variant_py_takes_a_name_apart():
    found = [f"cipherbench/{rel}:{line}" for f in sorted(PACKAGE.rglob("*.py"))
             if not allowed(rel := f.relative_to(PACKAGE).as_posix())
             for line in separator_uses(f.read_text())]
    assert found == [], "parse names with cipherbench/variant.py (or allow the file here, saying why)"


def test_the_scan_finds_what_it_is_for():
    planted = ('a, _, b = name.partition("==")\n'
               'base = impl.split("@", 1)[0]\n'
               'if "%" in impl: pass\n'
               'stored = f"{impl}*{n}"\n'
               'suffix = f"%{arch}"\n'
               'n.endswith(f"@{label}")\n'
               'ok = f"{100 * x:.1f}%"\n'
               'also = name.split(":")\n'
               'log.warning("%s left out", n)\n'
               'SEP = "%"\n'
               'b, _, a = impl.rpartition(SEP)\n'
               'from cipherbench.variant import RELEASE_SEP as R\n'
               'if R in impl: pass\n'
               'name = f"native{R}{v}"\n')
    assert separator_uses(planted) == [1, 2, 3, 4, 5, 6, 6, 11, 13, 14]
    assert allowed("store/db.py") and allowed("variant.py") and not allowed("report/builds.py")
    assert all((PACKAGE / a).exists() for a in ALLOWED), "an allowed file is gone: drop it from ALLOWED"


def test_the_module_is_standard_library_only():
    """Layer 0: variant.py imports nothing but the standard library and cipherbench.errors."""
    tree = ast.parse((PACKAGE / "variant.py").read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert modules == {"__future__", "dataclasses", "enum", "cipherbench.errors"}
    assert Path(REPO / "docs" / "ARCHITECTURE.md").read_text().count("`variant`") == 1
