// wolfSSL 5.5 (wolfCrypt). wolfssl/options.h comes first (P3: without it the
// structs have another layout). Each context keys once in set_key(); start()
// sets only the IV (wc_AesSetIV, wc_AesGcmInit with a NULL key, ...). The
// Debian build has no WOLFSSL_AESNI, so AES is portable C tables (P16).
#include <wolfssl/options.h>

#include <cstring>
#include <string>
#include <vector>

#include <wolfssl/ssl.h>  // wolfSSL_lib_version
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/arc4.h>
#include <wolfssl/wolfcrypt/blake2.h>
#include <wolfssl/wolfcrypt/camellia.h>
#include <wolfssl/wolfcrypt/chacha.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/des3.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/md4.h>
#include <wolfssl/wolfcrypt/md5.h>
#include <wolfssl/wolfcrypt/ripemd.h>
#include <wolfssl/wolfcrypt/sha.h>
#include <wolfssl/wolfcrypt/sha256.h>
#include <wolfssl/wolfcrypt/sha3.h>
#include <wolfssl/wolfcrypt/sha512.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

#include "names.inc"  // the name tables, generated from manifest.toml

void check(int rc, const char* what) {
    if (rc != 0) throw cb::Error(std::string("wolfCrypt ") + what + ": " + wc_GetErrorString(rc));
}

bool tag_eq(const uint8_t* a, const uint8_t* b, size_t n) {
    uint8_t d = 0;
    for (size_t i = 0; i < n; ++i) d |= a[i] ^ b[i];
    return d == 0;
}

const uint8_t kZero[32] = {0};

// ------------------------------------------------------------------ AES modes
class AesCipher : public cb::Cipher {
public:
    AesCipher(const std::string& mode, bool enc) : mode_(mode), enc_(enc) {
        check(wc_AesInit(&aes_, nullptr, INVALID_DEVID), "wc_AesInit");
    }
    ~AesCipher() override { wc_AesFree(&aes_); }
    void set_key(const uint8_t* k, size_t n) override {
        // Only ECB and CBC decryption run AES backwards.
        const int dir = (!enc_ && (mode_ == "ecb" || mode_ == "cbc")) ? AES_DECRYPTION : AES_ENCRYPTION;
        check(wc_AesSetKey(&aes_, k, word32(n), kZero, dir), "wc_AesSetKey");
    }
    void start(const uint8_t* iv, size_t n) override {
        if (n) check(wc_AesSetIV(&aes_, iv), "wc_AesSetIV");  // also clears the partial-block state
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        const word32 w = word32(n);
        int rc;
        if (mode_ == "ecb") rc = enc_ ? wc_AesEcbEncrypt(&aes_, out, in, w) : wc_AesEcbDecrypt(&aes_, out, in, w);
        else if (mode_ == "cbc") rc = enc_ ? wc_AesCbcEncrypt(&aes_, out, in, w) : wc_AesCbcDecrypt(&aes_, out, in, w);
        else if (mode_ == "cfb") rc = enc_ ? wc_AesCfbEncrypt(&aes_, out, in, w) : wc_AesCfbDecrypt(&aes_, out, in, w);
        else if (mode_ == "cfb8") rc = enc_ ? wc_AesCfb8Encrypt(&aes_, out, in, w) : wc_AesCfb8Decrypt(&aes_, out, in, w);
        else if (mode_ == "ofb") rc = enc_ ? wc_AesOfbEncrypt(&aes_, out, in, w) : wc_AesOfbDecrypt(&aes_, out, in, w);
        else rc = wc_AesCtrEncrypt(&aes_, out, in, w);
        check(rc, mode_.c_str());
    }
private:
    std::string mode_;
    bool enc_;
    Aes aes_;
};

