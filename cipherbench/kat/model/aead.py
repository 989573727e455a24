"""GCM, CCM, EAX and OCB3 over any 128-bit block cipher, written from their specifications.

Each mode is a pure function of
    ecb(blocks) -> blocks   the block cipher under the fixed key, encrypting a list of
                            independent 16-byte blocks (one request to an implementation's
                            ECB: see cipherbench/kat/model_oracle.py)
and the nonce, associated data and plaintext; it returns ciphertext || tag, as the
registry's AEADs do. Blocks that do not depend on each other go to ecb in one call (CTR
keystreams, OCB's blocks once the offsets are known); a CBC-MAC or CMAC chain needs one
call per block (EAX runs its independent chains side by side).

Sources (implemented from these texts, not from any code):
  GCM   NIST SP 800-38D (2007): GF(2^128) multiplication 6.3 (Algorithm 1), GHASH 6.4,
        GCTR 6.5, inc32 6.2, encryption 7.1 (any IV length of whole bytes: J0 = IV || 0^31 || 1
        for 96-bit IVs, else GHASH of the padded IV and its length).
  CCM   NIST SP 800-38C (2004): generation-encryption 6.1, formatting of the control
        information, nonce, associated data and payload appendix A.2 (A.2.1 B0 flags,
        A.2.2 the length encodings of the associated data), counter blocks A.3; nonce length
        7..13 bytes, tag length 4, 6, ..., 16 bytes.
  EAX   M. Bellare, P. Rogaway, D. Wagner, "The EAX Mode of Operation" (FSE 2004), section 3
        (figure 3: EAX.Encrypt; OMAC^t_K(M) = OMAC_K([t]_n || M); CTR with N' + i mod 2^n),
        and OMAC1 = CMAC, NIST SP 800-38B (2005) 6.1 (subkeys K1 = dbl(L), K2 = dbl(K1)) and
        6.2 (MAC generation).
  OCB3  RFC 7253 (2014): double() section 2, key-dependent values and HASH section 4.1,
        OCB-ENCRYPT section 4.2 (nonce of at most 120 bits; TAGLEN a parameter, the registry's
        is 128), OCB-DECRYPT section 4.3 (DECIPHER: the inverse cipher, a second oracle call).

Checked (tests/test_model_aead.py, with AES-ECB from the native engine as `ecb`):
  GCM  McGrew and Viega's test cases (vectors/aes-gcm.vec) and NIST CAVP
       gcmEncryptExtIV{128,192,256}.rsp, a record of every (IV, plaintext, AAD, tag) length
       section: IVs of 8, 96 and 1024 bits, tags of 32..128 bits;
  CCM  SP 800-38C appendix C examples 1 and 4 (2^16 bytes of AD: the 0xff 0xfe length
       encoding), NIST CAVP CCM VNT (nonces 7..13 bytes), VTT (tags 4..16), VADT, VPT and
       DVPT records, 128/192/256-bit keys; the 2-byte AD length encoding is checked only below
       256 bytes (no vector has 256..65279 bytes);
  EAX  the EAX paper's test vectors (Crypto++ TestVectors/eax.txt) and Wycheproof
       aes_eax_test.json (nonces of 0..257 bytes, 128/192/256-bit keys); its CMAC also on
       SP 800-38B appendix D.1 examples 1 and 2;
  OCB3 RFC 7253 appendix A's sample results (TAGLEN 128, and the TAGLEN 96 one), pyca's 104-,
       112- and 120-bit-nonce forms of them and OpenSSL's, and the RFC's iterated test for
       128-, 192- and 256-bit keys (cipherbench/kat/iterated.py); its decryption on the same
       sample results, with a changed tag refused (tests/test_model_siv.py).
Deliberate mutations (a wrong length field, flag, tweak, offset, stretch shift, padding bit
or subkey) each fail one of those tests, except moving CCM's 2-byte AD-length boundary.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

ECB = Callable[[list[bytes]], list[bytes]]
#: blocks -> the last block of their CBC encryption from a zero IV (a CBC-MAC chain, SP 800-38C
#: 6.1 step 4 and CMAC's): a megabyte in one call where the ecb would take one per block
CbcMac = Callable[[list[bytes]], bytes]


def cbc_mac_by_ecb(ecb: ECB) -> CbcMac:
    """The chain one ecb call per block: Y_i = CIPH_K(B_i xor Y_{i-1}), Y_0 = 0."""
    def mac(blocks: list[bytes]) -> bytes:
        y = bytes(BLOCK)
        for blk in blocks:
            y = ecb([xor(blk, y)])[0]
        return y
    return mac
BLOCK = 16
_MASK128 = (1 << 128) - 1


def xor(a: bytes, b: bytes) -> bytes:
    """Bytewise xor of two strings of the same length (callers truncate first: MSB_u)."""
    if len(a) != len(b):
        raise ValueError(f"xor of {len(a)} and {len(b)} bytes")
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")


def double(block: bytes) -> bytes:
    """Multiplication by x in GF(2^128) modulo x^128 + x^7 + x^2 + x + 1, the block read as a
    big-endian number: SP 800-38B 6.1's subkey step (L << 1, xor R_128 = 0^120 || 10000111
    when the dropped bit was 1) and RFC 7253 section 2's double(S)."""
    n = int.from_bytes(block, "big") << 1
    if n >> 128:
        n ^= (1 << 128) | 0x87
    return n.to_bytes(BLOCK, "big")


