"""The fleet's store over TLS, verified: `fleet init` makes the store server's certificate
(the fleet's authority's, naming the hosts given) and its settings; a real PostgreSQL server
set up with them (tests/test_postgres.py's serve_postgres) is reached by every member with
sslmode=verify-full against the fleet's authority; and a client that would not verify the
server, or a server that cannot prove it is the store (another name, another authority), is
refused in one line.

The server listens on 127.0.0.1 and 127.0.0.2 (both loopback): its certificate names
127.0.0.1 and localhost, so 127.0.0.2 is the same server under a name it has no certificate
for.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO
from test_postgres import free_port, serve_postgres

from cipherbench.errors import UsageError
from cipherbench.store.pgauth import STORE_CA_ENV, connect_args

CLIENT = "me"


def cb(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The command line, in an environment that names no store authority nor password file
    but those `env` gives."""
    e = {k: v for k, v in os.environ.items() if k not in (STORE_CA_ENV, "PGPASSFILE", "CIPHERBENCH_FLEET_CREDENTIALS")}
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env=dict(e, **(env or {})))


def fleet_init(root: Path, port: int, *more: str) -> Path:
    r = cb("fleet", "init", str(root), "--machine", "lab-a", "--client", CLIENT, "--db-host", "127.0.0.1",
           "--db-port", str(port), *more)
    assert r.returncode == 0, r.stderr
    return root


def one_line(r: subprocess.CompletedProcess, code: int) -> str:
    assert r.returncode == code and len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    return r.stderr.strip()


@dataclass
class Fleet:
    root: Path  # the fleet whose authority signed the store's certificate
    other: Path  # another fleet's (another authority), for the same store address
    url: str  # postgresql://cipherbench@127.0.0.1:PORT/cipherbench
    port: int

    def member(self, root: Path | None = None) -> Path:
        return (root or self.root) / "clients" / CLIENT


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("store-tls")
    port = free_port()
    root = fleet_init(tmp / "creds", port, "--db-alt-name", "localhost", "--db-clients", "127.0.0.0/8")
    other = fleet_init(tmp / "other", port)
    with serve_postgres(listen="127.0.0.1", also_listen=("127.0.0.2",), port=port, tls=root / "postgres",
                        setup_sql=(root / "postgres" / "role.sql").read_text()) as url:
        yield Fleet(root, other, url, port)


def test_init_writes_the_store_server_s_certificate_and_its_settings(fleet, tmp_path):
    from cryptography import x509
    pg = fleet.root / "postgres"
    cert = x509.load_pem_x509_certificate((pg / "server.crt").read_bytes())
    cert.verify_directly_issued_by(x509.load_pem_x509_certificate((fleet.root / "ca" / "ca.pem").read_bytes()))
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(a) for a in san.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert san.get_values_for_type(x509.DNSName) == ["localhost"]
    assert (pg / "ssl.conf").read_text() == ("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n"
                                             "ssl_ca_file = 'ca.pem'\n")
    assert (pg / "pg_hba.lines").read_text() == "hostssl cipherbench cipherbench 127.0.0.0/8 scram-sha-256\n"
    assert {p.name: p.stat().st_mode & 0o777 for p in pg.iterdir()} == dict.fromkeys(
        ("ca.pem", "pgpass", "role.sql", "server.crt", "server.key", "ssl.conf", "pg_hba.lines"), 0o600)
    # again with the same names: kept; with another: made again; --rotate: the new authority's
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(fleet.root), str(copy)], check=True)
    before = (copy / "postgres" / "server.crt").read_bytes()
    r = cb("fleet", "init", str(copy), "--machine", "lab-a", "--client", CLIENT, "--db-host", "127.0.0.1",
           "--db-port", str(fleet.port), "--db-alt-name", "localhost", "--db-clients", "127.0.0.0/8")
    assert r.returncode == 0 and (copy / "postgres" / "server.crt").read_bytes() == before, r.stderr
    assert "(for 127.0.0.1, localhost; kept from before)" in " ".join(r.stdout.split())
    r = cb("fleet", "init", str(copy), "--machine", "lab-a", "--db-host", "127.0.0.1", "--db-port", str(fleet.port),
           "--db-alt-name", "db.lab")
    assert r.returncode == 0 and (copy / "postgres" / "server.crt").read_bytes() != before, r.stderr
    names = x509.load_pem_x509_certificate((copy / "postgres" / "server.crt").read_bytes()).extensions \
        .get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.DNSName)
    assert names == ["db.lab"]
    r = cb("fleet", "init", str(copy), "--machine", "lab-a", "--db-host", "127.0.0.1", "--db-port", str(fleet.port),
           "--rotate")
    assert r.returncode == 0, r.stderr
    x509.load_pem_x509_certificate((copy / "postgres" / "server.crt").read_bytes()).verify_directly_issued_by(
        x509.load_pem_x509_certificate((copy / "ca" / "ca.pem").read_bytes()))
    said = one_line(cb("fleet", "init", str(copy), "--machine", "lab-a", "--db-host", "127.0.0.1", "--db-port",
                       str(fleet.port), "--db-clients", "10.0.0.1/24"), 2)
    assert "--db-clients '10.0.0.1/24' is not a network" in said