// XTS: each update() is one data unit whose tweak is the IV.
class XtsCipher : public cb::Cipher {
public:
    explicit XtsCipher(bool enc) : enc_(enc) {}
    ~XtsCipher() override { if (keyed_) wc_AesXtsFree(&x_); }
    // Each update() is a whole data unit (its own tweak), so a message cannot be fed in pieces.
    bool streams() const override { return false; }
    void set_key(const uint8_t* k, size_t n) override {
        if (keyed_) wc_AesXtsFree(&x_);
        keyed_ = false;
        check(wc_AesXtsSetKey(&x_, k, word32(n), enc_ ? AES_ENCRYPTION : AES_DECRYPTION, nullptr, INVALID_DEVID), "wc_AesXtsSetKey");
        keyed_ = true;
    }
    void start(const uint8_t* iv, size_t) override { std::memcpy(tweak_, iv, 16); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        check(enc_ ? wc_AesXtsEncrypt(&x_, out, in, word32(n), tweak_, 16) : wc_AesXtsDecrypt(&x_, out, in, word32(n), tweak_, 16),
              "wc_AesXts");
    }
private:
    bool enc_, keyed_ = false;
    XtsAes x_;
    uint8_t tweak_[16] = {0};
};

// What older wolfSSL builds lack (Debian 11 has 4.6.0): the streaming GCM API
// (WOLFSSL_AESGCM_STREAM, wolfSSL 5.0) and SHA-512/256's own functions. Without them
// GCM and SHA-512/256 are not offered (unsupported), and everything else still is.
#if LIBWOLFSSL_VERSION_HEX >= 0x05000000 && defined(WOLFSSL_SHA512)
#define CB_WC_SHA512_256 1
#else
#define CB_WC_SHA512_256 0
#endif

#ifdef WOLFSSL_AESGCM_STREAM
// GCM, streaming API: wc_AesGcmInit with a NULL key changes only the IV.
class GcmCipher : public cb::Cipher {
public:
    explicit GcmCipher(bool enc) : enc_(enc) { check(wc_AesInit(&aes_, nullptr, INVALID_DEVID), "wc_AesInit"); }
    ~GcmCipher() override { wc_AesFree(&aes_); }
    void set_key(const uint8_t* k, size_t n) override { check(wc_AesGcmSetKey(&aes_, k, word32(n)), "wc_AesGcmSetKey"); }
    void start(const uint8_t* iv, size_t n) override { check(wc_AesGcmInit(&aes_, nullptr, 0, iv, word32(n)), "wc_AesGcmInit"); }
    void aad(const uint8_t* a, size_t n) override {
        if (!n) return;
        check(enc_ ? wc_AesGcmEncryptUpdate(&aes_, nullptr, nullptr, 0, a, word32(n))
                   : wc_AesGcmDecryptUpdate(&aes_, nullptr, nullptr, 0, a, word32(n)), "wc_AesGcm AAD");
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        check(enc_ ? wc_AesGcmEncryptUpdate(&aes_, out, in, word32(n), nullptr, 0)
                   : wc_AesGcmDecryptUpdate(&aes_, out, in, word32(n), nullptr, 0), "wc_AesGcmUpdate");
    }
    bool finish(uint8_t* tag) override {
        if (enc_) { check(wc_AesGcmEncryptFinal(&aes_, tag, 16), "wc_AesGcmEncryptFinal"); return true; }
        int rc = wc_AesGcmDecryptFinal(&aes_, tag, 16);
        if (rc == AES_GCM_AUTH_E) return false;
        check(rc, "wc_AesGcmDecryptFinal");
        return true;
    }
private:
    bool enc_;
    Aes aes_;
};
#endif

