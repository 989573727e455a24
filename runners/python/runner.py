"""cipherbench Python runner: protocol v1 (docs/protocol.md) on stdin/stdout.

Implementations: pycryptodome, pyca-cryptography (cryptography), pynacl (PyNaCl).
The canonical-name table is build_implementations() below; the protocol loop,
length checks and timed loops follow it. Registry lengths come from
cipherbench/registry.py (imported from the repository, standard library only).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import random
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
warnings.filterwarnings("ignore")  # cryptography's "moved to decrepit" notices; stdout stays clean anyway

from cipherbench.registry import load as load_registry  # noqa: E402

REG = load_registry()
clock = time.perf_counter_ns


def _vector_state_reset():
    """The reset called before every timed batch (vector_state.c, built by build.sh next to
    the venv), and what hello says of it. Without the library the runner still works and
    says why it cannot reset."""
    import ctypes
    path = os.path.join(os.path.dirname(sys.executable), "..", "..", "libcb_vector_state.so")
    try:
        f = ctypes.CDLL(os.path.normpath(path)).cb_clean_vector_state
    except OSError as e:
        return (lambda: None), f"not reset: {os.path.basename(path)} not loaded ({e}); run runners/python/build.sh"
    f.restype = ctypes.c_int
    return f, ("vzeroupper before every timed batch" if f() else "nothing to reset: no AVX on this CPU")


clean_vector_state, VECTOR_STATE = _vector_state_reset()


def _stack_placer():
    """cb_at_stack_offset and cb_stack_at from engine/src/stack.c (built by build.sh into
    libcb_stack.so next to the venv) and the callback type they take, or None: then
    stack_offset is ignored."""
    import ctypes
    path = os.path.join(os.path.dirname(sys.executable), "..", "..", "libcb_stack.so")
    try:
        lib = ctypes.CDLL(os.path.normpath(path))
    except OSError:
        return None
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    lib.cb_at_stack_offset.argtypes = [ctypes.c_uint, callback, ctypes.c_void_p]
    lib.cb_at_stack_offset.restype = None
    lib.cb_stack_at.restype = ctypes.c_int
    return lib, callback


STACK_PLACER = _stack_placer()
STACK = {"offset": None}  # the bench request's stack_offset while its batches run


def _prober():
    """cb_probe from engine/src/probe.c (built by build.sh into libcb_probe.so next to the
    venv), or None: then the bench field `probe` is ignored."""
    import ctypes
    path = os.path.join(os.path.dirname(sys.executable), "..", "..", "libcb_probe.so")
    try:
        lib = ctypes.CDLL(os.path.normpath(path))
    except OSError:
        return None
    lib.cb_probe.argtypes = [ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64 * 2)]
    lib.cb_probe.restype = None
    out = (ctypes.c_uint64 * 2)()
    switches = getattr(lib, "cb_preemptions", None)  # a library built before it had none
    if switches is not None:
        switches.argtypes, switches.restype = [], ctypes.c_uint64

    def probe(k):
        lib.cb_probe(k, ctypes.byref(out))
        n = switches() if switches is not None else None
        return out[0], out[1], (n if n != (1 << 64) - 1 else None)
    return probe


PROBER = _prober()
# the bench request's `probe` (thousands of additions; 0: none) and the readings taken so far:
# one before the first batch and one after each (docs/protocol.md, "bench")
PROBE = {"k": 0, "readings": []}


def timed(body):
    """ns of one timed batch (timed_placed), with the core probed on both sides of it where
    the request asks (engine/src/probe.c)."""
    k = PROBE["k"]
    if not k:
        return timed_placed(body)
    if not PROBE["readings"]:
        PROBE["readings"].append(PROBER(k))
    ns = timed_placed(body)
    PROBE["readings"].append(PROBER(k))
    return ns


def timed_placed(body):
    """ns of one timed batch: body() between two clock reads, after the vector-state reset,
    run with the C stack at the request's stack_offset when it has one (engine/src/stack.c)."""
    offset = STACK["offset"]
    if offset is None or STACK_PLACER is None:
        clean_vector_state()
        t0 = clock()
        body()
        return clock() - t0
    out, failed = [0], []

    def run(_arg):  # called from C: an exception must not escape into ctypes
        try:
            clean_vector_state()
            t0 = clock()
            body()
            out[0] = clock() - t0
        except BaseException as e:  # noqa: BLE001 (re-raised below, outside the C frame)
            failed.append(e)

    lib, callback = STACK_PLACER
    lib.cb_at_stack_offset(offset, callback(run), None)
    if failed:
        raise failed[0]
    return out[0]


class Fail(Exception):
    """Answered as status "error"."""


class Unsupported(Exception):
    """Answered as status "unsupported"."""


# ====================================================================== entries
# A cipher/stream entry has make(key, iv, enc) -> an object with .run(data) -> bytes
# and .bulk(buf) (in place or into a scratch buffer: what the timed bulk loop calls).
# Those APIs set key and IV in one call, so keysetup times make() (see README).
# An AEAD entry has keyed(key) -> ctx, seal(ctx, key, iv, aad, data) -> ct||tag,
# open(ctx, key, iv, aad, ct||tag) -> plaintext or None, and optionally
# stream(ctx, key, iv, aad, enc, total, call) -> a bulk callable (streaming without a tag check)
# taking `call` bytes at a time, `total` in all.
# A hash entry has new() -> object with update(data) and final() -> digest.

class Entry:
    def __init__(self, prim, provider, features, **fns):
        self.prim, self.provider, self.features = prim, provider, features
        self.__dict__.update(fns)


class Impl:
    def __init__(self, name, library, version, notes=None):
        self.name, self.library, self.version = name, library, version
        self.notes = notes or {}
        self.entries: dict[str, Entry] = {}
        self.reason = ""

    def add(self, pname, path, **fns):
        """`path`: (the code path in words, its features: a tuple of the protocol's words, or
        None where the runner cannot tell which code runs)."""
        if pname in REG and pname not in self.entries:
            self.entries[pname] = Entry(REG[pname], path[0], path[1], **fns)


class Xf:
    """A started cipher: run(data) for encrypt/decrypt, bulk(buf) for the timed loop
    (scratch: the output buffer bulk writes to when the API cannot work in place)."""
    __slots__ = ("run", "bulk", "scratch")

    def __init__(self, run, bulk, scratch=None):
        self.run, self.bulk, self.scratch = run, bulk, scratch


# ---------------------------------------------------------------------- code paths
# The features of each path (docs/protocol.md, `features`), found the way the library finds
# them: which module it loaded, or its own CPUID rules on the CPU's flags. None: unknown.
PORTABLE = ("portable",)
X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
ARM64 = platform.machine().lower() in ("aarch64", "arm64")


