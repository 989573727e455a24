// The Linux kernel crypto API through AF_ALG sockets, via libkcapi.
//
// Many kernels (minimal VM kernels in particular) are built without
// CONFIG_CRYPTO_USER_API_{SKCIPHER,HASH,AEAD}: then socket(AF_ALG, ...) fails
// with EAFNOSUPPORT (errno 97). The adapter probes that once at start-up and,
// if it fails, reports the whole implementation unavailable with the errno.
//
// Where AF_ALG works, every operation is a system call. The adapter passes
// the IV explicitly with every operation and keeps the chaining state itself
// (CBC: last ciphertext block; CTR: the counter plus the keystream left over
// from a partial block), so a message may be split over update() calls of any
// length without relying on the kernel keeping the IV between operations.
// Operations are cut into pieces of at most 16 pages, the most the kernel
// takes in one AF_ALG operation.
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <kcapi.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/one_shot_aead.h"

#ifndef AF_ALG
#define AF_ALG 38
#endif

namespace {

enum class Type { Skcipher, Aead, Hash };

struct KcapiName {
    const char* primitive;  // canonical registry name
    const char* kernel;     // kernel crypto API algorithm name
    Type type;
};

#include "names.inc"  // the name tables, generated from manifest.toml

std::string errno_text(long e) {
    if (e < 0) e = -e;
    return "errno " + std::to_string(e) + " (" + std::strerror(int(e)) + ")";
}

size_t max_op_bytes() {
    long page = sysconf(_SC_PAGESIZE);
    return size_t(page > 0 ? page : 4096) * 16;  // ALG_MAX_PAGES
}

void be_add(uint8_t* ctr, uint64_t n) {  // 128-bit big-endian counter += n
    for (size_t j = 16; j-- > 0 && n;) {
        uint64_t s = uint64_t(ctr[j]) + (n & 0xff);
        ctr[j] = uint8_t(s);
        n = (n >> 8) + (s >> 8);
    }
}

// ------------------------------------------------------------------ skcipher: ecb/cbc/ctr(aes)
class KcSkcipher : public cb::Cipher {
public:
    KcSkcipher(const KcapiName& n, const cb::Primitive& p, cb::Direction d)
        : enc_(d == cb::Direction::Encrypt), chunk_(max_op_bytes()) {
        const std::string mode = p.mode;
        mode_ = mode == "ecb" ? Mode::Ecb : mode == "cbc" ? Mode::Cbc : Mode::Ctr;
        int rc = kcapi_cipher_init(&h_, n.kernel, 0);
        if (rc < 0) throw cb::Error(std::string("kcapi_cipher_init(") + n.kernel + ") failed: " + errno_text(rc));
        const uint32_t ivs = kcapi_cipher_ivsize(h_);
        if (ivs != (mode_ == Mode::Ecb ? 0u : 16u))
            throw cb::Error(std::string(n.kernel) + " has an unexpected IV size " + std::to_string(ivs));
    }
    ~KcSkcipher() override { if (h_) kcapi_cipher_destroy(h_); }

    void set_key(const uint8_t* key, size_t len) override {
        int rc = kcapi_cipher_setkey(h_, key, uint32_t(len));
        if (rc < 0) throw cb::Error("kcapi_cipher_setkey failed: " + errno_text(rc));
    }
    void start(const uint8_t* iv, size_t len) override {
        if (len) std::memcpy(iv_, iv, 16);
        used_ = 16;
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        if (mode_ != Mode::Ctr) {  // whole blocks (checked by the engine)
            while (len) {
                const size_t n = len < chunk_ ? len : chunk_;
                block_op(in, out, n);
                in += n; out += n; len -= n;
            }
            return;
        }
        // CTR: the rest of a partly used keystream block first.
        while (used_ < 16 && len) { *out++ = *in++ ^ ks_[used_++]; --len; }
        size_t full = len & ~size_t(15);
        while (full) {
            const size_t n = full < chunk_ ? full : chunk_;
            op(in, out, n, iv_);
            be_add(iv_, n / 16);
            in += n; out += n; len -= n; full -= n;
        }
        if (len) {  // a partial block: keep its keystream for the next call
            std::memset(ks_, 0, 16);
            op(ks_, ks_, 16, iv_);
            be_add(iv_, 1);
            for (size_t i = 0; i < len; ++i) out[i] = in[i] ^ ks_[i];
            used_ = len;
        }
    }

private:
    enum class Mode { Ecb, Cbc, Ctr };

