// Crypto++ through its SymmetricCipher and AuthenticatedSymmetricCipher
// interfaces. Each context instantiates its mode object once; set_key() runs
// SetKey (with a zero IV, since Crypto++ modes refuse a key without one),
// start() runs Resynchronize with the message's IV. See README.md.
#define CRYPTOPP_ENABLE_NAMESPACE_WEAK 1
#include <cstring>
#include <string>

#include <cryptopp/algparam.h>
#include <cryptopp/argnames.h>
#include <cryptopp/cpu.h>
#include <cryptopp/cryptlib.h>
#include <cryptopp/modes.h>
#include <cryptopp/ccm.h>
#include <cryptopp/eax.h>
#include <cryptopp/gcm.h>
#include <cryptopp/xts.h>
#include <cryptopp/aes.h>
#include <cryptopp/aria.h>
#include <cryptopp/blowfish.h>
#include <cryptopp/camellia.h>
#include <cryptopp/cast.h>
#include <cryptopp/des.h>
#include <cryptopp/gost.h>
#include <cryptopp/idea.h>
#include <cryptopp/mars.h>
#include <cryptopp/rc2.h>
#include <cryptopp/rc5.h>
#include <cryptopp/rc6.h>
#include <cryptopp/seed.h>
#include <cryptopp/serpent.h>
#include <cryptopp/skipjack.h>
#include <cryptopp/sm4.h>
#include <cryptopp/square.h>
#include <cryptopp/tea.h>
#include <cryptopp/threefish.h>
#include <cryptopp/twofish.h>
#include <cryptopp/arc4.h>
#include <cryptopp/chacha.h>
#include <cryptopp/chachapoly.h>
#include <cryptopp/salsa.h>
#include <cryptopp/blake2.h>
#include <cryptopp/keccak.h>
#include <cryptopp/md2.h>
#include <cryptopp/md4.h>
#include <cryptopp/md5.h>
#include <cryptopp/ripemd.h>
#include <cryptopp/sha.h>
#include <cryptopp/sha3.h>
#include <cryptopp/shake.h>
#include <cryptopp/sm3.h>
#include <cryptopp/tiger.h>
#include <cryptopp/whrlpool.h>

#include "cipherbench/adapter.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

using SC = CryptoPP::SymmetricCipher;
using AE = CryptoPP::AuthenticatedSymmetricCipher;

// One Crypto++ object: a plain SymmetricCipher or an AEAD.
struct Made {
    std::unique_ptr<SC> sc;
    std::unique_ptr<AE> ae;
    bool eax = false;
    explicit operator bool() const { return sc || ae; }
};

template <class M>
Made sym(bool enc) {
    Made m;
    if (enc) m.sc.reset(new typename M::Encryption);
    else m.sc.reset(new typename M::Decryption);
    return m;
}

template <class M>
Made aead(bool enc) {
    Made m;
    if (enc) m.ae.reset(new typename M::Encryption);
    else m.ae.reset(new typename M::Decryption);
    return m;
}

template <class BC>
Made block_mode(const std::string& mode, bool enc) {
    if (mode == "ecb") return sym<CryptoPP::ECB_Mode<BC>>(enc);
    if (mode == "cbc") return sym<CryptoPP::CBC_Mode<BC>>(enc);
    if (mode == "cfb" || mode == "cfb8") return sym<CryptoPP::CFB_Mode<BC>>(enc);
    if (mode == "ofb") return sym<CryptoPP::OFB_Mode<BC>>(enc);
    if (mode == "ctr") return sym<CryptoPP::CTR_Mode<BC>>(enc);
    if constexpr (BC::BLOCKSIZE == 16) {
        if (mode == "xts") return sym<CryptoPP::XTS_Mode<BC>>(enc);
        if (mode == "gcm") return aead<CryptoPP::GCM<BC>>(enc);
        if (mode == "eax") {
            Made m = aead<CryptoPP::EAX<BC>>(enc);
            m.eax = true;
            return m;
        }
        if (mode == "ccm") return aead<CryptoPP::CCM<BC, 16>>(enc);
    }
    return {};
}

