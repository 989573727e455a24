/*
 * rijndael.c: Rijndael with 128-, 192- and 256-bit blocks (cbref ciphers
 * `aes`, `rijndael192`, `rijndael256`).
 *
 * Cipher:    Rijndael. Designers: Joan Daemen and Vincent Rijmen.
 * Specs:     FIPS PUB 197, "Advanced Encryption Standard (AES)", NIST, 2001
 *            (128-bit block, Nb = 4); J. Daemen and V. Rijmen, "AES Proposal:
 *            Rijndael", document version 2, 1999 (Nb = 4, 6, 8: blocks of
 *            128/192/256 bits; keys Nk = 4, 6, 8 words; Nr = max(Nb, Nk) + 6;
 *            ShiftRow offsets C1, C2, C3 = 1, 2, 3 for Nb = 4 and 6 and
 *            1, 3, 4 for Nb = 8; key expansion of section 4.3.1, with the
 *            extra SubByte step for Nk > 6).
 *
 * Rounds:    one unit of `rounds` = one Rijndael round (SubBytes, ShiftRows,
 *            MixColumns, AddRoundKey), after the initial AddRoundKey. As in
 *            the full cipher, the last round of every variant omits
 *            MixColumns, so rounds = R is "initial key addition, R-1 full
 *            rounds, one final round". rounds = 0 selects Nr for the key
 *            and block length (aes: 10/12/14; rijndael192: 12/12/14;
 *            rijndael256: 14). Any rounds in 1..14 is accepted for every key
 *            length: the key expansion recurrence is simply run for
 *            Nb*(R+1) words (so AES-128 with rounds = 14 is an extended, not
 *            a standard, variant).
 *
 * Byte order: keys and blocks are the byte strings of FIPS-197 and of the
 *            Rijndael submission's KAT files; byte 4c+r of a block is state
 *            row r, column c. Internally column c is a little-endian 32-bit
 *            word (row 0 in the low byte).
 *
 * Implementation: portable C with 4 encryption and 4 decryption T-tables
 *            ("Implementation aspects", section 5.2 of the Rijndael
 *            proposal); decryption uses the equivalent inverse cipher
 *            (FIPS-197 5.3.5), whose InvMixColumns'd round keys are only
 *            computed when set_key is asked for CBREF_DECRYPT. No AES-NI:
 *            the libraries use AES-NI, so `aes` here is a portable-C
 *            baseline, not a match for them.
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "cbref_bits.h"

/* The S-box of FIPS-197 Figure 7 and its inverse (Figure 14). The values
 * were generated from the definition of FIPS-197 5.1.1 (inverse in GF(2^8)
 * modulo x^8+x^4+x^3+x+1, then the affine map with constant 0x63) and agree
 * with the figures. Listed once, as X-macros, so every table below is
 * derived from them at compile time. */
