// libsodium. Streams continue across update() calls through the *_xor_ic
// functions (block counter + leftover keystream of a partial block). The
// AEADs are libsodium's one-shot detached functions: one update() per
// message does the whole encryption; decryption runs in finish(), where the
// tag is known (see README.md for exactly what each workload times).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sodium.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

enum class Algo {
    ChaCha20Ietf, XChaCha20, Salsa20, XSalsa20,
    ChaCha20Poly1305Ietf, XChaCha20Poly1305Ietf, Aes256Gcm,
    Sha256, Sha512, Blake2b,
};

struct SodiumName {
    const char* primitive;  // canonical registry name
    const char* sodium;     // libsodium construction
    Algo algo;
};

#include "names.inc"  // the name tables, generated from manifest.toml

// ------------------------------------------------------------------ streams
// One signature for every *_xor_ic function (the IETF ChaCha20 one takes a
// 32-bit counter).
using XorIc = int (*)(unsigned char*, const unsigned char*, unsigned long long,
                      const unsigned char*, uint64_t, const unsigned char*);

int chacha20_ietf_xor_ic(unsigned char* c, const unsigned char* m, unsigned long long n,
                         const unsigned char* nonce, uint64_t ic, const unsigned char* k) {
    return crypto_stream_chacha20_ietf_xor_ic(c, m, n, nonce, uint32_t(ic), k);
}

class SodiumStream : public cb::Cipher {
public:
    // max_blocks: keystream blocks available per nonce (2^32 for IETF ChaCha20,
    // whose 32-bit counter must not wrap; libsodium aborts the process if asked to).
    SodiumStream(XorIc fn, uint64_t max_blocks) : fn_(fn), max_blocks_(max_blocks) {}
    ~SodiumStream() override { sodium_memzero(key_, sizeof key_); sodium_memzero(ks_, sizeof ks_); }

    void set_key(const uint8_t* key, size_t len) override { std::memcpy(key_, key, len); }
    void start(const uint8_t* iv, size_t len) override {
        std::memcpy(nonce_, iv, len);
        ic_ = 0;
        used_ = 64;  // no keystream left over
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        // 1. The rest of the keystream block a previous call left partly used.
        while (used_ < 64 && len) { *out++ = *in++ ^ ks_[used_++]; --len; }
        if (!len) return;
        const size_t full = len & ~size_t(63), rest = len - full;
        const uint64_t need = full / 64 + (rest ? 1 : 0);
        if (need > max_blocks_ - ic_)
            throw cb::Error("keystream exhausted: the block counter would wrap (at most " +
                            std::to_string(max_blocks_) + " 64-byte blocks per nonce)");
        // 2. Whole blocks straight through the library, starting at block ic_.
        if (full) {
            if (fn_(out, in, full, nonce_, ic_, key_) != 0) throw cb::Error("libsodium stream xor_ic failed");
            ic_ += full / 64;
        }
        // 3. A trailing partial block: keep the whole keystream block for the next call.
        if (rest) {
            std::memset(ks_, 0, sizeof ks_);
            if (fn_(ks_, ks_, 64, nonce_, ic_, key_) != 0) throw cb::Error("libsodium stream xor_ic failed");
            ++ic_;
            for (size_t i = 0; i < rest; ++i) out[full + i] = in[full + i] ^ ks_[i];
            used_ = rest;
        }
    }

private:
    XorIc fn_;
    uint64_t max_blocks_;
    uint8_t key_[32] = {0}, nonce_[24] = {0}, ks_[64] = {0};
    uint64_t ic_ = 0;
    size_t used_ = 64;
};

// ------------------------------------------------------------------ AEADs
// libsodium's detached one-shot functions; the message state machine is
// cb::OneShotAead's.
class SodiumAead : public cb::OneShotAead {
public:
    SodiumAead(Algo a, cb::Direction d)
        : OneShotAead(d, 16,
                      "libsodium's AEADs are one-shot: a message is one update() call (the bulk workload's "
                      "many update() calls per message cannot be timed honestly; use workload 'message')"),
          algo_(a) {}
    ~SodiumAead() override {
        sodium_memzero(key_, sizeof key_);
        sodium_memzero(&gcm_, sizeof gcm_);
    }

    void set_key(const uint8_t* key, size_t len) override {
        std::memcpy(key_, key, len);
        if (algo_ == Algo::Aes256Gcm && crypto_aead_aes256gcm_beforenm(&gcm_, key_) != 0)
            throw cb::Error("crypto_aead_aes256gcm_beforenm failed");
    }

private:
    void check_length(size_t len) const {
        const unsigned long long max =
            algo_ == Algo::Aes256Gcm ? crypto_aead_aes256gcm_messagebytes_max()
            : algo_ == Algo::ChaCha20Poly1305Ietf ? crypto_aead_chacha20poly1305_ietf_messagebytes_max()
                                                  : crypto_aead_xchacha20poly1305_ietf_messagebytes_max();
        if (len > max) throw cb::Unsupported("message longer than libsodium's limit of " + std::to_string(max) + " bytes");
    }

