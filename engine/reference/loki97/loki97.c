/*
 * LOKI97: 128-bit block cipher, keys of 128, 192 or 256 bits.
 * Designers: Lawrie Brown, Josef Pieprzyk (with Jennifer Seberry).
 * Specification: L. Brown, J. Pieprzyk, "Introducing the new LOKI97 Block
 *   Cipher", AES round-1 submission, June 1998 (sections "LOKI97 Data
 *   Computation", "LOKI97 Key Schedule", "The Round Function f").
 *
 * Structure: a 16-round balanced Feistel network on two 64-bit halves
 *   (L, R), three 64-bit subkeys per round, 48 subkeys from a key schedule
 *   that itself runs the round function f 48 times.
 *   Round i:  t = R + SK[3i-2];  R' = L ^ f(t, SK[3i-1]);  L' = t + SK[3i];
 *   after the last round the output block is [R16 | L16].
 * rounds: one unit = one Feistel round (default and maximum 16). A reduced
 *   count r runs rounds 1..r with subkeys SK[1..3r] (the key schedule is the
 *   full one), then the same output swap; decrypt runs them backwards.
 * Byte order: as printed in the NIST loki97-vals.zip files and the standard
 *   triple: the key is 64-bit big-endian words Ka = key[0..7], Kb = key[8..15],
 *   ...; the block is L = in[0..7], R = in[8..15], big-endian.
 * Tables: S1 (13-bit in) and S2 (11-bit in) and the per-byte spread of P
 *   are const literals produced by a throwaway generator (loki97_tables.h).
 *   One key schedule serves both directions, so `dir` is ignored.
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "loki97_tables.h"

#define LOKI97_ROUNDS 16
#define LOKI97_DELTA 0x9E3779B97F4A7C15ULL /* floor((sqrt(5)-1) * 2^63) */

typedef struct {
    uint64_t sk[3 * LOKI97_ROUNDS];
    unsigned rounds;
} loki97_ctx;

static inline uint64_t load_be64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#elif !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    v = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
        ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
        ((uint64_t)p[6] << 8) | (uint64_t)p[7];
#endif
    return v;
}

static inline void store_be64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 7; i >= 0; --i) { p[i] = (uint8_t)v; v >>= 8; }
#endif
}

/*
 * f(A, B) = Sb(P(Sa(E(KP(A, B_right)))), B_left).
 * KP swaps the bits of the two 32-bit halves of A where B_right has a 1.
 * E expands to 96 bits: [4-0,63-56 | 58-48 | 52-40 | 42-32 | 34-24 | 28-16 |
 * 18-8 | 12-0], fed to Sa = S1,S2,S1,S2,S2,S1,S2,S1. P sends bit i of the
 * a-th output byte (a = 0 the most significant) to bit 8*i + a. Sb =
 * S2,S2,S1,S1,S2,S2,S1,S1 takes [B63-61|x63-56], [B60-58|x55-48],
 * [B57-53|x47-40], [B52-48|x39-32], [B47-45|x31-24], [B44-42|x23-16],
 * [B41-37|x15-8], [B36-32|x7-0].
 */
static inline uint64_t loki97_f(uint64_t a, uint64_t b) {
    uint32_t kr = (uint32_t)b, kl = (uint32_t)(b >> 32);
    uint32_t al = (uint32_t)(a >> 32), ar = (uint32_t)a;
    uint32_t d = (al ^ ar) & kr;
    uint64_t x = ((uint64_t)(al ^ d) << 32) | (ar ^ d);

    uint64_t y = loki97_p0[loki97_s1[((x & 0x1F) << 8) | (x >> 56)]] |
                 loki97_p0[loki97_s2[(x >> 48) & 0x7FF]] << 1 |
                 loki97_p0[loki97_s1[(x >> 40) & 0x1FFF]] << 2 |
                 loki97_p0[loki97_s2[(x >> 32) & 0x7FF]] << 3 |
                 loki97_p0[loki97_s2[(x >> 24) & 0x7FF]] << 4 |
                 loki97_p0[loki97_s1[(x >> 16) & 0x1FFF]] << 5 |
                 loki97_p0[loki97_s2[(x >> 8) & 0x7FF]] << 6 |
                 loki97_p0[loki97_s1[x & 0x1FFF]] << 7;

    return (uint64_t)loki97_s2[((kl >> 21) & 0x700) | (y >> 56)] << 56 |
           (uint64_t)loki97_s2[((kl >> 18) & 0x700) | ((y >> 48) & 0xFF)] << 48 |
           (uint64_t)loki97_s1[((kl >> 13) & 0x1F00) | ((y >> 40) & 0xFF)] << 40 |
           (uint64_t)loki97_s1[((kl >> 8) & 0x1F00) | ((y >> 32) & 0xFF)] << 32 |
           (uint64_t)loki97_s2[((kl >> 5) & 0x700) | ((y >> 24) & 0xFF)] << 24 |
           (uint64_t)loki97_s2[((kl >> 2) & 0x700) | ((y >> 16) & 0xFF)] << 16 |
           (uint64_t)loki97_s1[((kl << 3) & 0x1F00) | ((y >> 8) & 0xFF)] << 8 |
           (uint64_t)loki97_s1[((kl << 8) & 0x1F00) | (y & 0xFF)];
}

