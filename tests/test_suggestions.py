"""A mistyped name gets the names most like it (one rule: errors.did_you_mean), for every
primitive of the registry, every preset, and implementations; a run id that is not there
points to `runs`."""
import pytest

from cipherbench import registry
from cipherbench.errors import UsageError, did_you_mean
from cipherbench.measure.session import primitive_named
from cipherbench.pipeline.plan import RunPlan, load_presets


def typos(name: str):
    """Two mistypings of a name: two adjacent letters of its last part swapped, and one
    letter of it dropped."""
    head, _, last = name.rpartition("-")
    i = max(0, len(last) // 2 - 1)
    swapped = last[:i] + last[i + 1] + last[i] + last[i + 2:] if len(last) > 1 else last + last
    return [f"{head}-{swapped}" if head else swapped, f"{head}-{last[:i] + last[i + 1:]}" if head else last[1:]]


def test_every_primitive_is_suggested_for_its_mistypings():
    reg = registry.load()
    missed = []
    for name in reg.names():
        for typo in typos(name):
            if typo in reg or len(typo) < 4:
                continue
            with pytest.raises(UsageError) as e:
                primitive_named(reg, typo)
            if name not in str(e.value):
                missed.append((typo, name, str(e.value)))
    assert not missed, missed[:5]


def test_the_reported_cases():
    reg = registry.load()
    with pytest.raises(UsageError, match=r"unknown primitive 'aes-256-gmc'; did you mean aes-256-gcm"):
        primitive_named(reg, "aes-256-gmc")
    assert did_you_mean("opensll", ["openssl", "nettle", "sodium"]) == "; did you mean openssl?"
    assert did_you_mean("zzz", ["openssl"]) == ""


@pytest.mark.parametrize("preset", sorted(load_presets()))
def test_every_preset_is_suggested_for_a_mistyping(preset):
    typo = preset[:-1] + ("x" if preset[-1] != "x" else "y")
    with pytest.raises(UsageError) as e:
        RunPlan.from_preset(typo)
    assert f"did you mean {preset}" in str(e.value) or f", {preset}" in str(e.value)


def test_a_run_that_is_not_there_points_to_runs(cb, db):
    from cipherbench.store.db import Store
    Store(db).begin_run(uuid="one")
    r = cb("show", "99")
    assert r.returncode == 2 and "no run 99" in r.stderr and "(see 'cipherbench runs')" in r.stderr
    r = cb("encrypt", "opensll", "aes-128-cbc", "--key", "00" * 16, "--iv", "00" * 16, "--in", "00" * 16)
    assert r.returncode == 2 and "unknown implementation 'opensll'; did you mean openssl" in r.stderr
