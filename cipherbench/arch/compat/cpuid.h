/*
 * cpuid.h for the engine cross-built for a CPU that is not x86 (cipherbench/arch/build.py puts
 * this folder on the include path of those builds only).
 *
 * Several adapters ask GCC's <cpuid.h> which x86 extensions the CPU has (AES-NI, PCLMULQDQ,
 * SHA, AVX2), to label the code path a library takes. GCC ships that header for x86 targets
 * only. On any other CPU the honest answer to every such query is "no such feature": both
 * functions answer 0, as GCC's do for a leaf the CPU does not have, and leave the registers 0.
 */
#ifndef CB_ARCH_COMPAT_CPUID_H
#define CB_ARCH_COMPAT_CPUID_H

#if defined(__x86_64__) || defined(__i386__)
#error "cipherbench/arch/compat/cpuid.h is for CPUs other than x86; use GCC's own"
#endif

static inline int __get_cpuid(unsigned leaf, unsigned *a, unsigned *b, unsigned *c, unsigned *d) {
    (void)leaf;
    *a = *b = *c = *d = 0;
    return 0;
}

static inline int __get_cpuid_count(unsigned leaf, unsigned sub, unsigned *a, unsigned *b, unsigned *c,
                                    unsigned *d) {
    (void)sub;
    return __get_cpuid(leaf, a, b, c, d);
}

#endif