def cpu_flags():
    """The CPU's flags as Linux lists them (features the kernel does not enable are left out)."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next((x for x in f if x.startswith(("flags", "Features"))), "")
    except OSError:
        return frozenset()
    return frozenset(line.partition(":")[2].split())


CPU = cpu_flags()


def joined(*parts):
    """The features of a path made of parts: every CPU-specific one; portable only when nothing
    else is left; unknown when any part is."""
    if any(p is None for p in parts):
        return None
    found = {f for p in parts for f in p}
    return tuple(sorted(found - {"portable"})) if found - {"portable"} else PORTABLE


def loaded(module, used, alternatives, portable):
    """Which of a pycryptodome module's raw libraries it loaded: the features of the
    alternative object that `used` is, portable when it is the `portable` one or the module
    has no alternatives at all (releases before they existed load one C library), else None."""
    lib = getattr(module, used, None)
    if lib is None:
        return None
    for attr, features in alternatives.items():
        alt = getattr(module, attr, None)
        if alt is not None and lib is alt:
            return features
    if lib is getattr(module, portable, object()) or not any(hasattr(module, a) for a in (*alternatives, portable)):
        return PORTABLE
    return None


# ---------------------------------------------------------------------- pycryptodome
def add_pycryptodome(impls):
    try:
        import Crypto
        from Crypto.Cipher import AES, ARC2, ARC4, CAST, DES, DES3, Blowfish, ChaCha20, ChaCha20_Poly1305, Salsa20
        from Crypto.Hash import (BLAKE2b, BLAKE2s, MD4, MD5, RIPEMD160, SHA1, SHA224, SHA256, SHA384, SHA512, keccak,
                                 SHA3_224, SHA3_256, SHA3_384, SHA3_512, SHAKE128, SHAKE256)
        from Crypto.Cipher import _mode_gcm
    except Exception as e:  # noqa: BLE001
        im = Impl("pycryptodome", "pycryptodome", "")
        im.reason = f"cannot import pycryptodome: {e}"
        impls.append(im)
        return
    im = Impl("pycryptodome", "pycryptodome", Crypto.__version__,
              {"note": "its own C code; a cipher object is created per message (key and IV are set together)"})
    # AES.new takes the module _raw_aes_hw holds (AES-NI on x86, the ARMv8 extensions on
    # AArch64) where it loaded one; releases before 3.21 kept an AES-NI module in _raw_aesni_lib
    aes_hw = AES._raw_aes_hw is not None if hasattr(AES, "_raw_aes_hw") else \
        getattr(AES, "_raw_aesni_lib", None) is not None
    aes_path = (("AES-NI (pycryptodome C)", ("aes-ni",)) if X86 else ("ARMv8 AES (pycryptodome C)", ("armv8-ce",))
                if ARM64 else ("AES instructions (pycryptodome C)", None)) if aes_hw else \
        ("portable C (pycryptodome, no AES instructions)", PORTABLE)
    portable = ("portable C (pycryptodome)", PORTABLE)

    def block_modes(mod, extra=None):
        bits = mod.block_size * 8
        modes = {"ecb": lambda k, iv: mod.new(k, mod.MODE_ECB, **(extra or {})),
                 "cbc": lambda k, iv: mod.new(k, mod.MODE_CBC, iv=iv, **(extra or {})),
                 "cfb": lambda k, iv: mod.new(k, mod.MODE_CFB, iv=iv, segment_size=bits, **(extra or {})),
                 "cfb8": lambda k, iv: mod.new(k, mod.MODE_CFB, iv=iv, segment_size=8, **(extra or {})),
                 "ofb": lambda k, iv: mod.new(k, mod.MODE_OFB, iv=iv, **(extra or {})),
                 "ctr": lambda k, iv: mod.new(k, mod.MODE_CTR, nonce=b"", initial_value=iv, **(extra or {}))}
        return modes

    def with_output(new):  # pycryptodome objects that can write in place (output=)
        def make(key, iv, enc):
            c = new(key, iv)
            f = c.encrypt if enc else c.decrypt
            return Xf(f, lambda buf: f(buf, output=buf))
        return make

    ciphers = [("aes", AES, None, aes_path), ("des", DES, None, portable), ("3des", DES3, None, portable),
               ("blowfish", Blowfish, None, portable), ("cast5", CAST, None, portable),
               ("rc2", ARC2, {"effective_keylen": 128}, ("portable C (pycryptodome), effective key bits = 128", PORTABLE))]
    for fam, mod, extra, prov in ciphers:
        for mode, new in block_modes(mod, extra).items():
            for p in REG:
                if p.family == fam and p.mode == mode:
                    im.add(p.name, prov, make=with_output(new))

    # AEADs (AES only in pycryptodome). Streaming bulk where the mode allows several encrypt() calls.
    def aes_aead(mode, **kw):
        def new(key, iv, total=None, aad_len=0):
            extra = dict(kw)
            if mode == AES.MODE_CCM and total is not None:
                extra.update(msg_len=total, assoc_len=aad_len)
            return AES.new(key, mode, nonce=iv, mac_len=16, **extra) if mode != AES.MODE_SIV else \
                AES.new(key, mode, nonce=iv)
        return new

    def pcd_aead(new, streams=True, output=True, flush=False, siv=False):
        def seal(ctx, key, iv, aad, data):
            c = new(key, iv)
            if aad or siv:  # SIV: exactly one AD component, even empty (the registry's S2V(AD, N, P))
                c.update(aad)
            ct, tag = c.encrypt_and_digest(data)
            return ct + tag

        def open_(ctx, key, iv, aad, data):
            c = new(key, iv)
            if aad or siv:
                c.update(aad)
            try:
                return c.decrypt_and_verify(data[:-16], data[-16:])
            except ValueError:
                return None

        def stream(ctx, key, iv, aad, enc, total, call):
            c = new(key, iv, total, len(aad)) if streams else None
            if c is None:
                return None
            if aad:
                c.update(aad)
            f = c.encrypt if enc else c.decrypt
            return f if not output else (lambda buf: f(buf, output=buf))
        def seal_parts(ctx, key, iv, aad, pieces):
            c = new(key, iv, sum(map(len, pieces)), len(aad))
            if aad:
                c.update(aad)
            ct = b"".join(c.encrypt(x) for x in pieces) + (c.encrypt() if flush else b"")  # OCB buffers
            return ct + c.digest()

        def open_parts(ctx, key, iv, aad, pieces, tag):
            c = new(key, iv, sum(map(len, pieces)), len(aad))
            if aad:
                c.update(aad)
            out = b"".join(c.decrypt(x) for x in pieces) + (c.decrypt() if flush else b"")
            try:
                c.verify(tag)
            except ValueError:
                return None
            return out
        return dict(keyed=lambda key: None, seal=seal, open=open_, stream=stream if streams else None,
                    seal_parts=seal_parts if streams else None, open_parts=open_parts if streams else None)

    # GCM multiplies in GHASH with the carry-less module _ghash_clmul holds where it loaded one
    clmul = getattr(_mode_gcm, "_ghash_clmul", None) is not None
    ghash = ((" + CLMUL GHASH", ("pclmul",)) if X86 else (" + PMULL GHASH", ("armv8-ce",)) if ARM64
             else (" + carry-less GHASH", None)) if clmul else (" + portable GHASH", PORTABLE)
    aes = aes_path[0]
    for p in REG:
        if p.family != "aes":
            continue
        if p.mode == "gcm":
            im.add(p.name, (aes + ghash[0] + "; AES.new per message rebuilds GHASH tables", joined(aes_path[1], ghash[1])),
                   **pcd_aead(aes_aead(AES.MODE_GCM)))
        elif p.mode == "ccm":
            im.add(p.name, (aes + " (CCM in pycryptodome C/Python)", aes_path[1]), **pcd_aead(aes_aead(AES.MODE_CCM)))
        elif p.mode == "eax":
            im.add(p.name, (aes + " (EAX: CTR + CMAC)", aes_path[1]), **pcd_aead(aes_aead(AES.MODE_EAX)))
        elif p.mode == "ocb":
            im.add(p.name, (aes + " (OCB3 in pycryptodome C)", aes_path[1]),
                   **pcd_aead(aes_aead(AES.MODE_OCB), output=False, flush=True))
        elif p.mode == "siv":
            im.add(p.name, (aes + " (SIV: S2V-CMAC + CTR); one-shot", aes_path[1]),
                   **pcd_aead(aes_aead(AES.MODE_SIV), streams=False, siv=True))

    # ChaCha20's key stream eight blocks at a time where the AVX2 + BMI2 module loaded (4.x)
    chacha = loaded(ChaCha20, "_raw_chacha20_lib", {"_raw_chacha20_avx2_bmi2_lib": ("avx2", "bmi2")},
                    "_raw_chacha20_portable_lib")
    chacha_words = {None: "pycryptodome C, module not known", PORTABLE: "portable C (pycryptodome)",
                    ("avx2", "bmi2"): "AVX2 + BMI2 build of pycryptodome's C"}[chacha]
    im.add("chacha20", (chacha_words, chacha), make=with_output(lambda k, iv: ChaCha20.new(key=k, nonce=iv)))
    im.add("xchacha20", (chacha_words + ", HChaCha20 subkey", chacha),
           make=with_output(lambda k, iv: ChaCha20.new(key=k, nonce=iv)))
    im.add("salsa20", portable, make=with_output(lambda k, iv: Salsa20.new(key=k, nonce=iv)))

    def rc4_make(key, iv, enc):
        c = ARC4.new(key)
        return Xf(c.encrypt, c.encrypt)
    im.add("rc4", ("portable C (pycryptodome); returns a new bytes object per call", PORTABLE), make=rc4_make)

    ccp = lambda k, iv, total=None, aad_len=0: ChaCha20_Poly1305.new(key=k, nonce=iv)  # noqa: E731
    poly = " + Poly1305 in portable C"
    im.add("chacha20-poly1305", (chacha_words + " ChaCha20" + poly, joined(chacha, PORTABLE)), **pcd_aead(ccp))
    im.add("xchacha20-poly1305", (chacha_words + " XChaCha20" + poly, joined(chacha, PORTABLE)), **pcd_aead(ccp))

    hashes = {"md4": MD4.new, "md5": MD5.new, "sha-1": SHA1.new, "sha-224": SHA224.new, "sha-256": SHA256.new,
              "sha-384": SHA384.new, "sha-512": SHA512.new,
              "sha-512-256": lambda: SHA512.new(truncate="256"), "sha-512-224": lambda: SHA512.new(truncate="224"),
              "keccak-224": lambda: keccak.new(digest_bits=224), "keccak-256": lambda: keccak.new(digest_bits=256),
              "keccak-384": lambda: keccak.new(digest_bits=384), "keccak-512": lambda: keccak.new(digest_bits=512),
              "sha3-224": SHA3_224.new, "sha3-256": SHA3_256.new, "sha3-384": SHA3_384.new, "sha3-512": SHA3_512.new,
              "blake2b-512": lambda: BLAKE2b.new(digest_bits=512), "blake2b-256": lambda: BLAKE2b.new(digest_bits=256),
              "blake2s-256": lambda: BLAKE2s.new(digest_bits=256), "ripemd-160": RIPEMD160.new}
    # the modules that load a CPU-specific build where the CPU has it (pycryptodome 4.x); the
    # other hashes are one C module each
    sha2 = {"sha-224": (SHA224, "sha224", "_raw_sha224_shani_lib"), "sha-256": (SHA256, "sha256", "_raw_sha256_shani_lib"),
            "sha-384": (SHA384, "sha384", None), "sha-512": (SHA512, "sha512", None),
            "sha-512-256": (SHA512, "sha512", None), "sha-512-224": (SHA512, "sha512", None)}
    words = {None: "pycryptodome C, module not known", PORTABLE: "portable C (pycryptodome)",
             ("sha-ni",): "SHA-NI build of pycryptodome's C", ("armv8-ce",): "ARMv8 SHA build of pycryptodome's C",
             ("avx2", "bmi2"): "AVX2 + BMI2 build of pycryptodome's Keccak"}

    def hash_path(name):
        if name in sha2:
            mod, n, shani = sha2[name]
            alternatives = {f"_raw_{n}_armv8_lib": ("armv8-ce",)} | ({shani: ("sha-ni",)} if shani else {})
            features = loaded(mod, f"_raw_{n}_lib", alternatives, f"_raw_{n}_portable_lib")
        elif name.startswith(("sha3-", "keccak-", "shake")):
            features = loaded(keccak, "_raw_keccak_lib", {"_raw_keccak_avx2_bmi2_lib": ("avx2", "bmi2")},
                              "_raw_keccak_portable_lib")
        else:
            features = PORTABLE
        return words[features], features
    for name, new in hashes.items():
        im.add(name, hash_path(name), new=lambda new=new: HashObj(new(), None))
    im.add("shake128", hash_path("shake128"), new=lambda: HashObj(SHAKE128.new(), 32))
    im.add("shake256", hash_path("shake256"), new=lambda: HashObj(SHAKE256.new(), 64))
    impls.append(im)


class HashObj:
    __slots__ = ("h", "n", "update")

    def __init__(self, h, xof_len):
        self.h, self.n, self.update = h, xof_len, h.update

    def final(self):
        if self.n is not None:
            return self.h.read(self.n) if hasattr(self.h, "read") else self.h.finalize()
        return self.h.digest() if hasattr(self.h, "digest") else self.h.finalize()


# ---------------------------------------------------------------------- pyca/cryptography
class OpenSslPaths:
    """The code a bundled OpenSSL takes on this CPU, by OpenSSL's own x86-64 rules, as the
    engine's OpenSSL adapter reads them (engine/adapters/openssl/adapter.cpp, features_of):
    AES-NI for AES; for GCM its AVX-512 VAES body from 3.1 on where the CPU has AVX512F, DQ,
    BW, VL, VAES and VPCLMULQDQ, else AES-NI + PCLMUL; SHA-NI for SHA-1/SHA-224/SHA-256;
    C for the legacy ciphers OpenSSL has no assembly for. Unknown (None) elsewhere, on other
    CPUs, and whenever OPENSSL_ia32cap masks what CPUID says."""

    C_FAMILIES = frozenset({"blowfish", "cast5", "des", "3des", "desx", "idea", "seed", "rc2"})

    def __init__(self, version_text):
        digits = [int(x) for x in (version_text.split() + ["0"])[1].split(".")[:2] if x.isdigit()]
        self.version = tuple(digits + [0, 0])[:2]
        known = X86 and "OPENSSL_ia32cap" not in os.environ
        self.aes_ni = known and "aes" in CPU
        self.pclmul = known and "pclmulqdq" in CPU
        self.sha_ni = known and "sha_ni" in CPU
        self.vaes_gcm = known and self.version >= (3, 1) and \
            {"avx512f", "avx512dq", "avx512bw", "avx512vl", "vaes", "vpclmulqdq"} <= CPU
        self.known = known
        self.aes = ("aes-ni",) if self.aes_ni else None
        self.aes_words = ", AES-NI" if self.aes_ni else ""
        self.gcm = (("vaes", "vpclmul", "avx512") if self.vaes_gcm else ("aes-ni", "pclmul")
                    if self.aes_ni and self.pclmul else None)
        self.gcm_words = (", AES-GCM with VAES + VPCLMULQDQ (AVX-512)" if self.vaes_gcm
                          else ", AES-NI + PCLMUL" if self.gcm else "")
        self.other_unknown = None
        # from 3.4 on, XTS has VAES bodies this runner does not model
        self.xts = self.aes if self.version < (3, 4) else None

    def xts_words(self, words):
        return words + (self.aes_words if self.xts else "")

    def c_cipher(self, family):
        return PORTABLE if self.known and family in self.C_FAMILIES else None

    def sha(self, name):
        return ("sha-ni",) if self.sha_ni and name in ("sha-1", "sha-224", "sha-256") else None

    def sha_words(self, name):
        return ", SHA-NI" if self.sha(name) else ""


def add_pyca(impls):
    try:
        import cryptography
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.backends.openssl.backend import backend
        from cryptography.hazmat.primitives import hashes as H
        from cryptography.hazmat.primitives.ciphers import Cipher, aead
        from cryptography.hazmat.primitives.ciphers import algorithms as A
        from cryptography.hazmat.primitives.ciphers import modes as M
        from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM, ChaCha20Poly1305
    except Exception as e:  # noqa: BLE001
        im = Impl("pyca-cryptography", "cryptography", "")
        im.reason = f"cannot import cryptography: {e}"
        impls.append(im)
        return
    try:
        from cryptography.hazmat.decrepit.ciphers import algorithms as DA
    except ImportError:
        DA = A
    try:
        from cryptography.hazmat.decrepit.ciphers import modes as DM
    except ImportError:
        DM = M
    try:  # before 3.1 every object wanted a backend argument, which this runner does not pass
        Cipher(A.AES(bytes(16)), M.ECB())
    except TypeError as e:
        im = Impl("pyca-cryptography", "cryptography", cryptography.__version__)
        im.reason = f"cryptography {cryptography.__version__} needs a backend argument: {e}"
        impls.append(im)
        return
    ossl = backend.openssl_version_text()
    im = Impl("pyca-cryptography", "cryptography", cryptography.__version__,
              {"openssl": ossl, "note": "the wheel's bundled OpenSSL, not the system libssl"})
    words = f"bundled {ossl} (EVP)"
    paths = OpenSslPaths(ossl)
    prov, aes_prov = (words, paths.other_unknown), (words + paths.aes_words, paths.aes)

    # Older releases (cipherbench versions add) lack later classes: AESOCB3 came in 36, AESSIV
    # in 37, AESGCMSIV in 42, SM4 and SM3 in 35; what a release lacks it does not offer.
    AESOCB3, AESSIV, AESGCMSIV = (getattr(aead, n, None) for n in ("AESOCB3", "AESSIV", "AESGCMSIV"))

    def alg(name):  # decrepit first (43 moved the legacy ciphers there), then the old place
        return getattr(DA, name, None) or getattr(A, name, None)
    algs = {"aes": A.AES, "camellia": alg("Camellia"), "sm4": alg("SM4"), "3des": alg("TripleDES"),
            "blowfish": alg("Blowfish"), "cast5": alg("CAST5"), "idea": alg("IDEA"), "seed": alg("SEED"),
            "rc2": alg("RC2")}
    modes = {"ecb": lambda iv: M.ECB(), "cbc": M.CBC, "cfb": getattr(DM, "CFB", None), "cfb8": getattr(DM, "CFB8", None),
             "ofb": getattr(DM, "OFB", None), "ctr": M.CTR, "xts": M.XTS}

    # update_into(data, buf) names its output `buf`, except in the releases whose Rust binding
    # named the input so (43.x: update_into(buf, out)); those take the output by position
    try:
        Cipher(A.AES(bytes(16)), M.ECB()).encryptor().update_into(b"", buf=bytearray(16))
        out_by_name = True
    except TypeError:
        out_by_name = False

    def started(ctx):  # bulk: update_into a scratch buffer (cryptography wants room for one more block)
        scratch = bytearray(0)
        if out_by_name:
            return Xf(ctx.update, functools.partial(ctx.update_into, buf=scratch), scratch)
        return Xf(ctx.update, lambda data, into=ctx.update_into, out=scratch: into(data, out), scratch)

    def make_for(alg, mode):
        def make(key, iv, enc):
            c = Cipher(alg(key), mode(iv))
            return started(c.encryptor() if enc else c.decryptor())
        return make

    def probe(alg, mode, p):
        try:
            key = bytes((i * 7 + 1) & 0xFF for i in range(p.key_bytes))
            iv = bytes(p.iv_bytes)
            Cipher(alg(key), mode(iv)).encryptor().update(bytes(p.block_bytes * 2))
            return True
        except Exception:  # noqa: BLE001
            return False

    for p in REG:
        if p.kind != "cipher" or algs.get(p.family) is None or modes.get(p.mode) is None:
            continue
        alg, mode = algs[p.family], modes[p.mode]
        if probe(alg, mode, p):
            extra = {"one_call": "OpenSSL's XTS treats every update as a whole data unit"} if p.mode == "xts" else {}
            path = (paths.xts_words(words), paths.xts) if p.family == "aes" and p.mode == "xts" else aes_prov \
                if p.family == "aes" else (words + (", portable C" if paths.c_cipher(p.family) else ""),
                                           paths.c_cipher(p.family))
            im.add(p.name, path, make=make_for(alg, mode), **extra)

    # ChaCha20: cryptography's 16-byte nonce is a 32-bit little-endian counter (0) || the 12-byte IETF nonce.
    def chacha_make(key, iv, enc):
        return started(Cipher(A.ChaCha20(key, b"\0\0\0\0" + iv), None).encryptor())
    im.add("chacha20", prov, make=chacha_make)

    def rc4_make(key, iv, enc):
        return started(Cipher(alg("ARC4")(key), None).encryptor())
    try:
        rc4_make(bytes(16), b"", True).run(b"x")
        im.add("rc4", (words + " (legacy provider)", None), make=rc4_make)
    except Exception:  # noqa: BLE001
        pass

    def one_shot(cls, siv=False):
        def seal(ctx, key, iv, aad, data):
            if siv:  # S2V(AD, N, P): one AD component (even empty), then the nonce; cryptography returns SIV || C
                out = ctx.encrypt(data, [aad, iv])
                return out[16:] + out[:16]
            return ctx.encrypt(iv, data, aad or None)

        def open_(ctx, key, iv, aad, data):
            try:
                if siv:
                    return ctx.decrypt(data[-16:] + data[:-16], [aad, iv])
                return ctx.decrypt(iv, data, aad or None)
            except InvalidTag:
                return None
        return dict(keyed=cls, seal=seal, open=open_, stream=None)

    def gcm_parts(alg):  # Cipher(alg, GCM) fed in pieces
        def seal_parts(ctx, key, iv, aad, pieces):
            c = Cipher(alg(key), M.GCM(iv)).encryptor()
            if aad:
                c.authenticate_additional_data(aad)
            ct = b"".join(c.update(x) for x in pieces) + c.finalize()
            return ct + c.tag

        def open_parts(ctx, key, iv, aad, pieces, tag):
            c = Cipher(alg(key), M.GCM(iv, tag)).decryptor()
            if aad:
                c.authenticate_additional_data(aad)
            out = b"".join(c.update(x) for x in pieces)
            try:
                return out + c.finalize()
            except InvalidTag:
                return None
        return dict(seal_parts=seal_parts, open_parts=open_parts)

    for p in REG:
        if p.kind != "aead":
            continue
        if p.family == "aes" and p.mode == "gcm":
            d = one_shot(AESGCM)

            def gcm_stream(ctx, key, iv, aad, enc, total, call):
                c = Cipher(A.AES(key), M.GCM(iv)).encryptor() if enc else \
                    Cipher(A.AES(key), M.GCM(iv, b"\0" * 16)).decryptor()
                if aad:
                    c.authenticate_additional_data(aad)
                scratch = bytearray(call + 64)  # one call's output (update_into wants len + 15)
                return lambda buf: c.update_into(buf, scratch)
            d["stream"] = gcm_stream
            d.update(gcm_parts(A.AES))
            im.add(p.name, (words + paths.gcm_words + "; message workload: AESGCM one-shot", paths.gcm), **d)
        elif p.family == "aes" and p.mode in ("ccm", "ocb", "siv", "gcmsiv"):
            cls = {"ccm": lambda k: AESCCM(k, tag_length=16), "ocb": AESOCB3, "siv": AESSIV,
                   "gcmsiv": AESGCMSIV}[p.mode]
            if cls is None:
                continue
            try:
                d = one_shot(cls, siv=p.mode == "siv")
                ctx = cls(bytes(range(1, p.key_bytes + 1)))
                d["seal"](ctx, None, bytes(p.iv_bytes), b"", b"probe")
                im.add(p.name, (words + paths.aes_words + "; one-shot AEAD API",
                                paths.aes if p.mode in ("ccm", "ocb", "siv") else None), **d)
            except Exception:  # noqa: BLE001
                pass
        elif p.family == "sm4" and p.mode == "gcm" and algs["sm4"] is not None:
            def sm4_seal(ctx, key, iv, aad, data):
                c = Cipher(A.SM4(key), M.GCM(iv)).encryptor()
                if aad:
                    c.authenticate_additional_data(aad)
                ct = c.update(data) + c.finalize()
                return ct + c.tag

            def sm4_open(ctx, key, iv, aad, data):
                c = Cipher(A.SM4(key), M.GCM(iv, data[-16:])).decryptor()
                if aad:
                    c.authenticate_additional_data(aad)
                try:
                    return c.update(data[:-16]) + c.finalize()
                except InvalidTag:
                    return None

            def sm4_stream(ctx, key, iv, aad, enc, total, call):
                c = Cipher(A.SM4(key), M.GCM(iv)).encryptor() if enc else \
                    Cipher(A.SM4(key), M.GCM(iv, b"\0" * 16)).decryptor()
                if aad:
                    c.authenticate_additional_data(aad)
                scratch = bytearray(call + 64)  # one call's output (update_into wants len + 15)
                return lambda buf: c.update_into(buf, scratch)
            try:
                if probe(A.SM4, lambda iv: M.GCM(bytes(12)), p):
                    im.add(p.name, (words + "; Cipher(SM4, GCM) per message", None),
                           keyed=lambda k: None, seal=sm4_seal, open=sm4_open, stream=sm4_stream, **gcm_parts(A.SM4))
            except Exception:  # noqa: BLE001
                pass
    im.add("chacha20-poly1305", (words + "; one-shot AEAD API", None), **one_shot(ChaCha20Poly1305))

    hashes = {"md5": H.MD5, "sha-1": H.SHA1, "sha-224": H.SHA224, "sha-256": H.SHA256, "sha-384": H.SHA384,
              "sha-512": H.SHA512, "sha-512-256": H.SHA512_256, "sha-512-224": H.SHA512_224, "sha3-224": H.SHA3_224, "sha3-256": H.SHA3_256,
              "sha3-384": H.SHA3_384, "sha3-512": H.SHA3_512, "blake2b-512": lambda: H.BLAKE2b(64),
              "blake2s-256": lambda: H.BLAKE2s(32), "sm3": getattr(H, "SM3", None),
              "shake128": lambda: H.SHAKE128(32), "shake256": lambda: H.SHAKE256(64)}
    for name, alg in hashes.items():
        try:
            if not backend.hash_supported(alg()):
                continue
        except Exception:  # noqa: BLE001
            continue
        im.add(name, (words + paths.sha_words(name), paths.sha(name)), new=lambda alg=alg: HashObj(H.Hash(alg()), None))
    impls.append(im)


# ---------------------------------------------------------------------- PyNaCl
def add_pynacl(impls):
    try:
        import nacl
        import nacl.bindings as b
        from nacl.exceptions import CryptoError
    except Exception as e:  # noqa: BLE001
        im = Impl("pynacl", "PyNaCl", "")
        im.reason = f"cannot import PyNaCl: {e}"
        impls.append(im)
        return
    sodium = "bundled libsodium"
    im = Impl("pynacl", "PyNaCl", nacl.__version__, {"libsodium": sodium + " (PyNaCl exposes no version call)"})

    def aead(enc_fn, dec_fn):
        def seal(ctx, key, iv, aad, data):
            return enc_fn(bytes(data), aad or None, iv, key)

        def open_(ctx, key, iv, aad, data):
            try:
                return dec_fn(bytes(data), aad or None, iv, key)
            except CryptoError:
                return None
        return dict(keyed=lambda key: None, seal=seal, open=open_, stream=None)

    # libsodium's run-time choice on x86-64, as engine/adapters/sodium reads it: ChaCha20 in
    # AVX2, else SSSE3, else C; Poly1305 in SSE2; BLAKE2b in AVX2, SSE4.1, SSSE3 or C
    chacha = (("AVX2", ("avx2",)) if "avx2" in CPU else ("SSSE3", ("ssse3",)) if "ssse3" in CPU
              else ("portable C", PORTABLE)) if X86 else ("", None)
    poly = (("SSE2", ("sse2",)) if "sse2" in CPU else ("portable C", PORTABLE)) if X86 else ("", None)
    aead_words = f"ChaCha20 {chacha[0]}, Poly1305 {poly[0]}" if X86 else "libsodium's choice"
    im.add("chacha20-poly1305", (f"{sodium} ({aead_words}); one-shot, key passed per call", joined(chacha[1], poly[1])),
           **aead(b.crypto_aead_chacha20poly1305_ietf_encrypt, b.crypto_aead_chacha20poly1305_ietf_decrypt))
    im.add("xchacha20-poly1305", (f"{sodium} (HChaCha20 portable C, {aead_words}); one-shot, key passed per call",
                                  joined(chacha[1], poly[1])),
           **aead(b.crypto_aead_xchacha20poly1305_ietf_encrypt, b.crypto_aead_xchacha20poly1305_ietf_decrypt))
    if hasattr(b, "crypto_aead_aes256gcm_encrypt"):
        try:  # libsodium's AES-256-GCM exists only on CPUs with AES-NI + PCLMUL
            b.crypto_aead_aes256gcm_encrypt(b"x", None, bytes(12), bytes(32))
            im.add("aes-256-gcm", (f"{sodium} AES-NI + PCLMUL; one-shot, key passed per call", ("aes-ni", "pclmul")),
                   **aead(b.crypto_aead_aes256gcm_encrypt, b.crypto_aead_aes256gcm_decrypt))
        except Exception:  # noqa: BLE001
            pass

    class Blake2b:
        __slots__ = ("st", "n", "update")

        def __init__(self, n):
            self.st, self.n = b.crypto_generichash_blake2b_init(digest_size=n), n
            st = self.st
            self.update = lambda data: b.crypto_generichash_blake2b_update(st, data)

        def final(self):
            return b.crypto_generichash_blake2b_final(self.st)

    class OneShot:  # libsodium's SHA-2 through PyNaCl is one-shot: bulk hashing re-hashes each call
        __slots__ = ("fn", "data")

        def __init__(self, fn):
            self.fn, self.data = fn, None

        def update(self, data):
            self.data = self.fn(bytes(data))

        def final(self):
            return self.data

    blake = next(((w, (f,)) for f, w in (("avx2", "AVX2"), ("sse4_1", "SSE4.1"), ("ssse3", "SSSE3")) if f in CPU),
                 ("portable C", PORTABLE)) if X86 else ("libsodium's choice", None)
    blake = (blake[0], blake[1] if blake[1] != ("sse4_1",) else ("sse4.1",))
    for name, n in (("blake2b-512", 64), ("blake2b-256", 32)):
        im.add(name, (f"{sodium} (crypto_generichash, streaming; {blake[0]})", blake[1]), new=lambda n=n: Blake2b(n))
    one_shot_words = sodium + " (portable C); one-shot API: each update is a whole digest"
    im.add("sha-256", (one_shot_words, PORTABLE), new=lambda: OneShot(b.crypto_hash_sha256), oneshot=True)
    im.add("sha-512", (one_shot_words, PORTABLE), new=lambda: OneShot(b.crypto_hash_sha512), oneshot=True)
    impls.append(im)


def build_implementations():
    impls = []
    for add in (add_pycryptodome, add_pyca, add_pynacl):
        add(impls)
    return impls


IMPLS = build_implementations()


# ====================================================================== protocol
def unhex(req, field, required=False):
    v = req.get(field)
    if v is None:
        if required:
            raise Fail(f"missing field '{field}'")
        return b""
    if not isinstance(v, str):
        raise Fail(f"field '{field}' must be a hex string")
    if len(v) % 2:
        raise Fail(f"field '{field}' has an odd number of hex digits")
    try:
        return bytes.fromhex(v)
    except ValueError:
        raise Fail(f"field '{field}' is not hex") from None


def string(req, field):
    if field not in req:
        raise Fail(f"missing field '{field}'")
    if not isinstance(req[field], str):
        raise Fail(f"field '{field}' must be a string")
    return req[field]


def count(req, field, default, required=False):
    if field not in req:
        if required:
            raise Fail(f"missing field '{field}'")
        return default
    v = req[field]
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise Fail(f"field '{field}' must be a non-negative integer")
    return v


def hello():
    impls = []
    for im in IMPLS:
        j = {"name": im.name, "library": im.library, "version": im.version, "available": not im.reason,
             "primitives": [dict({"name": n, "provider": e.provider},
                                 **({"features": list(e.features)} if e.features is not None else {}))
                            for n, e in im.entries.items()]}
        if im.reason:
            j["reason"] = im.reason
        if im.notes:
            j["notes"] = im.notes
        impls.append(j)
    return {"status": "ok", "protocol": 1, "runner": "python", "language": "Python", "jit": False,
            "runtime": f"{platform.python_implementation()} {platform.python_version()}",
            "clocks": {"monotonic": "time.perf_counter_ns (CLOCK_MONOTONIC)", "tsc": None, "core_cycles": None},
            "vector_state": VECTOR_STATE,
            "implementations": impls}


def target(req):
    iname, pname = string(req, "impl"), string(req, "primitive")
    if pname not in REG:
        raise Fail(f"unknown primitive '{pname}' (not in the registry)")
    for im in IMPLS:
        if im.name == iname:
            if im.reason:
                raise Unsupported(f"{iname} is unavailable: {im.reason}")
            e = im.entries.get(pname)
            if e is None:
                raise Unsupported(f"{iname} does not offer {pname}")
            return e
    raise Fail(f"unknown implementation '{iname}'")


def check_lengths(p, key, iv, aad):
    if len(key) != p.key_bytes:
        raise Fail(f"{p.name} takes a {p.key_bytes}-byte key, got {len(key)}")
    if len(iv) != p.iv_bytes:
        raise Fail(f"{p.name} takes a {p.iv_bytes}-byte IV/nonce, got {len(iv)}")
    if aad and p.kind != "aead":
        raise Fail(f"{p.name} is not an AEAD and takes no associated data")


def check_input(p, n):
    if p.whole_blocks and n % p.block_bytes:
        raise Fail(f"{p.name} takes whole {p.block_bytes}-byte blocks (no padding), got {n} bytes")


def lib_call(p, fn, *args):
    try:
        return fn(*args)
    except (Fail, Unsupported):
        raise
    except Exception as e:  # noqa: BLE001  the library refused (e.g. a degenerate 3DES key)
        raise Fail(f"{p.name}: the library refused: {e}") from None


def chunk_parts(req, p, n):
    """The optional "chunks" field: lengths of consecutive update calls, then the rest."""
    v = req.get("chunks")
    if v is None:
        return ([n] if n else []), False
    if not isinstance(v, list):
        raise Fail("field 'chunks' must be a list of byte counts")
    parts, total = [], 0
    for x in v:
        if not isinstance(x, int) or isinstance(x, bool) or x <= 0:
            raise Fail("field 'chunks' must hold positive byte counts")
        if p.whole_blocks and x % p.block_bytes:
            raise Fail(f"{p.name} takes whole {p.block_bytes}-byte blocks: chunk of {x} bytes")
        if x > n - total:
            raise Fail(f"chunks add up to more than the {n}-byte input")
        total += x
        parts.append(x)
    if total < n:
        parts.append(n - total)
    return parts, True


def pieces(data, parts):
    out, at = [], 0
    for n in parts:
        out.append(data[at:at + n])
        at += n
    return out


def crypt(req, enc):
    e = target(req)
    p = e.prim
    if p.kind == "hash":
        raise Fail(f"{p.name} is a hash: use op 'hash'")
    if req.get("inplace") is True:
        raise Unsupported("this runner does not offer in-place operation ('inplace')")
    key, iv, aad, data = unhex(req, "key"), unhex(req, "iv"), unhex(req, "aad"), unhex(req, "input", True)
    check_lengths(p, key, iv, aad)
    if p.kind == "aead":
        if not enc and len(data) < p.tag_bytes:
            raise Fail(f"{p.name} decryption input must end with the {p.tag_bytes}-byte tag")
        n = len(data) - (0 if enc else p.tag_bytes)
        check_input(p, n)
        parts, chunked = chunk_parts(req, p, n)
        in_pieces = len(parts) > 1
        if in_pieces and not getattr(e, "seal_parts", None):
            raise Unsupported(f"{p.name} is one call per message in this API: it cannot take the input in chunks")
        ctx = lib_call(p, e.keyed, key)
        resp = {"status": "ok", "chunked": True} if chunked else {"status": "ok"}
        if enc:
            out = lib_call(p, e.seal_parts, ctx, key, iv, aad, pieces(data, parts)) if in_pieces else \
                lib_call(p, e.seal, ctx, key, iv, aad, data)
            return dict(resp, output=bytes(out).hex())
        if in_pieces:
            out = lib_call(p, e.open_parts, ctx, key, iv, aad, pieces(data[:n], parts), data[n:])
        else:
            out = lib_call(p, e.open, ctx, key, iv, aad, data)
        if out is None:
            return dict(resp, authentic=False)
        return dict(resp, authentic=True, output=bytes(out).hex())
    check_input(p, len(data))
    parts, chunked = chunk_parts(req, p, len(data))
    if len(parts) > 1 and getattr(e, "one_call", None):
        raise Unsupported(f"{p.name}: {e.one_call}, so it cannot take the input in chunks")
    x = lib_call(p, e.make, key, iv, enc)
    out = b"".join(bytes(lib_call(p, x.run, piece)) for piece in pieces(data, parts))
    resp = {"status": "ok", "output": out.hex()}
    if chunked:
        resp["chunked"] = True
    return resp


def hash_once(req):
    e = target(req)
    p = e.prim
    if p.kind != "hash":
        raise Fail(f"{p.name} is not a hash: use encrypt/decrypt")
    data = unhex(with_fill(req), "input", True)
    parts, chunked = chunk_parts(req, p, len(data))
    if len(parts) > 1 and getattr(e, "oneshot", False):
        raise Unsupported(f"{p.name} is one call per message in this API (each update is a whole digest): "
                          "it cannot take the input in chunks")
    h = e.new()
    at = 0
    for n in parts or [0]:  # in the pieces asked, as the timed bulk loop feeds a hash; an empty message once
        h.update(data[at:at + n])
        at += n
    r = {"status": "ok", "output": bytes(h.final()).hex()}
    if chunked:
        r["chunked"] = True
    if req.get("fill") is not None:
        r["filled"] = True
    return r


def bump(iv):  # next nonce: big-endian increment
    n = (int.from_bytes(iv, "big") + 1) % (1 << (8 * len(iv))) if iv else 0
    return n.to_bytes(len(iv), "big")


def result(ns):
    r = {"status": "ok", "ns": ns, "tsc": None, "core_cycles": None}
    if PROBE["readings"]:  # one reading before the first batch and one after each
        r["probe_cycles"] = PROBE["k"] * 1000
        r["probe_ns"] = [a for a, _, _ in PROBE["readings"]]
        r["probe_parallel_ns"] = [b for _, b, _ in PROBE["readings"]]
        if all(n is not None for _, _, n in PROBE["readings"]):
            r["probe_switches"] = [n for _, _, n in PROBE["readings"]]
    if STACK["offset"] is not None and STACK_PLACER is not None:  # honoured: echoed
        r["stack_offset"] = STACK["offset"]
        r["stack_at"] = STACK_PLACER[0].cb_stack_at()
    return r


def bench(req):
    offset = None if req.get("stack_offset") is None else count(req, "stack_offset", 0)
    if offset is not None and offset > 4095:
        raise Fail("stack_offset must be in 0..4095")
    probe = 0 if req.get("probe") is None else count(req, "probe", 0)
    if probe > 100000:
        raise Fail("probe must be in 0..100000")
    STACK["offset"] = offset
    PROBE.update(k=probe if PROBER is not None else 0, readings=[])
    try:
        return _bench(req)
    finally:
        STACK["offset"] = None
        PROBE.update(k=0, readings=[])


# The caps of docs/protocol.md ("bench"): far above any calibrated batch, they refuse a
# count that would run for hours instead of letting it reach the orchestrator's timeout.
MAX_LOOPS = 1_000_000_000
MAX_BATCH_BYTES = 1 << 36


def _bench(req):
    e = target(req)
    p = e.prim
    op = string(req, "operation")
    workload = string(req, "workload") if "workload" in req else "bulk"
    size = count(req, "size", 0, op not in ("keysetup", "keysetup-decrypt"))
    loops, batches = count(req, "loops", 0, True), count(req, "batches", 1)
    if loops == 0 or batches == 0:
        raise Fail("loops and batches must be at least 1")
    if batches > 100000:
        raise Fail("at most 100000 batches per request")
    if size > (1 << 30):
        raise Fail("size is limited to 1 GiB")
    if loops > MAX_LOOPS:
        raise Fail(f"loops must be at most {MAX_LOOPS}")
    if loops * max(size, 1) > MAX_BATCH_BYTES:
        raise Fail("loops x size must be at most 2^36 bytes per batch")
    if workload not in ("bulk", "message", "rekey"):
        raise Fail(f"unknown workload '{workload}'; accepted: bulk, message, rekey")
    buf = bytearray((bytes(range(256)) * (size // 256 + 1))[:size])  # byte i = i mod 256
    rng = range(loops)
    ns = []

    if p.kind == "hash":
        if op != "hash":
            raise Fail(f"{p.name} is a hash: operation must be 'hash'")
        if workload == "rekey":
            raise Fail("hashes have no key: use workload bulk or message")
        new = e.new
        buf = bytes(buf)
        for _ in range(batches):
            if workload == "bulk":
                h = new()

                def body(upd=h.update, buf=buf, rng=rng):
                    for _ in rng:
                        upd(buf)
                ns.append(timed(body))
                h.final()
            else:
                def body(new=new, buf=buf, rng=rng):
                    for _ in rng:
                        h = new()
                        h.update(buf)
                        h.final()
                ns.append(timed(body))
        return result(ns)

    key, iv, aad = unhex(req, "key"), unhex(req, "iv"), unhex(req, "aad")
    check_lengths(p, key, iv, aad)
    aead = p.kind == "aead"
    if op in ("keysetup", "keysetup-decrypt"):
        enc = op == "keysetup"
        if aead:
            f = e.keyed
            lib_call(p, f, key)
            args = (key,)
        else:  # these APIs set key and IV together: keysetup = making the cipher object
            f = e.make
            lib_call(p, f, key, iv, enc)
            args = (key, iv, enc)
        def body(f=f, args=args, rng=rng):
            for _ in rng:
                f(*args)
        for _ in range(batches):
            ns.append(timed(body))
        return result(ns)
    check_input(p, size)
    if op not in ("encrypt", "decrypt", "decrypt-forged"):
        raise Fail(f"unknown operation '{op}'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash")
    forged = op == "decrypt-forged"
    if forged and not aead:
        raise Fail("decrypt-forged applies to AEADs only")
    enc = op == "encrypt"

    if aead:
        ctx = lib_call(p, e.keyed, key)
        if enc:
            stream = e.stream and workload == "bulk"
            for _ in range(batches):
                if stream:  # one message, loops in-place calls, no finalisation inside the clock
                    def body(f=lib_call(p, e.stream, ctx, key, iv, aad, True, size * loops, size), buf=buf, rng=rng):
                        for _ in rng:
                            f(buf)
                elif workload == "bulk":  # one-shot API: every call is a whole seal under the same nonce
                    data = bytes(buf)
                    lib_call(p, e.seal, ctx, key, iv, aad, data)

                    def body(seal=e.seal, ctx=ctx, key=key, iv=iv, aad=aad, data=data, rng=rng):
                        for _ in rng:
                            seal(ctx, key, iv, aad, data)
                else:
                    data = bytes(buf)
                    lib_call(p, e.seal, ctx, key, iv, aad, data)
                    state = {"ctx": ctx, "iv": iv}  # the nonce goes on from batch to batch

                    def body(seal=e.seal, keyed=e.keyed, rekey=workload == "rekey", key=key, aad=aad,
                             data=data, rng=rng, state=state, bump=bump):
                        ctx, iv = state["ctx"], state["iv"]
                        for _ in rng:
                            if rekey:
                                ctx = keyed(key)
                            seal(ctx, key, iv, aad, data)
                            iv = bump(iv)
                        state["ctx"], state["iv"] = ctx, iv
                ns.append(timed(body))
                if workload != "bulk":
                    ctx, iv = state["ctx"], state["iv"]
            return result(ns)
        # A valid ciphertext and tag, made once outside the timing.
        sealed = bytearray(lib_call(p, e.seal, ctx, key, iv, aad, bytes(buf)))
        if forged:
            sealed[size] ^= 1
        sealed = bytes(sealed)
        accepted = [0]
        for _ in range(batches):
            if workload == "bulk" and e.stream:  # streaming decryption without the tag check
                def body(f=lib_call(p, e.stream, ctx, key, iv, aad, False, size * loops, size),
                         ct=bytearray(sealed[:size]), rng=rng):
                    for _ in rng:
                        f(ct)
            else:  # one-shot open of the valid (or forged) message, tag checked
                def body(op_=e.open, keyed=e.keyed, rekey=workload == "rekey", ctx=ctx, key=key, iv=iv,
                         aad=aad, sealed=sealed, rng=rng, accepted=accepted):
                    n = 0
                    for _ in rng:
                        if rekey:
                            ctx = keyed(key)
                        if op_(ctx, key, iv, aad, sealed) is not None:
                            n += 1
                    accepted[0] += n
            ns.append(timed(body))
        accepted = accepted[0]
        expect = 0 if forged else loops * batches
        checked = not (workload == "bulk" and e.stream)
        if checked and accepted != expect:
            what = "forged messages were accepted" if forged else "valid messages were accepted"
            raise Fail(f"{p.name}: {accepted} of {loops * batches} {what}")
        return result(ns)

    make = e.make
    x = lib_call(p, make, key, iv, enc)
    scratch(x, size)
    lib_call(p, x.run, bytes(buf[: min(size, 64 * max(1, p.block_bytes))]) if size else b"")
    state = {"iv": iv}  # the message workload's nonce goes on from batch to batch
    for _ in range(batches):
        if workload == "bulk":
            x = make(key, iv, enc)
            scratch(x, size)

            def body(f=x.bulk, buf=buf, rng=rng):
                for _ in rng:
                    f(buf)
        else:
            def body(make=make, key=key, enc=enc, data=bytes(buf), rng=rng, state=state, bump=bump):
                iv = state["iv"]
                for _ in rng:  # message = making the cipher object (key + IV in these APIs) and one call
                    make(key, iv, enc).run(data)
                    if enc:
                        iv = bump(iv)
                state["iv"] = iv
        ns.append(timed(body))
    return result(ns)


def ct_sample(req):
    """ct-sample (docs/protocol.md): single encryptions of a fixed and a random class,
    interleaved in an order drawn from the seed, each timed alone. These APIs set key and
    IV in one call, so every call includes its key setup; with vary "plaintext" that is
    the fixed key's in both classes. AEADs keep one keyed context when the key is fixed."""
    e = target(req)
    p = e.prim
    if p.kind == "hash":
        raise Unsupported(f"{p.name} is a hash: ct-sample times ciphers")
    vary = string(req, "vary")
    if vary not in ("key", "plaintext"):
        raise Fail("vary must be 'key' or 'plaintext'")
    samples, seed = count(req, "samples", 0, True), count(req, "seed", 0, True)
    if not 2 <= samples <= 1000000:
        raise Fail("samples must be in 2..1000000")
    key, iv, aad, msg = unhex(req, "key", True), unhex(req, "iv"), unhex(req, "aad"), unhex(req, "input", True)
    check_lengths(p, key, iv, aad)
    if not 1 <= len(msg) <= 65536:
        raise Fail("input must be 1 to 65536 bytes")
    check_input(p, len(msg))
    rng = random.Random(seed)
    classes = [rng.getrandbits(1) for _ in range(samples)]
    width = len(key) if vary == "key" else len(msg)
    fixed = key if vary == "key" else msg
    # every call its own buffer, the fixed class a copy: the classes differ in their values, never
    # in where they lie (one shared fixed buffer, always cached, reads as a leak)
    inputs = [rng.randbytes(width) if c else bytes(bytearray(fixed)) for c in classes]
    if p.kind == "aead":
        ctx = lib_call(p, e.keyed, key)
        if vary == "key":
            def call(x):
                e.seal(e.keyed(x), x, iv, aad, msg)
        else:
            def call(x):
                e.seal(ctx, key, iv, aad, x)
    elif vary == "key":
        def call(x):
            e.make(x, iv, True).run(msg)
    else:
        def call(x):
            e.make(key, iv, True).run(x)
    for x in inputs[:1000]:  # warm-up, untimed
        lib_call(p, call, x)
    clock, times = time.perf_counter_ns, []
    for x in inputs:
        t0 = clock()
        call(x)
        times.append(clock() - t0)
    return {"status": "ok", "vary": vary, "samples": samples, "timer": "time.perf_counter_ns ns",
            "classes": classes, "times": times}


