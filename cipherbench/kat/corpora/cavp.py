"""Corpus "cavp": NIST CAVP response files and the NIST-form files of the PyPI package
cryptography-vectors, read in place (what maps, and how: docs/vectors.md, "cavp")."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cipherbench.kat.collect import CAP, Collector, distribution_root, unhex
from cipherbench.kat.vectors import KnownAnswer

CORPUS = "cavp"
LONG_CAP = 8  # LongMsg files: long messages, a few are enough


# ---------------------------------------------------------------------------- NIST-form parsing
@dataclass
class Record:
    fields: dict  # UPPER-CASE field -> raw string (FAIL -> "")
    section: dict  # [K = V] headers in force, UPPER-CASE keys
    direction: str  # "ENCRYPT", "DECRYPT" or ""
    line: int


_SECTION_KV = re.compile(r"\s*([^=,]+?)\s*=\s*([^,]*?)\s*(?:,|$)")
_RECORD_MARKERS = ("COUNT", "LEN")


def parse_nist(path: Path) -> list[Record]:
    """Records of a NIST CAVP-style file (`FIELD = value` lines, `[...]` sections).

    Blocks are separated by blank lines. A block holding COUNT or Len is a
    record; any other block (CCM's Key/Nonce before its Count blocks, VTT's
    Alen/Plen/Nlen) sets values that every later record inherits until changed.
    A repeated field inside one block starts a new record. A bare FAIL line
    marks a record as a forgery (gcmDecrypt)."""
    records: list[Record] = []
    section: dict = {}
    context: dict = {}
    direction = ""
    block: dict = {}
    block_line = 0

    def flush():
        nonlocal block
        if block:
            if any(m in block for m in _RECORD_MARKERS):
                records.append(Record({**context, **block}, dict(section), direction, block_line))
            else:
                context.update(block)
        block = {}

    text = path.read_text(encoding="utf-8", errors="replace")
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            flush()
            continue
        if line.startswith("[") and line.endswith("]"):
            flush()
            inner = line[1:-1].strip()
            if inner.upper() in ("ENCRYPT", "DECRYPT"):
                direction = inner.upper()
            elif "=" in inner:
                for k, v in _SECTION_KV.findall(inner):
                    section[k.strip().upper()] = v.strip()
            continue
        if line.upper() == "FAIL":
            block["FAIL"] = ""
            continue
        if "=" not in line:
            continue
        k, v = (s.strip() for s in line.split("=", 1))
        k = k.upper()
        if k in block:
            flush()
        if not block:
            block_line = n
        block[k] = v
    flush()
    return records


# ---------------------------------------------------------------------------- the package
#: the PyPI distribution this corpus reads (pyproject.toml, extra `vectors`)
PACKAGE = "cryptography-vectors"


def package_root() -> tuple[Path, str]:
    return distribution_root(PACKAGE)


_MODE_DIRS = {"ECB": "ecb", "CBC": "cbc", "OFB": "ofb"}


def files_in(root: Path, *subdirs: str) -> list[Path]:
    """Files directly inside root/<subdir> for each subdir that exists, sorted."""
    out = []
    for sub in subdirs:
        d = root / sub
        if d.is_dir():
            out.extend(sorted(p for p in d.iterdir() if p.is_file()))
    return out


def aes_block_files(files: list[Path], root: Path, c: Collector, pkg: str):
    pat = re.compile(r"^(ECB|CBC|OFB|CFB128|CFB8)(GFSbox|KeySbox|VarKey|VarTxt|MMT)(128|192|256)\.rsp$")
    for f in files:
        m = pat.match(f.name)
        if not m:
            continue  # CFB1 (bit feedback), MCT
        mode = {"CFB128": "cfb", "CFB8": "cfb8"}.get(m.group(1), m.group(1).lower())
        prim = f"aes-{m.group(3)}-{mode}"
        if prim not in c.wanted:
            continue
        src = f"NIST CAVP AESAVS {f.name} ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = r.fields
            c.add(prim, f.name, key=unhex(fl["KEY"]), iv=unhex(fl.get("IV", "")),
                  input=unhex(fl["PLAINTEXT"]), output=unhex(fl["CIPHERTEXT"]),
                  source=src, where=f"{f.name}:{r.line}")


def aes_gcm(files: list[Path], root: Path, c: Collector, pkg: str):
    for f in files:
        m = re.match(r"gcm(EncryptExtIV|Decrypt)(128|192|256)\.rsp$", f.name)
        if not m:
            continue
        prim = f"aes-{m.group(2)}-gcm"
        if prim not in c.wanted:
            continue
        src = f"NIST CAVP GCMVS {f.name} ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            if r.section.get("IVLEN") != "96" or r.section.get("TAGLEN") != "128":
                continue
            fl = r.fields
            if int(r.section.get("PTLEN", "0")) % 8 or int(r.section.get("AADLEN", "0")) % 8:
                continue
            ct, tag = unhex(fl["CT"]), unhex(fl["TAG"])
            common = dict(key=unhex(fl["KEY"]), iv=unhex(fl["IV"]), aad=unhex(fl.get("AAD", "")),
                          source=src, where=f"{f.name}:{r.line}")
            if "FAIL" in fl:
                c.add(prim, f.name + " FAIL", input=b"", output=ct + tag, expect_reject=True, **common)
            else:
                c.add(prim, f.name, input=unhex(fl["PT"]), output=ct + tag, **common)


def _aes_ccm(root: Path, c: Collector, pkg: str):
    d = root / "ciphers" / "AES" / "CCM"
    for f in sorted(d.glob("VNT*.rsp")) if d.is_dir() else []:
        bits = f.stem[3:]
        src = f"NIST CAVP CCMVS {f.name} ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = {**r.section, **r.fields}
            if fl.get("NLEN") != "12" or fl.get("TLEN") != "16":
                continue
            alen, plen = int(fl["ALEN"]), int(fl["PLEN"])
            c.add(f"aes-{bits}-ccm", f.name, key=unhex(fl["KEY"]), iv=unhex(fl["NONCE"]),
                  aad=unhex(fl["ADATA"])[:alen], input=unhex(fl["PAYLOAD"])[:plen], output=unhex(fl["CT"]),
                  source=src, where=f"{f.name}:{r.line}")


def _aes_xts(root: Path, c: Collector, pkg: str):
    d = root / "ciphers" / "AES" / "XTS" / "tweak-128hexstr"
    for f in sorted(d.glob("XTSGenAES*.rsp")) if d.is_dir() else []:
        bits = f.stem[len("XTSGenAES"):]
        src = f"NIST CAVP XTSVS {f.name}, 128-bit hex tweak ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = r.fields
            if int(fl["DATAUNITLEN"]) % 128:
                continue
            key = unhex(fl["KEY"])
            if key[: len(key) // 2] == key[len(key) // 2:]:
                continue
            c.add(f"aes-{bits}-xts", f.name, key=key, iv=unhex(fl["I"]), input=unhex(fl["PT"]),
                  output=unhex(fl["CT"]), source=src, where=f"{f.name}:{r.line}")


def tdes(files: list[Path], root: Path, c: Collector, pkg: str):
    pat = re.compile(r"^T(ECB|CBC|CFB64|CFB8|OFB)(MMT[123]|invperm|permop|subtab|varkey|vartext)\.rsp$")
    modes = {"ECB": "ecb", "CBC": "cbc", "CFB64": "cfb", "CFB8": "cfb8", "OFB": "ofb"}
    for f in files:
        m = pat.match(f.name)
        if not m:
            continue  # interleaved (TCBCI, TOFBI), pipelined (TCFBP), CFB1
        mode = modes[m.group(1)]
        if not {f"des-56-{mode}", f"3des-112-{mode}", f"3des-168-{mode}"} & c.wanted:
            continue
        src = f"NIST CAVP TDESVS {f.name} ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = r.fields
            if "KEYS" in fl:
                k1 = k2 = k3 = unhex(fl["KEYS"])
            else:
                k1, k2, k3 = unhex(fl["KEY1"]), unhex(fl["KEY2"]), unhex(fl["KEY3"])
            if k1 == k2 == k3:
                prim, key = f"des-56-{mode}", k1
            elif k1 == k3:
                prim, key = f"3des-112-{mode}", k1 + k2
            elif k1 != k2 and k2 != k3:
                prim, key = f"3des-168-{mode}", k1 + k2 + k3
            else:
                continue
            c.add(prim, f.name, key=key, iv=unhex(fl.get("IV", "")), input=unhex(fl["PLAINTEXT"]),
                  output=unhex(fl["CIPHERTEXT"]), source=src, where=f"{f.name}:{r.line}")


_SHA_FILES = {"SHA1": "sha-1", "SHA224": "sha-224", "SHA256": "sha-256", "SHA384": "sha-384",
              "SHA512": "sha-512", "SHA512_224": "sha-512-224", "SHA512_256": "sha-512-256", "SHA3_224": "sha3-224",
              "SHA3_256": "sha3-256", "SHA3_384": "sha3-384", "SHA3_512": "sha3-512"}


def hash_records(f: Path, prim: str, c: Collector, src: str, cap: int = CAP, md_field="MD"):
    for r in parse_nist(f):
        fl = r.fields
        if "LEN" not in fl or md_field not in fl:
            continue
        bits = int(fl["LEN"])
        if bits % 8:
            continue
        msg = unhex(fl["MSG"])[: bits // 8]
        c.add(prim, f.name, input=msg, output=unhex(fl[md_field]), source=src, where=f"{f.name}:{r.line}",
              cap=cap)


def sha_files(files: list[Path], root: Path, c: Collector, pkg: str):
    for f in files:
        m = re.match(r"^(SHA[0-9_]+)(ShortMsg|LongMsg)\.rsp$", f.name)
        if not m or _SHA_FILES.get(m.group(1)) not in c.wanted:
            continue
        hash_records(f, _SHA_FILES[m.group(1)], c,
                     f"NIST CAVP SHAVS {f.name} ({pkg}: {f.relative_to(root)})",
                     cap=CAP if m.group(2) == "ShortMsg" else LONG_CAP)


def _hashes(root: Path, c: Collector, pkg: str):
    sha_files(files_in(root / "hashes", "SHA1", "SHA2", "SHA3"), root, c, pkg)
    for name, prim, bits in (("SHAKE128", "shake128", 256), ("SHAKE256", "shake256", 512)):
        f = root / "hashes" / "SHAKE" / f"{name}VariableOut.rsp"
        if not f.exists() or prim not in c.wanted:
            continue
        src = f"NIST CAVP SHA3VS {f.name}, output truncated to {bits} bits (FIPS 202 6.2) ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = r.fields
            if "OUTPUTLEN" not in fl or "MSG" not in fl:
                continue
            ol = int(fl["OUTPUTLEN"])
            if ol < bits or ol % 8:
                continue
            ilen = r.section.get("INPUT LENGTH")
            msg = unhex(fl["MSG"])
            if ilen is not None:
                if int(ilen) % 8:
                    continue
                msg = msg[: int(ilen) // 8]
            c.add(prim, f.name, input=msg, output=unhex(fl["OUTPUT"])[: bits // 8], source=src,
                  where=f"{f.name}:{r.line}")
    for rel, prim, doc in (("MD5/rfc-1321.txt", "md5", "RFC 1321, A.5"),
                           ("ripemd160/ripevectors.txt", "ripemd-160", "RIPEMD-160 home page test vectors"),
                           ("SM3/oscca.txt", "sm3", "OSCCA SM3 specification examples (via Linux testmgr.h)"),
                           ("blake2/blake2b.txt", "blake2b-512", "pyca BLAKE2b-512 vectors"),
                           ("blake2/blake2s.txt", "blake2s-256", "pyca BLAKE2s-256 vectors")):
        f = root / "hashes" / rel
        if f.exists():
            hash_records(f, prim, c, f"{doc} ({pkg}: hashes/{rel})")


def _nist_form(c: Collector, f: Path, root: Path, pkg: str, doc: str, prim_of, *, tag_field=None,
               iv_fields=("IV", "NONCE"), ct_includes_tag=False):
    """pyca's reformatted documents: KEY/IV/PLAINTEXT/CIPHERTEXT (any case), optional AAD/TAG."""
    src = f"{doc} ({pkg}: {f.relative_to(root)})"
    for r in parse_nist(f):
        fl = r.fields
        if "KEY" not in fl or "PLAINTEXT" not in fl or "CIPHERTEXT" not in fl:
            continue
        key = unhex(fl["KEY"])
        iv = next((unhex(fl[x]) for x in iv_fields if x in fl), b"")
        prim = prim_of(key, iv, fl)
        if not prim:
            continue
        out = unhex(fl["CIPHERTEXT"])
        if tag_field:
            if tag_field not in fl:
                continue
            out += unhex(fl[tag_field])
        forged = fl.get("RESULT", "").upper() == "CIPHERFINAL_ERROR"  # OpenSSL evpciph: tag must fail
        if forged and not tag_field:
            continue
        c.add(prim, f.name, key=key, iv=iv, aad=unhex(fl.get("AAD", "")),
              input=b"" if forged else unhex(fl["PLAINTEXT"]), output=out, expect_reject=forged,
              source=src, where=f"{f.name}:{r.line}")


