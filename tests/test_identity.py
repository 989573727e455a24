"""A runner's identity (kat/identity.py) is its bytes, not where its clone lies: two clones of
the same code share the gate's caches kept outside them, and any changed byte parts them."""
import pytest

from cipherbench.kat import identity


def clone(root, runner_src: bytes, built: bytes):
    """A clone with one runner: its sources under runners/x and its build under build/runners/x."""
    (root / "runners" / "x").mkdir(parents=True)
    (root / "runners" / "x" / "runner.py").write_bytes(runner_src)
    (root / "build" / "runners" / "x").mkdir(parents=True)
    (root / "build" / "runners" / "x" / "libcb_probe.so").write_bytes(built)
    return root


def identity_in(monkeypatch, root) -> str:
    monkeypatch.setattr(identity, "REPO", root)
    monkeypatch.setattr(identity, "BUILD", root / "build")
    argv = ["/usr/bin/env", str(root / "runners" / "x" / "runner.py"), "--flag"]
    return identity._runner_identity.__wrapped__(tuple(argv), '{"runner": "x"}')


@pytest.mark.parametrize("changed", [None, "source", "build"])
def test_two_clones_of_the_same_bytes_have_one_identity_and_a_changed_byte_parts_them(tmp_path, monkeypatch, changed):
    a = clone(tmp_path / "one", b"print('x')\n", b"\x7fELF1")
    b = clone(tmp_path / "elsewhere" / "two", b"print('x')\n" if changed != "source" else b"print('y')\n",
              b"\x7fELF1" if changed != "build" else b"\x7fELF2")
    same = identity_in(monkeypatch, a) == identity_in(monkeypatch, b)
    assert same is (changed is None)


def test_a_path_outside_the_clone_and_the_build_is_named_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setattr(identity, "REPO", tmp_path / "clone")
    monkeypatch.setattr(identity, "BUILD", tmp_path / "clone" / "build")
    assert identity.portable(tmp_path / "clone" / "build" / "engine" / "e") == "build:engine/e"
    assert identity.portable(tmp_path / "clone" / "runners" / "go" / "r") == "clone:runners/go/r"
    assert identity.portable("/usr/bin/python3") == "/usr/bin/python3"
    assert identity.portable("--openssl-legacy-provider") == "--openssl-legacy-provider"