def scratch(x, size):
    if x.scratch is not None and len(x.scratch) < size + 64:
        x.scratch.extend(bytes(size + 64 - len(x.scratch)))


FILL_MAX = 64 << 20  # the most generated bytes a request may ask for (docs/protocol.md)
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def fill_bytes(seed, n):
    """SHA-256(seed || 0) || SHA-256(seed || 1) || ..., 8-byte big-endian counters, cut to n bytes."""
    h, out = hashlib.sha256(seed), bytearray()
    for i in range((n + 31) // 32):
        c = h.copy()
        c.update(i.to_bytes(8, "big"))
        out += c.digest()
    del out[n:]
    return out


def with_fill(req):
    """req with the optional "fill" field's generated bytes put before its "input"."""
    fill = req.get("fill")
    if fill is None:
        return req
    if not isinstance(fill, dict):
        raise Fail("field 'fill' must be an object {\"seed\": hex, \"bytes\": N}")
    seed = fill.get("seed")
    if not isinstance(seed, str) or len(seed) % 2 or not set(seed) <= HEX_DIGITS:
        raise Fail(f"field 'fill.seed' must be a hex string, got {json.dumps(seed)}")
    n = fill.get("bytes")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= FILL_MAX:
        raise Fail(f"field 'fill.bytes' must be an integer from 0 to {FILL_MAX}, got {json.dumps(n)}")
    return dict(req, input=(fill_bytes(bytes.fromhex(seed), n) + unhex(req, "input", True)).hex())


def crypt_request(req, enc):
    """encrypt/decrypt with the optional "fill" and "digest" fields (docs/protocol.md):
    "fill" puts generated bytes before "input"; "digest" "sha256" answers "output_sha256"
    instead of "output". Both are handled here, around crypt()."""
    digest, fill = req.get("digest"), req.get("fill")
    if digest is not None and digest != "sha256":
        raise Fail(f"field 'digest' must be \"sha256\", got {json.dumps(digest)}")
    resp = crypt(with_fill(req), enc)
    if fill is not None:
        resp["filled"] = True
    if digest is not None and "output" in resp:  # a rejected forgery has neither
        resp["output_sha256"] = hashlib.sha256(bytes.fromhex(resp.pop("output"))).hexdigest()
    return resp


def handle(req):
    op = string(req, "op")
    if op == "hello":
        return hello()
    if op in ("encrypt", "decrypt"):
        return crypt_request(req, op == "encrypt")
    if op == "hash":
        return hash_once(req)
    if op == "bench":
        return bench(req)
    if op == "cpu-clock":
        raise Unsupported("the Python runner has no cpu-clock (an interpreter cannot run a cycle-exact add chain)")
    if op == "ct-sample":
        return ct_sample(req)
    raise Fail(f"unknown op '{op}'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit")


def _not_json(token):
    raise ValueError(f"{token} is not JSON")


def parse_request(line: bytes) -> dict:
    """The request on one line, or Fail. Python's json module takes NaN and Infinity (and
    turns 1e999 into inf), which JSON has not: refused here, so an id is echoed as valid JSON."""
    if not line.strip():
        raise Fail("blank line: a request must be a JSON object")  # every line is answered
    try:
        req = json.loads(line, parse_constant=_not_json)
        if not isinstance(req, dict):
            raise Fail("a request must be a JSON object")
        json.dumps(req.get("id"), allow_nan=False)
    except (ValueError, RecursionError) as ex:
        raise Fail(f"malformed request: not JSON ({ex})") from None
    return req


def main():
    out = sys.stdout
    for line in sys.stdin.buffer:
        rid = None
        try:
            req = parse_request(line)
            rid = req.get("id")
            if req.get("op") == "quit":
                break
            resp = handle(req)
        except Unsupported as ex:
            resp = {"status": "unsupported", "message": str(ex)}
        except Fail as ex:
            resp = {"status": "error", "message": str(ex)}
        except Exception as ex:  # noqa: BLE001  never crash on a request
            resp = {"status": "error", "message": f"internal error: {type(ex).__name__}: {ex}"}
        resp["id"] = rid
        out.write(json.dumps(resp, allow_nan=False) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
