#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1  // RUSAGE_THREAD, before any system header
#endif
#include "probe.h"

#include <sys/resource.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void cb_serial_adds(uint64_t k) {
    uint64_t x = 0, one = 1;
    for (uint64_t i = 0; i < k; ++i) {
#if defined(__x86_64__)
        // Register-register adds: recent Intel cores fold chains of add-immediate at rename
        // (zero latency), which would overstate the clock.
        __asm__ volatile(".rept 1000\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#else
        for (int j = 0; j < 1000; ++j) __asm__ volatile("" : "+r"(x) : :);
#endif
    }
}

void cb_parallel_adds(uint64_t k) {
    uint64_t a = 0, b = 0, c = 0, d = 0, one = 1;
    for (uint64_t i = 0; i < k; ++i) {
#if defined(__x86_64__)
        __asm__ volatile(".rept 250\n\taddq %4, %0\n\taddq %4, %1\n\taddq %4, %2\n\taddq %4, %3\n\t.endr"
                         : "+r"(a), "+r"(b), "+r"(c), "+r"(d) : "r"(one));
#else
        for (int j = 0; j < 250; ++j) __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d) : :);
#endif
    }
}

static uint64_t fastest(void (*chain)(uint64_t), uint64_t k) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 2; ++i) {
        const uint64_t t0 = now_ns();
        chain(k);
        const uint64_t t = now_ns() - t0;
        if (t < best) best = t;
    }
    return best;
}

void cb_probe(uint64_t k, uint64_t out[2]) {
    out[0] = fastest(cb_serial_adds, k);
    out[1] = fastest(cb_parallel_adds, k);
}

uint64_t cb_preemptions(void) {
#if defined(RUSAGE_THREAD)
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) == 0) return (uint64_t)u.ru_nivcsw;
#endif
    return UINT64_MAX;
}
