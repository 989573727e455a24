"""A fleet's credentials: its authority, each member's certificate, the store's password.

A Dask scheduler runs whatever function a client sends it, on every worker: whoever
reaches its port runs code on every machine of the fleet. So the fleet speaks mutual
TLS (Dask's `distributed.security.Security`: its context requires the peer's
certificate, signed by the one authority given, both ways) with certificates from an
authority of its own (where each process may listen: exposure.py), and its store needs
a password (PostgreSQL's scram-sha-256), which the client sends to no one else
(store/pgauth.py), over TLS to a server that shows a certificate of the same authority for
the host the store's URL names (libpq's sslmode=verify-full; Credentials.use_store).

`fleet init DIR` (init_fleet) writes, every file 0600 and every folder 0700:

    DIR/ca/ca.pem, ca-key.pem           the authority; its key stays where it was made
    DIR/scheduler/                      the scheduler's machine
    DIR/machines/NAME/                  each measuring machine
    DIR/clients/NAME/                   each machine that runs `fleet run`
        ca.pem cert.pem key.pem         the authority's certificate, this member's own pair
        pgpass                          (machines and clients) the store role's password, a
                                        PostgreSQL password file (libpq's PGPASSFILE) whose
                                        one line names the store's host, port, database and role
    DIR/postgres/role.sql, pgpass       the role with its scram-sha-256 verifier, for the server
    DIR/postgres/server.crt, server.key the store server's certificate (the authority's, naming
                                        --db-host and each --db-alt-name) and key, with ca.pem,
                                        ssl.conf (postgresql.conf's lines) and pg_hba.lines
                                        (hostssl: the role over TLS only)

Each member folder is what `--credentials` takes on that machine. Running init again
on the same DIR keeps the authority and the password and adds the members not made yet;
it refuses a member whose certificate the authority did not sign (ca/ replaced), and a
store other than the one the password was made for. `--rotate` makes a new authority
and a new password and re-issues every member: what to do when a member's folder leaked.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.fleet import names
from cipherbench.fleet.names import NameKind
from cipherbench.store import pgauth

if TYPE_CHECKING:  # cryptography is the fleet extra's, imported where credentials are made
    from cryptography.hazmat.primitives.asymmetric.ec import EllipticCurvePrivateKey
    from cryptography.x509 import Certificate

#: Environment variable naming a member folder, for `--credentials`.
CREDENTIALS_ENV = "CIPHERBENCH_FLEET_CREDENTIALS"
CA_DIR, SCHEDULER_DIR, MACHINES_DIR, CLIENTS_DIR, POSTGRES_DIR = "ca", "scheduler", "machines", "clients", "postgres"
CA_CERT, CA_KEY, CERT, KEY, PGPASS, ROLE_SQL = "ca.pem", "ca-key.pem", "cert.pem", "key.pem", "pgpass", "role.sql"
#: The store server's files in DIR/postgres: its certificate and key (PostgreSQL's own default
#: names, ssl_cert_file and ssl_key_file), and the settings that use them.
SERVER_CERT, SERVER_KEY, SSL_CONF, HBA_LINES = "server.crt", "server.key", "ssl.conf", "pg_hba.lines"
DEFAULT_DAYS = 825
DEFAULT_ROLE = DEFAULT_DATABASE = "cipherbench"
#: PostgreSQL's default port (libpq's DEF_PGPORT).
DEFAULT_PORT = 5432
#: PostgreSQL's default scram_iterations (postgresql.conf, "scram_iterations", 4096).
SCRAM_ITERATIONS = 4096
#: Where the instructions put a member's folder on its machine (scp's remote paths are the home's).
MEMBER_HOME = ".config/cipherbench-fleet"


class Role(StrEnum):
    """What a member is to Dask (Security's tls_<role>_cert and tls_<role>_key)."""

    SCHEDULER = "scheduler"
    WORKER = "worker"
    CLIENT = "client"


# ---------------------------------------------------------------------------- using credentials
@dataclass(frozen=True)
class Credentials:
    """A member folder made by init_fleet, as `--credentials` names it."""

    folder: Path
    ca: Path  # the authority's certificate
    cert: Path  # this member's certificate and key
    key: Path
    pgpass: Path  # the store role's password file (machines and clients)

    @classmethod
    def load(cls, folder: Path | str | None) -> Credentials | None:
        """The folder's credentials, checked; None when none were given."""
        if not folder:
            return None
        f = Path(folder)
        c = cls(f, f / CA_CERT, f / CERT, f / KEY, f / PGPASS)
        missing = [p.name for p in (c.ca, c.cert, c.key) if not p.is_file()]
        if missing:
            raise UsageError(f"--credentials {folder}: no {', '.join(missing)} there "
                             "(give a member folder made by 'cipherbench fleet init')")
        return c

    def security(self, role: Role):
        """Dask's Security for this member in this role: mutual TLS, nothing unencrypted."""
        from distributed.security import Security
        return Security(require_encryption=True, tls_ca_file=str(self.ca),
                        **{f"tls_{role.value}_cert": str(self.cert), f"tls_{role.value}_key": str(self.key)})

    def dask_args(self) -> list[str]:
        """The same for `dask scheduler` and `dask worker`, whose --tls-* options mean it."""
        return ["--protocol", "tls", "--tls-ca-file", str(self.ca), "--tls-cert", str(self.cert),
                "--tls-key", str(self.key)]

    def machine_names(self) -> set[str]:
        """The machine names this member's certificate gives (its subjectAltName DNS entries,
        or its common name without them): what the scheduler lets it claim (admission.py)."""
        from cryptography import x509
        from cryptography.x509.oid import NameOID
        cert = x509.load_pem_x509_certificate(self.cert.read_bytes())
        try:
            return set(cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
                       .value.get_values_for_type(x509.DNSName))
        except x509.ExtensionNotFound:
            return {str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)}

    def use_store(self) -> None:
        """Reach the store as this member: libpq finds the role's password in this member's
        password file (unless the environment already names one), and the store must show a
        certificate of the fleet's authority for the host the URL names (pgauth.STORE_CA_ENV:
        sslmode=verify-full, a weaker URL refused). Processes started afterwards inherit both:
        a worker's tasks reach the store so too."""
        if self.pgpass.is_file() and not os.environ.get("PGPASSFILE"):
            os.environ["PGPASSFILE"] = str(self.pgpass)
        os.environ[pgauth.STORE_CA_ENV] = str(self.ca.resolve())


