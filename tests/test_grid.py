"""console.Grid, every command's table, at any width: no line wider than the terminal, no
ellipsis, every name and figure whole on one line, every word of a words cell whole. Tables
are drawn at random (seeded) from the names runs give implementations, figures as the
commands write them and sentences as runners write them, at widths from 40 to 200."""
from __future__ import annotations

import random
import re

import pytest
from rich.console import Console

from cipherbench.console import GAP, LONGEST_WORD, Cell, Col, Grid

NAMES = ["openssl", "openssl==3.0.19", "bookworm:openssl", "openssl%s390x", "openssl@gcc:O3",
         "pyca-cryptography==41.0.7", "bouncycastle==1.78.1", "trixie:nettle", "reference%arm64",
         "chacha20-poly1305", "aes-128-gcm", "rijndael256-256-cbc", "gcc-12:O3-native-unroll", "ct?", "ok"]
WORDS = ("the code path portable C tables no AES-NI GHASH 8-bit PCLMUL default provider fat build features "
         "from CPUID unsupported: a piece that is not a multiple of 64 bytes ends the message's data "
         "/usr/lib/x86_64-linux-gnu/libcrypto.so.3 (Debian 6.8.0.105+dfsg-3.3+deb12u1)").split()
#: What may stand beside a name on a line: it ends where none of its own characters follows.
EDGE = r"[\w.:=%@+\-]"


def figure(rng: random.Random) -> str:
    x = rng.choice([0.96, 6.42, 42.8, 263, 1_387, 14_032, 15_597, 2_600_012])
    return rng.choice([f"{x:,.0f}", f"[{x * 0.9:,.0f}-{x * 1.1:,.0f}]", f"{x:,.0f} !", f"{x / 1000:.1f}%",
                       "9 (2 set aside)", f"{x:.3g}"])


def drawn(rng: random.Random) -> tuple[Grid, list[Col], list[list[str]]]:
    kinds = [Cell.NAME] + [rng.choice(list(Cell)) for _ in range(rng.randint(1, 8))]
    cols = [Col(rng.choice(["implementation", "primitive", "MB/s", "interval MB/s", "code path", "verified",
                            "overhead ns/call", "#", "what it times"]),
                kind, short=rng.choice(["", "impl", "ovh"]), fold=rng.choice([0, 0, 1, 2, 3]) if i else 0)
            for i, kind in enumerate(kinds)]
    rows = []
    for _ in range(rng.randint(1, 12)):
        rows.append([rng.choice(NAMES) if c.cell is Cell.NAME else figure(rng) if c.cell is Cell.FIGURE
                     else " ".join(rng.choices(WORDS, k=rng.randint(0, 24))) for c in cols])
    return Grid(cols, rows, title=" ".join(rng.choices(WORDS, k=rng.randint(0, 30)))), cols, rows


def shown(grid: Grid, width: int) -> list[str]:
    console = Console(width=width, color_system=None, highlight=False)
    with console.capture() as cap:
        console.print(grid)
    return cap.get().splitlines()


def whole(value: str, lines: list[str]) -> bool:
    return any(re.search(rf"(?<!{EDGE}){re.escape(value)}(?!{EDGE})", x) for x in lines)


@pytest.mark.parametrize("seed", range(300))
def test_a_grid_cuts_nothing_at_any_width(seed):
    rng = random.Random(seed)
    grid, cols, rows = drawn(rng)
    width = rng.choice([40, 52, 64, 80, 100, 132, 200])
    lines = shown(grid, width)
    assert [x for x in lines if len(x) > width] == []
    assert [x for x in lines if "…" in x] == []
    for row in rows:
        for col, cell in zip(cols, row):
            if col.cell is not Cell.WORDS and cell:
                assert whole(cell, lines), (col.header, cell, lines)
            elif col.cell is Cell.WORDS:
                fits = [w for w in cell.split() if len(w) <= min(LONGEST_WORD, width - 8)]
                assert all(whole(w, lines) for w in fits), (cell, lines)


def test_columns_that_do_not_fit_go_under_the_table_named_by_their_rows():
    cols = [Col("#", Cell.FIGURE, key=True), Col("implementation", Cell.NAME, short="impl"),
            Col("primitive", Cell.NAME), Col("MB/s", Cell.FIGURE), Col("code path", Cell.NAME, fold=1)]
    rows = [["1", "pyca-cryptography==41.0.7", "chacha20-poly1305", "3,726", "AES-NI+PCLMUL"],
            ["2", "openssl@gcc:O3", "aes-128-gcm", "1,387", "AES-NI+PCLMUL"],
            ["3", "trixie:nettle", "aes-128-gcm", "263", "portable"]]
    assert shown(Grid(cols, rows), 80) == [
        "#  implementation             primitive           MB/s  code path",
        "─" * 69,
        "1  pyca-cryptography==41.0.7  chacha20-poly1305  3,726  AES-NI+PCLMUL",
        "2  openssl@gcc:O3             aes-128-gcm        1,387  AES-NI+PCLMUL",
        "3  trixie:nettle              aes-128-gcm          263  portable"]
    # 1 + 25 + 17 + 5 and the gaps leave no room for the code path in 60: it goes under, a line per path
    assert shown(Grid(cols, rows), 60)[-3:] == [
        "  1 pyca-cryptography==41.0.7 chacha20-poly1305, 2",
        "      openssl@gcc:O3 aes-128-gcm: code path AES-NI+PCLMUL",
        "  3 trixie:nettle aes-128-gcm: code path portable"]
    # where even the names do not fit side by side, each row is a block, a line a cell
    assert shown(Grid(cols, rows), 40)[:5] == ["1 pyca-cryptography==41.0.7", "    chacha20-poly1305",
                                                "  MB/s: 3,726", "  code path: AES-NI+PCLMUL",
                                                "2 openssl@gcc:O3 aes-128-gcm"]


def test_a_words_column_wraps_between_words_in_no_more_than_two_lines():
    cols = [Col("implementation", Cell.NAME), Col("library")]
    mono = "Mono class library (mscorlib, System.Core) v4.0.30319 6.8.0.105 (Debian 6.8.0.105+dfsg-3.3+deb12u1)"
    lines = shown(Grid(cols, [["mono", mono], ["openssl", "OpenSSL 3.0.19 27 Jan 2026"]]), 80)
    mono_lines = lines[2:lines.index(next(x for x in lines if x.startswith("openssl")))]
    assert len(mono_lines) == 2 and " ".join(" ".join(mono_lines).split()[1:]) == mono
    assert max(len(x) for x in lines) <= 80 and GAP == 2
