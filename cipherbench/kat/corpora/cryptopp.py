"""Corpus "cryptopp": Crypto++'s TestVectors/*.txt as Debian's libcrypto++-utils installs them
(the file format, the tests used and skipped: docs/vectors.md, "cryptopp")."""
from __future__ import annotations

import os
import re
from pathlib import Path

from cipherbench.kat.collect import Collector, CorpusMissing
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import load as load_registry

CORPUS = "cryptopp"
DEFAULT_DIR = Path("/usr/share/crypto++/TestVectors")

# Crypto++ cipher name -> registry cipher id (key size comes from the key length).
_BLOCK = {"AES": "aes", "ARIA": "aria", "Camellia": "camellia", "SEED": "seed", "SM4": "sm4",
          "SKIPJACK": "skipjack", "MARS": "mars", "TEA": "tea", "XTEA": "xtea",
          "Threefish-256(256)": "threefish256", "Threefish-512(512)": "threefish512",
          "Threefish-1024(1024)": "threefish1024"}
_MODES = {"ECB": "ecb", "CBC": "cbc", "CFB": "cfb", "OFB": "ofb", "CTR": "ctr", "XTS": "xts",
          "GCM": "gcm", "CCM": "ccm", "EAX": "eax", "OCB": "ocb"}
# XChaCha20 is not mapped: its vectors (draft-arciszewski-xchacha A.2) start the block
# counter at 1, the registry's xchacha20 at 0 (libsodium's output for the same key and
# nonce is the file's ciphertext shifted by one 64-byte block).
_STREAMS = {"ChaChaTLS": "chacha20", "Salsa20": "salsa20", "XSalsa20": "xsalsa20"}
_AEADS = {"ChaCha20/Poly1305": "chacha20-poly1305", "XChaCha20/Poly1305": "xchacha20-poly1305"}
_HASHES = {"SHA-1": "sha-1", "SHA-224": "sha-224", "SHA-256": "sha-256", "SHA-384": "sha-384",
           "SHA-512": "sha-512", "SHA3-224": "sha3-224", "SHA3-256": "sha3-256", "SHA3-384": "sha3-384",
           "SHA3-512": "sha3-512", "Whirlpool": "whirlpool", "SM3": "sm3",
           # Crypto++'s Keccak-n is the round-3 Keccak with 0x01 padding, the registry's keccak-n
           "Keccak-224": "keccak-224", "Keccak-256": "keccak-256", "Keccak-384": "keccak-384",
           "Keccak-512": "keccak-512"}
# Crypto++'s TEA/XTEA `Rounds` counts cycles (DEFAULT_ROUNDS = 32, the full cipher).
_FULL_ROUNDS = {"tea": "32", "xtea": "32", "chacha20": "20", "xchacha20": "20", "salsa20": "20",
                "xsalsa20": "20"}


class Unsupported(ValueError):
    pass


#: Crypto++ test-vector files whose records are digests (their AlgorithmType).
HASH_FILE_KINDS = ("hash", "xof", "blake2")

def decode(value: str) -> bytes:
    """Crypto++'s encoded-string grammar (TestVectors/Readme.txt; docs/vectors.md, "cryptopp")."""
    v = value.strip()
    m = re.match(r"^word(32|64)\b(.*)$", v, re.S)
    if m:
        size = int(m.group(1)) // 8
        words = m.group(2).split()
        try:
            return b"".join(int(w, 16).to_bytes(size, "little") for w in words)
        except (ValueError, OverflowError):
            raise Unsupported(value) from None
    # Tokens are decoded one by one and concatenated (a hex token needs whole bytes);
    # `r<n>` repeats the token after it.
    out = b""
    pos = 0
    while pos < len(v):
        if v[pos].isspace():
            pos += 1
            continue
        rep = 1
        m = re.match(r"r(\d+)\s+", v[pos:])
        if m:
            rep = int(m.group(1))
            pos += m.end()
        if pos < len(v) and v[pos] == '"':
            end = v.find('"', pos + 1)
            if end < 0:
                raise Unsupported(value)
            tok = v[pos + 1:end].encode()
            pos = end + 1
        else:
            m = re.match(r"(?:0x)?([0-9A-Fa-f]*)(?=\s|$)", v[pos:])
            if not m or len(m.group(1)) % 2:
                raise Unsupported(value)
            tok = bytes.fromhex(m.group(1))
            pos += m.end()
        out += tok * rep
    return out


