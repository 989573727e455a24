"""The terminal every command prints to: one console for results (stdout) and one for
progress and errors (stderr), and the progress bars they share.

Names and messages come from runners, compilers, environments and imported files, and
are printed literally: the consoles drop control characters from everything they print
(a runner could otherwise move the cursor, recolour or retitle the terminal), and `lit`
escapes rich markup in a value printed inside markup. The bars show their labels as plain
text for the same reason.
"""
from __future__ import annotations

import math
import os
import re
import sys
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TimeRemainingColumn,
)
from rich.text import Text

#: C0 and C1 control characters other than newline and tab.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(value: object) -> str:
    """A value from a runner or a file without its control characters, for a rich Text
    (which is never read as markup)."""
    return CONTROL.sub("", str(value))


def clip(text: str, most: int, more: str = "") -> str:
    """`text` in at most `most` characters, cut at a word boundary, never inside a word or a
    number: '… ' + `more` (where the whole text is, e.g. '--long') marks the cut."""
    if len(text) <= most:
        return text
    tail = f" … ({more})" if more else " …"
    head = text[: max(0, most - len(tail)) + 1]
    cut = head.rfind(" ")
    return (head[:cut].rstrip(" ,;:(") + tail) if cut > 0 else tail.lstrip()  # not one whole word fits


def lit(value: object) -> str:
    """A value from a runner or a file, printed literally inside markup."""
    return escape(plain(value))


class LiteralConsole(Console):
    """A console that never passes a control character through to the terminal, whether
    the text is printed with markup or without. Values inside markup still need `lit`."""

    def render_str(self, text: str, **kw: Any) -> Text:
        return super().render_str(plain(text), **kw)


# A terminal's width, or $COLUMNS (rich reads it) when output is piped; piped without it, 180.
out = LiteralConsole(highlight=False,
                     width=None if sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit() else 180)
# Progress and errors: on a terminal wrapped between words, as `out` is; piped, a message a line.
err = LiteralConsole(stderr=True, highlight=False, soft_wrap=not sys.stderr.isatty())


# ---------------------------------------------------------------------------- tables
class Cell(StrEnum):
    """What a column holds: how it may be fitted into a terminal's width."""

    NAME = "name"  # a name a user types (implementation, primitive, label): whole, on one line
    FIGURE = "figure"  # a number, with its unit or interval: whole, on one line, right-aligned
    WORDS = "words"  # prose: wraps between words, in at most WORDS_LINES lines a cell


#: Lines a words cell may take in its column; narrower than that, the column leaves the table
#: (or the rows become blocks): a cell of seven lines of a word each is not read.
WORDS_LINES = 2
#: A word in a words column longer than this (a path, a URL) may fold inside itself rather
#: than widen its column to it.
LONGEST_WORD = 30
#: Spaces between two columns.
GAP = 2


@dataclass(frozen=True)
class Col:
    """One column of a Grid."""

    header: str
    cell: Cell = Cell.WORDS
    short: str = ""  # the header where room is short ("impl" for "implementation"), said under the table
    fold: int = 0  # 0: always a column; 1, 2, ...: leaves the table, highest first, where the row does not fit
    key: bool | None = None  # names its row in the lines under the table (None: a NAME column that stays)
    lines: int = WORDS_LINES  # a words column: the lines a cell may take before the column leaves the table

    @property
    def names_row(self) -> bool:
        return self.cell is Cell.NAME and not self.fold if self.key is None else self.key


def _text(markup: str | Text) -> Text:
    return markup.copy() if isinstance(markup, Text) else Text.from_markup(markup)


@dataclass(frozen=True)
class _Span:
    least: int  # the narrowest the column may be
    most: int  # its widest cell or header: wider gains nothing


def _span(col: Col, header: str, cells: Sequence[Text]) -> _Span:
    plain = [c.plain for c in cells]
    widest = max((len(line) for p in plain for line in p.splitlines()), default=0)
    head = max((len(w) for w in header.split()), default=0)  # a header wraps between its words
    if col.cell is Cell.WORDS:
        word = min(LONGEST_WORD, max((len(w) for p in plain for w in p.split()), default=0))
        least = max(word, math.ceil(widest / col.lines), head, 1)
    else:
        least = max(widest, head, 1)
    return _Span(least, max(least, widest, len(header)))