// CCM is one-shot (wc_AesCcmEncrypt/Decrypt need the whole message): cb::OneShotAead.
class CcmCipher : public cb::OneShotAead {
public:
    explicit CcmCipher(cb::Direction d)
        : OneShotAead(d, 16, "wolfCrypt's CCM is one-shot (the message length is in B_0): a message is one update()") {
        check(wc_AesInit(&aes_, nullptr, INVALID_DEVID), "wc_AesInit");
    }
    ~CcmCipher() override { wc_AesFree(&aes_); }
    void set_key(const uint8_t* k, size_t n) override { check(wc_AesCcmSetKey(&aes_, k, word32(n)), "wc_AesCcmSetKey"); }
private:
    void seal(const uint8_t* in, uint8_t* out, size_t n, uint8_t* tag) override {
        check(wc_AesCcmEncrypt(&aes_, out, in, word32(n), nonce(), word32(nonce_len()), tag, 16, ad(), word32(ad_len())),
              "wc_AesCcmEncrypt");
    }
    bool open(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* tag) override {
        int rc = wc_AesCcmDecrypt(&aes_, out, in, word32(n), nonce(), word32(nonce_len()), tag, 16, ad(), word32(ad_len()));
        if (rc == AES_CCM_AUTH_E) return false;  // wolfCrypt zeroes the output
        check(rc, "wc_AesCcmDecrypt");
        return true;
    }
    Aes aes_;
};

