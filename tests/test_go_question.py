"""A new user's question, "an AEAD for 1 KiB messages in a Go service: which library is
fastest, and is it constant-time?", answered whole by one `recommend` after one `run` and
one `ct --run`: the ranking at that size, each row's ct mark from that check, and its code
path, on an 80-column terminal."""
import json

from cipherbench.ct.checks import Standing, stat_standing

GO_AEADS = {("go-std", "aes-128-gcm"), ("go-xcrypto", "chacha20-poly1305")}


def test_the_go_question_is_answered_in_one_recommend(cb):
    r = cb("run", "--impl", "go-std", "--impl", "go-xcrypto", "--primitive", "aes-128-gcm",
           "--primitive", "chacha20-poly1305", "--sizes", "1k", "--workload", "message", "--batches", "3",
           "--batch-ms", "1", "--no-extra-rounds")
    assert r.returncode == 0, r.stderr
    r = cb("ct", "--run", "1", "--samples", "1000")  # ct's least: any count gives each row its mark
    assert r.returncode == 0, r.stderr
    doc = json.loads(cb("recommend", "--language", "go", "--size", "1k", "--case", "bulk-aead", "--json").stdout)
    ranked = doc[0]["ranked"]
    assert {(c["impl"], c["primitive"]) for c in ranked} == GO_AEADS
    assert [c["mb_per_s"] for c in ranked] == sorted((c["mb_per_s"] for c in ranked), reverse=True)
    # every row carries the check `ct --run` made, read back with the one rule of marks
    for c in ranked:
        assert c["ct"]["method"] == "stat" and c["ct"]["run_id"] == 2, c
        assert stat_standing(c["ct"]["status"]) is not Standing.NOT_CHECKED, c
        assert c["size"] == 1024 and c["features"], c
    text = cb("recommend", "--language", "go", "--size", "1k", "--case", "bulk-aead",
              env={"COLUMNS": "80"}).stdout
    # a row's rank, or '=' where it ties with the row above (a loaded machine's wide intervals)
    rows = [line for line in text.splitlines() if line[:1].isdigit() or line.startswith("= ")]
    assert len(rows) == 2 and all(len(line) <= 80 for line in text.splitlines()), text
    for row, c in zip(rows, ranked):
        words = row.split()
        assert words[1:3] == [c["impl"], c["primitive"]], row
        assert any(w.startswith("ct") and w != "ct?" for w in words), row  # checked, whatever it found
