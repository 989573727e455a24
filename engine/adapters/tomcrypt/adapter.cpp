// libtomcrypt 1.18 through its mode and AEAD APIs. Ciphers and hashes are
// registered once (register_all_*); each context keys once in set_key() and
// start() only changes the IV where the API allows it (cbc/cfb/ofb/ctr_setiv,
// gcm_reset). Where tomcrypt has no IV-only restart (OCB3, EAX) start() calls
// the mode's init, which re-runs the key schedule: see README.md.
#include <cstring>
#include <string>
#include <vector>

#include <tomcrypt.h>
#undef byte  // tomcrypt_macros.h defines byte(x, n) (pitfall P1)

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

#include "names.inc"  // the name tables, generated from manifest.toml

void check(int err, const char* what) {
    if (err != CRYPT_OK) throw cb::Error(std::string("libtomcrypt ") + what + ": " + error_to_string(err));
}

const uint8_t kZero[MAXBLOCKSIZE] = {0};

// ------------------------------------------------------------------ unauthenticated modes
class EcbCipher : public cb::Cipher {
public:
    EcbCipher(int idx, bool enc) : idx_(idx), enc_(enc) {}
    ~EcbCipher() override { ecb_done(&s_); }
    void set_key(const uint8_t* k, size_t n) override { check(ecb_start(idx_, k, int(n), 0, &s_), "ecb_start"); }
    void start(const uint8_t*, size_t) override {}
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        check(enc_ ? ecb_encrypt(in, out, n, &s_) : ecb_decrypt(in, out, n, &s_), "ecb");
    }
private:
    int idx_;
    bool enc_;
    symmetric_ECB s_{};
};