def _split(data: bytes) -> list[bytes]:
    """data in 16-byte pieces, the last possibly shorter (none for empty data)."""
    return [data[i:i + BLOCK] for i in range(0, len(data), BLOCK)]


def _pad16(data: bytes) -> bytes:
    """data followed by the fewest zero bytes that make whole blocks."""
    return data + bytes(-len(data) % BLOCK)


def _keystream_xor(data: bytes, pads: list[bytes]) -> bytes:
    """data xor the first len(data) bytes of the concatenated pads (the last block MSB_u)."""
    return xor(data, b"".join(pads)[:len(data)])


# ---------------------------------------------------------------------------- GCM
_R = 0xE1 << 120  # SP 800-38D 6.3: R = 11100001 || 0^120


def _gf_mult(x: int, y: int) -> int:
    """X . Y in GF(2^128), SP 800-38D 6.3 Algorithm 1; bit x_0 is the leftmost (most
    significant) bit of the block."""
    z, v = 0, y
    for i in range(127, -1, -1):  # x_0 .. x_127
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ _R if v & 1 else v >> 1
    return z


def ghash(h: bytes, data: bytes) -> bytes:
    """GHASH_H(X), SP 800-38D 6.4 Algorithm 2: Y_i = (Y_{i-1} xor X_i) . H, Y_0 = 0; X is a
    whole number of blocks."""
    if len(data) % BLOCK:
        raise ValueError("GHASH input must be whole blocks")
    hi, y = int.from_bytes(h, "big"), 0
    for blk in _split(data):
        y = _gf_mult(y ^ int.from_bytes(blk, "big"), hi)
    return y.to_bytes(BLOCK, "big")


def inc32(block: bytes) -> bytes:
    """SP 800-38D 6.2: the rightmost 32 bits incremented modulo 2^32, the rest unchanged."""
    return block[:12] + ((int.from_bytes(block[12:], "big") + 1) & 0xFFFFFFFF).to_bytes(4, "big")


def _counters(icb: bytes, n: int, inc: Callable[[bytes], bytes]) -> list[bytes]:
    out = [icb]
    while len(out) < n:
        out.append(inc(out[-1]))
    return out[:n]


