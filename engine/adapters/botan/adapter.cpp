// Botan 2 through its factories (BlockCipher, StreamCipher, Cipher_Mode,
// HashFunction::create). Each context creates its Botan object once; start()
// only sets the nonce, set_key() only runs the key schedule. See README.md
// for the quirks this file works around.
#include <cstring>
#include <string>

#include <botan/build.h>  // BOTAN_VERSION_MAJOR

#include <botan/aead.h>
#include <botan/block_cipher.h>
#include <botan/cipher_mode.h>
#include <botan/exceptn.h>
#include <botan/hash.h>
#include <botan/stream_cipher.h>
#include <botan/version.h>
#if BOTAN_VERSION_MAJOR < 3
#include <botan/cpuid.h>  // internal from Botan 3 on
#endif

#include "cipherbench/adapter.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

// Botan 3 (Debian 13 and later; built with C++20, manifest.toml's first probe) renamed the cipher
// directions and keeps CPUID internal; algorithms it dropped are simply not created
// (BlockCipher::create & co. return null), so they are not offered.
#if BOTAN_VERSION_MAJOR >= 3
constexpr auto kEncrypt = Botan::Cipher_Dir::Encryption;
constexpr auto kDecrypt = Botan::Cipher_Dir::Decryption;
#else
constexpr auto kEncrypt = Botan::ENCRYPTION;
constexpr auto kDecrypt = Botan::DECRYPTION;
#endif

// How the adapter drives a mode: Botan has no ECB object (BlockCipher::encrypt_n
// over the blocks); OFB and CTR are StreamCipher objects; the rest are
// Cipher_Mode objects. "%" stands for the block cipher's name.
enum class Drive { Ecb, Stream, Mode, Aead, OneShotAead };
struct ModeName {
    const char* mode;
    const char* pattern;
    Drive drive;
    // Aead: bytes per process() call except the last (0 = update_granularity()).
    // Botan's GCM and OCB assert on multiples of update_granularity() (64 and
    // 256); its EAX and ChaCha20Poly1305 process any length.
    size_t granularity;
    // Aead: Botan keeps the associated data for the next messages until reset() or
    // set_key() (botan/aead.h: "if the AD does not change, calling once (after
    // set_key) is the optimum"), and a finished message needs no reset() before the
    // next start(). Left false for EAX, which refuses new associated data until reset().
    bool ad_kept = false;
};
#include "names.inc"  // the name tables, generated from manifest.toml

// Everything the adapter needs to build one primitive.
struct Recipe {
    Drive drive;
    std::string cipher;  // Botan BlockCipher name ("" for streams and ChaCha20Poly1305)
    std::string spec;    // what is created (BlockCipher, StreamCipher or Cipher_Mode name)
    size_t granularity = 0;
    bool desx_key = false;  // reorder the key (see manifest.toml)
    bool siv = false;       // tag is the synthetic IV, put in front by Botan
    bool ad_kept = false;   // Aead: see ModeName::ad_kept (manifest.toml)
};

std::string fill(const char* pattern, const std::string& cipher) {
    std::string s = pattern;
    auto at = s.find('%');
    if (at != std::string::npos) s.replace(at, 1, cipher);
    return s;
}

[[noreturn]] void rethrow(const char* what, const std::exception& e) {
    // Not_Implemented: something Botan does not do.
    if (dynamic_cast<const Botan::Not_Implemented*>(&e))
        throw cb::Unsupported(std::string("Botan ") + what + ": " + e.what());
    throw cb::Error(std::string("Botan ") + what + ": " + e.what());
}

// Registry DESX key (DES key || pre-whitening || post-whitening) -> Botan's
// (pre-whitening || DES key || post-whitening).
void desx_order(const uint8_t* key, uint8_t* out) {
    std::memcpy(out, key + 8, 8);
    std::memcpy(out + 8, key, 8);
    std::memcpy(out + 16, key + 16, 8);
}

template <class Obj>
void keyed(Obj& obj, const Recipe& r, const uint8_t* key, size_t len) {
    try {
        if (r.desx_key && len == 24) {
            uint8_t k[24];
            desx_order(key, k);
            obj.set_key(k, 24);
        } else {
            obj.set_key(key, len);
        }
    } catch (const std::exception& e) { rethrow("set_key", e); }
}

