/*
 * mars.c: MARS (cbref cipher `mars`).
 *
 * Cipher:    MARS. Designers: Carolynn Burwick, Don Coppersmith, Edward
 *            D'Avignon, Rosario Gennaro, Shai Halevi, Charanjit Jutla,
 *            Stephen M. Matyas Jr., Luke O'Connor, Mohammad Peyravian,
 *            David Safford, Nevenko Zunic (IBM).
 * Spec:      C. Burwick et al., "MARS - a candidate cipher for AES", IBM,
 *            AES submission, revised 22 September 1999 (round 2). Data path:
 *            key addition,
 *            8 rounds of unkeyed forward mixing, 16 rounds of keyed core
 *            (E-function; the first 8 in "forward", the last 8 in
 *            "backwards" mode), 8 rounds of unkeyed backwards mixing, key
 *            subtraction. Key expansion: the round-2 "tweaked" schedule
 *            (15-word array T, four passes of linear mixing plus four
 *            stirring rounds each), as implemented by Botan and Crypto++ and
 *            used by IBM's test vectors from 13 August 1999 on. It then
 *            fixes the 16 multiplication keys K[5], K[7], .., K[35]
 *            (lowest two bits set, long runs of equal bits broken with
 *            B[] = S[265..268]). The S-box (mars_sbox.h) is derived from
 *            SHA-1 as the specification describes; see gen_sbox.py.
 *
 * Rounds:    one unit of `rounds` = one of the 32 MARS rounds, counting the
 *            mixing rounds: units 1..8 are the forward mixing rounds, 9..24
 *            the keyed core rounds, 25..32 the backwards mixing rounds. A
 *            variant with R rounds executes the first R of these 32 rounds
 *            in order, between the initial key addition (K[0..3]) and the
 *            final key subtraction (K[36..39]), which are always applied.
 *            So R <= 8 has no keyed round at all (only the whitening keys),
 *            R = 24 is "mixing + full core, no backwards mixing", R = 32 is
 *            full MARS. rounds = 0 selects 32.
 *
 * Byte order: as in the MARS test-vector files, Botan and Crypto++: block
 *            bytes 0..15 are the words D[0..3], key bytes the words k[0..n-1],
 *            all little-endian.
 *
 * Not here: the original round-1 key expansion of June 1998 (registry
 *            `mars1998`, Cryptix mars.zip vectors in the shared set). The
 *            specification texts reachable when this was written (IBM's
 *            revised paper of 27 August 1999, restatements of its key-setup
 *            tweak) give only the tweaked schedule above; the 1998
 *            submission text was not, so the variant is not implemented.
 *
 * Key lengths: 16, 24, 32 bytes listed; any multiple of 4 from 16 to 56
 *            bytes (4..14 words) is accepted, as in the specification. One
 *            schedule serves both directions (`dir` is ignored).
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "cbref_bits.h"
#include "mars_sbox.h"

#define S0(x) MARS_S[(x) & 0xff]
#define S1(x) MARS_S[256 + ((x) & 0xff)]

typedef struct {
    uint32_t k[40];
    unsigned rounds;
} mars_ctx;

/* ---- key schedule ---- */

/* Mask M of the key-fixing step: bit l is set iff w_l lies in a run of at
 * least ten equal consecutive bits of w, 2 <= l <= 30, and
 * w_{l-1} = w_l = w_{l+1}. */
static uint32_t fix_mask(uint32_t w) {
    uint32_t m = 0, eq = ~(w ^ (w >> 1)) & 0x7fffffffu, run9 = eq;
    unsigned start = 0;
    /* bit l of run9: w_l = w_{l+1} = ... = w_{l+9}; none set means no run
     * of ten equal bits, the usual case */
    for (unsigned s = 1; s < 9; ++s) run9 &= eq >> s;
    if (!run9) return 0;
    for (unsigned l = 1; l <= 32; ++l) {
        if (l == 32 || ((w >> l) & 1) != ((w >> start) & 1)) {
            if (l - start >= 10) /* run start..l-1: interior bits only */
                for (unsigned b = start + 1; b + 1 < l; ++b) m |= 1u << b;
            start = l;
        }
    }
    return m & 0x7ffffffcu; /* 2 <= l <= 30 */
}

