// Nettle 3.8 through its cipher descriptors and mode functions. Contexts are
// allocated once per cipher context; set_key() runs the key schedule,
// start() copies the IV / sets the nonce. CBC-AES encryption uses the fused
// cbc_aesN_encrypt functions (P14). See README.md.
#include <cpuid.h>
#include <dlfcn.h>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nettle/aes.h>
#include <nettle/arcfour.h>
#include <nettle/arctwo.h>
#include <nettle/blowfish.h>
#include <nettle/camellia.h>
#include <nettle/cast128.h>
#include <nettle/cbc.h>
#include <nettle/ccm.h>
#include <nettle/cfb.h>
#include <nettle/chacha-poly1305.h>
#include <nettle/chacha.h>
#include <nettle/ctr.h>
#include <nettle/des.h>
#include <nettle/eax.h>
#include <nettle/gcm.h>
#include <nettle/md2.h>
#include <nettle/memops.h>
#include <nettle/nettle-meta.h>
#include <nettle/salsa20.h>
#include <nettle/serpent.h>
#include <nettle/sha3.h>
#include <nettle/siv-cmac.h>
#include <nettle/twofish.h>
#include <nettle/version.h>
#include <nettle/xts.h>

#include "cipherbench/adapter.h"
#include "cipherbench/one_shot_aead.h"
#include "cipherbench/probe.h"

