/*
 * DEAL (Data Encryption Algorithm with Larger blocks): 128-bit block,
 * 128/192/256-bit keys, DES as the round function.
 * Designer: Lars R. Knudsen; AES round-1 submission by Richard Outerbridge.
 * Specification: L. R. Knudsen, "DEAL - A 128-bit Block Cipher", Technical
 *   Report 151, University of Bergen, February 1998 (revised May 1998), as
 *   submitted to the AES process (Outerbridge, June 1998).
 *
 * Structure: Feistel network on two 64-bit halves (L, R); round i:
 *   (L, R) -> (R ^ DES_{RK_i}(L), L). The ciphertext is (L, R) after the last
 *   round (no extra swap). Key blocks K1..Ks (s = 2, 3, 4 for 128/192/256-bit
 *   keys) give the round keys in DES-CBC style under the fixed DES key
 *   K = 0x0123456789abcdef:
 *     RK_i = DES_K(K_{((i-1) mod s)+1} ^ RK_{i-1} ^ C_i), RK_0 = 0,
 *   with C_i = 0 for i <= s and C_{s+j} = the 64-bit string whose bit j
 *   (counted from the most significant bit of the first byte, 1-based) alone
 *   is set: 80 00.., 40 00.., 20 00.., 10 00.. for j = 1..4 (the paper's
 *   constants <1>, <2>, <4>, <8>, read as bit strings). This is the reading
 *   that reproduces Outerbridge's/Cryptix's published KAT values.
 *   Full cipher: 6 rounds for 128/192-bit keys, 8 for 256-bit keys.
 * rounds: one unit = one DES-based Feistel round. 0 = full; r < full runs
 *   the first r rounds with RK_1..RK_r (a prefix of the full schedule).
 *   max_rounds = 8 for every key length: for 128/192-bit keys, rounds 7 and
 *   8 are an EXTENDED, non-standard variant that continues the schedule rule
 *   above (C_{s+5} = 08 00.., C_{s+6} = 04 00..).
 * Byte order: as printed in the Cryptix deal.zip KAT files: L = block bytes
 *   0..7, R = bytes 8..15, K1 = key bytes 0..7, ...; DES bit 1 is the most
 *   significant bit of the first byte (FIPS 46-3).
 * Implementation: both halves stay in the DES IP domain for the whole
 *   block (XOR commutes with IP), so IP and IP^-1 are applied once per half
 *   per block rather than once per round. Decryption also uses DES
 *   encryption only (Feistel), so one schedule serves both directions and
 *   `dir` is ignored.
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "des.h"

#define DEAL_MAX_ROUNDS 8

typedef struct {
    des_sched ks[DEAL_MAX_ROUNDS];
    unsigned rounds;
} deal_ctx;

static int deal_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir) {
    static const uint8_t fixed_key[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    deal_ctx *ctx = vctx;
    unsigned s, full;
    (void)dir;
    switch (key_len) {
    case 16: s = 2; full = 6; break;
    case 24: s = 3; full = 6; break;
    case 32: s = 4; full = 8; break;
    default: return CBREF_EKEYLEN;
    }
    if (rounds > DEAL_MAX_ROUNDS) return CBREF_EROUNDS;
    ctx->rounds = rounds ? rounds : full;

    des_sched kfix;
    cbref_des_key_schedule(&kfix, fixed_key);
    uint32_t pl = 0, pr = 0; /* RK_{i-1} */
    for (unsigned i = 0; i < ctx->rounds; ++i) {
        const uint8_t *kb = key + 8 * (i % s);
        uint32_t l = cbref_load32be(kb) ^ pl, r = cbref_load32be(kb + 4) ^ pr;
        if (i >= s) {
            unsigned j = i - s; /* bit j+1 from the left */
            if (j < 32) l ^= 0x80000000U >> j;
            else r ^= 0x80000000U >> (j - 32);
        }
        des_ip(&l, &r);
        des_encrypt_ipd(&kfix, &l, &r);
        des_fp(&l, &r);
        pl = l;
        pr = r;
        uint8_t rk[8];
        cbref_store32be(rk, l);
        cbref_store32be(rk + 4, r);
        cbref_des_key_schedule(&ctx->ks[i], rk);
    }
    return CBREF_OK;
}

static void deal_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const deal_ctx *ctx = vctx;
    uint32_t ll = cbref_load32be(in), lr = cbref_load32be(in + 4);
    uint32_t rl = cbref_load32be(in + 8), rr = cbref_load32be(in + 12);
    des_ip(&ll, &lr);
    des_ip(&rl, &rr);
    for (unsigned i = 0; i < ctx->rounds; ++i) {
        uint32_t a = ll, b = lr;
        des_encrypt_ipd(&ctx->ks[i], &a, &b); /* IP(DES(L)) */
        a ^= rl;
        b ^= rr;
        rl = ll;
        rr = lr;
        ll = a;
        lr = b;
    }
    des_fp(&ll, &lr);
    des_fp(&rl, &rr);
    cbref_store32be(out, ll);
    cbref_store32be(out + 4, lr);
    cbref_store32be(out + 8, rl);
    cbref_store32be(out + 12, rr);
}

static void deal_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const deal_ctx *ctx = vctx;
    uint32_t ll = cbref_load32be(in), lr = cbref_load32be(in + 4);
    uint32_t rl = cbref_load32be(in + 8), rr = cbref_load32be(in + 12);
    des_ip(&ll, &lr);
    des_ip(&rl, &rr);
    /* (L', R') = (R ^ DES(L), L)  =>  L = R', R = L' ^ DES(R'). */
    for (unsigned i = ctx->rounds; i-- > 0;) {
        uint32_t a = rl, b = rr;
        des_encrypt_ipd(&ctx->ks[i], &a, &b);
        a ^= ll;
        b ^= lr;
        ll = rl;
        lr = rr;
        rl = a;
        rr = b;
    }
    des_fp(&ll, &lr);
    des_fp(&rl, &rr);
    cbref_store32be(out, ll);
    cbref_store32be(out + 4, lr);
    cbref_store32be(out + 8, rl);
    cbref_store32be(out + 12, rr);
}

static const unsigned deal_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_deal = {
    .name = "deal",
    .full_name = "DEAL (Knudsen; Outerbridge's AES submission)",
    .block_bytes = 16,
    .key_bytes = deal_keys,
    .default_rounds = 6,
    .max_rounds = DEAL_MAX_ROUNDS,
    .rounds_unit = "DES-based Feistel round (full: 6 for 128/192-bit keys, 8 for 256-bit keys)",
    .ctx_bytes = sizeof(deal_ctx),
    .set_key = deal_set_key,
    .encrypt = deal_encrypt,
    .decrypt = deal_decrypt,
};
