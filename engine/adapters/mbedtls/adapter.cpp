// mbedTLS 2.28 through its per-algorithm APIs (aes.h, camellia.h, ...), not
// the generic cipher layer: each context keys once in set_key() and start()
// only copies the IV (and resets the stream offset). AES uses AES-NI through
// MBEDTLS_AESNI_C when mbedtls_aesni_has_support() says so, one block per
// call; GHASH uses PCLMULQDQ the same way. See README.md.
#include <cstring>
#include <string>
#include <vector>

#include <mbedtls/aes.h>
#include <mbedtls/aesni.h>
#include <mbedtls/arc4.h>
#include <mbedtls/blowfish.h>
#include <mbedtls/camellia.h>
#include <mbedtls/ccm.h>
#include <mbedtls/chacha20.h>
#include <mbedtls/chachapoly.h>
#include <mbedtls/des.h>
#include <mbedtls/gcm.h>
#include <mbedtls/md.h>
#include <mbedtls/version.h>
#include <mbedtls/xtea.h>

#include "cipherbench/adapter.h"

namespace {

#include "names.inc"

void check(int rc, const char* what) {
    if (rc != 0) throw cb::Error(std::string("mbedTLS ") + what + " failed: -0x" + [rc] {
        char b[16];
        std::snprintf(b, sizeof b, "%04x", unsigned(-rc));
        return std::string(b);
    }());
}

bool tag_eq(const uint8_t* a, const uint8_t* b, size_t n) {
    uint8_t d = 0;
    for (size_t i = 0; i < n; ++i) d |= a[i] ^ b[i];
    return d == 0;
}

enum class Fam { Aes, Camellia, Blowfish, Des, Des3, Xtea };

Fam fam_of(const std::string& f) {
    if (f == "aes") return Fam::Aes;
    if (f == "camellia") return Fam::Camellia;
    if (f == "blowfish") return Fam::Blowfish;
    if (f == "des") return Fam::Des;
    if (f == "3des") return Fam::Des3;
    return Fam::Xtea;
}

// One keyed block cipher of any family (a tagged union of mbedTLS contexts).
class Block {
public:
    explicit Block(Fam f) : f_(f) {
        switch (f_) {
            case Fam::Aes: mbedtls_aes_init(&u_.aes); break;
            case Fam::Camellia: mbedtls_camellia_init(&u_.cam); break;
            case Fam::Blowfish: mbedtls_blowfish_init(&u_.bf); break;
            case Fam::Des: mbedtls_des_init(&u_.des); break;
            case Fam::Des3: mbedtls_des3_init(&u_.des3); break;
            case Fam::Xtea: mbedtls_xtea_init(&u_.xtea); break;
        }
    }
    ~Block() {
        switch (f_) {
            case Fam::Aes: mbedtls_aes_free(&u_.aes); break;
            case Fam::Camellia: mbedtls_camellia_free(&u_.cam); break;
            case Fam::Blowfish: mbedtls_blowfish_free(&u_.bf); break;
            case Fam::Des: mbedtls_des_free(&u_.des); break;
            case Fam::Des3: mbedtls_des3_free(&u_.des3); break;
            case Fam::Xtea: mbedtls_xtea_free(&u_.xtea); break;
        }
    }
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;

