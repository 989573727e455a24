/*
 * cbref_bits.h: the word helpers the reference ciphers share: 32-bit loads and
 * stores in a stated byte order, and rotations. Header-only (static inline);
 * compilers turn each into one instruction (a load, a bswap, a rotate).
 */
#ifndef CBREF_BITS_H
#define CBREF_BITS_H

#include <stdint.h>
#include <string.h>

/* Rotations by n mod 32, defined for every n (0 included). */
static inline uint32_t cbref_rol32(uint32_t x, uint32_t n) { return (x << (n & 31)) | (x >> ((0u - n) & 31)); }
static inline uint32_t cbref_ror32(uint32_t x, uint32_t n) { return (x >> (n & 31)) | (x << ((0u - n) & 31)); }

/* Little-endian: p[0] is the least significant byte. */
static inline uint32_t cbref_load32le(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline void cbref_store32le(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 4);
#else
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
#endif
}

/* Big-endian: p[0] is the most significant byte. */
static inline uint32_t cbref_load32be(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void cbref_store32be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

#endif
