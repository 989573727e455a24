// NSS through its PKCS#11 layer (PK11_*) on the internal slot, initialised
// without a database (NSS_NoDB_Init). What runs is softoken/freebl.
//
// PKCS#11 has no "new IV, same key schedule" call: every C_EncryptInit expands
// the key again. set_key() imports the key object (PK11_ImportSymKey); start()
// creates the PK11Context with the message's IV, which is where softoken runs
// the key schedule. ECB keeps its context across messages (no IV, no state).
// AEADs use the PKCS#11 3.0 message API (C_MessageEncryptInit once at
// set_key(), one C_EncryptMessage per message through PK11_AEADOp), which is
// one-shot: see README.md for what each workload times.
#include <cpuid.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nss.h>
#include <pk11pub.h>
#include <prerror.h>
#include <secerr.h>
#include <secoidt.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

enum class Param {
    None,      // ECB: no parameter, context kept across messages
    Iv,        // CBC: the IV is the parameter
    AesCtr,    // CK_AES_CTR_PARAMS, 128 counter bits
    Rc2Ecb,    // effective bits; softoken reads CK_RC2_CBC_PARAMS even for ECB
    Rc2Cbc,    // CK_RC2_CBC_PARAMS (effective bits, IV)
    Restart,   // RC4: no IV, but every message restarts the keystream
    ChaCha20,  // CK_CHACHA20_PARAMS, single-part
    Message,   // AEAD through the message API
    Digest,
};

struct NssName {
    const char* primitive;
    CK_MECHANISM_TYPE mech;
    Param param;
    SECOidTag oid;  // digests only
};

#include "names.inc"  // the name tables, generated from manifest.toml

std::string nss_error(const char* what) {
    const PRErrorCode e = PORT_GetError();
    const char* name = PR_ErrorToName(e);
    return std::string(what) + " failed (NSS error " + std::to_string(e) + (name ? std::string(" ") + name : "") + ")";
}

// The key bytes NSS is given: two-key 3DES becomes K1 || K2 || K1.
struct KeyBytes {
    uint8_t b[64];
    unsigned len;
    KeyBytes(const cb::Primitive& p, const uint8_t* key, size_t n) : len(unsigned(n)) {
        std::memcpy(b, key, n);
        if (std::strcmp(p.family, "3des") == 0 && n == 16) {
            std::memcpy(b + 16, key, 8);
            len = 24;
        }
    }
    ~KeyBytes() { std::memset(b, 0, sizeof b); }
};

PK11SymKey* import_key(PK11SlotInfo* slot, CK_MECHANISM_TYPE mech, CK_ATTRIBUTE_TYPE op,
                       const cb::Primitive& p, const uint8_t* key, size_t len) {
    KeyBytes kb(p, key, len);
    SECItem item = {siBuffer, kb.b, kb.len};
    PK11SymKey* k = PK11_ImportSymKey(slot, mech, PK11_OriginUnwrap, op, &item, nullptr);
    if (!k) throw cb::Error(nss_error("PK11_ImportSymKey"));
    return k;
}

// ------------------------------------------------------------------ multi-part ciphers
class NssCipher : public cb::Cipher {
public:
    NssCipher(PK11SlotInfo* slot, const NssName& n, const cb::Primitive& p, cb::Direction d)
        : slot_(slot), n_(n), p_(p), op_(d == cb::Direction::Encrypt ? CKA_ENCRYPT : CKA_DECRYPT) {}
    ~NssCipher() override { drop_context(); if (key_) PK11_FreeSymKey(key_); }

