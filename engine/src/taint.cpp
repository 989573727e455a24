// --taint IMPL PRIMITIVE key|plaintext: the secret-taint check's subject, after
// SUPERCOP's TIMECOP and Langley's ctgrind. The secret is marked undefined with
// valgrind's client requests (<valgrind/memcheck.h>), so memcheck, run over this
// process, reports every branch ("Conditional jump or move depends on uninitialised
// value(s)") and every address ("Use of uninitialised value of size N") computed
// from it. cipherbench/ct/taint.py runs it and reads memcheck's XML.
//
// Contract with taint.py:
// - error reporting is on only inside a phase; each phase starts with the client
//   message "cb-phase NAME" (a <clientmsg> in the XML), so every error belongs to the
//   phase whose message precedes it;
// - key: phases keysetup (encryption and decryption contexts), encrypt, decrypt, and
//   for an AEAD verify (the tag computed and compared in finish); the ciphertext and tag
//   are public, so they are made defined before decryption;
// - plaintext: phase encrypt only, the key being public there; for a hash, phase hash
//   (the message is the secret: a hash has no key);
// - whatever the harness reads afterwards (outputs, the round-trip comparison) is
//   made defined first, so no finding is the harness's own;
// - stdout gets one JSON line: what ran (provider as the library reports it under
//   valgrind's CPUID), whether it ran under valgrind, the errors counted per phase
//   (VALGRIND_COUNT_ERRORS, repeats included), and whether decryption gave the
//   message back. Exit status 0 when the phases ran, 2 on a bad argument, 1 when
//   the library failed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"

#if defined(CB_HAVE_VALGRIND)
#include <valgrind/memcheck.h>
#else  // built without valgrind's header: the mode runs, but marks nothing
#define VALGRIND_MAKE_MEM_UNDEFINED(a, n) ((void)(a), (void)(n))
#define VALGRIND_MAKE_MEM_DEFINED(a, n) ((void)(a), (void)(n))
#define VALGRIND_DISABLE_ERROR_REPORTING
#define VALGRIND_ENABLE_ERROR_REPORTING
#define VALGRIND_COUNT_ERRORS 0u
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_PRINTF(...) 0
#endif

#define CB_ADAPTER(folder) CB_ADAPTER_FACTORY(folder);
#define CB_ADAPTER_MISSING(folder, reason)
#include "adapters.inc"
#undef CB_ADAPTER
#undef CB_ADAPTER_MISSING

using json = nlohmann::json;

namespace {

struct Built {
    std::string folder;
    std::unique_ptr<cb::Adapter> (*make)();
};

const std::vector<Built>& factories() {
#define CB_ADAPTER(folder) {#folder, &cb_adapter_##folder},
#define CB_ADAPTER_MISSING(folder, reason)
    static const std::vector<Built> all = {
#include "adapters.inc"
    };
#undef CB_ADAPTER
#undef CB_ADAPTER_MISSING
    return all;
}

// The adapter named `impl`: its own folder first (one library initialised), then any.
std::unique_ptr<cb::Adapter> find_adapter(const std::string& impl) {
    for (const auto& b : factories())
        if (b.folder == impl) {
            auto a = b.make();
            if (a && a->name() == impl) return a;
        }
    for (const auto& b : factories()) {
        auto a = b.make();
        if (a && a->name() == impl) return a;
    }
    return nullptr;
}

// Counts errors from here to the end of the phase (VALGRIND_COUNT_ERRORS is cumulative).
class Phase {
public:
    Phase(const char* name, json& counts) : name_(name), counts_(counts), before_(VALGRIND_COUNT_ERRORS) {
        VALGRIND_PRINTF("cb-phase %s\n", name);
        VALGRIND_ENABLE_ERROR_REPORTING;
    }
    ~Phase() {
        VALGRIND_DISABLE_ERROR_REPORTING;
        counts_[name_] = counts_.value(name_, 0u) + (VALGRIND_COUNT_ERRORS - before_);  // a phase may recur
    }
private:
    const char* name_;
    json& counts_;
    unsigned before_;
};

std::vector<uint8_t> pattern(size_t n, unsigned mul, unsigned add) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * mul + add);
    return v;
}

