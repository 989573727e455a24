// Implementation "reference": the project's own C implementations of
// historical ciphers (engine/reference/<cipher>/), written from their
// specifications, in the registry's modes through cipherbench's generic mode
// code. Every cipher runs at its full round count unless a request asks for
// fewer (protocol field `rounds`, in the cipher's own unit, cbref.h): reduced-
// round variants are for diffusion analysis, not for the speed tables.
#include <cstring>
#include <vector>

#include "cbref.h"
#include "cipherbench/adapter.h"
#include "cipherbench/block_modes.h"

namespace {

class RefCipher : public cb::BlockModeCipher {
public:
    RefCipher(const cbref_cipher* c, const cb::Primitive& p, cb::Direction d)
        : BlockModeCipher(p.mode, d, c->block_bytes), c_(c), ctx_(c->ctx_bytes + 64),
          dir_(std::strcmp(p.mode, "ecb") == 0 || std::strcmp(p.mode, "cbc") == 0
                   ? (d == cb::Direction::Encrypt ? CBREF_ENCRYPT : CBREF_DECRYPT)
                   : CBREF_ENCRYPT) {  // keystream modes only ever encrypt
        fn_.ctx = aligned();
        fn_.encrypt = c->encrypt;
        fn_.decrypt = c->decrypt;
        fn_.block = c->block_bytes;
        fn_.encrypt_blocks = c->encrypt_blocks;  // NULL unless the cipher has a multi-block ECB path
        fn_.decrypt_blocks = c->decrypt_blocks;
    }
    void set_key(const uint8_t* key, size_t len) override {
        int rc = c_->set_key(aligned(), key, len, rounds_, dir_);
        if (rc == CBREF_EROUNDS)
            throw cb::Error(std::string(c_->name) + ": " + std::to_string(rounds_) + " rounds are not accepted with a " +
                            std::to_string(len) + "-byte key");
        if (rc != CBREF_OK) throw cb::Error(std::string(c_->name) + ": key setup failed (" + std::to_string(rc) + ")");
    }
    bool set_rounds(unsigned rounds) override {
        if (rounds < 1 || rounds > c_->max_rounds)
            throw cb::Error(std::string(c_->name) + " runs 1 to " + std::to_string(c_->max_rounds) + " rounds, not " +
                            std::to_string(rounds));
        rounds_ = rounds;
        return true;
    }

private:
    void* aligned() {  // contexts may hold 64-bit or vector tables
        auto p = reinterpret_cast<uintptr_t>(ctx_.data());
        return reinterpret_cast<void*>((p + 63) & ~uintptr_t(63));
    }
    const cbref_cipher* c_;
    std::vector<uint8_t> ctx_;
    int dir_;
    unsigned rounds_ = 0;  // 0 = the full cipher (cbref.h)
};

// The instruction sets the project's C was compiled for: the baseline in the ordinary
// build, wider where a variant build (registry/builds.toml) passes -march flags.
constexpr cb::Features compiled_for() {
#if defined(__AVX512F__)
    return cb::Feature::Avx512;
#elif defined(__AVX2__)
    return cb::Feature::Avx2;
#else
    return cb::Feature::Portable;
#endif
}

class ReferenceAdapter : public cb::Adapter {
public:
    std::string name() const override { return "reference"; }
    std::string library() const override { return "cipherbench reference ciphers"; }
    std::string version() const override { return "1"; }

    std::vector<cb::Offer> offers() const override {
        std::vector<cb::Offer> out;
        for (const auto& p : cb::all_primitives()) {
            const cbref_cipher* c = match(p);
            if (!c) continue;
            // The registry counts full rounds in its own unit; cbref's may be coarser (CAST-256).
            const unsigned per_unit = c->registry_rounds_per_unit ? c->registry_rounds_per_unit : 1;
            // Only ECB takes the multi-block path; say which build of it runs where that varies.
            const bool multi = c->encrypt_blocks && std::strcmp(p.mode, "ecb") == 0;
            std::string path = multi && c->code_path ? ", " + std::string(c->code_path()) : "";
            const bool avx2 = multi && c->code_isa && (c->code_isa() & CBREF_ISA_AVX2);
            out.push_back({p.name, {"portable C (" + std::string(c->full_name) + ")" + path + ", cipherbench modes",
                                    avx2 ? compiled_for() | cb::Feature::Avx2 : compiled_for()},
                           {p.rounds / per_unit, c->max_rounds, c->rounds_unit}});
        }
        return out;
    }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const cbref_cipher* c = match(p);
        if (!c) return Adapter::cipher(p, d);
        return std::make_unique<RefCipher>(c, p, d);
    }

private:
    static const cbref_cipher* match(const cb::Primitive& p) {
        if (p.kind != cb::Kind::Cipher || !cb::generic_mode_supported(p.mode)) return nullptr;
        const cbref_cipher* c = cbref_find(p.family);
        if (!c || c->block_bytes != p.block_bytes) return nullptr;
        for (const unsigned* k = c->key_bytes; *k; ++k)
            if (*k == p.key_bytes) return c;
        return nullptr;
    }
};

}  // namespace

CB_ADAPTER_FACTORY(reference) { return std::make_unique<ReferenceAdapter>(); }
