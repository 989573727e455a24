// The contract between the native runner and one library adapter.
//
// An adapter wraps one library (one folder under engine/adapters/, one
// translation unit that includes that library's headers and no other's).
// It names the primitives it offers under the registry's canonical names and
// creates keyed contexts for them. The runner owns everything else: parsing
// requests, checking lengths against the registry, timing, hex.
//
// Contract, sentence by sentence (the conformance suite and verify check them):
//  - offers() lists only primitives that work at run time on this machine
//    (probe the library; a cipher compiled out is not offered).
//  - Everything not offered is "unsupported"; an adapter never guesses.
//  - Lengths reaching an adapter were already checked against the registry:
//    key_bytes, iv_bytes, tag_bytes exact; whole blocks where the mode needs them.
//  - Cipher::update must accept in == out (in-place); timed loops use it.
//  - On one keyed context, start() with the same IV gives the same message
//    again; overrides of update_many() and set_key_and_start() give what their
//    defaults give (cipherbench-engine --check-adapters checks both).
//  - Library failures are reported by throwing cb::Error; never abort, never
//    print to stdout (stdout belongs to the protocol).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cb {

enum class Kind { Cipher, Aead, Stream, Hash, Null };
enum class Direction { Encrypt, Decrypt };

// One registry entry, generated from registry/primitives.toml.
struct Primitive {
    const char* name;
    Kind kind;
    const char* family;  // "aes", "chacha20", "sha-256"
    const char* mode;    // "cbc", ... or "" for streams, AEADs named on their own, hashes
    size_t key_bytes, block_bytes, iv_bytes, tag_bytes, digest_bytes;
    bool whole_blocks;
    unsigned rounds;  // full-cipher rounds from the registry, 0 if not applicable
};
const Primitive* find_primitive(const std::string& name);
const std::vector<Primitive>& all_primitives();

struct Error : std::runtime_error { using std::runtime_error::runtime_error; };
struct Unsupported : std::runtime_error { using std::runtime_error::runtime_error; };

// Reduced-round variants an implementation can run (docs/protocol.md, `rounds`).
struct RoundsOffer {
    unsigned full = 0;  // the full cipher's count in `unit` for this primitive; 0 = none offered
    unsigned max = 0;   // the largest count accepted
    std::string unit;   // what one round is, e.g. "quad-round (4 of the 48 rounds)"
};

// What a code path uses (docs/protocol.md, `features`), one bit each, in the order the
// protocol's words are written (feature_words). Portable is the explicit "nothing
// CPU-specific"; Unknown says the adapter cannot tell, and is what a default Features holds.
enum class Feature : uint32_t {
    Vaes = 1u << 0, AesNi = 1u << 1, Vpclmul = 1u << 2, Pclmul = 1u << 3, ShaNi = 1u << 4,
    Gfni = 1u << 5, Armv8Ce = 1u << 6, Avx512 = 1u << 7, Avx2 = 1u << 8, Avx = 1u << 9,
    Sse41 = 1u << 10, Ssse3 = 1u << 11, Sse2 = 1u << 12, Bmi2 = 1u << 13, Neon = 1u << 14,
    Asm = 1u << 15, Portable = 1u << 16, Unknown = 1u << 31,
};

// A path's features. Joining two parts' features (a cipher's and its mode's) keeps every
// CPU-specific one; Portable stays only when nothing else is left (AES-NI blocks with
// table-driven GHASH are AES-NI alone); Unknown in any part makes the whole unknown.
class Features {
public:
    constexpr Features() = default;  // unknown
    constexpr Features(Feature f) : bits_(uint32_t(f)) {}  // NOLINT: a feature is a set of one
    constexpr bool unknown() const { return bits_ == 0 || (bits_ & uint32_t(Feature::Unknown)); }
    constexpr bool has(Feature f) const { return !unknown() && (bits_ & uint32_t(f)); }
    constexpr uint32_t bits() const { return unknown() ? 0 : bits_; }
    constexpr Features operator|(Features o) const {
        if (unknown() || o.unknown()) return Features(Feature::Unknown);
        uint32_t b = bits_ | o.bits_;
        if (b != uint32_t(Feature::Portable)) b &= ~uint32_t(Feature::Portable);
        return Features(b);
    }
    Features& operator|=(Features o) { return *this = *this | o; }
    constexpr bool operator==(Features o) const { return bits() == o.bits() && unknown() == o.unknown(); }

private:
    constexpr explicit Features(uint32_t b) : bits_(b) {}
    uint32_t bits_ = 0;
};
constexpr Features operator|(Feature a, Feature b) { return Features(a) | Features(b); }
// The protocol's words for a path's features, in order; empty when unknown.
inline std::vector<const char*> feature_words(Features f) {
    static constexpr std::pair<Feature, const char*> kWords[] = {
        {Feature::Vaes, "vaes"}, {Feature::AesNi, "aes-ni"}, {Feature::Vpclmul, "vpclmul"},
        {Feature::Pclmul, "pclmul"}, {Feature::ShaNi, "sha-ni"}, {Feature::Gfni, "gfni"},
        {Feature::Armv8Ce, "armv8-ce"}, {Feature::Avx512, "avx512"}, {Feature::Avx2, "avx2"},
        {Feature::Avx, "avx"}, {Feature::Sse41, "sse4.1"}, {Feature::Ssse3, "ssse3"}, {Feature::Sse2, "sse2"},
        {Feature::Bmi2, "bmi2"}, {Feature::Neon, "neon"}, {Feature::Asm, "asm"}, {Feature::Portable, "portable"}};
    std::vector<const char*> out;
    for (const auto& [bit, word] : kWords)
        if (f.has(bit)) out.push_back(word);
    return out;
}
// `when` ? f : Portable. For "this instruction set if the CPU has it, else portable C".
constexpr Features if_else_portable(bool when, Features f) { return when ? f : Features(Feature::Portable); }

