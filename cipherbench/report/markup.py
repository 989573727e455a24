"""Names in the report's text, shown as written whatever they hold.

An implementation, primitive, library, host or profile name comes from a runner or an
imported document and may hold anything: `<script>`, a pipe, a newline, a backtick. Two
kinds of text carry them:

- a plain value (a table cell, a context value, a warning): report.md writes it with
  `md`, index.html with html.escape;
- a report text (a table's title and notes, a verification sentence, the cycle sources):
  Markdown that report.md writes as it is and index.html renders with `md_html`. Our own
  phrasing marks code with backticks (`openssl speed`); every name put into such a text
  goes through `md` first, so no name can open a code span, a link or a tag.

`md` is CommonMark's backslash escape of every character Markdown or HTML would read as
markup, GitHub's `\\|` in tables included, with line breaks turned into spaces (a name stays
on its line and in its cell); `md_html` reads back exactly those escapes and code spans.
"""
from __future__ import annotations

import html
import re

#: Characters that are markup anywhere in a line: emphasis, code, links and images, raw
#: HTML and entities, table cells, strikethrough; and the escape itself.
INLINE = "\\`*_[]<>|~&"
#: Markup only where a text starts a line or a list item: a heading, a setext underline or
#: a formula ("="), a list item ("- ", "+ ", "1. ", "1) "); a number ("-5", "70.2") is not.
LEADING = re.compile(r"^(?:#|=|[-+](?=\s|$)|\d{1,9}(?=[.)](?:\s|$)))")
_INLINE = re.compile("[" + re.escape(INLINE) + "]")
#: A line break of any kind (str.splitlines' set).
_BREAKS = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+")


def md(value: object) -> str:
    """A name or any value from a run, as Markdown that shows it literally on one line."""
    text = _INLINE.sub(r"\\\g<0>", _BREAKS.sub(" ", str(value)))
    lead = LEADING.match(text)
    if lead:  # "1." escapes its dot, "#" itself
        return text[:lead.end()] + "\\" + text[lead.end():] if lead[0].isdigit() else "\\" + text
    return text


#: What md_html reads: a backslash escape of ASCII punctuation, or a code span.
_MARKUP = re.compile(r"\\([!-/:-@\[-`{-~])|`([^`]+)`")


def md_html(text: str) -> str:
    """A report text (Markdown made of our phrasing and `md`'s names) as HTML: escapes read
    back as their characters, `code` as <code>code</code>, everything else escaped."""
    out, at = [], 0
    for m in _MARKUP.finditer(text):
        out.append(html.escape(text[at:m.start()]))
        out.append(html.escape(m[1]) if m[1] is not None else f"<code>{html.escape(m[2])}</code>")
        at = m.end()
    out.append(html.escape(text[at:]))
    return "".join(out)