@dataclass(frozen=True)
class _Layout:
    shown: tuple[int, ...]  # the columns in the table; the others go under it, row by row
    headers: tuple[str, ...]  # every column's header as shown (short where room was short)
    widths: tuple[int, ...]  # of the shown columns
    abbreviated: bool


class Grid:
    """A table that fits the width it is printed in and cuts nothing: names and figures stay
    whole on one line, words wrap between words. Where the columns do not fit side by side,
    in this order: the headers take their short forms (said under the table); the columns
    with the highest `fold` leave the table, their cells printed under it a line per row,
    named by the row's key cells; and where the rest still do not fit, each row is printed as
    a block, a line per cell. The one rule for every command's table: print it with out.print."""

    def __init__(self, cols: Sequence[Col], rows: Sequence[Sequence[str | Text]] = (), title: str = "",
                 caption: str = "") -> None:
        self.cols = list(cols)
        self.rows: list[list[Text]] = []
        self.title, self.caption = title, caption
        for row in rows:
            self.add_row(*row)

    def add_row(self, *cells: str | Text) -> None:
        """Cells in rich markup (values from runners and files through `lit`) or as Text."""
        if len(cells) != len(self.cols):
            raise ValueError(f"a row of {len(cells)} cells in a grid of {len(self.cols)} columns")
        row = [_text(c) for c in cells]
        for cell in row:
            cell.rstrip()
        self.rows.append(row)

    def column(self, header: str) -> list[str]:
        """The plain text of a column's cells, row by row (for readers of a table, as tests)."""
        i = next(i for i, c in enumerate(self.cols) if c.header == header)
        return [row[i].plain for row in self.rows]

    def layout(self, width: int) -> _Layout | None:
        """The columns shown and their widths at `width`; None: rows as blocks. Fewest columns
        left out first, then whole headers where they fit."""
        shown = list(range(len(self.cols)))
        while True:
            for abbreviated in (False, True) if any(self.cols[i].short for i in shown) else (False,):
                headers = tuple(c.short if abbreviated and c.short else c.header for c in self.cols)
                spans = {i: _span(self.cols[i], headers[i], [r[i] for r in self.rows]) for i in shown}
                if sum(spans[i].least for i in shown) + GAP * (len(shown) - 1) <= width:
                    widths = self._widths(shown, spans, width)
                    heads = self._headers(shown, widths, abbreviated)
                    return _Layout(tuple(shown), heads, widths,
                                   any(heads[i] != self.cols[i].header for i in shown))
            folds = [i for i in shown if self.cols[i].fold]
            if not folds:
                return None
            shown.remove(max(folds, key=lambda i: (self.cols[i].fold, i)))

    def _headers(self, shown: list[int], widths: tuple[int, ...], abbreviated: bool) -> tuple[str, ...]:
        """Every column's header as shown: the short form where room was short for the table, or
        where the whole header would take more lines in its column than the short one."""
        def lines(text: str, w: int) -> int:
            return len(textwrap.wrap(text, w)) or 1
        heads = [c.header for c in self.cols]
        for i, w in zip(shown, widths):
            c = self.cols[i]
            if c.short and (abbreviated or lines(c.short, w) < lines(c.header, w)):
                heads[i] = c.short
        return tuple(heads)

    def _widths(self, shown: list[int], spans: dict[int, _Span], width: int) -> tuple[int, ...]:
        """Each column its least; the room left first to the words columns, a column at a time
        where it saves the table most lines, then to whole headers of names and figures."""
        got = {i: spans[i].least for i in shown}
        spare = width - sum(got.values()) - GAP * (len(shown) - 1)
        words = [i for i in shown if self.cols[i].cell is Cell.WORDS]
        lengths = [[len(row[i].plain) for i in words] for row in self.rows]

        def lines(widths: dict[int, int]) -> int:  # the rows' lines, about: a cell of n characters in w is n/w
            return sum(max((math.ceil(n / widths[i]) for i, n in zip(words, row)), default=1) for row in lengths)

        while spare > 0:  # the widening that saves most lines a character, until none saves any
            now, offers = lines(got), []
            for i in words:
                for k in range(1, min(spare, spans[i].most - got[i]) + 1):
                    saved = now - lines({**got, i: got[i] + k})
                    if saved > 0:
                        offers.append((saved / k, -k, i))
                        break
            if not offers:
                break
            _, fewest, i = max(offers)  # the most lines a character; of those, the fewest characters
            got[i], spare = got[i] - fewest, spare + fewest
        for i in [i for i in shown if self.cols[i].cell is not Cell.WORDS] + words:  # then whole headers
            more = min(spare, spans[i].most - got[i])
            got[i], spare = got[i] + more, spare - more
        return tuple(got[i] for i in shown)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if self.title:
            yield from _hanging(console, _text(self.title), width)
        plan = self.layout(width)
        if plan is None:
            for lead, atoms in self._blocks():
                yield from _packed(console, atoms, width, lead)
        else:
            yield from self._table(console, plan)
            for atoms in self._under(plan):
                yield from _packed(console, atoms, width, 2)
            if plan.abbreviated:
                said = [f"{self.cols[i].short} = {self.cols[i].header}" for i in plan.shown
                        if self.cols[i].short and plan.headers[i] == self.cols[i].short]
                yield from _hanging(console, Text("; ".join(said), style="dim"), width)
        if self.caption:
            yield from _hanging(console, _text(self.caption), width)

    def _table(self, console: Console, plan: _Layout) -> Iterator[Text]:
        def line_of(cells: list[Text], style: str = "") -> Iterator[Text]:
            wrapped = []
            for i, w, cell in zip(plan.shown, plan.widths, cells):
                just: Any = "right" if self.cols[i].cell is Cell.FIGURE else "left"
                wrapped.append(cell.wrap(console, w, justify=just, overflow="fold"))
            for k in range(max((len(x) for x in wrapped), default=0)):
                parts = [x[k] if k < len(x) else Text(" " * w) for x, w in zip(wrapped, plan.widths)]
                line = Text(" " * GAP).join(parts)
                line.rstrip()
                if style:
                    line.stylize(style)
                yield line
        yield from line_of([Text(plan.headers[i]) for i in plan.shown], "bold")
        yield Text("─" * (sum(plan.widths) + GAP * (len(plan.widths) - 1)), style="dim")
        for row in self.rows:
            yield from line_of([row[i] for i in plan.shown])

    def _atoms(self, i: int, cell: Text) -> list[Text]:
        """A cell as the pieces a line may break between: a name or a figure whole, words each."""
        if self.cols[i].cell is not Cell.WORDS:
            return [cell.copy()]
        return [w for w in cell.split(" ") if w.plain]

    def _key(self, row: list[Text]) -> list[Text]:
        keys = [c.copy() for col, c in zip(self.cols, row) if col.names_row and c.plain]
        return keys or [Text("-")]

    def _under(self, plan: _Layout) -> Iterator[list[Text]]:
        """The cells of the columns that left the table: a line per distinct set of them, named
        by the key cells of the rows that have it ("every row" where all do)."""
        folded = [i for i in range(len(self.cols)) if i not in plan.shown]
        groups: dict[str, tuple[list[Text], list[list[Text]]]] = {}
        for row in self.rows if folded else ():
            said: list[Text] = []
            for i in folded:
                if row[i].plain:
                    if said:
                        said[-1].append(";")
                    said += [Text(w) for w in self.cols[i].header.split()] + self._atoms(i, row[i])
            if said:
                groups.setdefault(" ".join(a.markup for a in said), (said, []))[1].append(self._key(row))
        for said, keys in groups.values():
            who = [Text("every"), Text("row")] if len(keys) == len(self.rows) > 1 else \
                [a for k, key in enumerate(keys) for a in _ending(key, "," if k + 1 < len(keys) else "")]
            who[-1].append(":")
            yield [*who, *[a.copy() for a in said]]

    def _blocks(self) -> Iterator[tuple[int, list[Text]]]:
        """Each row as a block: its key cells on a line, then a line per other cell."""
        for row in self.rows:
            yield 0, self._key(row)
            for i, (col, cell) in enumerate(zip(self.cols, row)):
                if not col.names_row and cell.plain:
                    yield 2, [Text(w) for w in f"{col.header}:".split()] + self._atoms(i, cell)


