// cipherbench-engine: the native runner. Speaks protocol v1 (docs/protocol.md):
// one JSON request per line on stdin, one JSON response per line on stdout.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"
#include "clocks.h"
#include "probe.h"
#include "sha256.h"
#include "ct_sample.h"
#include "line_io.h"
#include "stack.h"

using json = nlohmann::json;

#ifndef CB_IMPL_SUFFIX  // set by engine/CMakeLists.txt; a variant build's "@compiler:flags"
#define CB_IMPL_SUFFIX ""
#endif
#define CB_ADAPTER(folder) CB_ADAPTER_FACTORY(folder);
#define CB_ADAPTER_MISSING(folder, reason)
#include "adapters.inc"
#undef CB_ADAPTER
#undef CB_ADAPTER_MISSING

namespace cb {
namespace {

constexpr int kProtocol = 1;
constexpr uint64_t kMaxFill = 64ull << 20;  // the largest `fill` (docs/protocol.md)

struct Impl {
    std::string name, library, version, reason;
    std::unique_ptr<Adapter> adapter;
    std::map<std::string, std::string> offers;  // primitive -> provider (the path in words)
    std::map<std::string, Features> features;   // primitive -> the same path as data
    std::map<std::string, RoundsOffer> rounds;  // primitive -> reduced rounds offered
    std::vector<std::string> problems;
    std::vector<std::pair<std::string, std::string>> notes;
};

struct Fail : std::runtime_error {  // answered as status "error"
    using std::runtime_error::runtime_error;
};

// ------------------------------------------------------------------ hex
std::vector<uint8_t> unhex(const json& req, const char* field, bool required = false) {
    if (!req.contains(field) || req[field].is_null()) {
        if (required) throw Fail(std::string("missing field '") + field + "'");
        return {};
    }
    if (!req[field].is_string()) throw Fail(std::string("field '") + field + "' must be a hex string");
    const std::string& s = req[field].get_ref<const std::string&>();
    if (s.size() % 2) throw Fail(std::string("field '") + field + "' has an odd number of hex digits");
    std::vector<uint8_t> out;
    if (!decode_hex(s.data(), s.size(), out)) throw Fail(std::string("field '") + field + "' is not hex");
    return out;
}

// Two hex digits for every byte value: one load and one 2-byte store a byte (a 1 MiB output
// is written as 2 MB of hex; digit by digit, with the reloads that stores through char
// force, that took 1.3 ms).
struct HexPairs {
    char v[512];
    constexpr HexPairs() : v() {
        constexpr char d[] = "0123456789abcdef";
        for (int b = 0; b < 256; ++b) { v[2 * b] = d[b >> 4]; v[2 * b + 1] = d[b & 15]; }
    }
};
constexpr HexPairs kHexPairs;

std::string hex(const uint8_t* p, size_t n) {
    std::string s(2 * n, '0');
    char* o = s.data();
    for (size_t i = 0; i < n; ++i) std::memcpy(o + 2 * i, kHexPairs.v + 2 * p[i], 2);
    return s;
}

// ------------------------------------------------------------------ runner state
class Engine {
public:
    Engine() {
#define CB_ADAPTER(folder) add(#folder, [] { return cb_adapter_##folder(); });
#define CB_ADAPTER_MISSING(folder, why) add_missing(#folder, why);
#include "adapters.inc"
#undef CB_ADAPTER
#undef CB_ADAPTER_MISSING
    }

    // `input`: the request's "input" already decoded (take_hex_input, line_io.h), its value
    // in `req` emptied; null: the request is read as it is.
    json handle(const json& req, std::vector<uint8_t>* input = nullptr) {
        const std::string op = str(req, "op");
        if (op == "hello") return hello();
        if (op == "encrypt" || op == "decrypt") return crypt(req, op == "encrypt", input);
        if (op == "hash") return hash_once(req, input);
        if (op == "bench") return bench(req);
        if (op == "cpu-clock") return cpu_clock(req);
        if (op == "ct-sample") return ct_sample_op(req, input);
        throw Fail("unknown op '" + op + "'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit");
    }

    // --check-adapters: the parts of the adapter contract (adapter.h) that no
    // protocol request can show, because every request gets a fresh context.
    // For every offered cipher, stream, AEAD and null primitive, on one keyed
    // context per direction: a second message with the same IV repeats the
    // first (start() restarts), set_key_and_start() gives the same message, and
    // update_many() equals as many update() calls. Prints one line per pair
    // checked ("ok IMPL PRIMITIVE") or failed ("FAIL IMPL PRIMITIVE: what");
    // returns the number of failures.
    int check_adapters(std::ostream& log) const {
        int failures = 0;
        for (const auto& im : impls_) {
            if (!im.reason.empty()) continue;
            for (const auto& [name, provider] : im.offers) {
                const Primitive& p = *find_primitive(name);
                if (p.kind == Kind::Hash) continue;
                std::string why;
                try {
                    why = contract_failure(*im.adapter, p);
                } catch (const std::exception& e) {
                    why = std::string("threw: ") + e.what();
                }
                if (!why.empty()) ++failures;
                log << (why.empty() ? "ok " : "FAIL ") << im.name << ' ' << name
                    << (why.empty() ? "" : ": " + why) << '\n';
            }
        }
        return failures;
    }