#define RIJ_SBOX(X) \
    X(0x63) X(0x7c) X(0x77) X(0x7b) X(0xf2) X(0x6b) X(0x6f) X(0xc5) X(0x30) X(0x01) X(0x67) X(0x2b) X(0xfe) X(0xd7) X(0xab) X(0x76) \
    X(0xca) X(0x82) X(0xc9) X(0x7d) X(0xfa) X(0x59) X(0x47) X(0xf0) X(0xad) X(0xd4) X(0xa2) X(0xaf) X(0x9c) X(0xa4) X(0x72) X(0xc0) \
    X(0xb7) X(0xfd) X(0x93) X(0x26) X(0x36) X(0x3f) X(0xf7) X(0xcc) X(0x34) X(0xa5) X(0xe5) X(0xf1) X(0x71) X(0xd8) X(0x31) X(0x15) \
    X(0x04) X(0xc7) X(0x23) X(0xc3) X(0x18) X(0x96) X(0x05) X(0x9a) X(0x07) X(0x12) X(0x80) X(0xe2) X(0xeb) X(0x27) X(0xb2) X(0x75) \
    X(0x09) X(0x83) X(0x2c) X(0x1a) X(0x1b) X(0x6e) X(0x5a) X(0xa0) X(0x52) X(0x3b) X(0xd6) X(0xb3) X(0x29) X(0xe3) X(0x2f) X(0x84) \
    X(0x53) X(0xd1) X(0x00) X(0xed) X(0x20) X(0xfc) X(0xb1) X(0x5b) X(0x6a) X(0xcb) X(0xbe) X(0x39) X(0x4a) X(0x4c) X(0x58) X(0xcf) \
    X(0xd0) X(0xef) X(0xaa) X(0xfb) X(0x43) X(0x4d) X(0x33) X(0x85) X(0x45) X(0xf9) X(0x02) X(0x7f) X(0x50) X(0x3c) X(0x9f) X(0xa8) \
    X(0x51) X(0xa3) X(0x40) X(0x8f) X(0x92) X(0x9d) X(0x38) X(0xf5) X(0xbc) X(0xb6) X(0xda) X(0x21) X(0x10) X(0xff) X(0xf3) X(0xd2) \
    X(0xcd) X(0x0c) X(0x13) X(0xec) X(0x5f) X(0x97) X(0x44) X(0x17) X(0xc4) X(0xa7) X(0x7e) X(0x3d) X(0x64) X(0x5d) X(0x19) X(0x73) \
    X(0x60) X(0x81) X(0x4f) X(0xdc) X(0x22) X(0x2a) X(0x90) X(0x88) X(0x46) X(0xee) X(0xb8) X(0x14) X(0xde) X(0x5e) X(0x0b) X(0xdb) \
    X(0xe0) X(0x32) X(0x3a) X(0x0a) X(0x49) X(0x06) X(0x24) X(0x5c) X(0xc2) X(0xd3) X(0xac) X(0x62) X(0x91) X(0x95) X(0xe4) X(0x79) \
    X(0xe7) X(0xc8) X(0x37) X(0x6d) X(0x8d) X(0xd5) X(0x4e) X(0xa9) X(0x6c) X(0x56) X(0xf4) X(0xea) X(0x65) X(0x7a) X(0xae) X(0x08) \
    X(0xba) X(0x78) X(0x25) X(0x2e) X(0x1c) X(0xa6) X(0xb4) X(0xc6) X(0xe8) X(0xdd) X(0x74) X(0x1f) X(0x4b) X(0xbd) X(0x8b) X(0x8a) \
    X(0x70) X(0x3e) X(0xb5) X(0x66) X(0x48) X(0x03) X(0xf6) X(0x0e) X(0x61) X(0x35) X(0x57) X(0xb9) X(0x86) X(0xc1) X(0x1d) X(0x9e) \
    X(0xe1) X(0xf8) X(0x98) X(0x11) X(0x69) X(0xd9) X(0x8e) X(0x94) X(0x9b) X(0x1e) X(0x87) X(0xe9) X(0xce) X(0x55) X(0x28) X(0xdf) \
    X(0x8c) X(0xa1) X(0x89) X(0x0d) X(0xbf) X(0xe6) X(0x42) X(0x68) X(0x41) X(0x99) X(0x2d) X(0x0f) X(0xb0) X(0x54) X(0xbb) X(0x16)

