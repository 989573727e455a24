"""The variant model: one Axis interface and the one list of the axes, one CMake driver
(cipherbench/engine_build.py), one record type and store (cipherbench/axis_store.py), the
axes on one layer of docs/ARCHITECTURE.md."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import cipherbench
from cipherbench import axes as axes_mod
from cipherbench.arch.architecture import Arch, ArchRecord, PairCounts, Verification, arch_build
from cipherbench.axes import Axis, axes, axis_of
from cipherbench.axis_store import AxisRecord, RecordFile, RecordStatus, UnreadableRecord
from cipherbench.builds import make
from cipherbench.builds.make import BuildRecord, BuildStatus
from cipherbench.builds.matrix import load as load_builds
from cipherbench.cli import COMMANDS
from cipherbench.engine_build import BuildRequest, Compiler, LeaveOut
from cipherbench.envs.environment import EnvRecord, PackageVersion, env_named
from cipherbench.errors import UsageError
from cipherbench.releases.release import PACKAGES, Release, ReleaseRecord
from cipherbench.variant import Build, VariantAxis, VariantName, parse

PACKAGE = Path(cipherbench.__file__).resolve().parent
DRIVER = PACKAGE / "engine_build.py"
AXIS_PACKAGES = ("axes", "envs", "arch", "releases", "builds")


# ---------------------------------------------------------------- one CMake driver
def cmake_invocations(path: Path) -> list[str]:
    """Where a file writes a CMake command line: a list or tuple holding "cmake" (an argv), or
    a string that starts with -DCMAKE_ or -DCB_ (a cache entry given on one), line by line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.List | ast.Tuple) and is_cmake_argv(node):
            found.append(f"{path.name}:{node.lineno}: an argv running cmake")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.lstrip().startswith(("-DCMAKE_", "-DCB_")):
            found.append(f"{path.name}:{node.lineno}: {node.value.strip()[:40]}")
    return found


def is_cmake_argv(node: ast.List | ast.Tuple) -> bool:
    """["cmake", ...], or "cmake" then one of its modes' options (["nice", "cmake", "--build", ...]);
    not a list of Debian packages that holds cmake (envs/packages.py TOOLCHAIN)."""
    words = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
    return words[:1] == ["cmake"] or any(w == "cmake" and nxt in ("-S", "-B", "--build", "--install", "-E", "-P")
                                         for w, nxt in zip(words, words[1:]))


def test_one_cmake_driver():
    others = [hit for f in sorted(PACKAGE.rglob("*.py")) if f != DRIVER for hit in cmake_invocations(f)]
    assert others == [], "CMake run outside cipherbench/engine_build.py (the one driver):\n" + "\n".join(others)
    assert cmake_invocations(DRIVER), "the driver itself is no longer found by the scan"


def test_the_scan_finds_a_second_driver(tmp_path):
    planted = tmp_path / "second.py"
    planted.write_text('import subprocess\n'
                       'subprocess.run(["nice", "cmake", "--build", "b"])\n'
                       'ARGS = [f"-DCMAKE_C_FLAGS={1}", "-DCB_ADAPTERS=x"]\n'
                       'KEYS = {"cmake", "libs"}  # a manifest key, no command\n'
                       'PACKAGES = ["g++", "cmake", "ninja-build"]  # Debian packages, no command\n')
    assert sorted(cmake_invocations(planted)) == ["second.py:2: an argv running cmake",
                                                  "second.py:3: -DCB_ADAPTERS=x", "second.py:3: -DCMAKE_C_FLAGS="]