// ECB: Botan has no ECB mode object; encrypt_n over the blocks is its multi-block API.
class EcbCipher : public cb::Cipher {
public:
    EcbCipher(const Recipe& r, cb::Direction d) : r_(r), enc_(d == cb::Direction::Encrypt) {
        bc_ = Botan::BlockCipher::create(r.spec);
        if (!bc_) throw cb::Unsupported("Botan has no " + r.spec);
        bs_ = bc_->block_size();
    }
    void set_key(const uint8_t* key, size_t len) override { keyed(*bc_, r_, key, len); }
    void start(const uint8_t*, size_t) override {}
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (enc_) bc_->encrypt_n(in, out, len / bs_);
        else bc_->decrypt_n(in, out, len / bs_);
    }

private:
    const Recipe& r_;
    bool enc_;
    std::unique_ptr<Botan::BlockCipher> bc_;
    size_t bs_ = 0;
};

// Stream ciphers and the OFB/CTR-BE stream modes.
class StreamCipher : public cb::Cipher {
public:
    explicit StreamCipher(const Recipe& r) : r_(r) {
        sc_ = Botan::StreamCipher::create(r.spec);
        if (!sc_) throw cb::Unsupported("Botan has no " + r.spec);
        rekey_on_start_ = sc_->default_iv_length() == 0;  // RC4
    }
    void set_key(const uint8_t* key, size_t len) override {
        keyed(*sc_, r_, key, len);
        if (rekey_on_start_) key_.assign(key, key + len);
    }
    void start(const uint8_t* iv, size_t len) override {
        try {
            // RC4 takes no IV; a new message restarts the keystream, which
            // for RC4 means running its key schedule again.
            if (rekey_on_start_) sc_->set_key(key_.data(), key_.size());
            else sc_->set_iv(iv, len);
        } catch (const std::exception& e) { rethrow("set_iv", e); }
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override { sc_->cipher(in, out, len); }

private:
    const Recipe& r_;
    std::unique_ptr<Botan::StreamCipher> sc_;
    bool rekey_on_start_ = false;
    std::vector<uint8_t> key_;
};

// CBC, CFB, CFB(8), XTS: Cipher_Mode, processed in place.
class ModeCipher : public cb::Cipher {
public:
    ModeCipher(const Recipe& r, cb::Direction d) : r_(r) {
        m_ = Botan::Cipher_Mode::create(r.spec, d == cb::Direction::Encrypt ? kEncrypt : kDecrypt);
        if (!m_) throw cb::Unsupported("Botan has no " + r.spec);
    }
    void set_key(const uint8_t* key, size_t len) override { keyed(*m_, r_, key, len); }
    void start(const uint8_t* iv, size_t len) override {
        try { m_->start(iv, len); } catch (const std::exception& e) { rethrow("start", e); }
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (in != out) std::memmove(out, in, len);
        try {
            if (m_->process(out, len) != len) throw cb::Error("Botan " + r_.spec + " kept back part of the input");
        } catch (const cb::Error&) { throw; } catch (const std::exception& e) { rethrow("process", e); }
    }

private:
    const Recipe& r_;
    std::unique_ptr<Botan::Cipher_Mode> m_;
};

// Botan's AEAD object for a recipe.
std::unique_ptr<Botan::AEAD_Mode> make_aead(const Recipe& r, cb::Direction d) {
    auto m = Botan::Cipher_Mode::create(r.spec, d == cb::Direction::Encrypt ? kEncrypt : kDecrypt);
    std::unique_ptr<Botan::AEAD_Mode> a(dynamic_cast<Botan::AEAD_Mode*>(m.get()));
    if (!a) throw cb::Unsupported("Botan has no AEAD " + r.spec);
    m.release();
    return a;
}

// The one-shot AEADs (CCM, SIV; the streaming ones: AeadCipher::begin). Botan
// takes the associated data before start(), so a message begins only when the
// adapter has both. Every message after the first starts with reset(): SIV keeps
// its associated-data components across messages. SIV: the registry's
// S2V(AD, N, P) has exactly one AD component, empty or not, before the
// nonce; set_associated_data sets component 0.
void begin_message(Botan::AEAD_Mode& m, bool& used, const uint8_t* ad, size_t ad_len, const uint8_t* nonce,
                   size_t nonce_len) {
    try {
        if (used) m.reset();
        used = true;
        m.set_associated_data(ad, ad_len);
        m.start(nonce, nonce_len);
    } catch (const std::exception& e) { rethrow("start", e); }
}

// Streaming AEADs (GCM, OCB, EAX, ChaCha20Poly1305). start() only keeps the
// nonce; the message begins at the first update() or finish(). process()
// takes multiples of the granularity; a shorter rest ends the message's data,
// because only Botan's finish() takes a partial piece. Encryption then
// finishes at once and keeps the tag; decryption keeps the rest until
// finish() brings the tag. A later update() in that message is unsupported.
class AeadCipher : public cb::Cipher {
public:
    AeadCipher(const Recipe& r, const cb::Primitive& p, cb::Direction d)
        : r_(r), p_(p), enc_(d == cb::Direction::Encrypt), m_(make_aead(r, d)) {
        gran_ = r.granularity ? r.granularity : m_->update_granularity();
    }
    void set_key(const uint8_t* key, size_t len) override {
        keyed(*m_, r_, key, len);
        ad_set_ = false;  // a new key clears Botan's associated data
    }
    void start(const uint8_t* iv, size_t len) override {
        nonce_.assign(iv, iv + len);
        ad_.clear();
        begun_ = closed_ = pending_ = false;
    }
    void aad(const uint8_t* a, size_t len) override {
        if (begun_) throw cb::Error("associated data must come before the message data");
        ad_.insert(ad_.end(), a, a + len);  // the calls concatenate
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        begin();
        if (closed_)
            throw cb::Unsupported(std::string(p_.name) + " (Botan): a piece that is not a multiple of " +
                                  std::to_string(gran_) + " bytes ends the message's data");
        try {
            if (in != out) std::memmove(out, in, len);
            const size_t whole = len - len % gran_;
            if (whole) m_->process(out, whole);
            if (whole == len) return;
            closed_ = true;
            buf_.assign(out + whole, out + len);
            if (enc_) {
                m_->finish(buf_);
                open_ = false;
                std::memcpy(out + whole, buf_.data(), len - whole);
                std::memcpy(tag_, buf_.data() + (len - whole), p_.tag_bytes);
            } else {
                pending_ = true;
                out_ = out + whole;
            }
        } catch (const std::exception& e) { rethrow("process", e); }
    }
    bool finish(uint8_t* tag) override {
        begin();
        const size_t t = p_.tag_bytes;
        try {
            if (enc_) {
                if (!closed_) {
                    buf_.clear();
                    m_->finish(buf_);
                    open_ = false;
                    std::memcpy(tag_, buf_.data(), t);
                }
                std::memcpy(tag, tag_, t);
                begun_ = false;
                return true;
            }
            if (!pending_) buf_.clear();
            const size_t n = buf_.size();
            buf_.insert(buf_.end(), tag, tag + t);
            begun_ = false;
            try {
                m_->finish(buf_);
            } catch (const Botan::Integrity_Failure&) {
                return false;  // open_ stays: the next message starts from reset()
            }
            open_ = false;
            if (n) std::memcpy(out_, buf_.data(), n);
            return true;
        } catch (const std::exception& e) { rethrow("finish", e); }
    }

private:
    // The message begins as a sender's would: reset() only after a message left
    // unfinished (bulk timing, a failed tag) or for a mode whose associated data
    // Botan does not keep (ModeName::ad_kept), and the associated data set again
    // only when it differs from what Botan holds. Both before every message cost
    // 23 ns of a 200 ns AES-128-GCM message at 16 B (benchmarks/README.md), which
    // neither a sender with fixed associated data nor `botan speed` pays.
    void begin() {
        if (begun_) return;
        try {
            if (used_ && (open_ || !r_.ad_kept)) {
                m_->reset();
                ad_set_ = false;
            }
            if (!ad_set_ || ad_ != held_ad_) {
                m_->set_associated_data(ad_.data(), ad_.size());
                held_ad_ = ad_;
                ad_set_ = true;
            }
            m_->start(nonce_.data(), nonce_.size());
        } catch (const std::exception& e) { rethrow("start", e); }
        used_ = open_ = begun_ = true;
        closed_ = pending_ = false;
    }

