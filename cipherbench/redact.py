"""Secrets out of everything cipherbench stores or prints: one rule for every carrier.

What carries a secret, each read as libpq, RFC 3986 or a shell reads it:

- a URL's user info, `scheme://user:PASSWORD@host` (a store, a scheduler): the password
  runs from the user info's first ':' to the *last* '@' before the host, as urllib reads
  it (RFC 3986 allows neither raw; typed there, both belong to the password). A '/', '?'
  or '#' in a password must be percent-encoded, as libpq requires: raw, it ends the host.
- a libpq connection parameter that holds a secret (SECRET_KEYS), named in any case: in
  a URL's query (`?sslpassword=...`, the key and value percent-encoded or not), in a
  key=value connection string (`host=h password='a b'`, libpq's quoting: single quotes,
  backslash escapes), or as an option (`--password=x`, `--password x`);
- a command line: each of its words, an option's value (`--db=URL`), and a word that is
  a command line itself (`--runner 'prog --db URL'`), split as a POSIX shell splits it.

`redact` hides them where they stand (`user:***@host`, `password=***`) and keeps the
rest as written; `command_line` records an argv with it; `redact_command` and
`redact_json` apply it to what an earlier version stored (store/db.py's migration).

Messages and output are the second line. A message from a library quotes an address its
own way (Dask's error drops the scheme: `u:SECRET@host:port`), and an echoed option value
is a quoted repr: no structure to find there. So a process `remember`s the secret values
it was given (cli.main: its command line and $CIPHERBENCH_DB), and `hide` replaces each
wherever it appears, in every form a message quotes it (as given, decoded, Python's
repr, JSON, a shell's quoting, percent-encoding, HTML); cli.main passes everything the
process prints through `HidingStream`.
"""
from __future__ import annotations

import html
import io
import json
import re
import shlex
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TextIO
from urllib.parse import quote, quote_plus, unquote

HIDDEN = "***"  # what stands where a secret was (SQLAlchemy's hide_password renders the same)
#: The libpq connection parameters that hold a secret: those libpq itself shows hidden
#: (PQconndefaults' dispchar "*"; tests/test_redaction.py holds this to the libpq in use).
SECRET_KEYS = ("sslpassword", "password")
#: A stored text that may carry a secret holds one of these, in any case: a URL's user info
#: its '@', every secret key "password" (store/db.py looks only at such rows).
SIGNS = ("@", "password")

_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*://"
#: A text that is a URL.
_URL = re.compile(_SCHEME)
#: A URL inside a longer text: up to whitespace or a quote.
_URL_IN_TEXT = re.compile(_SCHEME + r"""[^\s'"]*""")
#: A value as libpq's key=value connection strings write it: single-quoted with backslash
#: escapes, or running to whitespace (a quote inside must be escaped), backslash escapes too.
_VALUE = r"'(?:\\[\s\S]|[^'\\])*(?:'|\Z)|(?:\\[\s\S]|[^\s'\\])+"
#: A text that is a whole connection string: key=value pairs and nothing else.
_CONNINFO = re.compile(r"\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*=\s*(?:" + _VALUE + r")\s*)+")
#: A secret parameter as key=value: the key not part of a longer name nor a URL's query
#: (the URL rule reads those).
_PAIR = re.compile(r"(?<![A-Za-z0-9_?&])(?P<key>" + "|".join(SECRET_KEYS) + r")(?P<eq>\s*=\s*)(?P<value>"
                   + _VALUE + ")", re.IGNORECASE)
_ESCAPED = re.compile(r"\\([\s\S])")


def _is_secret_key(name: str) -> bool:
    return name.casefold() in SECRET_KEYS


