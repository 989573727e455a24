"""A long command's estimate (durations.estimate: its last run here, else the rough figure)
and its actual time, remembered once it completed."""
import json

import pytest

from cipherbench import durations


@pytest.fixture
def remembered_in(tmp_path, monkeypatch):
    path = tmp_path / "durations.json"
    monkeypatch.setattr(durations, "DURATIONS", path)
    return path


def test_durations_read_in_seconds_minutes_or_hours():
    assert [durations.duration(s) for s in (0, 0.24, 9.96, 42, 89.4, 90, 91.3, 599.4, 754, 5399, 5400, 9000)] == \
        ["0.0 s", "0.2 s", "10.0 s", "42 s", "89 s", "1 min 30 s", "1 min 31 s", "9 min 59 s", "13 min",
         "90 min", "1.5 h", "2.5 h"]


def test_the_estimate_is_the_last_run_here_else_the_one_remembered_else_the_rough_figure(remembered_in):
    assert durations.estimate("make sanitize", 600.0) == durations.Estimate(600.0, measured=False)
    assert durations.estimate("make sanitize", 600.0).text() == "~10 min (a rough figure from its plan)"
    durations.remember("make sanitize", 1234.56)
    assert json.loads(remembered_in.read_text()) == {"make sanitize": 1234.6}
    assert durations.estimate("make sanitize", 600.0) == durations.Estimate(1234.6, measured=True)
    assert durations.estimate("make sanitize", 600.0).text() == "about 21 min (its last run here)"
    # a stored run of the same preset comes first
    assert durations.estimate("make sanitize", 600.0, last_seconds=300.0).short() == "5 min"
    assert durations.estimate("other", 30.0).short() == "~30 s"


def test_a_command_that_did_not_complete_is_timed_but_not_remembered(remembered_in, capsys):
    with pytest.raises(KeyboardInterrupt), durations.announced(durations.Planned("cipherbench ct --experiment x", 120.0)):
        raise KeyboardInterrupt
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "cipherbench ct --experiment x: expected ~2 min (a rough figure from its plan)"
    assert lines[1].startswith("cipherbench ct --experiment x: took ") and \
        lines[1].endswith(" (expected 2 min), did not complete")
    assert not remembered_in.exists()
    with durations.announced(durations.Planned("cipherbench ct --experiment x", 120.0)):
        pass
    assert capsys.readouterr().err.splitlines()[1].endswith(" (expected 2 min)")
    assert "cipherbench ct --experiment x" in json.loads(remembered_in.read_text())


def test_an_estimate_said_later_is_never_said_when_the_command_fails_first(remembered_in, capsys):
    with pytest.raises(ValueError), durations.announced(durations.Planned("cipherbench run --profile quick", 80.0), later=True):
        raise ValueError("unknown implementation")  # the input was bad: its error stays one line
    assert capsys.readouterr().err == ""
    with durations.announced(durations.Planned("cipherbench run --profile quick", 80.0), later=True) as a:
        assert capsys.readouterr().err == ""
        a.say()
        a.say()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "cipherbench run --profile quick: expected ~80 s (a rough figure from its plan)"
    assert len(lines) == 2 and lines[1].endswith(" (expected 80 s)")
