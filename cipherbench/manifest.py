"""The manifests of the adapter and runner folders, read into typed records.

Every engine adapter (``engine/adapters/<lib>/``) and every language runner
(``runners/<lang>/``) states its facts in one ``manifest.toml``: its Debian packages
per release and, for an adapter, its library, how the engine's build finds it, its
build options and its name tables (registry names against the library's). The
engine's build, the release environments (``cipherbench.envs``),
``scripts/install-system-deps`` and ``cipherbench list`` read them here.

Standard library only: the engine's build runs ``python3 -m cipherbench.manifest
--cmake DIR`` to render each adapter's facts for CMake and its name tables as C++
(``names.inc``), as it runs ``cipherbench.registry`` for the registry table.
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from cipherbench.errors import CipherbenchError

REPO = Path(__file__).resolve().parent.parent
ADAPTERS = REPO / "engine" / "adapters"
RUNNERS = REPO / "runners"
MANIFEST = "manifest.toml"

#: The release the host runs (Debian 12) and the one a manifest's `default` packages are for.
DEFAULT_RELEASE = "bookworm"

#: Files every adapter folder holds besides its manifest, and files a folder must no longer hold
#: (their facts moved into the manifest).
ADAPTER_FILES = ("adapter.cpp", "README.md")
RUNNER_FILES = ("build.sh", "run", "README.md")
RETIRED_FILES = ("adapter.cmake", "packages.txt", "packages-releases.txt", "names.inc")


class ManifestError(CipherbenchError):
    """A manifest that cannot be read or breaks the format: its file and what is wrong."""


class FolderKind(Enum):
    ADAPTER = "adapter"
    RUNNER = "runner"


@dataclass(frozen=True)
class Packages:
    """Debian packages: `default` for Debian 12 (the host) and any release not named; a
    release named in `releases` gets its own list instead."""

    default: tuple[str, ...]
    releases: Mapping[str, tuple[str, ...]]

    def for_release(self, release: str = DEFAULT_RELEASE) -> tuple[str, ...]:
        return self.releases.get(release, self.default)

    def dev_package(self) -> str:
        """The host's -dev package (the one whose version names the library), or the first."""
        return next((p for p in self.default if p.endswith("-dev")), self.default[0] if self.default else "")


@dataclass(frozen=True)
class Probe:
    """One way the engine's build finds the library: a pkg-config module (with its version
    rule), or a header and a library found on the compiler's paths."""

    pkg_config: str = ""
    header: str = ""
    lib: str = ""
    cxx_standard: int = 0  # the C++ standard this library's headers need, 0: the engine's (17)

    def describe(self) -> str:
        return f"pkg-config {self.pkg_config}" if self.pkg_config else f"{self.header}, lib{self.lib}"


@dataclass(frozen=True)
class NameRow:
    values: tuple[str | int | bool, ...]  # one scalar for a table of scalars
    scalar: bool = False
    condition: str = ""  # a preprocessor condition the row is compiled under ("" always)


@dataclass(frozen=True)
class NameTable:
    """One C++ table of names: registry names against the library's. In the manifest,
    ``[names.<table>]`` has ``type`` (the C++ element type) and ``rows``: each row a list of
    cells (the first a registry name), or one string for a table of strings, or
    ``{ if = CONDITION, row = ROW }`` for a row compiled under a preprocessor condition.
    Cells are strings (written as C++ string literals, except in the columns ``code`` lists,
    written as they are), integers and booleans. ``registry = false``: the first column is
    not a registry name."""

    name: str
    type: str
    code: frozenset[int]  # columns written as C++ code, not as string literals
    rows: tuple[NameRow, ...]
    keyed_by_registry: bool = True  # false: the first column is not a registry name (key "registry")

    def registry_names(self) -> list[str]:
        return [str(r.values[0]) for r in self.rows] if self.keyed_by_registry else []