    const Recipe& r_;
    const cb::Primitive& p_;
    bool enc_;
    std::unique_ptr<Botan::AEAD_Mode> m_;
    size_t gran_ = 1;
    std::vector<uint8_t> nonce_;
    std::vector<uint8_t> ad_;
    std::vector<uint8_t> held_ad_;  // the associated data Botan holds, where ad_set_
    bool begun_ = false, closed_ = false, pending_ = false, used_ = false;
    bool open_ = false;    // a message begun in Botan and not finished
    bool ad_set_ = false;  // held_ad_ is set in Botan (cleared by reset() and set_key())
    Botan::secure_vector<uint8_t> buf_;
    uint8_t* out_ = nullptr;
    uint8_t tag_[16] = {0};
};

// CCM and SIV: Botan itself buffers the whole message until finish(), so
// the adapter takes one update() per message (cb::OneShotAead). CCM's
// finish() gives C || T, SIV's T || C (the tag is the synthetic IV).
class OneShotCipher : public cb::OneShotAead {
public:
    OneShotCipher(const Recipe& r, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      std::string(p.name) + " (Botan): one update per message (Botan processes the whole message in finish)"),
          r_(r), m_(make_aead(r, d)) {}
    void set_key(const uint8_t* key, size_t len) override { keyed(*m_, r_, key, len); }

private:
    void begin() {
        if (r_.spec.find("/CCM") != std::string::npos && ad_len() >= 0xFF00)
            throw cb::Unsupported("Botan's CCM takes less than 65,280 bytes of associated data");
        begin_message(*m_, used_, ad(), ad_len(), nonce(), nonce_len());
    }
    void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) override {
        begin();
        buf_.assign(in, in + len);
        try { m_->finish(buf_); } catch (const std::exception& e) { rethrow("finish", e); }
        const size_t t = tag_bytes();
        std::memcpy(out, buf_.data() + (r_.siv ? t : 0), len);
        std::memcpy(tag, buf_.data() + (r_.siv ? 0 : len), t);
    }
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) override {
        begin();
        buf_.assign(in, in + len);
        buf_.insert(r_.siv ? buf_.begin() : buf_.end(), tag, tag + tag_bytes());
        try {
            m_->finish(buf_);
        } catch (const Botan::Integrity_Failure&) {
            return false;
        } catch (const std::exception& e) { rethrow("finish", e); }
        std::memcpy(out, buf_.data(), len);
        return true;
    }

    const Recipe& r_;
    std::unique_ptr<Botan::AEAD_Mode> m_;
    bool used_ = false;
    Botan::secure_vector<uint8_t> buf_;
};

