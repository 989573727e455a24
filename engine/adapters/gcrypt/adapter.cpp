// libgcrypt through gcry_cipher_* and gcry_md_*. Each context opens its
// handle once; set_key() is gcry_cipher_setkey, start() sets the IV / counter
// (or, for RC4 and SIV, restores the post-setkey state with gcry_cipher_reset,
// which copies the saved key schedule). See README.md.
#include <cstring>
#include <string>

#include <gcrypt.h>

#include "cipherbench/adapter.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

// Modes an older libgcrypt lacks (Debian 11 has 1.8.7): manifest.toml's tables leave them out, so
// these stand-ins, which no handle ever has, only keep the comparisons below compiling.
#if GCRYPT_VERSION_NUMBER < 0x010900
constexpr int GCRY_CIPHER_MODE_SIV = -1, GCRY_CIPHER_MODE_EAX = -3;
#endif
#if GCRYPT_VERSION_NUMBER < 0x010a00
constexpr int GCRY_CIPHER_MODE_GCM_SIV = -2;
#endif

// Canonical registry names -> libgcrypt algorithm and mode IDs. The adapter
// offers every registry primitive that maps here, that libgcrypt opens at run
// time, and that passes a smoke test on this machine.
//
// Block ciphers: registry family-keybits -> GCRY_CIPHER_*. libgcrypt IDs carry
// the key length (P12): there is no Twofish-192. Variant notes:
//  - 3des-112: libgcrypt's 3DES takes 24-byte keys only; the adapter keys it
//    with K1 || K2 || K1, which is two-key EDE by definition.
//  - rc2: RFC2268_128 keys with effective key bits = key bits (RFC 2268 vectors pass).
//  - gost: GOST28147 defaults to the test parameter set of GOST R 34.11-94
//    (the registry's); GOST28147_MESH (CryptoPro key meshing) is not offered.
//  - blowfish: libgcrypt takes 16-byte (128) and 56-byte (448) keys.
struct CipherId {
    const char* name;  // family-keybits, or the stream/AEAD name
    int algo;
    const char* hw;    // hwf flags libgcrypt 1.10 has x86-64 code for (see README)
};


// Hashes. GCRY_MD_TIGER is the byte-swapped GnuPG variant; TIGER1 is Tiger/192
// with the original 0x01 padding (TIGER2 would be the 0x80 padding).
// SHAKE128/256 are XOFs read with gcry_md_extract.
struct HashId {
    const char* name;
    int algo;
    const char* hw;
};
#include "names.inc"  // the name tables, generated from manifest.toml

void check(gcry_error_t e, const char* what) {
    if (e) throw cb::Error(std::string("libgcrypt ") + what + ": " + gcry_strerror(e));
}

// A cipher (algo, mode) or a hash (algo), and the hardware features
// libgcrypt has code paths for in it.
struct Recipe {
    int algo = 0, mode = 0;
    std::string hw;
};