@dataclass(frozen=True)
class Manifest:
    """One folder's manifest. Adapter-only fields are empty for a runner."""

    folder: Path
    kind: FolderKind
    title: str  # an adapter's library, a runner's language
    packages: Packages
    note: str = ""  # what the packages do not say (a toolchain not from Debian)
    probes: tuple[Probe, ...] = ()  # tried in order; none: always built
    libs: tuple[str, ...] = ()  # further link items
    cmake: str = ""  # a CMake file of the folder run after the probe, for what no key says
    names: tuple[NameTable, ...] = ()
    #: A runner's build from nothing, in seconds, on the developers' 2-vCPU host (its toolchain
    #: and dependencies downloaded too): the order of a machine's first build, the longest
    #: first (scripts/build-runners), before the machine has timed its own. 0: not stated.
    build_seconds: int = 0

    @property
    def name(self) -> str:
        return self.folder.name

    def missing_reason(self) -> str:
        """Why the build left the adapter out, as the engine announces it."""
        how = " or ".join(p.describe() for p in self.probes)
        install = " ".join(self.packages.default) or "its library"
        return f"{self.title} ({how}) not found at build time; install {install}"


# ---------------------------------------------------------------- reading

_KEYS = {FolderKind.ADAPTER: {"library", "packages", "probe", "build", "names", "note"},
         FolderKind.RUNNER: {"language", "packages", "note", "build"}}
_BUILD_KEYS = {FolderKind.ADAPTER: {"libs", "cmake"}, FolderKind.RUNNER: {"seconds"}}
_TITLE = {FolderKind.ADAPTER: "library", FolderKind.RUNNER: "language"}