// Canonical registry names -> Crypto++ classes. Crypto++ is a template
// library, so the "names" are the classes themselves: each row instantiates
// the mode templates for one block cipher. The adapter offers every registry
// primitive that maps here and passes a smoke test on this machine.
//
// Variant notes (checked against known answers, see README.md):
//  - rc2: Crypto++'s default effective key length is 1024 bits; the registry's
//    rc2 wants effective bits = key bits, so the adapter passes
//    EffectiveKeyLength=128; rc2e1024 is Crypto++'s default, passed explicitly.
//  - rc5: Crypto++'s default is 16 rounds; the registry's RC5-32/12/b gets Rounds=12.
//  - desx: DES_XEX3 keys as pre-whitening || DES key || post-whitening; the
//    adapter reorders the registry's DES key || pre || post.
//  - 3des: DES_EDE2 for 112 (K1,K2,K1), DES_EDE3 for 168.
//  - gost: Crypto++'s fixed S-boxes are the GOST R 34.11-94 test parameter set.
//  - threefish*: the tweak is zero unless Name::Tweak() is passed.
//  - mars: Crypto++ implements the tweaked (round 2) key schedule.
enum class Keying { Plain, Rc2Ekb, Rc2Ekb1024, Rc5Rounds12, DesxReorder, CounterFrom0, Rounds12 };
struct Family {
    const char* family;     // registry cipher id
    const char* cryptopp;   // Crypto++ class, for provider strings
    Made (*make)(const std::string& mode, bool enc);
    Keying keying;
};
// 3des picks its class by key size.
static const Family k3des112 = {"3des", "DES_EDE2", &block_mode<CryptoPP::DES_EDE2>, Keying::Plain};
static const Family k3des168 = {"3des", "DES_EDE3", &block_mode<CryptoPP::DES_EDE3>, Keying::Plain};

// Registry modes and the Crypto++ templates block_mode() instantiates for them:
// ecb ECB_Mode, cbc CBC_Mode, cfb CFB_Mode (full-block feedback), cfb8
// CFB_Mode with FeedbackSize=1, ofb OFB_Mode, ctr CTR_Mode (the whole block is
// one big-endian counter), xts XTS_Mode, gcm GCM (GCM_2K_Tables, the default),
// ccm CCM<.,16>, eax EAX. Crypto++ has no OCB, SIV or GCM-SIV.

// Primitives outside the family-mode grammar.
//  - chacha20: ChaChaTLS is the IETF variant (12-byte nonce, 32-bit counter from 0).
//  - xchacha20: Crypto++'s XChaCha20 starts its block counter at 1 (as the
//    draft's example does); the registry starts at 0, so the adapter passes
//    InitialBlock=0.
//  - rc4: Weak::ARC4, no discard (MARC4 would drop 256 bytes).
struct Whole {
    const char* name;
    Made (*make)(bool enc);
    Keying keying;
};
// A hash of kHashes: H constructed with Args (an output length, BLAKE2's tree mode).
template <class H, auto... Args>
CryptoPP::HashTransformation* make_hash() { return new H(Args...); }
#include "names.inc"  // the name tables, generated from manifest.toml

[[noreturn]] void rethrow(const char* what, const std::exception& e) {
    throw cb::Error(std::string("Crypto++ ") + what + ": " + e.what());
}

struct Recipe {
    Made (*make_mode)(const std::string&, bool) = nullptr;
    Made (*make_whole)(bool) = nullptr;
    CryptoPP::HashTransformation* (*make_hash)() = nullptr;  // hashes
    std::string mode;
    Keying keying = Keying::Plain;
    std::string cipher;  // Crypto++ class name, for messages
};

Made create(const Recipe& r, bool enc) {
    return r.make_mode ? r.make_mode(r.mode, enc) : r.make_whole(enc);
}