// ------------------------------------------------------------------ Camellia, DES, 3DES
class CamelliaCipher : public cb::Cipher {
public:
    CamelliaCipher(bool cbc, bool enc) : cbc_(cbc), enc_(enc) {}
    void set_key(const uint8_t* k, size_t n) override { check(wc_CamelliaSetKey(&c_, k, word32(n), kZero), "wc_CamelliaSetKey"); }
    void start(const uint8_t* iv, size_t n) override { if (n) check(wc_CamelliaSetIV(&c_, iv), "wc_CamelliaSetIV"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        if (cbc_) {
            check(enc_ ? wc_CamelliaCbcEncrypt(&c_, out, in, word32(n)) : wc_CamelliaCbcDecrypt(&c_, out, in, word32(n)), "wc_CamelliaCbc");
            return;
        }
        for (size_t i = 0; i < n; i += 16)
            check(enc_ ? wc_CamelliaEncryptDirect(&c_, out + i, in + i) : wc_CamelliaDecryptDirect(&c_, out + i, in + i), "wc_CamelliaDirect");
    }
private:
    bool cbc_, enc_;
    Camellia c_;
};

class DesCipher : public cb::Cipher {
public:
    DesCipher(bool triple, bool cbc, bool enc) : triple_(triple), cbc_(cbc), enc_(enc) {}
    void set_key(const uint8_t* k, size_t n) override {
        const int dir = enc_ ? DES_ENCRYPTION : DES_DECRYPTION;
        if (!triple_) { check(wc_Des_SetKey(&d_, k, kZero, dir), "wc_Des_SetKey"); return; }
        uint8_t k3[24];
        std::memcpy(k3, k, n);
        if (n == 16) std::memcpy(k3 + 16, k, 8);  // two-key EDE: K1 K2 K1
        check(wc_Des3_SetKey(&d3_, k3, kZero, dir), "wc_Des3_SetKey");
    }
    void start(const uint8_t* iv, size_t n) override {
        if (!n) return;
        if (triple_) check(wc_Des3_SetIV(&d3_, iv), "wc_Des3_SetIV");
        else wc_Des_SetIV(&d_, iv);
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        const word32 w = word32(n);
        int rc;
        if (triple_) rc = cbc_ ? (enc_ ? wc_Des3_CbcEncrypt(&d3_, out, in, w) : wc_Des3_CbcDecrypt(&d3_, out, in, w))
                               : wc_Des3_EcbEncrypt(&d3_, out, in, w);  // ECB direction = key schedule direction
        else rc = cbc_ ? (enc_ ? wc_Des_CbcEncrypt(&d_, out, in, w) : wc_Des_CbcDecrypt(&d_, out, in, w))
                       : wc_Des_EcbEncrypt(&d_, out, in, w);
        check(rc, triple_ ? "3DES" : "DES");
    }
private:
    bool triple_, cbc_, enc_;
    Des d_;
    Des3 d3_;
};

// ------------------------------------------------------------------ streams and ChaCha AEADs
class ChachaCipher : public cb::Cipher {
public:
    explicit ChachaCipher(bool x) : x_(x) {}
    void set_key(const uint8_t* k, size_t n) override {
        std::memcpy(key_, k, n);
        if (!x_) check(wc_Chacha_SetKey(&c_, k, word32(n)), "wc_Chacha_SetKey");
    }
    void start(const uint8_t* iv, size_t n) override {
        // XChaCha20 derives the subkey from the nonce (HChaCha20): it is keyed per nonce by design.
        if (x_) check(wc_XChacha_SetKey(&c_, key_, 32, iv, word32(n), 0), "wc_XChacha_SetKey");
        else check(wc_Chacha_SetIV(&c_, iv, 0), "wc_Chacha_SetIV");
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (n) check(wc_Chacha_Process(&c_, out, in, word32(n)), "wc_Chacha_Process");
    }
private:
    bool x_;
    ChaCha c_;
    uint8_t key_[32] = {0};
};

// IETF ChaCha20-Poly1305, streaming API. wolfSSL 5.5.4 refuses
// wc_ChaCha20Poly1305_Final in the READY state, i.e. for a message with
// neither AAD nor text; finish() then moves the state to AAD (empty AAD),
// which is exactly the computation the RFC asks for.
class ChachaPolyCipher : public cb::Cipher {
public:
    explicit ChachaPolyCipher(bool enc) : enc_(enc) {}
    void set_key(const uint8_t* k, size_t n) override { std::memcpy(key_, k, n); }
    void start(const uint8_t* iv, size_t) override {
        check(wc_ChaCha20Poly1305_Init(&a_, key_, iv, enc_ ? 1 : 0), "wc_ChaCha20Poly1305_Init");
    }
    void aad(const uint8_t* a, size_t n) override { if (n) check(wc_ChaCha20Poly1305_UpdateAad(&a_, a, word32(n)), "UpdateAad"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (n) check(wc_ChaCha20Poly1305_UpdateData(&a_, in, out, word32(n)), "UpdateData");
    }
    bool finish(uint8_t* tag) override {
        if (a_.state == CHACHA20_POLY1305_STATE_READY) a_.state = CHACHA20_POLY1305_STATE_AAD;
        uint8_t t[16];
        check(wc_ChaCha20Poly1305_Final(&a_, t), "wc_ChaCha20Poly1305_Final");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_eq(t, tag, 16);
    }
private:
    bool enc_;
    ChaChaPoly_Aead a_;
    uint8_t key_[32] = {0};
};

// XChaCha20-Poly1305 through the one-shot wc_XChaCha20Poly1305_Encrypt/
// Decrypt: the streaming path after wc_XChaCha20Poly1305_Init is unusable in
// wolfSSL 5.5.4 (Init pads the AAD but leaves aadLen and dataLen as they
// were, so Final encodes wrong lengths and a reused context gives wrong
// tags). The tag goes after the text, so the library works on a scratch
// buffer that is copied out.
class XChachaPolyCipher : public cb::OneShotAead {
public:
    explicit XChachaPolyCipher(cb::Direction d)
        : OneShotAead(d, 16, "wolfSSL XChaCha20-Poly1305 is one-shot here (its streaming API is broken in 5.5): "
                             "a message is one update()") {}
    void set_key(const uint8_t* k, size_t n) override { std::memcpy(key_, k, n); }
private:
    // The library wants a non-NULL AAD pointer even for none.
    const uint8_t* ad_or_empty() const { return ad() ? ad() : kZero; }
    void seal(const uint8_t* in, uint8_t* out, size_t n, uint8_t* tag) override {
        scratch_.resize(n + 16);
        check(wc_XChaCha20Poly1305_Encrypt(scratch_.data(), n + 16, in, n, ad_or_empty(), ad_len(), nonce(), nonce_len(),
                                           key_, 32), "wc_XChaCha20Poly1305_Encrypt");
        std::memcpy(out, scratch_.data(), n);
        std::memcpy(tag, scratch_.data() + n, 16);
    }
    bool open(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* tag) override {
        scratch_.resize(n + 16);
        std::memcpy(scratch_.data(), in, n);
        std::memcpy(scratch_.data() + n, tag, 16);
        int rc = wc_XChaCha20Poly1305_Decrypt(out, n, scratch_.data(), n + 16, ad_or_empty(), ad_len(), nonce(), nonce_len(),
                                              key_, 32);
        if (rc == MAC_CMP_FAILED_E) return false;
        check(rc, "wc_XChaCha20Poly1305_Decrypt");
        return true;
    }
    uint8_t key_[32] = {0};
    std::vector<uint8_t> scratch_;
};

// RC4 has no IV: start() copies the keyed state back.
class Arc4Cipher : public cb::Cipher {
public:
    void set_key(const uint8_t* k, size_t n) override { check(wc_Arc4SetKey(&keyed_, k, word32(n)), "wc_Arc4SetKey"); }
    void start(const uint8_t*, size_t) override { s_ = keyed_; }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (n) check(wc_Arc4Process(&s_, out, in, word32(n)), "wc_Arc4Process");
    }
private:
    Arc4 keyed_{}, s_{};
};

// ------------------------------------------------------------------ hashes
class WcHash : public cb::Hash {
public:
    WcHash(const std::string& n, size_t out) : n_(n), out_(out) {}
    ~WcHash() override { release(); }
    void init() override {
        release();
        int rc = 0;
        if (n_ == "md4") wc_InitMd4(&u_.md4);
        else if (n_ == "md5") rc = wc_InitMd5(&u_.md5);
        else if (n_ == "sha-1") rc = wc_InitSha(&u_.sha);
        else if (n_ == "sha-224") rc = wc_InitSha224(&u_.sha224);
        else if (n_ == "sha-256") rc = wc_InitSha256(&u_.sha256);
        else if (n_ == "sha-384") rc = wc_InitSha384(&u_.sha512);
        else if (n_ == "sha-512") rc = wc_InitSha512(&u_.sha512);
#if CB_WC_SHA512_256
        else if (n_ == "sha-512-256") rc = wc_InitSha512_256(&u_.sha512);
#endif
        else if (n_ == "sha3-224") rc = wc_InitSha3_224(&u_.sha3, nullptr, INVALID_DEVID);
        else if (n_ == "sha3-256") rc = wc_InitSha3_256(&u_.sha3, nullptr, INVALID_DEVID);
        else if (n_ == "sha3-384") rc = wc_InitSha3_384(&u_.sha3, nullptr, INVALID_DEVID);
        else if (n_ == "sha3-512") rc = wc_InitSha3_512(&u_.sha3, nullptr, INVALID_DEVID);
        else if (n_ == "shake256") rc = wc_InitShake256(&u_.sha3, nullptr, INVALID_DEVID);
        else if (n_ == "blake2b-512" || n_ == "blake2b-256") rc = wc_InitBlake2b(&u_.b2b, word32(out_));
        else if (n_ == "blake2s-256") rc = wc_InitBlake2s(&u_.b2s, word32(out_));
        else if (n_ == "ripemd-160") rc = wc_InitRipeMd(&u_.rmd);
        else throw cb::Error("wolfSSL adapter: no hash " + n_);
        check(rc, "hash init");
        live_ = true;
    }
    void update(const uint8_t* in, size_t n) override {
        const word32 w = word32(n);
        int rc = 0;
        if (n_ == "md4") wc_Md4Update(&u_.md4, in, w);
        else if (n_ == "md5") rc = wc_Md5Update(&u_.md5, in, w);
        else if (n_ == "sha-1") rc = wc_ShaUpdate(&u_.sha, in, w);
        else if (n_ == "sha-224") rc = wc_Sha224Update(&u_.sha224, in, w);
        else if (n_ == "sha-256") rc = wc_Sha256Update(&u_.sha256, in, w);
        else if (n_ == "sha-384") rc = wc_Sha384Update(&u_.sha512, in, w);
        else if (n_ == "sha-512") rc = wc_Sha512Update(&u_.sha512, in, w);
#if CB_WC_SHA512_256
        else if (n_ == "sha-512-256") rc = wc_Sha512_256Update(&u_.sha512, in, w);
#endif
        else if (n_ == "sha3-224") rc = wc_Sha3_224_Update(&u_.sha3, in, w);
        else if (n_ == "sha3-256") rc = wc_Sha3_256_Update(&u_.sha3, in, w);
        else if (n_ == "sha3-384") rc = wc_Sha3_384_Update(&u_.sha3, in, w);
        else if (n_ == "sha3-512") rc = wc_Sha3_512_Update(&u_.sha3, in, w);
        else if (n_ == "shake256") rc = wc_Shake256_Update(&u_.sha3, in, w);
        else if (n_ == "blake2b-512" || n_ == "blake2b-256") rc = wc_Blake2bUpdate(&u_.b2b, in, w);
        else if (n_ == "blake2s-256") rc = wc_Blake2sUpdate(&u_.b2s, in, w);
        else rc = wc_RipeMdUpdate(&u_.rmd, in, w);
        check(rc, "hash update");
    }
    void final(uint8_t* d) override {
        int rc = 0;
        if (n_ == "md4") wc_Md4Final(&u_.md4, d);
        else if (n_ == "md5") rc = wc_Md5Final(&u_.md5, d);
        else if (n_ == "sha-1") rc = wc_ShaFinal(&u_.sha, d);
        else if (n_ == "sha-224") rc = wc_Sha224Final(&u_.sha224, d);
        else if (n_ == "sha-256") rc = wc_Sha256Final(&u_.sha256, d);
        else if (n_ == "sha-384") rc = wc_Sha384Final(&u_.sha512, d);
        else if (n_ == "sha-512") rc = wc_Sha512Final(&u_.sha512, d);
#if CB_WC_SHA512_256
        else if (n_ == "sha-512-256") rc = wc_Sha512_256Final(&u_.sha512, d);
#endif
        else if (n_ == "sha3-224") rc = wc_Sha3_224_Final(&u_.sha3, d);
        else if (n_ == "sha3-256") rc = wc_Sha3_256_Final(&u_.sha3, d);
        else if (n_ == "sha3-384") rc = wc_Sha3_384_Final(&u_.sha3, d);
        else if (n_ == "sha3-512") rc = wc_Sha3_512_Final(&u_.sha3, d);
        else if (n_ == "shake256") rc = wc_Shake256_Final(&u_.sha3, d, word32(out_));
        else if (n_ == "blake2b-512" || n_ == "blake2b-256") rc = wc_Blake2bFinal(&u_.b2b, d, word32(out_));
        else if (n_ == "blake2s-256") rc = wc_Blake2sFinal(&u_.b2s, d, word32(out_));
        else rc = wc_RipeMdFinal(&u_.rmd, d);
        check(rc, "hash final");
    }
private:
    void release() {
        if (!live_) return;
        live_ = false;
        if (n_ == "md5") wc_Md5Free(&u_.md5);
        else if (n_ == "sha-1") wc_ShaFree(&u_.sha);
        else if (n_ == "sha-224") wc_Sha224Free(&u_.sha224);
        else if (n_ == "sha-256") wc_Sha256Free(&u_.sha256);
        else if (n_ == "sha-384") wc_Sha384Free(&u_.sha512);
        else if (n_ == "sha-512") wc_Sha512Free(&u_.sha512);
#if CB_WC_SHA512_256
        else if (n_ == "sha-512-256") wc_Sha512_256Free(&u_.sha512);
#endif
        else if (n_ == "sha3-224") wc_Sha3_224_Free(&u_.sha3);
        else if (n_ == "sha3-256") wc_Sha3_256_Free(&u_.sha3);
        else if (n_ == "sha3-384") wc_Sha3_384_Free(&u_.sha3);
        else if (n_ == "sha3-512") wc_Sha3_512_Free(&u_.sha3);
        else if (n_ == "shake256") wc_Shake256_Free(&u_.sha3);
    }
    std::string n_;
    size_t out_;
    bool live_ = false;
    union U {
        Md4 md4; wc_Md5 md5; wc_Sha sha; wc_Sha224 sha224; wc_Sha256 sha256; wc_Sha512 sha512;
        wc_Sha3 sha3; Blake2b b2b; Blake2s b2s; RipeMd rmd;
    } u_;
};

// ------------------------------------------------------------------ the adapter
// Offers what its factories build and the shared start-up check passes (cb::ProbedAdapter).
class WolfsslAdapter : public cb::ProbedAdapter {
public:
    WolfsslAdapter() { probe_registry(); }
    std::string name() const override { return "wolfssl"; }
    std::string library() const override { return "wolfSSL (wolfCrypt)"; }
    std::string version() const override { return wolfSSL_lib_version(); }  // run time
    std::vector<std::pair<std::string, std::string>> notes() const override {
        return {{"aesni",
#ifdef WOLFSSL_AESNI
                 "WOLFSSL_AESNI defined in options.h"
#else
                 "not built (no WOLFSSL_AESNI in the installed options.h): AES is portable C tables"
#endif
                },
#ifdef WOLFSSL_AESGCM_STREAM
                {"gcm", "GCM_TABLE_4BIT, streaming API (WOLFSSL_AESGCM_STREAM)"}};
#else
                {"gcm", "not offered: this wolfSSL has no streaming GCM API (WOLFSSL_AESGCM_STREAM, 5.0)"}};
#endif
    }

private:
    std::unique_ptr<cb::Cipher> make(const cb::Primitive& p, cb::Direction d) const override {
        const bool enc = d == cb::Direction::Encrypt;
        const std::string n = p.name, f = p.family, m = p.mode;
        if (n == "chacha20") return std::make_unique<ChachaCipher>(false);
        if (n == "xchacha20") return std::make_unique<ChachaCipher>(true);
        if (n == "chacha20-poly1305") return std::make_unique<ChachaPolyCipher>(enc);
        if (n == "xchacha20-poly1305") return std::make_unique<XChachaPolyCipher>(d);
        if (n == "rc4") return std::make_unique<Arc4Cipher>();
        if (!cb::lists_mode(kFamilies, p)) return nullptr;
        if (f == "aes") {
            if (m == "xts") return std::make_unique<XtsCipher>(enc);
#ifdef WOLFSSL_AESGCM_STREAM
            if (m == "gcm") return std::make_unique<GcmCipher>(enc);
#else
            if (m == "gcm") return nullptr;
#endif
            if (m == "ccm") return std::make_unique<CcmCipher>(d);
            return std::make_unique<AesCipher>(m, enc);
        }
        if (f == "camellia") return std::make_unique<CamelliaCipher>(m == "cbc", enc);
        return std::make_unique<DesCipher>(f == "3des", m == "cbc", enc);
    }
    // Debian's build defines neither WOLFSSL_AESNI nor USE_INTEL_SPEEDUP (options.h): every
    // symmetric primitive is wolfCrypt's C. A build with either picks AES-NI, PCLMUL or AVX
    // code at run time by rules this adapter does not follow: its features are then unknown.
    cb::Path provider(const cb::Primitive& p) const override {
        const std::string f = p.family, m = p.mode;
#if defined(USE_INTEL_SPEEDUP)
        const cb::Features other{};
#else
        const cb::Features other = cb::Feature::Portable;
#endif
#ifdef WOLFSSL_AESNI
        const cb::Path aes{"AES-NI where the CPU has it (WOLFSSL_AESNI)", cb::Features{}};
#else
        const cb::Path aes{"portable C tables (no AES-NI in this wolfSSL build)", other};
#endif
        if (f == "aes") return m == "gcm" ? cb::Path{aes.text + ", GHASH 4-bit tables", aes.features} : aes;
        return {"portable C", other};
    }
    std::unique_ptr<cb::Hash> make_hash(const cb::Primitive& p) const override {
        if (!CB_WC_SHA512_256 && std::strcmp(p.name, "sha-512-256") == 0) return nullptr;
        for (const char* h : kHashes)
            if (std::strcmp(h, p.name) == 0) return std::make_unique<WcHash>(p.name, p.digest_bytes);
        return nullptr;
    }
};

}  // namespace

CB_ADAPTER_FACTORY(wolfssl) { return std::make_unique<WolfsslAdapter>(); }
