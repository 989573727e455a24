"""Errors that end a command with one clear line and a status code, and the one rule for
suggesting what a mistyped name meant."""
from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

#: How alike a known name must be to a mistyped one to be suggested (difflib's ratio).
SIMILAR_AT = 0.6


class CipherbenchError(Exception):
    """Something went wrong that the user should read about; exit status 1."""

    exit_code = 1


class UsageError(CipherbenchError):
    """The command line asked for something that does not exist or is malformed; exit 2."""

    exit_code = 2


class RunnerError(CipherbenchError):
    """A runner crashed, hung, or printed something that is not the protocol."""


def did_you_mean(name: str, known: Iterable[str], most: int = 3) -> str:
    """'; did you mean X, Y?' naming the known names most like `name`, or ''. Alike is
    difflib's ratio; a name with the same letters (two swapped: 'fcb' for 'cfb') comes
    first, since difflib scores a swap no better than a wrong letter."""
    close = get_close_matches(name, list(known), n=10, cutoff=SIMILAR_AT)
    close.sort(key=lambda k: sorted(k) != sorted(name))  # stable: difflib's order otherwise
    return f"; did you mean {', '.join(close[:most])}?" if close else ""