    // --notes FILE: a JSON object whose members join every implementation's notes (a value
    // that is not a string as its JSON text). Variant builds (cipherbench/builds) name their
    // compiler, flags, build time and code size so, and the store keeps them with the run.
    void add_notes(const std::string& path) {
        std::ifstream f(path);
        if (!f) throw Fail("cannot read notes file '" + path + "'");
        json j;
        try {
            j = json::parse(f);
        } catch (const json::parse_error&) {
            throw Fail("notes file '" + path + "' is not JSON");
        }
        if (!j.is_object()) throw Fail("notes file '" + path + "' must hold a JSON object");
        for (auto& im : impls_)
            for (const auto& [k, v] : j.items()) im.notes.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }

private:
    template <class F>
    void add(const std::string& folder, F make) {
        Impl im;
        im.name = folder;
        try {
            im.adapter = make();
            if (!im.adapter) return;  // an adapter that announces itself only when asked (adapters/leaky)
            im.name = im.adapter->name() + CB_IMPL_SUFFIX;  // a variant build's "@compiler:flags"
            im.library = im.adapter->library();
            im.version = im.adapter->version();
            im.reason = im.adapter->unavailable_reason();
            im.notes = im.adapter->notes();
            if (im.reason.empty()) {
                for (const auto& o : im.adapter->offers()) {
                    if (!find_primitive(o.primitive))
                        im.problems.push_back("offers '" + o.primitive + "', which is not in the registry");
                    else {
                        im.offers[o.primitive] = o.path.text;
                        im.features[o.primitive] = o.path.features;
                    }
                    if (o.rounds.full && find_primitive(o.primitive)) im.rounds[o.primitive] = o.rounds;
                }
            }
        } catch (const std::exception& e) {
            im.reason = std::string("failed to initialise: ") + e.what();
            im.offers.clear();
            im.features.clear();
            im.rounds.clear();
        }
        impls_.push_back(std::move(im));
    }

    void add_missing(const std::string& folder, const std::string& why) {
        Impl im;
        im.name = folder + CB_IMPL_SUFFIX;
        im.reason = why;
        impls_.push_back(std::move(im));
    }

    static std::string str(const json& req, const char* field) {
        if (!req.contains(field)) throw Fail(std::string("missing field '") + field + "'");
        if (!req[field].is_string()) throw Fail(std::string("field '") + field + "' must be a string");
        return req[field].get<std::string>();
    }

    static uint64_t count(const json& req, const char* field, uint64_t dflt, bool required = false) {
        if (!req.contains(field)) {
            if (required) throw Fail(std::string("missing field '") + field + "'");
            return dflt;
        }
        if (!req[field].is_number_unsigned()) throw Fail(std::string("field '") + field + "' must be a non-negative integer");
        return req[field].get<uint64_t>();
    }

    // An optional true/false field: absent or null is `dflt`.
    static bool flag(const json& req, const char* field, bool dflt) {
        if (!req.contains(field) || req[field].is_null()) return dflt;
        if (!req[field].is_boolean()) throw Fail(std::string("field '") + field + "' must be true or false");
        return req[field].get<bool>();
    }

    json hello() const {
        json impls = json::array();
        for (const auto& im : impls_) {
            json j = {{"name", im.name}, {"available", im.reason.empty()}};
            if (!im.library.empty()) j["library"] = im.library;
            if (!im.version.empty()) j["version"] = im.version;
            if (!im.reason.empty()) j["reason"] = im.reason;
            json prims = json::array();
            for (const auto& [p, prov] : im.offers) {
                json e = {{"name", p}, {"provider", prov}};
                auto f = im.features.find(p);
                if (f != im.features.end() && !f->second.unknown()) e["features"] = feature_words(f->second);
                auto r = im.rounds.find(p);
                if (r != im.rounds.end())
                    e["rounds"] = {{"full", r->second.full}, {"max", r->second.max}, {"unit", r->second.unit}};
                prims.push_back(e);
            }
            j["primitives"] = prims;
            if (!im.problems.empty()) j["problems"] = im.problems;
            if (!im.notes.empty()) {
                json n = json::object();
                for (const auto& [k, v] : im.notes) n[k] = v;
                j["notes"] = n;
            }
            impls.push_back(j);
        }
        json clocks = {{"monotonic", "clock_gettime(CLOCK_MONOTONIC)"}};
        clocks["tsc"] = has_tsc() ? json("rdtsc (fixed-rate, not core cycles)") : json(nullptr);
        if (cycles_.available()) clocks["core_cycles"] = "perf_event PERF_COUNT_HW_CPU_CYCLES";
        else { clocks["core_cycles"] = nullptr; clocks["core_cycles_unavailable"] = cycles_.why(); }
        const char* vector_state = clean_vector_state() ? "vzeroupper before every timed batch"
                                                        : "nothing to reset: no AVX on this CPU";
        return {{"status", "ok"}, {"protocol", kProtocol}, {"runner", "native" CB_IMPL_SUFFIX}, {"language", "C++17"}, {"jit", false},
                {"runtime", runtime()}, {"clocks", clocks}, {"vector_state", vector_state},
                {"implementations", impls}};
    }

    static std::string runtime() {
#if defined(__clang__)
        return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
        return std::string("g++ ") + __VERSION__;
#else
        return "unknown compiler";
#endif
    }

    struct Target {
        const Impl* impl;
        const Primitive* prim;
        std::string provider;
    };

    // Resolves impl + primitive, or throws Fail / Unsupported with a clear message.
    Target target(const json& req) const {
        const std::string iname = str(req, "impl"), pname = str(req, "primitive");
        const Primitive* p = find_primitive(pname);
        if (!p) throw Fail("unknown primitive '" + pname + "' (not in the registry)");
        for (const auto& im : impls_) {
            if (im.name != iname) continue;
            if (!im.reason.empty()) throw Unsupported(iname + " is unavailable: " + im.reason);
            auto it = im.offers.find(pname);
            if (it == im.offers.end()) throw Unsupported(iname + " does not offer " + pname);
            return {&im, p, it->second};
        }
        throw Fail("unknown implementation '" + iname + "'");
    }

    static void check_key(const Primitive& p, const std::vector<uint8_t>& key) {
        if (key.size() != p.key_bytes)
            throw Fail(std::string(p.name) + " takes a " + std::to_string(p.key_bytes) +
                       "-byte key, got " + std::to_string(key.size()));
    }