    void block_op(const uint8_t* in, uint8_t* out, size_t n) {
        if (mode_ == Mode::Ecb) { op(in, out, n, nullptr); return; }
        uint8_t next[16] = {0};
        if (!enc_) std::memcpy(next, in + n - 16, 16);  // in may equal out
        op(in, out, n, iv_);
        if (enc_) std::memcpy(next, out + n - 16, 16);
        std::memcpy(iv_, next, 16);
    }
    void op(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* iv) {
        const bool enc = enc_ || mode_ == Mode::Ctr;  // CTR keystream: always the encrypt direction
        ssize_t r = enc ? kcapi_cipher_encrypt(h_, in, n, iv, out, n, KCAPI_ACCESS_SENDMSG)
                        : kcapi_cipher_decrypt(h_, in, n, iv, out, n, KCAPI_ACCESS_SENDMSG);
        if (r < 0) throw cb::Error(std::string(enc ? "kcapi_cipher_encrypt" : "kcapi_cipher_decrypt") + " failed: " + errno_text(r));
        if (size_t(r) != n) throw cb::Error("AF_ALG returned " + std::to_string(r) + " of " + std::to_string(n) + " bytes");
    }

    bool enc_;
    Mode mode_;
    size_t chunk_;
    struct kcapi_handle* h_ = nullptr;
    uint8_t iv_[16] = {0}, ks_[16] = {0};
    size_t used_ = 16;
};

// ------------------------------------------------------------------ aead: gcm(aes), one-shot
// One sendmsg/recvmsg per message over AAD || data || tag, the layout AF_ALG
// wants; the message state machine is cb::OneShotAead's.
class KcAead : public cb::OneShotAead {
public:
    KcAead(const KcapiName& n, const cb::Primitive& p, cb::Direction d)
        : OneShotAead(d, p.tag_bytes,
                      "AF_ALG AEADs are one-shot (one sendmsg/recvmsg per message): a message is one update() call "
                      "(the bulk workload's many update() calls per message cannot be timed honestly; use workload 'message')"),
          max_(max_op_bytes()) {
        int rc = kcapi_aead_init(&h_, n.kernel, 0);
        if (rc < 0) throw cb::Error(std::string("kcapi_aead_init(") + n.kernel + ") failed: " + errno_text(rc));
        if (kcapi_aead_ivsize(h_) != p.iv_bytes)
            throw cb::Error(std::string(n.kernel) + " has an unexpected IV size " + std::to_string(kcapi_aead_ivsize(h_)));
        rc = kcapi_aead_settaglen(h_, uint32_t(p.tag_bytes));
        if (rc < 0) throw cb::Error("kcapi_aead_settaglen failed: " + errno_text(rc));
        buf_.resize(max_ + 64);
    }
    ~KcAead() override { if (h_) kcapi_aead_destroy(h_); }

    void set_key(const uint8_t* key, size_t len) override {
        int rc = kcapi_aead_setkey(h_, key, uint32_t(len));
        if (rc < 0) throw cb::Error("kcapi_aead_setkey failed: " + errno_text(rc));
    }

private:
    // Lays out AAD || data in buf_ for one operation on n bytes of data.
    uint8_t* load(const uint8_t* in, size_t n) {
        if (ad_len() + n + tag_bytes() > max_)
            throw cb::Unsupported("AF_ALG takes at most " + std::to_string(max_) + " bytes per AEAD operation (AAD + data + tag)");
        if (ad_len() + n == 0) throw cb::Unsupported("libkcapi refuses an empty AEAD operation (no AAD, no data)");
        uint8_t* b = buf_.data();
        if (ad_len()) std::memcpy(b, ad(), ad_len());
        if (n) std::memcpy(b + ad_len(), in, n);
        kcapi_aead_setassoclen(h_, ad_len());
        return b;
    }
    void seal(const uint8_t* in, uint8_t* out, size_t n, uint8_t* tag) override {
        const size_t a = ad_len(), tl = tag_bytes();
        uint8_t* b = load(in, n);
        ssize_t r = kcapi_aead_encrypt(h_, b, a + n, nonce(), b, a + n + tl, KCAPI_ACCESS_SENDMSG);
        if (r < 0) throw cb::Error("kcapi_aead_encrypt failed: " + errno_text(r));
        if (size_t(r) != a + n + tl) throw cb::Error("kcapi_aead_encrypt returned " + std::to_string(r) + " bytes");
        if (n) std::memcpy(out, b + a, n);
        std::memcpy(tag, b + a + n, tl);
    }
    bool open(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* tag) override {
        const size_t a = ad_len(), tl = tag_bytes();
        uint8_t* b = load(in, n);
        std::memcpy(b + a + n, tag, tl);
        ssize_t r = kcapi_aead_decrypt(h_, b, a + n + tl, nonce(), b, a + n, KCAPI_ACCESS_SENDMSG);
        if (r == -EBADMSG) return false;
        if (r < 0) throw cb::Error("kcapi_aead_decrypt failed: " + errno_text(r));
        if (size_t(r) != a + n) throw cb::Error("kcapi_aead_decrypt returned " + std::to_string(r) + " bytes");
        if (n) std::memcpy(out, b + a, n);
        return true;
    }

