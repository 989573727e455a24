"""A fleet's credentials (where each process may listen: exposure.py).

A Dask scheduler runs whatever function a client sends it, on every worker: whoever
reaches its port runs code on every machine of the fleet. So the fleet speaks mutual
TLS (Dask's `distributed.security.Security`: its context requires the peer's
certificate, signed by the one authority given, both ways) with certificates from an
authority of its own, and its store needs a password (PostgreSQL's scram-sha-256).

`fleet init DIR` (init_fleet) writes, every file 0600 and every folder 0700:

    DIR/ca/ca.pem, ca-key.pem           the authority; its key stays where it was made
    DIR/scheduler/                      the scheduler's machine
    DIR/machines/NAME/                  each measuring machine
    DIR/clients/NAME/                   each machine that runs `fleet run`
        ca.pem cert.pem key.pem         the authority's certificate, this member's own pair
        pgpass                          (machines and clients) the store role's password, a
                                        PostgreSQL password file (libpq's PGPASSFILE)
    DIR/postgres/role.sql, pgpass       the role with its scram-sha-256 verifier, for the server

Each member folder is what `--credentials` takes on that machine. Running init again
on the same DIR keeps the authority and the password and adds the members not made yet.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from cipherbench.errors import CipherbenchError, UsageError

if TYPE_CHECKING:  # cryptography is the fleet extra's, imported where credentials are made
    from cryptography.hazmat.primitives.asymmetric.ec import EllipticCurvePrivateKey
    from cryptography.x509 import Certificate

#: Environment variable naming a member folder, for `--credentials`.
CREDENTIALS_ENV = "CIPHERBENCH_FLEET_CREDENTIALS"
CA_DIR, SCHEDULER_DIR, MACHINES_DIR, CLIENTS_DIR, POSTGRES_DIR = "ca", "scheduler", "machines", "clients", "postgres"
CA_CERT, CA_KEY, CERT, KEY, PGPASS, ROLE_SQL = "ca.pem", "ca-key.pem", "cert.pem", "key.pem", "pgpass", "role.sql"
DEFAULT_DAYS = 825
DEFAULT_ROLE = "cipherbench"
#: PostgreSQL's default scram_iterations (postgresql.conf, "scram_iterations", 4096).
SCRAM_ITERATIONS = 4096



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

    def use_store_password(self) -> None:
        """Let libpq find the store role's password in this member's password file, unless
        the environment already names one. Processes started afterwards inherit it."""
        if self.pgpass.is_file():
            os.environ.setdefault("PGPASSFILE", str(self.pgpass))


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


def pgpass_line(role: str, password: str) -> str:
    """A password file's line for the role on any host, port and database (libpq, "The
    Password File": hostname:port:database:username:password, with : and \\ escaped)."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace(":", "\\:")
    return f"*:*:*:{esc(role)}:{esc(password)}\n"


def role_sql(role: str, verifier: str) -> str:
    ident = '"' + role.replace('"', '""') + '"'
    return ("-- Run once as a superuser on the store's server (psql -f role.sql); then pg_hba.conf lines\n"
            f"-- 'host <database> {role} <network> scram-sha-256', and no 'trust' line for that network.\n"
            f"DO $$ BEGIN CREATE ROLE {ident} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;\n"
            f"ALTER ROLE {ident} LOGIN PASSWORD '{verifier}';\n")


# ---------------------------------------------------------------------------- making credentials
def _write_private(path: Path, data: bytes) -> None:
    """A new file, 0600 from its creation (never readable by others, even for a moment)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


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


def _certificate(subject: str, key: EllipticCurvePrivateKey, issuer: Authority | None, days: int) -> Certificate:
    """An X.509 certificate for `key`: the authority's own (self-signed, CA) when `issuer`
    is None, else a member's, signed by it, good for TLS servers and clients alike (a
    worker both serves and connects)."""
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
             .add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False)
             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()),
                            critical=False))
    return b.sign(issuer.key if issuer else key, hashes.SHA256())


def _new_key() -> EllipticCurvePrivateKey:
    from cryptography.hazmat.primitives.asymmetric import ec
    return ec.generate_private_key(ec.SECP256R1())


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
                               "give another folder")
    key = _new_key()
    ca = Authority(_certificate("cipherbench fleet authority", key, None, days), key)
    _write_private(key_path, _pem_key(key))
    _write_private(cert_path, ca.pem())
    return ca, True


def _check_name(name: str) -> str:
    if not name or name.startswith(".") or "/" in name or not name.isprintable():
        raise UsageError(f"fleet init: {name!r} is not a machine or client name")
    return name


@dataclass(frozen=True)
class Member:
    role: Role
    name: str
    folder: Path
    made: bool  # False: it was there already and is left as it was


@dataclass(frozen=True)
class FleetInit:
    root: Path
    authority_made: bool
    members: list[Member]
    role: str  # the store's PostgreSQL role
    role_sql: Path


def _member(ca: Authority, role: Role, name: str, folder: Path, password_line: str | None, days: int) -> Member:
    if (folder / CERT).exists():
        return Member(role, name, folder, False)
    _folder(folder.parent)
    _folder(folder)
    key = _new_key()
    for stale in (CA_CERT, KEY, PGPASS):  # a member cut short: made afresh
        (folder / stale).unlink(missing_ok=True)
    _write_private(folder / CA_CERT, ca.pem())
    _write_private(folder / KEY, _pem_key(key))
    if password_line is not None:
        _write_private(folder / PGPASS, password_line.encode())
    from cryptography.hazmat.primitives import serialization
    _write_private(folder / CERT, _certificate(name, key, ca, days).public_bytes(serialization.Encoding.PEM))
    return Member(role, name, folder, True)


def _store_password(folder: Path, role: str) -> tuple[str, Path]:
    """The store role's password line, made once and kept in `folder`; role.sql beside it."""
    pgpass, sql = folder / PGPASS, folder / ROLE_SQL
    if pgpass.exists():
        line = pgpass.read_text()
        if line.split(":")[3] != role:
            raise UsageError(f"fleet init: {folder} was made for the role {line.split(':')[3]!r}, not {role!r}")
        return line, sql
    password = secrets.token_urlsafe(24)
    line = pgpass_line(role, password)
    sql.unlink(missing_ok=True)
    _write_private(sql, role_sql(role, scram_verifier(password, secrets.token_bytes(16))).encode())
    _write_private(pgpass, line.encode())
    return line, sql