@dataclass(frozen=True)
class UrlParts:
    """A URL cut the one way every reader here cuts it (the store's, a scheduler's, the
    redaction's): the authority ends at the first '/', '?' or '#', and its user info at the
    *last* '@' in it (a raw '@' typed in a password belongs to the password)."""

    head: str  # "scheme://", or "" for an address given without one (HOST:PORT)
    userinfo: str | None  # None: no '@' in the authority
    host: str  # host and port, as written
    tail: str  # path, query and fragment, as written

    @classmethod
    def of(cls, text: str) -> UrlParts:
        head = _URL.match(text)
        start = head.end() if head else 0
        rest = text[start:]
        cut = re.search(r"[/?#]", rest)
        authority, tail = (rest[:cut.start()], rest[cut.start():]) if cut else (rest, "")
        userinfo, at, host = authority.rpartition("@")
        return cls(text[:start], userinfo if at else None, host, tail)

    def without_userinfo(self) -> str:
        return f"{self.head}{self.host}{self.tail}"


def _url(text: str) -> tuple[str, list[str]]:
    """A text that is one URL: (it with its password and secret query values hidden, the
    secrets as written and decoded)."""
    parts = UrlParts.of(text)
    authority, tail = parts.host, parts.tail
    found: list[str] = []
    user, colon, password = (parts.userinfo or "").partition(":")
    if parts.userinfo is not None and colon:
        found += [password, unquote(password)]
        authority = f"{user}:{HIDDEN}@{authority}"
    elif parts.userinfo is not None:
        authority = f"{parts.userinfo}@{authority}"
    path, q, query = tail.partition("?")  # the query runs to the end: libpq's URLs have no fragment
    if q:
        pairs = query.split("&")
        for i, pair in enumerate(pairs):
            key, eq, value = pair.partition("=")
            if eq and _is_secret_key(unquote(key)):
                found += [value, unquote(value)]
                pairs[i] = f"{key}={HIDDEN}"
        tail = f"{path}?{'&'.join(pairs)}"
    return parts.head + authority + tail, found


def _pairs(text: str) -> tuple[str, list[str]]:
    """Every secret key=value in a text hidden: (the text, the values as written and unquoted)."""
    found: list[str] = []

    def hide_value(m: re.Match[str]) -> str:
        value = m["value"]
        inner = value[1:-1] if len(value) > 1 and value[0] == value[-1] == "'" else value.lstrip("'")
        found.extend([value, inner, _ESCAPED.sub(r"\1", inner)])
        return f"{m['key']}{m['eq']}{HIDDEN}"
    return _PAIR.sub(hide_value, text), found


def _redact(text: str) -> tuple[str, list[str]]:
    """One text (a word, a URL, a connection string, a command line): (it with its secrets
    hidden where they stand, the secret values found)."""
    if text.startswith("-") and "=" in text:  # an option given as --name=value
        name, value = text.split("=", 1)
        if _is_secret_key(name.lstrip("-")):
            return f"{name}={HIDDEN}", [value]
        shown, found = _redact(value)
        return f"{name}={shown}", found
    if _URL.match(text):
        return _url(text)
    if _CONNINFO.fullmatch(text):  # a connection string: libpq's quoting, not a shell's
        return _pairs(text)
    if any(c.isspace() for c in text):  # a command line in one word: each of its words
        return _command(text)
    shown, found = _pairs(text)
    shown, urls = _urls_in(shown)
    return shown, found + urls


def _urls_in(text: str) -> tuple[str, list[str]]:
    """Every URL inside a text hidden where it stands (one with a space in its password is
    a shell word of its own: `_command` finds it)."""
    found: list[str] = []

    def one(m: re.Match[str]) -> str:
        shown, more = _url(m[0])
        found.extend(more)
        return shown
    return _URL_IN_TEXT.sub(one, text), found