    void set_key(const uint8_t* key, size_t len) override {
        drop_context();
        if (key_) { PK11_FreeSymKey(key_); key_ = nullptr; }
        key_ = import_key(slot_, n_.mech, op_, p_, key, len);
    }
    void start(const uint8_t* iv, size_t len) override {
        if (!key_) throw cb::Error("start() before set_key()");
        SECItem param = {siBuffer, nullptr, 0};
        CK_AES_CTR_PARAMS ctr;
        CK_RC2_CBC_PARAMS rc2cbc;
        rc2cbc.ulEffectiveBits = 128;  // the registry's RC2: effective key bits = key bits
        std::memset(rc2cbc.iv, 0, sizeof rc2cbc.iv);
        switch (n_.param) {
        case Param::None:
            if (ctx_) return;  // ECB: nothing to reset
            break;
        case Param::Rc2Ecb:
            // PKCS#11 specifies CK_RC2_PARAMS for CKM_RC2_ECB, but softoken casts
            // the parameter to CK_RC2_CBC_PARAMS (and rejects anything shorter).
            if (ctx_) return;
            param = {siBuffer, reinterpret_cast<unsigned char*>(&rc2cbc), sizeof rc2cbc};
            break;
        case Param::Iv:
            param = {siBuffer, const_cast<unsigned char*>(iv), unsigned(len)};
            break;
        case Param::AesCtr:
            ctr.ulCounterBits = 128;
            std::memcpy(ctr.cb, iv, sizeof ctr.cb);
            param = {siBuffer, reinterpret_cast<unsigned char*>(&ctr), sizeof ctr};
            break;
        case Param::Rc2Cbc:
            std::memcpy(rc2cbc.iv, iv, sizeof rc2cbc.iv);
            param = {siBuffer, reinterpret_cast<unsigned char*>(&rc2cbc), sizeof rc2cbc};
            break;
        case Param::Restart:
            break;
        default:
            throw cb::Error("not a multi-part cipher");
        }
        drop_context();
        ctx_ = PK11_CreateContextBySymKey(n_.mech, op_, key_, &param);
        if (!ctx_) throw cb::Error(nss_error("PK11_CreateContextBySymKey"));
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (!ctx_) throw cb::Error("update() before start()");
        if (!len) return;
        if (len > size_t(INT32_MAX)) throw cb::Unsupported("NSS takes at most 2^31-1 bytes per call");
        int outl = 0;
        if (PK11_CipherOp(ctx_, out, &outl, int(len), in, int(len)) != SECSuccess)
            throw cb::Error(nss_error("PK11_CipherOp"));
        if (size_t(outl) != len)
            throw cb::Error("PK11_CipherOp returned " + std::to_string(outl) + " of " + std::to_string(len) + " bytes");
    }

private:
    void drop_context() {
        if (ctx_) { PK11_DestroyContext(ctx_, PR_TRUE); ctx_ = nullptr; }
    }

    PK11SlotInfo* slot_;
    const NssName& n_;
    const cb::Primitive& p_;
    CK_ATTRIBUTE_TYPE op_;
    PK11SymKey* key_ = nullptr;
    PK11Context* ctx_ = nullptr;
};

// ------------------------------------------------------------------ ChaCha20 (single-part)
// softoken marks CKM_CHACHA20 single-part (C_EncryptUpdate fails), so every
// update() is one PK11_Encrypt starting at the block counter reached so far;
// a partial trailing block keeps its keystream for the next call.
class NssChaCha20 : public cb::Cipher {
public:
    NssChaCha20(PK11SlotInfo* slot, const cb::Primitive& p) : slot_(slot), p_(p) {}
    ~NssChaCha20() override { if (key_) PK11_FreeSymKey(key_); std::memset(ks_, 0, sizeof ks_); }

