// BeeCrypt 4.2.1 through its generic API (beecrypt.h): a blockCipherContext over the
// descriptor blockCipherFind() returns, run by blockCipherContextECB/CBC/CTR (blockmode.c),
// and a hashFunctionContext over hashFunctionFind(). The contexts' constructors and
// destructors are BeeCrypt's own C++ glue (cppglue.cxx: blockCipherContextInit/Free).
// The library is built from its published tarball into the build tree (build.cmake);
// see README.md for what is offered and why.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include <beecrypt/beecrypt.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/probe.h"

namespace {

#include "names.inc"  // the name tables, generated from manifest.toml

void check(int rc, const char* what) {
    if (rc != 0) throw cb::Error(std::string("BeeCrypt ") + what + " failed");
}

enum class Mode { Ecb, Cbc, Ctr };

Mode mode_of(const cb::Primitive& p) {
    const std::string m = p.mode;
    return m == "ecb" ? Mode::Ecb : m == "cbc" ? Mode::Cbc : Mode::Ctr;
}

// Whether the descriptor takes a key of `bytes` (BeeCrypt: keybitsmin..keybitsmax in steps
// of keybitsinc; AES 128..256 by 64, Blowfish 64..448 by 32).
bool takes_key(const blockCipher& bc, size_t bytes) {
    const size_t bits = bytes * 8;
    return bits >= bc.keybitsmin && bits <= bc.keybitsmax && (bits - bc.keybitsmin) % bc.keybitsinc == 0;
}

// Whether the descriptor's digestsize is one the manifest lists as wrong (the digest is longer).
bool wrong_digest_size(const hashFunction& h) {
    for (const auto& [name, declared] : kWrongDigestSize)
        if (std::strcmp(h.name, name) == 0 && h.digestsize == declared) return true;
    return false;
}

class BeeCipher : public cb::Cipher {
public:
    BeeCipher(const blockCipher* bc, Mode mode, bool enc)
        : ctx_(bc), mode_(mode), enc_(enc), bs_(bc->blocksize), ks_(bs_), zero_(bs_, 0), used_(bs_) {
        if (!ctx_.param) throw cb::Error("BeeCrypt blockCipherContextInit failed");
    }
    void set_key(const uint8_t* key, size_t n) override {
        // CTR encrypts the counter in both directions: its contexts are keyed for
        // encryption (a decryption key schedule would make AES's raw.encrypt wrong).
        const cipherOperation op = enc_ || mode_ == Mode::Ctr ? ENCRYPT : DECRYPT;
        check(blockCipherContextSetup(&ctx_, key, n * 8, op), "blockCipherContextSetup");
    }
    void start(const uint8_t* iv, size_t) override {
        // CBC: SetIV copies the IV into the feedback words. CTR: SetCTR takes the initial
        // counter block as a big-endian number (os2ip) plus 0.
        if (mode_ == Mode::Cbc) check(blockCipherContextSetIV(&ctx_, iv), "blockCipherContextSetIV");
        if (mode_ == Mode::Ctr) check(blockCipherContextSetCTR(&ctx_, iv, 0), "blockCipherContextSetCTR");
        used_ = bs_;  // no keystream left over
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (mode_ != Mode::Ctr) return blocks(in, out, n / bs_);
        // BeeCrypt's CTR takes whole blocks. A message that goes on after a partial block
        // uses the rest of that block's keystream first; a partial block at the end gets a
        // whole block of keystream from the library (CTR over zeros), and keeps the rest.
        size_t i = 0;
        for (; i < n && used_ < bs_; ++i) out[i] = in[i] ^ ks_[used_++];
        const size_t whole = (n - i) / bs_;
        blocks(in + i, out + i, whole);
        for (i += whole * bs_; i < n; ++i) {
            if (used_ == bs_) {
                blocks(zero_.data(), ks_.data(), 1);
                used_ = 0;
            }
            out[i] = in[i] ^ ks_[used_++];
        }
    }
    // The library's loop, as its own benchmark (tests/benchbc.c) runs it: one call per buffer.
    void update_many(const uint8_t* in, uint8_t* out, size_t len, uint64_t count) override {
        if (len % bs_ || used_ != bs_) return Cipher::update_many(in, out, len, count);
        for (uint64_t k = 0; k < count; ++k) blocks(in, out, len / bs_);
    }

private:
    // n whole blocks through the mode's BeeCrypt call (it takes an int count); the
    // feedback (CBC) and counter (CTR) carry over from one call to the next.
    void blocks(const uint8_t* in, uint8_t* out, size_t n) {
        while (n) {
            const int part = int(std::min<size_t>(n, INT_MAX / 64));
            auto* dst = reinterpret_cast<uint32_t*>(out);
            const auto* src = reinterpret_cast<const uint32_t*>(in);
            const int rc = mode_ == Mode::Ecb   ? blockCipherContextECB(&ctx_, dst, src, part)
                           : mode_ == Mode::Cbc ? blockCipherContextCBC(&ctx_, dst, src, part)
                                                : blockCipherContextCTR(&ctx_, dst, src, part);
            check(rc, "block mode");
            n -= size_t(part);
            in += size_t(part) * bs_;
            out += size_t(part) * bs_;
        }
    }