def test_the_driver_writes_each_axis_request():
    """A cross build, a compiler variant and an environment's build, as their axes ask."""
    cross = BuildRequest(Path("/b"), toolchain_file=Path("/t.cmake"), jobs=2, keep_going=True,
                         options=(("CB_IMPL_SUFFIX", "%s390x"),),
                         leave_out=LeaveOut("did not compile", lambda failed: None))
    assert cross.configure_argv(["botan"])[-4:] == ["-DCMAKE_TOOLCHAIN_FILE=/t.cmake", "-DCB_IMPL_SUFFIX=%s390x",
                                                    "-DCB_SKIP_ADAPTERS=botan", "-DCB_SKIP_REASON=did not compile"]
    assert cross.build_argv() == ["cmake", "--build", "/b", "--", "-j2", "-k", "0"]
    variant = BuildRequest(Path("/v"), build_type="None", compiler=Compiler("gcc-12", "g++-12", "/usr/bin/ar"),
                           c_flags="-O3", cxx_flags="-O3", link_flags="-O3", jobs=1, target="cipherbench-engine")
    assert "-DCMAKE_BUILD_TYPE=None" in variant.configure_argv()
    assert [a for a in variant.configure_argv() if a.startswith(("-DCMAKE_C", "-DCMAKE_AR", "-DCMAKE_RANLIB"))] == [
        "-DCMAKE_C_COMPILER=gcc-12", "-DCMAKE_CXX_COMPILER=g++-12", "-DCMAKE_AR=/usr/bin/ar",
        "-DCMAKE_C_FLAGS=-O3", "-DCMAKE_CXX_FLAGS=-O3"]
    assert variant.build_argv() == ["cmake", "--build", "/v", "--target", "cipherbench-engine", "--", "-j1"]
    inside = BuildRequest("/opt/b", source="/opt/src")
    assert inside.configure_argv()[:5] == ["cmake", "-S", "/opt/src", "-B", "/opt/b"]
    assert inside.build_argv() == ["cmake", "--build", "/opt/b"]


# ---------------------------------------------------------------- one layer
def test_the_axes_share_one_layer():
    from test_imports import LAYERS  # the table as the layer test reads it
    assert {LAYERS[p] for p in AXIS_PACKAGES} == {LAYERS["envs"]}, {p: LAYERS[p] for p in AXIS_PACKAGES}
    assert LAYERS["engine_build"] == LAYERS["axis_store"] == 0  # what every axis uses: the base


# ---------------------------------------------------------------- one way in for the readers
#: The axes' own packages, which make and run each axis's variants.
AXIS_INTERNALS = ("envs", "arch", "releases", "builds")

#: The modules besides cipherbench/axes and the axis packages that may import an axis's package,
#: and why: each makes or runs variants. Every other module (`list`, `show`, the answer, the
#: reports, the analyses, the verdicts) reads them through cipherbench/axes alone.
MAKERS: dict[str, str] = {
    "measure": "starts an environment's engine as a runner (environments.py) and records where it ran",
    "pipeline": "runs a plan over the variants: points offered in environments, a compiler matrix, releases' baselines",
    "cli.env": "the environments' own command: creates, lists and removes them",
    "cli.arch": "the CPUs' own command: builds, verifies, lists and removes them",
    "cli.versions": "the releases' own command: installs, lists and removes them",
    "cli.builds": "the compiler variants' own command: builds and times a matrix",
    "cli.matrix_runs": "a compiler matrix built, verified and timed, for `builds` and `reproduce`",
    "cli.reproduce": "makes the environments and compiler variants a study's findings draw on",
    "cli.estimates": "the rough figure of an axis's making: a compiler matrix, releases' installs",
}


def may_reach_in(module: str) -> bool:
    rel = module.partition(".")[2]
    return rel.split(".")[0] in AXIS_PACKAGES or any(rel == m or rel.startswith(m + ".") for m in MAKERS)


def readers_reaching_in(edges: dict[str, set[str]]) -> list[str]:
    """Each import of an axis's package by a module that only reads variants."""
    from test_imports import unit_of
    return [f"{module} imports {m}" for module, imported in sorted(edges.items()) if not may_reach_in(module)
            for m in sorted(imported) if unit_of(m) in AXIS_INTERNALS]


def test_readers_learn_of_variants_through_the_axes_alone():
    from test_imports import graph
    found = readers_reaching_in(graph())
    assert found == [], ("a reader of variants reaches into an axis's package (read it through cipherbench/axes: "
                         "axes.environments(), architectures(), releases(), builds()):\n" + "\n".join(found))
    modules = set(graph())
    assert not [m for m in MAKERS if f"cipherbench.{m}" not in modules], "MAKERS names a module that is gone"


