"""Corpus "shared": the vector files kept next to the repository (shared/vectors), read in
place (where, the formats and mappings: docs/vectors.md, "shared")."""
from __future__ import annotations

import os
import re
from pathlib import Path

from cipherbench.kat.collect import Collector, CorpusMissing
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.paths import REPO
from cipherbench.registry import load as load_registry

CORPUS = "shared"


def shared_dir() -> Path:
    env = os.environ.get("CIPHERBENCH_SHARED_VECTORS")
    if env:
        d = Path(env)
        if not d.is_dir():
            raise CorpusMissing(f"{d} (CIPHERBENCH_SHARED_VECTORS) is not a directory")
        return d
    for above in REPO.parents:
        if (above / "shared" / "vectors").is_dir():
            return above / "shared" / "vectors"
    raise CorpusMissing(f"no shared/vectors beside {REPO} or any folder above it "
                        "(set CIPHERBENCH_SHARED_VECTORS to the shared vector directory)")


def _hex(s: str) -> bytes:
    return bytes.fromhex(re.sub(r"\s+", "", s))


class _Ctx:
    def __init__(self, root: Path, c: Collector, reg):
        self.root, self.c, self.reg = root, c, reg

    def add_block(self, cid: str, f: Path, key: bytes, pt: bytes, ct: bytes, line: int, doc: str,
                  mode="ecb", iv=b"", bits=None):
        """An ECB (or other mode) vector for cipher id `cid`, key size from the key unless given."""
        prim = f"{cid}-{bits or 8 * len(key)}-{mode}"
        p = self.reg.get(prim)
        if p is None or prim not in self.c.wanted:
            return
        if len(key) != p.key_bytes or len(iv) != p.iv_bytes or len(pt) != len(ct):
            return
        if p.whole_blocks and len(pt) % p.block_bytes:
            return
        rel = f.relative_to(self.root)
        self.c.add(prim, str(rel), key=key, iv=iv, input=pt, output=ct,
                   source=f"{doc} (shared/vectors/{rel})", where=f"{f.name}:{line}")


# ---------------------------------------------------------------------------- Botan .vec
_BOTAN_CIPHERS = {"AES-128": "aes", "AES-192": "aes", "AES-256": "aes", "ARIA-128": "aria", "ARIA-192": "aria",
                  "ARIA-256": "aria", "ARIA": "aria", "Camellia-128": "camellia", "Camellia-192": "camellia",
                  "Camellia-256": "camellia", "Blowfish": "blowfish", "CAST-128": "cast5", "DES": "des",
                  "TripleDES": "3des", "GOST-28147-89(R3411_94_TestParam)": "gost", "IDEA": "idea",
                  "Noekeon": "noekeon", "SEED": "seed", "SM4": "sm4", "Serpent": "serpent", "Twofish": "twofish",
                  "CAST-256": "cast256", "MARS": "mars", "RC2": "rc2", "RC5(12)": "rc5", "RC6": "rc6",
                  "Skipjack": "skipjack", "Square": "square", "TEA": "tea", "XTEA": "xtea"}
_BOTAN_HASHES = {"MD5": "md5", "SHA-1": "sha-1", "SHA-224": "sha-224", "SHA-256": "sha-256", "SHA-384": "sha-384",
                 "SHA-512": "sha-512", "SHA-512-256": "sha-512-256", "SHA-3(224)": "sha3-224",
                 "SHA-3(256)": "sha3-256", "SHA-3(384)": "sha3-384", "SHA-3(512)": "sha3-512",
                 "BLAKE2b(512)": "blake2b-512", "BLAKE2b(256)": "blake2b-256", "BLAKE2s(256)": "blake2s-256"}