class BotanHash : public cb::Hash {
public:
    explicit BotanHash(const std::string& name) : h_(Botan::HashFunction::create(name)) {
        if (!h_) throw cb::Unsupported("Botan has no " + name);
    }
    void init() override { h_->clear(); }
    void update(const uint8_t* in, size_t len) override { h_->update(in, len); }
    void final(uint8_t* d) override { h_->final(d); }

private:
    std::unique_ptr<Botan::HashFunction> h_;
};

class BotanAdapter : public cb::Adapter {
public:
    BotanAdapter() {
        offered_.probe_registry(*this, [this](const cb::Primitive& p, Recipe& r) { return recipe_for(p, r); },
                                [this](const cb::Primitive& p, const Recipe& r) { return provider_of(p, r); });
    }

    std::string name() const override { return "botan"; }
    std::string library() const override { return "Botan"; }
    std::string version() const override { return Botan::short_version_string(); }
    std::vector<cb::Offer> offers() const override { return offered_.offers(); }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const Recipe* found = offered_.find(p.name);
        if (!found || p.kind == cb::Kind::Hash) return Adapter::cipher(p, d);
        const Recipe& r = *found;
        switch (r.drive) {
            case Drive::Ecb: return std::make_unique<EcbCipher>(r, d);
            case Drive::Stream: return std::make_unique<StreamCipher>(r);
            case Drive::Mode: return std::make_unique<ModeCipher>(r, d);
            case Drive::Aead: return std::make_unique<AeadCipher>(r, p, d);
            case Drive::OneShotAead: return std::make_unique<OneShotCipher>(r, p, d);
        }
        return Adapter::cipher(p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const Recipe* r = offered_.find(p.name);
        if (!r || p.kind != cb::Kind::Hash) return Adapter::hash(p);
        return std::make_unique<BotanHash>(r->spec);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
#if BOTAN_VERSION_MAJOR >= 3
        return {{"version_string", Botan::version_string()}};
#else
        return {{"version_string", Botan::version_string()}, {"cpuid", Botan::CPUID::to_string()}};
#endif
    }

private:
    // Botan's provider() names: "cpu" for AES means AES-NI on x86 (the
    // hardware path); the others ("avx2", "sse2", "simd", "shani", "clmul",
    // "bmi2", "base") are Botan's own names for the code that runs.
    static std::string label(const std::string& algo, const std::string& prov) {
#if BOTAN_VERSION_MAJOR >= 3  // Botan 3 names AES-NI's provider "aesni"
        if (prov == "aesni" && algo.rfind("AES", 0) == 0) return "AES-NI (Botan provider aesni)";
#elif defined(__x86_64__) || defined(__i386__)  // has_aes_ni exists on x86 only
        if (prov == "cpu" && algo.rfind("AES", 0) == 0 && Botan::CPUID::has_aes_ni()) return "AES-NI (Botan provider cpu)";
#endif
        // SIMD_4x32's and vperm's instruction set depends on the target: said for people
#if defined(__x86_64__) || defined(__i386__)
        if (prov == "simd") return "Botan provider simd (SSE2)";
        if (prov == "vperm") return "Botan provider vperm (SSSE3)";
#elif defined(__aarch64__) || defined(__arm__)
        if (prov == "simd" || prov == "vperm") return "Botan provider " + prov + " (NEON)";
#endif
        return "Botan provider " + prov;
    }