# ---------------------------------------------------------------------------- the store's password
def scram_verifier(password: str, salt: bytes, iterations: int = SCRAM_ITERATIONS) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL keeps for a password (pg_authid.rolpassword:
    "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>", base64), as RFC 5802 §3
    and RFC 7677 define the keys: SaltedPassword = PBKDF2-HMAC-SHA-256(password, salt, i),
    StoredKey = H(HMAC(SaltedPassword, "Client Key")), ServerKey = HMAC(SaltedPassword,
    "Server Key"). The server then never sees the password itself. `password` is ASCII
    (token_urlsafe), for which SASLprep changes nothing."""
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()

    def b64(b: bytes) -> str:
        return base64.b64encode(b).decode()
    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(hashlib.sha256(client_key).digest())}:{b64(server_key)}"


@dataclass(frozen=True)
class StoreAddress:
    """The store a fleet's password is for: a password file's line names it whole, so
    libpq hands the password to that store and to no other (libpq, "The Password File")."""

    host: str
    port: int
    database: str
    role: str

    def __post_init__(self):
        names.check(NameKind.HOST, self.host, "--db-host")
        names.check(NameKind.SQL, self.database, "--db-name")
        names.check(NameKind.SQL, self.role, "--db-role")
        if not 0 < self.port < 65536:
            raise UsageError(f"--db-port {self.port} is not a TCP port")

    def url(self) -> str:
        """The store's URL without a password (the password file gives it)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"postgresql://{self.role}@{host}:{self.port}/{self.database}"

    def __str__(self) -> str:
        return f"{self.role} on {self.host}:{self.port}/{self.database}"