def _botan_section(name: str) -> tuple[str | None, str | None]:
    """(cipher id or hash name, mode) for a Botan section name; (None, None) if it does not map."""
    if name in _BOTAN_HASHES:
        return _BOTAN_HASHES[name], PrimitiveKind.HASH  # a hash section, in place of a mode
    m = re.fullmatch(r"CTR-BE\((.+)\)", name)
    if m:
        return (_BOTAN_CIPHERS.get(m.group(1)), "ctr") if "," not in m.group(1) else (None, None)
    m = re.fullmatch(r"OFB\((.+)\)", name)
    if m:
        return _BOTAN_CIPHERS.get(m.group(1)), "ofb"
    parts = name.split("/")
    cid = _BOTAN_CIPHERS.get(parts[0])
    if cid is None:
        return None, None
    if len(parts) == 1:
        return cid, "ecb"
    mode = parts[1]
    if mode == "CBC" and parts[2:] == ["NoPadding"]:
        return cid, "cbc"
    if mode == "CFB" and len(parts) == 2:
        return cid, "cfb"
    if mode == "CFB(8)" and len(parts) == 2:
        return cid, "cfb8"
    if mode in ("XTS", "GCM") and len(parts) == 2:
        return cid, mode.lower()
    return None, None


def _botan_records(path: Path):
    """(section, {field: value}, line) for every record of a Botan .vec file."""
    section, rec, rec_line = None, {}, 0
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line or (line.startswith("[") and line.endswith("]")):
            if rec and section:
                yield section, rec, rec_line
            rec = {}
            if line:
                section = line[1:-1]
            continue
        if "=" not in line:
            continue
        k, v = (s.strip() for s in line.split("=", 1))
        if k in rec:
            yield section, rec, rec_line
            rec = {}
        if not rec:
            rec_line = n
        rec[k] = v
    if rec and section:
        yield section, rec, rec_line