class CbcCipher : public cb::Cipher {
public:
    CbcCipher(int idx, bool enc) : idx_(idx), enc_(enc) {}
    ~CbcCipher() override { cbc_done(&s_); }
    void set_key(const uint8_t* k, size_t n) override { check(cbc_start(idx_, kZero, k, int(n), 0, &s_), "cbc_start"); }
    void start(const uint8_t* iv, size_t n) override { check(cbc_setiv(iv, n, &s_), "cbc_setiv"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        check(enc_ ? cbc_encrypt(in, out, n, &s_) : cbc_decrypt(in, out, n, &s_), "cbc");
    }
private:
    int idx_;
    bool enc_;
    symmetric_CBC s_{};
};

class CfbCipher : public cb::Cipher {
public:
    CfbCipher(int idx, bool enc) : idx_(idx), enc_(enc) {}
    ~CfbCipher() override { cfb_done(&s_); }
    void set_key(const uint8_t* k, size_t n) override { check(cfb_start(idx_, kZero, k, int(n), 0, &s_), "cfb_start"); }
    void start(const uint8_t* iv, size_t n) override { check(cfb_setiv(iv, n, &s_), "cfb_setiv"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        check(enc_ ? cfb_encrypt(in, out, n, &s_) : cfb_decrypt(in, out, n, &s_), "cfb");
    }
private:
    int idx_;
    bool enc_;
    symmetric_CFB s_{};
};

class OfbCipher : public cb::Cipher {
public:
    explicit OfbCipher(int idx) : idx_(idx) {}
    ~OfbCipher() override { ofb_done(&s_); }
    void set_key(const uint8_t* k, size_t n) override { check(ofb_start(idx_, kZero, k, int(n), 0, &s_), "ofb_start"); }
    void start(const uint8_t* iv, size_t n) override { check(ofb_setiv(iv, n, &s_), "ofb_setiv"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;  // LTC_ARGCHK aborts on NULL buffers
        check(ofb_encrypt(in, out, n, &s_), "ofb");
    }
private:
    int idx_;
    symmetric_OFB s_{};
};

class CtrCipher : public cb::Cipher {
public:
    explicit CtrCipher(int idx) : idx_(idx) {}
    ~CtrCipher() override { ctr_done(&s_); }
    void set_key(const uint8_t* k, size_t n) override {
        // Counter width 0 = the whole block, incremented big-endian (SP 800-38A B.1).
        check(ctr_start(idx_, kZero, k, int(n), 0, CTR_COUNTER_BIG_ENDIAN, &s_), "ctr_start");
    }
    void start(const uint8_t* iv, size_t n) override { check(ctr_setiv(iv, n, &s_), "ctr_setiv"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;  // LTC_ARGCHK aborts on NULL buffers
        check(ctr_encrypt(in, out, n, &s_), "ctr");
    }
private:
    int idx_;
    symmetric_CTR s_{};
};

// XTS: each update() is one data unit whose tweak is the IV given to start()
// (as OpenSSL, mbedTLS and wolfSSL do); xts_encrypt would otherwise carry the
// tweak on from call to call.
class XtsCipher : public cb::Cipher {
public:
    XtsCipher(int idx, bool enc) : idx_(idx), enc_(enc) {}
    ~XtsCipher() override { if (keyed_) xts_done(&s_); }
    // Each update() is a whole data unit (its own tweak), so a message cannot be fed in pieces.
    bool streams() const override { return false; }
    void set_key(const uint8_t* k, size_t n) override {
        if (keyed_) xts_done(&s_);
        keyed_ = false;
        check(xts_start(idx_, k, k + n / 2, n / 2, 0, &s_), "xts_start");
        keyed_ = true;
    }
    void start(const uint8_t* iv, size_t n) override { std::memcpy(tweak_, iv, n); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        uint8_t t[16];
        std::memcpy(t, tweak_, 16);
        check(enc_ ? xts_encrypt(in, n, out, t, &s_) : xts_decrypt(in, n, out, t, &s_), "xts");
    }
private:
    int idx_;
    bool enc_, keyed_ = false;
    symmetric_xts s_{};
    uint8_t tweak_[16] = {0};
};

// ------------------------------------------------------------------ AEADs
bool tag_ok(const uint8_t* computed, const uint8_t* expected, size_t n) {
    return mem_neq(computed, expected, n) == 0;
}

class GcmCipher : public cb::Cipher {
public:
    GcmCipher(int idx, bool enc) : idx_(idx), enc_(enc), s_(new gcm_state) {}
    void set_key(const uint8_t* k, size_t n) override { check(gcm_init(s_.get(), idx_, k, int(n)), "gcm_init"); }
    void start(const uint8_t* iv, size_t n) override {
        check(gcm_reset(s_.get()), "gcm_reset");
        check(gcm_add_iv(s_.get(), iv, n), "gcm_add_iv");
    }
    void aad(const uint8_t* a, size_t n) override { if (n) check(gcm_add_aad(s_.get(), a, n), "gcm_add_aad"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        // gcm_process(state, pt, len, ct, direction): decryption reads ct, writes pt.
        if (enc_) check(gcm_process(s_.get(), const_cast<uint8_t*>(in), n, out, GCM_ENCRYPT), "gcm_process");
        else check(gcm_process(s_.get(), out, n, const_cast<uint8_t*>(in), GCM_DECRYPT), "gcm_process");
    }
    bool finish(uint8_t* tag) override {
        uint8_t t[16];
        unsigned long tl = sizeof t;
        check(gcm_done(s_.get(), t, &tl), "gcm_done");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_ok(t, tag, 16);
    }
private:
    int idx_;
    bool enc_;
    std::unique_ptr<gcm_state> s_;  // 68 KiB of GHASH tables
};

// CCM needs the message and AAD lengths before it starts (they are in B_0),
// and tomcrypt's ccm_memory needs the tag before it decrypts: a one-shot
// AEAD (cb::OneShotAead). The key schedule is kept in a symmetric_key and
// passed to ccm_memory, so no message re-keys.
class CcmCipher : public cb::OneShotAead {
public:
    CcmCipher(int idx, cb::Direction d)
        : OneShotAead(d, 16, "CCM needs the message length before the data (B_0): a message is one update()"),
          idx_(idx) {}
    ~CcmCipher() override { if (keyed_) cipher_descriptor[idx_].done(&key_); }
    void set_key(const uint8_t* k, size_t n) override {
        if (keyed_) cipher_descriptor[idx_].done(&key_);
        keyed_ = false;
        check(cipher_descriptor[idx_].setup(k, int(n), 0, &key_), "setup");
        keyed_ = true;
    }
private:
    void seal(const uint8_t* in, uint8_t* out, size_t n, uint8_t* tag) override {
        run(const_cast<uint8_t*>(in), out, n, tag, CCM_ENCRYPT);
    }
    bool open(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* tag) override {
        uint8_t t[16];
        std::memcpy(t, tag, 16);
        return run(out, const_cast<uint8_t*>(in), n, t, CCM_DECRYPT);
    }
    // ccm_memory(pt, ct, dir): encryption reads pt and writes ct, decryption the reverse.
    bool run(uint8_t* pt, uint8_t* ct, size_t n, uint8_t* tag, int dir) {
        unsigned long tl = 16;
        int err = ccm_memory(idx_, nullptr, 0, &key_, nonce(), nonce_len(), ad(), ad_len(), pt, n, ct, tag, &tl, dir);
        if (dir == CCM_DECRYPT && err == CRYPT_ERROR) return false;  // tag mismatch (output zeroed)
        check(err, "ccm_memory");
        return true;
    }
    int idx_;
    bool keyed_ = false;
    symmetric_key key_{};
};

// OCB3 (RFC 7253). ocb3_init is the only way to set a nonce and it runs the
// key schedule, so every message re-keys (what the API forces; README.md).
// ocb3_encrypt takes whole blocks and is not in-place safe (it folds pt into
// the checksum after writing ct), and a final partial block is processed
// differently: this class runs blocks through a scratch buffer and holds back
// a trailing partial block until the next update() or finish() writes it.
class OcbCipher : public cb::Cipher {
public:
    OcbCipher(int idx, bool enc) : idx_(idx), enc_(enc) {}
    void set_key(const uint8_t* k, size_t n) override {
        key_.assign(k, k + n);
        check(ocb3_init(&s_, idx_, k, n, kZero, 12, 16), "ocb3_init");  // validates and times the schedule
    }
    void start(const uint8_t* iv, size_t n) override {
        check(ocb3_init(&s_, idx_, key_.data(), key_.size(), iv, n, 16), "ocb3_init");
        pend_ = nseg_ = 0;
    }
    void aad(const uint8_t* a, size_t n) override { if (n) check(ocb3_add_aad(&s_, a, n), "ocb3_add_aad"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        if (pend_) {  // complete the held partial block first
            size_t take = std::min(n, size_t(16) - pend_);
            if (take) hold(in, out, take);
            if (pend_ < 16) return;
            uint8_t o[16];
            blocks(pbuf_, o, 16);
            release(o);
            in += take; out += take; n -= take;
        }
        size_t whole = n & ~size_t(15);
        for (size_t i = 0; i < whole;) {
            size_t c = std::min(whole - i, sizeof scratch_);
            std::memcpy(scratch_, in + i, c);
            blocks(scratch_, out + i, c);
            i += c;
        }
        if (n > whole) hold(in + whole, out + whole, n - whole);
    }
    bool finish(uint8_t* tag) override {
        uint8_t o[16];
        if (enc_) check(ocb3_encrypt_last(&s_, pend_ ? pbuf_ : nullptr, pend_, o), "ocb3_encrypt_last");
        else check(ocb3_decrypt_last(&s_, pend_ ? pbuf_ : nullptr, pend_, o), "ocb3_decrypt_last");
        release(o);
        uint8_t t[16];
        unsigned long tl = sizeof t;
        check(ocb3_done(&s_, t, &tl), "ocb3_done");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_ok(t, tag, 16);
    }
private:
    void blocks(const uint8_t* in, uint8_t* out, size_t n) {
        check(enc_ ? ocb3_encrypt(&s_, in, n, out) : ocb3_decrypt(&s_, in, n, out), "ocb3");
    }
    // Holds n input bytes of the current partial block; their output goes to out.
    void hold(const uint8_t* in, uint8_t* out, size_t n) {
        std::memcpy(pbuf_ + pend_, in, n);
        seg_[nseg_++] = {out, n};
        pend_ += n;
    }
    // Writes the processed held bytes to where each update() wanted them.
    void release(const uint8_t* o) {
        size_t at = 0;
        for (size_t i = 0; i < nseg_; ++i) {
            std::memcpy(seg_[i].first, o + at, seg_[i].second);
            at += seg_[i].second;
        }
        pend_ = nseg_ = 0;
    }
    int idx_;
    bool enc_;
    ocb3_state s_{};
    std::vector<uint8_t> key_;
    uint8_t scratch_[4096];
    uint8_t pbuf_[16];
    size_t pend_ = 0, nseg_ = 0;
    std::pair<uint8_t*, size_t> seg_[16];
};

// EAX: eax_init takes key and nonce together (it keys OMAC and CTR, several
// key schedules), so every message re-keys (what the API forces; README.md).
class EaxCipher : public cb::Cipher {
public:
    EaxCipher(int idx, bool enc) : idx_(idx), enc_(enc) {}
    void set_key(const uint8_t* k, size_t n) override {
        key_.assign(k, k + n);
        check(eax_init(&s_, idx_, k, n, kZero, 16, nullptr, 0), "eax_init");
    }
    void start(const uint8_t* iv, size_t n) override {
        check(eax_init(&s_, idx_, key_.data(), key_.size(), iv, n, nullptr, 0), "eax_init");
    }
    void aad(const uint8_t* a, size_t n) override { if (n) check(eax_addheader(&s_, a, n), "eax_addheader"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        check(enc_ ? eax_encrypt(&s_, in, out, n) : eax_decrypt(&s_, in, out, n), "eax");
    }
    bool finish(uint8_t* tag) override {
        uint8_t t[16];
        unsigned long tl = sizeof t;
        check(eax_done(&s_, t, &tl), "eax_done");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_ok(t, tag, 16);
    }
private:
    int idx_;
    bool enc_;
    eax_state s_{};
    std::vector<uint8_t> key_;
};

// ------------------------------------------------------------------ streams
class ChachaCipher : public cb::Cipher {
public:
    ~ChachaCipher() override { chacha_done(&s_); }
    void set_key(const uint8_t* k, size_t n) override { check(chacha_setup(&s_, k, n, 20), "chacha_setup"); }
    void start(const uint8_t* iv, size_t n) override { check(chacha_ivctr32(&s_, iv, n, 0), "chacha_ivctr32"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;  // LTC_ARGCHK aborts on NULL buffers
        check(chacha_crypt(&s_, in, n, out), "chacha_crypt");
    }
private:
    chacha_state s_{};
};

// RC4 has no IV: every message restarts the keystream from the keyed state,
// which start() copies back (256 bytes) instead of re-running the schedule.
class Rc4Cipher : public cb::Cipher {
public:
    void set_key(const uint8_t* k, size_t n) override { check(rc4_stream_setup(&keyed_, k, n), "rc4_stream_setup"); }
    void start(const uint8_t*, size_t) override { s_ = keyed_; }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;  // LTC_ARGCHK aborts on NULL buffers
        check(rc4_stream_crypt(&s_, in, n, out), "rc4_stream_crypt");
    }
private:
    rc4_state keyed_{}, s_{};
};

// chacha20poly1305_done wipes the whole state, key included, so start()
// restores the keyed state (a copy of the key words) before setting the nonce.
class ChachaPolyCipher : public cb::Cipher {
public:
    explicit ChachaPolyCipher(bool enc) : enc_(enc) {}
    void set_key(const uint8_t* k, size_t n) override { check(chacha20poly1305_init(&keyed_, k, n), "chacha20poly1305_init"); }
    void start(const uint8_t* iv, size_t n) override {
        s_ = keyed_;
        check(chacha20poly1305_setiv(&s_, iv, n), "chacha20poly1305_setiv");
    }
    void aad(const uint8_t* a, size_t n) override { if (n) check(chacha20poly1305_add_aad(&s_, a, n), "chacha20poly1305_add_aad"); }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return; /* LTC_ARGCHK aborts on NULL */
        check(enc_ ? chacha20poly1305_encrypt(&s_, in, n, out) : chacha20poly1305_decrypt(&s_, in, n, out),
              "chacha20poly1305");
    }
    bool finish(uint8_t* tag) override {
        // libtomcrypt 1.18.2 bug: the AAD is zero-padded only by the first
        // non-empty encrypt/decrypt call, so a message with AAD and no text
        // gets a wrong tag. Pad here as later libtomcrypt's _done does.
        if (s_.aadflg) {
            static const uint8_t zeros[16] = {0};
            unsigned long pad = 16 - (unsigned long)(s_.aadlen % 16);
            if (pad < 16) check(poly1305_process(&s_.poly, zeros, pad), "poly1305_process");
            s_.aadflg = 0;
        }
        uint8_t t[16];
        unsigned long tl = sizeof t;
        check(chacha20poly1305_done(&s_, t, &tl), "chacha20poly1305_done");
        if (enc_) { std::memcpy(tag, t, 16); return true; }
        return tag_ok(t, tag, 16);
    }
private:
    bool enc_;
    chacha20poly1305_state keyed_{}, s_{};
};

// ------------------------------------------------------------------ hashes
class DescHash : public cb::Hash {
public:
    explicit DescHash(int idx) : d_(hash_descriptor[idx]) {}
    void init() override { check(d_.init(&s_), "hash init"); }
    void update(const uint8_t* in, size_t n) override { check(d_.process(&s_, in, n), "hash process"); }
    void final(uint8_t* out) override { check(d_.done(&s_, out), "hash done"); }
private:
    const ltc_hash_descriptor& d_;
    hash_state s_{};
};

class ShakeHash : public cb::Hash {
public:
    ShakeHash(int bits, size_t out) : bits_(bits), out_(out) {}
    void init() override { check(sha3_shake_init(&s_, bits_), "sha3_shake_init"); }
    void update(const uint8_t* in, size_t n) override { check(sha3_shake_process(&s_, in, n), "sha3_shake_process"); }
    void final(uint8_t* out) override { check(sha3_shake_done(&s_, out, out_), "sha3_shake_done"); }
private:
    int bits_;
    size_t out_;
    hash_state s_{};
};

// ------------------------------------------------------------------ the adapter
// Offers what its factories build and the shared start-up check passes (cb::ProbedAdapter).
class TomcryptAdapter : public cb::ProbedAdapter {
public:
    TomcryptAdapter() {
        check(register_all_ciphers(), "register_all_ciphers");
        check(register_all_hashes(), "register_all_hashes");
        probe_registry();
    }
    std::string name() const override { return "tomcrypt"; }
    std::string library() const override { return "libtomcrypt"; }
    std::string version() const override {
        // The library's own build-settings string starts "LibTomCrypt 1.18.2 (www.libtom.net)".
        std::string s = crypt_build_settings;
        s = s.substr(0, s.find('\n'));
        const std::string pre = "LibTomCrypt ";
        if (s.compare(0, pre.size(), pre) == 0) s = s.substr(pre.size());
        return s.substr(0, s.find(' '));
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        return {{"version_source", "crypt_build_settings (run time; header SCRYPT " SCRYPT ")"},
                {"aes", "portable C tables; libtomcrypt 1.18 has no AES-NI code"},
                {"gcm", "LTC_GCM_TABLES (8-bit GHASH tables), no PCLMUL"},
                {"per_message_rekey", "OCB3 and EAX: the API sets the nonce only together with the key"}};
    }


private:
    std::unique_ptr<cb::Cipher> make(const cb::Primitive& p, cb::Direction d) const override {
        const bool enc = d == cb::Direction::Encrypt;
        if (const char* s = cb::library_name(kStreams, p.name)) {
            const std::string n = s;
            if (n == "chacha") return std::make_unique<ChachaCipher>();
            if (n == "rc4") return std::make_unique<Rc4Cipher>();
            if (n == "chacha20poly1305") return std::make_unique<ChachaPolyCipher>(enc);
            return nullptr;
        }
        const char* fam = cb::library_name(kFamilies, p.family);
        const char* mode = cb::library_name(kModes, p.mode);
        if (!fam || !mode) return nullptr;
        for (const auto& [f, kb] : kOnlyKeyBytes)
            if (std::strcmp(f, p.family) == 0 && kb != p.key_bytes) return nullptr;
        int idx = find_cipher(fam);
        if (idx < 0) return nullptr;
        if (size_t(cipher_descriptor[idx].block_length) != p.block_bytes) return nullptr;
        const std::string m = mode;
        if (m == "ecb") return std::make_unique<EcbCipher>(idx, enc);
        if (m == "cbc") return std::make_unique<CbcCipher>(idx, enc);
        if (m == "cfb") return std::make_unique<CfbCipher>(idx, enc);
        if (m == "ofb") return std::make_unique<OfbCipher>(idx);
        if (m == "ctr") return std::make_unique<CtrCipher>(idx);
        if (m == "xts") return std::make_unique<XtsCipher>(idx, enc);
        if (m == "gcm") return std::make_unique<GcmCipher>(idx, enc);
        if (m == "ccm") return std::make_unique<CcmCipher>(idx, d);
        if (m == "ocb3") return std::make_unique<OcbCipher>(idx, enc);
        if (m == "eax") return std::make_unique<EaxCipher>(idx, enc);
        return nullptr;
    }

