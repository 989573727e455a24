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
 * the cipher of its name while the engine runs with CIPHERBENCH_TEST_FAULTS=1. */
#include <stdlib.h>
#define CBREF_CIPHER(sym) extern const cbref_cipher sym;
#include "faults.inc"
#undef CBREF_CIPHER

#define CBREF_CIPHER(sym) &sym,
static const cbref_cipher *const cbref_faults[] = {
#include "faults.inc"
    NULL};
#undef CBREF_CIPHER

static const cbref_cipher *cbref_find_fault(const char *name) {
    const char *on = getenv("CIPHERBENCH_TEST_FAULTS");
    if (!on || strcmp(on, "1") != 0) return NULL;
    for (const cbref_cipher *const *c = cbref_faults; *c; ++c)
        if (strcmp((*c)->name, name) == 0) return *c;
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