json run(const cb::Adapter& a, const cb::Primitive& p, bool secret_key) {
    json counts = json::object();
    auto key = pattern(p.key_bytes, 29, 7), iv = pattern(p.iv_bytes, 13, 160);
    auto aad = pattern(p.kind == cb::Kind::Aead ? 5 : 0, 1, 80);
    auto msg = pattern(p.whole_blocks ? 4 * p.block_bytes : 64, 1, 0);
    std::vector<uint8_t> ct(msg.size()), back(msg.size()), tag(p.tag_bytes);
    auto enc = a.cipher(p, cb::Direction::Encrypt), dec = a.cipher(p, cb::Direction::Decrypt);
    if (!secret_key) {
        // Both directions keyed, as with a secret key: an adapter may keep set-up state that
        // must be used (Crypto++'s AlgorithmParameters throws from its destructor when a
        // parameter such as RC2's EffectiveKeyLength was never read).
        enc->set_key(key.data(), key.size());
        dec->set_key(key.data(), key.size());
        VALGRIND_MAKE_MEM_UNDEFINED(msg.data(), msg.size());
    } else {
        VALGRIND_MAKE_MEM_UNDEFINED(key.data(), key.size());
        Phase phase("keysetup", counts);
        enc->set_key(key.data(), key.size());
        dec->set_key(key.data(), key.size());
    }
    {
        Phase phase("encrypt", counts);
        enc->start(iv.data(), iv.size());
        if (!aad.empty()) enc->aad(aad.data(), aad.size());
        enc->update(msg.data(), ct.data(), msg.size());
        enc->finish(tag.data());
    }
    // Ciphertext and tag are public: declassified before anything else reads them.
    VALGRIND_MAKE_MEM_DEFINED(ct.data(), ct.size());
    VALGRIND_MAKE_MEM_DEFINED(tag.data(), tag.size());
    VALGRIND_MAKE_MEM_DEFINED(msg.data(), msg.size());
    json r = {{"phase_errors", counts}};
    if (secret_key) {
        bool authentic;
        {
            Phase phase("decrypt", counts);
            dec->start(iv.data(), iv.size());
            if (!aad.empty()) dec->aad(aad.data(), aad.size());
            dec->update(ct.data(), back.data(), ct.size());
            if (p.kind != cb::Kind::Aead) authentic = dec->finish(tag.data());
        }
        if (p.kind == cb::Kind::Aead) {
            // An AEAD's finish computes the tag from the key and compares it: the branch on
            // the comparison's outcome is on a secret-derived value, but the outcome itself
            // is public (the caller learns accept or reject). Its own phase lets the reader
            // tell that branch from the rest (ct/checks.py, TaintFinding.on_public_outcome).
            Phase phase("verify", counts);
            authentic = dec->finish(tag.data());
        }
        VALGRIND_MAKE_MEM_DEFINED(back.data(), back.size());
        VALGRIND_MAKE_MEM_DEFINED(&authentic, sizeof authentic);
        r["phase_errors"] = counts;
        r["roundtrip"] = authentic && back == msg;
    }
    VALGRIND_MAKE_MEM_DEFINED(key.data(), key.size());
    r["changed"] = ct != msg || p.kind == cb::Kind::Null;
    return r;
}

// A hash of a secret message (a password, a key derived from it, HMAC's inner block): the
// message is marked secret for one phase, hash, over two messages so that the code for a
// partial block and the padding of a full one both run; the digests are declassified after.
json run_hash(const cb::Adapter& a, const cb::Primitive& p) {
    json counts = json::object();
    auto h = a.hash(p);
    std::vector<uint8_t> digest(p.digest_bytes);
    for (size_t len : {size_t(3 * 64 + 7), size_t(128)}) {
        auto msg = pattern(len, 1, 0);
        VALGRIND_MAKE_MEM_UNDEFINED(msg.data(), msg.size());
        {
            Phase phase("hash", counts);
            h->init();
            h->update(msg.data(), msg.size());
            h->final(digest.data());
        }
        VALGRIND_MAKE_MEM_DEFINED(digest.data(), digest.size());
        VALGRIND_MAKE_MEM_DEFINED(msg.data(), msg.size());
    }
    return {{"phase_errors", counts}, {"changed", true}};
}

int usage(const std::string& why) {
    std::cerr << "cipherbench-engine --taint: " << why << " (usage: --taint IMPL PRIMITIVE key|plaintext)\n";
    return 2;
}

}  // namespace

int cb_taint_main(int argc, char** argv) {
    VALGRIND_DISABLE_ERROR_REPORTING;  // on only inside a phase (Phase)
    struct Reenable { ~Reenable() { VALGRIND_ENABLE_ERROR_REPORTING; } } reenable;  // valgrind warns at exit otherwise
    if (argc != 3) return usage("needs three arguments");
    const std::string impl = argv[0], prim = argv[1], secret = argv[2];
    if (secret != "key" && secret != "plaintext") return usage("the secret is 'key' or 'plaintext', not '" + secret + "'");
    const cb::Primitive* p = cb::find_primitive(prim);
    if (!p) return usage("unknown primitive '" + prim + "'");
    if (p->kind == cb::Kind::Hash && secret != "plaintext")
        return usage(prim + " is a hash: its secret is the message ('plaintext'), it has no key");
    try {
        auto a = find_adapter(impl);
        if (!a) return usage("unknown implementation '" + impl + "'");
        if (!a->unavailable_reason().empty()) return usage(impl + " is unavailable: " + a->unavailable_reason());
        std::string provider;
        bool offered = false;
        for (const auto& o : a->offers())
            if (o.primitive == prim) { offered = true; provider = o.path.text; }
        if (!offered) return usage(impl + " does not offer " + prim);
        json r = p->kind == cb::Kind::Hash ? run_hash(*a, *p) : run(*a, *p, secret == "key");
        r.update({{"impl", impl}, {"primitive", prim}, {"secret", secret}, {"library", a->library()},
                  {"version", a->version()}, {"provider", provider},
                  {"under_valgrind", RUNNING_ON_VALGRIND != 0},
#if defined(CB_HAVE_VALGRIND)
                  {"client_requests", true}
#else
                  {"client_requests", false}
#endif
                 });
        std::cout << r.dump() << '\n';
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "cipherbench-engine --taint: " << impl << ' ' << prim << ": " << e.what() << '\n';
        return 1;
    }
}
