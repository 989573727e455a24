"""The terminal every command prints to: one console for results (stdout) and one for
progress and errors (stderr), and the progress bars they share.

Names and messages come from runners, compilers, environments and imported files, and
are printed literally: the consoles drop control characters from everything they print
(a runner could otherwise move the cursor, recolour or retitle the terminal), and `lit`
escapes rich markup in a value printed inside markup. The bars show their labels as plain
text for the same reason.
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any

from rich.console import Console
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
err = LiteralConsole(stderr=True, highlight=False, soft_wrap=True)


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
