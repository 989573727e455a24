// GnuTLS through its crypto API: gnutls_cipher_* (streaming, including GCM and
// ChaCha20-Poly1305 with gnutls_cipher_add_auth / gnutls_cipher_tag),
// gnutls_aead_cipher_* for CCM (one-shot), gnutls_hash_* for digests.
//
// GnuTLS (and Nettle under it) continues a message across calls only at
// block boundaries; for GCM and ChaCha20-Poly1305 Nettle even asserts (aborts
// the process) when a call follows one that ended mid-block. The adapter
// therefore keeps the keystream of a partial block itself for the plain
// stream ciphers, and refuses (cb::Unsupported) an AEAD update() that would
// follow a partial block, before GnuTLS is called.
#include <cpuid.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

enum class Api { Cipher, Aead, Hash };

struct GnutlsName {
    const char* primitive;
    gnutls_cipher_algorithm_t cipher;
    gnutls_digest_algorithm_t digest;
    Api api;
};

#include "names.inc"  // the name tables, generated from manifest.toml

void check(int rc, const char* what) {
    if (rc < 0) throw cb::Error(std::string(what) + " failed: " + gnutls_strerror(rc));
}

bool ct_equal(const uint8_t* a, const uint8_t* b, size_t n) {
    uint8_t d = 0;
    for (size_t i = 0; i < n; ++i) d |= uint8_t(a[i] ^ b[i]);
    return d == 0;
}

// The key bytes GnuTLS is given: two-key 3DES becomes K1 || K2 || K1.
size_t key_bytes(const cb::Primitive& p, const uint8_t* key, size_t n, uint8_t* out) {
    std::memcpy(out, key, n);
    if (std::strcmp(p.family, "3des") == 0 && n == 16) {
        std::memcpy(out + 16, key, 8);
        return 24;
    }
    return n;
}

// ------------------------------------------------------------------ gnutls_cipher_*
class GtCipher : public cb::Cipher {
public:
    GtCipher(gnutls_cipher_algorithm_t a, const cb::Primitive& p, cb::Direction d)
        : algo_(a), p_(p), enc_(d == cb::Direction::Encrypt) {
        aead_ = p.kind == cb::Kind::Aead;
        const std::string name = p.name;
        stream_block_ = name == "chacha20" ? 64 : 0;
        aead_block_ = name == "chacha20-poly1305" ? 64 : 16;
        chacha32_ = algo_ == GNUTLS_CIPHER_CHACHA20_32;
        restart_ = algo_ == GNUTLS_CIPHER_ARCFOUR_128;  // no IV: a message restarts the keystream
        max_blocks_ = chacha32_ ? (uint64_t(1) << 32) : UINT64_MAX;
        iv_len_ = gnutls_cipher_get_iv_size(a);
    }
    ~GtCipher() override {
        if (h_) gnutls_cipher_deinit(h_);
        std::memset(key_, 0, sizeof key_);
        std::memset(ks_, 0, sizeof ks_);
    }