    size_t max_;
    struct kcapi_handle* h_ = nullptr;
    std::vector<uint8_t> buf_;
};

// ------------------------------------------------------------------ hash
class KcHash : public cb::Hash {
public:
    KcHash(const KcapiName& n, size_t out) : out_(out) {
        int rc = kcapi_md_init(&h_, n.kernel, 0);
        if (rc < 0) throw cb::Error(std::string("kcapi_md_init(") + n.kernel + ") failed: " + errno_text(rc));
        if (kcapi_md_digestsize(h_) != out) throw cb::Error(std::string(n.kernel) + " has an unexpected digest size");
    }
    ~KcHash() override { if (h_) kcapi_md_destroy(h_); }
    // After kcapi_md_final the kernel starts a new hash with the next data, so
    // init() has work only after an update() that was never finished.
    void init() override {
        if (dirty_) {
            uint8_t scratch[64];
            kcapi_md_final(h_, scratch, sizeof scratch);
            dirty_ = false;
        }
    }
    void update(const uint8_t* in, size_t len) override {
        const size_t chunk = 16384;  // below libkcapi's vmsplice threshold: plain send()
        while (len) {
            const size_t n = len < chunk ? len : chunk;
            ssize_t r = kcapi_md_update(h_, in, n);
            if (r < 0) throw cb::Error("kcapi_md_update failed: " + errno_text(r));
            dirty_ = true;
            in += n;
            len -= n;
        }
    }
    void final(uint8_t* d) override {
        ssize_t r = kcapi_md_final(h_, d, out_);
        dirty_ = false;
        if (r < 0) throw cb::Error("kcapi_md_final failed: " + errno_text(r));
        if (size_t(r) != out_) throw cb::Error("kcapi_md_final returned " + std::to_string(r) + " bytes");
    }

private:
    struct kcapi_handle* h_ = nullptr;
    size_t out_;
    bool dirty_ = false;
};

// ------------------------------------------------------------------ /proc/crypto
// The driver the kernel picks for a name: the highest-priority entry of that
// name that is not internal-only and passed its self-test.
std::string kernel_driver(const std::string& alg) {
    std::ifstream f("/proc/crypto");
    if (!f) return "";
    std::string line, name, driver, module, best, best_module;
    long prio = -1, best_prio = -1;
    bool internal = false, failed = false;
    auto flush = [&] {
        if (name == alg && !internal && !failed && !driver.empty() && prio > best_prio) {
            best = driver;
            best_module = module;
            best_prio = prio;
        }
        name.clear(); driver.clear(); module.clear();
        prio = -1; internal = failed = false;
    };
    while (std::getline(f, line)) {
        if (line.find_first_not_of(" \t") == std::string::npos) { flush(); continue; }
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string k = line.substr(0, colon), v = line.substr(colon + 1);
        k.erase(k.find_last_not_of(" \t") + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        if (k == "name") name = v;
        else if (k == "driver") driver = v;
        else if (k == "module") module = v;
        else if (k == "priority") prio = std::strtol(v.c_str(), nullptr, 10);
        else if (k == "internal") internal = v == "yes";
        else if (k == "selftest") failed = v != "passed" && v != "unknown";
    }
    flush();
    if (best.empty()) return "";
    return best + (best_module.empty() || best_module == "kernel" ? "" : " [module " + best_module + "]") +
           ", priority " + std::to_string(best_prio);
}

// ------------------------------------------------------------------ start-up known answers
// FIPS 197 C.1-C.3 (ECB), SP 800-38A F.2 (CBC) and F.5 (CTR), the GCM spec's
// test cases 2, 8 and 14, FIPS 180 "abc". Checked with split updates, so the
// adapter's own chaining is exercised too.
struct Kat {
    const char* primitive;
    const char* key;
    const char* iv;
    const char* in;
    const char* out;  // AEAD: ciphertext || tag
};
const Kat kKats[] = {
    {"aes-128-ecb", "000102030405060708090a0b0c0d0e0f", "", "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a"},
    {"aes-192-ecb", "000102030405060708090a0b0c0d0e0f1011121314151617", "", "00112233445566778899aabbccddeeff", "dda97ca4864cdfe06eaf70a0ec0d7191"},
    {"aes-256-ecb", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "", "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089"},
    {"aes-128-cbc", "2b7e151628aed2a6abf7158809cf4f3c", "000102030405060708090a0b0c0d0e0f",
     "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"},
    {"aes-192-cbc", "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "000102030405060708090a0b0c0d0e0f",
     "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"},
    {"aes-256-cbc", "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", "000102030405060708090a0b0c0d0e0f",
     "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"},
    {"aes-128-ctr", "2b7e151628aed2a6abf7158809cf4f3c", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"},
    {"aes-192-ctr", "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"},
    {"aes-256-ctr", "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"},
    {"aes-128-gcm", "00000000000000000000000000000000", "000000000000000000000000", "00000000000000000000000000000000",
     "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"},
    {"aes-192-gcm", "000000000000000000000000000000000000000000000000", "000000000000000000000000", "00000000000000000000000000000000",
     "98e7247c07f0fe411c267e4384b0f6002ff58d80033927ab8ef4d4587514f0fb"},
    {"aes-256-gcm", "0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000",
     "00000000000000000000000000000000", "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"},
    {"sha-1", "", "", "616263", "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {"sha-256", "", "", "616263", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"sha-512", "", "", "616263",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
};

std::vector<uint8_t> unhex(const char* s) {
    std::vector<uint8_t> b(std::strlen(s) / 2);
    for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(std::stoi(std::string(s + 2 * i, 2), nullptr, 16));
    return b;
}

// ------------------------------------------------------------------ adapter
class KcapiAdapter : public cb::Adapter {
public:
    KcapiAdapter() {
        kcapi_set_verbosity(KCAPI_LOG_NONE);  // failures are reported through the protocol
        char v[64] = {0};
        kcapi_versionstring(v, sizeof v);
        version_ = v;
        struct utsname u;
        if (uname(&u) == 0) kernel_ = std::string(u.sysname) + " " + u.release;
        // The one question that decides everything: does this kernel have AF_ALG?
        int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);
        if (fd < 0) {
            const int e = errno;
            reason_ = "AF_ALG is not available in this kernel (" + kernel_ + "): socket(AF_ALG, SOCK_SEQPACKET, 0) failed with " +
                      errno_text(e);
            if (e == EAFNOSUPPORT)
                reason_ += "; the kernel has no AF_ALG support (CONFIG_CRYPTO_USER_API_SKCIPHER/HASH/AEAD not built in, "
                           "or their modules cannot be loaded)";
            return;
        }
        close(fd);
        for (const auto& n : kNames) {
            const cb::Primitive* p = cb::find_primitive(n.primitive);
            if (!p) continue;
            std::string why;
            if (!works(*p, n, why)) {
                skipped_ += (skipped_.empty() ? "" : "; ") + std::string(n.primitive) + ": " + why;
                continue;
            }
            // The kernel picks the driver (/proc/crypto names it, for people): which instructions
            // it uses is not announced as data, so its features are unknown.
            const std::string drv = kernel_driver(n.kernel);
            offers_.push_back({n.primitive, {"kernel " + (drv.empty() ? std::string(n.kernel) + " (driver not listed in /proc/crypto)" : drv) +
                                                 (n.type == Type::Aead ? ", AF_ALG one-shot" : ", AF_ALG"), cb::Features{}}});
        }
        if (offers_.empty())
            reason_ = "AF_ALG exists, but none of the algorithms could be used: " + skipped_;
    }

    std::string name() const override { return "kcapi"; }
    std::string library() const override { return "Linux kernel crypto API (AF_ALG via libkcapi)"; }
    std::string version() const override { return version_ + ", " + kernel_; }
    std::string unavailable_reason() const override { return reason_; }
    std::vector<cb::Offer> offers() const override { return offers_; }

    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        const KcapiName* n = cb::find_entry(kNames, p.name);
        if (!n || n->type == Type::Hash || !reason_.empty()) return Adapter::cipher(p, d);
        if (n->type == Type::Aead) return std::make_unique<KcAead>(*n, p, d);
        return std::make_unique<KcSkcipher>(*n, p, d);
    }
    std::unique_ptr<cb::Hash> hash(const cb::Primitive& p) const override {
        const KcapiName* n = cb::find_entry(kNames, p.name);
        if (!n || n->type != Type::Hash || !reason_.empty()) return Adapter::hash(p);
        return std::make_unique<KcHash>(*n, p.digest_bytes);
    }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        std::vector<std::pair<std::string, std::string>> n = {
            {"kernel", kernel_},
            {"transfer", "sendmsg/read (KCAPI_ACCESS_SENDMSG): data is copied into and out of the kernel; at most 16 pages per operation"},
        };
        if (!skipped_.empty()) n.push_back({"not_offered", skipped_});
        return n;
    }

private:
    bool works(const cb::Primitive& p, const KcapiName& n, std::string& why) const {
        const Kat* k = nullptr;
        for (const auto& x : kKats)
            if (std::strcmp(x.primitive, p.name) == 0) k = &x;
        if (!k) { why = "no start-up known answer"; return false; }
        try {
            const auto key = unhex(k->key), iv = unhex(k->iv), in = unhex(k->in), want = unhex(k->out);
            if (n.type == Type::Hash) {
                auto h = std::make_unique<KcHash>(n, p.digest_bytes);
                std::vector<uint8_t> d(p.digest_bytes);
                h->init();
                h->update(in.data(), 1);
                h->update(in.data() + 1, in.size() - 1);
                h->final(d.data());
                if (d != want) { why = "known answer mismatch"; return false; }
                return true;
            }
            const size_t n_in = in.size();
            std::vector<uint8_t> buf = in, tag(p.tag_bytes);
            auto e = cipher(p, cb::Direction::Encrypt), d = cipher(p, cb::Direction::Decrypt);
            e->set_key(key.data(), key.size());
            d->set_key(key.data(), key.size());
            e->start(iv.data(), iv.size());
            d->start(iv.data(), iv.size());
            if (n.type == Type::Aead) {
                e->update(buf.data(), buf.data(), n_in);
                e->finish(tag.data());
                const std::vector<uint8_t> ct = buf;
                std::vector<uint8_t> got = ct;
                got.insert(got.end(), tag.begin(), tag.end());
                if (got != want) { why = "known answer mismatch"; return false; }
                d->update(ct.data(), buf.data(), n_in);
                if (!d->finish(tag.data()) || buf != in) { why = "decryption of the known answer failed"; return false; }
                tag[0] ^= 1;
                d->start(iv.data(), iv.size());
                d->update(ct.data(), buf.data(), n_in);
                if (d->finish(tag.data())) { why = "a forged tag was accepted"; return false; }
                return true;
            }
            // Split at a block boundary (and, for CTR, mid-block), in place.
            const size_t cut = std::string(p.mode) == "ctr" ? 7 : p.block_bytes;
            e->update(buf.data(), buf.data(), cut);
            e->update(buf.data() + cut, buf.data() + cut, n_in - cut);
            if (buf != want) { why = "known answer mismatch"; return false; }
            d->update(buf.data(), buf.data(), n_in);
            if (buf != in) { why = "decryption of the known answer failed"; return false; }
            return true;
        } catch (const std::exception& ex) {
            why = ex.what();
            return false;
        }
    }

    std::string version_, kernel_, reason_, skipped_;
    std::vector<cb::Offer> offers_;
};

}  // namespace

CB_ADAPTER_FACTORY(kcapi) { return std::make_unique<KcapiAdapter>(); }
