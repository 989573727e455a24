"""Adapter and runner folders: one manifest.toml each, read by cipherbench/manifest.py."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cipherbench import manifest, registry
from cipherbench.envs.environment import EnvError
from cipherbench.envs.packages import adapter_packages
from cipherbench.manifest import FolderKind, ManifestError
from cipherbench.paths import REPO


@pytest.mark.parametrize("folder", manifest.adapter_folders(), ids=lambda p: p.name)
def test_every_adapter_folder_follows_the_layout(folder: Path):
    m = manifest.read(folder, FolderKind.ADAPTER)
    for f in (manifest.MANIFEST, *manifest.ADAPTER_FILES):
        assert (folder / f).is_file(), f"{folder.name}: {f} is missing"
    for f in manifest.RETIRED_FILES:
        assert not (folder / f).exists(), f"{folder.name}: {f} is left over (its facts are in manifest.toml)"
    # A CMake file only where the manifest names it: every other adapter's probe is declarative.
    assert sorted(p.name for p in folder.glob("*.cmake")) == ([m.cmake] if m.cmake else [])
    # A library found by a probe has a package that brings it.
    if m.probes:
        assert m.packages.default, f"{folder.name}: a probe but no Debian package to install"


@pytest.mark.parametrize("folder", manifest.runner_folders(), ids=lambda p: p.name)
def test_every_runner_folder_follows_the_layout(folder: Path):
    m = manifest.read(folder, FolderKind.RUNNER)
    assert m.title
    for f in (manifest.MANIFEST, *manifest.RUNNER_FILES):
        assert (folder / f).is_file(), f"{folder.name}: {f} is missing"
    assert not (folder / "packages.txt").exists()
    assert not list(folder.glob("*.cmake"))


def test_every_name_in_a_table_is_the_registrys():
    """The first column of every name table is a registry primitive, family, family-keybits or
    mode: a misspelt name would otherwise only go unoffered."""
    reg = registry.load()
    known = {p.name for p in reg} | {p.family for p in reg} | {p.mode for p in reg if p.mode}
    known |= {f"{p.family}-{p.key_bits}" for p in reg if p.key_bits}
    wrong = [(m.name, t.name, n) for m in manifest.adapters() for t in m.names for n in t.registry_names()
             if n not in known]
    assert wrong == []
    # and the tables are there: every adapter with a library names what it maps
    assert {m.name for m in manifest.adapters() if m.names} >= {"openssl", "botan", "cryptopp", "wolfssl"}


def test_packages_per_release():
    assert adapter_packages(["botan", "openssl"], "bookworm") == [
        ("botan", "libbotan-2-dev"), ("openssl", "libssl-dev"), ("openssl", "openssl")]
    assert adapter_packages(["botan"], "trixie") == [("botan", "libbotan-3-dev")]
    assert adapter_packages(["botan"], "bullseye") == [("botan", "libbotan-2-dev")]
    assert adapter_packages(["null"], "bookworm") == []
    with pytest.raises(EnvError, match="unknown adapter 'nope'"):
        adapter_packages(["nope"], "bookworm")


def test_the_install_script_reads_every_manifest():
    r = subprocess.run([sys.executable, "-m", "cipherbench.manifest", "--packages"], cwd=REPO,
                       capture_output=True, text=True, check=True)
    pkgs = r.stdout.split()
    assert pkgs == sorted(set(pkgs))
    assert {"libssl-dev", "libbotan-2-dev", "mono-mcs", "openjdk-17-jdk-headless", "nodejs"} <= set(pkgs)
    assert "libbotan-3-dev" not in pkgs  # Debian 13's, never the host's


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / manifest.MANIFEST).write_text(text)
    return folder


def test_names_and_facts_render_as_cpp_and_cmake(tmp_path):
    m = manifest.read(write(tmp_path / "demo", '''
library = "Demo"
[packages]
default = ["libdemo-dev", "demo"]
[[probe]]
pkg-config = "demo>=2"
cxx-standard = 20
[[probe]]
header = "demo.h"
lib = "demo"
[names.kPairs]
type = "Pair"
code = [1]
rows = [
    ["aes-128", "DEMO_AES", 16, true],
    { if = "DEMO_VERSION >= 3", row = ["sm4", "DEMO_SM4", 16, false] },
    { if = "DEMO_VERSION >= 3", row = ["seed", "DEMO_SEED", 16, false] },
    ["quote\\"d", "X", 0, false],
]
[names.kHashes]
type = "char* const"
rows = ["md5", { if = "!OLD", row = "sha-1" }]
[names.kQuirks]
type = "std::pair<const char*, size_t>"
registry = false
rows = [["SHA-224", 24]]
'''), FolderKind.ADAPTER)
    assert manifest.cpp_names(m) == (
        "// generated from engine/adapters/demo/manifest.toml by cipherbench/manifest.py; do not edit\n"
        "static const Pair kPairs[] = {\n"
        '    {"aes-128", DEMO_AES, 16, true},\n'
        "#if DEMO_VERSION >= 3\n"
        '    {"sm4", DEMO_SM4, 16, false},\n'
        '    {"seed", DEMO_SEED, 16, false},\n'
        "#endif\n"
        '    {"quote\\"d", X, 0, false},\n'
        "};\n"
        "static const char* const kHashes[] = {\n"
        '    "md5",\n'
        "#if !OLD\n"
        '    "sha-1",\n'
        "#endif\n"
        "};\n"
        "static const std::pair<const char*, size_t> kQuirks[] = {\n"
        '    {"SHA-224", 24},\n'
        "};\n")
    assert [t.registry_names() for t in m.names] == [["aes-128", "sm4", "seed", 'quote"d'], ["md5", "sha-1"], []]
    cmake = manifest.cmake_facts(m)
    assert "set(CB_M_PROBES 2)\n" in cmake
    assert 'set(CB_M_PROBE_1_PKG "demo>=2")\nset(CB_M_PROBE_1_HEADER "")\nset(CB_M_PROBE_1_LIB "")\n' \
           "set(CB_M_PROBE_1_CXX 20)\n" in cmake
    assert 'set(CB_M_PROBE_2_HEADER "demo.h")\nset(CB_M_PROBE_2_LIB "demo")\n' in cmake
    assert ('set(CB_M_MISSING "Demo (pkg-config demo>=2 or demo.h, libdemo) not found at build time; '
            'install libdemo-dev demo")') in cmake
    assert m.packages.dev_package() == "libdemo-dev"


@pytest.mark.parametrize("text, message", [
    ('library = "X"\n', "needs [packages]"),
    ('[packages]\ndefault = []\n', "needs 'library'"),
    ('library = "X"\nlanguage = "C"\n[packages]\ndefault = []\n', "unknown key 'language' in the manifest"),
    ('library = "X"\n[packages]\nbookworm = ["a"]\n', "[packages] needs 'default'"),
    ('library = "X"\n[packages]\ndefault = "libx-dev"\n', "packages.default must be a list"),
    ('library = "X"\n[packages]\ndefault = []\n[[probe]]\nheader = "x.h"\n', "probe 1 needs either"),
    ('library = "X"\n[packages]\ndefault = []\n[[probe]]\npkgconfig = "x"\n', "unknown key 'pkgconfig' in probe 1"),
    ('library = "X"\n[packages]\ndefault = []\n[build]\ncmake = "gone.cmake"\n', "names gone.cmake, which is not"),
    ('library = "X"\n[packages]\ndefault = []\n[names.kT]\nrows = []\n', "[names.kT] needs 'type'"),
    ('library = "X"\n[packages]\ndefault = []\n[names.kT]\ntype = "T"\nrows = [[]]\n', "names.kT: a row is"),
    ('library = "X"\n[packages\n', "not TOML"),
])
def test_a_broken_manifest_is_one_clear_line(tmp_path, text, message):
    folder = write(tmp_path / "x", text)
    with pytest.raises(ManifestError) as e:
        manifest.read(folder, FolderKind.ADAPTER)
    assert message in str(e.value)
    assert str(e.value).startswith(str(folder / manifest.MANIFEST) + ": ")
    assert "\n" not in str(e.value)


def test_a_folder_without_its_manifest_is_named(tmp_path):
    (tmp_path / "y").mkdir()
    with pytest.raises(ManifestError, match="manifest.toml: missing"):
        manifest.read(tmp_path / "y", FolderKind.RUNNER)
    with pytest.raises(ManifestError, match="unknown adapter 'nope'"):
        manifest.adapter("nope")
