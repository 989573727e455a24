// OpenSSL 3 (and 1.1.1) through EVP. Each algorithm is fetched once (implicit
// fetching on every init costs about half the time of a 64-byte message, see
// README.md); contexts re-initialise with NULL cipher and key to change only the IV.
// OpenSSL 1.1.1 (Debian 11's) has no providers and no fetching: compat.inc maps
// what this file uses onto its API, chosen by OPENSSL_VERSION_NUMBER.
#include <cpuid.h>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
#include <openssl/core_names.h>
#include <openssl/provider.h>
#endif

#include "cipherbench/adapter.h"

namespace {

#include "names.inc"  // the name tables, generated from manifest.toml
#include "compat.inc"

std::string last_error(const char* what) {
    unsigned long e = ERR_get_error();
    char buf[256] = "no OpenSSL error queued";
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return std::string(what) + ": " + buf;
}

void check(int ok, const char* what) {
    if (ok <= 0) throw cb::Error(last_error(what));
}

bool cpu_has(unsigned leaf, int reg, unsigned bit) {
    unsigned r[4] = {0, 0, 0, 0};
    if (!__get_cpuid_count(leaf, 0, &r[0], &r[1], &r[2], &r[3])) return false;
    return r[reg] >> bit & 1;
}

// The OS saves the AVX-512 state (XCR0 bits 1, 2, 5, 6, 7): OpenSSL's CPUID code clears
// its AVX-512 bits otherwise.
bool zmm_state_enabled() {
#if defined(__x86_64__) || defined(__i386__)
    if (!cpu_has(1, 2, 27)) return false;  // OSXSAVE
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6) == 0xe6;
#else
    return false;
#endif
}

[[noreturn]] void fail(const char* what) { throw cb::Error(last_error(what)); }

