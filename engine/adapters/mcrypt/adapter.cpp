// libmcrypt 2.5.8. One MCRYPT handle per context, opened once
// (mcrypt_module_open); set_key() runs mcrypt_generic_init (the key schedule
// plus mode buffers), start() only loads the IV into the mode's state with
// mcrypt_enc_set_state, which costs a memcpy: mcrypt_generic_init would
// re-run the key schedule (see README.md). mcrypt transforms in place.
#include <cstring>
#include <string>
#include <vector>

#include <mcrypt.h>

#include "cipherbench/adapter.h"
#include "cipherbench/names.h"
#include "cipherbench/probe.h"

namespace {

#include "names.inc"  // the name tables, generated from manifest.toml

struct Names { const char* algo; const char* mode; };

Names names_of(const cb::Primitive& p) {
    if (const char* s = cb::library_name(kStreams, p.name)) return {s, "stream"};
    if (!*p.mode) return {nullptr, nullptr};
    return {cb::library_name(kFamilies, p.family), cb::library_name(kModes, p.mode)};
}

std::string err(const char* what, int rc) {
    const char* s = mcrypt_strerror(rc);
    return std::string("libmcrypt ") + what + ": " + (s ? s : "error " + std::to_string(rc));
}

class McryptCipher : public cb::Cipher {
public:
    McryptCipher(const cb::Primitive& p, Names n, bool enc) : enc_(enc), two_key_3des_(std::strcmp(p.family, "3des") == 0 && p.key_bytes == 16) {
        td_ = mcrypt_module_open(const_cast<char*>(n.algo), nullptr, const_cast<char*>(n.mode), nullptr);
        if (td_ == MCRYPT_FAILED) throw cb::Error(std::string("mcrypt_module_open failed for ") + n.algo + "/" + n.mode);
        stream_ = std::strcmp(n.mode, "stream") == 0;
        has_iv_ = !stream_ && mcrypt_enc_mode_has_iv(td_) == 1;  // "stream" claims an IV; RC4 takes none
        ncfb_ = std::strcmp(n.mode, "ncfb") == 0;
        bs_ = size_t(mcrypt_enc_get_block_size(td_));
    }
    ~McryptCipher() override {
        if (inited_) mcrypt_generic_deinit(td_);
        mcrypt_module_close(td_);
    }
    void set_key(const uint8_t* k, size_t n) override {
        key_.assign(k, k + n);
        if (two_key_3des_) key_.insert(key_.end(), k, k + 8);  // K1 K2 K1
        init();
        if (has_iv_) {  // the fresh mode state: [position byte] || register; the IV is its last bs_ bytes
            uint8_t st[128];
            int sz = sizeof st;
            if (mcrypt_enc_get_state(td_, st, &sz) != 0 || size_t(sz) < bs_)
                throw cb::Error("libmcrypt mcrypt_enc_get_state failed");
            state_.assign(st, st + sz);
        }
    }
    void start(const uint8_t* iv, size_t n) override {
        if (stream_) {  // RC4 has no IV: mcrypt restarts the keystream only by re-keying
            init();
            return;
        }
        if (!has_iv_) return;
        if (n != bs_) throw cb::Error("libmcrypt: IV length differs from the block size");
        std::memcpy(state_.data() + state_.size() - bs_, iv, bs_);
        if (mcrypt_enc_set_state(td_, state_.data(), int(state_.size())) != 0)
            throw cb::Error("libmcrypt mcrypt_enc_set_state failed");
        done_ = 0;
    }
    void update(const uint8_t* in, uint8_t* out, size_t n) override {
        if (!n) return;
        // libmcrypt 2.5.8 ncfb bug: a call that continues after a partial
        // block updates the shift register wrongly (ncfb.c xor_stuff_en/de,
        // s_register_pos != 0), so output would be wrong. Refuse it as what
        // the library cannot do ("unsupported"), not as a failure.
        if (ncfb_ && done_ % bs_)
            throw cb::Unsupported("libmcrypt ncfb (full-block CFB) cannot continue a message after a partial block "
                            "(library bug); use whole-block update() sizes");
        done_ += n;
        if (in != out) std::memcpy(out, in, n);  // mcrypt works in place only
        int rc = enc_ ? mcrypt_generic(td_, out, int(n)) : mdecrypt_generic(td_, out, int(n));
        if (rc != 0) throw cb::Error(err(enc_ ? "mcrypt_generic" : "mdecrypt_generic", rc));
    }

private:
    void init() {
        if (inited_) mcrypt_generic_deinit(td_);
        inited_ = false;
        std::vector<uint8_t> zero(bs_ ? bs_ : 1, 0);
        int rc = mcrypt_generic_init(td_, key_.data(), int(key_.size()), has_iv_ ? zero.data() : nullptr);
        if (rc < 0) throw cb::Error(err("mcrypt_generic_init", rc));
        inited_ = true;
    }