// A code path: the words people read (`provider`) and the features it uses (`features`),
// given together so that neither is ever derived from the other.
struct Path {
    Path(std::string t, Features f) : text(std::move(t)), features(f) {}
    std::string text;   // what actually runs, in words: "AES-NI (one block per call)", "portable C"
    Features features;  // the same path as data
};

// What an adapter offers for one primitive.
struct Offer {
    std::string primitive;  // canonical name
    Path path;              // what actually runs
    RoundsOffer rounds{};   // only implementations that can run reduced rounds fill it
};

// A keyed context for one primitive in one direction (ciphers, streams, AEADs, null).
// A message is: start(iv) -> aad()* -> update()* -> finish(tag). A context keyed
// once takes any number of messages; each start() begins afresh.
class Cipher {
public:
    virtual ~Cipher() = default;
    // Key setup. Called once per context, or once per message in the rekey workload.
    virtual void set_key(const uint8_t* key, size_t len) = 0;
    // Begin a message with this IV / nonce (len = the registry's iv_bytes, may be 0).
    virtual void start(const uint8_t* iv, size_t len) = 0;
    // Associated data (AEADs only), before any update().
    virtual void aad(const uint8_t*, size_t) {}
    // Transform len bytes. For whole-block modes len is a multiple of the block;
    // for stream-like modes calls may be any length and continue the stream.
    virtual void update(const uint8_t* in, uint8_t* out, size_t len) = 0;
    // The bulk workload's timed loop: the same as `count` calls of
    // update(in, out, len), one after another (the engine runs it in place).
    // An adapter may override it with a plain loop over its library's call, as
    // the library's own benchmark tool runs it, so that no virtual call per
    // buffer is timed; the output must equal the default's.
    virtual void update_many(const uint8_t* in, uint8_t* out, size_t len, uint64_t count) {
        for (uint64_t i = 0; i < count; ++i) update(in, out, len);
    }
    // Key setup and the start of a message: the same as set_key() then start().
    // The rekey workload calls it; an adapter whose library takes key and IV in
    // one call may override it to do so.
    virtual void set_key_and_start(const uint8_t* key, size_t key_len, const uint8_t* iv, size_t iv_len) {
        set_key(key, key_len);
        start(iv, iv_len);
    }
    // End the message. AEAD encrypt: writes tag_bytes to tag. AEAD decrypt:
    // reads the expected tag and returns false if it does not verify (the
    // output must then be discarded). Everything else returns true.
    virtual bool finish(uint8_t* tag) { (void)tag; return true; }
    // False for APIs that take a whole message in one call (CCM, libsodium's
    // and NSS's AEADs, AF_ALG AEADs): a message is then exactly one update(),
    // and the engine answers "unsupported" for the bulk workload, which would
    // time one call, or for a decryption nothing at all.
    virtual bool streams() const { return true; }
    // Run the next set_key()'s cipher with `rounds` rounds (1..the offer's max)
    // instead of the full count. False: this implementation runs only the full
    // cipher (the engine answers "unsupported"). A count it does not accept
    // throws cb::Error.
    virtual bool set_rounds(unsigned rounds) { (void)rounds; return false; }
};

class Hash {
public:
    virtual ~Hash() = default;
    virtual void init() = 0;
    virtual void update(const uint8_t* in, size_t len) = 0;
    virtual void final(uint8_t* digest) = 0;  // writes digest_bytes
};

class Adapter {
public:
    virtual ~Adapter() = default;
    virtual std::string name() const = 0;      // implementation name: "openssl"
    virtual std::string library() const = 0;  // "OpenSSL"
    virtual std::string version() const = 0;   // run-time version, never the header's
    // Empty if usable; otherwise why nothing can run (e.g. AF_ALG absent).
    virtual std::string unavailable_reason() const { return {}; }
    virtual std::vector<Offer> offers() const = 0;
    virtual std::unique_ptr<Cipher> cipher(const Primitive& p, Direction d) const {
        (void)d;
        throw Unsupported(std::string(p.name) + " is not offered by " + name());
    }
    virtual std::unique_ptr<Hash> hash(const Primitive& p) const {
        throw Unsupported(std::string(p.name) + " is not offered by " + name());
    }
    // Free-form facts worth recording with results (build options, CPU paths).
    virtual std::vector<std::pair<std::string, std::string>> notes() const { return {}; }
};

}  // namespace cb

// Each adapter folder defines exactly one factory:
//   std::unique_ptr<cb::Adapter> cb_adapter_<folder>();
#define CB_ADAPTER_FACTORY(folder) std::unique_ptr<cb::Adapter> cb_adapter_##folder()
