// SHA-256 from FIPS 180-4: constants of section 4.2.2, initial hash value of 5.3.3,
// padding of 5.1.1, and the computation of 6.2.2.
//
// Two compression functions compute the same thing: the portable one below, and, on x86
// CPUs with the SHA extensions, one built on SHA256RNDS2 / SHA256MSG1 / SHA256MSG2
// (Intel, "Intel SHA Extensions", Gulley et al., July 2013, and the Intel 64 and IA-32
// Architectures Software Developer's Manual, vol. 2, the instructions' pages). The
// choice is made once, at the first use (sha256_impl()); CIPHERBENCH_ENGINE_SHA=portable
// forces the portable one, so the tests can check both against the same answers.
#include "sha256.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#define CB_SHA_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define CB_SHA_X86 0
#endif

namespace cb {
namespace {

alignas(16) constexpr uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// FIPS 180-4 6.2.2 on `blocks` consecutive 64-byte blocks.
void compress_portable(uint32_t h[8], const uint8_t* data, size_t blocks) {
    for (; blocks; --blocks, data += 64) {
        uint32_t w[64];
        for (int t = 0; t < 16; ++t)
            w[t] = uint32_t(data[4 * t]) << 24 | uint32_t(data[4 * t + 1]) << 16 |
                   uint32_t(data[4 * t + 2]) << 8 | data[4 * t + 3];
        for (int t = 16; t < 64; ++t) {
            const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int t = 0; t < 64; ++t) {
            const uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
    }
}

#if CB_SHA_X86
// The same computation with the SHA extensions. What the instructions do (Intel SDM):
//  - SHA256RNDS2 dst, src, <xmm0>: two rounds of 6.2.2 step 3. dst holds the working
//    variables C, D, G, H (dword 3 down to dword 0), src holds A, B, E, F, and the low
//    two dwords of xmm0 hold W[t] + K[t] (dword 0) and W[t+1] + K[t+1] (dword 1). The
//    result is the new A, B, E, F; the new C, D, G, H are the old A, B, E, F, so the two
//    registers swap roles after each instruction.
//  - SHA256MSG1 x, y with x = W[t-16..t-13], y = W[t-12..t-9] (dword 0 the first):
//    W[t-16+i] + sigma0(W[t-15+i]) for i = 0..3 (sigma0: FIPS 180-4 4.1.2, (4.6)).
//  - SHA256MSG2 x, y with x = that sum plus W[t-7..t-4], y = W[t-4..t-1]: adds
//    sigma1(W[t-2+i]) to dword i, the last two of them from its own first two results,
//    giving W[t..t+3] (the schedule of 6.2.2 step 1).
__attribute__((target("sha,sse4.1"))) void compress_shani(uint32_t h[8], const uint8_t* data, size_t blocks) {
    // Message words are big-endian (FIPS 180-4 3.1): reverse the bytes of each dword.
    const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    __m128i abef = _mm_set_epi32(int(h[0]), int(h[1]), int(h[4]), int(h[5]));
    __m128i cdgh = _mm_set_epi32(int(h[2]), int(h[3]), int(h[6]), int(h[7]));
    for (; blocks; --blocks, data += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[4];  // w[g % 4] = W[4g..4g+3] for the last four groups g
#pragma GCC unroll 16
        for (int g = 0; g < 16; ++g) {
            __m128i wg;
            if (g < 4) {
                wg = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * g)), bswap);
            } else {
                // w[g%4] = W[t-16..], w[(g+1)%4] = W[t-12..], w[(g+2)%4] = W[t-8..], w[(g+3)%4] = W[t-4..]
                __m128i x = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));  // W[t-7..t-4]
                wg = _mm_sha256msg2_epu32(x, w[(g + 3) % 4]);
            }
            w[g % 4] = wg;
            __m128i wk = _mm_add_epi32(wg, _mm_load_si128(reinterpret_cast<const __m128i*>(K + 4 * g)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);  // rounds 4g, 4g+1: cdgh now holds A, B, E, F
            wk = _mm_shuffle_epi32(wk, 0x0e);              // W+K of rounds 4g+2, 4g+3 into dwords 0, 1
            abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);  // rounds 4g+2, 4g+3: the roles are back
        }
        // 6.2.2 step 4: add the working variables to the previous hash value
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    h[0] = uint32_t(_mm_extract_epi32(abef, 3)); h[1] = uint32_t(_mm_extract_epi32(abef, 2));
    h[4] = uint32_t(_mm_extract_epi32(abef, 1)); h[5] = uint32_t(_mm_extract_epi32(abef, 0));
    h[2] = uint32_t(_mm_extract_epi32(cdgh, 3)); h[3] = uint32_t(_mm_extract_epi32(cdgh, 2));
    h[6] = uint32_t(_mm_extract_epi32(cdgh, 1)); h[7] = uint32_t(_mm_extract_epi32(cdgh, 0));
}
#endif