static void fix_mult_keys(uint32_t *K) {
    for (unsigned i = 5; i <= 35; i += 2) {
        uint32_t j = K[i] & 3, w = K[i] | 3;
        uint32_t p = cbref_rol32(MARS_S[265 + j], K[i - 1] & 31);
        K[i] = w ^ (p & fix_mask(w));
    }
}

/* Round 2 (tweaked) key expansion. */
static void expand_tweak(uint32_t *K, const uint32_t *k, unsigned n) {
    uint32_t T[15] = {0};
    for (unsigned i = 0; i < n; ++i) T[i] = k[i];
    T[n] = n;
    for (unsigned j = 0; j < 4; ++j) {
        for (unsigned i = 0; i < 15; ++i)
            T[i] ^= cbref_rol32(T[(i + 8) % 15] ^ T[(i + 13) % 15], 3) ^ (4 * i + j);
        for (unsigned rep = 0; rep < 4; ++rep)
            for (unsigned i = 0; i < 15; ++i) T[i] = cbref_rol32(T[i] + MARS_S[T[(i + 14) % 15] & 511], 9);
        for (unsigned i = 0; i < 10; ++i) K[10 * j + i] = T[(4 * i) % 15];
    }
    fix_mult_keys(K);
}

static int mars_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir) {
    mars_ctx *ctx = (mars_ctx *)vctx;
    uint32_t k[14];
    if (key_len < 16 || key_len > 56 || key_len % 4) return CBREF_EKEYLEN;
    if (rounds > 32) return CBREF_EROUNDS;
    unsigned n = (unsigned)(key_len / 4);
    for (unsigned i = 0; i < n; ++i) k[i] = cbref_load32le(key + 4 * i);
    (void)dir; /* one schedule for both directions */
    expand_tweak(ctx->k, k, n);
    ctx->rounds = rounds ? rounds : 32;
    return CBREF_OK;
}

/* ---- rounds, on (a, b, c, d) = (D[0], D[1], D[2], D[3]); after each round
 * the words are renamed (D[0], D[1], D[2], D[3]) <- (D[1], D[2], D[3], D[0]) ---- */

/* forward mixing round i (0..7) */
#define MARS_FM(a, b, c, d, i) do {                         \
        b ^= S0(a); b += S1((a) >> 8);                      \
        c += S0((a) >> 16); d ^= S1((a) >> 24);             \
        a = cbref_ror32(a, 24);                                     \
        if ((i) == 0 || (i) == 4) a += d;                   \
        if ((i) == 1 || (i) == 5) a += b;                   \
    } while (0)

#define MARS_IFM(a, b, c, d, i) do {                        \
        if ((i) == 1 || (i) == 5) a -= b;                   \
        if ((i) == 0 || (i) == 4) a -= d;                   \
        a = cbref_rol32(a, 24);                                     \
        d ^= S1((a) >> 24); c -= S0((a) >> 16);             \
        b -= S1((a) >> 8); b ^= S0(a);                      \
    } while (0)

/* E-function on in with keys K[2i+4], K[2i+5]: L, M, R outputs */
#define MARS_E(in, i, L, M, R) do {                         \
        uint32_t m_ = (in) + K[2 * (i) + 4];                \
        uint32_t r_ = cbref_rol32(in, 13) * K[2 * (i) + 5];         \
        uint32_t l_ = MARS_S[m_ & 511];                     \
        r_ = cbref_rol32(r_, 5);                                    \
        m_ = cbref_rol32(m_, r_);                                   \
        l_ ^= r_;                                           \
        r_ = cbref_rol32(r_, 5);                                    \
        l_ ^= r_;                                           \
        l_ = cbref_rol32(l_, r_);                                   \
        L = l_; M = m_; R = r_;                             \
    } while (0)