def gcm_encrypt(ecb: ECB, iv: bytes, aad: bytes, plaintext: bytes, tag_bytes: int = 16) -> bytes:
    """GCM-AE_K(IV, P, A), SP 800-38D 7.1, returning C || T with T of tag_bytes bytes."""
    if not iv:
        raise ValueError("GCM needs an IV of at least one byte (SP 800-38D 5.2.1.1)")
    if not 1 <= tag_bytes <= 16:
        raise ValueError(f"GCM tag length {tag_bytes} is not 1..16 bytes")
    m = -(-len(plaintext) // BLOCK)
    if len(iv) == 12:  # step 2, 96-bit IV: J0 = IV || 0^31 || 1, so H and GCTR go in one call
        j0 = iv + b"\0\0\0\1"
        out = ecb([bytes(BLOCK)] + _counters(j0, m + 1, inc32))
        h, ej0, pads = out[0], out[1], out[2:]
    else:  # J0 = GHASH_H(IV || 0^(s+64) || [len(IV)]_64), s = 128 * ceil(len(IV)/128) - len(IV)
        h = ecb([bytes(BLOCK)])[0]
        j0 = ghash(h, _pad16(iv) + bytes(8) + (8 * len(iv)).to_bytes(8, "big"))
        out = ecb(_counters(j0, m + 1, inc32))
        ej0, pads = out[0], out[1:]
    c = _keystream_xor(plaintext, pads)  # step 3: C = GCTR_K(inc32(J0), P)
    lengths = (8 * len(aad)).to_bytes(8, "big") + (8 * len(c)).to_bytes(8, "big")
    s = ghash(h, _pad16(aad) + _pad16(c) + lengths)  # steps 4, 5
    return c + xor(ej0, s)[:tag_bytes]  # step 6: T = MSB_t(GCTR_K(J0, S)), one block: S xor E(J0)


# ---------------------------------------------------------------------------- CCM
def ccm_encrypt(ecb: ECB, nonce: bytes, aad: bytes, plaintext: bytes, tag_bytes: int = 16,
                cbc_mac: CbcMac | None = None) -> bytes:
    """CCM generation-encryption, SP 800-38C 6.1, with the formatting of appendix A.
    cbc_mac: the chain of step 4 computed elsewhere (CbcMac); by default one ecb call a block."""
    n, t = len(nonce), tag_bytes
    if not 7 <= n <= 13:
        raise ValueError(f"CCM nonce length {n} is not 7..13 bytes (SP 800-38C A.1)")
    if t not in (4, 6, 8, 10, 12, 14, 16):
        raise ValueError(f"CCM tag length {t} is not one of 4, 6, ..., 16 bytes (SP 800-38C A.1)")
    q = 15 - n
    if len(plaintext) >= 1 << (8 * q):
        raise ValueError(f"a {len(plaintext)}-byte payload does not fit CCM's {q}-byte length field")
    # A.2.1: B0 = Flags || N || Q, Flags = Reserved(0) || Adata || [(t-2)/2]_3 || [q-1]_3
    flags = (0x40 if aad else 0) | ((t - 2) // 2) << 3 | (q - 1)
    b0 = bytes([flags]) + nonce + len(plaintext).to_bytes(q, "big")
    a = len(aad)  # A.2.2: the length of the associated data, then the data, padded to blocks
    if a == 0:
        encoded = b""
    elif a < (1 << 16) - (1 << 8):
        encoded = a.to_bytes(2, "big")
    elif a < 1 << 32:
        encoded = b"\xff\xfe" + a.to_bytes(4, "big")
    else:
        encoded = b"\xff\xff" + a.to_bytes(8, "big")
    rest = _split(_pad16(encoded + aad) + _pad16(plaintext))  # B1 .. Br (A.2.2, A.2.3)
    # A.3: Ctr_j = Flags' || N || [j]_8q, Flags' = [q-1]_3; Ctr_0 masks the tag, Ctr_1.. the payload
    m = -(-len(plaintext) // BLOCK)
    ctrs = [bytes([q - 1]) + nonce + j.to_bytes(q, "big") for j in range(m + 1)]
    out = ecb([b0] + ctrs)  # Y0 = CIPH_K(B0) needs no chaining, so it joins the counter blocks
    y, s = out[0], out[1:]
    if cbc_mac is not None:
        y = cbc_mac([b0] + rest)
    else:
        for blk in rest:  # 6.1 step 4: Y_i = CIPH_K(B_i xor Y_{i-1})
            y = ecb([xor(blk, y)])[0]
    c = _keystream_xor(plaintext, s[1:])  # steps 6-8: C = (P xor MSB_Plen(S)) || (T xor MSB_t(S0))
    return c + xor(y[:t], s[0][:t])


# ---------------------------------------------------------------------------- CMAC / OMAC1
def cmac_many(ecb: ECB, messages: list[bytes], l: bytes | None = None,
              cbc_mac: CbcMac | None = None) -> list[bytes]:
    """CMAC (SP 800-38B 6.2; OMAC1 in the EAX paper) of each message under the same key, the
    chains run side by side: one ecb call per block position, or one cbc_mac call per message
    where given. l = CIPH_K(0^128) when the caller already has it."""
    if l is None:
        l = ecb([bytes(BLOCK)])[0]
    k1 = double(l)  # 6.1 steps 2-3
    k2 = double(k1)  # step 4
    padded = []
    for msg in messages:
        if msg and len(msg) % BLOCK == 0:  # 6.2 step 4: a complete last block xor K1
            padded.append(msg[:-BLOCK] + xor(msg[-BLOCK:], k1))
        else:  # otherwise M_n* || 1 || 0^j, xor K2
            last = msg[len(msg) - len(msg) % BLOCK:]
            full = last + b"\x80" + bytes(BLOCK - 1 - len(last))
            padded.append(msg[:len(msg) - len(last)] + xor(full, k2))
    if cbc_mac is not None:
        return [cbc_mac(_split(p)) for p in padded]
    chains = [bytes(BLOCK)] * len(messages)
    for pos in range(0, max((len(p) for p in padded), default=0), BLOCK):
        live = [i for i, p in enumerate(padded) if len(p) > pos]
        outs = ecb([xor(chains[i], padded[i][pos:pos + BLOCK]) for i in live])
        for i, o in zip(live, outs):
            chains[i] = o
    return chains


# ---------------------------------------------------------------------------- EAX
def _inc128(block: bytes) -> bytes:
    """The block plus one modulo 2^128 (EAX's CTR: N' + i, addition mod 2^n)."""
    return ((int.from_bytes(block, "big") + 1) & _MASK128).to_bytes(BLOCK, "big")


def eax_encrypt(ecb: ECB, nonce: bytes, aad: bytes, plaintext: bytes, tag_bytes: int = 16,
                cbc_mac: CbcMac | None = None) -> bytes:
    """EAX.Encrypt^{N,H}_K(M) (Bellare, Rogaway, Wagner 2004, section 3), returning C || T.
    cbc_mac: OMAC's chains computed elsewhere (CbcMac), as cmac_many takes it."""
    if not 1 <= tag_bytes <= 16:
        raise ValueError(f"EAX tag length {tag_bytes} is not 1..16 bytes")

    def tweak(t: int) -> bytes:  # [t]_n: t as an n-bit (16-byte) string
        return t.to_bytes(BLOCK, "big")

    l = ecb([bytes(BLOCK)])[0]
    n_mac, h_mac = cmac_many(ecb, [tweak(0) + nonce, tweak(1) + aad], l)  # N', H'
    m = -(-len(plaintext) // BLOCK)
    c = _keystream_xor(plaintext, ecb(_counters(n_mac, m, _inc128)) if m else [])  # CTR^{N'}_K(M)
    (c_mac,) = cmac_many(ecb, [tweak(2) + c], l, cbc_mac)  # C' = OMAC^2_K(C)
    tag = xor(xor(n_mac, c_mac), h_mac)
    return c + tag[:tag_bytes]


def eax_nonce_for(ecb: ECB, ecb_decrypt: ECB, n_mac: bytes) -> bytes:
    """The 16-byte nonce N whose OMAC^0_K(N), EAX's first counter block N', is n_mac: CMAC of
    [0]_16 || N chains L = CIPH_K(0^128) after its first block, and its last, complete, block
    is N xor K1 (SP 800-38B 6.2), so N' = CIPH_K(L xor N xor K1) and N = CIPH_K^-1(N') xor L
    xor K1."""
    l = ecb([bytes(BLOCK)])[0]
    return xor(xor(ecb_decrypt([n_mac])[0], l), double(l))


# ---------------------------------------------------------------------------- OCB3
def _ntz(i: int) -> int:
    """Trailing zero bits of i > 0 (RFC 7253 section 2)."""
    return (i & -i).bit_length() - 1


def _ocb_start(ecb: ECB, nonce: bytes, tag_bytes: int) -> tuple[bytes, bytes, Callable[[int], bytes], bytes]:
    """RFC 7253 section 4.1's key-dependent values and the nonce-dependent Offset_0 of sections
    4.2/4.3, in one ecb call: (L_*, L_$, i -> L_i, Offset_0)."""
    if not 1 <= len(nonce) <= 15:
        raise ValueError(f"OCB nonce length {len(nonce)} is not 1..15 bytes (RFC 7253 section 4.2)")
    if not 1 <= tag_bytes <= 16:
        raise ValueError(f"OCB tag length {tag_bytes} is not 1..16 bytes")
    taglen = 8 * tag_bytes
    # Nonce = num2str(TAGLEN mod 128, 7) || zeros(120 - bitlen(N)) || 1 || N
    nonce_num = (taglen % 128) << 121 | 1 << (8 * len(nonce)) | int.from_bytes(nonce, "big")
    bottom = nonce_num & 0x3F  # str2num(Nonce[123..128])
    l_star, ktop_block = ecb([bytes(BLOCK), (nonce_num & ~0x3F).to_bytes(BLOCK, "big")])
    ktop = int.from_bytes(ktop_block, "big")  # ENCIPHER(K, Nonce[1..122] || zeros(6))
    stretch = ktop << 64 | ((ktop >> 64) ^ ((ktop >> 56) & ((1 << 64) - 1)))  # Ktop || (Ktop[1..64] xor Ktop[9..72])
    offset = ((stretch >> (64 - bottom)) & _MASK128).to_bytes(BLOCK, "big")  # Stretch[1+bottom..128+bottom]
    l_dollar = double(l_star)  # section 4.1: L_$ = double(L_*), L_0 = double(L_$), L_i = double(L_{i-1})
    ls = [double(l_dollar)]

    def l_at(i: int) -> bytes:
        while len(ls) <= i:
            ls.append(double(ls[-1]))
        return ls[i]
    return l_star, l_dollar, l_at, offset


def _ocb_hash_inputs(aad: bytes, l_star: bytes, l_at: Callable[[int], bytes]) -> list[bytes]:
    """The ENCIPHER inputs of HASH(K, A), section 4.1 (their outputs xor to HASH):
    Offset_i = Offset_{i-1} xor L_{ntz(i)}, input A_i xor Offset_i; for A_*, Offset_* =
    Offset_m xor L_*, input (A_* || 1 || 0*) xor Offset_*."""
    inputs = []
    a_blocks = _split(aad)
    a_full = a_blocks if not a_blocks or len(a_blocks[-1]) == BLOCK else a_blocks[:-1]
    a_off = bytes(BLOCK)
    for i, blk in enumerate(a_full, 1):
        a_off = xor(a_off, l_at(_ntz(i)))
        inputs.append(xor(blk, a_off))
    if len(a_full) < len(a_blocks):
        star = a_blocks[-1]
        inputs.append(xor(_star_pad(star), xor(a_off, l_star)))
    return inputs


def _xor_all(blocks: list[bytes]) -> bytes:
    out = bytes(BLOCK)
    for blk in blocks:
        out = xor(out, blk)
    return out


def _ocb_offsets(offset: bytes, l_at: Callable[[int], bytes], m: int) -> tuple[bytes, bytes]:
    """Offset_1 .. Offset_m concatenated (Offset_i = Offset_{i-1} xor L_{ntz(i)}, sections
    4.2/4.3) and Offset_m (Offset_0 when m = 0), kept as numbers: a megabyte's 65,536 offsets
    in a blink, where bytes xors took seconds."""
    cur = int.from_bytes(offset, "big")
    ls = [int.from_bytes(l_at(k), "big") for k in range(max(1, m.bit_length()))]
    out = []
    for i in range(1, m + 1):
        cur ^= ls[_ntz(i)]
        out.append(cur.to_bytes(BLOCK, "big"))
    return b"".join(out), cur.to_bytes(BLOCK, "big")


def _checksum(data: bytes) -> bytes:
    """The xor of data's 16-byte blocks (whole blocks; zero for none): P_1 xor ... xor P_m."""
    if not data:
        return bytes(BLOCK)
    return np.bitwise_xor.reduce(np.frombuffer(data, dtype=np.uint8).reshape(-1, BLOCK), axis=0).tobytes()


def _star_pad(star: bytes) -> bytes:
    """P_* || 1 || zeros(127 - bitlen(P_*))."""
    return star + b"\x80" + bytes(BLOCK - 1 - len(star))


def ocb_encrypt(ecb: ECB, nonce: bytes, aad: bytes, plaintext: bytes, tag_bytes: int = 16) -> bytes:
    """OCB-ENCRYPT(K, N, A, P), RFC 7253 section 4.2 (HASH section 4.1), returning C || T with
    TAGLEN = 8 * tag_bytes. Two ecb calls: L_* and Ktop, then every other block at once (the
    offsets and checksum depend on L_* and Ktop and the plaintext only)."""
    l_star, l_dollar, l_at, offset = _ocb_start(ecb, nonce, tag_bytes)
    inputs = _ocb_hash_inputs(aad, l_star, l_at)  # every remaining ENCIPHER input, in the order used below
    n_hash = len(inputs)
    # Encryption: Offset_i = Offset_{i-1} xor L_{ntz(i)}, C_i = Offset_i xor ENCIPHER(K, P_i xor Offset_i),
    # Checksum_m = P_1 xor ... xor P_m
    m = len(plaintext) // BLOCK
    full, star = plaintext[:m * BLOCK], plaintext[m * BLOCK:]
    offsets, offset = _ocb_offsets(offset, l_at, m)
    inputs += _split(xor(full, offsets))
    checksum = _checksum(full)
    if star:  # P_*: Offset_* = Offset_m xor L_*, Pad = ENCIPHER(K, Offset_*)
        offset = xor(offset, l_star)
        inputs.append(offset)
        checksum = xor(checksum, _star_pad(star))
    inputs.append(xor(xor(checksum, offset), l_dollar))  # Tag = ENCIPHER(K, Checksum xor Offset xor L_$) xor HASH
    out = ecb(inputs)
    hash_sum = _xor_all(out[:n_hash])
    enc = out[n_hash:]
    c = xor(offsets, b"".join(enc[:m]))
    if star:
        c += xor(star, enc[m][:len(star)])
    return c + xor(enc[-1], hash_sum)[:tag_bytes]


def ocb_decrypt(ecb: ECB, ecb_decrypt: ECB, nonce: bytes, aad: bytes, sealed: bytes,
                tag_bytes: int = 16) -> bytes | None:
    """OCB-DECRYPT(K, N, A, C || T), RFC 7253 section 4.3: P, or None (INVALID) when T is not
    the tag ocb_decipher computes. ecb_decrypt is DECIPHER(K, .), the inverse cipher under
    the same key."""
    if len(sealed) < tag_bytes:
        return None
    ciphertext, t = sealed[:len(sealed) - tag_bytes], sealed[len(sealed) - tag_bytes:]
    p, tag = ocb_decipher(ecb, ecb_decrypt, nonce, aad, ciphertext, tag_bytes)
    return p if tag == t else None


def ocb_decipher(ecb: ECB, ecb_decrypt: ECB, nonce: bytes, aad: bytes, ciphertext: bytes,
                 tag_bytes: int = 16) -> tuple[bytes, bytes]:
    """OCB-DECRYPT's computation (RFC 7253 section 4.3) on C without its tag: (P, Tag), the
    tag the received one must equal. All the full blocks go to ecb_decrypt in one call: P_i =
    Offset_i xor DECIPHER(K, C_i xor Offset_i), Checksum_i = Checksum_{i-1} xor P_i; a final
    partial block C_* is xored with Pad = ENCIPHER(K, Offset_*) as in encryption, and Tag =
    ENCIPHER(K, Checksum xor Offset xor L_$) xor HASH(K, A)."""
    l_star, l_dollar, l_at, offset = _ocb_start(ecb, nonce, tag_bytes)
    m = len(ciphertext) // BLOCK
    full, star = ciphertext[:m * BLOCK], ciphertext[m * BLOCK:]
    offsets, offset = _ocb_offsets(offset, l_at, m)
    deciphered = b"".join(ecb_decrypt(_split(xor(full, offsets)))) if m else b""
    p_full = xor(offsets, deciphered)
    checksum = _checksum(p_full)
    inputs = _ocb_hash_inputs(aad, l_star, l_at)
    n_hash = len(inputs)
    if star:  # Offset_* = Offset_m xor L_*, Pad = ENCIPHER(K, Offset_*)
        offset = xor(offset, l_star)
        inputs.append(offset)
    out = ecb(inputs) if inputs else []
    p_star = xor(star, out[n_hash][:len(star)]) if star else b""
    if star:  # Checksum_* = Checksum_m xor (P_* || 1 || zeros(127 - bitlen(P_*)))
        checksum = xor(checksum, _star_pad(p_star))
    (full_tag,) = ecb([xor(xor(checksum, offset), l_dollar)])  # Tag = ENCIPHER(...) xor HASH(K, A)
    return p_full + p_star, xor(full_tag, _xor_all(out[:n_hash]))[:tag_bytes]


#: registry mode -> the model's encrypt function
ENCRYPT = {"gcm": gcm_encrypt, "ccm": ccm_encrypt, "eax": eax_encrypt, "ocb": ocb_encrypt}