#define RIJ_INV_SBOX(X) \
    X(0x52) X(0x09) X(0x6a) X(0xd5) X(0x30) X(0x36) X(0xa5) X(0x38) X(0xbf) X(0x40) X(0xa3) X(0x9e) X(0x81) X(0xf3) X(0xd7) X(0xfb) \
    X(0x7c) X(0xe3) X(0x39) X(0x82) X(0x9b) X(0x2f) X(0xff) X(0x87) X(0x34) X(0x8e) X(0x43) X(0x44) X(0xc4) X(0xde) X(0xe9) X(0xcb) \
    X(0x54) X(0x7b) X(0x94) X(0x32) X(0xa6) X(0xc2) X(0x23) X(0x3d) X(0xee) X(0x4c) X(0x95) X(0x0b) X(0x42) X(0xfa) X(0xc3) X(0x4e) \
    X(0x08) X(0x2e) X(0xa1) X(0x66) X(0x28) X(0xd9) X(0x24) X(0xb2) X(0x76) X(0x5b) X(0xa2) X(0x49) X(0x6d) X(0x8b) X(0xd1) X(0x25) \
    X(0x72) X(0xf8) X(0xf6) X(0x64) X(0x86) X(0x68) X(0x98) X(0x16) X(0xd4) X(0xa4) X(0x5c) X(0xcc) X(0x5d) X(0x65) X(0xb6) X(0x92) \
    X(0x6c) X(0x70) X(0x48) X(0x50) X(0xfd) X(0xed) X(0xb9) X(0xda) X(0x5e) X(0x15) X(0x46) X(0x57) X(0xa7) X(0x8d) X(0x9d) X(0x84) \
    X(0x90) X(0xd8) X(0xab) X(0x00) X(0x8c) X(0xbc) X(0xd3) X(0x0a) X(0xf7) X(0xe4) X(0x58) X(0x05) X(0xb8) X(0xb3) X(0x45) X(0x06) \
    X(0xd0) X(0x2c) X(0x1e) X(0x8f) X(0xca) X(0x3f) X(0x0f) X(0x02) X(0xc1) X(0xaf) X(0xbd) X(0x03) X(0x01) X(0x13) X(0x8a) X(0x6b) \
    X(0x3a) X(0x91) X(0x11) X(0x41) X(0x4f) X(0x67) X(0xdc) X(0xea) X(0x97) X(0xf2) X(0xcf) X(0xce) X(0xf0) X(0xb4) X(0xe6) X(0x73) \
    X(0x96) X(0xac) X(0x74) X(0x22) X(0xe7) X(0xad) X(0x35) X(0x85) X(0xe2) X(0xf9) X(0x37) X(0xe8) X(0x1c) X(0x75) X(0xdf) X(0x6e) \
    X(0x47) X(0xf1) X(0x1a) X(0x71) X(0x1d) X(0x29) X(0xc5) X(0x89) X(0x6f) X(0xb7) X(0x62) X(0x0e) X(0xaa) X(0x18) X(0xbe) X(0x1b) \
    X(0xfc) X(0x56) X(0x3e) X(0x4b) X(0xc6) X(0xd2) X(0x79) X(0x20) X(0x9a) X(0xdb) X(0xc0) X(0xfe) X(0x78) X(0xcd) X(0x5a) X(0xf4) \
    X(0x1f) X(0xdd) X(0xa8) X(0x33) X(0x88) X(0x07) X(0xc7) X(0x31) X(0xb1) X(0x12) X(0x10) X(0x59) X(0x27) X(0x80) X(0xec) X(0x5f) \
    X(0x60) X(0x51) X(0x7f) X(0xa9) X(0x19) X(0xb5) X(0x4a) X(0x0d) X(0x2d) X(0xe5) X(0x7a) X(0x9f) X(0x93) X(0xc9) X(0x9c) X(0xef) \
    X(0xa0) X(0xe0) X(0x3b) X(0x4d) X(0xae) X(0x2a) X(0xf5) X(0xb0) X(0xc8) X(0xeb) X(0xbb) X(0x3c) X(0x83) X(0x53) X(0x99) X(0x61) \
    X(0x17) X(0x2b) X(0x04) X(0x7e) X(0xba) X(0x77) X(0xd6) X(0x26) X(0xe1) X(0x69) X(0x14) X(0x63) X(0x55) X(0x21) X(0x0c) X(0x7d)