/* keyed core round i (0..15) */
#define MARS_CR(a, b, c, d, i) do {                         \
        uint32_t L, M, R;                                   \
        MARS_E(a, i, L, M, R);                              \
        a = cbref_rol32(a, 13);                                     \
        c += M;                                             \
        if ((i) < 8) { b += L; d ^= R; }                    \
        else { d += L; b ^= R; }                            \
    } while (0)

#define MARS_ICR(a, b, c, d, i) do {                        \
        uint32_t L, M, R;                                   \
        a = cbref_ror32(a, 13);                                     \
        MARS_E(a, i, L, M, R);                              \
        c -= M;                                             \
        if ((i) < 8) { b -= L; d ^= R; }                    \
        else { d -= L; b ^= R; }                            \
    } while (0)

/* backwards mixing round i (0..7) */
#define MARS_BM(a, b, c, d, i) do {                         \
        if ((i) == 2 || (i) == 6) a -= d;                   \
        if ((i) == 3 || (i) == 7) a -= b;                   \
        b ^= S1(a); c -= S0((a) >> 24);                     \
        d -= S1((a) >> 16); d ^= S0((a) >> 8);              \
        a = cbref_rol32(a, 24);                                     \
    } while (0)

#define MARS_IBM(a, b, c, d, i) do {                        \
        a = cbref_ror32(a, 24);                                     \
        d ^= S0((a) >> 8); d += S1((a) >> 16);              \
        c += S0((a) >> 24); b ^= S1(a);                     \
        if ((i) == 3 || (i) == 7) a += b;                   \
        if ((i) == 2 || (i) == 6) a += d;                   \
    } while (0)

/* Round t (0..31) of the 32, generic form on W with D[k] = W[(k + t) & 3]. */
static inline void mars_round(const uint32_t *K, uint32_t *W, unsigned t) {
    uint32_t *a = &W[t & 3], *b = &W[(t + 1) & 3], *c = &W[(t + 2) & 3], *d = &W[(t + 3) & 3];
    uint32_t A = *a, B = *b, C = *c, D = *d;
    if (t < 8) MARS_FM(A, B, C, D, t);
    else if (t < 24) MARS_CR(A, B, C, D, t - 8);
    else MARS_BM(A, B, C, D, t - 24);
    *a = A; *b = B; *c = C; *d = D;
}

static inline void mars_iround(const uint32_t *K, uint32_t *W, unsigned t) {
    uint32_t *a = &W[t & 3], *b = &W[(t + 1) & 3], *c = &W[(t + 2) & 3], *d = &W[(t + 3) & 3];
    uint32_t A = *a, B = *b, C = *c, D = *d;
    if (t < 8) MARS_IFM(A, B, C, D, t);
    else if (t < 24) MARS_ICR(A, B, C, D, t - 8);
    else MARS_IBM(A, B, C, D, t - 24);
    *a = A; *b = B; *c = C; *d = D;
}

static void mars_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const mars_ctx *ctx = (const mars_ctx *)vctx;
    const uint32_t *K = ctx->k;
    uint32_t a = cbref_load32le(in) + K[0], b = cbref_load32le(in + 4) + K[1], c = cbref_load32le(in + 8) + K[2], d = cbref_load32le(in + 12) + K[3];
    unsigned R = ctx->rounds;
    if (R == 32) {
        MARS_FM(a, b, c, d, 0); MARS_FM(b, c, d, a, 1); MARS_FM(c, d, a, b, 2); MARS_FM(d, a, b, c, 3);
        MARS_FM(a, b, c, d, 4); MARS_FM(b, c, d, a, 5); MARS_FM(c, d, a, b, 6); MARS_FM(d, a, b, c, 7);
        MARS_CR(a, b, c, d, 0); MARS_CR(b, c, d, a, 1); MARS_CR(c, d, a, b, 2); MARS_CR(d, a, b, c, 3);
        MARS_CR(a, b, c, d, 4); MARS_CR(b, c, d, a, 5); MARS_CR(c, d, a, b, 6); MARS_CR(d, a, b, c, 7);
        MARS_CR(a, b, c, d, 8); MARS_CR(b, c, d, a, 9); MARS_CR(c, d, a, b, 10); MARS_CR(d, a, b, c, 11);
        MARS_CR(a, b, c, d, 12); MARS_CR(b, c, d, a, 13); MARS_CR(c, d, a, b, 14); MARS_CR(d, a, b, c, 15);
        MARS_BM(a, b, c, d, 0); MARS_BM(b, c, d, a, 1); MARS_BM(c, d, a, b, 2); MARS_BM(d, a, b, c, 3);
        MARS_BM(a, b, c, d, 4); MARS_BM(b, c, d, a, 5); MARS_BM(c, d, a, b, 6); MARS_BM(d, a, b, c, 7);
    } else {
        uint32_t W[4] = {a, b, c, d};
        for (unsigned t = 0; t < R; ++t) mars_round(K, W, t);
        a = W[R & 3]; b = W[(R + 1) & 3]; c = W[(R + 2) & 3]; d = W[(R + 3) & 3];
    }
    cbref_store32le(out, a - K[36]); cbref_store32le(out + 4, b - K[37]); cbref_store32le(out + 8, c - K[38]); cbref_store32le(out + 12, d - K[39]);
}