class CppCipher : public cb::Cipher {
public:
    CppCipher(const Recipe& r, const cb::Primitive& p, cb::Direction d)
        : r_(r), p_(p), enc_(d == cb::Direction::Encrypt), m_(create(r, enc_)), zero_iv_(p.iv_bytes, 0) {
        if (!m_) throw cb::Unsupported(std::string(p.name) + " is not offered by cryptopp");
        // Parameters for SetKey, built once: a zero IV (the real one comes in
        // start()), plus the variant settings the registry needs.
        using namespace CryptoPP;
        const ConstByteArrayParameter iv(static_cast<const byte*>(zero_iv_.data()), size_t(zero_iv_.size()), false);
        if (r.keying == Keying::Rc2Ekb || r.keying == Keying::Rc2Ekb1024)
            params_ = MakeParameters(Name::EffectiveKeyLength(), r.keying == Keying::Rc2Ekb ? int(p.key_bytes * 8) : 1024)(
                Name::IV(), iv, false);
        else if (r.keying == Keying::Rc5Rounds12 || r.keying == Keying::Rounds12)
            params_ = MakeParameters(Name::Rounds(), 12)(Name::IV(), iv, false);
        else if (r.keying == Keying::CounterFrom0)  // read back as unsigned long
            params_ = MakeParameters("InitialBlock", static_cast<unsigned long>(0))(Name::IV(), iv);
        else if (p.iv_bytes)
            params_ = MakeParameters(Name::IV(), iv);
        // CFB's feedback size goes with whatever variant settings the cipher has
        // (RC2's effective bits, RC5's rounds): without it CFB_Mode feeds back a
        // whole block, which agrees with CFB8 in the first byte only.
        if (std::strcmp(p.mode, "cfb8") == 0 || std::strcmp(p.mode, "cfb") == 0)
            params_(Name::FeedbackSize(), std::strcmp(p.mode, "cfb8") == 0 ? 1 : int(p.block_bytes));
        rekey_on_start_ = std::strcmp(p.name, "rc4") == 0;
    }

    void set_key(const uint8_t* key, size_t len) override {
        const uint8_t* k = key;
        uint8_t reordered[24];
        if (r_.keying == Keying::DesxReorder && len == 24) {
            std::memcpy(reordered, key + 8, 8);
            std::memcpy(reordered + 8, key, 8);
            std::memcpy(reordered + 16, key + 16, 8);
            k = reordered;
        }
        try {
            if (m_.sc) m_.sc->SetKey(k, len, params_);
            else m_.ae->SetKey(k, len, params_);
        } catch (const std::exception& e) { rethrow("SetKey", e); }
        if (rekey_on_start_) key_.assign(key, key + len);
        open_ = true;  // SetKey with an IV opens a message
    }

    void start(const uint8_t* iv, size_t len) override {
        try {
            if (m_.ae) {
                // Crypto++ 8.7 EAX computes a wrong nonce MAC when Resynchronize
                // follows another Resynchronize (or SetKey with an IV) without a
                // finished message in between; close the open one first.
                if (m_.eax && open_) {
                    uint8_t scratch[16];
                    m_.ae->TruncatedFinal(scratch, sizeof scratch);
                }
                m_.ae->Resynchronize(iv, int(len));
                open_ = true;
            } else if (rekey_on_start_) {
                // ARC4 has no IV: a new message restarts the keystream, which
                // for RC4 is its key schedule.
                m_.sc->SetKey(key_.data(), key_.size());
            } else if (len) {
                m_.sc->Resynchronize(iv, int(len));
            }
        } catch (const std::exception& e) { rethrow("Resynchronize", e); }
    }

    void aad(const uint8_t* a, size_t len) override {
        try { m_.ae->Update(a, len); } catch (const std::exception& e) { rethrow("Update (associated data)", e); }
    }

    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        try {
            if (m_.sc) m_.sc->ProcessData(out, in, len);
            else m_.ae->ProcessData(out, in, len);
        } catch (const std::exception& e) { rethrow("ProcessData", e); }
    }

    bool finish(uint8_t* tag) override {
        if (!m_.ae) return true;
        try {
            open_ = false;
            if (enc_) {
                m_.ae->TruncatedFinal(tag, p_.tag_bytes);
                return true;
            }
            return m_.ae->TruncatedVerify(tag, p_.tag_bytes);
        } catch (const std::exception& e) { rethrow("finish", e); }
    }

