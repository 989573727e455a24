/*
 * rc6_host_order.c: a planted byte-order fault, for tests only. It stands in
 * for cbref cipher `rc6` (symbol cbref_rc6_host_order, listed in FAULTS).
 *
 * RC6 exactly as rc6/rc6.c, except that the block's four words are read and
 * written in the host's byte order (a plain memcpy into a uint32_t) where the
 * specification says little-endian. On a little-endian CPU (x86-64, arm64) the
 * two are the same and every known answer passes; on a big-endian one (s390x)
 * every block comes out wrong. The key schedule is rc6.c's own (its bytes are
 * shifted into place), so only the data path is at fault.
 *
 * Compiled only with -DCB_TEST_FAULTS=ON (CMakeLists.txt here), and used in
 * place of rc6 only while the engine runs with CIPHERBENCH_TEST_FAULTS=1
 * (registry.c): an ordinary build or run never contains or sees it.
 * tests/test_arch.py holds the gate to catching it on s390x under qemu.
 */
#include <stdint.h>
#include <string.h>
#include "cbref_bits.h"

static inline uint32_t cbref_load32host(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline void cbref_store32host(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* rc6.c, its little-endian word access replaced by the host's order, under another symbol. */
#define cbref_load32le cbref_load32host
#define cbref_store32le cbref_store32host
#define cbref_rc6 cbref_rc6_host_order
#include "../rc6/rc6.c"