def _camellia_ntt(c: Collector, f: Path, root: Path, pkg: str):
    """NTT's t_camelia.txt layout: `K No.001 : 00 11 ...`, then `P No.xxx`/`C No.xxx` pairs."""
    key, pt, ln = None, None, 0
    src = f"NTT Camellia test vectors t_camelia.txt ({pkg}: {f.relative_to(root)})"
    for n, raw in enumerate(f.read_text().splitlines(), 1):
        m = re.match(r"^\s*([KPC])\s+No\.\d+\s*:\s*([0-9A-Fa-f ]+)$", raw)
        if not m:
            continue
        val = unhex(m.group(2))
        if m.group(1) == "K":
            key = val
        elif m.group(1) == "P":
            pt, ln = val, n
        elif key is not None and pt is not None:
            c.add(f"camellia-{8 * len(key)}-ecb", f.name, key=key, input=pt, output=val, source=src,
                  where=f"{f.name}:{ln}")
            pt = None


def _others(root: Path, c: Collector, pkg: str):
    ci = root / "ciphers"

    def each(rel_glob):
        return sorted(ci.glob(rel_glob))

    def fixed(family, mode, key_len=None):
        def f(key, iv, fl):
            if key_len and len(key) != key_len:
                return None
            return f"{family}-{8 * len(key)}-{mode}"
        return f

    # AES CTR, RFC 3686 (pyca: ciphers/AES/CTR/aes-<bits>-ctr.txt)
    for f in each("AES/CTR/aes-*-ctr.txt"):
        _nist_form(c, f, root, pkg, "RFC 3686, section 6", fixed("aes", "ctr"))
    # OCB3, RFC 7253 appendix A (Ciphertext field is C || T)
    for f in each("AES/OCB3/rfc7253.txt") + each("AES/OCB3/openssl.txt"):
        _nist_form(c, f, root, pkg, "RFC 7253, appendix A" if f.name.startswith("rfc") else
                   "OpenSSL evpciph OCB vectors (commit 2f19ab18, per the file)",
                   lambda k, iv, fl: f"aes-{8 * len(k)}-ocb" if len(iv) == 12 and
                   len(unhex(fl["CIPHERTEXT"])) == len(unhex(fl["PLAINTEXT"])) + 16 else None)
    for f in each("AES/GCM-SIV/*.txt"):
        _nist_form(c, f, root, pkg, "RFC 8452, appendix C (as in OpenSSL's evpciph tests)",
                   lambda k, iv, fl: f"aes-{8 * len(k)}-gcmsiv" if len(iv) == 12 else None, tag_field="TAG")
    for f in each("AES/SIV/openssl.txt"):
        src = f"RFC 5297 and OpenSSL evpciph AES-SIV vectors ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = r.fields
            comps = [k for k in ("AAD", "AAD2", "AAD3", "AAD4") if k in fl]
            if comps != ["AAD", "AAD2"] or len(unhex(fl["AAD2"])) != 16:
                continue  # the protocol carries one AD component plus the nonce (the last one)
            key = unhex(fl["KEY"])
            c.add(f"aes-{4 * len(key)}-siv", f.name, key=key, iv=unhex(fl["AAD2"]), aad=unhex(fl["AAD"]),
                  input=unhex(fl["PLAINTEXT"]), output=unhex(fl["CIPHERTEXT"]) + unhex(fl["TAG"]),
                  source=src, where=f"{f.name}:{r.line}")
    for f in each("ChaCha20/rfc7539.txt"):
        _nist_form(c, f, root, pkg, "RFC 7539, appendix A.2",
                   lambda k, iv, fl: "chacha20" if fl.get("INITIAL_BLOCK_COUNTER", "0") == "0" and len(iv) == 12
                   else None)
    for f in each("ChaCha20Poly1305/openssl.txt"):
        _nist_form(c, f, root, pkg, "OpenSSL evpciph ChaCha20-Poly1305 vectors (RFC 7539 construction)",
                   lambda k, iv, fl: "chacha20-poly1305" if len(iv) == 12 and
                   len(unhex(fl.get("TAG", ""))) == 16 else None, tag_field="TAG")
    for f in each("ChaCha20Poly1305/boringssl.txt"):  # KEY/NONCE/IN/AD/CT/TAG, text in quotes
        src = f"BoringSSL chacha20_poly1305_tests.txt, RFC 7539 2.8.1 and edge cases ({pkg}: {f.relative_to(root)})"
        for r in parse_nist(f):
            fl = r.fields
            if not {"KEY", "NONCE", "IN", "AD", "CT", "TAG"} <= fl.keys():
                continue
            iv, tag = unhex(fl["NONCE"]), unhex(fl["TAG"])
            if len(iv) != 12 or len(tag) != 16:
                continue
            c.add("chacha20-poly1305", f.name, key=unhex(fl["KEY"]), iv=iv, aad=unhex(fl["AD"]),
                  input=unhex(fl["IN"]), output=unhex(fl["CT"]) + tag, source=src, where=f"{f.name}:{r.line}")
    # ARC4, RFC 6229: keystream at offsets; offsets 0 and 16 join into 32 bytes from the start.
    for f in each("ARC4/rfc-6229-128.txt"):
        src = f"RFC 6229, section 2 ({pkg}: {f.relative_to(root)})"
        runs: dict[bytes, list] = {}
        for r in parse_nist(f):
            fl = r.fields
            key, off = unhex(fl["KEY"]), int(fl["OFFSET"])
            run = runs.setdefault(key, [b"", b"", r.line])
            if off == len(run[0]):
                run[0] += unhex(fl["PLAINTEXT"])
                run[1] += unhex(fl["CIPHERTEXT"])
        for key, (pt, ct, ln) in runs.items():
            if pt:
                c.add("rc4", f.name, key=key, input=pt, output=ct, source=src, where=f"{f.name}:{ln}")
    for f in each("Camellia/camellia-*-ecb.txt"):
        _camellia_ntt(c, f, root, pkg)
    for mode in ("cbc", "cfb", "ofb"):
        for f in each(f"Camellia/camellia-{mode}.txt"):
            _nist_form(c, f, root, pkg, "OpenSSL Camellia test vectors (RFC 3713 cipher)", fixed("camellia", mode))
    for mode in ("ecb", "cbc", "cfb", "ofb", "ctr"):
        for f in each(f"CAST5/cast5-{mode}.txt"):
            _nist_form(c, f, root, pkg, "pyca CAST5 vectors (RFC 2144 cipher), cross-checked per the file",
                       fixed("cast5", mode, 16))
    for mode in ("ecb", "cbc", "cfb", "ofb"):
        for f in each(f"IDEA/idea-{mode}.txt"):
            _nist_form(c, f, root, pkg, "pyca IDEA vectors, cross-checked per the file", fixed("idea", mode, 16))
        for f in each(f"Blowfish/bf-{mode}.txt"):
            _nist_form(c, f, root, pkg, "Schneier's Blowfish vectors (vectors-2.txt)", fixed("blowfish", mode, 16))
    for f in each("RC2/rc2-cbc.txt"):
        _nist_form(c, f, root, pkg, "pyca RC2 vector (effective key bits 128)", fixed("rc2", "cbc", 16))
    for f, doc, mode in ((ci / "SEED" / "rfc-4269.txt", "RFC 4269, appendix B", "ecb"),
                         (ci / "SEED" / "rfc-4196.txt", "RFC 4196, section 4", "cbc"),
                         (ci / "SEED" / "seed-cfb.txt", "pyca SEED CFB vectors", "cfb"),
                         (ci / "SEED" / "seed-ofb.txt", "pyca SEED OFB vectors", "ofb")):
        if f.exists():
            _nist_form(c, f, root, pkg, doc, fixed("seed", mode, 16))
    for mode in ("ecb", "cbc", "cfb", "ofb", "ctr"):
        for f in each(f"SM4/draft-ribose-cfrg-sm4-10-{mode}.txt"):
            _nist_form(c, f, root, pkg, "draft-ribose-cfrg-sm4-10, appendix A.2", fixed("sm4", mode, 16))
    for f in each("SM4/rfc8998.txt"):
        _nist_form(c, f, root, pkg, "RFC 8998, appendix A.2",
                   lambda k, iv, fl: "sm4-128-gcm" if len(iv) == 12 and len(unhex(fl.get("TAG", ""))) == 16
                   else None, tag_field="TAG")


def load(wanted: set[str]) -> list[KnownAnswer]:
    root, version = package_root()
    pkg = f"{PACKAGE} {version}"
    c = Collector(CORPUS, wanted)
    aes_block_files(files_in(root / "ciphers" / "AES", "ECB", "CBC", "OFB", "CFB"), root, c, pkg)
    aes_gcm(files_in(root / "ciphers" / "AES", "GCM"), root, c, pkg)
    tdes(files_in(root / "ciphers" / "3DES", "ECB", "CBC", "CFB", "OFB"), root, c, pkg)
    for part in (_aes_ccm, _aes_xts, _hashes, _others):
        part(root, c, pkg)
    return c.result()