def pgpass_line(store: StoreAddress, password: str) -> str:
    """The password file's one line: hostname:port:database:username:password, each field
    the store's own (no "*")."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace(":", "\\:")
    return ":".join(esc(f) for f in (store.host, str(store.port), store.database, store.role, password)) + "\n"


def parse_pgpass_line(line: str) -> tuple[list[str], str]:
    """([host, port, database, role], password) of a password file's line: fields parted by
    ":", a backslash taking the next character as it is."""
    fields: list[str] = []
    field = ""
    chars = iter(line.rstrip("\n"))
    for c in chars:
        if c == "\\":
            field += next(chars, "")
        elif c == ":":
            fields.append(field)
            field = ""
        else:
            field += c
    fields.append(field)
    if len(fields) != 5:
        raise CipherbenchError(f"not a password file's line: {len(fields)} fields")
    return fields[:4], fields[4]


def role_sql(store: StoreAddress, verifier: str) -> str:
    """The SQL that makes the role and sets its verifier. The role was checked as a plain
    identifier (names.py); it is quoted as one all the same (psycopg.sql)."""
    from psycopg import sql
    ident, literal = sql.Identifier(store.role).as_string(None), sql.Literal(verifier).as_string(None)
    return ("-- Run once as a superuser on the store's server (psql -f role.sql); then pg_hba.conf lines\n"
            f"-- 'hostssl {store.database} {store.role} <network> scram-sha-256' (pg_hba.lines), and no 'host' or "
            "'trust' line for that role.\n"
            f"DO $$ BEGIN CREATE ROLE {ident} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;\n"
            f"ALTER ROLE {ident} LOGIN PASSWORD {literal};\n")


# ---------------------------------------------------------------------------- making credentials
def _write_private(path: Path, data: bytes) -> None:
    """`path` with `data`, 0600 from its creation (never readable by others, even for a
    moment), put in place whole by a rename: a file there before is replaced at once."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _folder(path: Path) -> Path:
    """The folder, made 0700 when it is new (one that exists keeps its mode: DIR may be any)."""
    if not path.exists():
        path.mkdir(mode=0o700, parents=True)
        path.chmod(0o700)  # whatever the umask took away or left
    return path


@dataclass(frozen=True)
class Authority:
    cert: Certificate
    key: EllipticCurvePrivateKey

    def pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization
        return self.cert.public_bytes(serialization.Encoding.PEM)


