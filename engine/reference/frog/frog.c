/*
 * FROG: 128-bit block (the AES profile; FROG allows 8..128-byte blocks),
 * keys of 5..125 bytes in FROG; here keys of 16..125 bytes are accepted and
 * the registry lists 128/192/256-bit keys. Keys of 5..15 bytes are rejected:
 * how they enter the key-hashing IV (below) is not confirmed by any
 * published vector.
 * Designers: Dianelos Georgoudis, Damian Leroux, Billy Simon Chaves
 *   (TecApro International S.A.).
 * Specification: D. Georgoudis, D. Leroux, B. S. Chaves, "The 'FROG'
 *   Encryption Algorithm", AES round-1 submission, June 15, 1998 (B.1.1
 *   internal cycle, B.1.2 key setup, B.1.3 permutation generation, B.1.4
 *   bombPermu restrictions).
 *
 * Structure: 8 iterations; iteration i uses an internal-key record of
 *   xorBu[16], SubstPermu[256], BombPermu[16] (288 bytes, 2304 in all). For
 *   each byte position j = 0..15 in turn:
 *     X[j] ^= xorBu[j]; X[j] = SubstPermu[X[j]];
 *     X[j+1] ^= X[j] (for j = 15: X[0] ^= X[15]);  X[BombPermu[j]] ^= X[j].
 *   Decryption undoes the steps in reverse order with the inverse SubstPermu.
 * Key setup (the expensive part, kept faithful): the key, cycled, is XORed
 *   with the 251-byte randomSeed, cycled, into 2304 bytes; these are formatted
 *   into an internal key (permutations generated as in B.1.3, BombPermu made
 *   a single 16-cycle with no BombPermu[j] = j+1, B.1.4); with that key a
 *   16-byte buffer, the first 16 key bytes with the key length in bytes
 *   XORed into its byte 0, is encrypted 144 times in a row (CBC over 2304
 *   zero bytes), the 144 outputs forming 2304 bytes that are formatted into
 *   the final internal key (inverse SubstPermu for decryption).
 *   The key setup always uses all 8 iterations.
 * rounds: one unit = one FROG iteration (full and maximum 8); a reduced
 *   count r uses the first r records of the (full) internal key and decrypt
 *   undoes them in reverse.
 * Byte order: this cipher exposes the order of the NIST frog-vals.zip files,
 *   the published one: there every key, plaintext and ciphertext is printed
 *   last array byte first. Internally FROG works on byte arrays in the
 *   reference code's order, so set_key reverses the key and encrypt/decrypt
 *   reverse the block on the way in and out. The shared
 *   jither-cryptopunk/frog.vectors file prints the arrays in the reference
 *   code's order, i.e. every string byte-reversed relative to the NIST file:
 *   reverse its key, p and c strings before feeding them here.
 * `dir`: CBREF_ENCRYPT builds SubstPermu, CBREF_DECRYPT its inverse (the
 *   key hashing is the same and done in either case).
 * Tables: randomSeed (frog_seed.h) is the spec's constant. No allocation:
 *   the key-setup scratch space (about 5 KB) is on the stack.
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"
#include "frog_seed.h"

#define FROG_BLOCK 16
#define FROG_ITERS 8
#define FROG_RECORD (FROG_BLOCK + 256 + FROG_BLOCK)
#define FROG_KEY_BYTES (FROG_ITERS * FROG_RECORD) /* 2304 */

typedef struct {
    uint8_t xorbu[FROG_ITERS][FROG_BLOCK];
    uint8_t bomb[FROG_ITERS][FROG_BLOCK];
    uint8_t subst[FROG_ITERS][256];   /* SubstPermu (for encryption) */
    uint8_t inv[FROG_ITERS][256];     /* its inverse (for decryption) */
    unsigned rounds;
} frog_ctx;

/* B.1.3: turn n arbitrary bytes into a permutation of 0..n-1. */
static void frog_make_permutation(uint8_t *a, unsigned n) {
    uint8_t use[256];
    unsigned last = n - 1, index = 0;
    for (unsigned i = 0; i < n; ++i) use[i] = (uint8_t)i;
    for (unsigned i = 0; i < n - 1; ++i) {
        index = (index + a[i]) % (last + 1);
        a[i] = use[index];
        memmove(use + index, use + index + 1, last - index);
        --last;
        if (index > last) index = 0;
    }
    a[n - 1] = use[0];
}

/* B.1.4: make BombPermu one cycle through all 16 positions, then forbid
   BombPermu[j] = j+1 (mod 16). */
static void frog_validate_bomb(uint8_t *p) {
    uint8_t used[FROG_BLOCK] = {0};
    unsigned index = 0;
    for (unsigned j = 0; j < FROG_BLOCK - 1; ++j) {
        if (p[index] == 0) { /* the cycle through 0 closed early: splice in the next unused */
            unsigned k = index;
            do k = (k + 1) % FROG_BLOCK;
            while (used[k]);
            p[index] = (uint8_t)k;
            unsigned l = k;
            while (p[l] != k) l = p[l];
            p[l] = 0;
        }
        used[index] = 1;
        index = p[index];
    }
    for (unsigned j = 0; j < FROG_BLOCK; ++j)
        if (p[j] == (j + 1) % FROG_BLOCK) p[j] = (uint8_t)((j + 2) % FROG_BLOCK);
}