using Compress = void (*)(uint32_t*, const uint8_t*, size_t);

struct Choice {
    Compress fn;
    const char* name;
};

Choice choose() {
    const char* forced = std::getenv("CIPHERBENCH_ENGINE_SHA");
    if (forced && std::strcmp(forced, "portable") == 0) return {compress_portable, "portable"};
    if (forced && *forced)
        std::fprintf(stderr, "cipherbench-engine: CIPHERBENCH_ENGINE_SHA='%s' ignored (only 'portable' is known)\n", forced);
#if CB_SHA_X86
    // CPUID read directly: GCC 10 (Debian 11) knows no "sha" for __builtin_cpu_supports.
    // SHA extensions: leaf 7 subleaf 0, EBX bit 29; SSE4.1: leaf 1, ECX bit 19 (Intel SDM vol. 2A, CPUID).
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool sse41 = __get_cpuid(1, &a, &b, &c, &d) && (c >> 19 & 1);
    const bool sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 29 & 1);
    if (sha && sse41) return {compress_shani, "sha-ni"};
#endif
    return {compress_portable, "portable"};
}

const Choice& chosen() {
    static const Choice c = choose();  // the environment is read once
    return c;
}

// The message's last bytes, a 1 bit, zeros and the length in bits (64-bit big-endian):
// FIPS 180-4 5.1.1. `rest` <= 119 bytes at `p` (sha256_fill's seed tail and counter may
// pass 64), `total` the message's length; returns the padded tail's length, 64 or 128.
size_t pad(uint8_t tail[128], const uint8_t* p, size_t rest, uint64_t total) {
    std::memset(tail, 0, 128);
    if (rest) std::memcpy(tail, p, rest);
    tail[rest] = 0x80;
    const size_t len = rest < 56 ? 64 : 128;
    const uint64_t bits = total * 8;
    for (int i = 0; i < 8; ++i) tail[len - 1 - i] = uint8_t(bits >> (8 * i));
    return len;
}

void put_be(uint8_t* out, const uint32_t h[8], size_t n) {  // the first n <= 32 bytes of the digest
    uint8_t d[32];
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j) d[4 * i + j] = uint8_t(h[i] >> (24 - 8 * j));
    std::memcpy(out, d, n);
}

}  // namespace

const char* sha256_impl() { return chosen().name; }

std::array<uint8_t, 32> sha256(const uint8_t* data, size_t n) {
    const Compress compress = chosen().fn;
    uint32_t h[8];
    std::memcpy(h, H0, sizeof h);
    const size_t whole = n / 64;
    if (whole) compress(h, data, whole);  // all whole blocks in one call
    uint8_t tail[128];
    const size_t len = pad(tail, data + whole * 64, n - whole * 64, n);
    compress(h, tail, len / 64);
    std::array<uint8_t, 32> out;
    put_be(out.data(), h, 32);
    return out;
}

std::vector<uint8_t> sha256_fill(const std::vector<uint8_t>& seed, size_t n) {
    // Every message is seed || counter: the seed's whole blocks are the same in all of them,
    // so their hash state (the "midstate") is computed once, and each counter costs the
    // padded tail only (seed's last bytes, the counter, padding), one or two blocks.
    const Compress compress = chosen().fn;
    std::vector<uint8_t> out(n);
    uint32_t mid[8];
    std::memcpy(mid, H0, sizeof mid);
    const size_t whole = seed.size() / 64, rest = seed.size() % 64;
    if (whole) compress(mid, seed.data(), whole);
    uint8_t msg[72] = {0};  // the seed's last bytes and the counter (at most 63 + 8)
    if (rest) std::memcpy(msg, seed.data() + whole * 64, rest);
    uint8_t tail[128];
    const size_t len = pad(tail, msg, rest + 8, seed.size() + 8);  // counter bytes filled below
    for (uint64_t i = 0; i * 32 < n; ++i) {
        for (int b = 0; b < 8; ++b) tail[rest + b] = uint8_t(i >> (56 - 8 * b));
        uint32_t h[8];
        std::memcpy(h, mid, sizeof h);
        compress(h, tail, len / 64);
        put_be(out.data() + i * 32, h, std::min<size_t>(32, n - i * 32));
    }
    return out;
}

}  // namespace cb
