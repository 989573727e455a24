// Clocks the runner reads around a timed batch. Nothing here is called
// inside a timed loop except now_ns()/tsc()/CoreCycles::read() at its edges.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace cb {

inline uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// The time-stamp counter: a fixed-rate clock on current x86, NOT core cycles.
bool has_tsc();
uint64_t tsc();

// A real core-cycle counter through perf_event_open, when the kernel and
// hypervisor expose one; otherwise available() is false and why() says why.
class CoreCycles {
public:
    CoreCycles();
    ~CoreCycles();
    bool available() const { return fd_ >= 0; }
    const std::string& why() const { return why_; }
    uint64_t read() const;

private:
    int fd_ = -1;
    std::string why_;
};

// Runs `n` dependent single-cycle additions (a serial chain: one per core
// cycle on every x86-64 core of the last decade); the caller times it to
// estimate the core clock, as libgcrypt's bench-slope does.
void dependent_add_chain(uint64_t n_thousands);

// The same number of additions as dependent_add_chain(n_thousands), in four
// independent chains interleaved. A core to itself runs several of them per cycle
// (about 3.4 on the Xeons of this project's guests, against one for the serial
// chain); a core whose execution ports another hardware thread is using (a sibling
// hyperthread the hypervisor gave to another guest, invisible from in here) runs
// fewer, while the serial chain, needing one port a cycle, barely notices. So the
// ratio of the two times tells whether the core was shared (cipherbench/measure.py).
void parallel_add_chains(uint64_t n_thousands);

// Clears the upper halves of the vector registers (x86 VZEROUPPER) where the CPU
// has AVX; a no-op elsewhere. Called before every timed batch: a library that
// returns with them dirty makes every legacy-SSE instruction that follows in the
// process pay a transition penalty (measured with the OpenSSL 4.0.3 bundled in
// cryptography 50: pycryptodome's AES-NI CBC ran seven times slower after its
// ChaCha20-Poly1305; docs/protocol.md, "bench"), so one library's
// timing would depend on which other one ran just before it in the same process.
// Returns whether the CPU needed it (hello reports it).
bool clean_vector_state();

}  // namespace cb
