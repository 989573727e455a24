"""Installed releases as runners: the project's runner for the release's language, pointed at it.

The runner is the project's own (runners/<lang>/), so a release is verified and timed by the
same code as the version the runner was built with; only the library under it differs. The
session names the release's implementation `IMPL==VERSION` and adopts no other implementation
that runner announces (the Java runner's SunJCE is the JDK's, not the release's).
"""
from __future__ import annotations

from cipherbench.measure.runner import RunnerSpec
from cipherbench.paths import BUILD, REPO
from cipherbench.releases.model import Ecosystem, Release, installed, release_named
from cipherbench.variant import VariantAxis, try_parse


def _java_classpath(r: Release) -> tuple[str, str | None]:
    """The Java runner's classes and its dependencies with the release's jar in place of the
    Bouncy Castle it was built with; or why there is none."""
    out = BUILD / "runners" / "java"
    try:
        deps = (out / "classpath.txt").read_text().strip().split(":")
    except OSError:
        return "", f"the Java runner is not built ({out / 'classpath.txt'} is missing; run 'make runners')"
    jars = sorted(str(j) for j in (r.root / "jar").glob("*.jar"))
    keep = [d for d in deps if d and "/org/bouncycastle/" not in d]
    return ":".join([str(out / "target" / "classes"), *keep, *jars]), None


def argv_of(r: Release) -> tuple[list[str], str | None]:
    """How the release's runner starts (runners/<lang>/run, with the release in place of the
    built-in library), or why it cannot."""
    eco = r.package.ecosystem
    if eco is Ecosystem.PYPI:
        return [str(r.root / "venv" / "bin" / "python"), "-u", str(REPO / "runners" / "python" / "runner.py")], None
    if eco is Ecosystem.MAVEN:
        cp, why = _java_classpath(r)
        # the options of runners/java/run, for the same reasons
        return ["java", "-Xbatch", "-XX:+UnlockDiagnosticVMOptions", "-cp", cp, "cipherbench.Main",
                str(BUILD / "runners" / "java" / "registry.json")], why
    lang, binary = ("go", "cipherbench-go") if eco is Ecosystem.GO else ("rust", "cipherbench-rust")
    registry = BUILD / "runners" / lang / "registry.json"
    return ([str(r.root / binary), "--registry", str(registry)],
            None if registry.exists() else f"the {lang} runner is not built ({registry} is missing; run 'make runners')")


def spec_of(r: Release) -> RunnerSpec:
    argv, why = argv_of(r)
    return RunnerSpec(r.name, argv, builtin=False, unavailable=why, release=r.version,
                      only=(r.package.impl,))


#: The name that stands for every installed release (`--release all`, an experiment's `releases`).
EVERY = "all"


def releases_of(names) -> list[Release]:
    """The named releases (`IMPL==VERSION`), each once; EVERY: every installed one."""
    names = list(dict.fromkeys(names))
    return installed() if EVERY in names else [release_named(n) for n in names]


def runner_specs(names) -> list[RunnerSpec]:
    """The runners of the named releases (releases_of)."""
    return [spec_of(r) for r in releases_of(names)]


def with_baselines(impls) -> list[str]:
    """Of a session's implementation names, the releases and the implementation each release
    is a version of (the runner's own build: `pyca-cryptography` beside `pyca-cryptography==41.0.7`)."""
    names = list(impls)
    releases = [v for n in names if (v := try_parse(n)) and v.release is not None]  # a runner's odd name is none
    bases = {str(v.without(VariantAxis.RELEASE)) for v in releases}
    return [n for n in names if n in bases] + [str(v) for v in releases]
