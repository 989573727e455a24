/*
 * rc6_slower.c: a planted slowdown, for tests only. It stands in for cbref cipher
 * `rc6` (symbol cbref_rc6_slower, listed in FAULTS) and gives exactly rc6.c's answers
 * a known share slower.
 *
 * Each block is encrypted (decrypted) by rc6.c's own code, and its result then once
 * more by a two-round RC6 (RC6-32/2/b under the same key, EXTRA_ROUNDS) into a scratch
 * block, which is folded back into the output under a mask read from a volatile zero: the
 * output is unchanged, but it waits for the extra rounds. RC6 is 20 rounds, so the extra
 * work is two rounds' worth plus a second load, whitening, store and the fold, in series
 * with the block, on any CPU whatever its clock. Measured here (benchmarks/README.md, one
 * run timing both, three runs): ECB 13-16 % slower, CBC 12-14 %, CTR 3-9 %, CTR's
 * independent blocks overlapping the extra work and its byte-wise keystream XOR diluting
 * it. With one extra round CTR was 2-3 % slower, under the 3 % within which `compare`
 * never calls a difference. (Computed beside the block instead, from its input, the
 * extra round ran in the CBC chain's shadow: CBC 1-3 % slower where ECB was 6-7 %.)
 * benchmarks/ab --planted and tests/test_noise_ab.py time it against rc6.c, as a
 * change of known size that `compare` must call slower and nothing else.
 *
 * Compiled only with -DCB_TEST_FAULTS=ON (CMakeLists.txt here), and used in place of
 * rc6 only while the engine runs with CIPHERBENCH_TEST_FAULTS naming it (registry.c):
 * an ordinary build or run never contains or sees it.
 */
#include <stdint.h>
#include <string.h>
#include "cbref.h"

/* rc6.c under other symbols: its cipher value and its static functions stay its own. */
#define cbref_rc6 cbref_rc6_within_slower
#include "../rc6/rc6.c"
#undef cbref_rc6

/* The extra rounds a block waits for: two, so that even CTR, whose independent blocks the CPU
 * overlaps and whose byte-wise keystream XOR dilutes the cipher's share, is slower by at least
 * the 5 % benchmarks/ab --planted must detect (one round gave CTR 2-3 %, under compare's margin). */
#define EXTRA_ROUNDS 2

typedef struct {
    rc6_ctx full;  /* the schedule of the rounds asked for */
    rc6_ctx one;   /* an EXTRA_ROUNDS-round schedule of the same key: the extra work */
} rc6_slower_ctx;

/* Always 0; read each block, so the compiler cannot drop the extra round or its wait. */
static volatile uint8_t rc6_slower_zero;

static int rc6_slower_set_key(void *vctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir) {
    rc6_slower_ctx *ctx = (rc6_slower_ctx *)vctx;
    int err = rc6_set_key(&ctx->full, key, key_len, rounds, dir);
    return err ? err : rc6_set_key(&ctx->one, key, key_len, EXTRA_ROUNDS, dir);
}

/* out ^= extra & 0, which the CPU must compute before out is final. */
static void rc6_slower_fold(uint8_t *out, const uint8_t *extra) {
    const uint8_t mask = rc6_slower_zero;
    for (int i = 0; i < 16; ++i) out[i] ^= extra[i] & mask;
}

static void rc6_slower_encrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const rc6_slower_ctx *ctx = (const rc6_slower_ctx *)vctx;
    uint8_t extra[16];
    rc6_encrypt(&ctx->full, in, out);
    rc6_encrypt(&ctx->one, out, extra);
    rc6_slower_fold(out, extra);
}

static void rc6_slower_decrypt(const void *vctx, const uint8_t *in, uint8_t *out) {
    const rc6_slower_ctx *ctx = (const rc6_slower_ctx *)vctx;
    uint8_t extra[16];
    rc6_decrypt(&ctx->full, in, out);
    rc6_decrypt(&ctx->one, out, extra);
    rc6_slower_fold(out, extra);
}

const cbref_cipher cbref_rc6_slower = {
    "rc6", "RC6-32/20/b", 16, rc6_keys, 20, RC6_MAXR,
    "RC6 round (RC6-32/R/b: the key schedule makes 2R+4 subkeys)",
    sizeof(rc6_slower_ctx), rc6_slower_set_key, rc6_slower_encrypt, rc6_slower_decrypt, 1};