/* GF(2^8) multiples as constant expressions (FIPS-197 4.2). */
#define RIJ_X2(x) ((((x) << 1) ^ ((((x) >> 7) & 1) * 0x11b)) & 0xff)
#define RIJ_X4(x) RIJ_X2(RIJ_X2(x))
#define RIJ_X8(x) RIJ_X2(RIJ_X4(x))
#define RIJ_M2(x) ((uint32_t)RIJ_X2(x))
#define RIJ_M3(x) ((uint32_t)(RIJ_X2(x) ^ (x)))
#define RIJ_M9(x) ((uint32_t)(RIJ_X8(x) ^ (x)))
#define RIJ_MB(x) ((uint32_t)(RIJ_X8(x) ^ RIJ_X2(x) ^ (x)))
#define RIJ_MD(x) ((uint32_t)(RIJ_X8(x) ^ RIJ_X4(x) ^ (x)))
#define RIJ_ME(x) ((uint32_t)(RIJ_X8(x) ^ RIJ_X4(x) ^ RIJ_X2(x)))
#define RIJ_W(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* Te_j[x]: the MixColumns image of S[x] placed in row j (column word, row 0
 * in the low byte). Td_j[x]: the InvMixColumns image of InvS[x] in row j. */
#define RIJ_TE0(s) RIJ_W(RIJ_M2(s), (s), (s), RIJ_M3(s)),
#define RIJ_TE1(s) RIJ_W(RIJ_M3(s), RIJ_M2(s), (s), (s)),
#define RIJ_TE2(s) RIJ_W((s), RIJ_M3(s), RIJ_M2(s), (s)),
#define RIJ_TE3(s) RIJ_W((s), (s), RIJ_M3(s), RIJ_M2(s)),
#define RIJ_TD0(s) RIJ_W(RIJ_ME(s), RIJ_M9(s), RIJ_MD(s), RIJ_MB(s)),
#define RIJ_TD1(s) RIJ_W(RIJ_MB(s), RIJ_ME(s), RIJ_M9(s), RIJ_MD(s)),
#define RIJ_TD2(s) RIJ_W(RIJ_MD(s), RIJ_MB(s), RIJ_ME(s), RIJ_M9(s)),
#define RIJ_TD3(s) RIJ_W(RIJ_M9(s), RIJ_MD(s), RIJ_MB(s), RIJ_ME(s)),
#define RIJ_BYTE(s) (s),

static const uint32_t Te0[256] = {RIJ_SBOX(RIJ_TE0)};
static const uint32_t Te1[256] = {RIJ_SBOX(RIJ_TE1)};
static const uint32_t Te2[256] = {RIJ_SBOX(RIJ_TE2)};
static const uint32_t Te3[256] = {RIJ_SBOX(RIJ_TE3)};
static const uint32_t Td0[256] = {RIJ_INV_SBOX(RIJ_TD0)};
static const uint32_t Td1[256] = {RIJ_INV_SBOX(RIJ_TD1)};
static const uint32_t Td2[256] = {RIJ_INV_SBOX(RIJ_TD2)};
static const uint32_t Td3[256] = {RIJ_INV_SBOX(RIJ_TD3)};
static const uint8_t Sbox[256] = {RIJ_SBOX(RIJ_BYTE)};
static const uint8_t InvSbox[256] = {RIJ_INV_SBOX(RIJ_BYTE)};

#define RIJ_MAXNB 8
#define RIJ_MAXR 14

typedef struct {
    uint32_t ek[(RIJ_MAXR + 1) * RIJ_MAXNB]; /* encryption round keys */
    uint32_t dk[(RIJ_MAXR + 1) * RIJ_MAXNB]; /* equivalent-inverse-cipher keys */
    unsigned nr;                             /* rounds in use */
} rij_ctx;

#define B0(x) ((x) & 0xff)
#define B1(x) (((x) >> 8) & 0xff)
#define B2(x) (((x) >> 16) & 0xff)
#define B3(x) ((x) >> 24)

