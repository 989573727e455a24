"""Known-answer vectors: the project's own .vec files and the format they share with Botan's.

Format (docs/vectors.md): `# source: <document>` in the file header names where
the values come from; `[primitive]` starts a section named with a canonical
registry name; `Field = hex` lines form a record; a blank line ends it. Fields:
Key, IV (alias Nonce), AD, In, Out (AEAD: ciphertext || tag), Tag (appended to
Out when given separately).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cipherbench.paths import REPO

VECTOR_DIR = REPO / "vectors"

_ALIASES = {"key": "key", "iv": "iv", "nonce": "iv", "ad": "aad", "aad": "aad", "in": "input",
            "msg": "input", "input": "input", "out": "output", "output": "output",
            "digest": "output", "tag": "tag"}


@dataclass(frozen=True)
class KnownAnswer:
    primitive: str
    input: bytes
    output: bytes
    key: bytes = b""
    iv: bytes = b""
    aad: bytes = b""
    source: str = ""  # the document the values come from
    where: str = ""  # file:line of the record
    corpus: str = "cipherbench"
    # AEADs only: `output` is a forged ciphertext || tag that decryption must
    # reject (CAVP gcmDecrypt FAIL records, Wycheproof "invalid" cases); `input`
    # is then empty and no encryption is checked.
    expect_reject: bool = False


class VectorFileError(ValueError):
    pass


def parse_vec(path: Path, corpus: str = "cipherbench", name_map=None) -> list[KnownAnswer]:
    """Parse one .vec file. `name_map` turns section names into canonical
    names (for foreign corpora); a section mapping to None is skipped."""
    out: list[KnownAnswer] = []
    source, section, rec_line = "", None, 0
    rec: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()

    def flush():
        nonlocal rec
        if rec and section:
            if "input" not in rec or "output" not in rec:
                raise VectorFileError(f"{path}:{rec_line}: record without In or Out")
            outb = rec["output"] + rec.get("tag", b"")
            out.append(KnownAnswer(section, rec["input"], outb, rec.get("key", b""), rec.get("iv", b""),
                                   rec.get("aad", b""), source, f"{path.name}:{rec_line}", corpus))
        rec = {}

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if line.startswith("#"):
            if line.lower().startswith("# source:") and not source:
                source = line.split(":", 1)[1].strip()
            continue
        if not line:
            flush()
            continue
        if line.startswith("[") and line.endswith("]"):
            flush()
            name = line[1:-1].strip()
            section = name_map(name) if name_map else name
            continue
        if "=" not in line:
            raise VectorFileError(f"{path}:{n}: expected 'Field = hex', got {line[:40]!r}")
        field, value = (s.strip() for s in line.split("=", 1))
        key = _ALIASES.get(field.lower())
        if key is None:
            continue  # fields this harness does not use (Botan's Iterations, ...)
        if key in rec:
            flush()
        if not rec:
            rec_line = n
        try:
            rec[key] = bytes.fromhex(value)
        except ValueError:
            raise VectorFileError(f"{path}:{n}: {field} is not hex") from None
    flush()
    return out


def project_vectors() -> list[KnownAnswer]:
    """Every record in vectors/**/*.vec (the project's own files)."""
    kas = []
    for f in sorted(VECTOR_DIR.rglob("*.vec")):
        kas.extend(parse_vec(f))
    return kas