// One libgcrypt cipher handle, opened once and keyed the registry's way.
class Handle {
public:
    Handle(const Recipe& r, const cb::Primitive& p) {
        check(gcry_cipher_open(&h_, r.algo, r.mode, 0), "gcry_cipher_open");
        two_key_3des_ = r.algo == GCRY_CIPHER_3DES && p.key_bytes == 16;
        // DES and 3DES refuse weak keys unless told otherwise; the registry's
        // DES is defined for every key (and the other libraries accept them).
#if GCRYPT_VERSION_NUMBER >= 0x010900  // GCRYCTL_SET_ALLOW_WEAK_KEY: libgcrypt 1.9; 1.8 refuses them
        if (r.algo == GCRY_CIPHER_DES || r.algo == GCRY_CIPHER_3DES) {
            check(gcry_cipher_ctl(h_, GCRYCTL_SET_ALLOW_WEAK_KEY, nullptr, 1), "SET_ALLOW_WEAK_KEY");
            weak_ok_ = true;
        }
#endif
    }
    ~Handle() { gcry_cipher_close(h_); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    gcry_cipher_hd_t get() const { return h_; }

    void set_key(const uint8_t* key, size_t len) {
        if (two_key_3des_) {
            uint8_t k[24];
            std::memcpy(k, key, 16);
            std::memcpy(k + 16, key, 8);  // K1 || K2 || K1
            setkey(k, 24);
            return;
        }
        setkey(key, len);
    }
    // Encrypts or decrypts; in == out is libgcrypt's in-place form (NULL input).
    gcry_error_t run(bool enc, uint8_t* out, const uint8_t* in, size_t len) {
        if (in == out) return enc ? gcry_cipher_encrypt(h_, out, len, nullptr, 0) : gcry_cipher_decrypt(h_, out, len, nullptr, 0);
        return enc ? gcry_cipher_encrypt(h_, out, len, in, len) : gcry_cipher_decrypt(h_, out, len, in, len);
    }
    void crypt(bool enc, uint8_t* out, const uint8_t* in, size_t len) { check(run(enc, out, in, len), enc ? "encrypt" : "decrypt"); }

private:
    void setkey(const uint8_t* key, size_t len) {
        gcry_error_t e = gcry_cipher_setkey(h_, key, len);
        if (weak_ok_ && gpg_err_code(e) == GPG_ERR_WEAK_KEY) return;  // reported, but keyed
        check(e, "setkey");
    }

    gcry_cipher_hd_t h_ = nullptr;
    bool two_key_3des_ = false, weak_ok_ = false;
};

// How the adapter drives a streaming mode's message.
enum class Flow {
    Plain,     // ECB, CBC, CFB, CFB8, OFB, CTR and streams
    Xts,       // XTS: one call per data unit
    Stream,    // GCM, EAX, ChaCha20-Poly1305: any lengths
    Ocb,       // OCB: whole blocks until gcry_cipher_final, then one last call
};

class GcryCipher : public cb::Cipher {
public:
    GcryCipher(const Recipe& r, const cb::Primitive& p, cb::Direction d) : p_(p), enc_(d == cb::Direction::Encrypt), h_(r, p) {
        switch (r.mode) {
            case GCRY_CIPHER_MODE_GCM: case GCRY_CIPHER_MODE_EAX: case GCRY_CIPHER_MODE_POLY1305: flow_ = Flow::Stream; break;
            case GCRY_CIPHER_MODE_OCB: flow_ = Flow::Ocb; break;
            case GCRY_CIPHER_MODE_XTS: flow_ = Flow::Xts; break;
            default: flow_ = Flow::Plain;
        }
        ctr_ = r.mode == GCRY_CIPHER_MODE_CTR;
        // libgcrypt 1.10's EAX keeps MAC state across setiv(): a reused handle
        // gives wrong tags unless it is reset (to the post-setkey state) first.
        reset_before_iv_ = r.mode == GCRY_CIPHER_MODE_EAX;
        // ARCFOUR has no IV: a new message restarts the keystream from the key.
        reset_on_start_ = r.algo == GCRY_CIPHER_ARCFOUR;
    }
    // XTS takes a data unit in one call.
    bool streams() const override { return flow_ != Flow::Xts; }

    void set_key(const uint8_t* key, size_t len) override { h_.set_key(key, len); }

    void start(const uint8_t* iv, size_t len) override {
        closed_ = false;
        if (reset_before_iv_ || reset_on_start_) check(gcry_cipher_reset(h_.get()), "reset");
        if (reset_on_start_ || !len) return;
        if (ctr_) check(gcry_cipher_setctr(h_.get(), iv, len), "setctr");
        else check(gcry_cipher_setiv(h_.get(), iv, len), "setiv");
    }

    void aad(const uint8_t* a, size_t len) override { check(gcry_cipher_authenticate(h_.get(), a, len), "authenticate"); }

    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (closed_) throw cb::Unsupported(std::string(p_.name) + " (libgcrypt): " + closed_why_);
        switch (flow_) {
            case Flow::Plain:
            case Flow::Stream:
                break;
            case Flow::Xts:
                // A second call would neither continue the data unit's tweak
                // sequence nor restart it.
                close("one update per message (libgcrypt's XTS takes a data unit in one call)");
                break;
            case Flow::Ocb:
                // Only the last piece may be partial, and it must follow gcry_cipher_final.
                if (len % 16) {
                    check(gcry_cipher_final(h_.get()), "final");
                    close("a piece that is not a multiple of 16 bytes ends the message's data");
                }
                break;
        }
        h_.crypt(enc_, out, in, len);
    }