namespace {

// ------------------------------------------------------------ descriptors for
// ciphers Nettle keeps out of nettle_ciphers[] (own API), and the fused CBC.
void bf128_key(void* ctx, const uint8_t* key) {
    if (!blowfish128_set_key(static_cast<blowfish_ctx*>(ctx), key))
        throw cb::Error("Nettle refuses this Blowfish key as weak (blowfish_set_key returned 0)");
}
void bf448_key(void* ctx, const uint8_t* key) {
    if (!blowfish_set_key(static_cast<blowfish_ctx*>(ctx), 56, key))
        throw cb::Error("Nettle refuses this Blowfish key as weak (blowfish_set_key returned 0)");
}
void des_key(void* ctx, const uint8_t* key) { des_set_key(static_cast<des_ctx*>(ctx), key); }  // 0 = weak, still keyed
void des3_key(void* ctx, const uint8_t* key) { des3_set_key(static_cast<des3_ctx*>(ctx), key); }
void des3_two_key(void* ctx, const uint8_t* key) {
    uint8_t k[24];
    std::memcpy(k, key, 16);
    std::memcpy(k + 16, key, 8);  // K1 || K2 || K1
    des3_set_key(static_cast<des3_ctx*>(ctx), k);
}
const nettle_cipher kBlowfish128 = {"blowfish128", sizeof(blowfish_ctx), BLOWFISH_BLOCK_SIZE, 16, bf128_key, bf128_key,
                                    (nettle_cipher_func*)blowfish_encrypt, (nettle_cipher_func*)blowfish_decrypt};
const nettle_cipher kBlowfish448 = {"blowfish448", sizeof(blowfish_ctx), BLOWFISH_BLOCK_SIZE, 56, bf448_key, bf448_key,
                                    (nettle_cipher_func*)blowfish_encrypt, (nettle_cipher_func*)blowfish_decrypt};
const nettle_cipher kDes = {"des", sizeof(des_ctx), DES_BLOCK_SIZE, 8, des_key, des_key,
                            (nettle_cipher_func*)des_encrypt, (nettle_cipher_func*)des_decrypt};
const nettle_cipher kDes3 = {"des3", sizeof(des3_ctx), DES3_BLOCK_SIZE, 24, des3_key, des3_key,
                             (nettle_cipher_func*)des3_encrypt, (nettle_cipher_func*)des3_decrypt};
const nettle_cipher kDes3Two = {"des3-2key", sizeof(des3_ctx), DES3_BLOCK_SIZE, 16, des3_two_key, des3_two_key,
                                (nettle_cipher_func*)des3_encrypt, (nettle_cipher_func*)des3_decrypt};

using FusedFn = void (*)(const void* ctx, uint8_t* iv, size_t len, uint8_t* dst, const uint8_t* src);
struct Fused { FusedFn cbc_encrypt = nullptr; };
// Nettle 3.8 added the fused cbc_aesN_encrypt and SM3 (its NEWS); Debian 11 has 3.7.3,
// where CBC-AES goes through the generic cbc_encrypt and SM3 is not offered.
#define CB_NETTLE_3_8 (NETTLE_VERSION_MAJOR > 3 || (NETTLE_VERSION_MAJOR == 3 && NETTLE_VERSION_MINOR >= 8))
#if CB_NETTLE_3_8
void cbc_aes128(const void* c, uint8_t* iv, size_t n, uint8_t* d, const uint8_t* s) {
    cbc_aes128_encrypt(static_cast<const aes128_ctx*>(c), iv, n, d, s);
}
void cbc_aes192(const void* c, uint8_t* iv, size_t n, uint8_t* d, const uint8_t* s) {
    cbc_aes192_encrypt(static_cast<const aes192_ctx*>(c), iv, n, d, s);
}
void cbc_aes256(const void* c, uint8_t* iv, size_t n, uint8_t* d, const uint8_t* s) {
    cbc_aes256_encrypt(static_cast<const aes256_ctx*>(c), iv, n, d, s);
}
#else
constexpr FusedFn cbc_aes128 = nullptr, cbc_aes192 = nullptr, cbc_aes256 = nullptr;
#endif

// shake256 = sha3_256 state read with sha3_256_shake.
void shake256_digest(void* ctx, size_t len, uint8_t* d) { sha3_256_shake(static_cast<sha3_256_ctx*>(ctx), len, d); }
const nettle_hash kShake256 = {"shake256", sizeof(sha3_256_ctx), 64, SHA3_256_BLOCK_SIZE,
                               (nettle_hash_init_func*)sha3_256_init, (nettle_hash_update_func*)sha3_256_update,
                               shake256_digest};

// Canonical registry names -> Nettle 3.8 ciphers, modes and hashes. The
// adapter offers every registry primitive that maps here and passes a smoke
// test on this machine.
//
// Block ciphers: registry family-keybits -> a Nettle cipher descriptor.
// nettle_ciphers[] has AES, Camellia, CAST-128, Serpent, Twofish and ARCTWO;
// Blowfish, DES and 3DES have their own API, wrapped in descriptors above.
// Variant notes:
//  - rc2: nettle_arctwo128 keys with effective key bits = 8 x 16 = 128;
//    rc2e1024 is nettle_arctwo_gutmann128 (effective key bits 1024).
//  - blowfish: Nettle refuses (returns 0 for) weak keys and asserts if one is
//    used; the adapter reports such a key as an error.
//  - 3des-112: des3_set_key takes 24 bytes; the adapter keys K1 || K2 || K1.
//  - gost: Nettle's GOST 28147 is internal (gosthash94 only), not offered.
struct Block {
    const char* name;             // family-keybits
    const struct nettle_cipher* nc;
    Fused fused;                  // CBC encryption with a fused function (P14)
    bool aes;                     // AES: the fat build picks AES-NI at run time
};

// Registry modes Nettle has, and how the adapter drives them. Nettle has no
// OFB and (in 3.8) no OCB or GCM-SIV. SIV is siv_cmac_*_message over the
// AES descriptor: S2V(AD, N, P) with one AD component (empty or not) and the
// nonce last, as the registry defines it.
enum class Mode { Ecb, Cbc, Cfb, Cfb8, Ctr, Xts, Gcm, Ccm, Eax, Siv };

// Streams and AEADs named on their own: chacha20 is chacha_set_nonce96 +
// chacha_crypt32 (IETF, 32-bit counter from 0); salsa20 is the 256-bit-key
// Salsa20/20 with an 8-byte nonce; rc4 is arcfour128. Nettle 3.8 has no
// XChaCha20 and no XSalsa20.
enum class Whole { ChaCha20, Salsa20, Salsa20r12, Rc4, ChaChaPoly };
#include "names.inc"  // the name tables, generated from manifest.toml

// Aligned storage for one Nettle context.
struct Ctx {
    explicit Ctx(size_t n) : p(static_cast<uint8_t*>(std::aligned_alloc(64, (n + 63) / 64 * 64))) {
        if (!p) throw cb::Error("out of memory");
    }
    ~Ctx() { std::free(p); }
    Ctx(const Ctx&) = delete;
    Ctx& operator=(const Ctx&) = delete;
    uint8_t* p;
};

// Nettle's CTR, Salsa20 and ChaCha take partial blocks only on the last call
// of a message. To continue a stream after a partial piece, the adapter makes
// one whole block of keystream and keeps what it did not use.
struct Leftover {
    uint8_t ks[64];
    size_t pos = 0, end = 0;
    void clear() { pos = end = 0; }
    // XOR what is left into the start of the piece.
    void use(const uint8_t*& in, uint8_t*& out, size_t& len) {
        while (len && pos < end) { *out++ = *in++ ^ ks[pos++]; --len; }
    }
    template <class Gen>
    void tail(const uint8_t* in, uint8_t* out, size_t len, size_t block, Gen gen) {
        std::memset(ks, 0, block);
        gen(block, ks, ks);
        for (size_t i = 0; i < len; ++i) out[i] = in[i] ^ ks[i];
        pos = len;
        end = block;
    }
};

// A piece the library cannot take at this point of the message.
[[noreturn]] void closed(const cb::Primitive& p, const char* why) {
    throw cb::Unsupported(std::string(p.name) + " (Nettle): " + why);
}

// ECB, CBC, CFB, CFB8, CTR, XTS over one block cipher.
class BlockCipher : public cb::Cipher {
public:
    BlockCipher(const Block& b, Mode m, const cb::Primitive& p, cb::Direction d)
        : b_(b), m_(m), p_(p), enc_(d == cb::Direction::Encrypt), bs_(b.nc->block_size),
          ek_(b.nc->context_size), dk_(b.nc->context_size), tk_(b.nc->context_size) {}