def parse_sections(path: Path):
    """Yields (fields-in-force at each Test, test name, line) per test, section by section."""
    fields: dict[str, str] = {}
    cur_name, cur_val, cont = None, "", False

    def finish_field():
        nonlocal cur_name, cur_val
        if cur_name is not None:
            fields[cur_name] = cur_val.strip()
        cur_name, cur_val = None, ""

    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if cont:
            more = line.rstrip("\\")
            cur_val += " " + more.strip()
            cont = line.endswith("\\")
            if not cont:
                finish_field()
            continue
        if not line.strip():
            if not raw.strip():  # a truly blank line ends the section
                finish_field()
                fields = {}
            continue
        m = re.match(r"^\s*([A-Za-z0-9]+)\s*:(.*)$", line)
        if not m:
            continue
        finish_field()
        name, val = m.group(1), m.group(2)
        cont = val.endswith("\\")
        cur_name, cur_val = name, val.rstrip("\\")
        if name == "Test":
            finish_field()
            yield dict(fields), fields["Test"], n
            continue
        if not cont:
            finish_field()


def vectors_dir() -> Path:
    d = Path(os.environ.get("CIPHERBENCH_CRYPTOPP_VECTORS", DEFAULT_DIR))
    if not d.is_dir():
        raise CorpusMissing(f"{d} not found: Crypto++ test vectors come with the Debian package "
                            "libcrypto++-utils")
    return d


def _map(name: str, fields: dict, reg) -> tuple[str | None, str]:
    """(canonical primitive or None, kind) for a Crypto++ Name plus the fields in force."""
    key_len = None
    if "Key" in fields:
        key_len = len(decode(fields["Key"]))
    if name in _HASHES:
        return _HASHES[name], "hash"
    if name in ("SHAKE-128", "SHAKE-256"):
        return ("shake128" if name == "SHAKE-128" else "shake256"), "xof"
    if name in ("BLAKE2b", "BLAKE2s"):
        return name.lower(), "blake2"
    if name == "Salsa20" and fields.get("Rounds", "").strip() == "12":
        return "salsa20r12", "stream"  # eSTREAM's reduced/12-rounds verified vectors
    if name in _STREAMS:
        return _STREAMS[name], "stream"
    if name in _AEADS:
        return _AEADS[name], "aead"
    if "/" in name:
        cipher, mode = name.rsplit("/", 1)
        if cipher in _BLOCK and mode in _MODES and key_len:
            mode_id = _MODES[mode]
            if mode_id == "cfb":
                fb = fields.get("FeedbackSize")
                if fb is not None:
                    fb_bytes = len(decode(fb)) if not fb.strip().isdigit() else int(fb)
                    if fb_bytes == 1:
                        mode_id = "cfb8"
                    elif fb_bytes != reg_block(reg, _BLOCK[cipher]):
                        return None, ""
            bits = 8 * key_len // (2 if mode_id == "xts" else 1)
            cid = _BLOCK[cipher]
            if cid == "skipjack":
                bits = 80
            return f"{cid}-{bits}-{mode_id}", "cipher"
    return None, ""


def reg_block(reg, cid: str) -> int:
    for p in reg:
        if p.family == cid and p.block_bytes:
            return p.block_bytes
    return 0