    // dec: the decryption key schedule (ECB/CBC decryption only).
    void set_key(const uint8_t* k, size_t n, bool dec) {
        const unsigned bits = unsigned(n * 8);
        switch (f_) {
            case Fam::Aes: check(dec ? mbedtls_aes_setkey_dec(&u_.aes, k, bits) : mbedtls_aes_setkey_enc(&u_.aes, k, bits), "aes_setkey"); break;
            case Fam::Camellia:
                check(dec ? mbedtls_camellia_setkey_dec(&u_.cam, k, bits) : mbedtls_camellia_setkey_enc(&u_.cam, k, bits), "camellia_setkey");
                break;
            case Fam::Blowfish: check(mbedtls_blowfish_setkey(&u_.bf, k, bits), "blowfish_setkey"); break;
            case Fam::Des: check(dec ? mbedtls_des_setkey_dec(&u_.des, k) : mbedtls_des_setkey_enc(&u_.des, k), "des_setkey"); break;
            case Fam::Des3:
                if (n == 16) check(dec ? mbedtls_des3_set2key_dec(&u_.des3, k) : mbedtls_des3_set2key_enc(&u_.des3, k), "des3_set2key");
                else check(dec ? mbedtls_des3_set3key_dec(&u_.des3, k) : mbedtls_des3_set3key_enc(&u_.des3, k), "des3_set3key");
                break;
            case Fam::Xtea: mbedtls_xtea_setup(&u_.xtea, k); break;
        }
    }
    void ecb(int mode, const uint8_t* in, uint8_t* out) {
        switch (f_) {
            case Fam::Aes: check(mbedtls_aes_crypt_ecb(&u_.aes, mode, in, out), "aes_crypt_ecb"); break;
            case Fam::Camellia: check(mbedtls_camellia_crypt_ecb(&u_.cam, mode, in, out), "camellia_crypt_ecb"); break;
            case Fam::Blowfish: check(mbedtls_blowfish_crypt_ecb(&u_.bf, mode, in, out), "blowfish_crypt_ecb"); break;
            case Fam::Des: check(mbedtls_des_crypt_ecb(&u_.des, in, out), "des_crypt_ecb"); break;
            case Fam::Des3: check(mbedtls_des3_crypt_ecb(&u_.des3, in, out), "des3_crypt_ecb"); break;
            case Fam::Xtea: check(mbedtls_xtea_crypt_ecb(&u_.xtea, mode, in, out), "xtea_crypt_ecb"); break;
        }
    }
    void cbc(int mode, size_t n, uint8_t* iv, const uint8_t* in, uint8_t* out) {
        switch (f_) {
            case Fam::Aes: check(mbedtls_aes_crypt_cbc(&u_.aes, mode, n, iv, in, out), "aes_crypt_cbc"); break;
            case Fam::Camellia: check(mbedtls_camellia_crypt_cbc(&u_.cam, mode, n, iv, in, out), "camellia_crypt_cbc"); break;
            case Fam::Blowfish: check(mbedtls_blowfish_crypt_cbc(&u_.bf, mode, n, iv, in, out), "blowfish_crypt_cbc"); break;
            case Fam::Des: check(mbedtls_des_crypt_cbc(&u_.des, mode, n, iv, in, out), "des_crypt_cbc"); break;
            case Fam::Des3: check(mbedtls_des3_crypt_cbc(&u_.des3, mode, n, iv, in, out), "des3_crypt_cbc"); break;
            case Fam::Xtea: check(mbedtls_xtea_crypt_cbc(&u_.xtea, mode, n, iv, in, out), "xtea_crypt_cbc"); break;
        }
    }
    void cfb(int mode, size_t n, size_t* off, uint8_t* iv, const uint8_t* in, uint8_t* out) {
        switch (f_) {
            case Fam::Aes: check(mbedtls_aes_crypt_cfb128(&u_.aes, mode, n, off, iv, in, out), "aes_crypt_cfb128"); break;
            case Fam::Camellia: check(mbedtls_camellia_crypt_cfb128(&u_.cam, mode, n, off, iv, in, out), "camellia_crypt_cfb128"); break;
            case Fam::Blowfish: check(mbedtls_blowfish_crypt_cfb64(&u_.bf, mode, n, off, iv, in, out), "blowfish_crypt_cfb64"); break;
            default: throw cb::Error("mbedTLS: no CFB for this cipher");
        }
    }
    void ctr(size_t n, size_t* off, uint8_t* ctr, uint8_t* ks, const uint8_t* in, uint8_t* out) {
        switch (f_) {
            case Fam::Aes: check(mbedtls_aes_crypt_ctr(&u_.aes, n, off, ctr, ks, in, out), "aes_crypt_ctr"); break;
            case Fam::Camellia: check(mbedtls_camellia_crypt_ctr(&u_.cam, n, off, ctr, ks, in, out), "camellia_crypt_ctr"); break;
            case Fam::Blowfish: check(mbedtls_blowfish_crypt_ctr(&u_.bf, n, off, ctr, ks, in, out), "blowfish_crypt_ctr"); break;
            default: throw cb::Error("mbedTLS: no CTR for this cipher");
        }
    }
    mbedtls_aes_context* aes() { return &u_.aes; }

private:
    Fam f_;
    union U {
        mbedtls_aes_context aes;
        mbedtls_camellia_context cam;
        mbedtls_blowfish_context bf;
        mbedtls_des_context des;
        mbedtls_des3_context des3;
        mbedtls_xtea_context xtea;
    } u_;
};

// ECB, CBC, CFB, CFB8, OFB, CTR over one Block.
class ModeCipher : public cb::Cipher {
public:
    ModeCipher(const cb::Primitive& p, bool enc) : blk_(fam_of(p.family)), mode_(p.mode), enc_(enc), bs_(p.block_bytes) {
        // Only ECB and CBC decryption run the block cipher backwards.
        dec_schedule_ = !enc && (mode_ == "ecb" || mode_ == "cbc");
    }
    void set_key(const uint8_t* k, size_t n) override { blk_.set_key(k, n, dec_schedule_); }
    void start(const uint8_t* iv, size_t n) override {
        if (n) std::memcpy(iv_, iv, n);
        off_ = 0;
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        const int m = enc_ ? 1 : 0;  // MBEDTLS_*_ENCRYPT is 1 for every cipher here
        if (mode_ == "ecb") {
            for (size_t i = 0; i < n; i += bs_) blk_.ecb(m, in + i, out + i);
        } else if (mode_ == "cbc") {
            blk_.cbc(m, n, iv_, in, out);
        } else if (mode_ == "cfb") {
            blk_.cfb(m, n, &off_, iv_, in, out);
        } else if (mode_ == "cfb8") {
            check(mbedtls_aes_crypt_cfb8(blk_.aes(), m, n, iv_, in, out), "aes_crypt_cfb8");
        } else if (mode_ == "ofb") {
            check(mbedtls_aes_crypt_ofb(blk_.aes(), n, &off_, iv_, in, out), "aes_crypt_ofb");
        } else if (mode_ == "ctr") {
            blk_.ctr(n, &off_, iv_, ks_, in, out);
        } else {
            throw cb::Error("mbedTLS adapter: unknown mode " + mode_);
        }
    }
private:
    Block blk_;
    std::string mode_;
    bool enc_, dec_schedule_;
    size_t bs_, off_ = 0;
    uint8_t iv_[16] = {0}, ks_[16] = {0};
};

// XTS: each update() is one data unit whose tweak is the IV (mbedtls_aes_crypt_xts).
class XtsCipher : public cb::Cipher {
public:
    explicit XtsCipher(bool enc) : enc_(enc) { mbedtls_aes_xts_init(&ctx_); }
    ~XtsCipher() override { mbedtls_aes_xts_free(&ctx_); }
    void set_key(const uint8_t* k, size_t n) override {
        check(enc_ ? mbedtls_aes_xts_setkey_enc(&ctx_, k, unsigned(n * 8)) : mbedtls_aes_xts_setkey_dec(&ctx_, k, unsigned(n * 8)),
              "aes_xts_setkey");
    }
    void start(const uint8_t* iv, size_t) override { std::memcpy(tweak_, iv, 16); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        check(mbedtls_aes_crypt_xts(&ctx_, enc_ ? MBEDTLS_AES_ENCRYPT : MBEDTLS_AES_DECRYPT, n, tweak_, in, out), "aes_crypt_xts");
    }
private:
    bool enc_;
    mbedtls_aes_xts_context ctx_;
    uint8_t tweak_[16] = {0};
};

// GCM. mbedtls_gcm_starts takes the IV and all AAD at once, so the AAD is
// collected and the message starts at the first update() or finish().
// mbedTLS 2 GCM streams only whole 16-byte blocks: a partial block must be
// the last update() of a message (README.md); a later one is refused.
class GcmCipher : public cb::Cipher {
public:
    GcmCipher(mbedtls_cipher_id_t id, bool enc) : id_(id), enc_(enc) { mbedtls_gcm_init(&ctx_); }
    ~GcmCipher() override { mbedtls_gcm_free(&ctx_); }
    void set_key(const uint8_t* k, size_t n) override { check(mbedtls_gcm_setkey(&ctx_, id_, k, unsigned(n * 8)), "gcm_setkey"); }
    void start(const uint8_t* iv, size_t n) override {
        std::memcpy(iv_, iv, n);
        aad_.clear();
        begun_ = false;
        partial_ = false;
    }
    void aad(const uint8_t* a, size_t n) override { aad_.insert(aad_.end(), a, a + n); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        begin();
        if (partial_)
            throw cb::Error("mbedTLS 2 GCM cannot continue a message after a partial 16-byte block; use whole-block update() sizes");
        partial_ = n % 16 != 0;
        check(mbedtls_gcm_update(&ctx_, n, in, out), "gcm_update");
    }
    bool finish(uint8_t* tag) override {
        begin();
        uint8_t t[16];
        check(mbedtls_gcm_finish(&ctx_, t, 16), "gcm_finish");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_eq(t, tag, 16);
    }
private:
    void begin() {
        if (begun_) return;
        check(mbedtls_gcm_starts(&ctx_, enc_ ? MBEDTLS_GCM_ENCRYPT : MBEDTLS_GCM_DECRYPT, iv_, 12,
                                 aad_.empty() ? nullptr : aad_.data(), aad_.size()), "gcm_starts");
        begun_ = true;
    }
    mbedtls_cipher_id_t id_;
    bool enc_, begun_ = false, partial_ = false;
    mbedtls_gcm_context ctx_;
    uint8_t iv_[12] = {0};
    std::vector<uint8_t> aad_;
};

// CCM is one-shot in mbedTLS 2 (the lengths are in B_0): a message is one
// update(). Encryption runs there; decryption needs the tag, so it runs in
// finish() and writes the output given to update() then (README.md).
class CcmCipher : public cb::Cipher {
public:
    bool streams() const override { return false; }  // one call per message
    CcmCipher(mbedtls_cipher_id_t id, bool enc) : id_(id), enc_(enc) { mbedtls_ccm_init(&ctx_); }
    ~CcmCipher() override { mbedtls_ccm_free(&ctx_); }
    void set_key(const uint8_t* k, size_t n) override { check(mbedtls_ccm_setkey(&ctx_, id_, k, unsigned(n * 8)), "ccm_setkey"); }
    void start(const uint8_t* iv, size_t n) override {
        std::memcpy(iv_, iv, n);
        aad_.clear();
        used_ = false;
        in_ = nullptr; out_ = nullptr; len_ = 0;
    }
    void aad(const uint8_t* a, size_t n) override {
        aad_.insert(aad_.end(), a, a + n);
        if (aad_.size() >= 0xFF00)  // mbedTLS 2 ccm.c returns MBEDTLS_ERR_CCM_BAD_INPUT for add_len >= 0xFF00
            throw cb::Unsupported("mbedTLS 2's CCM takes less than 65,280 bytes of associated data");
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (used_) throw cb::Error("CCM cannot stream: the message length is needed up front, so a message is one update()");
        used_ = true;
        in_ = in; out_ = out; len_ = n;
        if (enc_) encrypt();
    }
    bool finish(uint8_t* tag) override {
        if (enc_) {
            if (!used_) encrypt();
            std::memcpy(tag, tag_, 16);
            return true;
        }
        uint8_t dummy[1];
        int rc = mbedtls_ccm_auth_decrypt(&ctx_, len_, iv_, 12, aad_.empty() ? nullptr : aad_.data(), aad_.size(),
                                          len_ ? in_ : dummy, len_ ? out_ : dummy, tag, 16);
        if (rc == MBEDTLS_ERR_CCM_AUTH_FAILED) return false;  // output zeroed by mbedTLS
        check(rc, "ccm_auth_decrypt");
        return true;
    }
private:
    void encrypt() {
        uint8_t dummy[1];
        check(mbedtls_ccm_encrypt_and_tag(&ctx_, len_, iv_, 12, aad_.empty() ? nullptr : aad_.data(), aad_.size(),
                                          len_ ? in_ : dummy, len_ ? out_ : dummy, tag_, 16), "ccm_encrypt_and_tag");
    }
    mbedtls_cipher_id_t id_;
    bool enc_, used_ = false;
    mbedtls_ccm_context ctx_;
    uint8_t iv_[12] = {0}, tag_[16] = {0};
    std::vector<uint8_t> aad_;
    const uint8_t* in_ = nullptr;
    uint8_t* out_ = nullptr;
    size_t len_ = 0;
};

class ChachaCipher : public cb::Cipher {
public:
    ChachaCipher() { mbedtls_chacha20_init(&ctx_); }
    ~ChachaCipher() override { mbedtls_chacha20_free(&ctx_); }
    void set_key(const uint8_t* k, size_t) override { check(mbedtls_chacha20_setkey(&ctx_, k), "chacha20_setkey"); }
    void start(const uint8_t* iv, size_t) override { check(mbedtls_chacha20_starts(&ctx_, iv, 0), "chacha20_starts"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (n) check(mbedtls_chacha20_update(&ctx_, n, in, out), "chacha20_update");
    }
private:
    mbedtls_chacha20_context ctx_;
};

class ChachaPolyCipher : public cb::Cipher {
public:
    explicit ChachaPolyCipher(bool enc) : enc_(enc) { mbedtls_chachapoly_init(&ctx_); }
    ~ChachaPolyCipher() override { mbedtls_chachapoly_free(&ctx_); }
    void set_key(const uint8_t* k, size_t) override { check(mbedtls_chachapoly_setkey(&ctx_, k), "chachapoly_setkey"); }
    void start(const uint8_t* iv, size_t) override {
        check(mbedtls_chachapoly_starts(&ctx_, iv, enc_ ? MBEDTLS_CHACHAPOLY_ENCRYPT : MBEDTLS_CHACHAPOLY_DECRYPT), "chachapoly_starts");
    }
    void aad(const uint8_t* a, size_t n) override { check(mbedtls_chachapoly_update_aad(&ctx_, a, n), "chachapoly_update_aad"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (n) check(mbedtls_chachapoly_update(&ctx_, n, in, out), "chachapoly_update");
    }
    bool finish(uint8_t* tag) override {
        uint8_t t[16];
        check(mbedtls_chachapoly_finish(&ctx_, t), "chachapoly_finish");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_eq(t, tag, 16);
    }
private:
    bool enc_;
    mbedtls_chachapoly_context ctx_;
};

// RC4 has no IV: start() copies the keyed context (258 bytes) back.
class Arc4Cipher : public cb::Cipher {
public:
    Arc4Cipher() { mbedtls_arc4_init(&keyed_); mbedtls_arc4_init(&ctx_); }
    ~Arc4Cipher() override { mbedtls_arc4_free(&keyed_); mbedtls_arc4_free(&ctx_); }
    void set_key(const uint8_t* k, size_t n) override { mbedtls_arc4_setup(&keyed_, k, unsigned(n)); }
    void start(const uint8_t*, size_t) override { ctx_ = keyed_; }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (n) check(mbedtls_arc4_crypt(&ctx_, n, in, out), "arc4_crypt");
    }
private:
    mbedtls_arc4_context keyed_, ctx_;
};

class MdHash : public cb::Hash {
public:
    explicit MdHash(const mbedtls_md_info_t* info) {
        mbedtls_md_init(&ctx_);
        check(mbedtls_md_setup(&ctx_, info, 0), "md_setup");
    }
    ~MdHash() override { mbedtls_md_free(&ctx_); }
    void init() override { check(mbedtls_md_starts(&ctx_), "md_starts"); }
    void update(const uint8_t* in, size_t n) override { check(mbedtls_md_update(&ctx_, in, n), "md_update"); }
    void final(uint8_t* out) override { check(mbedtls_md_finish(&ctx_, out), "md_finish"); }
private:
    mbedtls_md_context_t ctx_;
};

class MbedtlsAdapter : public cb::Adapter {
public:
    MbedtlsAdapter() {
        aesni_ = mbedtls_aesni_has_support(MBEDTLS_AESNI_AES) != 0;
        clmul_ = mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) != 0;
        probe();
    }
    std::string name() const override { return "mbedtls"; }
    std::string library() const override { return "mbedTLS"; }
    std::string version() const override {
        char v[32] = {0};
        mbedtls_version_get_string(v);  // run time
        return v;
    }
    std::vector<cb::Offer> offers() const override { return offers_; }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        char full[64] = {0};
        mbedtls_version_get_string_full(full);
        return {{"version_full", full},
                {"aesni", aesni_ ? "mbedtls_aesni_has_support(AES): yes (MBEDTLS_AESNI_C, one block per call)" : "no"},
                {"pclmul", clmul_ ? "mbedtls_aesni_has_support(CLMUL): yes (GHASH)" : "no"}};
    }
    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        bool offered = false;
        for (const auto& o : offers_) offered |= o.primitive == p.name;
        if (!offered) return Adapter::cipher(p, d);
        return make(p, d == cb::Direction::Encrypt);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        for (const auto& [n, t] : kHashes)
            if (n == std::string(p.name)) {
                bool offered = false;
                for (const auto& o : offers_) offered |= o.primitive == p.name;
                if (offered) return std::make_unique<MdHash>(mbedtls_md_info_from_type(t));
            }
        return Adapter::hash(p);
    }