    bool finish(uint8_t* tag) override {
        const size_t t = p_.tag_bytes;
        switch (flow_) {
            case Flow::Plain:
            case Flow::Xts:
                return true;
            case Flow::Ocb:
                if (!closed_) {
                    check(gcry_cipher_final(h_.get()), "final");
                    h_.crypt(enc_, nullptr, nullptr, 0);
                }
                break;
            case Flow::Stream:
                break;
        }
        close("the message is finished");
        if (enc_) {
            check(gcry_cipher_gettag(h_.get(), tag, t), "gettag");
            return true;
        }
        gcry_error_t e = gcry_cipher_checktag(h_.get(), tag, t);
        if (gpg_err_code(e) == GPG_ERR_CHECKSUM) return false;
        check(e, "checktag");
        return true;
    }

private:
    void close(const char* why) {
        closed_ = true;
        closed_why_ = why;
    }

    const cb::Primitive& p_;
    bool enc_;
    Handle h_;
    Flow flow_ = Flow::Plain;
    bool ctr_ = false, reset_on_start_ = false, reset_before_iv_ = false;
    bool closed_ = false;
    const char* closed_why_ = "";
};

// CCM, SIV and GCM-SIV take a message in one call (cb::OneShotAead): CCM
// needs the lengths before the associated data, SIV the associated data
// before the nonce, and SIV and GCM-SIV decryption the tag before the data.
class GcryOneShot : public cb::OneShotAead {
public:
    GcryOneShot(const Recipe& r, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      std::string(p.name) + " (libgcrypt): one update per message (" +
                          (r.mode == GCRY_CIPHER_MODE_CCM ? "CCM needs the message length before the data)"
                                                          : "libgcrypt takes SIV and GCM-SIV messages in one call)")),
          mode_(r.mode), h_(r, p) {}
    void set_key(const uint8_t* key, size_t len) override { h_.set_key(key, len); }

private:
    // Everything before the data of a len-byte message; dec_tag: the expected
    // tag, which SIV and GCM-SIV decryption take before the data.
    void begin(size_t len, const uint8_t* dec_tag) {
        gcry_cipher_hd_t h = h_.get();
        if (mode_ == GCRY_CIPHER_MODE_CCM) {
            check(gcry_cipher_setiv(h, nonce(), nonce_len()), "setiv");
            uint64_t lengths[3] = {len, ad_len(), tag_bytes()};
            check(gcry_cipher_ctl(h, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths), "SET_CCM_LENGTHS");
            if (ad_len()) check(gcry_cipher_authenticate(h, ad(), ad_len()), "authenticate");
            return;
        }
        // reset() drops the last message's state (SIV's S2V components).
        check(gcry_cipher_reset(h), "reset");
        if (mode_ == GCRY_CIPHER_MODE_SIV) {
            // The registry's S2V(AD, N, P): exactly one AD component, even an
            // empty one (gcry_cipher_authenticate with length 0 adds it),
            // then the nonce as the last component.
            static const uint8_t none[1] = {0};  // NULL is refused even with length 0
            check(gcry_cipher_authenticate(h, ad_len() ? ad() : none, ad_len()), "authenticate");
            check(gcry_cipher_setiv(h, nonce(), nonce_len()), "setiv");
        } else {
            check(gcry_cipher_setiv(h, nonce(), nonce_len()), "setiv");
            if (ad_len()) check(gcry_cipher_authenticate(h, ad(), ad_len()), "authenticate");
        }
#if GCRYPT_VERSION_NUMBER >= 0x010900  // SIV and GCM-SIV only, which 1.8 lacks
        if (dec_tag) check(gcry_cipher_set_decryption_tag(h, dec_tag, tag_bytes()), "set_decryption_tag");
#endif
        check(gcry_cipher_final(h), "final");
    }
    void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) override {
        begin(len, nullptr);
        if (len) h_.crypt(true, out, in, len);
        check(gcry_cipher_gettag(h_.get(), tag, tag_bytes()), "gettag");
    }
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) override {
        const bool ccm = mode_ == GCRY_CIPHER_MODE_CCM;
        begin(len, ccm ? nullptr : tag);
        gcry_error_t e = 0;
        if (ccm) {
            if (len) h_.crypt(false, out, in, len);
            e = gcry_cipher_checktag(h_.get(), tag, tag_bytes());
        } else {
            e = h_.run(false, out, in, len);
        }
        if (gpg_err_code(e) == GPG_ERR_CHECKSUM) return false;
        check(e, ccm ? "checktag" : "decrypt");
        return true;
    }

    int mode_;
    Handle h_;
};