    bool streams() const override { return m_ != Mode::Xts; }  // XTS: one-shot message API

    void set_key(const uint8_t* key, size_t) override {
        b_.nc->set_encrypt_key(ek_.p, key);
        if (!enc_ && (m_ == Mode::Ecb || m_ == Mode::Cbc || m_ == Mode::Xts)) b_.nc->set_decrypt_key(dk_.p, key);
        if (m_ == Mode::Xts) b_.nc->set_encrypt_key(tk_.p, key + p_.key_bytes / 2);  // tweak key
    }
    void start(const uint8_t* iv, size_t len) override {
        if (len) std::memcpy(iv_, iv, len);  // ECB passes no IV: memcpy from NULL is undefined even for 0 bytes
        left_.clear();
        cfb_pos_ = 0;
        used_ = false;
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        const nettle_cipher& c = *b_.nc;
        switch (m_) {
            case Mode::Ecb:
                (enc_ ? c.encrypt : c.decrypt)(enc_ ? ek_.p : dk_.p, len, out, in);
                return;
            case Mode::Cbc:
                if (!enc_) cbc_decrypt(dk_.p, c.decrypt, bs_, iv_, len, out, in);
                else if (b_.fused.cbc_encrypt) b_.fused.cbc_encrypt(ek_.p, iv_, len, out, in);
                else cbc_encrypt(ek_.p, c.encrypt, bs_, iv_, len, out, in);
                return;
            case Mode::Cfb8:
                (enc_ ? cfb8_encrypt : cfb8_decrypt)(ek_.p, c.encrypt, bs_, iv_, len, out, in);
                return;
            case Mode::Ctr: {
                left_.use(in, out, len);
                const size_t whole = len - len % bs_;
                if (whole) ctr_crypt(ek_.p, c.encrypt, bs_, iv_, whole, out, in);
                if (len > whole)
                    left_.tail(in + whole, out + whole, len - whole, bs_, [&](size_t n, uint8_t* d, const uint8_t* s) {
                        ctr_crypt(ek_.p, c.encrypt, bs_, iv_, n, d, s);
                    });
                return;
            }
            case Mode::Cfb:
                cfb(in, out, len);
                return;
            case Mode::Xts:
                // Nettle's XTS takes a data unit in one call (xts_*_message).
                if (used_) closed(p_, "one update per message (Nettle's XTS is a one-shot message API)");
                used_ = true;
                if (enc_) xts_encrypt_message(ek_.p, tk_.p, c.encrypt, iv_, len, out, in);
                else xts_decrypt_message(dk_.p, tk_.p, c.decrypt, c.encrypt, iv_, len, out, in);
                return;
            default:
                closed(p_, "mode not driven here");
        }
    }

private:
    // Full-block CFB: Nettle's cfb_* for whole blocks; a partial block is
    // finished here (E(register) xor data, the ciphertext fills the next register).
    void cfb(const uint8_t* in, uint8_t* out, size_t len) {
        const nettle_cipher& c = *b_.nc;
        while (len && cfb_pos_) {
            const uint8_t ct = enc_ ? uint8_t(*in ^ ks_[cfb_pos_]) : *in;
            *out++ = uint8_t(*in++ ^ ks_[cfb_pos_]);
            reg_[cfb_pos_] = ct;
            --len;
            if (++cfb_pos_ == bs_) { std::memcpy(iv_, reg_, bs_); cfb_pos_ = 0; }
        }
        const size_t whole = len - len % bs_;
        if (whole) (enc_ ? cfb_encrypt : cfb_decrypt)(ek_.p, c.encrypt, bs_, iv_, whole, out, in);
        in += whole;
        out += whole;
        len -= whole;
        if (!len) return;
        c.encrypt(ek_.p, bs_, ks_, iv_);
        for (size_t i = 0; i < len; ++i) {
            const uint8_t ct = enc_ ? uint8_t(in[i] ^ ks_[i]) : in[i];
            out[i] = uint8_t(in[i] ^ ks_[i]);
            reg_[i] = ct;
        }
        cfb_pos_ = len;
    }

