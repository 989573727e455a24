// leaky: RC4 with a key-indexed table load and a key-dependent branch added on
// purpose (README.md). Test-only: the factory returns nothing unless
// CIPHERBENCH_TEST_LEAKY=1, and the engine then leaves it out of hello.
#include <cstdlib>
#include <cstring>
#include <utility>

#include "cipherbench/adapter.h"

namespace {

// Any 256 distinct values: what matters is that the index is the key byte.
struct Table {
    uint8_t v[256];
    Table() { for (int i = 0; i < 256; ++i) v[i] = uint8_t(i * 167 + 13); }
};
const Table kTable;

class LeakyRc4 : public cb::Cipher {
public:
    void set_key(const uint8_t* key, size_t len) override {
        sink_ = kTable.v[key[0]];                           // leak 1: memory index = key byte
        const int schedules = (key[0] & 1) ? 16 : 1;        // leak 2: branch on a key bit
        for (int n = 0; n < schedules; ++n) schedule(key, len);
        key_ = {};
        std::memcpy(key_.k, key, len);
        len_ = len;
    }
    void start(const uint8_t*, size_t) override { schedule(key_.k, len_); }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        for (size_t n = 0; n < len; ++n) {  // the PRGA
            i_ = uint8_t(i_ + 1);
            j_ = uint8_t(j_ + s_[i_]);
            std::swap(s_[i_], s_[j_]);
            out[n] = in[n] ^ s_[uint8_t(s_[i_] + s_[j_])];
        }
    }

private:
    void schedule(const uint8_t* key, size_t len) {  // the KSA: restarts the keystream
        for (int k = 0; k < 256; ++k) s_[k] = uint8_t(k);
        uint8_t j = 0;
        for (int k = 0; k < 256; ++k) {
            j = uint8_t(j + s_[k] + key[k % len]);
            std::swap(s_[k], s_[j]);
        }
        i_ = j_ = 0;
    }
    struct { uint8_t k[256]; } key_{};
    size_t len_ = 0;
    uint8_t s_[256]{}, i_ = 0, j_ = 0;
    volatile uint8_t sink_ = 0;
};

class LeakyAdapter : public cb::Adapter {
public:
    std::string name() const override { return "leaky"; }
    std::string library() const override { return "cipherbench test-only leaky RC4"; }
    std::string version() const override { return "1"; }
    std::vector<cb::Offer> offers() const override { return {{"rc4", {"test-only: leaks its key on purpose", cb::Feature::Portable}}}; }
    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction) const override {
        if (std::strcmp(p.name, "rc4") != 0) throw cb::Unsupported(std::string(p.name) + " is not offered by leaky");
        return std::make_unique<LeakyRc4>();
    }
};

}  // namespace

CB_ADAPTER_FACTORY(leaky) {
    const char* on = std::getenv("CIPHERBENCH_TEST_LEAKY");
    if (!on || std::strcmp(on, "1") != 0) return nullptr;
    return std::make_unique<LeakyAdapter>();
}
