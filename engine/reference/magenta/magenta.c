/*
 * MAGENTA (Multifunctional Algorithm for General-purpose Encryption and
 * Network Telecommunication Applications): 128-bit block, 128/192/256-bit keys.
 * Designers: Michael J. Jacobson Jr., Klaus Huber (Deutsche Telekom AG).
 * Specification: M. J. Jacobson, K. Huber, "The MAGENTA Block Cipher
 *   Algorithm", AES round-1 submission, Deutsche Telekom, June 1998.
 *
 * Structure: Feistel network on two 64-bit halves, round
 *   (X1, X2) -> (X2, X1 ^ F(X2, SK_i)), with
 *   f(x) = alpha^x in GF(2^8) mod x^8+x^6+x^5+x^2+1 (f(255) = 0),
 *   A(x, y) = f(x ^ f(y)), PE(x, y) = (A(x, y), A(y, x)),
 *   Pi(x0..x15) = PE(x0, x8) || PE(x1, x9) || ... || PE(x7, x15),
 *   T = Pi^4, S(x0..x15) = (x0, x2, ..., x14, x1, x3, ..., x15),
 *   C(1, w) = T(w), C(j, w) = T(w ^ S(C(j-1, w))),
 *   F(X2, SK) = first 8 bytes of S(C(3, X2 || SK)).
 *   Subkeys: K1 K1 K2 K2 K1 K1 (128-bit key = K1 K2), K1 K2 K3 K3 K2 K1
 *   (192), K1 K2 K3 K4 K4 K3 K2 K1 (256): 6, 6 and 8 rounds.
 * rounds: one unit = one Feistel round. 0 = full (6 for 128/192-bit keys, 8
 *   for 256-bit keys). A count r below the full one runs the first r rounds
 *   of the schedule; decrypt inverts them (it does not rely on the symmetric
 *   schedule). max_rounds is 8 for every key length: for 128/192-bit keys,
 *   rounds 7 and 8 are an EXTENDED, non-standard variant that continues the
 *   schedule cyclically (round i uses the subkey of round ((i-1) mod 6) + 1,
 *   i.e. K1 K1 for 128-bit keys and K1 K2 for 192-bit keys).
 * Byte order: as printed in the submission's KAT files (magenta-vals.zip):
 *   X1 = block bytes 0..7, X2 = bytes 8..15, K1 = key bytes 0..7, etc.; the
 *   byte string w of the spec is taken in that order.
 * Tables: the 256-byte table of f is a const literal made by a throwaway
 *   generator (magenta_tables.h). One schedule for both directions: `dir`
 *   is ignored.
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "magenta_tables.h"

#define MAGENTA_MAX_ROUNDS 8

typedef struct {
    uint8_t sk[MAGENTA_MAX_ROUNDS][8];
    unsigned rounds;
} magenta_ctx;

/* One Pi step: out[2i] = A(x_i, x_{i+8}), out[2i+1] = A(x_{i+8}, x_i). */
static inline void magenta_pi(const uint8_t *x, uint8_t *o) {
    for (int i = 0; i < 8; ++i) {
        uint8_t a = x[i], b = x[i + 8];
        o[2 * i] = magenta_f[a ^ magenta_f[b]];
        o[2 * i + 1] = magenta_f[b ^ magenta_f[a]];
    }
}

static inline void magenta_t(uint8_t *w) {
    uint8_t t[16];
    magenta_pi(w, t);
    magenta_pi(t, w);
    magenta_pi(w, t);
    magenta_pi(t, w);
}

/* F(x2, sk) XORed into x1 (all 8-byte strings). */
static inline void magenta_round(uint8_t *x1, const uint8_t *x2, const uint8_t *sk) {
    uint8_t w[16], c[16];
    memcpy(w, x2, 8);
    memcpy(w + 8, sk, 8);
    memcpy(c, w, 16);
    magenta_t(c);                               /* C(1) */
    for (int j = 2; j <= 3; ++j) {
        uint8_t s[16];
        for (int i = 0; i < 8; ++i) {           /* w ^ S(C(j-1)) */
            s[i] = w[i] ^ c[2 * i];
            s[i + 8] = w[i + 8] ^ c[2 * i + 1];
        }
        memcpy(c, s, 16);
        magenta_t(c);                           /* C(j) */
    }
    for (int i = 0; i < 8; ++i) x1[i] ^= c[2 * i]; /* first half of S(C(3)) */
}

static int magenta_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds,
                           int dir) {
    static const uint8_t order128[6] = {0, 0, 1, 1, 0, 0};
    static const uint8_t order192[6] = {0, 1, 2, 2, 1, 0};
    static const uint8_t order256[8] = {0, 1, 2, 3, 3, 2, 1, 0};
    magenta_ctx *ctx = vctx;
    const uint8_t *order;
    unsigned full;
    (void)dir;
    switch (key_len) {
    case 16: order = order128; full = 6; break;
    case 24: order = order192; full = 6; break;
    case 32: order = order256; full = 8; break;
    default: return CBREF_EKEYLEN;
    }
    if (rounds > MAGENTA_MAX_ROUNDS) return CBREF_EROUNDS;
    ctx->rounds = rounds ? rounds : full;
    for (unsigned i = 0; i < ctx->rounds; ++i) memcpy(ctx->sk[i], key + 8 * order[i % full], 8);
    return CBREF_OK;
}

static void magenta_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const magenta_ctx *ctx = vctx;
    uint8_t h[2][8];
    memcpy(h, in, 16);
    /* (X1, X2) -> (X2, X1 ^ F(X2)): alternate which half is updated. */
    for (unsigned i = 0; i < ctx->rounds; ++i) magenta_round(h[i & 1], h[(i & 1) ^ 1], ctx->sk[i]);
    if (ctx->rounds & 1) {
        memcpy(out, h[1], 8);
        memcpy(out + 8, h[0], 8);
    } else {
        memcpy(out, h, 16);
    }
}

static void magenta_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const magenta_ctx *ctx = vctx;
    uint8_t h[2][8];
    /* Undo (Y1, Y2) = (X2, X1 ^ F(X2)): X1 = Y2 ^ F(Y1). Work on the pair
       (Y2, Y1) so the same alternating update applies. */
    memcpy(h[0], in + 8, 8);
    memcpy(h[1], in, 8);
    for (unsigned i = ctx->rounds; i-- > 0;) {
        unsigned k = ctx->rounds - 1 - i;
        magenta_round(h[k & 1], h[(k & 1) ^ 1], ctx->sk[i]);
    }
    if (ctx->rounds & 1) {
        memcpy(out, h, 16);
    } else {
        memcpy(out, h[1], 8);
        memcpy(out + 8, h[0], 8);
    }
}

static const unsigned magenta_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_magenta = {
    .name = "magenta",
    .full_name = "MAGENTA",
    .block_bytes = 16,
    .key_bytes = magenta_keys,
    .default_rounds = 6,
    .max_rounds = MAGENTA_MAX_ROUNDS,
    .rounds_unit = "Feistel round (full: 6 for 128/192-bit keys, 8 for 256-bit keys)",
    .ctx_bytes = sizeof(magenta_ctx),
    .set_key = magenta_set_key,
    .encrypt = magenta_encrypt,
    .decrypt = magenta_decrypt,
};
