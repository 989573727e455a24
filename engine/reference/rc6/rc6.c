/*
 * rc6.c: RC6-32/20/b (cbref cipher `rc6`).
 *
 * Cipher:    RC6. Designers: Ronald L. Rivest, Matt J. B. Robshaw, Ray Sidney,
 *            Yiqun Lisa Yin (RSA Laboratories).
 * Spec:      "The RC6 Block Cipher", version 1.1, August 20, 1998 (AES
 *            submission): word size w = 32, r rounds, b-byte key; key
 *            schedule with P32 = 0xB7E15163, Q32 = 0x9E3779B9 and
 *            v = 3 * max(c, 2r + 4) mixing steps.
 *
 * Rounds:    one unit of `rounds` = one RC6 round (the two quadratic
 *            functions, two data-dependent rotations, two subkey additions
 *            and the word rotation (A,B,C,D) = (B,C,D,A)). rounds = R selects
 *            the family member RC6-32/R/b exactly as the specification
 *            defines it: the key schedule then produces 2R + 4 subkeys (so
 *            every subkey depends on R), pre-whitening adds S[0], S[1] and
 *            post-whitening adds S[2R+2], S[2R+3]. rounds = 0 selects R = 20
 *            (the AES candidate); 1..20 accepted.
 *
 * Byte order: as in the specification and its test vectors (and NESSIE):
 *            the block bytes are loaded into A, B, C, D as little-endian
 *            words, the key bytes into L[] little-endian.
 *
 * Key lengths: 16, 24, 32 bytes are listed; set_key accepts any b in
 *            0..255 as the specification does. One schedule serves both
 *            directions (`dir` is ignored).
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "cbref_bits.h"

#define RC6_MAXR 20
#define RC6_P32 0xB7E15163u
#define RC6_Q32 0x9E3779B9u

typedef struct {
    uint32_t s[2 * RC6_MAXR + 4];
    unsigned rounds;
} rc6_ctx;

static int rc6_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir) {
    rc6_ctx *ctx = (rc6_ctx *)vctx;
    uint32_t L[64];
    (void)dir;
    if (key_len > 255) return CBREF_EKEYLEN;
    if (rounds > RC6_MAXR) return CBREF_EROUNDS;
    unsigned r = rounds ? rounds : 20;
    unsigned c = key_len ? (unsigned)(key_len + 3) / 4 : 1;
    unsigned t = 2 * r + 4;
    memset(L, 0, sizeof L);
    for (size_t i = 0; i < key_len; ++i) L[i / 4] |= (uint32_t)key[i] << (8 * (i % 4));
    ctx->rounds = r;
    ctx->s[0] = RC6_P32;
    for (unsigned i = 1; i < t; ++i) ctx->s[i] = ctx->s[i - 1] + RC6_Q32;
    uint32_t A = 0, B = 0;
    unsigned i = 0, j = 0, v = 3 * (c > t ? c : t);
    for (unsigned s = 0; s < v; ++s) {
        A = ctx->s[i] = cbref_rol32(ctx->s[i] + A + B, 3);
        B = L[j] = cbref_rol32(L[j] + A + B, A + B);
        if (++i == t) i = 0;
        if (++j == c) j = 0;
    }
    return CBREF_OK;
}

/* One round on (a, b, c, d) with subkeys S[2i], S[2i+1]; the caller
 * renames instead of rotating the four words. */
#define RC6_ER(a, b, c, d, i) do {                          \
        uint32_t t = b * (2 * b + 1), u = d * (2 * d + 1);  \
        t = (t << 5) | (t >> 27);                           \
        u = (u << 5) | (u >> 27);                           \
        a = cbref_rol32(a ^ t, u) + S[2 * (i)];                     \
        c = cbref_rol32(c ^ u, t) + S[2 * (i) + 1];                 \
    } while (0)

#define RC6_DR(a, b, c, d, i) do {                          \
        uint32_t t = b * (2 * b + 1), u = d * (2 * d + 1);  \
        t = (t << 5) | (t >> 27);                           \
        u = (u << 5) | (u >> 27);                           \
        c = cbref_ror32(c - S[2 * (i) + 1], t) ^ u;                 \
        a = cbref_ror32(a - S[2 * (i)], u) ^ t;                     \
    } while (0)

static void rc6_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const rc6_ctx *ctx = (const rc6_ctx *)vctx;
    const uint32_t *S = ctx->s;
    unsigned R = ctx->rounds, i = 1;
    uint32_t A = cbref_load32le(in), B = cbref_load32le(in + 4) + S[0], C = cbref_load32le(in + 8), D = cbref_load32le(in + 12) + S[1];
    /* four rounds per iteration bring the names back to (A, B, C, D) */
    for (; i + 3 <= R; i += 4) {
        RC6_ER(A, B, C, D, i);
        RC6_ER(B, C, D, A, i + 1);
        RC6_ER(C, D, A, B, i + 2);
        RC6_ER(D, A, B, C, i + 3);
    }
    for (; i <= R; ++i) {
        uint32_t t;
        RC6_ER(A, B, C, D, i);
        t = A; A = B; B = C; C = D; D = t;
    }
    A += S[2 * R + 2];
    C += S[2 * R + 3];
#ifdef CB_FAULT_INJECT
    /* A deliberate, test-only fault (registry/builds.toml, flag set "fault"; tests/test_builds.py):
       the last round's output whitening loses its low bit, so every RC6 encryption known answer
       fails while the cipher still runs. A build that defines this must fail verification. */
    C ^= 1;
#endif
    cbref_store32le(out, A); cbref_store32le(out + 4, B); cbref_store32le(out + 8, C); cbref_store32le(out + 12, D);
}

static void rc6_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const rc6_ctx *ctx = (const rc6_ctx *)vctx;
    const uint32_t *S = ctx->s;
    unsigned R = ctx->rounds, i = R;
    uint32_t A = cbref_load32le(in) - S[2 * R + 2], B = cbref_load32le(in + 4), C = cbref_load32le(in + 8) - S[2 * R + 3], D = cbref_load32le(in + 12);
    for (; i >= 4; i -= 4) {
        RC6_DR(D, A, B, C, i);
        RC6_DR(C, D, A, B, i - 1);
        RC6_DR(B, C, D, A, i - 2);
        RC6_DR(A, B, C, D, i - 3);
    }
    for (; i >= 1; --i) {
        uint32_t t = D; D = C; C = B; B = A; A = t;
        RC6_DR(A, B, C, D, i);
    }
    B -= S[0];
    D -= S[1];
    cbref_store32le(out, A); cbref_store32le(out + 4, B); cbref_store32le(out + 8, C); cbref_store32le(out + 12, D);
}

static const unsigned rc6_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_rc6 = {
    "rc6", "RC6-32/20/b", 16, rc6_keys, 20, RC6_MAXR,
    "RC6 round (RC6-32/R/b: the key schedule makes 2R+4 subkeys)",
    sizeof(rc6_ctx), rc6_set_key, rc6_encrypt, rc6_decrypt, 1};
