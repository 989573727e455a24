// null_call.cpp's comparison ciphers, in their own translation unit as an adapter is
// in the engine, so that the calls to them stay virtual:
//  - empty: an update() that does nothing, which leaves the harness's own cost;
//  - libc: an update() whose copy is glibc's memcpy, as the null adapter's was up to
//    its version 1 (in place through a scratch buffer).
#include <cstring>
#include <memory>
#include <vector>

#include "cipherbench/adapter.h"

namespace {
struct Empty final : cb::Cipher {
    void set_key(const uint8_t*, size_t) override {}
    void start(const uint8_t*, size_t) override {}
    void update(const uint8_t*, uint8_t*, size_t) override { __asm__ volatile("" ::: "memory"); }
};

struct LibcCopy final : cb::Cipher {
    void set_key(const uint8_t*, size_t) override {}
    void start(const uint8_t*, size_t) override {}
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (in != out) { std::memcpy(out, in, len); return; }
        if (scratch.size() < len) scratch.resize(len);
        std::memcpy(scratch.data(), in, len);
        __asm__ volatile("" : : "r"(scratch.data()) : "memory");
    }
    std::vector<uint8_t> scratch;
};
}  // namespace

std::unique_ptr<cb::Cipher> empty_cipher() { return std::make_unique<Empty>(); }
std::unique_ptr<cb::Cipher> libc_copy_cipher() { return std::make_unique<LibcCopy>(); }
