/*
 * CAST-256 (a.k.a. CAST6), AES round-1 candidate.
 * Designers: Carlisle Adams (with Howard Heys, Stafford Tavares, Michael
 * Wiener), Entrust Technologies.
 * Specification: C. Adams, J. Gilchrist, "The CAST-256 Encryption Algorithm",
 * RFC 2612, June 1999 (identical to the 1998 AES submission). S-boxes S1..S4
 * are those of CAST-128, RFC 2144 Appendix A (see cast256_sbox.h).
 *
 * Written from the specification text; no code was copied.
 *
 * Structure: 48 rounds grouped as 12 quad-rounds. Quad-rounds 0..5 are
 * "forward" quad-rounds Q(i) and quad-rounds 6..11 are "reverse" quad-rounds
 * QBAR(i) (RFC 2612 section 2.4).
 *
 * `rounds` unit: ONE QUAD-ROUND (4 of the 48 rounds), so the full cipher is
 * rounds = 12, which matches the unit of the published 1999 "minimum secure
 * rounds" table (10 quad-rounds). A reduced variant with r quad-rounds is the
 * prefix of the full cipher: quad-rounds 0..r-1 with the full key schedule's
 * subkeys Kr(i), Km(i), i.e. Q(i) for i < 6 and QBAR(i) for 6 <= i < r.
 * Decryption applies the exact inverse of that prefix.
 *
 * Byte order: the 128-bit block is four 32-bit words A,B,C,D and the key is
 * up to eight words k_A..k_H, each loaded BIG-ENDIAN from the byte string in
 * the order printed in RFC 2612 Appendix A; the RFC vectors pass as printed.
 * Key lengths: 16, 20, 24, 28 or 32 bytes (RFC 2612 allows 128..256 bits in
 * 32-bit steps; shorter keys are zero-padded to 256 bits).
 */
#include <string.h>
#include "cbref.h"
#include "cbref_bits.h"
#include "cast256_sbox.h"

#define CAST256_QUADS 12

typedef struct {
    uint32_t km[CAST256_QUADS][4];
    uint8_t kr[CAST256_QUADS][4];
    unsigned quads;
} cast256_ctx;

/* The three round-function types of RFC 2612 section 2.2. */
static inline uint32_t f1(uint32_t d, uint32_t km, unsigned kr) {
    uint32_t i = cbref_rol32(km + d, kr);
    return ((cast_s1[i >> 24] ^ cast_s2[(i >> 16) & 0xff]) - cast_s3[(i >> 8) & 0xff]) + cast_s4[i & 0xff];
}
static inline uint32_t f2(uint32_t d, uint32_t km, unsigned kr) {
    uint32_t i = cbref_rol32(km ^ d, kr);
    return ((cast_s1[i >> 24] - cast_s2[(i >> 16) & 0xff]) + cast_s3[(i >> 8) & 0xff]) ^ cast_s4[i & 0xff];
}
static inline uint32_t f3(uint32_t d, uint32_t km, unsigned kr) {
    uint32_t i = cbref_rol32(km - d, kr);
    return ((cast_s1[i >> 24] + cast_s2[(i >> 16) & 0xff]) ^ cast_s3[(i >> 8) & 0xff]) - cast_s4[i & 0xff];
}

static int cast256_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir) {
    cast256_ctx *ctx = (cast256_ctx *)vctx;
    uint8_t kb[32];
    uint32_t k[8];
    (void)dir; /* one schedule serves both directions */
    if (key_len < 16 || key_len > 32 || key_len % 4) return CBREF_EKEYLEN;
    if (rounds > CAST256_QUADS) return CBREF_EROUNDS;
    ctx->quads = rounds ? rounds : CAST256_QUADS;
    memset(kb, 0, sizeof kb);
    memcpy(kb, key, key_len);
    for (int i = 0; i < 8; ++i) k[i] = cbref_load32be(kb + 4 * i);

    /* Tm/Tr generation (RFC 2612 section 2.4): Cm = 2^30*sqrt(2), Mm = 2^30*sqrt(3),
     * Cr = 19, Mr = 17, stepped once per (i, j) in the order i = 0..23, j = 0..7. */
    uint32_t cm = 0x5A827999u;
    unsigned cr = 19;
    for (int i = 0; i < 12; ++i) {
        for (int half = 0; half < 2; ++half) {
            uint32_t tm[8];
            unsigned tr[8];
            for (int j = 0; j < 8; ++j) {
                tm[j] = cm; cm += 0x6ED9EBA1u;
                tr[j] = cr; cr = (cr + 17) & 31;
            }
            /* forward octave W(2i + half); k[0..7] = A..H */
            k[6] ^= f1(k[7], tm[0], tr[0]);
            k[5] ^= f2(k[6], tm[1], tr[1]);
            k[4] ^= f3(k[5], tm[2], tr[2]);
            k[3] ^= f1(k[4], tm[3], tr[3]);
            k[2] ^= f2(k[3], tm[4], tr[4]);
            k[1] ^= f3(k[2], tm[5], tr[5]);
            k[0] ^= f1(k[1], tm[6], tr[6]);
            k[7] ^= f2(k[0], tm[7], tr[7]);
        }
        ctx->kr[i][0] = (uint8_t)(k[0] & 31); /* A */
        ctx->kr[i][1] = (uint8_t)(k[2] & 31); /* C */
        ctx->kr[i][2] = (uint8_t)(k[4] & 31); /* E */
        ctx->kr[i][3] = (uint8_t)(k[6] & 31); /* G */
        ctx->km[i][0] = k[7];                 /* H */
        ctx->km[i][1] = k[5];                 /* F */
        ctx->km[i][2] = k[3];                 /* D */
        ctx->km[i][3] = k[1];                 /* B */
    }
    return CBREF_OK;
}