    void set_key(const uint8_t* key, size_t len) override {
        key_len_ = key_bytes(p_, key, len, key_);
        init_handle();
    }
    void start(const uint8_t* iv, size_t len) override {
        if (!h_) throw cb::Error("start() before set_key()");
        if (restart_) {
            init_handle();  // RC4: gnutls_cipher_init again (the key schedule is the restart)
        } else if (iv_len_) {
            uint8_t full[32] = {0};
            size_t off = chacha32_ ? 4 : 0;  // CHACHA20-32: counter 0 (little-endian) || nonce
            if (off + len != iv_len_) throw cb::Error("IV length does not match GnuTLS's");
            std::memcpy(full + off, iv, len);
            gnutls_cipher_set_iv(h_, full, iv_len_);
        }
        used_ = 64;
        ic_ = 0;
        partial_ = false;
        aad_done_ = false;
        data_started_ = false;
    }
    void aad(const uint8_t* a, size_t len) override {
        if (!aead_) throw cb::Error("not an AEAD");
        if (data_started_) throw cb::Error("aad() after update()");
        if (aad_done_) throw cb::Unsupported("the GnuTLS adapter takes the associated data in one aad() call");
        aad_done_ = true;
        if (len) check(gnutls_cipher_add_auth(h_, a, len), "gnutls_cipher_add_auth");
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (!h_) throw cb::Error("update() before set_key()");
        data_started_ = true;
        if (!len) return;
        if (stream_block_) { stream(in, out, len); return; }
        if (aead_) {
            if (partial_)
                throw cb::Unsupported(std::string("GnuTLS continues ") + p_.name + " only after whole " +
                                      std::to_string(aead_block_) + "-byte blocks; the previous update() ended mid-block");
            partial_ = len % aead_block_ != 0;
        }
        crypt(in, out, len);
    }
    bool finish(uint8_t* tag) override {
        if (!aead_) return true;
        uint8_t t[16];
        check(gnutls_cipher_tag(h_, t, p_.tag_bytes), "gnutls_cipher_tag");
        if (enc_) { std::memcpy(tag, t, p_.tag_bytes); return true; }
        return ct_equal(t, tag, p_.tag_bytes);
    }

private:
    void init_handle() {
        if (h_) { gnutls_cipher_deinit(h_); h_ = nullptr; }
        uint8_t zero[32] = {0};  // start() sets the real IV
        gnutls_datum_t k = {key_, unsigned(key_len_)}, v = {zero, unsigned(iv_len_)};
        check(gnutls_cipher_init(&h_, algo_, &k, iv_len_ ? &v : nullptr), "gnutls_cipher_init");
    }
    void crypt(const uint8_t* in, uint8_t* out, size_t len) {
        if (enc_) check(gnutls_cipher_encrypt2(h_, in, len, out, len), "gnutls_cipher_encrypt2");
        else check(gnutls_cipher_decrypt2(h_, in, len, out, len), "gnutls_cipher_decrypt2");
    }
    // ChaCha20: GnuTLS advances its block counter per call, rounding a
    // partial block up. Whole blocks go through; a partial tail is taken from
    // one encrypted zero block whose rest serves the next call.
    void stream(const uint8_t* in, uint8_t* out, size_t len) {
        while (used_ < 64 && len) { *out++ = *in++ ^ ks_[used_++]; --len; }
        if (!len) return;
        const size_t full = len & ~size_t(63), rest = len - full;
        const uint64_t need = full / 64 + (rest ? 1 : 0);
        if (need > max_blocks_ - ic_) throw cb::Error("keystream exhausted: the 32-bit block counter would wrap");
        if (full) { crypt(in, out, full); ic_ += full / 64; }
        if (rest) {
            std::memset(ks_, 0, sizeof ks_);
            check(gnutls_cipher_encrypt2(h_, ks_, 64, ks_, 64), "gnutls_cipher_encrypt2");
            ++ic_;
            for (size_t i = 0; i < rest; ++i) out[full + i] = in[full + i] ^ ks_[i];
            used_ = rest;
        }
    }

    gnutls_cipher_algorithm_t algo_;
    const cb::Primitive& p_;
    bool enc_, aead_ = false, chacha32_ = false, restart_ = false;
    size_t stream_block_ = 0, aead_block_ = 16, iv_len_ = 0;
    gnutls_cipher_hd_t h_ = nullptr;
    uint8_t key_[64] = {0};
    size_t key_len_ = 0;
    uint8_t ks_[64] = {0};
    size_t used_ = 64;
    uint64_t ic_ = 0, max_blocks_ = UINT64_MAX;
    bool partial_ = false, aad_done_ = false, data_started_ = false;
};

// ------------------------------------------------------------------ gnutls_aead_cipher_* (one-shot: CCM)
// The message state machine is cb::OneShotAead's.
class GtAead : public cb::OneShotAead {
public:
    GtAead(gnutls_cipher_algorithm_t a, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      "GnuTLS's CCM exists only as a one-shot AEAD (gnutls_aead_cipher_*): a message is one update() call "
                      "(the bulk workload's many update() calls per message cannot be timed honestly; use workload 'message')"),
          algo_(a), p_(p) {
        scratch_.resize(65536 + 64);
    }
    ~GtAead() override { if (h_) gnutls_aead_cipher_deinit(h_); }