    const Block& b_;
    Mode m_;
    const cb::Primitive& p_;
    bool enc_;
    size_t bs_;
    Ctx ek_, dk_, tk_;
    uint8_t iv_[16] = {0}, ks_[16] = {0}, reg_[16] = {0};
    size_t cfb_pos_ = 0;
    Leftover left_;
    bool used_ = false;
};

// GCM, EAX over one block cipher, and ChaCha20-Poly1305. Nettle takes a
// partial block only as the last piece of a message; a later update() in
// that message is refused.
class Aead : public cb::Cipher {
public:
    Aead(const Block* b, Mode m, bool chachapoly, const cb::Primitive& p, cb::Direction d)
        : b_(b), m_(m), cp_(chachapoly), p_(p), enc_(d == cb::Direction::Encrypt), ek_(b ? b->nc->context_size : 1) {
        gran_ = cp_ ? CHACHA_POLY1305_BLOCK_SIZE : 16;
    }

    void set_key(const uint8_t* key, size_t) override {
        if (cp_) { chacha_poly1305_set_key(&cp_ctx_, key); return; }
        b_->nc->set_encrypt_key(ek_.p, key);
        if (m_ == Mode::Gcm) gcm_set_key(&gcm_key_, ek_.p, b_->nc->encrypt);
        if (m_ == Mode::Eax) eax_set_key(&eax_key_, ek_.p, b_->nc->encrypt);
    }
    void start(const uint8_t* iv, size_t len) override {
        closed_ = partial_aad_ = false;
        if (cp_) chacha_poly1305_set_nonce(&cp_ctx_, iv);
        else if (m_ == Mode::Gcm) gcm_set_iv(&gcm_, &gcm_key_, len, iv);
        else eax_set_nonce(&eax_, &eax_key_, ek_.p, b_->nc->encrypt, len, iv);
    }
    void aad(const uint8_t* a, size_t len) override {
        if (partial_aad_) closed(p_, "associated data in pieces must be multiples of 16 bytes except the last");
        partial_aad_ = len % 16 != 0;
        if (cp_) chacha_poly1305_update(&cp_ctx_, len, a);
        else if (m_ == Mode::Gcm) gcm_update(&gcm_, &gcm_key_, len, a);
        else eax_update(&eax_, &eax_key_, ek_.p, b_->nc->encrypt, len, a);
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (closed_) closed(p_, "a piece that is not a multiple of the block ends the message's data");
        if (len % gran_) closed_ = true;
        if (cp_) {
            (enc_ ? chacha_poly1305_encrypt : chacha_poly1305_decrypt)(&cp_ctx_, len, out, in);
            return;
        }
        nettle_cipher_func* f = b_->nc->encrypt;
        if (m_ == Mode::Gcm) (enc_ ? gcm_encrypt : gcm_decrypt)(&gcm_, &gcm_key_, ek_.p, f, len, out, in);
        else (enc_ ? eax_encrypt : eax_decrypt)(&eax_, &eax_key_, ek_.p, f, len, out, in);
    }
    bool finish(uint8_t* tag) override {
        uint8_t t[16];
        const size_t n = p_.tag_bytes;
        if (cp_) chacha_poly1305_digest(&cp_ctx_, n, t);
        else if (m_ == Mode::Gcm) gcm_digest(&gcm_, &gcm_key_, ek_.p, b_->nc->encrypt, n, t);
        else eax_digest(&eax_, &eax_key_, ek_.p, b_->nc->encrypt, n, t);
        closed_ = true;
        if (enc_) { std::memcpy(tag, t, n); return true; }
        return memeql_sec(t, tag, n) != 0;
    }

private:
    const Block* b_;
    Mode m_;
    bool cp_;
    const cb::Primitive& p_;
    bool enc_;
    Ctx ek_;
    size_t gran_ = 16;
    gcm_key gcm_key_;
    gcm_ctx gcm_;
    eax_key eax_key_;
    eax_ctx eax_;
    chacha_poly1305_ctx cp_ctx_;
    bool closed_ = false, partial_aad_ = false;
};

// CCM and SIV take a message in one call (cb::OneShotAead): CCM needs the
// message length in its first block, and Nettle's SIV is a one-shot message
// API (siv_cmac_*_message) that writes and reads V || C, so it works through
// a scratch buffer.
class OneShot : public cb::OneShotAead {
public:
    OneShot(const Block& b, Mode m, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      std::string(p.name) + " (Nettle): " +
                          (m == Mode::Ccm ? "one update per message (CCM needs the message length first)"
                                          : "one update per message (Nettle's SIV is a one-shot message API)")),
          b_(b), m_(m), ek_(b.nc->context_size), ek2_(m == Mode::Siv ? b.nc->context_size : 1) {}

