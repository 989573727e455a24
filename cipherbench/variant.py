"""An implementation's name and the axes it carries: the one grammar, parsed and written here.

A runner announces a base implementation (`openssl`). The axes that run the same code
somewhere else, built otherwise or at another version, or on several CPUs at once, add to
its name, each with its own separator:

    [ENVIRONMENT:]BASE[@COMPILER:FLAGS | %ARCH | ==VERSION][*N]

- environment `bullseye:openssl`: the engine of a Debian release's root filesystem
  (cipherbench/envs; measure/environments.py). The session also names the second of two
  runners that announce one name this way (`faulty-2:faulty`): the runner's name then stands
  where the environment's would, and says the same thing, where the code ran.
- build `reference@gcc-12:O3`: the engine compiled with one compiler and one flag set of
  registry/builds.toml (cipherbench/builds); the engine appends it (CB_IMPL_SUFFIX).
- architecture `openssl%s390x`: the engine cross-built for another CPU and run under
  qemu-user (cipherbench/arch), Debian's name of the CPU; the engine appends it too.
- release `pyca-cryptography==42.0.5`: a release installed from the library's package
  registry and run in the project's runner for its language (cipherbench/releases).
- parallel `openssl*2`: a point timed on N CPUs at once (run --parallel), stored beside the
  same point on one CPU (measure/point.py Point.stored_name); N is 2 or more.

What combines. The environment, the build, the architecture and the release each name a
different program that ran the code, and no program is two of them, so a name carries at
most one of the four; parallel copies go with any of them but the architecture:

- an environment's engine is built once, inside its release, with its default flags; a
  variant built with a release's compiler is named by that compiler alone (gcc-10 is
  bullseye's, registry/builds.toml `env`), never with the environment's prefix;
- an environment's engine runs on this host's CPU; another CPU's engine is cross-built on
  the host against a sysroot of its own;
- an environment holds the engine's C and C++ libraries as its Debian release packaged
  them; a registry release is a package of a language runner, installed on the host;
- a compiler variant is built for this host's CPU; another CPU's engine is cross-built once,
  with Debian's cross compiler and the ordinary build's flags;
- a compiler variant recompiles the engine's own code (the reference ciphers, Crypto++); a
  registry release is the package as published, built (ring) by its own tools;
- a registry release runs in a language runner on this host; only the engine is cross-built;
- an emulated implementation is verified, never timed (`run` refuses it: qemu's speed says
  nothing of the CPU it emulates), so it has no point on several CPUs.

`parse` refuses any other name with a UsageError of one line naming the combination and
why; every name it accepts is written back as it was: `str(parse(s)) == s`. The five
characters `: @ % = *` are the grammar's and appear in no part. Readers of stored names
that must not stop at one they cannot read use `try_parse`.

Standard library only: every layer reads names.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from cipherbench.errors import UsageError

ENVIRONMENT_SEP = ":"  # bullseye:openssl
BUILD_SEP = "@"  # reference@gcc-12:O3
FLAGS_SEP = ":"  # gcc-12:O3, a build's compiler and flag set
ARCH_SEP = "%"  # openssl%s390x
RELEASE_SEP = "=="  # pyca-cryptography==42.0.5
PARALLEL_SEP = "*"  # openssl*2

#: The grammar's characters, which no part of a name may hold ('=' for the release's '==').
RESERVED = frozenset(":@%=*")


class VariantAxis(StrEnum):
    """What a name can carry besides its base implementation."""

    ENVIRONMENT = "environment"
    BUILD = "build"
    ARCHITECTURE = "architecture"
    RELEASE = "release"
    PARALLEL = "parallel"

    @property
    def shape(self) -> str:
        """How the axis is written, for messages."""
        return {VariantAxis.ENVIRONMENT: "an environment (ENV:IMPL)",
                VariantAxis.BUILD: "a compiler build (IMPL@COMPILER:FLAGS)",
                VariantAxis.ARCHITECTURE: "another architecture (IMPL%ARCH)",
                VariantAxis.RELEASE: "a registry release (IMPL==VERSION)",
                VariantAxis.PARALLEL: "parallel copies (IMPL*N)"}[self]


#: Why two axes do not go together (the module's docstring says it at length).
REFUSED: dict[frozenset[VariantAxis], str] = {
    frozenset({VariantAxis.ENVIRONMENT, VariantAxis.BUILD}):
        "an environment's engine is built once with its release's default flags, and a variant built with "
        "a release's compiler is named by that compiler alone (registry/builds.toml env)",
    frozenset({VariantAxis.ENVIRONMENT, VariantAxis.ARCHITECTURE}):
        "an environment's engine runs on this host's CPU; another CPU's engine is cross-built on the host",
    frozenset({VariantAxis.ENVIRONMENT, VariantAxis.RELEASE}):
        "an environment holds the engine's Debian-packaged libraries; a registry release runs in a language "
        "runner on the host",
    frozenset({VariantAxis.BUILD, VariantAxis.ARCHITECTURE}):
        "compiler variants are built for this host's CPU; another CPU's engine is cross-built once with "
        "Debian's cross compiler",
    frozenset({VariantAxis.BUILD, VariantAxis.RELEASE}):
        "a compiler variant recompiles the engine's own code; a registry release is the package as published",
    frozenset({VariantAxis.ARCHITECTURE, VariantAxis.RELEASE}):
        "a registry release runs in a language runner on this host; only the engine is cross-built",
    frozenset({VariantAxis.ARCHITECTURE, VariantAxis.PARALLEL}):
        "an emulated implementation is verified, never timed, so never on several CPUs at once",
}


class _Malformed(Exception):
    """Why a part of a name is malformed, said before the whole name is known."""


@dataclass(frozen=True)
class Build:
    """One compiler with one flag set of registry/builds.toml: `gcc-12:O3`, its label."""

    compiler: str
    flags: str

    def __post_init__(self) -> None:
        try:
            _check_build(self.compiler, self.flags)
        except _Malformed as e:
            raise UsageError(f"build label {str(self)!r}: {e}") from None

    def __str__(self) -> str:
        return f"{self.compiler}{FLAGS_SEP}{self.flags}"

    @classmethod
    def parse(cls, label: str) -> Build:
        """`gcc-12:O3` -> Build("gcc-12", "O3"); anything else is a UsageError of one line."""
        try:
            return cls(*_split_build(label))
        except _Malformed as e:
            raise UsageError(f"build label {label!r}: {e}") from None


@dataclass(frozen=True)
class VariantName:
    """A base implementation and the axes its name carries; `str` writes the name."""

    base: str
    environment: str | None = None
    build: Build | None = None
    architecture: str | None = None  # Debian's name of the CPU: s390x, arm64, ppc64el, riscv64
    release: str | None = None  # the version in the package's registry
    parallel: int = 1  # CPUs timed at once

    def __post_init__(self) -> None:
        try:
            _check_parts(self)
        except _Malformed as e:
            raise UsageError(f"implementation name {_render(self)!r}: {e}") from None
        if why := _refusal(self.axes):
            raise UsageError(f"implementation name {_render(self)!r}: {why}")

    def __str__(self) -> str:
        return _render(self)

    @property
    def axes(self) -> frozenset[VariantAxis]:
        """The axes the name carries, the base aside."""
        return _axes_of(self)

    @property
    def suffix(self) -> str:
        """What the name has after its base: `@gcc-12:O3`, `%s390x`, `==42.0.5`, `*2`."""
        return _suffix(self)

    def without(self, *axes: VariantAxis) -> VariantName:
        """The same name with these axes dropped (`openssl%s390x` less ARCHITECTURE is `openssl`)."""
        return replace(self, environment=None if VariantAxis.ENVIRONMENT in axes else self.environment,
                       build=None if VariantAxis.BUILD in axes else self.build,
                       architecture=None if VariantAxis.ARCHITECTURE in axes else self.architecture,
                       release=None if VariantAxis.RELEASE in axes else self.release,
                       parallel=1 if VariantAxis.PARALLEL in axes else self.parallel)


def parse(text: str) -> VariantName:
    """The name's base and axes; a malformed name or a combination that means nothing
    (module docstring) is a UsageError of one line."""
    try:
        return _parse(text)
    except _Malformed as e:
        raise UsageError(f"implementation name {text!r}: {e}") from None


def try_parse(text: str) -> VariantName | None:
    """parse, or None for a name that is none (a stored row's name a reader passes over)."""
    try:
        return parse(text)
    except UsageError:
        return None


def apart(text: str, axis: VariantAxis) -> tuple[str, str | None]:
    """The name without one axis, and that axis as the name writes it, for readers of stored
    names: `apart("openssl%s390x", ARCHITECTURE) == ("openssl", "s390x")`; a name without the
    axis, or one the grammar does not read (try_parse), is (text, None)."""
    v = try_parse(text)
    if v is None or axis not in v.axes:
        return text, None
    part = {VariantAxis.ENVIRONMENT: v.environment, VariantAxis.BUILD: str(v.build), VariantAxis.ARCHITECTURE:
            v.architecture, VariantAxis.RELEASE: v.release, VariantAxis.PARALLEL: str(v.parallel)}[axis]
    return str(v.without(axis)), part


def engine_suffix(build: Build | None = None, architecture: str | None = None) -> str:
    """What an engine built with CB_IMPL_SUFFIX appends to every implementation it announces:
    a compiler variant's `@gcc-12:O3`, or another CPU's `%s390x`."""
    return VariantName("engine", build=build, architecture=architecture).suffix


def with_parallel(name: str, copies: int) -> str:
    """The name a point timed on `copies` CPUs at once is stored under: `openssl*2`; one copy
    is the name alone. The name is any a runner announced: it is not read, only extended."""
    if copies < 1:
        raise ValueError(f"{copies} copies")
    return name if copies == 1 else f"{name}{PARALLEL_SEP}{copies}"


def one_copy(name: str) -> str:
    """The name of the same point on one CPU: `openssl*2` -> `openssl` (with_parallel undone);
    a name without a count of copies after its last '*' is its own."""
    try:
        return _split_parallel(name)[0]
    except _Malformed:
        return name


# ---------------------------------------------------------------- the grammar
def _axes_of(v: VariantName) -> frozenset[VariantAxis]:
    present = {VariantAxis.ENVIRONMENT: v.environment is not None, VariantAxis.BUILD: v.build is not None,
               VariantAxis.ARCHITECTURE: v.architecture is not None, VariantAxis.RELEASE: v.release is not None,
               VariantAxis.PARALLEL: v.parallel != 1}
    return frozenset(a for a, on in present.items() if on)


def _refusal(axes: frozenset[VariantAxis]) -> str | None:
    """Why the axes do not go together, naming the first pair in VariantAxis order; None when they do."""
    ordered = [a for a in VariantAxis if a in axes]
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if why := REFUSED.get(frozenset({a, b})):
                return f"{a.shape} and {b.shape} do not combine: {why}"
    return None


def _suffix(v: VariantName) -> str:
    return ((f"{BUILD_SEP}{v.build}" if v.build is not None else "")
            + (f"{ARCH_SEP}{v.architecture}" if v.architecture is not None else "")
            + (f"{RELEASE_SEP}{v.release}" if v.release is not None else "")
            + (f"{PARALLEL_SEP}{v.parallel}" if v.parallel != 1 else ""))


def _render(v: VariantName) -> str:
    return (f"{v.environment}{ENVIRONMENT_SEP}" if v.environment is not None else "") + v.base + _suffix(v)


def _check_part(what: str, text: str) -> None:
    if not isinstance(text, str) or not text:
        raise _Malformed(f"its {what} is empty")
    if bad := sorted(RESERVED & set(text)):
        raise _Malformed(f"its {what} {text!r} holds {' '.join(bad)}, which the name's grammar "
                         f"reserves ([ENV:]IMPL[@COMPILER:FLAGS|%ARCH|==VERSION][*N])")


def _check_build(compiler: str, flags: str) -> None:
    _check_part("compiler", compiler)
    _check_part("flag set", flags)


def _split_build(label: str) -> tuple[str, str]:
    """`gcc-12:O3` -> ("gcc-12", "O3"), each part checked."""
    compiler, sep, flags = label.partition(FLAGS_SEP)
    if not sep:
        raise _Malformed(f"its build {label!r} is COMPILER{FLAGS_SEP}FLAGS (e.g. gcc-12{FLAGS_SEP}O3)")
    _check_build(compiler, flags)
    return compiler, flags


def _check_parts(v: VariantName) -> None:
    _check_part("implementation", v.base)
    for what, part in (("environment", v.environment), ("architecture", v.architecture), ("release", v.release)):
        if part is not None:
            _check_part(what, part)
    if isinstance(v.parallel, bool) or not isinstance(v.parallel, int) or v.parallel < 1:
        raise _Malformed(f"{v.parallel!r} parallel copies: 1 (none) or a count of CPUs, 2 or more")


def _split_parallel(text: str) -> tuple[str, int]:
    """(the name on one CPU, copies); the copies are the digits after the last '*', 2 or more,
    written as Python writes the number."""
    rest, sep, n = text.rpartition(PARALLEL_SEP)
    if not sep:
        return text, 1
    if not (n.isascii() and n.isdigit() and str(int(n)) == n and int(n) >= 2):
        raise _Malformed(f"{n!r} after '{PARALLEL_SEP}' is no count of parallel copies: 2 or more, in digits "
                         "(one copy is the name alone)")
    return rest, int(n)


def _parse(text: str) -> VariantName:
    """From the right, in the order the name is written backwards: copies, release,
    architecture, build; then the environment, left of the first ':' of what remains."""
    if not isinstance(text, str) or not text:
        raise _Malformed("it is empty")
    rest, parallel = _split_parallel(text)
    rest, release = _split_right(rest, RELEASE_SEP)
    rest, arch = _split_right(rest, ARCH_SEP)
    rest, sep, label = rest.partition(BUILD_SEP)
    build = Build(*_split_build(label)) if sep else None
    head, sep, tail = rest.partition(ENVIRONMENT_SEP)
    base, env = (tail, head) if sep else (head, None)
    return VariantName(base, env, build, arch, release, parallel)


def _split_right(text: str, sep: str) -> tuple[str, str | None]:
    """(what is left of the last `sep`, what is right of it), or (text, None) without one."""
    rest, found, part = text.rpartition(sep)
    return (rest, part) if found else (text, None)
