#include "clocks.h"
#include "probe.h"

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

void dependent_add_chain(uint64_t n_thousands) { cb_serial_adds(n_thousands); }

void parallel_add_chains(uint64_t n_thousands) { cb_parallel_adds(n_thousands); }

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
