// mbedTLS 2.28 through its per-algorithm APIs (aes.h, camellia.h, ...), not
// the generic cipher layer: each context keys once in set_key() and start()
// only copies the IV (and resets the stream offset). AES uses AES-NI through
// MBEDTLS_AESNI_C when mbedtls_aesni_has_support() says so, one block per
// call; GHASH uses PCLMULQDQ the same way. See README.md.
// mbedTLS 3 (Debian 13 and later; MBEDTLS_VERSION_NUMBER) removed Blowfish, XTEA,
// ARC4 and MD4, made aesni.h private and gave GCM a new streaming API: those
// primitives are not offered there, and GCM takes the 3.x calls.
#include <cpuid.h>
#include <cstring>
#include <string>
#include <vector>

#include <mbedtls/version.h>
#define CB_MBEDTLS3 (MBEDTLS_VERSION_NUMBER >= 0x03000000)

#include <mbedtls/aes.h>
#include <mbedtls/camellia.h>
#include <mbedtls/ccm.h>
#include <mbedtls/chacha20.h>
#include <mbedtls/chachapoly.h>
#include <mbedtls/des.h>
#include <mbedtls/gcm.h>
#include <mbedtls/md.h>
#if !CB_MBEDTLS3
#include <mbedtls/aesni.h>
#include <mbedtls/arc4.h>
#include <mbedtls/blowfish.h>
#include <mbedtls/xtea.h>
#endif

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

