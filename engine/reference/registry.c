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

#ifdef CBREF_TEST_FAULTS
/* Test builds only (-DCB_TEST_FAULTS=ON): the planted faults of faults/, each standing in for
 * the cipher of its name while the engine runs with CIPHERBENCH_TEST_FAULTS set: "1" plants
 * every fault (the first of FAULTS named for a cipher wins), or a comma-separated list of
 * fault symbols plants those alone (e.g. "cbref_rc6_slower"). */
#include <stdlib.h>
#define CBREF_CIPHER(sym) extern const cbref_cipher sym;
#include "faults.inc"
#undef CBREF_CIPHER

typedef struct { const char *symbol; const cbref_cipher *cipher; } cbref_fault;
#define CBREF_CIPHER(sym) {#sym, &sym},
static const cbref_fault cbref_faults[] = {
#include "faults.inc"
    {NULL, NULL}};
#undef CBREF_CIPHER

/* Whether `list` (comma-separated) holds `symbol` as one whole item. */
static int cbref_listed(const char *list, const char *symbol) {
    size_t n = strlen(symbol);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, symbol, n) == 0) return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static const cbref_cipher *cbref_find_fault(const char *name) {
    const char *on = getenv("CIPHERBENCH_TEST_FAULTS");
    if (!on || !*on || strcmp(on, "0") == 0) return NULL;
    for (const cbref_fault *f = cbref_faults; f->symbol; ++f)
        if ((strcmp(on, "1") == 0 || cbref_listed(on, f->symbol)) && strcmp(f->cipher->name, name) == 0)
            return f->cipher;
    return NULL;
}
#endif

const cbref_cipher *cbref_find(const char *name) {
#ifdef CBREF_TEST_FAULTS
    const cbref_cipher *fault = cbref_find_fault(name);
    if (fault) return fault;
#endif
    for (const cbref_cipher *const *c = cbref_all; *c; ++c)
        if (strcmp((*c)->name, name) == 0) return *c;
    return NULL;
}