    void seal(const uint8_t* m, uint8_t* c, size_t len, uint8_t* mac) override {
        check_length(len);
        int rc = -1;
        switch (algo_) {
        case Algo::ChaCha20Poly1305Ietf:
            rc = crypto_aead_chacha20poly1305_ietf_encrypt_detached(c, mac, nullptr, m, len, ad(), ad_len(), nullptr, nonce(), key_);
            break;
        case Algo::XChaCha20Poly1305Ietf:
            rc = crypto_aead_xchacha20poly1305_ietf_encrypt_detached(c, mac, nullptr, m, len, ad(), ad_len(), nullptr, nonce(), key_);
            break;
        case Algo::Aes256Gcm:
            rc = crypto_aead_aes256gcm_encrypt_detached_afternm(c, mac, nullptr, m, len, ad(), ad_len(), nullptr, nonce(), &gcm_);
            break;
        default:
            break;
        }
        if (rc != 0) throw cb::Error("libsodium AEAD encryption failed");
    }
    bool open(const uint8_t* c, uint8_t* m, size_t len, const uint8_t* tag) override {
        check_length(len);
        switch (algo_) {
        case Algo::ChaCha20Poly1305Ietf:
            return crypto_aead_chacha20poly1305_ietf_decrypt_detached(m, nullptr, c, len, tag, ad(), ad_len(), nonce(), key_) == 0;
        case Algo::XChaCha20Poly1305Ietf:
            return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(m, nullptr, c, len, tag, ad(), ad_len(), nonce(), key_) == 0;
        case Algo::Aes256Gcm:
            return crypto_aead_aes256gcm_decrypt_detached_afternm(m, nullptr, c, len, tag, ad(), ad_len(), nonce(), &gcm_) == 0;
        default:
            throw cb::Error("not an AEAD");
        }
    }

    Algo algo_;
    uint8_t key_[32] = {0};
    crypto_aead_aes256gcm_state gcm_;
};

// ------------------------------------------------------------------ hashes
class Sha256 : public cb::Hash {
public:
    void init() override { crypto_hash_sha256_init(&st_); }
    void update(const uint8_t* in, size_t len) override { crypto_hash_sha256_update(&st_, in, len); }
    void final(uint8_t* d) override { crypto_hash_sha256_final(&st_, d); }
private:
    crypto_hash_sha256_state st_;
};

class Sha512 : public cb::Hash {
public:
    void init() override { crypto_hash_sha512_init(&st_); }
    void update(const uint8_t* in, size_t len) override { crypto_hash_sha512_update(&st_, in, len); }
    void final(uint8_t* d) override { crypto_hash_sha512_final(&st_, d); }
private:
    crypto_hash_sha512_state st_;
};

class Blake2b : public cb::Hash {
public:
    explicit Blake2b(size_t out) : out_(out) {}
    void init() override {
        if (crypto_generichash_init(&st_, nullptr, 0, out_) != 0) throw cb::Error("crypto_generichash_init failed");
    }
    void update(const uint8_t* in, size_t len) override {
        if (crypto_generichash_update(&st_, in, len) != 0) throw cb::Error("crypto_generichash_update failed");
    }
    void final(uint8_t* d) override {
        if (crypto_generichash_final(&st_, d, out_) != 0) throw cb::Error("crypto_generichash_final failed");
    }
private:
    crypto_generichash_state st_;  // 64-byte aligned type; C++17 aligned new honours it
    size_t out_;
};

// ------------------------------------------------------------------ adapter
class SodiumAdapter : public cb::Adapter {
public:
    SodiumAdapter() {
        if (sodium_init() < 0) throw cb::Error("sodium_init() failed");
        for (const auto& n : kNames) {
            const cb::Primitive* p = cb::find_primitive(n.primitive);
            if (!p) continue;
            if (n.algo == Algo::Aes256Gcm && !crypto_aead_aes256gcm_is_available()) {
                skipped_ += std::string(skipped_.empty() ? "" : "; ") +
                            "aes-256-gcm: crypto_aead_aes256gcm_is_available() = 0 (needs AES-NI and PCLMUL)";
                continue;
            }
            const std::string why = cb::probe(*p, [&](cb::Direction d) { return cipher(*p, d); }, [&] { return hash(*p); });
            if (!why.empty()) {
                skipped_ += std::string(skipped_.empty() ? "" : "; ") + n.primitive + ": failed the start-up check (" + why + ")";
                continue;
            }
            offers_.push_back({n.primitive, provider(n.algo)});
        }
    }