class EvpCipher final : public cb::Cipher {
public:
    EvpCipher(const EVP_CIPHER* c, const cb::Primitive& p, cb::Direction d)
        : p_(p), enc_(d == cb::Direction::Encrypt ? 1 : 0), ctx_(EVP_CIPHER_CTX_new()) {
        if (!ctx_) throw cb::Error("EVP_CIPHER_CTX_new failed");
        // ChaCha20's 16-byte OpenSSL IV is a 32-bit little-endian block counter
        // followed by the registry's 12-byte nonce; the counter starts at 0.
        iv_prefix_ = (std::strcmp(p.name, "chacha20") == 0) ? 4 : 0;
        // RC4 has no IV: a new message restarts the keystream, which for RC4
        // means running its key schedule again (OpenSSL re-initialised without
        // a key just goes on with the keystream).
        rekey_on_start_ = p.kind == cb::Kind::Stream && p.iv_bytes == 0;
        // XTS: every update() is a whole data unit (OpenSSL's XTS takes one per
        // EVP_CipherUpdate and restarts the tweak), so a message cannot be fed in pieces.
        xts_ = std::strcmp(p.mode, "xts") == 0;
        check(EVP_CipherInit_ex2(ctx_, c, nullptr, nullptr, enc_, nullptr), "EVP_CipherInit_ex2");
        if (xts_) check(ask_ieee_xts(ctx_, c), "set xts_standard IEEE");  // compat.inc: SM4-XTS's tweak
        check(EVP_CIPHER_CTX_set_padding(ctx_, 0), "set_padding");
        if (size_t(EVP_CIPHER_CTX_get_key_length(ctx_)) != p.key_bytes)
            check(EVP_CIPHER_CTX_set_key_length(ctx_, int(p.key_bytes)), "set_key_length");
        if (p.kind == cb::Kind::Aead)
            check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_IVLEN, int(p.iv_bytes), nullptr), "set IV length");
        tag_.prepare(p.tag_bytes);  // compat.inc: how each generation passes the tag
    }
    ~EvpCipher() override { EVP_CIPHER_CTX_free(ctx_); }

    bool streams() const override { return !xts_; }

    void set_key(const uint8_t* key, size_t len) override {
        if (rekey_on_start_) key_.assign(key, key + len);
        init(key, nullptr, 0, "set key");
    }
    void start(const uint8_t* iv, size_t len) override {
        init(rekey_on_start_ ? key_.data() : nullptr, iv, len, "set IV");
    }
    // One EVP_CipherInit_ex2 with key and IV, as openssl speed's AEAD loop
    // (apps/speed.c, EVP_Update_loop_aead_enc) sets both per message.
    void set_key_and_start(const uint8_t* key, size_t key_len, const uint8_t* iv, size_t iv_len) override {
        if (rekey_on_start_) key_.assign(key, key + key_len);
        init(key, iv, iv_len, "set key and IV");
    }
    void aad(const uint8_t* a, size_t len) override {
        int outl = 0;
        check(EVP_CipherUpdate(ctx_, nullptr, &outl, a, int(len)), "AAD");
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override { EvpCipher::update_many(in, out, len, 1); }
    // openssl speed -evp's loop (apps/speed.c, EVP_Update_loop): EVP_EncryptUpdate
    // or EVP_DecryptUpdate on one context, its return value checked every call.
    // (EVP_CipherUpdate only dispatches to one of them: one more call per buffer.)
    // The output length, which speed does not look at, is checked after the loop.
    void update_many(const uint8_t* in, uint8_t* out, size_t len, uint64_t count) override {
        const int n = int(len);
        int outl = n;
        if (enc_) {
            for (uint64_t i = 0; i < count; ++i)
                if (EVP_EncryptUpdate(ctx_, out, &outl, in, n) != 1) fail("EVP_EncryptUpdate");
        } else {
            for (uint64_t i = 0; i < count; ++i)
                if (EVP_DecryptUpdate(ctx_, out, &outl, in, n) != 1) fail("EVP_DecryptUpdate");
        }
        if (outl != n)
            throw cb::Error("OpenSSL returned " + std::to_string(outl) + " bytes for " + std::to_string(n));
    }
    bool finish(uint8_t* tag) override {
        uint8_t rest[64];
        int outl = 0;
        if (p_.kind != cb::Kind::Aead) {
            check(EVP_CipherFinal_ex(ctx_, rest, &outl), "EVP_CipherFinal_ex");
            return true;
        }
        if (!enc_) {
            check(tag_.set(ctx_, tag), "set tag");
            bool ok = EVP_DecryptFinal_ex(ctx_, rest, &outl) > 0;
            ERR_clear_error();
            return ok;
        }
        check(EVP_EncryptFinal_ex(ctx_, rest, &outl), "EVP_EncryptFinal_ex");
        check(tag_.get(ctx_, tag), "get tag");
        return true;
    }

private:
    // One EVP_CipherInit_ex2; a null key or IV keeps the context's.
    void init(const uint8_t* key, const uint8_t* iv, size_t len, const char* what) {
        const uint8_t* v = len ? iv : nullptr;
        uint8_t full[32] = {0};
        if (v && iv_prefix_) {
            std::memcpy(full + iv_prefix_, iv, len);
            v = full;
        }
        check(EVP_CipherInit_ex2(ctx_, nullptr, key, v, enc_, nullptr), what);
    }

    const cb::Primitive& p_;
    int enc_;
    EVP_CIPHER_CTX* ctx_;
    size_t iv_prefix_ = 0;
    bool rekey_on_start_ = false, xts_ = false;
    std::vector<uint8_t> key_;  // RC4 only: the key, to restart the keystream
    AeadTag tag_;
};

