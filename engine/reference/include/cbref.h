/*
 * cbref.h: the one C interface behind every reference block cipher in
 * engine/reference/<cipher>/.
 *
 * Contract (each sentence is checked by the tests):
 *  - A cipher is described by one `cbref_cipher` value, defined in its own
 *    folder and listed once in engine/reference/ciphers.inc.
 *  - `set_key` fills a caller-provided context of `ctx_bytes` bytes (aligned
 *    for any scalar type) and returns 0, or a negative CBREF_E* code for an
 *    unsupported key length or round count. It never allocates.
 *  - `rounds` = 0 selects the full cipher (`default_rounds`). Any value in
 *    1..max_rounds selects a reduced-round variant; what one "round" is for a
 *    cipher is stated in `rounds_unit` and in the head comment of its source.
 *    Encrypt and decrypt of the same context are inverse for every count.
 *  - `dir` says which schedules to prepare: CBREF_ENCRYPT, CBREF_DECRYPT or
 *    both (bitwise or). Ciphers with one shared schedule ignore it. Key-setup
 *    timing asks for exactly the schedule it measures.
 *  - `encrypt`/`decrypt` transform exactly one block of `block_bytes`; `in`
 *    and `out` may be the same pointer. Keys and blocks are byte strings in
 *    the byte order the cipher's published vectors print them; any word
 *    conversion happens inside the cipher.
 *  - `encrypt_blocks`/`decrypt_blocks` are optional (NULL where a cipher has
 *    none; trailing members, so a cipher that does not set them gets NULL).
 *    Where present, they transform `n` consecutive blocks (ECB) and give
 *    exactly what `n` calls of `encrypt`/`decrypt` would; `in` and `out` may
 *    be the same pointer but must not otherwise overlap. They exist so a
 *    cipher can work on independent blocks together (interleaved rounds, or
 *    bitslicing across blocks) in portable C.
 *  - Nothing here reads global mutable state, so contexts are independent.
 */
#ifndef CBREF_H
#define CBREF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CBREF_ENCRYPT = 1, CBREF_DECRYPT = 2, CBREF_BOTH = 3 };
enum { CBREF_OK = 0, CBREF_EKEYLEN = -1, CBREF_EROUNDS = -2 };

typedef struct cbref_cipher {
    const char *name;          /* registry cipher name, e.g. "rc6", "crypton10" */
    const char *full_name;     /* e.g. "RC6-32/20/b" */
    unsigned block_bytes;      /* 16 for the AES candidates, 24/32 for wide Rijndael */
    const unsigned *key_bytes; /* accepted key lengths, 0-terminated */
    unsigned default_rounds;   /* the full cipher */
    unsigned max_rounds;       /* largest accepted `rounds` (>= default_rounds) */
    const char *rounds_unit;   /* what one unit of `rounds` is, e.g. "Feistel round" */
    size_t ctx_bytes;          /* size of the context `set_key` fills */
    int (*set_key)(void *ctx, const uint8_t *key, size_t key_len, unsigned rounds, int dir);
    void (*encrypt)(const void *ctx, const uint8_t *in, uint8_t *out);
    void (*decrypt)(const void *ctx, const uint8_t *in, uint8_t *out);
    /* How many of the rounds registry/primitives.toml counts make one unit of
     * `rounds`: 1 (or 0, read as 1) where they are the same unit; 4 for
     * CAST-256, whose unit is the quad-round while RFC 2612 and the registry
     * count 48 rounds. The engine divides the registry's full count by it. */
    unsigned registry_rounds_per_unit;
    /* Optional multi-block ECB entry points (see the contract above). */
    void (*encrypt_blocks)(const void *ctx, const uint8_t *in, uint8_t *out, size_t n);
    void (*decrypt_blocks)(const void *ctx, const uint8_t *in, uint8_t *out, size_t n);
    /* Optional: what code runs on this machine where that is chosen at load
     * time (e.g. "16-block ECB loop, AVX2 build"); NULL when there is one build.
     * The engine puts it in the implementation's provider label. */
    const char *(*code_path)(void);
    /* Optional, beside code_path: the instruction sets the build chosen at load
     * was compiled for, as CBREF_ISA_* bits (0: the baseline). The engine
     * announces them as the path's features; the words above are for people. */
    unsigned (*code_isa)(void);
} cbref_cipher;

enum { CBREF_ISA_AVX2 = 1u };

/* Every reference cipher, in the order of ciphers.inc; NULL-terminated. */
extern const cbref_cipher *const cbref_all[];

/* The cipher named `name`, or NULL. */
const cbref_cipher *cbref_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
