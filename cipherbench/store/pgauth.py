"""How a PostgreSQL store may ask for the password: by SCRAM, or not at all.

libpq answers whatever authentication the server asks for, with the password from the URL
or the password file: a server asking AuthenticationCleartextPassword gets the password
itself, one asking AuthenticationMD5Password a hash as good as the password against a
server that keeps MD5. Any server the client is pointed at, or one standing on the path,
can ask. libpq's require_auth (PostgreSQL 16 and later; psycopg[binary] 3.2.9 bundles
libpq 17) names the methods the client goes along with, and the one rule here sets it:

- over TCP: scram-sha-256 only. The password never leaves the client (RFC 5802: the
  client proves it knows it), and the server proves it holds the verifier;
- over Unix sockets only (every host a path, or none given: libpq's default socket):
  scram-sha-256 or none, for peer and trust on a local server: nothing is sent either way;
- with sslmode=verify-full (in the URL or $PGSSLMODE), the server has proved by its
  certificate that it is the store: what it asks is left to the URL.

A require_auth in the URL is overridden by this rule (SQLAlchemy's connect_args win over
the URL's query), outside verify-full.

Where a store's authority is given ($CIPHERBENCH_STORE_CA: a fleet member's ca.pem, set by
its --credentials), every PostgreSQL store is reached with sslmode=verify-full and that file
as sslrootcert: the server shows a certificate the authority signed for the host the URL
names, or the connection ends before anything is sent. A URL that would ask less (an
sslmode other than verify-full, another sslrootcert, a Unix socket, where libpq never uses
TLS) is refused in one line rather than quietly strengthened.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from cipherbench.errors import UsageError

if TYPE_CHECKING:  # SQLAlchemy when a URL is read: the fleet's commands name STORE_CA_ENV without it
    from sqlalchemy.engine import URL

#: libpq's require_auth values (libpq, "Parameter Key Words").
SCRAM_ONLY = "scram-sha-256"
SCRAM_OR_NOTHING = "scram-sha-256,none"
VERIFIED_SERVER = "verify-full"
#: The authority a PostgreSQL store's certificate must be signed by (a PEM file), when set.
STORE_CA_ENV = "CIPHERBENCH_STORE_CA"


def _query(url: URL, key: str) -> list[str]:
    value = url.query.get(key)
    values: Iterable[str] = (value,) if isinstance(value, str) else (value or ())
    return [part for v in values for part in v.split(",")]


def _env(key: str) -> list[str]:
    return os.environ[key].split(",") if os.environ.get(key) else []


def over_tcp(url: URL) -> bool:
    """Whether libpq may reach this store over TCP: a host that is not a socket's folder
    (libpq takes a host beginning with "/", or "@" for Linux's abstract namespace, as one),
    or a hostaddr; hosts from $PGHOST when the URL names none."""
    if _query(url, "hostaddr") or (not url.host and not _query(url, "host") and _env("PGHOSTADDR")):
        return True
    hosts = ([url.host] if url.host else []) + _query(url, "host") or _env("PGHOST")
    return any(h and not h.startswith(("/", "@")) for h in hosts)


def only_tcp(url: URL) -> bool:
    """Whether every host libpq may try for this store is reached over TCP."""
    hosts = ([url.host] if url.host else []) + _query(url, "host") or _env("PGHOST")
    return (bool(hosts) or bool(_query(url, "hostaddr") or _env("PGHOSTADDR"))) and \
        not any(not h or h.startswith(("/", "@")) for h in hosts)


def verified(url: URL, ca: str) -> dict[str, str]:
    """sslmode=verify-full against the authority `ca`; a URL that asks for less refused."""
    asked = _query(url, "sslmode")
    if any(mode != VERIFIED_SERVER for mode in asked):
        raise UsageError(f"the store's URL asks sslmode={asked[-1]}, and a fleet's store is reached only with "
                         f"sslmode={VERIFIED_SERVER} against the fleet's authority: leave sslmode out of the URL")
    if any(Path(root).resolve() != Path(ca).resolve() for root in _query(url, "sslrootcert")):
        raise UsageError("the store's URL names another sslrootcert than the fleet's authority "
                         f"({ca}): leave sslrootcert out of the URL")
    if not only_tcp(url):
        raise UsageError("a fleet's store is reached over TCP, by the host name or address its certificate names "
                         "(libpq never uses TLS on a Unix socket): postgresql://USER@HOST:PORT/DB")
    return {"sslmode": VERIFIED_SERVER, "sslrootcert": ca}


def connect_args(url_text: str) -> dict[str, str]:
    """The driver's extra connection parameters for the store at `url_text`: require_auth
    for PostgreSQL (the module's rule), and sslmode=verify-full against $CIPHERBENCH_STORE_CA
    when it is set; nothing for SQLite."""
    from sqlalchemy.engine import make_url
    url = make_url(url_text)
    if not url.drivername.startswith("postgresql"):
        return {}
    ca = os.environ.get(STORE_CA_ENV)
    if ca:
        return verified(url, ca)
    sslmode = (_query(url, "sslmode") or _env("PGSSLMODE") or [""])[-1]
    if sslmode == VERIFIED_SERVER:
        return {}
    return {"require_auth": SCRAM_ONLY if over_tcp(url) else SCRAM_OR_NOTHING}