    void set_key(const uint8_t* key, size_t len) override {
        uint8_t kb[64];
        gnutls_datum_t k = {kb, unsigned(key_bytes(p_, key, len, kb))};
#if GNUTLS_VERSION_NUMBER >= 0x030705  // gnutls_aead_cipher_set_key: since 3.7.5 (its manual page)
        if (h_) check(gnutls_aead_cipher_set_key(h_, &k), "gnutls_aead_cipher_set_key");
        else check(gnutls_aead_cipher_init(&h_, algo_, &k), "gnutls_aead_cipher_init");
#else  // Debian 11's 3.7.1: a new key is a new handle
        if (h_) gnutls_aead_cipher_deinit(h_);
        h_ = nullptr;
        check(gnutls_aead_cipher_init(&h_, algo_, &k), "gnutls_aead_cipher_init");
#endif
        std::memset(kb, 0, sizeof kb);
    }

private:
    // GnuTLS writes ciphertext || tag; the ciphertext is copied to the caller's buffer.
    void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) override {
        if (scratch_.size() < len + 64) scratch_.resize(len + 64);  // grows once for long messages
        size_t outl = scratch_.size();
        check(gnutls_aead_cipher_encrypt(h_, nonce(), nonce_len(), ad(), ad_len(), tag_bytes(), in, len,
                                         scratch_.data(), &outl),
              "gnutls_aead_cipher_encrypt");
        if (outl != len + tag_bytes()) throw cb::Error("gnutls_aead_cipher_encrypt returned an unexpected length");
        std::memcpy(out, scratch_.data(), len);
        std::memcpy(tag, scratch_.data() + len, tag_bytes());
    }
    // GnuTLS takes ciphertext || tag in one buffer.
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) override {
        if (scratch_.size() < len + 64) scratch_.resize(len + 64);
        std::memcpy(scratch_.data(), in, len);
        std::memcpy(scratch_.data() + len, tag, tag_bytes());
        size_t outl = len;
        int rc = gnutls_aead_cipher_decrypt(h_, nonce(), nonce_len(), ad(), ad_len(), tag_bytes(), scratch_.data(),
                                            len + tag_bytes(), out, &outl);
        if (rc == GNUTLS_E_DECRYPTION_FAILED) return false;
        check(rc, "gnutls_aead_cipher_decrypt");
        if (outl != len) throw cb::Error("gnutls_aead_cipher_decrypt returned a short output");
        return true;
    }

    gnutls_cipher_algorithm_t algo_;
    const cb::Primitive& p_;
    gnutls_aead_cipher_hd_t h_ = nullptr;
    std::vector<uint8_t> scratch_;
};

// ------------------------------------------------------------------ digests
class GtHash : public cb::Hash {
public:
    explicit GtHash(gnutls_digest_algorithm_t d) {
        const int rc = gnutls_hash_init(&h_, d);
        if (rc < 0 && h_) {
            // GnuTLS 3.7.9's (Debian 12) gnutls_hash_init allocates the handle, then returns
            // an error for an algorithm it does not run without freeing it (LeakSanitizer: 64
            // bytes per engine start, from the start-up probe). gnutls_hash_deinit would call
            // a deinit hook never set, so the bare allocation is freed as it was made.
            gnutls_free(h_);
            h_ = nullptr;
        }
        check(rc, "gnutls_hash_init");
    }
    ~GtHash() override { gnutls_hash_deinit(h_, nullptr); }
    // gnutls_hash_output() returns the digest and resets the state, so init()
    // only has work to do after an update() that was never finished.
    void init() override {
        if (dirty_) {
            uint8_t scratch[64];
            gnutls_hash_output(h_, scratch);
            dirty_ = false;
        }
    }
    void update(const uint8_t* in, size_t len) override {
        if (!len) return;
        check(gnutls_hash(h_, in, len), "gnutls_hash");
        dirty_ = true;
    }
    void final(uint8_t* d) override {
        gnutls_hash_output(h_, d);
        dirty_ = false;
    }

private:
    gnutls_hash_hd_t h_ = nullptr;
    bool dirty_ = false;
};

// ------------------------------------------------------------------ adapter
bool cpu_has(unsigned leaf, int reg, unsigned bit) {
    unsigned r[4] = {0, 0, 0, 0};
    if (!__get_cpuid_count(leaf, 0, &r[0], &r[1], &r[2], &r[3])) return false;
    return r[reg] >> bit & 1;
}

class GnutlsAdapter : public cb::Adapter {
public:
    GnutlsAdapter() {
        check(gnutls_global_init(), "gnutls_global_init");
        for (const auto& n : kNames) {
            const cb::Primitive* p = cb::find_primitive(n.primitive);
            if (!p) continue;
            const std::string why = why_not(*p, n);
            if (!why.empty()) {
                skipped_ += (skipped_.empty() ? "" : "; ") + std::string(n.primitive) + ": " + why;
                continue;
            }
            offers_.push_back({n.primitive, provider(*p, n)});
        }
    }
    ~GnutlsAdapter() override { gnutls_global_deinit(); }