    // A Botan provider name -> the protocol's features, for the architecture this engine was
    // built for ("simd" and "vperm" are SSE2/SSSE3 on x86, NEON on ARM); a name not listed
    // here is unknown.
    static cb::Features features_of(const std::string& algo, const std::string& prov) {
        using cb::Feature;
        if (prov == "base") return Feature::Portable;
        if (prov == "aesni" || prov == "vaes") return prov == "vaes" ? Feature::Vaes : Feature::AesNi;
        if (prov == "shani") return Feature::ShaNi;
        if (prov == "avx2") return Feature::Avx2;
        if (prov == "avx512") return Feature::Avx512;
        if (prov == "bmi2") return Feature::Bmi2;
        if (prov == "armv8") return Feature::Armv8Ce;
        if (prov == "neon") return Feature::Neon;
#if defined(__x86_64__) || defined(__i386__)
        if (prov == "clmul") return Feature::Pclmul;
        if (prov == "sse2" || prov == "simd") return Feature::Sse2;
        if (prov == "ssse3" || prov == "vperm") return Feature::Ssse3;
#if BOTAN_VERSION_MAJOR < 3
        if (prov == "cpu" && algo.rfind("AES", 0) == 0 && Botan::CPUID::has_aes_ni()) return Feature::AesNi;
#endif
#elif defined(__aarch64__) || defined(__arm__)
        if (prov == "simd" || prov == "vperm") return Feature::Neon;
        if (prov == "pmull" || prov == "cpu") return Feature::Armv8Ce;
#endif
        (void)algo;
        return {};
    }

    static cb::Path block_provider(const std::string& cipher) {
        auto bc = Botan::BlockCipher::create(cipher);
        return bc ? cb::Path{label(cipher, bc->provider()), features_of(cipher, bc->provider())}
                  : cb::Path{"unknown", cb::Features{}};
    }