def load(wanted: set[str]) -> list[KnownAnswer]:
    d = vectors_dir()
    reg = load_registry()
    c = Collector(CORPUS, wanted)
    for f in sorted(d.glob("*.txt")):
        if f.name in ("Readme.txt", "all.txt"):
            continue
        for fields, test, line in parse_sections(f):
            try:
                _one(c, reg, f, fields, test.strip(), line)
            except Unsupported:
                continue  # a value this loader does not understand: skipped, not guessed
    return c.result()


def _one(c: Collector, reg, f: Path, fields: dict, test: str, line: int):
    if fields.get("AlgorithmType") not in ("SymmetricCipher", "AuthenticatedSymmetricCipher", "MessageDigest"):
        return
    name = fields.get("Name", "").strip()
    prim, kind = _map(name, fields, reg)
    if not prim or prim not in c.wanted and kind not in ("blake2",):
        return
    for unsupported in ("TruncatedSize", "Footer", "BlockPaddingScheme"):
        if fields.get(unsupported, "").strip():
            return
    for zero_only in ("Seek", "Seek64", "InitialBlock"):
        if fields.get(zero_only, "0").strip() not in ("0", ""):
            return
    if fields.get("Tweak") and any(decode(fields["Tweak"])):
        return
    src = f"{fields.get('Source', 'Crypto++ test vectors').strip()} (Crypto++ TestVectors/{f.name})"
    where = f"{f.name}:{line}"
    if kind in HASH_FILE_KINDS:
        if test != "Verify" or "Message" not in fields or "Digest" not in fields:
            return
        if fields.get("Key", "").strip() and decode(fields["Key"]):
            return  # keyed BLAKE2 is a MAC here
        msg, dig = decode(fields["Message"]), decode(fields["Digest"])
        if kind == "blake2":
            prim = f"{prim}-{8 * len(dig)}"  # BLAKE2's digest length is a parameter, not a truncation
            if prim not in c.wanted:
                return
        p = reg.get(prim)
        if kind == "xof":
            if len(dig) < p.digest_bytes:
                return
            dig = dig[: p.digest_bytes]  # FIPS 202 6.2: SHAKE(M, d) is a prefix of any longer output
        if len(dig) != p.digest_bytes:
            return
        c.add(prim, f.name, input=msg, output=dig, source=src, where=where)
        return
    p = reg.get(prim)
    if p is None:
        return
    rounds = fields.get("Rounds", "").strip()
    if rounds and rounds != _FULL_ROUNDS.get(p.family, str(p.rounds)):
        return
    key = decode(fields.get("Key", ""))
    iv = decode(fields.get("IV", ""))
    pt = decode(fields.get("Plaintext", ""))
    ct = decode(fields.get("Ciphertext", ""))
    if len(key) != p.key_bytes or len(iv) != p.iv_bytes:
        return
    if p.kind == PrimitiveKind.AEAD:
        out = ct + decode(fields.get("MAC", ""))
        if test == "NotVerify":
            if len(out) < p.tag_bytes:
                return
            c.add(prim, f.name + " NotVerify", input=b"", output=out, key=key, iv=iv,
                  aad=decode(fields.get("Header", "")), expect_reject=True, source=src, where=where)
            return
        if test not in ("Encrypt", "DecryptMatch") or len(out) != len(pt) + p.tag_bytes:
            return
        c.add(prim, f.name, input=pt, output=out, key=key, iv=iv, aad=decode(fields.get("Header", "")),
              source=src, where=where)
        return
    if test not in ("Encrypt", "DecryptMatch") or len(pt) != len(ct):
        return
    if p.whole_blocks and len(pt) % p.block_bytes:
        return
    if p.mode == "xts" and key[: len(key) // 2] == key[len(key) // 2:]:
        return  # XTS with equal halves: refused by conforming libraries (IEEE 1619 5.1)
    c.add(prim, f.name, input=pt, output=ct, key=key, iv=iv, source=src, where=where)
