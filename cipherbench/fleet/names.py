"""The names a fleet writes into files, SQL, certificates and command lines, checked
where they enter: a machine's or client's name, the store's role and database, a host.

A name that passes is written as it is (role.sql, a password file's line, a folder, a
certificate's subject, a printed command line); one that does not is refused in one
line before anything is written. The patterns are narrower than what each consumer
would quote its way through, on purpose: a name is something a person types and reads.

- machine: a host name (RFC 1123 §2.1: labels of letters, digits and hyphens, neither
  first nor last a hyphen, at most 63 characters each and 253 in all), what `hostname`
  prints and `fleet worker` advertises;
- sql: a PostgreSQL identifier that needs no quoting (lower-case letters, digits and
  underscores, not beginning with a digit, at most 63 bytes: NAMEDATALEN - 1, PostgreSQL
  "Identifiers and Key Words");
- host: a machine name, or an IPv4 or IPv6 address.
"""
from __future__ import annotations

import ipaddress
import re
from enum import StrEnum

from cipherbench.errors import UsageError


class NameKind(StrEnum):
    MACHINE = "machine"
    SQL = "sql"
    HOST = "host"


_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
PATTERNS = {
    NameKind.MACHINE: re.compile(rf"{_LABEL}(?:\.{_LABEL})*"),
    NameKind.SQL: re.compile(r"[a-z_][a-z0-9_]{0,62}"),
}
MACHINE_MAX = 253
#: What a refusal shows of the name: enough to recognise it, never a screenful.
SHOWN = 40


def _fits(kind: NameKind, text: str) -> bool:
    if kind is NameKind.HOST:
        return _fits(NameKind.MACHINE, text) or _is_address(text)
    if kind is NameKind.MACHINE and len(text) > MACHINE_MAX:
        return False
    return PATTERNS[kind].fullmatch(text) is not None  # fullmatch: "$" would let a final newline in


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def shown(text: str) -> str:
    """The name as a refusal quotes it: on one line (repr escapes control characters), cut short."""
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


def check(kind: NameKind, text: str, what: str) -> str:
    """`text` when it is a name of this kind; else a UsageError naming `what` it was for."""
    if not _fits(kind, text):
        rule = {NameKind.MACHINE: "a host name: letters, digits, '-' and '.', as RFC 1123 has them",
                NameKind.SQL: "lower-case letters, digits and '_', not beginning with a digit, at most 63",
                NameKind.HOST: "a host name (letters, digits, '-' and '.') or an IP address"}[kind]
        raise UsageError(f"{what} {shown(text)} is not allowed: {rule}")
    return text