private:
    const Recipe& r_;
    const cb::Primitive& p_;
    bool enc_;
    Made m_;
    std::vector<uint8_t> zero_iv_;
    CryptoPP::AlgorithmParameters params_;
    bool rekey_on_start_ = false;
    std::vector<uint8_t> key_;
    bool open_ = false;
};

// CCM puts the lengths of both the associated data and the message into its
// first block: one call per message (cb::OneShotAead). Every family Crypto++
// offers CCM for (16-byte blocks) keys plainly.
class CppCcm : public cb::OneShotAead {
public:
    CppCcm(const Recipe& r, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      std::string(p.name) + " (Crypto++): one update per message (CCM needs the message length before the data)"),
          m_(create(r, d == cb::Direction::Encrypt)), zero_iv_(p.iv_bytes, 0) {
        if (!m_.ae) throw cb::Unsupported(std::string(p.name) + " is not offered by cryptopp");
    }
    void set_key(const uint8_t* key, size_t len) override {
        // SetKey wants an IV (a zero one); the message's own comes with Resynchronize.
        using namespace CryptoPP;
        try {
            m_.ae->SetKey(key, len, MakeParameters(Name::IV(), ConstByteArrayParameter(zero_iv_.data(), zero_iv_.size(), false)));
        } catch (const std::exception& e) { rethrow("SetKey", e); }
    }

private:
    void begin(size_t len) {
        m_.ae->Resynchronize(nonce(), int(nonce_len()));
        m_.ae->SpecifyDataLengths(ad_len(), len, 0);
        if (ad_len()) m_.ae->Update(ad(), ad_len());
    }
    void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) override {
        try {
            begin(len);
            if (len) m_.ae->ProcessData(out, in, len);
            m_.ae->TruncatedFinal(tag, tag_bytes());
        } catch (const std::exception& e) { rethrow("CCM encryption", e); }
    }
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) override {
        try {
            begin(len);
            if (len) m_.ae->ProcessData(out, in, len);
            return m_.ae->TruncatedVerify(tag, tag_bytes());
        } catch (const std::exception& e) { rethrow("CCM decryption", e); }
    }

    Made m_;
    std::vector<uint8_t> zero_iv_;
};

class CppHash : public cb::Hash {
public:
    explicit CppHash(CryptoPP::HashTransformation* h, size_t n) : h_(h), n_(n) {}
    void init() override { h_->Restart(); }
    void update(const uint8_t* in, size_t len) override { h_->Update(in, len); }
    void final(uint8_t* d) override { h_->TruncatedFinal(d, n_); }

private:
    std::unique_ptr<CryptoPP::HashTransformation> h_;
    size_t n_;
};

std::string provider_of(const Made& m) {
    // AlgorithmProvider() is ambiguous on the concrete classes (P5); call it
    // through the interface.
    if (m.sc) return static_cast<const SC&>(*m.sc).AlgorithmProvider();
    // Crypto++ 8.4 (Debian 11) finds it ambiguous on AE too (two Algorithm bases: the MAC's
    // and the stream's); through StreamTransformation it is one, and reaches the same override.
    return static_cast<const CryptoPP::StreamTransformation&>(*m.ae).AlgorithmProvider();
}

class CryptoppAdapter : public cb::Adapter {
public:
    CryptoppAdapter() {
        offered_.probe_registry(*this, [this](const cb::Primitive& p, Recipe& r) { return recipe_for(p, r); },
                                [this](const cb::Primitive& p, const Recipe& r) { return provider(p, r); });
    }