class EvpHash : public cb::Hash {
public:
    EvpHash(const EVP_MD* md, size_t out) : md_(md), out_(out), ctx_(EVP_MD_CTX_new()) {
        if (!ctx_) throw cb::Error("EVP_MD_CTX_new failed");
        xof_ = (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
    }
    ~EvpHash() override { EVP_MD_CTX_free(ctx_); }
    void init() override { check(EVP_DigestInit_ex2(ctx_, md_, nullptr), "EVP_DigestInit_ex2"); }
    void update(const uint8_t* in, size_t len) override { check(EVP_DigestUpdate(ctx_, in, len), "EVP_DigestUpdate"); }
    void final(uint8_t* d) override {
        if (xof_) { check(EVP_DigestFinalXOF(ctx_, d, out_), "EVP_DigestFinalXOF"); return; }
        unsigned n = 0;
        check(EVP_DigestFinal_ex(ctx_, d, &n), "EVP_DigestFinal_ex");
    }

private:
    const EVP_MD* md_;
    size_t out_;
    EVP_MD_CTX* ctx_;
    bool xof_ = false;
};

class OpenSslAdapter : public cb::Adapter {
public:
    OpenSslAdapter() {
        // Loading any provider switches off the implicit default one, so load
        // both; the legacy one brings BF, CAST5, DES, RC2, RC4, SEED, MD4, Whirlpool.
        legacy_ = load_provider("legacy");
        if (!legacy_) legacy_error_ = last_error("legacy provider");
        default_ = load_provider("default");
        if (!default_) throw cb::Error(last_error("default provider"));
        aesni_ = cpu_has(1, 2, 25);
        shani_ = cpu_has(7, 1, 29);
        pclmul_ = cpu_has(1, 2, 1);
        // leaf 7 EBX: AVX512F 16, DQ 17, BW 30, VL 31; ECX: VAES 9, VPCLMULQDQ 10
        avx512_vaes_ = zmm_state_enabled() && cpu_has(7, 1, 16) && cpu_has(7, 1, 17) && cpu_has(7, 1, 30) &&
                       cpu_has(7, 1, 31) && cpu_has(7, 2, 9) && cpu_has(7, 2, 10);
        probe();
    }
    ~OpenSslAdapter() override {
        for (auto& [n, c] : ciphers_) free_cipher(c);
        for (auto& [n, m] : mds_) free_md(m);
        unload_provider(legacy_);
        unload_provider(default_);
    }

    std::string name() const override { return "openssl"; }
    std::string library() const override { return "OpenSSL"; }
    std::string version() const override { return OpenSSL_version(OPENSSL_VERSION); }
    std::vector<cb::Offer> offers() const override { return offers_; }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        auto it = ciphers_.find(p.name);
        if (it == ciphers_.end()) return Adapter::cipher(p, d);
        return std::make_unique<EvpCipher>(it->second, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        auto it = mds_.find(p.name);
        if (it == mds_.end()) return Adapter::hash(p);
        return std::make_unique<EvpHash>(it->second, p.digest_bytes);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::vector<std::pair<std::string, std::string>> n = {
            {"providers", !kHasProviders ? "none: OpenSSL before 3.0 has every algorithm built in"
                          : legacy_ ? "default, legacy" : "default (legacy: " + legacy_error_ + ")"},
            {"built_with", OpenSSL_version(OPENSSL_CFLAGS)}};
        if (const char* cap = std::getenv("OPENSSL_ia32cap")) n.push_back({"OPENSSL_ia32cap", cap});
        return n;
    }

private:
    static std::string evp_name(const cb::Primitive& p) {
        for (const auto& [reg, ossl] : kCiphers)
            if (std::strcmp(reg, p.name) == 0) return ossl;
        if (!*p.mode) return {};
        const std::string fam = std::string(p.family) + "-" + std::to_string(
            std::strcmp(p.family, "des") == 0 ? 56 : std::strcmp(p.family, "3des") == 0 ? (p.key_bytes == 16 ? 112 : 168)
            : std::strcmp(p.family, "desx") == 0 ? 184 : (std::strcmp(p.mode, "xts") == 0 ? p.key_bytes * 4 : p.key_bytes * 8));
        const char *f = nullptr, *m = nullptr;
        for (const auto& [reg, ossl] : kFamilies) if (fam == reg) f = ossl;
        for (const auto& [reg, ossl] : kModes) if (std::strcmp(p.mode, reg) == 0) m = ossl;
        if (!f || !m) return {};
        return std::string(f) + "-" + m;
    }

    cb::Path provider_of(const cb::Primitive& p, const std::string& prov) const {
        std::string s = prov;
        const std::string fam = p.family;
        const bool masked = std::getenv("OPENSSL_ia32cap") != nullptr;
        if (fam == "aes") s += aesni_ && !masked ? ", AES-NI" : ", AES without AES-NI";
        if ((fam == "sha-1" || fam == "sha-224" || fam == "sha-256") && shani_ && !masked) s += ", SHA-NI";
        if (fam == "aes" && std::strcmp(p.mode, "gcm") == 0 && !masked) s += gcm_words();
        const cb::Features f = masked ? cb::Features{} : features_of(p);
        if (f == cb::Features(cb::Feature::Portable)) s += ", portable C";
        return {s, f};
    }