class GcryHash : public cb::Hash {
public:
    GcryHash(int algo, size_t n) : algo_(algo), n_(n) {
        check(gcry_md_open(&h_, algo, 0), "gcry_md_open");
        xof_ = algo == GCRY_MD_SHAKE128 || algo == GCRY_MD_SHAKE256;
    }
    ~GcryHash() override { gcry_md_close(h_); }
    void init() override { gcry_md_reset(h_); }
    void update(const uint8_t* in, size_t len) override { gcry_md_write(h_, in, len); }
    void final(uint8_t* d) override {
        if (xof_) { check(gcry_md_extract(h_, algo_, d, n_), "gcry_md_extract"); return; }
        const unsigned char* r = gcry_md_read(h_, algo_);
        if (!r) throw cb::Error("libgcrypt gcry_md_read failed");
        std::memcpy(d, r, n_);
    }

private:
    int algo_;
    size_t n_;
    gcry_md_hd_t h_ = nullptr;
    bool xof_ = false;
};

class GcryptAdapter : public cb::Adapter {
public:
    GcryptAdapter() {
        // P6: gcry_check_version initialises the library. Another part of the
        // process may have done so already; then only the version is read.
        if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
            version_ = gcry_check_version(nullptr);
            gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
            gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        } else {
            version_ = gcry_check_version(nullptr);
        }
        if (char* c = gcry_get_config(0, "hwflist")) {
            // "hwflist:intel-cpu:intel-bmi2:...:" -> the flag names
            std::string s = c;
            gcry_free(c);
            if (s.rfind("hwflist:", 0) == 0) s = s.substr(8);
            size_t at = 0;
            while ((at = s.find(':')) != std::string::npos) {
                if (at) hwf_.push_back(s.substr(0, at));
                s = s.substr(at + 1);
            }
        }
        offered_.probe_registry(*this, [this](const cb::Primitive& p, Recipe& r) { return recipe_for(p, r); },
                                [this](const cb::Primitive& p, const Recipe& r) { return provider(r.hw.c_str(), p); });
    }

    std::string name() const override { return "gcrypt"; }
    std::string library() const override { return "libgcrypt"; }
    std::string version() const override { return version_; }
    std::vector<cb::Offer> offers() const override { return offered_.offers(); }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const Recipe* r = offered_.find(p.name);
        if (!r || p.kind == cb::Kind::Hash) return Adapter::cipher(p, d);
        if (r->mode == GCRY_CIPHER_MODE_CCM || r->mode == GCRY_CIPHER_MODE_SIV || r->mode == GCRY_CIPHER_MODE_GCM_SIV)
            return std::make_unique<GcryOneShot>(*r, p, d);
        return std::make_unique<GcryCipher>(*r, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const Recipe* r = offered_.find(p.name);
        if (!r || p.kind != cb::Kind::Hash) return Adapter::hash(p);
        return std::make_unique<GcryHash>(r->algo, p.digest_bytes);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::string h;
        for (const auto& f : hwf_) h += (h.empty() ? "" : " ") + f;
        std::string fips = gcry_fips_mode_active() ? "yes" : "no";
        return {{"hwflist", h}, {"fips_mode", fips}};
    }