    void set_key(const uint8_t* key, size_t len) override {
        if (key_) { PK11_FreeSymKey(key_); key_ = nullptr; }
        key_ = import_key(slot_, CKM_CHACHA20, CKA_ENCRYPT, p_, key, len);
    }
    void start(const uint8_t* iv, size_t len) override {
        std::memcpy(nonce_, iv, len);
        ic_ = 0;
        used_ = 64;
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (!key_) throw cb::Error("update() before set_key()");
        while (used_ < 64 && len) { *out++ = *in++ ^ ks_[used_++]; --len; }
        if (!len) return;
        const size_t full = len & ~size_t(63), rest = len - full;
        const uint64_t need = full / 64 + (rest ? 1 : 0);
        if (ic_ + need > (uint64_t(1) << 32))
            throw cb::Error("keystream exhausted: the 32-bit block counter would wrap");
        if (full) {
            if (full > size_t(UINT32_MAX)) throw cb::Unsupported("NSS takes at most 2^32-1 bytes per call");
            xor_at(out, in, unsigned(full));
            ic_ += full / 64;
        }
        if (rest) {
            std::memset(ks_, 0, sizeof ks_);
            xor_at(ks_, ks_, 64);
            ++ic_;
            for (size_t i = 0; i < rest; ++i) out[full + i] = in[full + i] ^ ks_[i];
            used_ = rest;
        }
    }

private:
    void xor_at(uint8_t* out, const uint8_t* in, unsigned len) {
        uint8_t counter[4] = {uint8_t(ic_), uint8_t(ic_ >> 8), uint8_t(ic_ >> 16), uint8_t(ic_ >> 24)};
        CK_CHACHA20_PARAMS cp;
        cp.pBlockCounter = counter;
        cp.blockCounterBits = 32;
        cp.pNonce = nonce_;
        cp.ulNonceBits = 96;
        SECItem param = {siBuffer, reinterpret_cast<unsigned char*>(&cp), sizeof cp};
        unsigned outl = 0;
        if (PK11_Encrypt(key_, CKM_CHACHA20, &param, out, &outl, len, in, len) != SECSuccess)
            throw cb::Error(nss_error("PK11_Encrypt(CKM_CHACHA20)"));
        if (outl != len) throw cb::Error("PK11_Encrypt(CKM_CHACHA20) returned a short output");
    }

    PK11SlotInfo* slot_;
    const cb::Primitive& p_;
    PK11SymKey* key_ = nullptr;
    uint8_t nonce_[12] = {0}, ks_[64] = {0};
    uint64_t ic_ = 0;
    size_t used_ = 64;
};

// ------------------------------------------------------------------ AEADs (message API, one-shot)
// One C_EncryptMessage / C_DecryptMessage per message; the message state
// machine is cb::OneShotAead's.
class NssAead : public cb::OneShotAead {
public:
    NssAead(PK11SlotInfo* slot, const NssName& n, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      "NSS's AEADs (PK11_AEADOp, PKCS#11 message API) are one-shot: a message is one update() call "
                      "(the bulk workload's many update() calls per message cannot be timed honestly; use workload 'message')"),
          slot_(slot), n_(n), p_(p) {}
    ~NssAead() override {
        if (ctx_) PK11_DestroyContext(ctx_, PR_TRUE);
        if (key_) PK11_FreeSymKey(key_);
    }

    void set_key(const uint8_t* key, size_t len) override {
        if (ctx_) { PK11_DestroyContext(ctx_, PR_TRUE); ctx_ = nullptr; }
        if (key_) { PK11_FreeSymKey(key_); key_ = nullptr; }
        const CK_ATTRIBUTE_TYPE op = encrypting() ? CKA_ENCRYPT : CKA_DECRYPT;
        key_ = import_key(slot_, n_.mech, op, p_, key, len);
        SECItem none = {siBuffer, nullptr, 0};
        ctx_ = PK11_CreateContextBySymKey(n_.mech, CKA_NSS_MESSAGE | op, key_, &none);
        if (!ctx_) throw cb::Error(nss_error("PK11_CreateContextBySymKey(CKA_NSS_MESSAGE)"));
    }

private:
    void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) override { op(out, in, len, tag); }
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) override {
        uint8_t t[16];  // PK11_AEADOp takes the tag through a non-const pointer
        std::memcpy(t, tag, tag_bytes());
        return op(out, in, len, t);
    }

    // One C_EncryptMessage / C_DecryptMessage. Returns false only for a tag
    // that does not verify.
    bool op(uint8_t* out, const uint8_t* in, size_t len, uint8_t* tag) {
        if (len > size_t(INT32_MAX) - 64) throw cb::Unsupported("NSS takes at most 2^31-1 bytes per message");
        int outl = 0;  // with CKG_NO_GENERATE the IV is only read
        SECStatus s = PK11_AEADOp(ctx_, CKG_NO_GENERATE, 0, const_cast<uint8_t*>(nonce()), int(nonce_len()), ad(),
                                  int(ad_len()), out, &outl, int(len), tag, int(tag_bytes()), in, int(len));
        if (s != SECSuccess) {
            if (!encrypting() && PORT_GetError() == SEC_ERROR_BAD_DATA) return false;
            throw cb::Error(nss_error("PK11_AEADOp"));
        }
        if (size_t(outl) != len) throw cb::Error("PK11_AEADOp returned a short output");
        return true;
    }

    PK11SlotInfo* slot_;
    const NssName& n_;
    const cb::Primitive& p_;
    PK11SymKey* key_ = nullptr;
    PK11Context* ctx_ = nullptr;
};

