/*
 * cbref-kat: drive a reference cipher from the shell, for development.
 *   echo "rc6 <key-hex> <block-hex> [rounds]" | cbref-kat [-d]
 * prints the encrypted (or, with -d, decrypted) block in hex, one per line.
 *   cbref-kat -l  lists the ciphers.
 * The verified path is the native runner; this tool exists so a cipher can be
 * checked while it is being written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cbref.h"

static int unhex(const char *s, uint8_t *out, size_t max, size_t *len) {
    size_t n = strlen(s);
    if (n % 2 || n / 2 > max) return -1;
    for (size_t i = 0; i < n / 2; ++i) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    *len = n / 2;
    return 0;
}

int main(int argc, char **argv) {
    int decrypt = argc > 1 && strcmp(argv[1], "-d") == 0;
    if (argc > 1 && strcmp(argv[1], "-l") == 0) {
        for (const cbref_cipher *const *c = cbref_all; *c; ++c)
            printf("%s\t%s\tblock %u\trounds %u\n", (*c)->name, (*c)->full_name,
                   (*c)->block_bytes, (*c)->default_rounds);
        return 0;
    }
    char name[64], khex[256], bhex[256], line[1024];
    while (fgets(line, sizeof line, stdin)) {
        unsigned rounds = 0;
        if (sscanf(line, "%63s %255s %255s %u", name, khex, bhex, &rounds) < 3) continue;
        const cbref_cipher *c = cbref_find(name);
        uint8_t key[128], in[64], out[64];
        size_t klen, blen;
        if (!c) { fprintf(stderr, "unknown cipher %s\n", name); return 2; }
        if (unhex(khex, key, sizeof key, &klen) || unhex(bhex, in, sizeof in, &blen) ||
            blen != c->block_bytes) { fprintf(stderr, "bad hex or block length\n"); return 2; }
        void *ctx = calloc(1, c->ctx_bytes);
        int rc = c->set_key(ctx, key, klen, rounds, decrypt ? CBREF_DECRYPT : CBREF_ENCRYPT);
        if (rc) { fprintf(stderr, "set_key failed: %d\n", rc); free(ctx); return 1; }
        (decrypt ? c->decrypt : c->encrypt)(ctx, in, out);
        for (size_t i = 0; i < blen; ++i) printf("%02x", out[i]);
        printf("\n");
        free(ctx);
    }
    return 0;
}