def init_fleet(root: Path, machines: list[str], clients: list[str], role: str = DEFAULT_ROLE,
               days: int = DEFAULT_DAYS) -> FleetInit:
    """Make (or complete) a fleet's credentials under `root`: see the module's docstring."""
    try:
        import cryptography  # noqa: F401
    except ModuleNotFoundError:
        raise CipherbenchError("cipherbench fleet init needs the 'cryptography' package: "
                               "pip install -e '.[fleet]' (make deps installs it)") from None
    names = [_check_name(n) for n in machines + clients]
    if len(set(machines)) != len(machines) or len(set(clients)) != len(clients):
        raise UsageError("fleet init: a machine or client is named twice")
    if not names:
        raise UsageError("fleet init: name the machines (--machine NAME) and clients (--client NAME)")
    try:
        _folder(root)
        ca, made = _authority(_folder(root / CA_DIR), days)
        line, sql = _store_password(_folder(root / POSTGRES_DIR), role)
        members = [_member(ca, Role.SCHEDULER, SCHEDULER_DIR, root / SCHEDULER_DIR, None, days)]
        members += [_member(ca, Role.WORKER, n, root / MACHINES_DIR / n, line, days) for n in machines]
        members += [_member(ca, Role.CLIENT, n, root / CLIENTS_DIR / n, line, days) for n in clients]
    except OSError as e:
        raise CipherbenchError(f"fleet init: cannot write {e.filename or root}: {e.strerror}") from None
    return FleetInit(root, made, members, role, sql)


def instructions(done: FleetInit, scheduler_hint: str = "SCHEDULER") -> list[str]:
    """What `fleet init` says: where each file is and how it gets to its machine."""
    r = done.root
    lines = [f"fleet credentials in {r} (every file 0600, every folder 0700: readable by their owner only)",
             f"  {r / CA_DIR}/  the authority{'' if done.authority_made else ' (kept from before)'}: "
             f"its key {CA_KEY} stays here and is copied nowhere",
             f"  {done.role_sql}  the store's role {done.role!r} (its password only as a scram-sha-256 verifier)"]
    for m in done.members:
        what = m.role.value if m.name == m.role.value else f"{m.role.value} {m.name}"
        lines.append(f"  {m.folder}/  {what}" + ("" if m.made else " (kept from before)"))
    lines += ["Copy each member folder to its machine with its modes kept, as the user that runs cipherbench "
              "there, e.g.:",
              f"  scp -rp {r / SCHEDULER_DIR} {scheduler_hint}:.config/cipherbench-fleet"]
    for m in done.members:
        if m.role is not Role.SCHEDULER:
            lines.append(f"  scp -rp {m.folder} {m.name}:.config/cipherbench-fleet")
    lines += ["then, on each machine (or with $" + CREDENTIALS_ENV + " set to that folder):",
              "  cipherbench fleet scheduler --host ADDRESS --credentials ~/.config/cipherbench-fleet",
              f"  cipherbench fleet worker tls://{scheduler_hint}:8786 --credentials ~/.config/cipherbench-fleet",
              f"  cipherbench --db postgresql://{done.role}@DBHOST/cipherbench fleet run --scheduler "
              f"tls://{scheduler_hint}:8786 --credentials ~/.config/cipherbench-fleet ...",
              f"and on the store's server, once: psql -f {done.role_sql.name} (as a superuser), with "
              f"'host cipherbench {done.role} NETWORK scram-sha-256' in pg_hba.conf and no 'trust' line."]
    return lines