// ------------------------------------------------------------------ digests
class NssHash : public cb::Hash {
public:
    NssHash(SECOidTag oid, size_t out) : out_(out), ctx_(PK11_CreateDigestContext(oid)) {
        if (!ctx_) throw cb::Error(nss_error("PK11_CreateDigestContext"));
    }
    ~NssHash() override { PK11_DestroyContext(ctx_, PR_TRUE); }
    void init() override {
        if (PK11_DigestBegin(ctx_) != SECSuccess) throw cb::Error(nss_error("PK11_DigestBegin"));
    }
    void update(const uint8_t* in, size_t len) override {
        while (len) {  // PK11_DigestOp takes an unsigned length
            const unsigned n = len > 0x40000000u ? 0x40000000u : unsigned(len);
            if (PK11_DigestOp(ctx_, in, n) != SECSuccess) throw cb::Error(nss_error("PK11_DigestOp"));
            in += n;
            len -= n;
        }
    }
    void final(uint8_t* d) override {
        unsigned n = 0;
        if (PK11_DigestFinal(ctx_, d, &n, unsigned(out_)) != SECSuccess) throw cb::Error(nss_error("PK11_DigestFinal"));
        if (n != out_) throw cb::Error("PK11_DigestFinal returned " + std::to_string(n) + " bytes");
    }

private:
    size_t out_;
    PK11Context* ctx_;
};

// ------------------------------------------------------------------ adapter
bool cpu_has(unsigned leaf, int reg, unsigned bit) {
    unsigned r[4] = {0, 0, 0, 0};
    if (!__get_cpuid_count(leaf, 0, &r[0], &r[1], &r[2], &r[3])) return false;
    return r[reg] >> bit & 1;
}
bool env_set(const char* v) { return std::getenv(v) != nullptr; }

class NssAdapter : public cb::Adapter {
public:
    NssAdapter() {
        if (!NSS_IsInitialized() && NSS_NoDB_Init(nullptr) != SECSuccess)
            throw cb::Error(nss_error("NSS_NoDB_Init"));
        slot_ = PK11_GetInternalSlot();
        if (!slot_) throw cb::Error(nss_error("PK11_GetInternalSlot"));
        for (const auto& n : kNames) {
            const cb::Primitive* p = cb::find_primitive(n.primitive);
            if (!p) continue;
            if (!PK11_DoesMechanism(slot_, n.mech)) {
                note_skip(std::string(n.primitive) + ": PK11_DoesMechanism = false");
                continue;
            }
            const std::string why = cb::probe(*p, [&](cb::Direction d) { return cipher(*p, d); }, [&] { return hash(*p); });
            if (!why.empty()) {
                note_skip(std::string(n.primitive) + ": failed the start-up check (" + why + ")");
                continue;
            }
            offers_.push_back({n.primitive, provider(*p, n)});
        }
    }
    ~NssAdapter() override { if (slot_) PK11_FreeSlot(slot_); }