    void set_key(const uint8_t* key, size_t) override {
        if (m_ == Mode::Siv) siv_cmac_set_key(&cmac_key_, ek_.p, ek2_.p, b_.nc, key);
        else b_.nc->set_encrypt_key(ek_.p, key);
    }

private:
    void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) override {
        if (m_ == Mode::Ccm) {
            ccm_begin(len);
            if (len) ccm_encrypt(&ccm_, ek_.p, b_.nc->encrypt, len, out, in);
            ccm_digest(&ccm_, ek_.p, b_.nc->encrypt, tag_bytes(), tag);
            return;
        }
        scratch_.resize(len + SIV_DIGEST_SIZE);
        siv_cmac_encrypt_message(&cmac_key_, ek_.p, b_.nc, ek2_.p, nonce_len(), nonce(), ad_len(), ad(),
                                 len + SIV_DIGEST_SIZE, scratch_.data(), in);
        std::memcpy(tag, scratch_.data(), SIV_DIGEST_SIZE);
        std::memcpy(out, scratch_.data() + SIV_DIGEST_SIZE, len);
    }
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) override {
        if (m_ == Mode::Ccm) {
            uint8_t t[16];
            ccm_begin(len);
            if (len) ccm_decrypt(&ccm_, ek_.p, b_.nc->encrypt, len, out, in);
            ccm_digest(&ccm_, ek_.p, b_.nc->encrypt, tag_bytes(), t);
            return memeql_sec(t, tag, tag_bytes()) != 0;
        }
        scratch_.resize(len + SIV_DIGEST_SIZE);
        std::memcpy(scratch_.data(), tag, SIV_DIGEST_SIZE);
        std::memcpy(scratch_.data() + SIV_DIGEST_SIZE, in, len);
        return siv_cmac_decrypt_message(&cmac_key_, ek_.p, b_.nc, ek2_.p, nonce_len(), nonce(), ad_len(), ad(), len, out,
                                        scratch_.data()) != 0;
    }
    void ccm_begin(size_t msg_len) {
        ccm_set_nonce(&ccm_, ek_.p, b_.nc->encrypt, nonce_len(), nonce(), ad_len(), msg_len, tag_bytes());
        if (ad_len()) ccm_update(&ccm_, ek_.p, b_.nc->encrypt, ad_len(), ad());
    }

    const Block& b_;
    Mode m_;
    Ctx ek_, ek2_;
    ccm_ctx ccm_;
    cmac128_key cmac_key_;
    std::vector<uint8_t> scratch_;
};