    // What OpenSSL's x86-64 code takes, from its own CPUID rules (crypto/*/asm/*-x86_64.pl,
    // providers/implementations/ciphers/cipher_aes_*_hw_aesni.inc); unknown where this
    // adapter does not follow them (vpaes/bsaes without AES-NI, ChaCha20's and SHA-512's
    // choice of SIMD bodies, the assembly of MD5, RC4, Camellia, Keccak, ...).
    cb::Features features_of(const cb::Primitive& p) const {
        using cb::Feature;
        const std::string fam = p.family, mode = p.mode;
        if (fam == "aes") {
            if (!aesni_) return {};
            if (mode == "gcm") return vaes_gcm() ? Feature::Vaes | Feature::Vpclmul | Feature::Avx512
                                      : pclmul_ ? Feature::AesNi | Feature::Pclmul : cb::Features{};
            if (mode == "xts" && OPENSSL_VERSION_NUMBER >= 0x30400000L) return {};  // VAES bodies from 3.4/3.5
            return Feature::AesNi;
        }
        if (fam == "sha-1" || fam == "sha-224" || fam == "sha-256") return shani_ ? cb::Features(Feature::ShaNi) : cb::Features{};
        // ciphers OpenSSL builds from C on every target it has assembly for
        for (const char* c : {"blowfish", "cast5", "des", "3des", "desx", "idea", "seed", "rc2"})
            if (fam == c) return Feature::Portable;
        return {};
    }

    // AES-GCM's AVX-512 body (aes-gcm-avx512.pl, OpenSSL 3.1 and later): taken where the CPU
    // has AVX512F, DQ, BW, VL, VAES and VPCLMULQDQ (ossl_vaes_vpclmulqdq_capable).
    bool vaes_gcm() const { return OPENSSL_VERSION_NUMBER >= 0x30100000L && avx512_vaes_; }
    std::string gcm_words() const {
        return vaes_gcm() ? " (GCM: VAES + VPCLMULQDQ, AVX-512)" : pclmul_ ? " + PCLMUL" : "";
    }

    // Offers what fetches and survives one encryption of a block on this machine.
    void probe() {
        for (const auto& p : cb::all_primitives()) {
            if (p.kind == cb::Kind::Hash) {
                const char* ossl = nullptr;
                for (const auto& [reg, n] : kHashes) if (std::strcmp(reg, p.name) == 0) ossl = n;
                if (!ossl) continue;
                EVP_MD* md = fetch_md(ossl);
                if (!md) { ERR_clear_error(); continue; }
                bool xof = (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
                if (!xof && size_t(EVP_MD_get_size(md)) != p.digest_bytes) { free_md(md); continue; }
                mds_[p.name] = md;
                offers_.push_back({p.name, provider_of(p, md_provider(md))});
                continue;
            }
            if (p.kind == cb::Kind::Null) continue;
            const std::string n = evp_name(p);
            if (n.empty()) continue;
            EVP_CIPHER* c = fetch_cipher(n.c_str());
            if (!c) { ERR_clear_error(); continue; }
            ciphers_[p.name] = c;
            if (!smoke(p)) { ciphers_.erase(p.name); free_cipher(c); continue; }
            offers_.push_back({p.name, provider_of(p, cipher_provider(c))});
        }
    }

    bool smoke(const cb::Primitive& p) const {
        try {
            uint8_t key[128], iv[32] = {0}, buf[64] = {0}, tag[16];
            for (size_t i = 0; i < sizeof key; ++i) key[i] = uint8_t(i * 7 + 1);  // XTS: halves differ
            auto c = cipher(p, cb::Direction::Encrypt);
            c->set_key(key, p.key_bytes);
            c->start(iv, p.iv_bytes);
            size_t n = p.block_bytes ? p.block_bytes : 16;
            c->update(buf, buf, n);
            c->finish(tag);
            return true;
        } catch (const std::exception&) {
            ERR_clear_error();
            return false;
        }
    }

    Provider* legacy_ = nullptr;
    Provider* default_ = nullptr;
    std::string legacy_error_;
    bool aesni_ = false, shani_ = false, pclmul_ = false, avx512_vaes_ = false;
    std::map<std::string, EVP_CIPHER*> ciphers_;
    std::map<std::string, EVP_MD*> mds_;
    std::vector<cb::Offer> offers_;
};

}  // namespace

CB_ADAPTER_FACTORY(openssl) { return std::make_unique<OpenSslAdapter>(); }