#define QFWD(i)                                            \
    do {                                                   \
        c ^= f1(d, ctx->km[i][0], ctx->kr[i][0]);          \
        b ^= f2(c, ctx->km[i][1], ctx->kr[i][1]);          \
        a ^= f3(b, ctx->km[i][2], ctx->kr[i][2]);          \
        d ^= f1(a, ctx->km[i][3], ctx->kr[i][3]);          \
    } while (0)
#define QREV(i)                                            \
    do {                                                   \
        d ^= f1(a, ctx->km[i][3], ctx->kr[i][3]);          \
        a ^= f3(b, ctx->km[i][2], ctx->kr[i][2]);          \
        b ^= f2(c, ctx->km[i][1], ctx->kr[i][1]);          \
        c ^= f1(d, ctx->km[i][0], ctx->kr[i][0]);          \
    } while (0)

static void cast256_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const cast256_ctx *ctx = (const cast256_ctx *)vctx;
    uint32_t a = cbref_load32be(in), b = cbref_load32be(in + 4), c = cbref_load32be(in + 8), d = cbref_load32be(in + 12);
    unsigned n = ctx->quads;
    if (n == CAST256_QUADS) {
        QFWD(0); QFWD(1); QFWD(2); QFWD(3); QFWD(4); QFWD(5);
        QREV(6); QREV(7); QREV(8); QREV(9); QREV(10); QREV(11);
    } else {
        for (unsigned i = 0; i < n; ++i) {
            if (i < 6) QFWD(i); else QREV(i);
        }
    }
    cbref_store32be(out, a); cbref_store32be(out + 4, b); cbref_store32be(out + 8, c); cbref_store32be(out + 12, d);
}

static void cast256_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const cast256_ctx *ctx = (const cast256_ctx *)vctx;
    uint32_t a = cbref_load32be(in), b = cbref_load32be(in + 4), c = cbref_load32be(in + 8), d = cbref_load32be(in + 12);
    unsigned n = ctx->quads;
    if (n == CAST256_QUADS) {
        QFWD(11); QFWD(10); QFWD(9); QFWD(8); QFWD(7); QFWD(6);
        QREV(5); QREV(4); QREV(3); QREV(2); QREV(1); QREV(0);
    } else {
        /* inverse of QREV(i) is QFWD(i) and vice versa */
        for (unsigned i = n; i-- > 0;) {
            if (i >= 6) QFWD(i); else QREV(i);
        }
    }
    cbref_store32be(out, a); cbref_store32be(out + 4, b); cbref_store32be(out + 8, c); cbref_store32be(out + 12, d);
}

static const unsigned cast256_keys[] = {16, 20, 24, 28, 32, 0};

const cbref_cipher cbref_cast256 = {
    .name = "cast256",
    .full_name = "CAST-256 (RFC 2612)",
    .block_bytes = 16,
    .key_bytes = cast256_keys,
    .default_rounds = CAST256_QUADS,
    .max_rounds = CAST256_QUADS,
    .rounds_unit = "quad-round (4 of the 48 rounds)",
    .ctx_bytes = sizeof(cast256_ctx),
    .set_key = cast256_set_key,
    .encrypt = cast256_encrypt,
    .decrypt = cast256_decrypt,
    .registry_rounds_per_unit = 4,  /* RFC 2612: 48 rounds = 12 quad-rounds */
};