#if CB_MBEDTLS3
// The removed APIs' names, so the code of the families 2.x still has compiles once;
// manifest.toml's tables do not list those families under 3.x, so none of these is ever called.
struct mbedtls_blowfish_context {};
struct mbedtls_xtea_context {};
struct mbedtls_arc4_context {};
#define CB_REMOVED_IN_3(fn) \
    template <class... A> int fn(A...) { throw cb::Unsupported(#fn ": removed in mbedTLS 3"); }
CB_REMOVED_IN_3(mbedtls_blowfish_init) CB_REMOVED_IN_3(mbedtls_blowfish_free) CB_REMOVED_IN_3(mbedtls_blowfish_setkey)
CB_REMOVED_IN_3(mbedtls_blowfish_crypt_ecb) CB_REMOVED_IN_3(mbedtls_blowfish_crypt_cbc)
CB_REMOVED_IN_3(mbedtls_blowfish_crypt_cfb64) CB_REMOVED_IN_3(mbedtls_blowfish_crypt_ctr)
CB_REMOVED_IN_3(mbedtls_xtea_init) CB_REMOVED_IN_3(mbedtls_xtea_free) CB_REMOVED_IN_3(mbedtls_xtea_setup)
CB_REMOVED_IN_3(mbedtls_xtea_crypt_ecb) CB_REMOVED_IN_3(mbedtls_xtea_crypt_cbc)
CB_REMOVED_IN_3(mbedtls_arc4_init) CB_REMOVED_IN_3(mbedtls_arc4_free) CB_REMOVED_IN_3(mbedtls_arc4_setup)
CB_REMOVED_IN_3(mbedtls_arc4_crypt)

// aesni.h is private in 3.x: what it would say, from CPUID and the build's MBEDTLS_AESNI_C.
bool cpu_has(int reg, unsigned bit) {
    unsigned r[4] = {0, 0, 0, 0};
    return __get_cpuid(1, &r[0], &r[1], &r[2], &r[3]) && (r[reg] >> bit & 1);
}
#ifdef MBEDTLS_AESNI_C
bool aesni_aes() { return cpu_has(2, 25); }
bool aesni_clmul() { return cpu_has(2, 1); }
#else
bool aesni_aes() { return false; }
bool aesni_clmul() { return false; }
#endif
#else
bool aesni_aes() { return mbedtls_aesni_has_support(MBEDTLS_AESNI_AES) != 0; }
bool aesni_clmul() { return mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) != 0; }
#endif

#include "names.inc"  // the name tables, generated from manifest.toml

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
            default: throw cb::Unsupported("mbedTLS has no CFB for this cipher");
        }
    }
    void ctr(size_t n, size_t* off, uint8_t* ctr, uint8_t* ks, const uint8_t* in, uint8_t* out) {
        switch (f_) {
            case Fam::Aes: check(mbedtls_aes_crypt_ctr(&u_.aes, n, off, ctr, ks, in, out), "aes_crypt_ctr"); break;
            case Fam::Camellia: check(mbedtls_camellia_crypt_ctr(&u_.cam, n, off, ctr, ks, in, out), "camellia_crypt_ctr"); break;
            case Fam::Blowfish: check(mbedtls_blowfish_crypt_ctr(&u_.bf, n, off, ctr, ks, in, out), "blowfish_crypt_ctr"); break;
            default: throw cb::Unsupported("mbedTLS has no CTR for this cipher");
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
            throw cb::Unsupported("the mbedTLS adapter has no mode " + mode_);
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
    // Each update() is a whole data unit (its own tweak), so a message cannot be fed in pieces.
    bool streams() const override { return false; }
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
#if CB_MBEDTLS3  // 3.x takes any lengths and, built in, outputs all it is given
        size_t outl = 0;
        check(mbedtls_gcm_update(&ctx_, in, n, out, n, &outl), "gcm_update");
        if (outl != n) throw cb::Error("mbedTLS gcm_update returned " + std::to_string(outl) + " bytes for " + std::to_string(n));
#else
        if (partial_)  // a limit of the library, not a failure: "unsupported"
            throw cb::Unsupported("mbedTLS 2 GCM cannot continue a message after a partial 16-byte block; use whole-block update() sizes");
        partial_ = n % 16 != 0;
        check(mbedtls_gcm_update(&ctx_, n, in, out), "gcm_update");
#endif
    }
    bool finish(uint8_t* tag) override {
        begin();
        uint8_t t[16];
#if CB_MBEDTLS3
        size_t outl = 0;
        check(mbedtls_gcm_finish(&ctx_, nullptr, 0, &outl, t, 16), "gcm_finish");
#else
        check(mbedtls_gcm_finish(&ctx_, t, 16), "gcm_finish");
#endif
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_eq(t, tag, 16);
    }
private:
    void begin() {
        if (begun_) return;
#if CB_MBEDTLS3  // the IV, then the AAD through its own call
        check(mbedtls_gcm_starts(&ctx_, enc_ ? MBEDTLS_GCM_ENCRYPT : MBEDTLS_GCM_DECRYPT, iv_, 12), "gcm_starts");
        if (!aad_.empty()) check(mbedtls_gcm_update_ad(&ctx_, aad_.data(), aad_.size()), "gcm_update_ad");
#else
        check(mbedtls_gcm_starts(&ctx_, enc_ ? MBEDTLS_GCM_ENCRYPT : MBEDTLS_GCM_DECRYPT, iv_, 12,
                                 aad_.empty() ? nullptr : aad_.data(), aad_.size()), "gcm_starts");
#endif
        begun_ = true;
    }
    mbedtls_cipher_id_t id_;
    bool enc_, begun_ = false, partial_ = false;
    mbedtls_gcm_context ctx_;
    uint8_t iv_[12] = {0};
    std::vector<uint8_t> aad_;
};