    std::unique_ptr<cb::Hash> make_hash(const cb::Primitive& p) const override {
        const char* h = cb::library_name(kHashes, p.name);
        if (!h) return nullptr;
        if (std::strcmp(h, "shake128") == 0) return std::make_unique<ShakeHash>(128, p.digest_bytes);
        if (std::strcmp(h, "shake256") == 0) return std::make_unique<ShakeHash>(256, p.digest_bytes);
        int idx = find_hash(h);
        if (idx < 0 || hash_descriptor[idx].hashsize != p.digest_bytes) return nullptr;
        return std::make_unique<DescHash>(idx);
    }

    // libtomcrypt 1.18 is C throughout: no AES-NI, no PCLMUL, no assembly (its inline
    // rotates are baseline x86-64 instructions).
    cb::Path provider(const cb::Primitive& p) const override {
        const std::string f = p.family;
        const cb::Features portable = cb::Feature::Portable;
        if (f == "aes") {
            std::string m = p.mode;
            return {m == "gcm" ? "portable C tables (no AES-NI), GHASH 8-bit tables (no PCLMUL)"
                               : "portable C tables (no AES-NI)", portable};
        }
        if (*p.mode && std::strcmp(p.mode, "gcm") == 0) return {"portable C, GHASH 8-bit tables", portable};
        if (f == "twofish") return {"portable C (LTC_TWOFISH_TABLES)", portable};
        return {"portable C", portable};
    }


};

}  // namespace

CB_ADAPTER_FACTORY(tomcrypt) { return std::make_unique<TomcryptAdapter>(); }