    static void check_lengths(const Primitive& p, const std::vector<uint8_t>& key,
                              const std::vector<uint8_t>& iv, const std::vector<uint8_t>& aad) {
        check_key(p, key);
        if (iv.size() != p.iv_bytes)
            throw Fail(std::string(p.name) + " takes a " + std::to_string(p.iv_bytes) +
                       "-byte IV/nonce, got " + std::to_string(iv.size()));
        if (!aad.empty() && p.kind != Kind::Aead)
            throw Fail(std::string(p.name) + " is not an AEAD and takes no associated data");
    }

    // The last fills generated, most recent first: the gate sends thousands of requests with
    // the same few (seed, bytes), and a repeat is then a copy instead of a regeneration (2.8
    // ms a MiB with the SHA extensions, 14 without). A cache of a pure function: no answer
    // depends on it. At most kKeep entries of at most kMaxFill bytes each.
    class FillCache {
        struct Entry {
            std::vector<uint8_t> seed;
            size_t n;
            std::vector<uint8_t> bytes;
        };
        static constexpr size_t kKeep = 2;
        std::vector<Entry> entries_;
    public:
        const std::vector<uint8_t>& get(const std::vector<uint8_t>& seed, size_t n) {
            for (size_t i = 0; i < entries_.size(); ++i) {
                if (entries_[i].n == n && entries_[i].seed == seed) {
                    std::rotate(entries_.begin(), entries_.begin() + i, entries_.begin() + i + 1);
                    return entries_.front().bytes;
                }
            }
            Entry e{seed, n, sha256_fill(seed, n)};
            if (entries_.size() == kKeep) entries_.pop_back();
            entries_.insert(entries_.begin(), std::move(e));
            return entries_.front().bytes;
        }
    };
    mutable FillCache fills_;

    // Optional "fill" (docs/protocol.md): the input is n generated bytes, then `input`.
    std::vector<uint8_t> filled(const json& req, std::vector<uint8_t> tail) const {
        if (!req.contains("fill") || req["fill"].is_null()) return tail;
        const json& f = req["fill"];
        if (!f.is_object()) throw Fail("field 'fill' must be an object {\"seed\": hex, \"bytes\": N}");
        const auto seed = unhex(f, "seed", true);
        const json& b = f.contains("bytes") ? f["bytes"] : json();
        if (!b.is_number_unsigned() || b.get<uint64_t>() > kMaxFill)
            throw Fail("field 'fill': 'bytes' must be a byte count from 0 to " + std::to_string(kMaxFill));
        const std::vector<uint8_t>& gen = fills_.get(seed, b.get<size_t>());
        std::vector<uint8_t> in;
        in.reserve(gen.size() + tail.size());
        in.assign(gen.begin(), gen.end());
        in.insert(in.end(), tail.begin(), tail.end());
        return in;
    }

    // Optional "digest" (docs/protocol.md): "sha256" answers output_sha256 instead of output.
    static bool wants_digest(const json& req) {
        if (!req.contains("digest") || req["digest"].is_null()) return false;
        if (!req["digest"].is_string() || req["digest"].get_ref<const std::string&>() != "sha256")
            throw Fail("field 'digest' must be \"sha256\"");
        return true;
    }

    static void check_input(const Primitive& p, size_t n) {
        if (p.whole_blocks && n % p.block_bytes)
            throw Fail(std::string(p.name) + " takes whole " + std::to_string(p.block_bytes) +
                       "-byte blocks (no padding), got " + std::to_string(n) + " bytes");
    }

    // The request's "input" bytes: decoded before the parse (handle()), or from the hex now.
    static std::vector<uint8_t> input_of(const json& req, std::vector<uint8_t>* decoded) {
        if (decoded) return std::move(*decoded);
        return unhex(req, "input", true);
    }

    // Optional "chunks": lengths of consecutive update() calls; the rest of the input (if
    // any) is one more call (docs/protocol.md). Without the field: the input in one call.
    static std::vector<size_t> pieces(const json& req, const Primitive& p, size_t n) {
        std::vector<size_t> parts;
        if (!req.contains("chunks") || req["chunks"].is_null()) {
            if (n) parts.push_back(n);
            return parts;
        }
        if (!req["chunks"].is_array()) throw Fail("field 'chunks' must be a list of byte counts");
        size_t sum = 0;
        for (const auto& v : req["chunks"]) {
            if (!v.is_number_unsigned() || v.get<uint64_t>() == 0)
                throw Fail("field 'chunks' must hold positive byte counts");
            const size_t len = v.get<size_t>();
            if (p.whole_blocks && len % p.block_bytes)
                throw Fail(std::string(p.name) + " takes whole " + std::to_string(p.block_bytes) +
                           "-byte blocks: chunk of " + std::to_string(len) + " bytes");
            if (len > n - sum)
                throw Fail("chunks add up to more than the " + std::to_string(n) + "-byte input");
            sum += len;
            parts.push_back(len);
        }
        if (sum < n) parts.push_back(n - sum);
        return parts;
    }