// CCM is one-shot in mbedTLS 2 (the lengths are in B_0): cb::OneShotAead.
class CcmCipher : public cb::OneShotAead {
public:
    CcmCipher(mbedtls_cipher_id_t id, cb::Direction d)
        : OneShotAead(d, 16, "mbedTLS 2's CCM is one-shot (the message length is in B_0): a message is one update()"),
          id_(id) {
        mbedtls_ccm_init(&ctx_);
    }
    ~CcmCipher() override { mbedtls_ccm_free(&ctx_); }
    void set_key(const uint8_t* k, size_t n) override { check(mbedtls_ccm_setkey(&ctx_, id_, k, unsigned(n * 8)), "ccm_setkey"); }
private:
    // mbedTLS 2.28 library/ccm.c (ccm_auth_crypt) refuses 2^16 - 2^8 bytes of
    // associated data or more with MBEDTLS_ERR_CCM_BAD_INPUT: a limit of the
    // library, not a failure.
    void check_ad() const {
        if (ad_len() >= 0xFF00) throw cb::Unsupported("mbedTLS 2's CCM takes less than 65,280 bytes of associated data");
    }
    void seal(const uint8_t* in, uint8_t* out, size_t n, uint8_t* tag) override {
        check_ad();
        check(mbedtls_ccm_encrypt_and_tag(&ctx_, n, nonce(), nonce_len(), ad(), ad_len(), in, out, tag, 16),
              "ccm_encrypt_and_tag");
    }
    bool open(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* tag) override {
        check_ad();
        int rc = mbedtls_ccm_auth_decrypt(&ctx_, n, nonce(), nonce_len(), ad(), ad_len(), in, out, tag, 16);
        if (rc == MBEDTLS_ERR_CCM_AUTH_FAILED) return false;  // output zeroed by mbedTLS
        check(rc, "ccm_auth_decrypt");
        return true;
    }
    mbedtls_cipher_id_t id_;
    mbedtls_ccm_context ctx_;
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

// Offers what its factories build and the shared start-up check passes (cb::ProbedAdapter).
class MbedtlsAdapter : public cb::ProbedAdapter {
public:
    MbedtlsAdapter() {
        aesni_ = aesni_aes();
        clmul_ = aesni_clmul();
        probe_registry();
    }
    std::string name() const override { return "mbedtls"; }
    std::string library() const override { return "mbedTLS"; }
    std::string version() const override {
        char v[32] = {0};
        mbedtls_version_get_string(v);  // run time
        return v;
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        char full[64] = {0};
        mbedtls_version_get_string_full(full);
        return {{"version_full", full},
                {"aesni", aesni_ ? "mbedtls_aesni_has_support(AES): yes (MBEDTLS_AESNI_C, one block per call)" : "no"},
                {"pclmul", clmul_ ? "mbedtls_aesni_has_support(CLMUL): yes (GHASH)" : "no"}};
    }

private:
    // nullptr where mbedTLS has no digest of the registry's length.
    std::unique_ptr<cb::Hash> make_hash(const cb::Primitive& p) const override {
        for (const auto& [n, t] : kHashes) {
            if (n != std::string(p.name)) continue;
            const mbedtls_md_info_t* info = mbedtls_md_info_from_type(t);
            if (info && mbedtls_md_get_size(info) == p.digest_bytes) return std::make_unique<MdHash>(info);
        }
        return nullptr;
    }
    std::unique_ptr<cb::Cipher> make(const cb::Primitive& p, cb::Direction d) const override {
        const bool enc = d == cb::Direction::Encrypt;
        const std::string n = p.name, m = p.mode;
        if (n == "chacha20") return std::make_unique<ChachaCipher>();
        if (n == "chacha20-poly1305") return std::make_unique<ChachaPolyCipher>(enc);
        if (n == "rc4") return CB_MBEDTLS3 ? nullptr : std::make_unique<Arc4Cipher>();
        if (!cb::lists_mode(kFamilies, p)) return nullptr;
        mbedtls_cipher_id_t id = std::strcmp(p.family, "aes") == 0 ? MBEDTLS_CIPHER_ID_AES : MBEDTLS_CIPHER_ID_CAMELLIA;
        if (m == "gcm") return std::make_unique<GcmCipher>(id, enc);
        if (m == "ccm") return std::make_unique<CcmCipher>(id, d);
        if (m == "xts") return std::make_unique<XtsCipher>(enc);
        return std::make_unique<ModeCipher>(p, enc);
    }
    // mbedTLS's only x86 code for these primitives is MBEDTLS_AESNI_C (AES rounds, GHASH's
    // multiplication), used where mbedtls_aesni_has_support says so; the rest is C.
    cb::Path provider(const cb::Primitive& p) const override {
        const std::string f = p.family, m = p.mode;
        const bool hw_aes = f == "aes" && aesni_;
        std::string s = f == "aes" ? (aesni_ ? "AES-NI (MBEDTLS_AESNI_C, one block per call)" : "portable C tables")
                                   : "portable C";
        cb::Features used = cb::if_else_portable(hw_aes, cb::Feature::AesNi);
        if (m == "gcm") {
            s += clmul_ ? ", GHASH with PCLMULQDQ" : ", GHASH 4-bit tables";
            used |= cb::if_else_portable(clmul_, cb::Feature::Pclmul);
        }
        return {s, used};
    }
    bool aesni_ = false, clmul_ = false;
};

}  // namespace

CB_ADAPTER_FACTORY(mbedtls) { return std::make_unique<MbedtlsAdapter>(); }