class Stream : public cb::Cipher {
public:
    explicit Stream(Whole w) : w_(w) {}
    void set_key(const uint8_t* key, size_t len) override {
        switch (w_) {
            case Whole::ChaCha20: chacha_set_key(&chacha_, key); break;
            case Whole::Salsa20:
            case Whole::Salsa20r12: salsa20_256_set_key(&salsa_, key); break;
            default: arcfour_set_key(&rc4_key_, len, key); break;
        }
    }
    void start(const uint8_t* iv, size_t) override {
        left_.clear();
        switch (w_) {
            case Whole::ChaCha20: chacha_set_nonce96(&chacha_, iv); break;
            case Whole::Salsa20:
            case Whole::Salsa20r12: salsa20_set_nonce(&salsa_, iv); break;
            // RC4 has no IV: a new message restarts the keystream from the
            // state the key schedule left (kept in rc4_key_).
            default: rc4_ = rc4_key_; break;
        }
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (w_ == Whole::Rc4) { arcfour_crypt(&rc4_, len, out, in); return; }
        left_.use(in, out, len);
        auto gen = [&](size_t n, uint8_t* d, const uint8_t* s) {
            if (w_ == Whole::ChaCha20) chacha_crypt32(&chacha_, n, d, s);
            else if (w_ == Whole::Salsa20r12) salsa20r12_crypt(&salsa_, n, d, s);
            else salsa20_crypt(&salsa_, n, d, s);
        };
        const size_t whole = len - len % 64;
        if (whole) gen(whole, out, in);
        if (len > whole) left_.tail(in + whole, out + whole, len - whole, 64, gen);
    }

private:
    Whole w_;
    chacha_ctx chacha_;
    salsa20_ctx salsa_;
    arcfour_ctx rc4_key_, rc4_;
    Leftover left_;
};