private:
    static bool has_mode(const cb::Primitive& p) {
        if (!*p.mode) return false;
        for (const auto& f : kFamilies) {
            if (std::strcmp(f.family, p.family) != 0) continue;
            std::string modes = std::string(" ") + f.modes + " ";
            return modes.find(std::string(" ") + p.mode + " ") != std::string::npos;
        }
        return false;
    }
    static std::unique_ptr<cb::Cipher> make(const cb::Primitive& p, bool enc) {
        const std::string n = p.name, m = p.mode;
        if (n == "chacha20") return std::make_unique<ChachaCipher>();
        if (n == "chacha20-poly1305") return std::make_unique<ChachaPolyCipher>(enc);
        if (n == "rc4") return std::make_unique<Arc4Cipher>();
        if (!has_mode(p)) return nullptr;
        mbedtls_cipher_id_t id = std::strcmp(p.family, "aes") == 0 ? MBEDTLS_CIPHER_ID_AES : MBEDTLS_CIPHER_ID_CAMELLIA;
        if (m == "gcm") return std::make_unique<GcmCipher>(id, enc);
        if (m == "ccm") return std::make_unique<CcmCipher>(id, enc);
        if (m == "xts") return std::make_unique<XtsCipher>(enc);
        return std::make_unique<ModeCipher>(p, enc);
    }
    std::string provider(const cb::Primitive& p) const {
        const std::string f = p.family, m = p.mode;
        std::string s;
        if (f == "aes") s = aesni_ ? "AES-NI (MBEDTLS_AESNI_C, one block per call)" : "portable C tables";
        else if (f == "chacha20" || f == "chacha20-poly1305" || f == "rc4") s = "portable C";
        else s = "portable C";
        if (m == "gcm") s += clmul_ ? ", GHASH with PCLMULQDQ" : ", GHASH 4-bit tables";
        return s;
    }
    void probe() {
        for (const auto& p : cb::all_primitives()) {
            try {
                if (p.kind == cb::Kind::Hash) {
                    for (const auto& [n, t] : kHashes) {
                        if (n != std::string(p.name)) continue;
                        const mbedtls_md_info_t* info = mbedtls_md_info_from_type(t);
                        if (info && mbedtls_md_get_size(info) == p.digest_bytes) offers_.push_back({p.name, "portable C"});
                    }
                    continue;
                }
                if (p.kind == cb::Kind::Null) continue;
                auto e = make(p, true), d = make(p, false);
                if (!e || !d) continue;
                uint8_t key[64], iv[32] = {0}, tag[16];
                for (size_t i = 0; i < sizeof key; ++i) key[i] = uint8_t(i * 7 + 1);
                size_t b = p.block_bytes ? p.block_bytes : 16, len = 3 * b + (p.whole_blocks ? 0 : 5);
                std::vector<uint8_t> pt(len), ct(len), back(len);
                for (size_t i = 0; i < len; ++i) pt[i] = uint8_t(i);
                e->set_key(key, p.key_bytes); e->start(iv, p.iv_bytes); e->update(pt.data(), ct.data(), len); e->finish(tag);
                d->set_key(key, p.key_bytes); d->start(iv, p.iv_bytes); d->update(ct.data(), back.data(), len);
                if (!d->finish(tag) || back != pt || ct == pt) continue;
                offers_.push_back({p.name, provider(p)});
            } catch (const std::exception&) {
                continue;
            }
        }
    }
    bool aesni_ = false, clmul_ = false;
    std::vector<cb::Offer> offers_;
};

}  // namespace

CB_ADAPTER_FACTORY(mbedtls) { return std::make_unique<MbedtlsAdapter>(); }