def _words(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """A command line's words, each hidden by the rule, and a word after an option named
    for a secret (`--password x`) hidden whole: (the words, the secrets found)."""
    shown: list[str] = []
    found: list[str] = []
    for word in words:
        if shown and shown[-1].startswith("-") and _is_secret_key(shown[-1].lstrip("-")):
            shown.append(HIDDEN)
            found.append(word)
            continue
        hidden, more = _redact(word)
        shown.append(hidden)
        found += more
    return shown, found


def _command(text: str) -> tuple[str, list[str]]:
    """A command line in one text, split as a shell would; the same text when nothing in it
    is hidden. Unbalanced quotes: each run of non-space where it stands, and everything after
    the first one that held a secret hidden too (the quoting that would say where that secret
    ends is broken, so it may run on past a space)."""
    try:
        words = shlex.split(text)
    except ValueError:
        found: list[str] = []
        parts: list[str] = []
        for m in re.finditer(r"\S+|\s+", text):
            part, more = _redact(m[0]) if not m[0].isspace() else (m[0], [])
            parts.append(part)
            found.extend(more)
            if more:
                rest = text[m.end():]
                if rest.strip():
                    parts.append(" " + HIDDEN)
                    found.append(rest.strip())
                break
        return "".join(parts), found
    if words == [text]:
        return text, []
    shown_words, secrets = _words(words)
    return (text if shown_words == words else shlex.join(shown_words)), secrets


def redact(text: str) -> str:
    """`text` with every secret it carries hidden; otherwise unchanged."""
    return _redact(text)[0]


def command_line(argv: Sequence[str]) -> str:
    """The command line as a run records it: shell-quoted, secrets hidden."""
    return shlex.join(_words(argv)[0])


def redact_command(text: str | None) -> str | None:
    """A recorded command line with its secrets hidden; the same text when it has none."""
    return _redact(text)[0] if text else text


def redact_json(value: Any) -> Any:
    """A stored JSON value (a run's settings, a fleet run's plan: its runner commands) with
    every string in it redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_json(v) for k, v in value.items()}
    return value


def secrets_in(words: Iterable[str]) -> set[str]:
    """The secret values these words carry (as `redact` finds them), empty ones left out."""
    return {s for s in _words(list(words))[1] if s and s != HIDDEN}


class SecretUrl(str):
    """A URL handed to code that may print its arguments (a Dask worker logs a failed
    task's arguments with repr): the real text to use, the redacted one to show."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact(str(self)))


# ---------------------------------------------------------------------------- what a process was given
_known: set[str] = set()


def remember(words: Iterable[str]) -> None:
    """Keep the secrets these words carry (a command line, $CIPHERBENCH_DB) for `hide`."""
    _known.update(secrets_in(words))


def _escaped(text: str) -> set[str]:
    """`text` as a message may quote it inside a string: Python's repr and str.format's !r
    inside either quote, JSON (ASCII or not), HTML."""
    backslashed = text.replace("\\", "\\\\")
    return {text, repr(text)[1:-1], backslashed.replace("'", "\\'"), backslashed.replace('"', '\\"'),
            backslashed.replace("'", "\\'").replace('"', '\\"'), json.dumps(text)[1:-1],
            json.dumps(text, ensure_ascii=False)[1:-1], html.escape(text), html.escape(text, quote=False)}


def _forms(secret: str) -> set[str]:
    """The ways a message may quote a secret: as given or inside a shell's single quotes,
    each as `_escaped` quotes it; percent-encoded."""
    return (_escaped(secret) | _escaped(secret.replace("'", "'\"'\"'"))
            | {quote(secret, safe=""), quote(secret), quote_plus(secret)})


@lru_cache(maxsize=64)
def _pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    """One expression for every form of these secrets, the longest first (one pass: a
    replacement is never searched again)."""
    forms = sorted({f for s in secrets for f in _forms(s) if f}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, forms))) if forms else None


def hide(text: str, carriers: Iterable[str] = ()) -> str:
    """A message with every secret hidden: those this process remembers and those these
    carriers hold, in any form, then any URL or key=value carrier in it where it stands."""
    pattern = _pattern(frozenset(_known | secrets_in(carriers)))
    if pattern is not None:
        text = pattern.sub(HIDDEN, text)
    return _urls_in(_pairs(text)[0])[0]


class HidingStream(io.TextIOBase):
    """A text stream that writes `hide`(text) to the stream it wraps; everything else
    (isatty, fileno, encoding: what rich and click ask) is the wrapped stream's."""

    def __init__(self, stream: TextIO):
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(hide(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._stream, "errors", None)


@contextmanager
def hidden_output() -> Iterator[None]:
    """stdout and stderr through HidingStream while the block runs; restored after."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = HidingStream(out), HidingStream(err)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