def _botan(x: _Ctx):
    for f in sorted((x.root / "botan").rglob("*.vec")):
        doc = f"Botan test data {f.parent.name}/{f.name}"
        for section, rec, line in _botan_records(f):
            cid, mode = _botan_section(section)
            if cid is None:
                continue
            try:
                vals = {k: _hex(v) for k, v in rec.items() if k in ("Key", "In", "Out", "Nonce", "AD")}
            except ValueError:
                continue
            if any(int(rec.get(k, "0") or 0) for k in ("Seek",)):
                continue
            if mode == PrimitiveKind.HASH:
                p = x.reg.get(cid)
                if p and cid in x.c.wanted and len(vals.get("Out", b"")) == p.digest_bytes:
                    rel = f.relative_to(x.root)
                    x.c.add(cid, str(rel), input=vals.get("In", b""), output=vals["Out"],
                            source=f"{doc} (shared/vectors/{rel})", where=f"{f.name}:{line}")
                continue
            key, iv = vals.get("Key", b""), vals.get("Nonce", b"")
            pt, out = vals.get("In", b""), vals.get("Out", b"")
            if mode == "gcm":
                prim = f"{cid}-{8 * len(key)}-gcm"
                p = x.reg.get(prim)
                if (p is None or prim not in x.c.wanted or len(iv) != p.iv_bytes or len(key) != p.key_bytes
                        or len(out) != len(pt) + p.tag_bytes):
                    continue
                rel = f.relative_to(x.root)
                x.c.add(prim, str(rel), key=key, iv=iv, aad=vals.get("AD", b""), input=pt, output=out,
                        source=f"{doc} (shared/vectors/{rel})", where=f"{f.name}:{line}")
                continue
            bits = None
            if cid == "3des":
                if len(key) == 16:
                    bits = 112
                    if key[:8] == key[8:]:
                        continue
                elif len(key) == 24:
                    bits = 168
                    k1, k2, k3 = key[:8], key[8:16], key[16:]
                    if k1 == k2 or k2 == k3 or k1 == k3:
                        continue  # degenerate or two-key: libraries may refuse it as three-key
                else:
                    continue
            elif cid == "des":
                bits = 56
            elif cid == "skipjack":
                bits = 80
            elif mode == "xts":
                bits = 4 * len(key)
                if key[: len(key) // 2] == key[len(key) // 2:]:
                    continue
            x.add_block(cid, f, key, pt, out, line, doc, mode=mode, iv=iv, bits=bits)


# ---------------------------------------------------------------------------- AES submission format
def aes_submission_records(path: Path):
    """(key, pt, ct, line) triples of an AES round-1 submission KAT file (also RFC 2612's layout)."""
    shared: dict = {}
    cur: dict | None = None
    emitted_in_group = False
    out = []

    def flush_cur():
        nonlocal cur, emitted_in_group
        if cur is not None:
            merged = {**shared, **cur}
            if {"KEY", "PT", "CT"} <= merged.keys():
                out.append((merged["KEY"], merged["PT"], merged["CT"], cur.get("_line", 0)))
                emitted_in_group = True
        cur = None

    def end_group():
        nonlocal shared, emitted_in_group
        flush_cur()
        if not emitted_in_group and {"KEY", "PT", "CT"} <= shared.keys():
            out.append((shared["KEY"], shared["PT"], shared["CT"], shared.get("_line", 0)))
        shared, emitted_in_group = {}, False

    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = raw.strip()
        if line.startswith("====="):
            end_group()
            continue
        m = re.fullmatch(r"(KEYSIZE|I|KEY|PT|CT)\s*=\s*([0-9A-Fa-f]*)", line)
        if not m:
            continue
        field, val = m.group(1), m.group(2)
        if field == "KEYSIZE":
            end_group()
            continue
        if field == "I":
            flush_cur()
            cur = {"_line": n}
            continue
        target = cur if cur is not None else shared
        if field not in target and field == "KEY" and "_line" not in target:
            target["_line"] = n
        if target is shared and field in ("PT", "CT") and field in shared and "KEY" in shared and cur is None \
                and {"KEY", "PT", "CT"} <= shared.keys():
            # ecb_iv/ecb_int: the decryption half repeats CT/PT of the same vector; keep the first.
            continue
        target[field] = val
    end_group()
    return [(_hex(k), _hex(p), _hex(c), ln) for k, p, c, ln in out]


_SUBMISSIONS = {"aes-submission-rijndael": ("aes", "Rijndael AES submission test values"),
                "aes-submission-serpent": ("tnepres", "Serpent AES submission KAT files (submission byte order)"),
                "aes-submission-magenta": ("magenta", "MAGENTA AES submission test values (magenta-vals.zip)"),
                "aes-submission-hpc": ("hpc1998", "Hasty Pudding Cipher AES submission KATs (1998 key schedule)")}


def _submissions(x: _Ctx):
    for folder, (cid, doc) in _SUBMISSIONS.items():
        for f in sorted((x.root / folder).glob("ecb_*.txt")):
            for key, pt, ct, line in aes_submission_records(f):
                x.add_block(cid, f, key, pt, ct, line, f"{doc}, {f.name}")


# ---------------------------------------------------------------------------- Jither's .vectors
_JITHER = {"cast-256": "cast256", "crypton": "crypton", "deal": "deal", "dfc": "dfc", "e2": "e2", "frog": "frog",
           "loki97": "loki97", "magenta": "magenta", "mars": "mars", "rc6": "rc6", "serpent": "serpent",
           "twofish": "twofish"}


def _jither_cipher(base: str, opts: dict) -> str | None:
    variant = opts.get("variant")
    if base == "mars":
        return {"original": "mars1998", "tweak": "mars"}.get(variant or "")
    if base == "serpent":
        return {None: "serpent", "tnepres": "tnepres"}.get(variant)
    if base == "dfc":
        return "dfc" if variant == "v1" else None
    if base == "crypton":
        return "crypton05" if variant == "0.5" else None
    if base == "rc6":
        return "rc6" if opts.get("rounds", "20") == "20" and opts.get("blockSize", "128") == "128" else None
    return _JITHER[base] if variant is None else None


_JITHER_IDS = {"mars": ("mars", "mars1998"), "serpent": ("serpent", "tnepres"), "crypton": ("crypton05",)}


def _jither(x: _Ctx):
    for f in sorted((x.root / "jither-cryptopunk").glob("*.vectors")):
        base = f.stem
        if base not in _JITHER:
            continue
        ids = _JITHER_IDS.get(base, (_JITHER[base],))
        if not any(w.startswith(i + "-") for w in x.c.wanted for i in ids):
            continue  # nothing asked of this file: not parsed
        opts: dict = {}
        origin = ""
        rec: dict = {}
        rec_line = 0

        def flush():
            nonlocal rec
            if {"k", "p", "c"} <= rec.keys():
                cid = _jither_cipher(base, opts)
                if cid:
                    try:
                        k, p, c = (_hex(rec[i]) for i in "kpc")
                    except ValueError:
                        k = None
                    if k is not None:
                        # frog.vectors is written byte-reversed relative to NIST's frog-vals.zip, whose
                        # order the reference frog reproduces (key 0, plaintext 80 00.. -> 43af8869..7082)
                        if base == "frog":
                            k, p, c = k[::-1], p[::-1], c[::-1]
                        doc = f"{origin or base}, as transcribed in Jither/cryptopunk {f.name}"
                        x.add_block(cid, f, k, p, c, rec_line, doc)
            rec = {}

        for n, raw in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            line = raw.strip()
            if line.startswith("#"):
                m = re.match(r"#\s*From:\s*(.+)", line)
                if m:
                    origin = m.group(1).strip()
                continue
            if not line:
                flush()
                continue
            m = re.match(r"^option\s*:\s*(\w+)\s*=\s*(\S+)", line)
            if m:
                flush()
                opts[m.group(1)] = m.group(2)
                continue
            m = re.match(r"^([kpc])\s*:\s*(.*)$", line)
            if m:
                if m.group(1) in rec:
                    flush()
                if not rec:
                    rec_line = n
                rec[m.group(1)] = m.group(2)
                continue
            flush()  # title, mode, formats: headers between blocks
        flush()


# ---------------------------------------------------------------------------- NESSIE (das-labor copies)
_NESSIE = {"Noekeon-Direct": "noekeondirect", "Khazad Tweaked": "khazad"}


def nessie_records(path: Path):
    """(key, plain, cipher, line) of a NESSIE block-cipher test-vector file."""
    out, rec, last, rec_line = [], {}, None, 0
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = raw.strip()
        if re.match(r"^Set \d+, vector#\s*\d+:", line):
            if {"key", "plain", "cipher"} <= rec.keys():
                out.append((rec["key"], rec["plain"], rec["cipher"], rec_line))
            rec, last, rec_line = {}, None, n
            continue
        m = re.match(r"^([A-Za-z][A-Za-z0-9 ]*?)\s*=\s*([0-9A-Fa-f]+)$", line)
        if m:
            last = m.group(1)
            rec[last] = m.group(2)
            continue
        if last and re.fullmatch(r"[0-9A-Fa-f]+", line):
            rec[last] += line  # a long value wraps onto the next line
            continue
        last = None
    if {"key", "plain", "cipher"} <= rec.keys():
        out.append((rec["key"], rec["plain"], rec["cipher"], rec_line))
    return [(_hex(k), _hex(p), _hex(c), ln) for k, p, c, ln in out]


def _nessie(x: _Ctx):
    d = x.root / "nessie-daslabor"
    for f in sorted(d.glob("*")) if d.is_dir() else []:
        text_head = f.read_text(encoding="utf-8", errors="replace")[:2000]
        m = re.search(r"Primitive Name:\s*(.+)", text_head)
        if m and m.group(1).strip() in _NESSIE:
            cid = _NESSIE[m.group(1).strip()]
            for key, pt, ct, line in nessie_records(f):
                x.add_block(cid, f, key, pt, ct, line, f"NESSIE test vectors, {m.group(1).strip()} (das-labor copy)")
        elif f.name.startswith("CAST-256.rfc2612"):
            for key, pt, ct, line in aes_submission_records(f):
                x.add_block("cast256", f, key, pt, ct, line, "RFC 2612, appendix B")


# ---------------------------------------------------------------------------- transcriptions
def _transcribed(x: _Ctx):
    for name, cid in (("saferplus.transcribed.txt", "saferplus"), ("loki97.transcribed.txt", "loki97")):
        f = x.root / "transcribed" / name
        if not f.exists():
            continue
        low, source, rec, rec_line = False, "", {}, 0

        def flush():
            nonlocal rec
            if {"KEY", "PT", "CT"} <= rec.keys() and not low:
                x.add_block(cid, f, _hex(rec["KEY"]), _hex(rec["PT"]), _hex(rec["CT"]), rec_line,
                            f"{cid} values transcribed from code{': ' + source if source else ''}")
            rec = {}

        for n, raw in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            line = raw.strip()
            if line.startswith("#"):
                m = re.match(r"#\s*Source\s+\w+\s*(.*)", line)
                if m:
                    flush()
                    low = "LOW confidence" in line
                    source = m.group(1).strip(" ()")
                m = re.match(r"#\s*(repo|path)\s*:\s*(.+)", line)
                if m and not low:
                    source = (source + " " + m.group(2).strip()).strip()
                continue
            m = re.fullmatch(r"(KEYSIZE|KEY|PT|CT)\s*=\s*([0-9A-Fa-f]*)", line)
            if not m:
                flush()
                continue
            if m.group(1) == "KEYSIZE":
                flush()
                rec_line = n
                continue
            rec[m.group(1)] = m.group(2)
        flush()


# ---------------------------------------------------------------------------- libtomcrypt cipher_tv
# libtomcrypt cipher name -> (registry cipher id, key sizes in bytes to use, steps to use or None for all)
_LTC = {"aes": ("aes", None, None), "twofish": ("twofish", None, None), "serpent": ("serpent", None, None),
        "safer+": ("saferplus", None, None), "des": ("des", None, None), "cast5": ("cast5", {16}, None),
        "xtea": ("xtea", None, None), "tea": ("tea", None, None), "sm4": ("sm4", None, None),
        "seed": ("seed", None, None), "camellia": ("camellia", None, None), "idea": ("idea", None, None),
        "kasumi": ("kasumi", None, None), "khazad": ("khazad", None, None), "3des": ("3des", None, 1),
        "skipjack": ("skipjackrev", None, None), "noekeon": ("noekeondirect", None, None)}


def _tomcrypt_tv(x: _Ctx):
    f = x.root / "libtomcrypt" / "notes" / "cipher_tv.txt"
    if not f.exists():
        return
    cipher = keysize = None
    prev = None
    for n, raw in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = raw.strip()
        m = re.match(r"^Cipher:\s*(\S+)", line)
        if m:
            cipher, keysize, prev = m.group(1), None, None
            continue
        m = re.match(r"^Key Size:\s*(\d+) bytes", line)
        if m:
            keysize, prev = int(m.group(1)), None
            continue
        m = re.match(r"^(\d+):\s*([0-9A-Fa-f]+)$", line)
        if not m or cipher not in _LTC or keysize is None:
            continue
        step, ct = int(m.group(1)), _hex(m.group(2))
        cid, sizes, max_steps = _LTC[cipher]
        if step == 0:
            key, pt = bytes(range(keysize)), bytes(range(len(ct)))
        elif prev is None:
            continue
        else:
            key, pt = (prev * (keysize // len(prev) + 1))[:keysize], prev
        prev = ct
        if (sizes and keysize not in sizes) or (max_steps is not None and step >= max_steps):
            continue
        bits = {"3des": {16: 112, 24: 168}.get(keysize), "des": 56, "skipjackrev": 80}.get(cid)
        x.add_block(cid, f, key, pt, ct, n, f"libtomcrypt notes/cipher_tv.txt, {cipher} {keysize}-byte key, "
                    f"step {step}", bits=bits)


def load(wanted: set[str]) -> list[KnownAnswer]:
    root = shared_dir()
    x = _Ctx(root, Collector(CORPUS, wanted), load_registry())
    for part in (_botan, _submissions, _jither, _nessie, _transcribed, _tomcrypt_tv):
        part(x)
    return x.c.result()
