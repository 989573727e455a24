"""Passwords out of everything cipherbench stores or prints.

A database URL (`--db`, `--db-b`, $CIPHERBENCH_DB) or a scheduler address may carry a
password; the recorded command line, the reports made from it, `fleet status` and
every message show it hidden, rendered by SQLAlchemy (`URL.render_as_string(
hide_password=True)`, "***" in place of the password). libpq also takes a password as
a query parameter (`?password=...`, PostgreSQL's "Connection URIs"), which SQLAlchemy's
rendering keeps as it is: that one is hidden here the same way.

The rule is `redact_url`; `command_line` records an argv with it, and `redact_command`
applies it to a command line stored by an earlier version (store/db.py's migration).
"""
from __future__ import annotations

import shlex
from collections.abc import Sequence
from urllib.parse import urlsplit

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

HIDDEN = "***"  # what SQLAlchemy renders in place of a password
#: The libpq connection parameter that carries a password in a URL's query.
QUERY_PASSWORD = "password"


def _url(text: str) -> URL | None:
    if "://" not in text:
        return None
    try:
        return make_url(text)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        return None


def _unparsed(text: str) -> str:
    """A URL SQLAlchemy cannot read (a port that is not a number): its password hidden
    by the generic URL syntax (RFC 3986 userinfo), the rest left as written."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return text
    if parts.password is None:
        return text
    user = parts.netloc.rsplit("@", 1)[0].split(":", 1)[0]
    return parts._replace(netloc=f"{user}:{HIDDEN}@{parts.netloc.rsplit('@', 1)[1]}").geturl()


def redact_url(text: str) -> str:
    """`text` with its password hidden when it is a URL that has one; otherwise unchanged."""
    url = _url(text)
    if url is None and "://" in text:
        return _unparsed(text)
    if url is None or (url.password is None and QUERY_PASSWORD not in url.query):
        return text
    if QUERY_PASSWORD in url.query:
        url = url.update_query_dict({QUERY_PASSWORD: HIDDEN})
    return url.render_as_string(hide_password=True)


def redact_arg(arg: str) -> str:
    """One command-line word: a URL, or an option given as --name=URL."""
    if arg.startswith("-") and "=" in arg:
        name, value = arg.split("=", 1)
        return f"{name}={redact_url(value)}"
    return redact_url(arg)


def command_line(argv: Sequence[str]) -> str:
    """The command line as a run records it: shell-quoted, passwords hidden."""
    return shlex.join(redact_arg(a) for a in argv)


def redact_command(text: str | None) -> str | None:
    """A recorded command line with its passwords hidden; the same text when it has none."""
    if not text:
        return text
    try:
        words = shlex.split(text)
    except ValueError:  # unbalanced quotes: its words as the spaces part them
        words = text.split()
    hidden = [redact_arg(w) for w in words]
    return text if hidden == words else shlex.join(hidden)


class SecretUrl(str):
    """A URL handed to code that may print its arguments (a Dask worker logs a failed
    task's arguments with repr): the real text to use, the redacted one to show."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact_url(str(self)))