static int loki97_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds,
                          int dir) {
    loki97_ctx *ctx = vctx;
    uint64_t k4, k3, k2, k1;
    (void)dir;
    if (rounds > LOKI97_ROUNDS) return CBREF_EROUNDS;
    switch (key_len) {
    case 16:
        k4 = load_be64(key);
        k3 = load_be64(key + 8);
        k2 = loki97_f(k3, k4);
        k1 = loki97_f(k4, k3);
        break;
    case 24:
        k4 = load_be64(key);
        k3 = load_be64(key + 8);
        k2 = load_be64(key + 16);
        k1 = loki97_f(k4, k3);
        break;
    case 32:
        k4 = load_be64(key);
        k3 = load_be64(key + 8);
        k2 = load_be64(key + 16);
        k1 = load_be64(key + 24);
        break;
    default:
        return CBREF_EKEYLEN;
    }
    ctx->rounds = rounds ? rounds : LOKI97_ROUNDS;
    /* SK_i = K1_i = K4_{i-1} ^ f(K1_{i-1} + K3_{i-1} + i*Delta, K2_{i-1}),
       then the registers shift: K4 <- K3 <- K2 <- K1 <- SK_i. */
    uint64_t delta = 0;
    for (unsigned i = 0; i < 3 * LOKI97_ROUNDS; ++i) {
        delta += LOKI97_DELTA;
        uint64_t sk = k4 ^ loki97_f(k1 + k3 + delta, k2);
        k4 = k3;
        k3 = k2;
        k2 = k1;
        k1 = sk;
        ctx->sk[i] = sk;
    }
    return CBREF_OK;
}

static void loki97_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const loki97_ctx *ctx = vctx;
    const uint64_t *sk = ctx->sk;
    uint64_t l = load_be64(in), r = load_be64(in + 8);
    for (unsigned i = 0; i < ctx->rounds; ++i, sk += 3) {
        uint64_t t = r + sk[0];
        r = l ^ loki97_f(t, sk[1]);
        l = t + sk[2];
    }
    store_be64(out, r);
    store_be64(out + 8, l);
}

static void loki97_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const loki97_ctx *ctx = vctx;
    const uint64_t *sk = ctx->sk + 3 * ctx->rounds;
    uint64_t r = load_be64(in), l = load_be64(in + 8);
    for (unsigned i = 0; i < ctx->rounds; ++i) {
        sk -= 3;
        uint64_t t = l - sk[2];
        l = r ^ loki97_f(t, sk[1]);
        r = t - sk[0];
    }
    store_be64(out, l);
    store_be64(out + 8, r);
}

static const unsigned loki97_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_loki97 = {
    .name = "loki97",
    .full_name = "LOKI97",
    .block_bytes = 16,
    .key_bytes = loki97_keys,
    .default_rounds = LOKI97_ROUNDS,
    .max_rounds = LOKI97_ROUNDS,
    .rounds_unit = "Feistel round",
    .ctx_bytes = sizeof(loki97_ctx),
    .set_key = loki97_set_key,
    .encrypt = loki97_encrypt,
    .decrypt = loki97_decrypt,
};