def _ending(atoms: list[Text], mark: str) -> list[Text]:
    if mark:
        atoms[-1].append(mark)
    return atoms


def _packed(console: Console, atoms: list[Text], width: int, lead: int) -> Iterator[Text]:
    """Pieces on lines of `width`, a space between two, led by `lead` spaces and the lines after
    the first by four more; a line breaks only between pieces (one longer than a line folds)."""
    pad = min(lead + 4, width // 2)
    line, used, empty = Text(" " * lead), lead, True
    for atom in atoms:
        if not empty and used + 1 + atom.cell_len > width:
            yield line
            line, used, empty = Text(" " * pad), pad, True
        if not empty:
            line.append(" ")
            used += 1
        parts = [atom] if used + atom.cell_len <= width else atom.wrap(console, max(1, width - used), overflow="fold")
        for part in parts[:-1]:  # a piece longer than a line
            yield Text.assemble(line, part)
            line, used = Text(" " * pad), pad
        line.append_text(parts[-1])
        used, empty = used + parts[-1].cell_len, False
    if not empty:
        yield line


class Paragraph:
    """Text wrapped between words to the width it is printed in, the lines after the first
    indented: a command line or a sentence from a runner is never split inside a word (a
    terminal's own wrap, soft_wrap, splits anywhere)."""

    def __init__(self, text: str | Text, indent: int = 2, markup: bool = False) -> None:
        self.text = _text(text) if markup or isinstance(text, Text) else Text(plain(text))
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from _hanging(console, self.text, options.max_width, self.indent)


def _hanging(console: Console, text: Text, width: int, indent: int = 2) -> Iterator[Text]:
    """`text` wrapped between words into lines of `width`, the lines after the first
    indented: a name is never split where a line breaks (a word longer than a line folds)."""
    lead = len(text.plain) - len(text.plain.lstrip(" "))
    first, *rest = text.wrap(console, width, overflow="fold") or [Text("")]
    for line in (first, *rest):
        line.rstrip()
    yield first
    if rest:
        tail = Text(" ").join(rest) if len(rest) > 1 else rest[0]
        pad = min(lead + indent, max(0, width // 2))
        for line in tail.wrap(console, width - pad, overflow="fold"):
            line.rstrip()
            yield Text.assemble(" " * pad, line)


class LiteralColumn(ProgressColumn):
    """A task's text as plain text: `template` is formatted with the task (str.format), then
    shown without markup or control characters."""

    def __init__(self, template: str, style: str = "") -> None:
        super().__init__()
        self.template, self.style = template, style

    def render(self, task: Task) -> Text:
        return Text(plain(self.template.format(task=task)), style=self.style)


class DoneColumn(ProgressColumn):
    """Steps done as "M/N" for stages that count items, as a percentage for stages that
    count milliseconds of expected work (a task field `percent`)."""

    def __init__(self) -> None:
        super().__init__()
        self._count = MofNCompleteColumn()

    def render(self, task: Task) -> Text:
        if task.fields.get("percent"):
            return Text(f"{task.percentage:3.0f} %", style="progress.percentage")
        return self._count.render(task)


def bars() -> Progress:
    """Progress bars on stderr, drawn only on a terminal and gone when done. Each task has a
    description and a field `item` (what it is at, shown dim): add_task(name, total=n, item="")."""
    return Progress(LiteralColumn("{task.description}"), BarColumn(), DoneColumn(), TimeRemainingColumn(),
                    LiteralColumn("{task.fields[item]}", style="dim"),
                    console=err, transient=True, disable=not err.is_terminal)