def _fail(path: Path, what: str) -> ManifestError:
    return ManifestError(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {what}")


def _strings(path: Path, where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(path, f"{where} must be a list of non-empty strings")
    return tuple(value)


def _only(path: Path, where: str, table: Any, keys: set[str]) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise _fail(path, f"{where} must be a table")
    unknown = sorted(set(table) - keys)
    if unknown:
        raise _fail(path, f"unknown key {unknown[0]!r} in {where} (known: {', '.join(sorted(keys))})")
    return table


def _packages(path: Path, raw: Any) -> Packages:
    table = _only(path, "[packages]", raw, set(raw) if isinstance(raw, dict) else set())
    if "default" not in table:
        raise _fail(path, "[packages] needs 'default' (Debian 12's packages; [] for none)")
    lists = {k: _strings(path, f"packages.{k}", v) if v else () for k, v in table.items()}
    return Packages(lists.pop("default"), lists)


def _probes(path: Path, raw: Any) -> tuple[Probe, ...]:
    if not isinstance(raw, list):
        raise _fail(path, "probe must be an array of tables ([[probe]])")
    out = []
    for i, p in enumerate(raw):
        t = _only(path, f"probe {i + 1}", p, {"pkg-config", "header", "lib", "cxx-standard"})
        probe = Probe(t.get("pkg-config", ""), t.get("header", ""), t.get("lib", ""), t.get("cxx-standard", 0))
        if bool(probe.pkg_config) == bool(probe.header and probe.lib):
            raise _fail(path, f"probe {i + 1} needs either 'pkg-config' or both 'header' and 'lib'")
        out.append(probe)
    return tuple(out)


def _row(path: Path, table: str, raw: Any) -> NameRow:
    cond = ""
    if isinstance(raw, dict):
        t = _only(path, f"a row of names.{table}", raw, {"if", "row"})
        cond, raw = t.get("if", ""), t.get("row")
    if isinstance(raw, str):
        return NameRow((raw,), scalar=True, condition=cond)
    if not isinstance(raw, list) or not raw or not all(isinstance(v, str | int) for v in raw):
        raise _fail(path, f"names.{table}: a row is a string, a list of strings, integers and "
                          "booleans, or {{ if = CONDITION, row = ROW }}")
    return NameRow(tuple(raw), condition=cond)


def _names(path: Path, raw: Any) -> tuple[NameTable, ...]:
    out = []
    for name, t in _only(path, "[names]", raw, set(raw) if isinstance(raw, dict) else set()).items():
        t = _only(path, f"[names.{name}]", t, {"type", "code", "rows", "registry"})
        if not isinstance(t.get("type"), str) or not isinstance(t.get("rows"), list):
            raise _fail(path, f"[names.{name}] needs 'type' (the C++ element type) and 'rows'")
        code = t.get("code", [])
        if not isinstance(code, list) or not all(isinstance(c, int) for c in code):
            raise _fail(path, f"names.{name}.code must list column numbers (from 0)")
        if not isinstance(t.get("registry", True), bool):
            raise _fail(path, f"names.{name}.registry must be true or false")
        out.append(NameTable(name, t["type"], frozenset(code), tuple(_row(path, name, r) for r in t["rows"]),
                             t.get("registry", True)))
    return tuple(out)


def read(folder: Path, kind: FolderKind) -> Manifest:
    """The manifest of one adapter or runner folder, checked against the format."""
    path = folder / MANIFEST
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        raise _fail(path, "missing: every adapter and runner folder has one") from None
    except tomllib.TOMLDecodeError as e:
        raise _fail(path, f"not TOML: {e}") from None
    _only(path, "the manifest", raw, _KEYS[kind])
    title = raw.get(_TITLE[kind])
    if not isinstance(title, str) or not title:
        raise _fail(path, f"needs '{_TITLE[kind]}'")
    if "packages" not in raw:
        raise _fail(path, "needs [packages]")
    build = _only(path, "[build]", raw.get("build", {}), _BUILD_KEYS[kind])
    seconds = build.get("seconds", 0)
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 0:
        raise _fail(path, "build.seconds must be a whole number of seconds")
    cmake = build.get("cmake", "")
    if cmake and not (folder / cmake).is_file():
        raise _fail(path, f"build.cmake names {cmake}, which is not in the folder")
    return Manifest(folder=folder, kind=kind, title=title, packages=_packages(path, raw["packages"]),
                    note=raw.get("note", ""), probes=_probes(path, raw.get("probe", [])),
                    libs=_strings(path, "build.libs", build.get("libs", [])) if build.get("libs") else (),
                    cmake=cmake, names=_names(path, raw.get("names", {})), build_seconds=seconds)


def adapter_folders() -> list[Path]:
    return sorted(p for p in ADAPTERS.iterdir() if p.is_dir())


def runner_folders() -> list[Path]:
    return sorted(p for p in RUNNERS.iterdir() if p.is_dir())


def adapters() -> list[Manifest]:
    return [read(p, FolderKind.ADAPTER) for p in adapter_folders()]


def adapter(name: str) -> Manifest:
    if not (ADAPTERS / name).is_dir():
        known = ", ".join(p.name for p in adapter_folders())
        raise ManifestError(f"unknown adapter {name!r}; known: {known}")
    return read(ADAPTERS / name, FolderKind.ADAPTER)


def runners() -> list[Manifest]:
    return [read(p, FolderKind.RUNNER) for p in runner_folders()]


def longest_runner(runners: list[Manifest]) -> list[Manifest]:
    """The runner whose build from nothing its manifest states longest (ties: by name), alone:
    make installs its packages right after the engine's, before the other runners', so that a
    fresh machine's longest build (Rust's) starts beside the engine's compile rather than after
    every runner's packages. None where none states its time."""
    stated = [m for m in runners if m.build_seconds > 0]
    return [min(stated, key=lambda m: (-m.build_seconds, m.name))] if stated else []


# ---------------------------------------------------------------- rendering for the engine's build

def _cmake_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cmake_facts(m: Manifest) -> str:
    """The adapter's facts as CMake variables, which engine/CMakeLists.txt's probe reads."""
    lines = [f"# generated from engine/adapters/{m.name}/{MANIFEST} by cipherbench/manifest.py; do not edit",
             f"set(CB_M_PROBES {len(m.probes)})"]
    for i, p in enumerate(m.probes, 1):
        lines += [f"set(CB_M_PROBE_{i}_PKG {_cmake_str(p.pkg_config)})",
                  f"set(CB_M_PROBE_{i}_HEADER {_cmake_str(p.header)})",
                  f"set(CB_M_PROBE_{i}_LIB {_cmake_str(p.lib)})",
                  f"set(CB_M_PROBE_{i}_CXX {p.cxx_standard or ''})"]
    lines += [f"set(CB_M_LIBS {' '.join(_cmake_str(x) for x in m.libs)})",
              f"set(CB_M_CMAKE {_cmake_str(m.cmake)})",
              f"set(CB_M_MISSING {_cmake_str(m.missing_reason())})"]
    return "\n".join(lines) + "\n"


def _cpp_value(v: str | int | bool, code: bool) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int) or code:
        return str(v)
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cpp_names(m: Manifest) -> str:
    """The adapter's name tables as C++, which its adapter.cpp includes as "names.inc"."""
    lines = [f"// generated from engine/adapters/{m.name}/{MANIFEST} by cipherbench/manifest.py; do not edit"]
    for t in m.names:
        lines.append(f"static const {t.type} {t.name}[] = {{")
        cond = ""
        for r in t.rows:
            if r.condition != cond:
                if cond:
                    lines.append("#endif")
                if r.condition:
                    lines.append(f"#if {r.condition}")
                cond = r.condition
            cells = [_cpp_value(v, i in t.code) for i, v in enumerate(r.values)]
            lines.append(f"    {cells[0]}," if r.scalar else f"    {{{', '.join(cells)}}},")
        if cond:
            lines.append("#endif")
        lines.append("};")
    return "\n".join(lines) + "\n"


def _write_if_changed(out: Path, text: str) -> None:
    """Keep the file's mtime when its text is the same: no needless rebuilds."""
    if not out.exists() or out.read_text() != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


def render(out: Path) -> None:
    """OUT/<adapter>/manifest.cmake and OUT/<adapter>/names.inc for every adapter."""
    for m in adapters():
        _write_if_changed(out / m.name / "manifest.cmake", cmake_facts(m))
        _write_if_changed(out / m.name / "names.inc", cpp_names(m))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Read the adapters' and runners' manifests.")
    ap.add_argument("--cmake", metavar="DIR", type=Path,
                    help="write each adapter's facts for CMake and its names.inc under DIR")
    ap.add_argument("--packages", nargs="?", const="all", choices=("all", "adapters", "runners", "longest-runner"),
                    help="print the Debian packages (Debian 12's) of every adapter and runner, or of the "
                         "adapters or the runners alone, or of the runner whose first build is the longest "
                         "(longest_runner), one a line")
    ap.add_argument("--runner-packages", action="store_true",
                    help="print each runner's Debian packages (Debian 12's): NAME PACKAGE..., one runner a line")
    ap.add_argument("--build-seconds", action="store_true",
                    help="print each runner's build time from nothing as its manifest states it: "
                         "SECONDS NAME, one a line (0: not stated)")
    args = ap.parse_args(argv)
    try:
        if args.cmake:
            render(args.cmake)
        if args.packages:
            folders = {"all": lambda: adapters() + runners(), "adapters": adapters, "runners": runners,
                       "longest-runner": lambda: longest_runner(runners())}[args.packages]()
            for p in sorted({p for m in folders for p in m.packages.default}):
                print(p)
        if args.runner_packages:
            for m in runners():
                print(" ".join((m.name, *m.packages.default)))
        if args.build_seconds:
            for m in runners():
                print(m.build_seconds, m.name)
    except CipherbenchError as e:
        print(f"cipherbench.manifest: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