static void mars_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const mars_ctx *ctx = (const mars_ctx *)vctx;
    const uint32_t *K = ctx->k;
    uint32_t a = cbref_load32le(in) + K[36], b = cbref_load32le(in + 4) + K[37], c = cbref_load32le(in + 8) + K[38], d = cbref_load32le(in + 12) + K[39];
    unsigned R = ctx->rounds;
    if (R == 32) {
        MARS_IBM(d, a, b, c, 7); MARS_IBM(c, d, a, b, 6); MARS_IBM(b, c, d, a, 5); MARS_IBM(a, b, c, d, 4);
        MARS_IBM(d, a, b, c, 3); MARS_IBM(c, d, a, b, 2); MARS_IBM(b, c, d, a, 1); MARS_IBM(a, b, c, d, 0);
        MARS_ICR(d, a, b, c, 15); MARS_ICR(c, d, a, b, 14); MARS_ICR(b, c, d, a, 13); MARS_ICR(a, b, c, d, 12);
        MARS_ICR(d, a, b, c, 11); MARS_ICR(c, d, a, b, 10); MARS_ICR(b, c, d, a, 9); MARS_ICR(a, b, c, d, 8);
        MARS_ICR(d, a, b, c, 7); MARS_ICR(c, d, a, b, 6); MARS_ICR(b, c, d, a, 5); MARS_ICR(a, b, c, d, 4);
        MARS_ICR(d, a, b, c, 3); MARS_ICR(c, d, a, b, 2); MARS_ICR(b, c, d, a, 1); MARS_ICR(a, b, c, d, 0);
        MARS_IFM(d, a, b, c, 7); MARS_IFM(c, d, a, b, 6); MARS_IFM(b, c, d, a, 5); MARS_IFM(a, b, c, d, 4);
        MARS_IFM(d, a, b, c, 3); MARS_IFM(c, d, a, b, 2); MARS_IFM(b, c, d, a, 1); MARS_IFM(a, b, c, d, 0);
    } else {
        uint32_t W[4];
        W[R & 3] = a; W[(R + 1) & 3] = b; W[(R + 2) & 3] = c; W[(R + 3) & 3] = d;
        for (unsigned t = R; t-- > 0;) mars_iround(K, W, t);
        a = W[0]; b = W[1]; c = W[2]; d = W[3];
    }
    cbref_store32le(out, a - K[0]); cbref_store32le(out + 4, b - K[1]); cbref_store32le(out + 8, c - K[2]); cbref_store32le(out + 12, d - K[3]);
}

static const unsigned mars_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_mars = {
    "mars", "MARS (round-2 tweaked key schedule)", 16, mars_keys, 32, 32,
    "MARS round, counting mixing rounds (8 forward mixing + 16 core + 8 backwards mixing; a reduced count runs the first R)",
    sizeof(mars_ctx), mars_set_key, mars_encrypt, mars_decrypt, 1};