    std::string name() const override { return "nss"; }
    std::string library() const override { return "NSS"; }
    std::string version() const override { return NSS_GetVersion(); }
    std::vector<cb::Offer> offers() const override { return offers_; }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const NssName* n = cb::find_entry(kNames, p.name);
        if (!n || n->param == Param::Digest) return Adapter::cipher(p, d);
        if (n->param == Param::Message) return std::make_unique<NssAead>(slot_, *n, p, d);
        if (n->param == Param::ChaCha20) return std::make_unique<NssChaCha20>(slot_, p);
        return std::make_unique<NssCipher>(slot_, *n, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const NssName* n = cb::find_entry(kNames, p.name);
        if (!n || n->param != Param::Digest) return Adapter::hash(p);
        return std::make_unique<NssHash>(n->oid, p.digest_bytes);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::vector<std::pair<std::string, std::string>> n = {
            {"slot", "internal crypto slot (softoken/freebl), NSS_NoDB_Init"},
            {"per_message_cost", "start() creates a PK11Context (C_EncryptInit re-expands the key) except for ECB; AEADs use the PKCS#11 3.0 message API"},
        };
        std::string env;
        for (const char* v : {"NSS_DISABLE_HW_AES", "NSS_DISABLE_PCLMUL", "NSS_DISABLE_HW_SHA", "NSS_DISABLE_AVX",
                              "NSS_DISABLE_AVX2", "NSS_DISABLE_SSSE3", "NSS_DISABLE_SSE4_1", "NSS_DISABLE_SSE4_2"})
            if (env_set(v)) env += std::string(env.empty() ? "" : " ") + v;
        if (!env.empty()) n.push_back({"freebl_cpu_overrides", env});
        if (!skipped_.empty()) n.push_back({"not_offered", skipped_});
        return n;
    }

private:
    void note_skip(const std::string& s) { skipped_ += (skipped_.empty() ? "" : "; ") + s; }

    // freebl picks its code paths from CPUID, overridable with NSS_DISABLE_*.
    // What freebl runs without these is its C code (rijndael.c's tables, gcm.c, sha512.c);
    // HACL*'s ChaCha20 picks a 32-bit, 128-bit or 256-bit vector build by rules this
    // adapter does not follow, so its features are unknown.
    static cb::Path provider(const cb::Primitive& p, const NssName& n) {
        using cb::Feature;
        const std::string fam = p.family;
        const bool aesni = cpu_has(1, 2, 25) && !env_set("NSS_DISABLE_HW_AES");
        const bool pclmul = cpu_has(1, 2, 1) && !env_set("NSS_DISABLE_PCLMUL");
        const bool shani = cpu_has(7, 1, 29) && !env_set("NSS_DISABLE_HW_SHA");
        std::string s = "softoken/freebl";
        cb::Features used = Feature::Portable;
        if (fam == "aes") {
            s += aesni ? ", AES-NI" : ", AES without AES-NI";
            used = cb::if_else_portable(aesni, Feature::AesNi);
            if (n.param == Param::Message) {
                s += pclmul ? " + PCLMUL" : ", GHASH without PCLMUL";
                used |= cb::if_else_portable(pclmul, Feature::Pclmul);
            }
        } else if (fam == "sha-256" || fam == "sha-224") {
            s += shani ? ", SHA-NI" : ", portable C";
            used = cb::if_else_portable(shani, Feature::ShaNi);
        } else if (fam == "chacha20" || fam == "chacha20-poly1305") {
            s += ", HACL*";
            used = cb::Features{};
        } else {
            s += ", portable C";
        }
        if (n.param == Param::Message) s += ", one-shot message API";
        if (n.param == Param::ChaCha20) s += ", single-part C_Encrypt per update()";
        return {s, used};
    }

    PK11SlotInfo* slot_ = nullptr;
    std::vector<cb::Offer> offers_;
    std::string skipped_;
};

}  // namespace

CB_ADAPTER_FACTORY(nss) { return std::make_unique<NssAdapter>(); }