    MCRYPT td_;
    bool enc_, two_key_3des_, stream_ = false, has_iv_ = false, inited_ = false, ncfb_ = false;
    size_t bs_ = 0, done_ = 0;  // done_: bytes of the current message so far
    std::vector<uint8_t> key_, state_;
};

class McryptAdapter : public cb::Adapter {
public:
    McryptAdapter() { probe(); }
    std::string name() const override { return "mcrypt"; }
    std::string library() const override { return "libmcrypt"; }
    // mcrypt_check_version(NULL) returns the VERSION string compiled into the library.
    std::string version() const override {
        const char* v = mcrypt_check_version(nullptr);
        return v ? v : "unknown";
    }
    std::vector<cb::Offer> offers() const override { return offers_; }
    std::vector<std::pair<std::string, std::string>> notes() const override {
        return {{"version_source", "mcrypt_check_version(NULL) at run time (header LIBMCRYPT_VERSION " LIBMCRYPT_VERSION ")"},
                {"modules", "built into the library (module directory NULL)"},
                {"iv_change", "mcrypt_enc_set_state (no key schedule); RC4 restarts by re-keying"}};
    }
    std::unique_ptr<cb::Cipher> cipher(const cb::Primitive& p, cb::Direction d) const override {
        Names n = names_of(p);
        if (!cb::offered(offers_, p.name) || !n.algo || !n.mode) return Adapter::cipher(p, d);
        return std::make_unique<McryptCipher>(p, n, d == cb::Direction::Encrypt);
    }

private:
    static bool key_size_ok(MCRYPT td, size_t want) {
        if (size_t(mcrypt_enc_get_key_size(td)) < want) return false;
        int n = 0;
        int* sizes = mcrypt_enc_get_supported_key_sizes(td, &n);
        if (!sizes) return true;  // any length up to the maximum
        bool ok = false;
        for (int i = 0; i < n; ++i) ok |= size_t(sizes[i]) == want;
        mcrypt_free(sizes);
        return ok;
    }

    void probe() {
        for (const auto& p : cb::all_primitives()) {
            if (p.kind != cb::Kind::Cipher && p.kind != cb::Kind::Stream) continue;
            Names n = names_of(p);
            if (!n.algo || !n.mode) continue;
            MCRYPT td = mcrypt_module_open(const_cast<char*>(n.algo), nullptr, const_cast<char*>(n.mode), nullptr);
            if (td == MCRYPT_FAILED) continue;
            size_t key = std::strcmp(p.family, "3des") == 0 ? 24 : p.key_bytes;
            bool fits = key_size_ok(td, key) &&
                        (p.kind == cb::Kind::Stream ? mcrypt_enc_is_block_algorithm(td) == 0
                                                    : size_t(mcrypt_enc_get_block_size(td)) == p.block_bytes);
            mcrypt_module_close(td);
            if (!fits) continue;
            auto make = [&](cb::Direction d) { return std::make_unique<McryptCipher>(p, n, d == cb::Direction::Encrypt); };
            if (cb::probe_cipher(p, make).empty()) offers_.push_back({p.name, {"portable C", cb::Feature::Portable}});
        }
    }

    std::vector<cb::Offer> offers_;
};

}  // namespace

CB_ADAPTER_FACTORY(mcrypt) { return std::make_unique<McryptAdapter>(); }
