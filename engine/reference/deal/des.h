/*
 * des.h: the DES core (FIPS PUB 46-3) shared by `des` (des.c) and DEAL
 * (deal.c). See des.c for the cipher's head comment.
 *
 * Representation: a 64-bit block is two 32-bit words (l, r) = big-endian
 * bytes 0..3 and 4..7 (FIPS bit 1 = most significant bit of byte 0).
 * des_ip/des_fp apply IP and IP^-1 with the usual swap-move sequence;
 * des_rounds runs rounds on a block that is already in the IP domain, so a
 * caller such as DEAL can stay in that domain across many DES calls.
 * A key schedule is 16 rounds of two words: the six-bit chunks of Kn that
 * feed S-boxes 1,3,5,7 (k[n][0], bytes 3..0) and 2,4,6,8 (k[n][1], bytes
 * 2,1,0,3), placed where des_f finds the matching chunks of E(R).
 */
#ifndef CBREF_DES_H
#define CBREF_DES_H

#include <stdint.h>
#include <string.h>
#include "cbref_bits.h"

extern const uint32_t cbref_des_sp[8][64];

typedef struct {
    uint32_t k[16][2];
} des_sched;

/* Fills ks from an 8-byte key (parity bits ignored), subkeys in encryption
   order; decrypt runs them backwards. */
void cbref_des_key_schedule(des_sched *ks, const uint8_t key[8]);

#define DES_SWAPMOVE(a, b, n, m)                 \
    do {                                         \
        uint32_t t_ = (((a) >> (n)) ^ (b)) & (m); \
        (b) ^= t_;                               \
        (a) ^= t_ << (n);                        \
    } while (0)

/* IP: (l, r) are the two halves of the input; on return, L0 and R0. */
static inline void des_ip(uint32_t *l, uint32_t *r) {
    DES_SWAPMOVE(*l, *r, 4, 0x0f0f0f0fU);
    DES_SWAPMOVE(*l, *r, 16, 0x0000ffffU);
    DES_SWAPMOVE(*r, *l, 2, 0x33333333U);
    DES_SWAPMOVE(*r, *l, 8, 0x00ff00ffU);
    DES_SWAPMOVE(*l, *r, 1, 0x55555555U);
}

/* IP^-1, the same steps in reverse order (each is an involution). */
static inline void des_fp(uint32_t *l, uint32_t *r) {
    DES_SWAPMOVE(*l, *r, 1, 0x55555555U);
    DES_SWAPMOVE(*r, *l, 8, 0x00ff00ffU);
    DES_SWAPMOVE(*r, *l, 2, 0x33333333U);
    DES_SWAPMOVE(*l, *r, 16, 0x0000ffffU);
    DES_SWAPMOVE(*l, *r, 4, 0x0f0f0f0fU);
}

static inline uint32_t des_rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* f(R, K) = P(S(E(R) ^ K)). Chunk i of E(R) is bits 4i..4i+5 (FIPS
   numbering, bit 0 = bit 32), i.e. the low six bits of R rotated right by
   27 - 4i: the even chunks are the bytes of rotr(R, 3) (chunk 0 in the top
   byte), the odd ones the bytes of rotr(R, 7) (chunk 1 in byte 2, chunk 7 in
   the top byte). */
static inline uint32_t des_f(uint32_t r, const uint32_t *k) {
    uint32_t x = (des_rotr32(r, 3) ^ k[0]) & 0x3F3F3F3FU;
    uint32_t y = (des_rotr32(r, 7) ^ k[1]) & 0x3F3F3F3FU;
    return cbref_des_sp[0][x >> 24] ^ cbref_des_sp[2][(x >> 16) & 0xFF] ^
           cbref_des_sp[4][(x >> 8) & 0xFF] ^ cbref_des_sp[6][x & 0xFF] ^
           cbref_des_sp[7][y >> 24] ^ cbref_des_sp[1][(y >> 16) & 0xFF] ^
           cbref_des_sp[3][(y >> 8) & 0xFF] ^ cbref_des_sp[5][y & 0xFF];
}

/* The 16 rounds in the IP domain, including the final swap: (L0, R0) in,
   (R16, L16) out, so that des_fp of the result is the ciphertext. */
static inline void des_encrypt_ipd(const des_sched *ks, uint32_t *l, uint32_t *r) {
    uint32_t a = *l, b = *r;
    for (int i = 0; i < 16; i += 2) {
        a ^= des_f(b, ks->k[i]);
        b ^= des_f(a, ks->k[i + 1]);
    }
    *l = b;
    *r = a;
}

static inline void des_decrypt_ipd(const des_sched *ks, uint32_t *l, uint32_t *r) {
    uint32_t a = *l, b = *r;
    for (int i = 15; i > 0; i -= 2) {
        a ^= des_f(b, ks->k[i]);
        b ^= des_f(a, ks->k[i - 1]);
    }
    *l = b;
    *r = a;
}

#endif