def _pem_key(key: EllipticCurvePrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _alt_name(name: str):
    """A subjectAltName entry for a host: an iPAddress for an address (what libpq's verify-full
    matches an address against, RFC 6125 §1.7.2), else a dNSName."""
    from cryptography import x509
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def _certificate(subject: str, key: EllipticCurvePrivateKey, issuer: Authority | None, days: int,
                 hosts: list[str] | None = None) -> Certificate:
    """An X.509 certificate for `key`: the authority's own (self-signed, CA) when `issuer`
    is None, else a member's, signed by it, good for TLS servers and clients alike (a
    worker both serves and connects), naming `subject` (or `hosts`, the store server's
    names and addresses) in its subjectAltName."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    now = datetime.now(UTC)
    ca = issuer is None
    b = (x509.CertificateBuilder().subject_name(name)
         .issuer_name(issuer.cert.subject if issuer else name)
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=days))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
         .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=ca, crl_sign=ca, content_commitment=False,
                                      key_encipherment=False, data_encipherment=False, key_agreement=False,
                                      encipher_only=False, decipher_only=False), critical=True)
         .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if issuer is not None:
        b = (b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                             critical=False)
             .add_extension(x509.SubjectAlternativeName([_alt_name(h) for h in hosts] if hosts else
                                                        [x509.DNSName(subject)]), critical=False)
             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()),
                            critical=False))
    return b.sign(issuer.key if issuer else key, hashes.SHA256())


def _new_key() -> EllipticCurvePrivateKey:
    from cryptography.hazmat.primitives.asymmetric import ec
    return ec.generate_private_key(ec.SECP256R1())


def _new_authority(folder: Path, days: int) -> Authority:
    key = _new_key()
    ca = Authority(_certificate("cipherbench fleet authority", key, None, days), key)
    _write_private(folder / CA_KEY, _pem_key(key))
    _write_private(folder / CA_CERT, ca.pem())
    return ca


def _authority(folder: Path, days: int) -> tuple[Authority, bool]:
    """The fleet's authority in `folder`: loaded, or made. (it, made now)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import load_pem_private_key
    cert_path, key_path = folder / CA_CERT, folder / CA_KEY
    if cert_path.exists() and key_path.exists():
        key = load_pem_private_key(key_path.read_bytes(), None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise CipherbenchError(f"{key_path} is not the key 'cipherbench fleet init' made (an EC key)")
        return Authority(x509.load_pem_x509_certificate(cert_path.read_bytes()), key), False
    if cert_path.exists() or key_path.exists():
        raise CipherbenchError(f"{folder} holds half an authority (one of {CA_CERT}, {CA_KEY}): remove it or "
                               "give another folder, or --rotate")
    return _new_authority(folder, days), True


@dataclass(frozen=True)
class Member:
    role: Role
    name: str
    folder: Path
    made: bool  # False: it was there already and is left as it was


@dataclass(frozen=True)
class StoreServer:
    """The store server's TLS: its certificate (signed by the fleet's authority, naming
    `hosts` in its subjectAltName) and key, and what PostgreSQL's configuration needs."""

    folder: Path
    hosts: list[str]  # --db-host first, then --db-alt-name
    clients: str  # pg_hba.conf's address field: a CIDR, or "all"
    made: bool

    def settings(self) -> list[str]:
        """postgresql.conf's lines, the files named relative to the data folder (PostgreSQL,
        "File Locations": a relative path is the data directory's)."""
        return ["ssl = on", f"ssl_cert_file = '{SERVER_CERT}'", f"ssl_key_file = '{SERVER_KEY}'",
                f"ssl_ca_file = '{CA_CERT}'"]

    def hba(self, store: StoreAddress) -> list[str]:
        """pg_hba.conf's line: the role, over TLS only (hostssl), by its SCRAM password."""
        return [f"hostssl {store.database} {store.role} {self.clients} scram-sha-256"]


@dataclass(frozen=True)
class FleetInit:
    root: Path
    authority_made: bool
    members: list[Member]
    store: StoreAddress
    role_sql: Path
    rotated: bool
    server: StoreServer


def _present(root: Path) -> list[tuple[Role, str, Path]]:
    """The members already in `root` (a folder with a certificate), scheduler first."""
    found = [(Role.SCHEDULER, SCHEDULER_DIR, root / SCHEDULER_DIR)]
    for role, sub in ((Role.WORKER, MACHINES_DIR), (Role.CLIENT, CLIENTS_DIR)):
        if (root / sub).is_dir():
            found += [(role, f.name, f) for f in sorted((root / sub).iterdir()) if f.is_dir()]
    return [m for m in found if (m[2] / CERT).exists()]


def _signed_by(cert_path: Path, ca: Authority) -> bool:
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    try:  # ValueError: another issuer's name; TypeError: a key of a kind the authority's is not
        x509.load_pem_x509_certificate(cert_path.read_bytes()).verify_directly_issued_by(ca.cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def _member(ca: Authority, role: Role, name: str, folder: Path, password_line: str | None, days: int,
            reissue: bool) -> Member:
    """A member's folder: kept when it is complete (its certificate is written last), else
    (or when re-issued) made afresh: the authority's certificate, a new key and its certificate."""
    if (folder / CERT).exists() and not reissue:
        return Member(role, name, folder, False)
    _folder(folder.parent)
    _folder(folder)
    key = _new_key()
    _write_private(folder / CA_CERT, ca.pem())
    _write_private(folder / KEY, _pem_key(key))
    if password_line is not None:
        _write_private(folder / PGPASS, password_line.encode())
    from cryptography.hazmat.primitives import serialization
    _write_private(folder / CERT, _certificate(name, key, ca, days).public_bytes(serialization.Encoding.PEM))
    return Member(role, name, folder, True)


def _store_password(folder: Path, store: StoreAddress, renew: bool) -> tuple[str, Path]:
    """The store role's password line, made once (or again, `renew`) and kept in `folder`;
    role.sql beside it. A folder made for another store is refused."""
    pgpass, sql = folder / PGPASS, folder / ROLE_SQL
    if pgpass.exists() and not renew:
        line = pgpass.read_text()
        fields, _ = parse_pgpass_line(line)
        if fields != [store.host, str(store.port), store.database, store.role]:
            raise UsageError(f"fleet init: {folder} holds the password for {':'.join(fields)} (host:port:database:"
                             f"role), not for {store}; give the same --db-host, --db-port, --db-name and "
                             "--db-role, or --rotate for a new password for this store")
        return line, sql
    password = secrets.token_urlsafe(24)
    line = pgpass_line(store, password)
    _write_private(sql, role_sql(store, scram_verifier(password, secrets.token_bytes(16))).encode())
    _write_private(pgpass, line.encode())
    return line, sql


def _names_in(cert_path: Path) -> list[str]:
    """The hosts a certificate's subjectAltName names, as written (addresses as text)."""
    from cryptography import x509
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [str(v) for v in san.get_values_for_type(x509.IPAddress)] + san.get_values_for_type(x509.DNSName)


def _store_server(folder: Path, ca: Authority, store: StoreAddress, alt_names: list[str], clients: str, days: int,
                  reissue: bool) -> StoreServer:
    """The store server's certificate and key in `folder`, with the authority's certificate
    (ssl_ca_file) and the settings (ssl.conf, pg_hba.lines) beside them: kept when the
    authority signed them for the same hosts, else made afresh."""
    hosts = list(dict.fromkeys([store.host, *alt_names]))
    cert = folder / SERVER_CERT
    keep = (not reissue and cert.exists() and (folder / SERVER_KEY).exists() and _signed_by(cert, ca)
            and sorted(_names_in(cert)) == sorted(str(_alt_name(h).value) for h in hosts))
    server = StoreServer(folder, hosts, clients, not keep)
    if not keep:
        from cryptography.hazmat.primitives import serialization
        key = _new_key()
        _write_private(folder / SERVER_KEY, _pem_key(key))
        _write_private(cert, _certificate(store.host, key, ca, days, hosts).public_bytes(serialization.Encoding.PEM))
    _write_private(folder / CA_CERT, ca.pem())
    _write_private(folder / SSL_CONF, "".join(f"{line}\n" for line in server.settings()).encode())
    _write_private(folder / HBA_LINES, "".join(f"{line}\n" for line in server.hba(store)).encode())
    return server


def _kept_authority(root: Path, present: list[tuple[Role, str, Path]], days: int) -> tuple[Authority, bool]:
    """The authority in root/ca, made when there is none and no member either; refused when
    any member there is another authority's (ca/ replaced or removed, a member copied in)."""
    folder = root / CA_DIR
    if present and not (folder / CA_CERT).exists() and not (folder / CA_KEY).exists():
        raise UsageError(f"fleet init: {root} holds members but no authority in {folder} (was it removed?); put it "
                         "back, or give --rotate to make a new one and re-issue every member")
    ca, made = _authority(_folder(folder), days)
    stale = [member for _, _, member in present if not _signed_by(member / CERT, ca)]
    if stale:
        raise UsageError(f"fleet init: {stale[0] / CERT} was signed by another authority than {folder}'s (was "
                         "ca/ replaced?); put the authority back, or give --rotate to make a new one and re-issue "
                         "every member")
    return ca, made


def _check_members(machines: list[str], clients: list[str]) -> None:
    for n in machines:
        names.check(NameKind.MACHINE, n, "fleet init: --machine")
    for n in clients:
        names.check(NameKind.MACHINE, n, "fleet init: --client")
    if len(set(machines)) != len(machines) or len(set(clients)) != len(clients):
        raise UsageError("fleet init: a machine or client is named twice")
    if not machines + clients:
        raise UsageError("fleet init: name the machines (--machine NAME) and clients (--client NAME)")


def _check_store_names(alt_names: list[str], db_clients: str) -> None:
    for n in alt_names:
        names.check(NameKind.HOST, n, "fleet init: --db-alt-name")
    if db_clients != "all":
        try:
            ipaddress.ip_network(db_clients)
        except ValueError:
            raise UsageError(f"fleet init: --db-clients {names.shown(db_clients)} is not a network (CIDR, e.g. "
                             "10.0.0.0/24, with no host bits set) nor 'all'") from None


def init_fleet(root: Path, machines: list[str], clients: list[str], store: StoreAddress,
               days: int = DEFAULT_DAYS, rotate: bool = False, alt_names: list[str] | None = None,
               db_clients: str = "all") -> FleetInit:
    """Make (or complete, or with `rotate` renew) a fleet's credentials under `root`: see
    the module's docstring. Every name is checked before anything is written."""
    try:
        import cryptography  # noqa: F401
    except ModuleNotFoundError:
        raise CipherbenchError("cipherbench fleet init needs the 'cryptography' package: "
                               "pip install -e '.[fleet]' (make deps installs it)") from None
    _check_members(machines, clients)
    _check_store_names(alt_names or [], db_clients)
    try:
        _folder(root)
        present = _present(root)
        line, sql = _store_password(_folder(root / POSTGRES_DIR), store, rotate)
        if rotate:
            ca, made = _new_authority(_folder(root / CA_DIR), days), True
        else:
            ca, made = _kept_authority(root, present, days)
        wanted = [(Role.SCHEDULER, SCHEDULER_DIR, root / SCHEDULER_DIR)]
        wanted += [(Role.WORKER, n, root / MACHINES_DIR / n) for n in machines]
        wanted += [(Role.CLIENT, n, root / CLIENTS_DIR / n) for n in clients]
        wanted += [m for m in present if m not in wanted]  # rotating re-issues every member there
        members = [_member(ca, role, name, folder, None if role is Role.SCHEDULER else line, days, rotate)
                   for role, name, folder in wanted]
        server = _store_server(root / POSTGRES_DIR, ca, store, alt_names or [], db_clients, days, rotate)
    except OSError as e:
        raise CipherbenchError(f"fleet init: cannot write {e.filename or root}: {e.strerror}") from None
    return FleetInit(root, made, members, store, sql, rotate, server)


def shell_word(word: str) -> str:
    """`word` as a POSIX shell reads it back unchanged (shlex.quote), but for a path in the
    home ("~/..." of shlex's safe characters), left bare so that the shell expands it."""
    return word if re.fullmatch(r"~/[\w@%+=:,./-]*", word) else shlex.quote(word)


def shell_line(*words: str) -> str:
    return " ".join(shell_word(w) for w in words)


def instructions(done: FleetInit, scheduler_hint: str = "SCHEDULER") -> list[str]:
    """What `fleet init` says: where each file is and how it gets to its machine. Every
    command line is shell-quoted; the names in them were checked where they entered
    (names.py: the members and the store by init_fleet, `scheduler_hint` by the command)."""
    r, s = done.root, done.store
    at = f"~/{MEMBER_HOME}"
    hint = f"[{scheduler_hint}]" if ":" in scheduler_hint else scheduler_hint
    lines = [f"fleet credentials in {r} (every file 0600, every folder 0700: readable by their owner only)",
             f"  {r / CA_DIR}/  the authority{'' if done.authority_made else ' (kept from before)'}: "
             f"its key {CA_KEY} stays here and is copied nowhere",
             f"  {done.role_sql}  the store's role {s.role!r} (its password only as a scram-sha-256 verifier); "
             f"the password files name {s.host}:{s.port}/{s.database} and no other store"]
    for m in done.members:
        what = m.role.value if m.name == m.role.value else f"{m.role.value} {m.name}"
        lines.append(f"  {m.folder}/  {what}" + ("" if m.made else " (kept from before)"))
    if done.rotated:
        lines.append("Rotated: a new authority, a new password and every member re-issued; the old folders no "
                     "longer get in. Copy every member again, run role.sql on the store's server again, and give it its new "
                     "certificate and key.")
    lines += ["Copy each member folder to its machine with its modes kept, as the user that runs cipherbench "
              "there, e.g.:",
              "  " + shell_line("scp", "-rp", str(r / SCHEDULER_DIR), f"{scheduler_hint}:{MEMBER_HOME}")]
    lines += ["  " + shell_line("scp", "-rp", str(m.folder), f"{m.name}:{MEMBER_HOME}")
              for m in done.members if m.role is not Role.SCHEDULER]
    lines += ["then, on each machine (or with $" + CREDENTIALS_ENV + " set to that folder):",
              "  " + shell_line("cipherbench", "fleet", "scheduler", "--host", "ADDRESS", "--credentials", at),
              "  " + shell_line("cipherbench", "fleet", "worker", f"tls://{hint}:8786", "--credentials", at),
              "  " + shell_line("cipherbench", "--db", s.url(), "fleet", "run", "--scheduler", f"tls://{hint}:8786",
                                "--credentials", at) + " ...",
              "and on the store's server, once: " + shell_line("psql", "-f", done.role_sql.name) + " (as a superuser)"]
    return lines + _server_instructions(done)


def _server_instructions(done: FleetInit) -> list[str]:
    """What the store's server needs: its certificate and key, and TLS with them."""
    v, s = done.server, done.store
    return [f"  {v.folder / SERVER_CERT}, {SERVER_KEY} and {CA_CERT}: the store server's certificate (for "
            f"{', '.join(v.hosts)}{'' if v.made else '; kept from before'}), its key and the authority's certificate;"
            " copy them into its data folder, owned by the user the server runs as (the key 0600), and set in "
            f"postgresql.conf ({v.folder / SSL_CONF} holds these lines):",
            *(f"    {line}" for line in v.settings()),
            f"  and in pg_hba.conf, with no 'host' or 'trust' line for the store's role ({v.folder / HBA_LINES}):",
            *(f"    {line}" for line in v.hba(s)),
            f"  Every member with --credentials reaches the store with sslmode=verify-full and sslrootcert={CA_CERT}: "
            f"the URL names the store as its certificate does ({', '.join(v.hosts)}); a URL asking less is refused."]