    std::string name() const override { return "sodium"; }
    std::string library() const override { return "libsodium"; }
    std::string version() const override { return sodium_version_string(); }
    std::vector<cb::Offer> offers() const override { return offers_; }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const SodiumName* n = cb::find_entry(kNames, p.name);
        if (!n) return Adapter::cipher(p, d);
        switch (n->algo) {
        case Algo::ChaCha20Ietf: return std::make_unique<SodiumStream>(chacha20_ietf_xor_ic, uint64_t(1) << 32);
        case Algo::XChaCha20: return std::make_unique<SodiumStream>(crypto_stream_xchacha20_xor_ic, UINT64_MAX);
        case Algo::Salsa20: return std::make_unique<SodiumStream>(crypto_stream_salsa20_xor_ic, UINT64_MAX);
        case Algo::XSalsa20: return std::make_unique<SodiumStream>(crypto_stream_xsalsa20_xor_ic, UINT64_MAX);
        case Algo::ChaCha20Poly1305Ietf:
        case Algo::XChaCha20Poly1305Ietf:
        case Algo::Aes256Gcm:
            return std::make_unique<SodiumAead>(n->algo, d);
        default:
            return Adapter::cipher(p, d);
        }
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const SodiumName* n = cb::find_entry(kNames, p.name);
        if (!n) return Adapter::hash(p);
        switch (n->algo) {
        case Algo::Sha256: return std::make_unique<Sha256>();
        case Algo::Sha512: return std::make_unique<Sha512>();
        case Algo::Blake2b: return std::make_unique<Blake2b>(p.digest_bytes);
        default: return Adapter::hash(p);
        }
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::string cpu;
        auto add = [&](int has, const char* f) { if (has) cpu += std::string(cpu.empty() ? "" : " ") + f; };
        add(sodium_runtime_has_sse2(), "sse2");
        add(sodium_runtime_has_ssse3(), "ssse3");
        add(sodium_runtime_has_sse41(), "sse4.1");
        add(sodium_runtime_has_avx(), "avx");
        add(sodium_runtime_has_avx2(), "avx2");
        add(sodium_runtime_has_avx512f(), "avx512f");
        add(sodium_runtime_has_aesni(), "aesni");
        add(sodium_runtime_has_pclmul(), "pclmul");
        std::vector<std::pair<std::string, std::string>> n = {
            {"cpu_features_seen_by_libsodium", cpu},
            {"aead_api", "one-shot detached: one update() per message; decryption runs in finish()"},
        };
        if (!skipped_.empty()) n.push_back({"not_offered", skipped_});
        return n;
    }

private:
    // What libsodium's run-time dispatch picks (its *_pick_best_implementation
    // order for 1.0.18 on x86-64).
    static cb::Path provider(Algo a) {
        using cb::Feature;
        const cb::Path chacha = sodium_runtime_has_avx2() ? cb::Path{"AVX2", Feature::Avx2}
                              : sodium_runtime_has_ssse3() ? cb::Path{"SSSE3", Feature::Ssse3}
                                                           : cb::Path{"portable C", Feature::Portable};
        const cb::Path salsa = sodium_runtime_has_avx2() ? cb::Path{"AVX2", Feature::Avx2}
                             : sodium_runtime_has_sse2() ? cb::Path{"SSE2", Feature::Sse2}
                                                         : cb::Path{"x86-64 asm or portable C", cb::Features{}};
        const cb::Path poly = sodium_runtime_has_sse2() ? cb::Path{"Poly1305 SSE2", Feature::Sse2}
                                                        : cb::Path{"Poly1305 portable C", Feature::Portable};
        const cb::Features portable = Feature::Portable;
        switch (a) {
        case Algo::ChaCha20Ietf: return {"ChaCha20 " + chacha.text, chacha.features};
        case Algo::XChaCha20: return {"HChaCha20 portable C + ChaCha20 " + chacha.text, portable | chacha.features};
        case Algo::Salsa20: return {"Salsa20 " + salsa.text, salsa.features};
        case Algo::XSalsa20: return {"HSalsa20 portable C + Salsa20 " + salsa.text, portable | salsa.features};
        case Algo::ChaCha20Poly1305Ietf:
            return {"ChaCha20 " + chacha.text + ", " + poly.text + ", one-shot", chacha.features | poly.features};
        case Algo::XChaCha20Poly1305Ietf:
            return {"HChaCha20 + ChaCha20 " + chacha.text + ", " + poly.text + ", one-shot",
                    chacha.features | poly.features};
        case Algo::Aes256Gcm: return {"AES-NI + PCLMUL, one-shot", Feature::AesNi | Feature::Pclmul};
        case Algo::Sha256:
        case Algo::Sha512: return {"portable C", portable};
        case Algo::Blake2b:
            return sodium_runtime_has_avx2() ? cb::Path{"AVX2", Feature::Avx2}
                 : sodium_runtime_has_sse41() ? cb::Path{"SSE4.1", Feature::Sse41}
                 : sodium_runtime_has_ssse3() ? cb::Path{"SSSE3", Feature::Ssse3}
                                              : cb::Path{"portable C", portable};
        }
        return {"", cb::Features{}};
    }

    std::vector<cb::Offer> offers_;
    std::string skipped_;
};

}  // namespace

CB_ADAPTER_FACTORY(sodium) { return std::make_unique<SodiumAdapter>(); }