static inline uint32_t sub_word(uint32_t w) {
    return RIJ_W(Sbox[B0(w)], Sbox[B1(w)], Sbox[B2(w)], Sbox[B3(w)]);
}

/* InvMixColumns of one column word: Td_j[S[b]] is InvMixColumns of b in row j. */
static inline uint32_t inv_mix(uint32_t w) {
    return Td0[Sbox[B0(w)]] ^ Td1[Sbox[B1(w)]] ^ Td2[Sbox[B2(w)]] ^ Td3[Sbox[B3(w)]];
}

static int rij_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir,
                       unsigned nb) {
    rij_ctx *ctx = (rij_ctx *)vctx;
    unsigned nk = (unsigned)(key_len / 4);
    if (key_len != 16 && key_len != 24 && key_len != 32) return CBREF_EKEYLEN;
    if (rounds > RIJ_MAXR) return CBREF_EROUNDS;
    unsigned nr = rounds ? rounds : (nk > nb ? nk : nb) + 6;
    unsigned total = nb * (nr + 1);
    uint32_t *w = ctx->ek;
    uint32_t rcon = 1;
    ctx->nr = nr;
    for (unsigned i = 0; i < nk && i < total; ++i) w[i] = cbref_load32le(key + 4 * i);
    for (unsigned i = nk; i < total; ++i) {
        uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = sub_word((t >> 8) | (t << 24)) ^ rcon; /* SubWord(RotWord) ^ Rcon */
            rcon = RIJ_X2(rcon);
        } else if (nk > 6 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    if (dir & CBREF_DECRYPT) {
        /* Equivalent inverse cipher: round keys in reverse order, the inner
         * ones passed through InvMixColumns. */
        for (unsigned r = 0; r <= nr; ++r) {
            const uint32_t *src = ctx->ek + nb * (nr - r);
            uint32_t *dst = ctx->dk + nb * r;
            for (unsigned c = 0; c < nb; ++c)
                dst[c] = (r == 0 || r == nr) ? src[c] : inv_mix(src[c]);
        }
    }
    return CBREF_OK;
}

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define RIJ_UNROLL _Pragma("GCC unroll 8")
#elif defined(__clang__)
#define RIJ_UNROLL _Pragma("unroll")
#else
#define RIJ_UNROLL
#endif

/* One block with Nb = NB columns and ShiftRow offsets C1..C3, all
 * compile-time constants at every call site. */
static inline void rij_encrypt(const rij_ctx *ctx, const uint8_t *in, uint8_t *out, const unsigned NB,
                               const unsigned C1, const unsigned C2, const unsigned C3) {
    const uint32_t *rk = ctx->ek;
    uint32_t s[RIJ_MAXNB], t[RIJ_MAXNB];
    RIJ_UNROLL
    for (unsigned c = 0; c < NB; ++c) s[c] = cbref_load32le(in + 4 * c) ^ rk[c];
    for (unsigned r = 1; r < ctx->nr; ++r) {
        rk += NB;
        RIJ_UNROLL
        for (unsigned c = 0; c < NB; ++c)
            t[c] = Te0[B0(s[c])] ^ Te1[B1(s[(c + C1) % NB])] ^ Te2[B2(s[(c + C2) % NB])] ^
                   Te3[B3(s[(c + C3) % NB])] ^ rk[c];
        RIJ_UNROLL
        for (unsigned c = 0; c < NB; ++c) s[c] = t[c];
    }
    rk += NB;
    RIJ_UNROLL
    for (unsigned c = 0; c < NB; ++c)
        cbref_store32le(out + 4 * c, RIJ_W(Sbox[B0(s[c])], Sbox[B1(s[(c + C1) % NB])], Sbox[B2(s[(c + C2) % NB])],
                                Sbox[B3(s[(c + C3) % NB])]) ^ rk[c]);
}

static inline void rij_decrypt(const rij_ctx *ctx, const uint8_t *in, uint8_t *out, const unsigned NB,
                               const unsigned C1, const unsigned C2, const unsigned C3) {
    const uint32_t *rk = ctx->dk;
    uint32_t s[RIJ_MAXNB], t[RIJ_MAXNB];
    RIJ_UNROLL
    for (unsigned c = 0; c < NB; ++c) s[c] = cbref_load32le(in + 4 * c) ^ rk[c];
    for (unsigned r = 1; r < ctx->nr; ++r) {
        rk += NB;
        RIJ_UNROLL
        for (unsigned c = 0; c < NB; ++c)
            t[c] = Td0[B0(s[c])] ^ Td1[B1(s[(c + NB - C1) % NB])] ^ Td2[B2(s[(c + NB - C2) % NB])] ^
                   Td3[B3(s[(c + NB - C3) % NB])] ^ rk[c];
        RIJ_UNROLL
        for (unsigned c = 0; c < NB; ++c) s[c] = t[c];
    }
    rk += NB;
    RIJ_UNROLL
    for (unsigned c = 0; c < NB; ++c)
        cbref_store32le(out + 4 * c, RIJ_W(InvSbox[B0(s[c])], InvSbox[B1(s[(c + NB - C1) % NB])],
                                InvSbox[B2(s[(c + NB - C2) % NB])], InvSbox[B3(s[(c + NB - C3) % NB])]) ^
                              rk[c]);
}

static int aes_set_key(void *c, const uint8_t *k, size_t kl, unsigned r, int d) { return rij_set_key(c, k, kl, r, d, 4); }
static int r192_set_key(void *c, const uint8_t *k, size_t kl, unsigned r, int d) { return rij_set_key(c, k, kl, r, d, 6); }
static int r256_set_key(void *c, const uint8_t *k, size_t kl, unsigned r, int d) { return rij_set_key(c, k, kl, r, d, 8); }

static void aes_enc(const void *c, const uint8_t *i, uint8_t *o) { rij_encrypt((const rij_ctx *)c, i, o, 4, 1, 2, 3); }
static void aes_dec(const void *c, const uint8_t *i, uint8_t *o) { rij_decrypt((const rij_ctx *)c, i, o, 4, 1, 2, 3); }
static void r192_enc(const void *c, const uint8_t *i, uint8_t *o) { rij_encrypt((const rij_ctx *)c, i, o, 6, 1, 2, 3); }
static void r192_dec(const void *c, const uint8_t *i, uint8_t *o) { rij_decrypt((const rij_ctx *)c, i, o, 6, 1, 2, 3); }
static void r256_enc(const void *c, const uint8_t *i, uint8_t *o) { rij_encrypt((const rij_ctx *)c, i, o, 8, 1, 3, 4); }
static void r256_dec(const void *c, const uint8_t *i, uint8_t *o) { rij_decrypt((const rij_ctx *)c, i, o, 8, 1, 3, 4); }

static const unsigned rij_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_aes = {
    "aes", "AES (Rijndael, 128-bit block)", 16, rij_keys, 10, 14,
    "Rijndael round (full: 10/12/14 for 128/192/256-bit keys; last round without MixColumns)",
    sizeof(rij_ctx), aes_set_key, aes_enc, aes_dec, 1};

const cbref_cipher cbref_rijndael192 = {
    "rijndael192", "Rijndael, 192-bit block", 24, rij_keys, 12, 14,
    "Rijndael round (full: 12/12/14 for 128/192/256-bit keys; last round without MixColumns)",
    sizeof(rij_ctx), r192_set_key, r192_enc, r192_dec, 1};

const cbref_cipher cbref_rijndael256 = {
    "rijndael256", "Rijndael, 256-bit block", 32, rij_keys, 14, 14,
    "Rijndael round (full: 14 for every key length; last round without MixColumns)",
    sizeof(rij_ctx), r256_set_key, r256_enc, r256_dec, 1};
