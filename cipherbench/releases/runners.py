"""Installed releases as runners: the project's runner for the release's language, pointed at it.

The runner is the project's own (runners/<lang>/), so a release is verified and timed by the
same code as the version the runner was built with; only the library under it differs. The
session names the release's implementation `IMPL==VERSION` and adopts no other implementation
that runner announces (the Java runner's SunJCE is the JDK's, not the release's).
"""
from __future__ import annotations

from cipherbench.measure.runner import RunnerSpec
from cipherbench.releases.ecosystems import client_of
from cipherbench.releases.release import Release, installed, release_named
from cipherbench.variant import VariantAxis, try_parse


def argv_of(r: Release) -> tuple[list[str], str | None]:
    """How the release's runner starts (runners/<lang>/, with the release in place of the
    built-in library; its ecosystem's module says how), or why it cannot."""
    return client_of(r.package.ecosystem).argv(r)


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