    json crypt(const json& req, bool enc, std::vector<uint8_t>* input) const {
        Target t = target(req);
        const Primitive& p = *t.prim;
        if (p.kind == Kind::Hash) throw Fail(std::string(p.name) + " is a hash: use op 'hash'");
        auto key = unhex(req, "key"), iv = unhex(req, "iv"), aad = unhex(req, "aad"),
             in = filled(req, input_of(req, input));
        check_lengths(p, key, iv, aad);
        const bool digest = wants_digest(req);
        size_t n = in.size();
        std::vector<uint8_t> tag(p.tag_bytes);
        if (p.kind == Kind::Aead && !enc) {
            if (n < p.tag_bytes) throw Fail(std::string(p.name) + " decryption input must end with the " +
                                            std::to_string(p.tag_bytes) + "-byte tag");
            n -= p.tag_bytes;
            std::memcpy(tag.data(), in.data() + n, p.tag_bytes);
        }
        check_input(p, n);
        const bool chunked = req.contains("chunks") && !req["chunks"].is_null();
        const std::vector<size_t> parts = pieces(req, p, n);
        // Optional "inplace": the library writes its output over the input buffer.
        const bool over = flag(req, "inplace", false);
        auto c = t.impl->adapter->cipher(p, enc ? Direction::Encrypt : Direction::Decrypt);
        if (parts.size() > 1 && !c->streams())
            throw Unsupported(std::string(p.name) + " is one call per message in this implementation: "
                              "it cannot take the input in chunks");
        // Optional "rounds": a reduced-round variant (docs/protocol.md); echoed when honoured.
        uint64_t rounds = 0;  // the full cipher
        if (req.contains("rounds") && !req["rounds"].is_null()) {
            rounds = count(req, "rounds", 0);
            if (rounds == 0 || rounds > 1000000)
                throw Fail("field 'rounds' must be a positive round count (omit it for the full cipher)");
            if (!c->set_rounds(unsigned(rounds)))
                throw Unsupported(t.impl->name + " runs " + p.name + " only with its full round count");
        }
        c->set_key(key.data(), key.size());
        c->start(iv.data(), iv.size());
        if (p.kind == Kind::Aead && !aad.empty()) c->aad(aad.data(), aad.size());
        std::vector<uint8_t> out(over ? 0 : n);
        uint8_t* dst = over ? in.data() : out.data();
        size_t at = 0;
        for (size_t len : parts) {
            c->update(in.data() + at, dst + at, len);
            at += len;
        }
        bool ok = c->finish(tag.data());
        if (over) { in.resize(n); out.swap(in); }
        json r = {{"status", "ok"}};
        if (chunked) r["chunked"] = true;
        if (rounds) r["rounds"] = rounds;
        if (over) r["inplace"] = true;
        if (req.contains("fill") && !req["fill"].is_null()) r["filled"] = true;
        if (p.kind == Kind::Aead && !enc) {
            r["authentic"] = ok;
            if (!ok) return r;
            out.resize(n);
        } else if (p.kind == Kind::Aead) {
            out.insert(out.end(), tag.begin(), tag.end());
        }
        if (digest) {
            const auto d = sha256(out.data(), out.size());
            r["output_sha256"] = hex(d.data(), d.size());
        } else {
            r["output"] = hex(out.data(), out.size());
        }
        return r;
    }

    json hash_once(const json& req, std::vector<uint8_t>* input) const {
        Target t = target(req);
        const Primitive& p = *t.prim;
        if (p.kind != Kind::Hash) throw Fail(std::string(p.name) + " is not a hash: use encrypt/decrypt");
        auto in = filled(req, input_of(req, input));
        auto h = t.impl->adapter->hash(p);
        h->init();
        size_t at = 0;  // in the pieces asked ("chunks"), as the timed bulk loop feeds a hash
        for (size_t len : pieces(req, p, in.size())) {
            h->update(in.data() + at, len);
            at += len;
        }
        std::vector<uint8_t> d(p.digest_bytes);
        h->final(d.data());
        json r = {{"status", "ok"}, {"output", hex(d.data(), d.size())}};
        if (req.contains("chunks") && !req["chunks"].is_null()) r["chunked"] = true;
        if (req.contains("fill") && !req["fill"].is_null()) r["filled"] = true;
        return r;
    }

    // ------------------------------------------------------------------ timed batches
    struct Sample { uint64_t ns, tsc, cycles; };

    // The bench request's stack_offset, for the batches of the request being served; -1: none
    // asked, the stack stays where it is (stack.h).
    mutable int stack_offset_ = -1;

    // The bench request's `probe` (docs/protocol.md, "bench"): thousands of additions run as
    // the serial chain and as four parallel chains before a request's first batch and after
    // every batch, so each batch has the core's state measured on both sides of it, within
    // microseconds; 0: none asked. A neighbour on the other hardware thread comes and goes
    // within a millisecond here, and a reading a request away from a batch missed it.
    mutable uint64_t probe_k_ = 0;
    struct Probe { uint64_t serial_ns, parallel_ns; };
    mutable std::vector<Probe> probes_;

    // Each chain runs twice and the faster run counts (probe.h): one probe preempted once read
    // 0.1 GHz and lent that clock to the batches on both sides of it, halving their cycles.
    Probe probe() const {
        uint64_t out[2];
        cb_probe(probe_k_, out);
        return {out[0], out[1]};
    }

    template <class F>
    Sample timed(F&& body) const {
        if (probe_k_ == 0) return timed_placed(body);
        if (probes_.empty()) probes_.push_back(probe());
        const Sample s = timed_placed(body);
        probes_.push_back(probe());
        return s;
    }

    template <class F>
    Sample timed_placed(F&& body) const {
        if (stack_offset_ < 0) return timed_here(body);
        struct Call { const Engine* self; std::remove_reference_t<F>* body; Sample out; } call{this, &body, {}};
        cb_at_stack_offset(unsigned(stack_offset_), [](void* a) {
            auto* c = static_cast<Call*>(a);
            c->out = c->self->timed_here(*c->body);
        }, &call);
        return call.out;
    }

    template <class F>
    Sample timed_here(F&& body) const {
        clean_vector_state();  // whatever library ran before left its own (clocks.h)
        uint64_t c0 = cycles_.available() ? cycles_.read() : 0;
        uint64_t t0 = now_ns(), k0 = tsc();
        body();
        uint64_t k1 = tsc(), t1 = now_ns();
        uint64_t c1 = cycles_.available() ? cycles_.read() : 0;
        return {t1 - t0, k1 - k0, c1 - c0};
    }

