"""The key of every engine built apart from the ordinary one (a compiler variant's, a release
environment's, another CPU's: engine_build.inputs_digest) is what those builds read from the
checkout: engine/'s files and the generated registry table and manifests, not the Python that
generates them. A key that missed an input would leave a stale engine in use."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from cipherbench import engine_build, manifest, registry


def rendered_by_the_commands(folder: Path) -> dict[str, str]:
    """The registry table and manifests as the engine's CMake makes them (the same commands)."""
    for args in (["cipherbench.registry", "--cpp", str(folder / "registry.inc")],
                 ["cipherbench.manifest", "--cmake", str(folder / "manifests")]):
        r = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=REPO)
        assert r.returncode == 0, r.stderr
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_generated_inputs_hashed_are_those_the_build_is_given(tmp_path):
    """What the digest hashes as generated equals, file for file, what the generators write."""
    made = rendered_by_the_commands(tmp_path)
    assert made["registry.inc"] == registry.cpp_table(registry.load())
    adapters = manifest.adapters()
    assert len(adapters) > 5
    assert {k for k in made if k.startswith("manifests/")} == \
        {f"manifests/{m.name}/{f}" for m in adapters for f in ("manifest.cmake", "names.inc")}
    for m in adapters:
        assert made[f"manifests/{m.name}/manifest.cmake"] == manifest.cmake_facts(m)
        assert made[f"manifests/{m.name}/names.inc"] == manifest.cpp_names(m)


def test_a_change_to_any_input_changes_the_digest_and_nothing_else_does(tmp_path, monkeypatch):
    before = engine_build.inputs_digest()
    assert engine_build.inputs_digest() == before  # nothing changed: the same key
    # the generators' Python changed without changing what they make: the same key
    table, names = registry.cpp_table, manifest.cpp_names
    monkeypatch.setattr(registry, "cpp_table", lambda reg: table(reg))
    assert engine_build.inputs_digest() == before
    # the table changed (a primitive's row): another key
    monkeypatch.setattr(registry, "cpp_table", lambda reg: table(reg).replace("true", "false", 1))
    assert engine_build.inputs_digest() != before
    monkeypatch.setattr(registry, "cpp_table", table)
    # an adapter's name table changed: another key
    monkeypatch.setattr(manifest, "cpp_names", lambda m: names(m) + ("// x\n" if m.name == "openssl" else ""))
    assert engine_build.inputs_digest() != before
    monkeypatch.setattr(manifest, "cpp_names", names)
    assert engine_build.inputs_digest() == before
    # a file of engine/ changed, or one added: another key each
    copy = tmp_path / "engine"
    shutil.copytree(REPO / "engine", copy)
    monkeypatch.setattr(engine_build, "ENGINE_SOURCE", copy)
    assert engine_build.inputs_digest() == before
    main = copy / "src" / "main.cpp"
    main.write_text(main.read_text() + "\n")
    changed = engine_build.inputs_digest()
    (copy / "src" / "new.h").write_text("")
    assert len({before, changed, engine_build.inputs_digest()}) == 3


def test_a_registry_that_does_not_read_is_one_error(monkeypatch):
    from cipherbench.errors import UsageError

    def broken(*a, **k):
        raise UsageError("primitives.toml: bad")
    monkeypatch.setattr(registry, "load", broken)
    with pytest.raises(engine_build.EngineBuildError, match="primitives.toml: bad"):
        engine_build.inputs_digest()