class Hash : public cb::Hash {
public:
    Hash(const nettle_hash* h, size_t n) : h_(h), n_(n), ctx_(h->context_size) {}
    void init() override { h_->init(ctx_.p); }
    void update(const uint8_t* in, size_t len) override { h_->update(ctx_.p, len, in); }
    void final(uint8_t* d) override { h_->digest(ctx_.p, n_, d); }

private:
    const nettle_hash* h_;
    size_t n_;
    Ctx ctx_;
};

// Which code the fat build picks. Nettle 3.8's fat-x86_64 init chooses AES-NI,
// SHA-NI and PCLMUL variants from CPUID, or from NETTLE_FAT_OVERRIDE (a
// comma-separated feature list) when that is set. The variants are exported
// as NETTLE_INTERNAL symbols, which tells a fat build from a plain one.
struct Fat {
    bool fat = false, aesni = false, sha_ni = false, pclmul = false;
    std::string how;
};

Fat detect_fat() {
    Fat f;
    f.fat = dlsym(RTLD_DEFAULT, "_nettle_aes128_encrypt_aesni") != nullptr;
    if (!f.fat) { f.how = "not a fat build"; return f; }
    if (const char* o = std::getenv("NETTLE_FAT_OVERRIDE")) {
        const std::string s = std::string(",") + o + ",";
        f.aesni = s.find(",aesni,") != std::string::npos;
        f.sha_ni = s.find(",sha_ni,") != std::string::npos;
        f.pclmul = s.find(",pclmul,") != std::string::npos;
        f.how = std::string("fat build, NETTLE_FAT_OVERRIDE=") + o;
        return f;
    }
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        f.aesni = c >> 25 & 1;
        f.pclmul = c >> 1 & 1;
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) f.sha_ni = b >> 29 & 1;
    f.how = "fat build, features from CPUID";
    return f;
}

class NettleAdapter : public cb::Adapter {
public:
    NettleAdapter() : fat_(detect_fat()) {
        offered_.probe_registry(*this, [this](const cb::Primitive& p, Recipe& r) { return recipe_for(p, r); },
                                [this](const cb::Primitive& p, const Recipe& r) { return provider(p, r); });
    }

    std::string name() const override { return "nettle"; }
    std::string library() const override { return "Nettle"; }
    std::string version() const override {
        return std::to_string(nettle_version_major()) + "." + std::to_string(nettle_version_minor());
    }
    std::vector<cb::Offer> offers() const override { return offered_.offers(); }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const Recipe* found = offered_.find(p.name);
        if (!found || p.kind == cb::Kind::Hash) return Adapter::cipher(p, d);
        const Recipe& r = *found;
        if (r.whole_set) {
            if (r.whole == Whole::ChaChaPoly) return std::make_unique<Aead>(nullptr, Mode::Gcm, true, p, d);
            return std::make_unique<Stream>(r.whole);
        }
        if (r.mode == Mode::Ccm || r.mode == Mode::Siv) return std::make_unique<OneShot>(*r.block, r.mode, p, d);
        if (r.mode == Mode::Gcm || r.mode == Mode::Eax) return std::make_unique<Aead>(r.block, r.mode, false, p, d);
        return std::make_unique<BlockCipher>(*r.block, r.mode, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const Recipe* r = offered_.find(p.name);
        if (!r || p.kind != cb::Kind::Hash) return Adapter::hash(p);
        return std::make_unique<Hash>(r->hash, p.digest_bytes);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::string sel = std::string(fat_.aesni ? "aesni " : "") + (fat_.sha_ni ? "sha_ni " : "") + (fat_.pclmul ? "pclmul" : "");
        return {{"fat", fat_.how}, {"fat_features", sel}};
    }

private:
    struct Recipe {
        const Block* block = nullptr;
        Mode mode = Mode::Ecb;
        bool whole_set = false;
        Whole whole = Whole::Rc4;
        const nettle_hash* hash = nullptr;  // hashes
    };

