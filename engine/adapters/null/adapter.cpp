// The null implementation: output = input. Timing it measures what the harness
// costs per call (the loop and the virtual update() call every implementation
// without its own update_many() pays) plus the least real work: each byte read
// once and written once.
//
// The copy is a loop in this file, not a call into libc: on the 2-core AMD EPYC
// (Zen 3, KVM) hosts, glibc 2.36's memcpy of 16 bytes, reached through the PLT,
// cost 3.4 ns of the 4.9 ns a call took, while the loop and virtual call
// cost 1.5 ns (benchmarks/probes/null_call.sh). A library call would make the
// null's figure a figure of libc. gcc 12 and clang 14/16, -Os to -O3, keep the
// loop a loop (no memcpy idiom is substituted).
#include <cstring>

#include "cipherbench/adapter.h"

namespace {

class NullCipher : public cb::Cipher {
public:
    void set_key(const uint8_t*, size_t) override {}
    void start(const uint8_t*, size_t) override {}
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        // In place (in == out) as the timed loops run, or into a separate buffer.
        // Each chunk is read whole before it is written, so in == out is safe.
        size_t i = 0;
        for (; i + 16 <= len; i += 16) {
            uint8_t chunk[16];
            std::memcpy(chunk, in + i, 16);  // fixed size: compiled to one load
            std::memcpy(out + i, chunk, 16);
        }
        for (; i < len; ++i) out[i] = in[i];
        // The stores are the call's result: keep them, whatever the caller does.
        __asm__ volatile("" : : "r"(out) : "memory");
    }
};

class NullAdapter : public cb::Adapter {
public:
    std::string name() const override { return "null"; }
    std::string library() const override { return "cipherbench"; }
    std::string version() const override { return "2"; }
    std::vector<cb::Offer> offers() const override { return {{"null", {"inline copy", cb::Feature::Portable}}}; }
    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive&, cb::Direction) const override {
        return std::make_unique<NullCipher>();
    }
};

}  // namespace

CB_ADAPTER_FACTORY(null) { return std::make_unique<NullAdapter>(); }
