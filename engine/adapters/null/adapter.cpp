// The null implementation: output = input. Timing it measures what the
// harness itself costs per call (the loop, the virtual call, one memcpy of the
// buffer), which every other figure includes.
#include <cstring>
#include <vector>

#include "cipherbench/adapter.h"

namespace {

class NullCipher : public cb::Cipher {
public:
    void set_key(const uint8_t*, size_t) override {}
    void start(const uint8_t*, size_t) override {}
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        // Timed loops run in place; copy through a scratch buffer so the work
        // is a real copy of `len` bytes either way.
        if (in != out) { std::memcpy(out, in, len); return; }
        if (scratch_.size() < len) scratch_.resize(len);
        std::memcpy(scratch_.data(), in, len);
        __asm__ volatile("" : : "r"(scratch_.data()) : "memory");
    }
private:
    std::vector<uint8_t> scratch_;
};

class NullAdapter : public cb::Adapter {
public:
    std::string name() const override { return "null"; }
    std::string library() const override { return "cipherbench"; }
    std::string version() const override { return "1"; }
    std::vector<cb::Offer> offers() const override { return {{"null", "memcpy"}}; }
    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive&, cb::Direction) const override {
        return std::make_unique<NullCipher>();
    }
};

}  // namespace

CB_ADAPTER_FACTORY(null) { return std::make_unique<NullAdapter>(); }
