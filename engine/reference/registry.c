/* The list of reference ciphers. Adding a cipher = one line in ciphers.inc. */
#include <string.h>
#include "cbref.h"

#define CBREF_CIPHER(sym) extern const cbref_cipher sym;
#include "ciphers.inc"
#undef CBREF_CIPHER

#define CBREF_CIPHER(sym) &sym,
const cbref_cipher *const cbref_all[] = {
#include "ciphers.inc"
    NULL};
#undef CBREF_CIPHER

const cbref_cipher *cbref_find(const char *name) {
    for (const cbref_cipher *const *c = cbref_all; *c; ++c)
        if (strcmp((*c)->name, name) == 0) return *c;
    return NULL;
}