def test_the_scan_finds_a_reader_reaching_in(tmp_path):
    from test_imports import graph
    root = tmp_path / "cipherbench"
    for f, text in {"__init__.py": "", "arch/__init__.py": "", "arch/verified.py": "X = 1\n",
                    "envs/__init__.py": "", "envs/environment.py": "", "axes/__init__.py": "from cipherbench.arch import verified\n",
                    "architecture.py": "", "measure/__init__.py": "", "cli/__init__.py": "",
                    "measure/session.py": "from cipherbench.envs.environment import *\n",
                    "cli/arch.py": "from cipherbench.arch import verified\n",
                    "cli/inspect.py": "from cipherbench import axes\nfrom cipherbench import architecture\n"
                                      "def f():\n    from cipherbench.arch.verified import X\n",
                    "report/__init__.py": "", "report/provenance.py": "import cipherbench.envs.environment\n"}.items():
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text(text)
    assert readers_reaching_in(graph(root)) == ["cipherbench.cli.inspect imports cipherbench.arch.verified",
                                                "cipherbench.report.provenance imports cipherbench.envs.environment"]


# ---------------------------------------------------------------- one interface
@pytest.fixture
def made_here(tmp_path, monkeypatch):
    """Every axis's folder empty under tmp_path, then one variant of each made there: its
    record written through the one store, as the axis writes it."""
    for var, sub in (("CIPHERBENCH_ENVS", "envs"), ("CIPHERBENCH_ARCH_DIR", "arch"),
                     ("CIPHERBENCH_RELEASES_DIR", "releases")):
        monkeypatch.setenv(var, str(tmp_path / sub))
    monkeypatch.setattr(make, "CACHE", tmp_path / "variants")
    env = env_named("bookworm")
    env.rootfs.mkdir(parents=True)
    env.write(EnvRecord("bookworm", "bookworm", "bookworm", "12.8", "http://deb.debian.org/debian", [],
                        "g++ 12.2.0", "g++-12 12.2.0-14", "3.25.1",
                        packages=[PackageVersion("libssl-dev", "3.0.15-1~deb12u1", "openssl")],
                        built_at="2026-11-29T06:00:00+00:00"))
    b = arch_build(Arch.S390X)
    b.root.mkdir(parents=True)
    b.write(ArchRecord("s390x", "s390x-linux-gnu", "s390x-linux-gnu-g++ 12.2.0", "qemu-s390x-static 7.2.19",
                       "bookworm", "http://deb.debian.org/debian", {}, "/usr/s390x-linux-gnu",
                       built_at="2026-11-29T06:01:00+00:00"))
    r = Release(PACKAGES["pyca-cryptography"], "42.0.5")
    r.root.mkdir(parents=True)
    r.write(ReleaseRecord("pyca-cryptography", "42.0.5", "pypi", "cryptography", "42.0.5", "OpenSSL 3.2.1",
                          "aes-128-ctr: aes-ni", 40, False, 5.0, "2026-11-29T06:02:00+00:00"))
    home = make.variant_home(next(v for m in load_builds().matrices.values() for v in m.variants
                                  if v.label == "gcc-12:O3"))
    home.mkdir(parents=True)
    BuildRecord("gcc-12:O3", "gcc-12", "gcc (Debian 12.2.0-14) 12.2.0", "O3", ["-O3"], "k", BuildStatus.BUILT,
                str(home / "cmake" / "cipherbench-engine"), 30.0, 40.0, 1000, 2000).write(home / "manifest.json")
    return {VariantAxis.ENVIRONMENT: "bookworm:native", VariantAxis.ARCHITECTURE: "native%s390x",
            VariantAxis.RELEASE: "pyca-cryptography==42.0.5", VariantAxis.BUILD: "native@gcc-12:O3"}


def test_every_axis_implements_the_interface():
    listed = axes()
    assert [a.variant_axis for a in listed] == [VariantAxis.ENVIRONMENT, VariantAxis.ARCHITECTURE,
                                                VariantAxis.RELEASE, VariantAxis.BUILD]
    for a in listed:
        assert isinstance(a, Axis) and not inspect.isabstract(type(a)), type(a).__name__
        assert a.command in COMMANDS, f"{type(a).__name__}.command {a.command!r} is no command"
        assert axis_of(a.variant_axis) is not a and type(axis_of(a.variant_axis)) is type(a)
    assert not (set(VariantAxis) - {VariantAxis.PARALLEL}) - {a.variant_axis for a in listed}
    with pytest.raises(UsageError, match="no axis makes parallel copies"):
        axis_of(VariantAxis.PARALLEL)