    // The timed loops' buffers start on a 64-byte line, as the libraries' own tools place
    // theirs (openssl speed and bench-slope align to 64 and 128 bytes, nettle-benchmark's and
    // cryptest's arrays to 32 or more). A std::vector starts where malloc puts it: 16 bytes past
    // a line, and 16 past a page from 128 KiB on (an mmap'd chunk's header). There libgcrypt's
    // AES-128-CTR, whose AVX2 loop loads 32 bytes at a time, ran 8 % slower at 16 KiB and 1 MiB
    // (minimum of 300 batches: 17,122 against 18,570 MB/s at 16 KiB, 16,651 against 18,133 at 1 MiB).
    class TimedBuffer {
        struct Free { void operator()(uint8_t* p) const { std::free(p); } };
        std::unique_ptr<uint8_t, Free> p_;
        size_t n_ = 0;
    public:
        static constexpr size_t kAlign = 64;
        // Requests keep their buffers: a 1 MiB buffer allocated, zeroed and freed per request
        // cost 2.2 ms of page faults and unmapping around a 0.15 ms batch (openssl
        // aes-128-ctr), a standard profile's minutes. Buffers above kKeepBytes are let go after
        // their request.
        static constexpr size_t kKeepBytes = size_t(64) << 20;
        // At least n bytes, starting on a 64-byte line; the contents are whatever came before.
        uint8_t* at_least(size_t n) {
            if (n > n_) {
                p_.reset();
                n_ = 0;
                p_.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlign, (n + kAlign - 1) / kAlign * kAlign)));
                if (!p_) throw Fail("cannot allocate a " + std::to_string(n) + "-byte buffer");
                n_ = n;
            }
            return p_.get();
        }
        void trim() {
            if (n_ > kKeepBytes) { p_.reset(); n_ = 0; }
        }
    };
    mutable TimedBuffer in_buffer_, out_buffer_;

    // The request's input (byte i = i mod 256, as the 2008 comparison's verify used) and
    // output buffers, both `size` bytes (1 for a size of 0) on reused storage; the output is
    // zeroed so that no request sees what an earlier one left.
    struct Buffers {
        TimedBuffer &in_b, &out_b;
        size_t n;
        uint8_t* in;
        uint8_t* out;
        Buffers(TimedBuffer& i, TimedBuffer& o, size_t size)
            : in_b(i), out_b(o), n(size ? size : 1), in(i.at_least(n)), out(o.at_least(n)) {
            const size_t first = std::min<size_t>(n, 256);
            for (size_t k = 0; k < first; ++k) in[k] = uint8_t(k);
            for (size_t done = first; done < n;) {  // the pattern repeats every 256 bytes
                const size_t m = std::min(done, n - done);
                std::memcpy(in + done, in, m);
                done += m;
            }
            std::memset(out, 0, n);
        }
        ~Buffers() { in_b.trim(); out_b.trim(); }
    };

    static void bump(std::vector<uint8_t>& iv) {  // next nonce: big-endian increment
        for (size_t j = iv.size(); j-- > 0;)
            if (++iv[j]) break;
    }

    static constexpr uint64_t kMaxLoops = 1000000000;           // docs/protocol.md, "bench"
    static constexpr uint64_t kMaxBatchBytes = uint64_t(1) << 36;  // loops x size, likewise

    json bench(const json& req) const {
        Target t = target(req);
        const Primitive& p = *t.prim;
        const std::string op = str(req, "operation");
        const std::string workload = req.contains("workload") ? str(req, "workload") : "bulk";
        const uint64_t size = count(req, "size", 0, op != "keysetup" && op != "keysetup-decrypt");
        const uint64_t loops = count(req, "loops", 0, true), batches = count(req, "batches", 1);
        if (loops == 0 || batches == 0) throw Fail("loops and batches must be at least 1");
        if (batches > 100000) throw Fail("at most 100000 batches per request");
        if (size > (uint64_t(1) << 30)) throw Fail("size is limited to 1 GiB");
        // The caps of docs/protocol.md ("bench"): far above any calibrated batch, they refuse
        // a count that would run for hours instead of letting it reach the orchestrator's timeout.
        if (loops > kMaxLoops) throw Fail("loops must be at most 1000000000");
        if (loops * (size ? size : 1) > kMaxBatchBytes) throw Fail("loops x size must be at most 2^36 bytes per batch");
        if (workload != "bulk" && workload != "message" && workload != "rekey")
            throw Fail("unknown workload '" + workload + "'; accepted: bulk, message, rekey");
        const bool placed = req.contains("stack_offset") && !req["stack_offset"].is_null();
        const uint64_t offset = placed ? count(req, "stack_offset", 0) : 0;
        if (offset > 4095) throw Fail("stack_offset must be in 0..4095");
        struct Reset { int& v; ~Reset() { v = -1; } } reset{stack_offset_};
        stack_offset_ = placed ? int(offset) : -1;
        const uint64_t probe_k = req.contains("probe") && !req["probe"].is_null() ? count(req, "probe", 0) : 0;
        if (probe_k > 100000) throw Fail("probe must be in 0..100000");
        struct ResetProbe { uint64_t& k; std::vector<Probe>& p; ~ResetProbe() { k = 0; p.clear(); } }
            reset_probe{probe_k_, probes_};
        probe_k_ = probe_k;
        // Optional "inplace": false: encryption writes to a second buffer instead of over its
        // input (as nettle-benchmark's CTR and CBC rows and wolfCrypt's benchmark do).
        const bool separate = !flag(req, "inplace", true);
        if (separate && op != "encrypt")
            throw Unsupported("separate output buffers are timed for encryption only");
        // Optional "repeat_iv": true: every encrypted message starts from the request's IV
        // instead of the next nonce (bench-slope resets its handle before each call, so its
        // CTR counter restarts at zero every time).
        const bool repeat_iv = flag(req, "repeat_iv", false);
        if (repeat_iv && (op != "encrypt" || workload == "bulk"))
            throw Unsupported("a repeated IV is timed for encrypted messages only (workload message or rekey)");

        Buffers io(in_buffer_, out_buffer_, size);
        uint8_t* const buf = io.in;
        uint8_t* const out = io.out;
        std::vector<Sample> samples;
        samples.reserve(batches);

        if (p.kind == Kind::Hash) {
            if (op != "hash") throw Fail(std::string(p.name) + " is a hash: operation must be 'hash'");
            if (workload == "rekey") throw Fail("hashes have no key: use workload bulk or message");
            auto h = t.impl->adapter->hash(p);
            std::vector<uint8_t> d(p.digest_bytes);
            for (uint64_t b = 0; b < batches; ++b) {
                if (workload == "bulk") {
                    h->init();
                    samples.push_back(timed([&] { for (uint64_t i = 0; i < loops; ++i) h->update(buf, size); }));
                    h->final(d.data());
                } else {
                    samples.push_back(timed([&] {
                        for (uint64_t i = 0; i < loops; ++i) { h->init(); h->update(buf, size); h->final(d.data()); }
                    }));
                }
            }
            return result(samples);
        }

        auto key = unhex(req, "key"), iv = unhex(req, "iv"), aad = unhex(req, "aad");
        if (op == "keysetup" || op == "keysetup-decrypt") {
            check_key(p, key);  // key setup takes no IV or AAD: any given are not used
            auto c = t.impl->adapter->cipher(p, op == "keysetup" ? Direction::Encrypt : Direction::Decrypt);
            for (uint64_t b = 0; b < batches; ++b)
                samples.push_back(timed([&] { for (uint64_t i = 0; i < loops; ++i) c->set_key(key.data(), key.size()); }));
            return result(samples);
        }
        check_lengths(p, key, iv, aad);
        check_input(p, size);
        const bool aead = p.kind == Kind::Aead;
        std::vector<uint8_t> tag(p.tag_bytes);
        if (op == "encrypt") {
            auto c = t.impl->adapter->cipher(p, Direction::Encrypt);
            refuse_bulk_if_one_shot(*c, p, workload);
            c->set_key(key.data(), key.size());
            uint8_t* const dst = separate ? out : buf;
            for (uint64_t b = 0; b < batches; ++b) {
                if (workload == "bulk") {
                    c->start(iv.data(), iv.size());
                    if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
                    samples.push_back(timed([&] { c->update_many(buf, dst, size, loops); }));
                    c->finish(tag.data());
                } else {
                    const bool rekey = workload == "rekey";
                    samples.push_back(timed([&] {
                        for (uint64_t i = 0; i < loops; ++i) {
                            if (rekey) c->set_key_and_start(key.data(), key.size(), iv.data(), iv.size());
                            else c->start(iv.data(), iv.size());
                            if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
                            c->update(buf, dst, size);
                            c->finish(tag.data());
                            if (!repeat_iv) bump(iv);
                        }
                    }));
                }
            }
            json r = result(samples);
            if (separate) r["inplace"] = false;
            if (repeat_iv) r["repeat_iv"] = true;
            return r;
        }
        if (op == "decrypt" || op == "decrypt-forged") {
            const bool forged = op == "decrypt-forged";
            if (forged && !aead) throw Fail("decrypt-forged applies to AEADs only");
            // A valid ciphertext (and tag) to open, made once outside the timing.
            if (aead) {
                auto e = t.impl->adapter->cipher(p, Direction::Encrypt);
                e->set_key(key.data(), key.size());
                e->start(iv.data(), iv.size());
                if (!aad.empty()) e->aad(aad.data(), aad.size());
                if (size) e->update(buf, buf, size);
                e->finish(tag.data());
                if (forged) tag[0] ^= 1;
            }
            auto c = t.impl->adapter->cipher(p, Direction::Decrypt);
            refuse_bulk_if_one_shot(*c, p, workload);
            c->set_key(key.data(), key.size());
            uint64_t accepted = 0;
            for (uint64_t b = 0; b < batches; ++b) {
                if (workload == "bulk") {
                    // Streaming decryption of one long message; no tag check (as openssl speed -evp -decrypt).
                    c->start(iv.data(), iv.size());
                    if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
                    samples.push_back(timed([&] { c->update_many(buf, buf, size, loops); }));
                } else {
                    const bool rekey = workload == "rekey";
                    samples.push_back(timed([&] {
                        for (uint64_t i = 0; i < loops; ++i) {
                            if (rekey) c->set_key_and_start(key.data(), key.size(), iv.data(), iv.size());
                            else c->start(iv.data(), iv.size());
                            if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
                            c->update(buf, out, size);
                            accepted += c->finish(tag.data());
                        }
                    }));
                }
            }
            if (aead && workload != "bulk") {
                const uint64_t expect = forged ? 0 : loops * batches;
                if (accepted != expect)
                    throw Fail(std::string(p.name) + ": " + std::to_string(accepted) + " of " +
                               std::to_string(loops * batches) + (forged ? " forged messages were accepted" : " valid messages were accepted"));
            }
            return result(samples);
        }
        throw Fail("unknown operation '" + op + "'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash");
    }

    // What breaks the contract for one primitive (see check_adapters), or "".
    static std::string contract_failure(const Adapter& a, const Primitive& p) {
        const bool aead = p.kind == Kind::Aead;
        std::vector<uint8_t> key(p.key_bytes), iv(p.iv_bytes), aad(aead ? 5 : 0);
        for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i + 1);  // XTS: the halves differ
        for (size_t i = 0; i < iv.size(); ++i) iv[i] = uint8_t(0xa0 + i);
        for (size_t i = 0; i < aad.size(); ++i) aad[i] = uint8_t(0x50 + i);
        const size_t n = p.whole_blocks ? 4 * p.block_bytes : 64;
        std::vector<uint8_t> msg(n);
        for (size_t i = 0; i < n; ++i) msg[i] = uint8_t(i);

        struct Message { std::vector<uint8_t> out, tag; bool ok; };
        enum class Begin { Start, KeyAndStart };
        // One message on c: begin it, AAD, one update of `in`, finish (tag: read if decrypting).
        auto message = [&](Cipher& c, Begin how, const std::vector<uint8_t>& in, std::vector<uint8_t> tag) {
            if (how == Begin::Start) c.start(iv.data(), iv.size());
            else c.set_key_and_start(key.data(), key.size(), iv.data(), iv.size());
            if (!aad.empty()) c.aad(aad.data(), aad.size());
            std::vector<uint8_t> out(in.size());
            c.update(in.data(), out.data(), in.size());
            tag.resize(p.tag_bytes);
            bool ok = c.finish(tag.data());
            return Message{out, tag, ok};
        };

        auto e = a.cipher(p, Direction::Encrypt);
        e->set_key(key.data(), key.size());
        const Message first = message(*e, Begin::Start, msg, {});
        const Message again = message(*e, Begin::Start, msg, {});
        if (again.out != first.out || again.tag != first.tag)
            return "a second message on one keyed context differs from the first (start() does not restart)";
        if (first.out == msg && p.kind != Kind::Null) return "encryption left the message unchanged";
        if (message(*e, Begin::KeyAndStart, msg, {}).out != first.out)
            return "set_key_and_start() gives another message than set_key() then start()";

        auto d = a.cipher(p, Direction::Decrypt);
        d->set_key(key.data(), key.size());
        for (Begin how : {Begin::Start, Begin::Start, Begin::KeyAndStart}) {
            const Message back = message(*d, how, first.out, first.tag);
            if (!back.ok) return "decryption rejected the encryption's own message";
            if (back.out != msg) return "decryption does not give the message back (second message or set_key_and_start)";
        }

        if (!e->streams()) return "";
        // update_many(count 3) against three update() calls, in place as the bulk workload
        // runs, with pieces every streaming API takes: whole blocks, and multiples of 256
        // bytes (Botan's OCB continues a message only after those).
        const size_t bulk = std::lcm(size_t(256), p.block_bytes ? p.block_bytes : 1);
        msg.resize(bulk);
        for (size_t i = 0; i < bulk; ++i) msg[i] = uint8_t(i);
        for (Direction dir : {Direction::Encrypt, Direction::Decrypt}) {
            std::vector<uint8_t> many = msg, each = msg, tag_many(p.tag_bytes), tag_each(p.tag_bytes);
            auto c = a.cipher(p, dir), c2 = a.cipher(p, dir);
            c->set_key(key.data(), key.size());
            c->start(iv.data(), iv.size());
            c->update_many(many.data(), many.data(), bulk, 3);
            c2->set_key(key.data(), key.size());
            c2->start(iv.data(), iv.size());
            for (int i = 0; i < 3; ++i) c2->update(each.data(), each.data(), bulk);
            if (dir == Direction::Encrypt) {
                c->finish(tag_many.data());
                c2->finish(tag_each.data());
            }
            if (many != each || tag_many != tag_each)
                return std::string("update_many() differs from as many update() calls (") +
                       (dir == Direction::Encrypt ? "encrypting)" : "decrypting)");
        }
        return "";
    }

    static void refuse_bulk_if_one_shot(const Cipher& c, const Primitive& p, const std::string& workload) {
        if (workload == "bulk" && !c.streams())
            throw Unsupported(std::string(p.name) + " is one call per message in this implementation: "
                              "time it with the message or rekey workload");
    }

    json result(const std::vector<Sample>& s) const {
        json ns = json::array(), ticks = json::array(), cyc = json::array();
        for (const auto& x : s) { ns.push_back(x.ns); ticks.push_back(x.tsc); cyc.push_back(x.cycles); }
        json r = {{"status", "ok"}, {"ns", ns}};
        r["tsc"] = has_tsc() ? ticks : json(nullptr);
        r["core_cycles"] = cycles_.available() ? cyc : json(nullptr);
        if (!probes_.empty()) {  // one reading before the first batch and one after each
            json serial = json::array(), parallel = json::array();
            for (const auto& p : probes_) { serial.push_back(p.serial_ns); parallel.push_back(p.parallel_ns); }
            r["probe_cycles"] = probe_k_ * 1000;
            r["probe_ns"] = serial;
            r["probe_parallel_ns"] = parallel;
        }
        if (stack_offset_ >= 0) {  // honoured: echoed, with where the last batch's frame landed
            r["stack_offset"] = stack_offset_;
            r["stack_at"] = cb_stack_at();
        }
        return r;
    }

    // ct-sample: single calls of two interleaved input classes, raw times (ct_sample.h).
    json ct_sample_op(const json& req, std::vector<uint8_t>* input) const {
        Target t = target(req);
        const std::string vary = str(req, "vary");
        if (vary != "key" && vary != "plaintext") throw Fail("vary must be 'key' or 'plaintext'");
        CtSampleRequest r;
        r.vary = vary == "key" ? CtVary::Key : CtVary::Plaintext;
        r.samples = count(req, "samples", 0, true);
        r.seed = count(req, "seed", 0, true);
        r.key = unhex(req, "key", true);
        r.iv = unhex(req, "iv");
        r.aad = unhex(req, "aad");
        r.input = input_of(req, input);
        CtSampleResult res = ct_sample(*t.impl->adapter, *t.prim, r);
        return {{"status", "ok"}, {"vary", vary}, {"samples", r.samples}, {"timer", res.timer},
                {"classes", res.classes}, {"times", res.times}};
    }

    json cpu_clock(const json& req) const {
        const uint64_t k = count(req, "thousands", 100000);
        if (k == 0 || k > 100000000) throw Fail("thousands must be in 1..100000000");
        // best_of: run the chain that many times, back to back, and answer the fastest. The
        // chain cannot run faster than one add per cycle, while an interrupt or a preemption
        // only slows it, so the fastest run is the clock (docs/protocol.md, "cpu-clock").
        const uint64_t best_of = count(req, "best_of", 1);
        if (best_of == 0 || best_of > 100) throw Fail("best_of must be in 1..100");
        // parallel: the same additions in four independent chains, also the fastest of best_of
        // runs (parallel_add_chains: ns / parallel_ns is how many the core ran at once)
        if (req.contains("parallel") && !req["parallel"].is_boolean())
            throw Fail("parallel must be true or false");
        const auto fastest = [&](auto chain) {
            Sample s = timed([&] { chain(); });
            for (uint64_t i = 1; i < best_of; ++i) {
                Sample again = timed([&] { chain(); });
                if (again.ns < s.ns) s = again;
            }
            return s;
        };
        const Sample s = fastest([&] { dependent_add_chain(k); });
        json r = {{"status", "ok"}, {"chain_cycles", k * 1000}, {"ns", s.ns}};
        r["tsc"] = has_tsc() ? json(s.tsc) : json(nullptr);
        r["core_cycles"] = cycles_.available() ? json(s.cycles) : json(nullptr);
        if (req.value("parallel", false)) r["parallel_ns"] = fastest([&] { parallel_add_chains(k); }).ns;
        return r;
    }

    std::vector<Impl> impls_;
    CoreCycles cycles_;
};

}  // namespace
}  // namespace cb