    std::string name() const override { return "cryptopp"; }
    std::string library() const override { return "Crypto++"; }
    std::string version() const override {
        const int v = CryptoPP::LibraryVersion();  // run time: 870 = 8.7.0
        return std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10);
    }
    std::vector<cb::Offer> offers() const override { return offered_.offers(); }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const Recipe* r = offered_.find(p.name);
        if (!r || p.kind == cb::Kind::Hash) return Adapter::cipher(p, d);
        if (r->mode == "ccm") return std::make_unique<CppCcm>(*r, p, d);
        return std::make_unique<CppCipher>(*r, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const Recipe* r = offered_.find(p.name);
        if (!r || p.kind != cb::Kind::Hash) return Adapter::hash(p);
        return std::make_unique<CppHash>(r->make_hash(), p.digest_bytes);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        using namespace CryptoPP;
        std::string cpu;
        auto add = [&](bool has, const char* n) { if (has) cpu += cpu.empty() ? n : std::string(" ") + n; };
        add(HasSSE2(), "SSE2"); add(HasSSSE3(), "SSSE3"); add(HasSSE41(), "SSE4.1"); add(HasAESNI(), "AESNI");
        add(HasCLMUL(), "CLMUL"); add(HasSHA(), "SHA"); add(HasAVX2(), "AVX2");
        return {{"header_version", std::to_string(HeaderVersion())}, {"cpu_features", cpu},
                {"linkage", CB_CRYPTOPP_LINKAGE}};
    }

private:
    bool recipe_for(const cb::Primitive& p, Recipe& r) const {
        if (p.kind == cb::Kind::Hash) {
            for (const auto& [reg, make] : kHashes) {
                if (std::strcmp(reg, p.name) != 0) continue;
                std::unique_ptr<CryptoPP::HashTransformation> h(make());
                if (h->DigestSize() != p.digest_bytes) return false;
                r.make_hash = make;
                return true;
            }
            return false;
        }
        for (const auto& w : kStreams)
            if (std::strcmp(w.name, p.name) == 0) {
                r.make_whole = w.make;
                r.keying = w.keying;
                r.cipher = p.name;
                return true;
            }
        if (!*p.mode) return false;
        const Family* f = nullptr;
        if (std::strcmp(p.family, "3des") == 0) f = p.key_bytes == 16 ? &k3des112 : &k3des168;
        for (const auto& fam : kFamilies)
            if (std::strcmp(fam.family, p.family) == 0) f = &fam;
        if (!f) return false;
        r.make_mode = f->make;
        r.mode = p.mode;
        r.keying = f->keying;
        r.cipher = f->cryptopp;
        return bool(f->make(p.mode, true));
    }

    // Crypto++'s AlgorithmProvider() names the code an object runs ("C++" for its generic
    // code): each name -> the protocol's features; a name not listed here is unknown.
    static cb::Features features_of(const std::string& name) {
        using cb::Feature;
        static const std::pair<const char*, cb::Features> kNamed[] = {
            {"C++", Feature::Portable}, {"AESNI", Feature::AesNi}, {"SHANI", Feature::ShaNi},
            {"CLMUL", Feature::Pclmul}, {"SSE2", Feature::Sse2}, {"SSSE3", Feature::Ssse3},
            {"SSE4.1", Feature::Sse41}, {"AVX", Feature::Avx}, {"AVX2", Feature::Avx2},
            {"ARMv8", Feature::Armv8Ce}, {"NEON", Feature::Neon}};
        for (const auto& [n, f] : kNamed)
            if (name == n) return f;
        return {};
    }

    cb::Path provider(const cb::Primitive& p, const Recipe& r) const {
        if (p.kind == cb::Kind::Hash) {
            const std::string n = std::unique_ptr<CryptoPP::HashTransformation>(r.make_hash())->AlgorithmProvider();
            return {n, features_of(n)};
        }
        Made m = create(r, true);
        const std::string n = provider_of(m);
        std::string s = n;
        cb::Features used = features_of(n);
        if (std::strcmp(p.mode, "gcm") == 0) {  // without CLMUL, GHASH's 2K tables may run Crypto++'s SSE2 code
            s += CryptoPP::HasCLMUL() ? "; GHASH: CLMUL" : "; GHASH: 2K tables";
            used |= CryptoPP::HasCLMUL() ? cb::Features(cb::Feature::Pclmul) : cb::Features{};
        }
        if (std::strcmp(p.mode, "ccm") == 0) s += "; one update per message (CCM needs the length first)";
        if (r.keying == Keying::DesxReorder) s += "; key reordered to Crypto++'s K1||K||K3";
        return {s, used};
    }

    cb::Offered<Recipe> offered_;
};

}  // namespace

CB_ADAPTER_FACTORY(cryptopp) { return std::make_unique<CryptoppAdapter>(); }