    blockCipherContext ctx_;
    Mode mode_;
    bool enc_;
    size_t bs_;
    std::vector<uint8_t> ks_, zero_;  // CTR: the current keystream block; a block of zeros
    size_t used_;                     // bytes of ks_ used
};

class BeeHash : public cb::Hash {
public:
    explicit BeeHash(const hashFunction* h) : ctx_(h) {
        if (!ctx_.param) throw cb::Error("BeeCrypt hashFunctionContextInit failed");
    }
    void init() override { check(hashFunctionContextReset(&ctx_), "hashFunctionContextReset"); }
    void update(const uint8_t* in, size_t n) override {
        if (n) check(hashFunctionContextUpdate(&ctx_, in, n), "hashFunctionContextUpdate");
    }
    void final(uint8_t* digest) override { check(hashFunctionContextDigest(&ctx_, digest), "hashFunctionContextDigest"); }

private:
    hashFunctionContext ctx_;
};

// Offers what its factories build and the shared start-up check passes (cb::ProbedAdapter).
class BeecryptAdapter : public cb::ProbedAdapter {
public:
    BeecryptAdapter() { probe_registry(); }
    std::string name() const override { return "beecrypt"; }
    std::string library() const override { return "BeeCrypt"; }
    // BeeCrypt has no version call; it is linked statically, from the build whose configure
    // wrote this PACKAGE_VERSION (build.cmake).
    std::string version() const override { return CB_BEECRYPT_VERSION; }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        return {{"version_source", "PACKAGE_VERSION of the static build linked in (BeeCrypt has no version call)"},
                {"build", "from the published beecrypt-4.2.1.tar.gz with its own configure and flags: " CB_BEECRYPT_FLAGS},
                {"code_path", "C for every cipher, mode and hash: BeeCrypt's x86 assembly is for 32-bit x86 "
                              "(AES, Blowfish, SHA-1); on x86-64 only its multi-precision words are assembly, "
                              "which CTR's counter increment (mpaddw) uses"},
                {"ctr", "AES-CTR not offered: BeeCrypt 4.2.1 swaps the counter's 64-bit halves on 64-bit hosts"}};
    }

private:
    std::unique_ptr<cb::Cipher> make(const cb::Primitive& p, cb::Direction d) const override {
        if (!cb::lists_mode(kFamilies, p)) return nullptr;
        const char* n = cb::library_name(kCiphers, p.family);
        const blockCipher* bc = n ? blockCipherFind(n) : nullptr;
        if (!bc || bc->blocksize != p.block_bytes || !takes_key(*bc, p.key_bytes)) return nullptr;
        return std::make_unique<BeeCipher>(bc, mode_of(p), d == cb::Direction::Encrypt);
    }
    std::unique_ptr<cb::Hash> make_hash(const cb::Primitive& p) const override {
        const char* n = cb::library_name(kHashes, p.name);
        const hashFunction* h = n ? hashFunctionFind(n) : nullptr;
        if (!h || (h->digestsize != p.digest_bytes && !wrong_digest_size(*h))) return nullptr;
        return std::make_unique<BeeHash>(h);
    }
    cb::Path provider(const cb::Primitive& p) const override {
        // BeeCrypt 4.2's x86-64 build has no assembly: every cipher and hash is its C code
        if (std::strcmp(p.family, "aes") == 0) return {"portable C (32-bit tables; no AES-NI)", cb::Feature::Portable};
        return {"portable C", cb::Feature::Portable};
    }
};

}  // namespace

CB_ADAPTER_FACTORY(beecrypt) { return std::make_unique<BeecryptAdapter>(); }
