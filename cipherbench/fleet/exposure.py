"""Where a fleet process listens and whom it talks to: mutual TLS, or loopback.

Every Dask node runs what a peer sends it: a scheduler runs a client's functions on
every worker, a worker runs whatever its scheduler (or anyone reaching its own port:
`rpc(worker).run(function=...)`) sends, and a client unpickles what comes back. So the
one rule, for the scheduler, the worker and its nanny, and the client alike:

- with credentials (a member folder from `fleet init`), everything is tls:// and the
  peer must show a certificate of the fleet's authority: listen anywhere;
- without, every address is loopback: a listener binds 127.0.0.1 unless told another
  loopback address, and the scheduler it joins or asks is on loopback too;
- `--insecure` is the only way round: it lets an address off loopback be named (it
  never chooses one), and is answered with one line saying what it opens.

Loopback is reachable by every user of the machine: see docs/fleet.md, "Who can do what".
"""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from cipherbench.errors import UsageError
from cipherbench.redact import UrlParts


class Scheme(StrEnum):
    """The Dask transports a fleet speaks (distributed.comm's tcp and tls)."""

    TCP = "tcp"
    TLS = "tls"


#: Where a process without TLS listens when no address is given (Dask's own default is every interface).
PLAIN_DEFAULT_HOST = "127.0.0.1"
#: What --insecure opens, said once when it is used.
INSECURE_WARNING = (
    "fleet {command}: --insecure: {what} without TLS. Anyone who reaches these ports, or stands on the "
    "network path, can have any Python function run on every worker, as the user the workers run as (root "
    "in a typical lab setup), and on this machine, and read or change every result the workers write. Use "
    "'cipherbench fleet init' and --credentials instead.")


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback one (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in found)


@dataclass(frozen=True)
class Address:
    """A Dask address as given: tcp://HOST:PORT, tls://HOST:PORT, or HOST:PORT (tcp), read
    as the store's URL is (redact.UrlParts: a raw '@' in a password belongs to it). `dask`
    is the address without its user info: Dask reads none (its tcp and tls parsers refuse
    one) and logs the address it is given, so a credential typed there never reaches it."""

    text: str
    scheme: str
    host: str
    dask: str

    @classmethod
    def parse(cls, text: str) -> Address:
        parts = UrlParts.of(text)
        scheme = text.split("://", 1)[0] if "://" in text else Scheme.TCP.value
        try:
            host = urlsplit(f"//{parts.host}").hostname or ""
        except ValueError:  # an unclosed "[": no host anyone could reach
            host = ""
        return cls(text, scheme, host, parts.without_userinfo())


def _refuse_insecure_with_credentials(has_credentials: bool, insecure: bool) -> None:
    if has_credentials and insecure:
        raise UsageError("--insecure is for running without --credentials: with them, everything is mutual TLS")


def scheduler_to_join(address: str, has_credentials: bool, insecure: bool) -> str | None:
    """Check the scheduler a worker joins or a client asks. None when that is safe, else
    what --insecure opens (for the warning)."""
    _refuse_insecure_with_credentials(has_credentials, insecure)
    a = Address.parse(address)
    if has_credentials:
        if a.scheme != Scheme.TLS:
            raise UsageError(f"with --credentials the scheduler's address is tls://HOST:PORT, not {a.scheme}://")
        return None
    if a.scheme == Scheme.TLS:
        raise UsageError("a tls:// scheduler needs --credentials: a member folder from 'cipherbench fleet init'")
    if a.scheme != Scheme.TCP:
        raise UsageError(f"a fleet's scheduler is tls://HOST:PORT (with --credentials) or tcp:// on loopback, "
                         f"not {a.scheme}://")
    if is_loopback(a.host):
        return None
    if not insecure:
        raise UsageError(f"refusing a scheduler off loopback without TLS ({a.scheme}://{a.host}): whoever "
                         "answers there could run code here; give --credentials (cipherbench fleet init), "
                         "or --insecure")
    return f"talking to {a.scheme}://{a.host}"


def listen_host(host: str | None, has_credentials: bool, insecure: bool) -> tuple[str | None, str | None]:
    """Where a scheduler or worker listens, and what --insecure opens there (None when
    nothing is): with credentials, where asked (Dask's default, every interface, when not
    asked: TLS guards it); without, loopback (127.0.0.1 when not asked), or an address
    named with --insecure."""
    _refuse_insecure_with_credentials(has_credentials, insecure)
    if has_credentials:
        return host, None
    if host is None or is_loopback(host):
        return host or PLAIN_DEFAULT_HOST, None
    if not insecure:
        raise UsageError(f"refusing to listen on {host} without TLS: anyone reaching it could run code on every "
                         "worker; give --credentials (cipherbench fleet init), or --insecure")
    return host, f"listening on {host}"


def insecure_warning(command: str, opened: list[str | None]) -> str | None:
    """The one line --insecure is answered with, or None when it opened nothing."""
    what = [o for o in opened if o]
    return INSECURE_WARNING.format(command=command, what=" and ".join(what)) if what else None