private:
    bool has(const std::string& f) const {
        for (const auto& x : hwf_) if (x == f) return true;
        return false;
    }

    // A hwf flag of the adapter's tables -> the protocol's features; nullopt-like Unknown
    // for a flag this table does not know.
    static cb::Features feature_of(const std::string& f) {
        using cb::Feature;
        if (f == "intel-aesni") return Feature::AesNi;
        if (f == "intel-vaes-vpclmul") return Feature::Vaes | Feature::Vpclmul;
        if (f == "intel-pclmul") return Feature::Pclmul;
        if (f == "intel-shaext") return Feature::ShaNi;
        if (f == "intel-avx") return Feature::Avx;
        if (f == "intel-avx2") return Feature::Avx2;
        if (f == "intel-ssse3") return Feature::Ssse3;
        if (f == "intel-bmi2") return Feature::Bmi2;
        return {};
    }

    // The hardware features libgcrypt reports as enabled that its 1.10 code
    // has paths for in this algorithm (libgcrypt does not report which path
    // a handle picked): the features announced are those. With none, libgcrypt's
    // generic code runs, C or plain amd64 assembly (twofish-amd64.S): unknown.
    cb::Path provider(const char* hw, const cb::Primitive& p) const {
        std::string used;
        cb::Features features = cb::Feature::Portable;
        std::string list = hw;
        if (std::strcmp(p.mode, "gcm") == 0 || std::strcmp(p.mode, "gcmsiv") == 0) list += " intel-pclmul";
        size_t at = 0;
        while (at < list.size()) {
            size_t end = list.find(' ', at);
            if (end == std::string::npos) end = list.size();
            std::string f = list.substr(at, end - at);
            if (!f.empty() && has(f) && used.find(f) == std::string::npos) {
                used += (used.empty() ? "" : " ") + f;
                features |= feature_of(f);
            }
            at = end + 1;
        }
        if (used.empty()) features = cb::Features{};
        std::string s = used.empty() ? "libgcrypt generic code (no CPU-feature dispatch)" : "libgcrypt hwf " + used;
        if (std::strcmp(p.mode, "ecb") == 0 && std::strcmp(p.family, "aes") == 0)
            s += " (ECB: one block per call, no bulk path in 1.10)";
        if (std::strcmp(p.mode, "ccm") == 0) s += "; one update per message (CCM needs the length first)";
        if (std::strcmp(p.mode, "xts") == 0) s += "; one update per message (a data unit per call)";
        if (std::strcmp(p.mode, "siv") == 0 || std::strcmp(p.mode, "gcmsiv") == 0)
            s += "; one-call API: one update per message, decryption output written at finish";
        if (std::strcmp(p.family, "3des") == 0 && p.key_bytes == 16) s += "; 3DES keyed K1||K2||K1";
        return {s, features};
    }

    // What libgcrypt would run for p, if it has p at all (gcry_*_test_algo).
    bool recipe_for(const cb::Primitive& p, Recipe& r) const {
        if (p.kind == cb::Kind::Hash) {
            for (const auto& hid : kHashes) {
                if (std::strcmp(hid.name, p.name) != 0) continue;
                if (gcry_md_test_algo(hid.algo)) return false;
                const bool xof = hid.algo == GCRY_MD_SHAKE128 || hid.algo == GCRY_MD_SHAKE256;
                if (!xof && gcry_md_get_algo_dlen(hid.algo) != p.digest_bytes) return false;
                r = {hid.algo, 0, hid.hw};
                return true;
            }
            return false;
        }
        std::string key = p.name;
        int mode = GCRY_CIPHER_MODE_STREAM;
        if (p.kind == cb::Kind::Aead && !*p.mode) mode = GCRY_CIPHER_MODE_POLY1305;
        if (*p.mode) {
            const size_t bits = (std::strcmp(p.mode, "xts") == 0 || std::strcmp(p.mode, "siv") == 0) ? p.key_bytes * 4 : p.key_bytes * 8;
            const std::string fam = p.family;
            key = fam + "-" + std::to_string(fam == "des" ? 56 : fam == "3des" ? (p.key_bytes == 16 ? 112 : 168) : bits);
            mode = -1;
            for (const auto& [reg, m] : kModes)
                if (std::strcmp(reg, p.mode) == 0) mode = m;
            if (mode < 0) return false;
        }
        for (const auto& c : kCiphers)
            if (key == c.name) {
                r = {c.algo, mode, c.hw};
                return !gcry_cipher_test_algo(c.algo);
            }
        return false;
    }

    std::string version_;
    std::vector<std::string> hwf_;
    cb::Offered<Recipe> offered_;
};

}  // namespace

CB_ADAPTER_FACTORY(gcrypt) { return std::make_unique<GcryptAdapter>(); }