    std::string name() const override { return "gnutls"; }
    std::string library() const override { return "GnuTLS"; }
    std::string version() const override { return gnutls_check_version(nullptr); }
    std::vector<cb::Offer> offers() const override { return offers_; }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const GnutlsName* n = cb::find_entry(kNames, p.name);
        if (!n || n->api == Api::Hash) return Adapter::cipher(p, d);
        if (n->api == Api::Aead) return std::make_unique<GtAead>(n->cipher, p, d);
        return std::make_unique<GtCipher>(n->cipher, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const GnutlsName* n = cb::find_entry(kNames, p.name);
        if (!n || n->api != Api::Hash) return Adapter::hash(p);
        return std::make_unique<GtHash>(n->digest);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::vector<std::pair<std::string, std::string>> n = {
            {"ccm_api", "one-shot gnutls_aead_cipher_encrypt/decrypt: one update() per message; decryption runs in finish()"},
            {"aes_siv", "not offered: GnuTLS always makes the AAD an S2V component, also when it is empty"},
        };
        if (const char* o = std::getenv("GNUTLS_CPUID_OVERRIDE")) n.push_back({"GNUTLS_CPUID_OVERRIDE", o});
        if (!skipped_.empty()) n.push_back({"not_offered", skipped_});
        return n;
    }

private:
    // GnuTLS registers its x86-64 code (AES-NI, PCLMUL, CRYPTOGAMS SHA) from
    // CPUID at load time unless GNUTLS_CPUID_OVERRIDE says otherwise;
    // everything else is Nettle. Features are announced where that choice alone fixes the
    // code: Nettle's own dispatch and CRYPTOGAMS' choice among its SSSE3, AVX and AVX2
    // bodies are not followed here, so those paths are unknown.
    static cb::Path provider(const cb::Primitive& p, const GnutlsName& n) {
        using cb::Feature;
        const bool overridden = std::getenv("GNUTLS_CPUID_OVERRIDE") != nullptr;
        const bool aesni = cpu_has(1, 2, 25) && cpu_has(1, 2, 9) && !overridden;  // AES-NI + SSSE3
        const bool pclmul = cpu_has(1, 2, 1) && !overridden;
        const bool ssse3 = cpu_has(1, 2, 9) && !overridden;
        const bool shani = cpu_has(7, 1, 29);
        const std::string fam = p.family, mode = p.mode;
        std::string s;
        cb::Features used{};  // unknown unless GnuTLS's own code is known to run
        if (fam == "aes" && (mode == "cbc" || mode == "xts" || mode == "ccm")) {
            s = aesni ? "GnuTLS x86-64 AES-NI" : "Nettle AES";
            if (aesni) used = Feature::AesNi;
        } else if (fam == "aes" && mode == "gcm") {
            s = aesni && pclmul ? "GnuTLS x86-64 AES-NI + PCLMUL" : aesni ? "GnuTLS x86-64 AES-NI, GHASH without PCLMUL" : "Nettle GCM";
            if (aesni && pclmul) used = Feature::AesNi | Feature::Pclmul;
        } else if (fam == "aes" && mode == "cfb8") {
            s = "Nettle CFB8 (byte-serial) over Nettle AES";
        } else if (n.api == Api::Hash && (fam == "sha-1" || fam == "sha-224" || fam == "sha-256")) {
            s = ssse3 ? (shani ? "GnuTLS x86-64 CRYPTOGAMS asm, SHA-NI" : "GnuTLS x86-64 CRYPTOGAMS asm") : "Nettle";
            if (ssse3 && shani) used = Feature::ShaNi;
        } else if (n.api == Api::Hash && (fam == "sha-384" || fam == "sha-512")) {
            s = ssse3 ? "GnuTLS x86-64 CRYPTOGAMS asm" : "Nettle";
        } else {
            s = "Nettle";
        }
        if (n.api == Api::Aead) s += ", one-shot";
        return {s, used};
    }

    // The shared start-up check (cipherbench/probe.h), after one of GnuTLS's
    // own: gnutls_hash_output() copies gnutls_hash_get_len() bytes, so a
    // length other than the registry's (0 for MD2 and SHAKE in 3.7.9) drops
    // the row. "" when the primitive works, otherwise why not.
    std::string why_not(const cb::Primitive& p, const GnutlsName& n) const {
        if (n.api == Api::Hash) {
            const unsigned len = gnutls_hash_get_len(n.digest);
            if (len != p.digest_bytes)
                return "gnutls_hash_get_len() = " + std::to_string(len) + ", registry digest is " +
                       std::to_string(p.digest_bytes) + " bytes";
        }
        return cb::probe(p, [&](cb::Direction d) { return cipher(p, d); }, [&] { return hash(p); });
    }

    std::vector<cb::Offer> offers_;
    std::string skipped_;
};

}  // namespace

CB_ADAPTER_FACTORY(gnutls) { return std::make_unique<GnutlsAdapter>(); }