    // A hash's recipe is its Botan name in spec, of the registry's length.
    bool recipe_for(const cb::Primitive& p, Recipe& r) const {
        if (p.kind == cb::Kind::Hash) {
            for (const auto& [reg, botan] : kHashes) {
                if (std::strcmp(reg, p.name) != 0) continue;
                auto h = Botan::HashFunction::create(botan);
                if (!h || h->output_length() != p.digest_bytes) return false;
                r = {};
                r.spec = botan;
                return true;
            }
            return false;
        }
        for (const auto& m : kAeads)
            if (std::strcmp(m.mode, p.name) == 0) {
                r = {m.drive, "", m.pattern, m.granularity, false, false, m.ad_kept};
                return true;
            }
        for (const auto& [reg, botan] : kStreams)
            if (std::strcmp(reg, p.name) == 0) {
                r = {Drive::Stream, "", botan, 0, false, false};
                return true;
            }
        if (!*p.mode) return false;
        const std::string fam = p.family;
        const size_t bits = (std::strcmp(p.mode, "xts") == 0 || std::strcmp(p.mode, "siv") == 0) ? p.key_bytes * 4 : p.key_bytes * 8;
        const std::string sized = fam + "-" + std::to_string(bits);
        const char* cipher = nullptr;
        for (const auto& [reg, botan] : kBlockCiphers)
            if (sized == reg || fam == reg) cipher = botan;
        if (!cipher) return false;
        for (const auto& m : kModes)
            if (std::strcmp(m.mode, p.mode) == 0) {
                r = {m.drive, cipher, fill(m.pattern, cipher), m.granularity, fam == "desx",
                     std::strcmp(p.mode, "siv") == 0, m.ad_kept};
                return true;
            }
        return false;
    }

    // The path of each part (block cipher, mode, the ChaCha inside ChaCha20Poly1305), and
    // their features joined (cb::Features' operator|).
    cb::Path provider_of(const cb::Primitive& p, const Recipe& r) const {
        if (p.kind == cb::Kind::Hash) {
            const std::string hp = Botan::HashFunction::create(r.spec)->provider();
            return {label(r.spec, hp), features_of(r.spec, hp)};
        }
        std::string s;
        cb::Features used = cb::Feature::Portable;
        if (!r.cipher.empty()) {
            const cb::Path bp = block_provider(r.cipher);
            s = r.cipher + ": " + bp.text;
            used = bp.features;
            // A multi-block provider runs only where Botan hands it several blocks at once
            // (README): OFB and CFB8 go one block at a time, CBC and CFB encryption too while
            // their decryption goes wide, so those paths are the base code, or one per direction.
            const bool wide = bp.features.has(cb::Feature::Avx2) || bp.features.has(cb::Feature::Sse2) ||
                              bp.features.has(cb::Feature::Avx512) || bp.features.has(cb::Feature::Neon);
            const std::string mode = p.mode;
            if (wide && (mode == "ofb" || mode == "cfb8")) {
                s += " (one block at a time here: its base code runs)";
                used = cb::Feature::Portable;
            } else if (wide && (mode == "cbc" || mode == "cfb")) {
                s += " (decryption only: encryption goes one block at a time in its base code)";
                used = cb::Features{};
            }
        }
        if (r.drive == Drive::Mode || r.drive == Drive::Aead || r.drive == Drive::OneShotAead) {
            auto m = Botan::Cipher_Mode::create(r.spec, kEncrypt);
            if (m) {
                std::string mp = m->provider();
                if (r.cipher.empty()) {
                    // ChaCha20Poly1305 reports "base"; the ChaCha inside has its own provider.
                    auto chacha = Botan::StreamCipher::create("ChaCha(20)");
                    s = r.spec + ": " + label(r.spec, mp) + (chacha ? "; ChaCha(20): Botan provider " + chacha->provider() : "");
                    used = features_of(r.spec, mp) | (chacha ? features_of("ChaCha(20)", chacha->provider()) : cb::Features{});
                } else if (mp != "base") {
                    s += std::string("; ") + (std::strcmp(p.mode, "gcm") == 0 ? "GHASH" : p.mode) + ": Botan provider " + mp;
                    used |= features_of(r.spec, mp);
                }
            } else {
                used = cb::Features{};
            }
        } else if (r.cipher.empty()) {
            auto sc = Botan::StreamCipher::create(r.spec);
            if (sc) s = r.spec + ": " + label(r.spec, sc->provider());
            used = sc ? features_of(r.spec, sc->provider()) : cb::Features{};
        }
        if (r.drive == Drive::Ecb) s += "; ECB = BlockCipher::encrypt_n";
        if (r.drive == Drive::OneShotAead) s += "; one-shot in Botan: one update per message";
        if (r.desx_key) s += "; key reordered to Botan's K1||K||K2";
        return {s, used};
    }

    cb::Offered<Recipe> offered_;
};

}  // namespace

CB_ADAPTER_FACTORY(botan) { return std::make_unique<BotanAdapter>(); }