/* Format 2304 bytes of key material into an internal key. */
static void frog_make_internal_key(frog_ctx *k, const uint8_t *m, int dir) {
    for (unsigned it = 0; it < FROG_ITERS; ++it, m += FROG_RECORD) {
        uint8_t perm[256];
        memcpy(k->xorbu[it], m, FROG_BLOCK);
        memcpy(perm, m + FROG_BLOCK, 256);
        frog_make_permutation(perm, 256);
        if (dir & CBREF_ENCRYPT) memcpy(k->subst[it], perm, 256);
        if (dir & CBREF_DECRYPT)
            for (unsigned i = 0; i < 256; ++i) k->inv[it][perm[i]] = (uint8_t)i;
        memcpy(k->bomb[it], m + FROG_BLOCK + 256, FROG_BLOCK);
        frog_make_permutation(k->bomb[it], FROG_BLOCK);
        frog_validate_bomb(k->bomb[it]);
    }
}

static inline void frog_encrypt_array(const frog_ctx *k, uint8_t *x, unsigned rounds) {
    /* `cur` carries X[j] in a register: BombPermu[j] != j, j+1 (B.1.4), so
       the bomb store of step j never touches the byte step j+1 reads. */
    for (unsigned it = 0; it < rounds; ++it) {
        const uint8_t *xb = k->xorbu[it], *s = k->subst[it], *b = k->bomb[it];
        uint8_t cur = x[0];
        for (unsigned j = 0; j < FROG_BLOCK - 1; ++j) {
            uint8_t v = s[cur ^ xb[j]];
            cur = x[j + 1] ^ v;
            x[j] = v;
            x[b[j]] ^= v;
        }
        uint8_t v = s[cur ^ xb[FROG_BLOCK - 1]];
        x[FROG_BLOCK - 1] = v;
        x[0] ^= v;
        x[b[FROG_BLOCK - 1]] ^= v;
    }
}

static inline void frog_decrypt_array(const frog_ctx *k, uint8_t *x, unsigned rounds) {
    for (unsigned it = rounds; it-- > 0;) {
        const uint8_t *xb = k->xorbu[it], *s = k->inv[it], *b = k->bomb[it];
        uint8_t v = x[FROG_BLOCK - 1];
        x[b[FROG_BLOCK - 1]] ^= v;
        x[0] ^= x[FROG_BLOCK - 1];
        x[FROG_BLOCK - 1] = s[x[FROG_BLOCK - 1]] ^ xb[FROG_BLOCK - 1];
        for (unsigned j = FROG_BLOCK - 1; j-- > 0;) {
            x[b[j]] ^= x[j];
            x[j + 1] ^= x[j];
            x[j] = s[x[j]] ^ xb[j];
        }
    }
}

static int frog_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir) {
    frog_ctx *ctx = vctx;
    if (key_len < FROG_BLOCK || key_len > 125) return CBREF_EKEYLEN;
    if (rounds > FROG_ITERS) return CBREF_EROUNDS;
    if (!(dir & CBREF_BOTH)) dir = CBREF_BOTH;

    uint8_t k[125];
    for (size_t i = 0; i < key_len; ++i) k[i] = key[key_len - 1 - i]; /* NIST print order -> array */

    /* B.1.2 step 1: simpleKey = cycled key ^ cycled randomSeed. */
    uint8_t material[FROG_KEY_BYTES];
    unsigned ik = 0, is = 0;
    for (unsigned i = 0; i < FROG_KEY_BYTES; ++i) {
        material[i] = k[ik] ^ frog_random_seed[is];
        if (++ik == key_len) ik = 0;
        if (++is == 251) is = 0;
    }
    /* Step 2: format it, then encrypt the buffer repeatedly (CBC over zeros). */
    frog_make_internal_key(ctx, material, CBREF_ENCRYPT);
    uint8_t buf[FROG_BLOCK] = {0};
    memcpy(buf, k, FROG_BLOCK);
    buf[0] ^= (uint8_t)key_len;
    for (unsigned pos = 0; pos < FROG_KEY_BYTES; pos += FROG_BLOCK) {
        frog_encrypt_array(ctx, buf, FROG_ITERS);
        memcpy(material + pos, buf, FROG_BLOCK);
    }
    /* Step 3: the final internal key. */
    frog_make_internal_key(ctx, material, dir);
    ctx->rounds = rounds ? rounds : FROG_ITERS;
    return CBREF_OK;
}

static void frog_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const frog_ctx *ctx = vctx;
    uint8_t x[FROG_BLOCK];
    for (unsigned i = 0; i < FROG_BLOCK; ++i) x[i] = in[FROG_BLOCK - 1 - i];
    frog_encrypt_array(ctx, x, ctx->rounds);
    for (unsigned i = 0; i < FROG_BLOCK; ++i) out[i] = x[FROG_BLOCK - 1 - i];
}

static void frog_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const frog_ctx *ctx = vctx;
    uint8_t x[FROG_BLOCK];
    for (unsigned i = 0; i < FROG_BLOCK; ++i) x[i] = in[FROG_BLOCK - 1 - i];
    frog_decrypt_array(ctx, x, ctx->rounds);
    for (unsigned i = 0; i < FROG_BLOCK; ++i) out[i] = x[FROG_BLOCK - 1 - i];
}

static const unsigned frog_keys[] = {16, 24, 32, 0};

const cbref_cipher cbref_frog = {
    .name = "frog",
    .full_name = "FROG",
    .block_bytes = 16,
    .key_bytes = frog_keys,
    .default_rounds = FROG_ITERS,
    .max_rounds = FROG_ITERS,
    .rounds_unit = "iteration (one pass over the 16 block bytes with one 288-byte internal-key record)",
    .ctx_bytes = sizeof(frog_ctx),
    .set_key = frog_set_key,
    .encrypt = frog_encrypt,
    .decrypt = frog_decrypt,
};
