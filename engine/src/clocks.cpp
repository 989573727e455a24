#include "clocks.h"

#include <cerrno>
#include <cstring>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace cb {

bool has_tsc() {
#if defined(__x86_64__) || defined(__i386__)
    return true;
#else
    return false;
#endif
}

uint64_t tsc() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
}

CoreCycles::CoreCycles() {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    fd_ = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd_ < 0) {
        why_ = std::string("perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: ") + std::strerror(errno);
        return;
    }
    uint64_t v;
    if (::read(fd_, &v, sizeof v) != sizeof v) {
        why_ = "perf cycle counter opened but cannot be read";
        ::close(fd_);
        fd_ = -1;
    }
}

CoreCycles::~CoreCycles() {
    if (fd_ >= 0) ::close(fd_);
}

uint64_t CoreCycles::read() const {
    uint64_t v = 0;
    if (fd_ < 0 || ::read(fd_, &v, sizeof v) != sizeof v) return 0;
    return v;
}

void dependent_add_chain(uint64_t n_thousands) {
    uint64_t x = 0, one = 1;
    for (uint64_t i = 0; i < n_thousands; ++i) {
#if defined(__x86_64__)
        // Register-register adds: recent Intel cores fold chains of
        // add-immediate at rename (zero latency), which would overstate the clock.
        __asm__ volatile(".rept 1000\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#else
        for (int j = 0; j < 1000; ++j) __asm__ volatile("" : "+r"(x) : : );
#endif
    }
}

void parallel_add_chains(uint64_t n_thousands) {
    uint64_t a = 0, b = 0, c = 0, d = 0, one = 1;
    for (uint64_t i = 0; i < n_thousands; ++i) {
#if defined(__x86_64__)
        __asm__ volatile(".rept 250\n\taddq %4, %0\n\taddq %4, %1\n\taddq %4, %2\n\taddq %4, %3\n\t.endr"
                         : "+r"(a), "+r"(b), "+r"(c), "+r"(d) : "r"(one));
#else
        for (int j = 0; j < 250; ++j) __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d) : : );
#endif
    }
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx"))) static void vzeroupper() { __builtin_ia32_vzeroupper(); }
#endif

bool clean_vector_state() {
#if defined(__x86_64__) || defined(__i386__)
    static const bool avx = __builtin_cpu_supports("avx");
    if (avx) vzeroupper();
    return avx;
#else
    return false;
#endif
}

}  // namespace cb