def test_describe_round_trips_every_name_through_the_grammar(made_here):
    for a in axes():
        names, lines, records = a.discover(), a.describe(), a.records()
        assert names and len(lines) == len(names) == len(records), a.command
        for name, line, rec in zip(names, lines, records, strict=True):
            written = line.split()[0]
            assert parse(written) == name == rec.name and str(parse(written)) == written, line
            assert name.axes == {a.variant_axis} and rec.axis is a.variant_axis, line
        made = [r for r in records if r.status is not RecordStatus.DECLARED]
        assert [str(r.name) for r in made] == [made_here[a.variant_axis]], a.command


def test_records_say_where_from_what_which_version_and_when(made_here, tmp_path):
    by_axis = {a.variant_axis: {str(r.name): r for r in a.records()} for a in axes()}
    env = by_axis[VariantAxis.ENVIRONMENT]["bookworm:native"]
    assert (env.where, env.source, env.version, env.made_at) == (
        str(tmp_path / "envs" / "bookworm"), "Debian bookworm from http://deb.debian.org/debian", "g++ 12.2.0",
        "2026-11-29T06:00:00+00:00")
    assert by_axis[VariantAxis.ENVIRONMENT]["sid:native"].status is RecordStatus.DECLARED
    s390x = by_axis[VariantAxis.ARCHITECTURE]["native%s390x"]
    # arch.json is written, its engine is not: made, and not usable
    assert (s390x.status, s390x.version, s390x.made_at) == (RecordStatus.FAILED, "s390x-linux-gnu-g++ 12.2.0",
                                                            "2026-11-29T06:01:00+00:00")
    rel = by_axis[VariantAxis.RELEASE]["pyca-cryptography==42.0.5"]
    assert (rel.source, rel.version, rel.status) == ("pypi cryptography", "42.0.5", RecordStatus.MADE)
    o3 = by_axis[VariantAxis.BUILD]["native@gcc-12:O3"]
    assert (o3.source, o3.version, o3.status) == ("-O3", "gcc (Debian 12.2.0-14) 12.2.0", RecordStatus.MADE)


def test_a_declared_variant_runs_unavailable_with_the_way_to_make_it(made_here):
    spec = axis_of(VariantAxis.ARCHITECTURE).runner_spec(parse("native%arm64"))
    assert spec.name == "native%arm64" and "cipherbench arch add arm64" in (spec.unavailable or "")
    spec = axis_of(VariantAxis.BUILD).runner_spec(parse("native@gcc-12:O2"))
    assert spec.unavailable and "gcc-12:O2" in spec.unavailable
    with pytest.raises(UsageError, match="is not another architecture"):
        axis_of(VariantAxis.ARCHITECTURE).runner_spec(parse("bookworm:native"))


def test_commands_take_their_runners_from_the_one_list(made_here):
    specs = axes_mod.runner_specs({VariantAxis.ARCHITECTURE: ["s390x"], VariantAxis.BUILD: ["gcc-12:O3"]})
    assert [s.name for s in specs] == ["native%s390x", str(VariantName("native", build=Build("gcc-12", "O3")))]


def test_list_reads_what_the_axes_made_through_the_interface(made_here, tmp_path):
    from cipherbench.cli.inspect import _variants
    made, unreadable = _variants()
    assert [(r.axis, str(r.name), r.status) for r in made] == [
        (VariantAxis.ENVIRONMENT, "bookworm:native", RecordStatus.MADE),
        (VariantAxis.ARCHITECTURE, "native%s390x", RecordStatus.FAILED),  # its record, not its engine
        (VariantAxis.RELEASE, "pyca-cryptography==42.0.5", RecordStatus.MADE),
        (VariantAxis.BUILD, "native@gcc-12:O3", RecordStatus.MADE)] and unreadable == []
    assert made[2].as_json() == {"axis": "release", "name": "pyca-cryptography==42.0.5", "status": "made",
                                 "where": str(tmp_path / "releases" / "pypi" / "cryptography" / "42.0.5"),
                                 "source": "pypi cryptography", "version": "42.0.5",
                                 "made_at": "2026-11-29T06:02:00+00:00", "note": ""}
    env_named("bookworm").record_path.write_text("{not json")
    made, unreadable = _variants()
    assert [r.axis for r in made] == [VariantAxis.ARCHITECTURE, VariantAxis.RELEASE, VariantAxis.BUILD]
    assert len(unreadable) == 1 and unreadable[0].startswith("cipherbench env: environment 'bookworm': its record")