    bool recipe_for(const cb::Primitive& p, Recipe& r) const {
        if (p.kind == cb::Kind::Hash) {
            for (const auto& [reg, h] : kHashes) {
                if (std::strcmp(reg, p.name) != 0) continue;
                if (h != &kShake256 && h->digest_size != p.digest_bytes) return false;
                r.hash = h;
                return true;
            }
            return false;
        }
        for (const auto& [reg, w] : kWhole)
            if (std::strcmp(reg, p.name) == 0) {
                r.whole_set = true;
                r.whole = w;
                return true;
            }
        if (!*p.mode) return false;
        const std::string fam = p.family;
        const size_t bits = (std::strcmp(p.mode, "xts") == 0 || std::strcmp(p.mode, "siv") == 0) ? p.key_bytes * 4 : p.key_bytes * 8;
        const std::string key = fam + "-" + std::to_string(fam == "des" ? 56 : fam == "3des" ? (p.key_bytes == 16 ? 112 : 168) : bits);
        bool mode_ok = false;
        for (const auto& [reg, m] : kModes)
            if (std::strcmp(reg, p.mode) == 0) { r.mode = m; mode_ok = true; }
        if (!mode_ok) return false;
        for (const auto& b : kBlocks)
            if (key == b.name) { r.block = &b; return true; }
        return false;
    }

    // Features where the fat build's choice fixes the code: its AES-NI, SHA-NI and PCLMUL
    // variants, or the x86_64 assembly it falls back to. A plain build, and the primitives
    // Nettle does not dispatch (some x86_64 assembly, some C), are unknown.
    cb::Path provider(const cb::Primitive& p, const Recipe& r) const {
        using cb::Feature;
        const std::string mode = p.mode;
        const std::string fat = " (" + fat_.how + ")";
        const cb::Features fat_asm = fat_.fat ? cb::Features(Feature::Asm) : cb::Features{};
        std::string s;
        cb::Features used{};
        if (r.block && r.block->aes) {
            s = (fat_.aesni ? "AES-NI" : "AES x86_64 tables") + fat;
            used = fat_.aesni ? cb::Features(Feature::AesNi) : fat_asm;
            if (mode == "cbc" && r.block->fused.cbc_encrypt)
                s += "; encryption through fused cbc_aes" + std::to_string(p.key_bytes * 8) + "_encrypt";
        } else if (p.kind == cb::Kind::Hash && (std::strcmp(p.name, "sha-1") == 0 || std::strcmp(p.name, "sha-224") == 0 ||
                                                std::strcmp(p.name, "sha-256") == 0)) {
            s = (fat_.sha_ni ? "SHA-NI" : "x86_64 assembly") + fat;
            used = fat_.sha_ni ? cb::Features(Feature::ShaNi) : fat_asm;
        } else {
            s = "Nettle, one implementation (not CPU-dispatched)";
        }
        if (mode == "gcm") {
            s += fat_.pclmul ? "; GHASH: PCLMUL" + fat : "; GHASH: tables";
            used |= fat_.pclmul ? cb::Features(Feature::Pclmul) : fat_asm;
        }
        if (mode == "ccm") s += "; one update per message (CCM needs the length first)";
        if (mode == "xts") s += "; one-shot xts_*_message: one update per message";
        if (mode == "siv") s += "; one-shot siv_cmac_*_message: one update per message, decryption output written at finish";
        if (std::strcmp(p.family, "3des") == 0 && p.key_bytes == 16) s += "; des3 keyed K1||K2||K1";
        return {s, used};
    }

    Fat fat_;
    cb::Offered<Recipe> offered_;
};

}  // namespace

CB_ADAPTER_FACTORY(nettle) { return std::make_unique<NettleAdapter>(); }