int cb_taint_main(int argc, char** argv);  // taint.cpp

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::cerr << "cipherbench-engine: native runner speaking cipherbench protocol v1 on stdin/stdout\n"
                     "  --check-adapters  check every adapter's contexts against the adapter contract\n"
                     "                    (engine/include/cipherbench/adapter.h); exit status 1 on a failure\n"
                     "  --taint IMPL PRIMITIVE key|plaintext\n"
                     "                    key setup, encryption and decryption with the secret marked undefined\n"
                     "                    for valgrind memcheck (taint.cpp); run under valgrind\n"
                     "  --notes FILE      add FILE's JSON object to every implementation's notes (variant builds)\n"
                     "  --sha256-impl     print which SHA-256 computes `fill` and `digest`: sha-ni or portable\n"
                     "                    (CIPHERBENCH_ENGINE_SHA=portable forces the portable code)\n";
        return 0;
    }
    if (argc == 2 && std::string(argv[1]) == "--sha256-impl") {
        std::cout << cb::sha256_impl() << '\n';
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--taint") return cb_taint_main(argc - 2, argv + 2);
    cb::Engine engine;
    if (argc > 1 && std::string(argv[1]) == "--check-adapters") return engine.check_adapters(std::cout) ? 1 : 0;
    if (argc == 3 && std::string(argv[1]) == "--notes") {
        try {
            engine.add_notes(argv[2]);
        } catch (const std::exception& e) {
            std::cerr << "cipherbench-engine: " << e.what() << '\n';
            return 2;
        }
    } else if (argc > 1) {
        std::cerr << "cipherbench-engine: unknown option '" << argv[1] << "' (see --help)\n";
        return 2;
    }
    std::string line, shorter;
    std::vector<uint8_t> input;
    while (std::getline(std::cin, line)) {
        json resp;
        json id = nullptr;
        try {
            // Every line is answered (docs/protocol.md, "Transport"), a blank one too.
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                throw cb::Fail("blank line: a request must be a JSON object");
            // nlohmann's lexer takes a NUL byte for the end of input: what followed would be lost
            if (line.find('\0') != std::string::npos)
                throw cb::Fail("malformed request: not JSON (a NUL byte in the line)");
            // A long hex "input" is decoded here and left out of what nlohmann lexes (line_io.cpp
            // says why the answer stays the same); a line whose shortened form nlohmann refuses
            // is parsed again as it came, so that the error, with its positions, is the old one.
            json req;
            bool decoded = cb::take_hex_input(line, shorter, input);
            if (decoded) {
                try {
                    req = json::parse(shorter);
                } catch (const json::exception&) {
                    decoded = false;
                    req = json::parse(line);
                }
            } else {
                req = json::parse(line);
            }
            if (!req.is_object()) throw cb::Fail("a request must be a JSON object");
            // nlohmann reads 1e999 as an infinity and would echo it as null: refused instead
            // (docs/protocol.md: an id that cannot be written back as it came is an error)
            if (req.contains("id") && req["id"].is_number_float() && !std::isfinite(req["id"].get<double>()))
                throw cb::Fail("malformed request: id is a number out of range");
            if (req.contains("id")) id = req["id"];
            if (req.value("op", "") == "quit") break;
            resp = engine.handle(req, decoded ? &input : nullptr);
        } catch (const json::parse_error& e) {
            resp = {{"status", "error"}, {"message", std::string("malformed request: not JSON (") + e.what() + ")"}};
        } catch (const cb::Unsupported& e) {
            resp = {{"status", "unsupported"}, {"message", e.what()}};
        } catch (const std::exception& e) {
            resp = {{"status", "error"}, {"message", e.what()}};
        }
        resp["id"] = id;
        cb::write_answer(std::cout, resp);  // resp.dump(-1, ' ', false, error_handler_t::replace)
        std::cout << '\n' << std::flush;
    }
    return 0;
}