def test_readers_read_a_stored_environment_through_its_axis():
    """What `show`, the report's releases section and the answer's versions read of where an
    implementation ran (store: run_implementations.environment, envs/describe.py environment_of)."""
    envs = axes_mod.environments()
    old = envs.ran_in({"name": "bullseye-openssl", "release": "bullseye", "debian_version": "11.11", "host": False,
                       "package": "libssl-dev", "package_version": "1.1.1w-0+deb11u1", "compiler": "g++ 10.2.1"})
    host = envs.ran_in({"name": "host", "release": "bookworm", "debian_version": "12.12", "host": True,
                        "package": "libbotan-3-dev", "package_version": "1:3.7.1+dfsg-2", "compiler": None})
    sid = envs.ran_in({"name": "sid", "release": "sid", "debian_version": "trixie/sid", "host": False})
    assert old is not None and host is not None and sid is not None
    assert (old.label, host.label, sid.label) == (
        "bullseye (Debian 11.11), libssl-dev 1.1.1w-0+deb11u1, g++ 10.2.1",
        "bookworm (Debian 12.12, the host), libbotan-3-dev 1:3.7.1+dfsg-2", "sid (Debian trixie/sid)")
    assert old.order < host.order < sid.order and (old.order, host.order) == (11.11, 12.12)
    assert (old.upstream_version, host.upstream_version, sid.upstream_version) == ("1.1.1w", "3.7.1", "?")
    assert (old.name, host.host, envs.label(None), envs.ran_in(None), envs.ran_in({})) == (
        "bullseye-openssl", True, "", None, None)


# ---------------------------------------------------------------- one record store
def test_the_store_reads_back_what_it_wrote(tmp_path):
    rec = ArchRecord("s390x", "s390x-linux-gnu", "g++", "qemu", "bookworm", "m", {"adapters": []}, "/s",
                     verification=Verification("2026-11-29T06:00:00+00:00", 3.5, 1024,
                                               {"reference-aes": PairCounts(3, 1, 0, ["aes-128-ecb: byte 0"])}))
    f = RecordFile(tmp_path / "arch.json", ArchRecord)
    f.save(rec)
    assert f.load() == rec and not (tmp_path / "arch.json.tmp").exists()
    b = BuildRecord("gcc-12:O2", "gcc-12", "v", "O2", ["-O2"], "k", BuildStatus.FAILED, "", 1.0, 2.0, None, None,
                    cached=True)
    b.write(tmp_path / "manifest.json")
    assert "cached" not in (tmp_path / "manifest.json").read_text()  # the process's own, never stored
    assert BuildRecord.read(tmp_path / "manifest.json") == b and BuildRecord.read(tmp_path / "manifest.json").status \
        is BuildStatus.FAILED
    (tmp_path / "bad.json").write_text('{"arch": "s390x"}')
    with pytest.raises(UnreadableRecord):
        RecordFile(tmp_path / "bad.json", ArchRecord).load()
    line = AxisRecord(VariantAxis.RELEASE, parse("ring==0.17.8"), "/r", "crates ring", "0.17.8",
                      "2026-11-29T06:00:00+00:00", RecordStatus.MADE).line
    assert line == "ring==0.17.8  made, crates ring, 0.17.8, made 2026-11-29 06:00 UTC"


@pytest.mark.parametrize("iso,text", [
    ("2026-11-29T06:00:00+00:00", "2026-11-29 06:00 UTC"),
    ("2026-11-29T07:30:59+01:30", "2026-11-29 06:00 UTC"),  # another zone, written in UTC
    ("2026-11-29T06:00:00", "2026-11-29 06:00 UTC"),  # records without a zone were written in UTC
    ("not a time", "not a time"),
])
def test_a_making_time_is_written_as_the_tables_write_times(iso, text):
    from cipherbench.axis_store import made_when
    assert made_when(iso) == text