def test_a_member_reaches_the_store_with_verify_full_against_the_fleet_s_authority(fleet, monkeypatch):
    from sqlalchemy import text

    from cipherbench.fleet.security import Credentials
    from cipherbench.store.db import Store
    monkeypatch.delenv("PGPASSFILE", raising=False)
    monkeypatch.delenv(STORE_CA_ENV, raising=False)
    Credentials.load(fleet.member()).use_store()  # what --credentials does
    ca = str((fleet.member() / "ca.pem").resolve())
    assert os.environ[STORE_CA_ENV] == ca
    store = Store(fleet.url)  # makes the schema, over TLS
    with store.engine.connect() as c:
        ssl, = c.execute(text("select ssl from pg_stat_ssl where pid = pg_backend_pid()")).one()
        dsn = c.connection.driver_connection.info.dsn  # type: ignore[union-attr]
    store.engine.dispose()
    assert ssl is True and "sslmode=verify-full" in dsn.split() and f"sslrootcert={ca}" in dsn.split()
    # the command line's way: a member folder given, by option or by the environment
    said = one_line(cb("--db", fleet.url, "fleet", "status", "--credentials", str(fleet.member())), 1)
    assert said.endswith(f"no fleet run in 127.0.0.1:{fleet.port}/cipherbench (run 'cipherbench fleet run')")
    said = one_line(cb("--db", fleet.url, "fleet", "status",
                       env={"CIPHERBENCH_FLEET_CREDENTIALS": str(fleet.member())}),
                    1)
    assert "no fleet run in" in said
    # by the certificate's other name, with a password file that names it
    password = (fleet.member() / "pgpass").read_text().rstrip("\n").rsplit(":", 1)[1]
    pgpass = fleet.root.parent / "localhost.pgpass"
    pgpass.write_text(f"localhost:{fleet.port}:cipherbench:cipherbench:{password}\n")
    pgpass.chmod(0o600)
    said = one_line(cb("--db", f"postgresql://cipherbench@localhost:{fleet.port}/cipherbench", "fleet", "status",
                       "--credentials", str(fleet.member()), env={"PGPASSFILE": str(pgpass)}), 1)
    assert f"no fleet run in localhost:{fleet.port}/cipherbench" in said


def test_a_client_that_would_not_verify_the_store_is_refused(fleet):
    def refused(sslmode: str, *command: str) -> None:
        said = one_line(cb("--db", f"{fleet.url}?sslmode={sslmode}", *command, "--credentials", str(fleet.member())), 2)
        assert f"the store's URL asks sslmode={sslmode}, and a fleet's store is reached only with " \
               "sslmode=verify-full against the fleet's authority" in said, command
    for sslmode in ("disable", "allow", "prefer", "require", "verify-ca"):
        refused(sslmode, "fleet", "status")
    refused("disable", "fleet", "report", "--out", str(fleet.root.parent / "report"))
    refused("require", "fleet", "run", "--impl", "null", "--sizes", "16")
    # the server itself would have let it in: the refusal is the client's
    r = cb("--db", f"{fleet.url}?sslmode=require", "fleet", "status", env={"PGPASSFILE": str(fleet.member() / "pgpass")})
    assert "no fleet run in" in one_line(r, 1)


def test_a_server_that_cannot_prove_it_is_the_store_is_refused(fleet):
    # the same server under an address its certificate does not name
    said = one_line(cb("--db", f"postgresql://cipherbench@127.0.0.2:{fleet.port}/cipherbench", "fleet", "status",
                       "--credentials", str(fleet.member())), 1)
    assert f"cannot open the result store 127.0.0.2:{fleet.port}/cipherbench: " in said
    assert 'server certificate for "127.0.0.1" (and 1 other name) does not match host name "127.0.0.2"' in said
    # a member of another fleet: the server's certificate is not its authority's
    said = one_line(cb("--db", fleet.url, "fleet", "status", "--credentials", str(fleet.member(fleet.other))), 1)
    assert f"cannot open the result store 127.0.0.1:{fleet.port}/cipherbench: " in said
    assert "certificate verify failed" in said


def test_the_rule_refuses_every_url_that_asks_less_than_verify_full(monkeypatch, tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("")
    monkeypatch.setenv(STORE_CA_ENV, str(ca))
    for var in ("PGHOST", "PGHOSTADDR", "PGSSLMODE"):
        monkeypatch.delenv(var, raising=False)
    want = {"sslmode": "verify-full", "sslrootcert": str(ca)}
    for url in ("postgresql://u@db/x", "postgresql+psycopg://u@10.0.0.1:5433/x", "postgresql://u@db/x?sslmode=verify-full",
                f"postgresql://u@db/x?sslrootcert={ca}", "postgresql://u@/x?host=db", "postgresql://u@/x?hostaddr=10.0.0.1"):
        assert connect_args(url) == want, url
    monkeypatch.setenv("PGSSLMODE", "disable")  # libpq's default only: the parameter given wins over it
    assert connect_args("postgresql://u@db/x") == want
    refused = {"postgresql://u@db/x?sslmode=require": "asks sslmode=require",
               "postgresql://u@db/x?sslmode=verify-full&sslmode=disable": "asks sslmode=disable",
               f"postgresql://u@db/x?sslrootcert={tmp_path / 'other.pem'}": "another sslrootcert",
               "postgresql://u@db/x?sslrootcert=system": "another sslrootcert",
               "postgresql://u@/x": "reached over TCP", "postgresql://u@/x?host=/run/postgresql": "reached over TCP",
               "postgresql://u@/x?host=/run/postgresql,db": "reached over TCP"}
    for url, why in refused.items():
        with pytest.raises(UsageError, match=why):
            connect_args(url)
    assert connect_args("sqlite:///x.sqlite") == {}
