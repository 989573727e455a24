// dispatch: the implementations built in, found by name, and each op to its answer (dispatch.h).
#include "dispatch.h"

#include <fstream>

#include "checking.h"
#include "clocks.h"

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

std::string runtime() {
#if defined(__clang__)
    return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
    return std::string("g++ ") + __VERSION__;
#else
    return "unknown compiler";
#endif
}

// One implementation as hello announces it.
json announced(const Impl& im) {
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
    return j;
}

}  // namespace

// ------------------------------------------------------------------ the registry
template <class F>
void Registry::add(const std::string& folder, F make) {
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

void Registry::add_missing(const std::string& folder, const std::string& why) {
    Impl im;
    im.name = folder + CB_IMPL_SUFFIX;
    im.reason = why;
    impls_.push_back(std::move(im));
}

Registry::Registry() {
#define CB_ADAPTER(folder) add(#folder, [] { return cb_adapter_##folder(); });
#define CB_ADAPTER_MISSING(folder, why) add_missing(#folder, why);
#include "adapters.inc"
#undef CB_ADAPTER
#undef CB_ADAPTER_MISSING
}

void Registry::add_notes(const std::string& path) {
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

Target Registry::target(const json& req) const {
    const Names names = parse_names(req);
    for (const auto& im : impls_) {
        if (im.name != names.impl) continue;
        if (!im.reason.empty()) throw Unsupported(names.impl + " is unavailable: " + im.reason);
        auto it = im.offers.find(names.prim->name);
        if (it == im.offers.end()) throw Unsupported(names.impl + " does not offer " + names.prim->name);
        return {&im, names.prim, it->second};
    }
    throw Fail("unknown implementation '" + names.impl + "'");
}

// ------------------------------------------------------------------ the ops
json Engine::handle(const json& req, std::vector<uint8_t>* input) {
    using Answer = json (Engine::*)(const json&, std::vector<uint8_t>*);
    struct Op { const char* name; Answer answer; };
    static const Op kOps[] = {
        {"hello", &Engine::hello}, {"encrypt", &Engine::encrypt}, {"decrypt", &Engine::decrypt},
        {"hash", &Engine::hash},   {"bench", &Engine::bench},     {"cpu-clock", &Engine::cpu_clock},
        {"ct-sample", &Engine::ct_sample},
    };
    const std::string op = read_op(req);
    for (const Op& o : kOps)
        if (op == o.name) return (this->*o.answer)(req, input);
    std::string accepted;
    for (const Op& o : kOps) accepted += std::string(o.name) + ", ";
    throw Fail("unknown op '" + op + "'; accepted: " + accepted + "quit");  // quit: the loop's (main.cpp)
}

int Engine::check_adapters(std::ostream& log) const { return cb::check_adapters(registry_.all(), log); }

json Engine::hello(const json&, std::vector<uint8_t>*) {
    json impls = json::array();
    for (const auto& im : registry_.all()) impls.push_back(announced(im));
    const CoreCycles& cycles = timing_.cycles();
    json clocks = {{"monotonic", "clock_gettime(CLOCK_MONOTONIC)"}};
    clocks["tsc"] = has_tsc() ? json("rdtsc (fixed-rate, not core cycles)") : json(nullptr);
    if (cycles.available()) clocks["core_cycles"] = "perf_event PERF_COUNT_HW_CPU_CYCLES";
    else { clocks["core_cycles"] = nullptr; clocks["core_cycles_unavailable"] = cycles.why(); }
    const char* vector_state = clean_vector_state() ? "vzeroupper before every timed batch"
                                                    : "nothing to reset: no AVX on this CPU";
    return {{"status", "ok"}, {"protocol", kProtocol}, {"runner", "native" CB_IMPL_SUFFIX}, {"language", "C++17"}, {"jit", false},
            {"runtime", runtime()}, {"clocks", clocks}, {"vector_state", vector_state},
            {"implementations", impls}};
}

json Engine::encrypt(const json& req, std::vector<uint8_t>* input) { return crypt(req, true, input); }
json Engine::decrypt(const json& req, std::vector<uint8_t>* input) { return crypt(req, false, input); }

json Engine::crypt(const json& req, bool enc, std::vector<uint8_t>* input) {
    const Target t = registry_.target(req);
    CryptRequest r = parse_crypt(req, *t.prim, enc, input, fills_);
    return crypt_once(*t.impl->adapter, t.impl->name, *t.prim, enc, std::move(r), req);
}

json Engine::hash(const json& req, std::vector<uint8_t>* input) {
    const Target t = registry_.target(req);
    const HashRequest r = parse_hash(req, *t.prim, input, fills_);
    return hash_once(*t.impl->adapter, *t.prim, r, req);
}

json Engine::bench(const json& req, std::vector<uint8_t>*) {
    const Target t = registry_.target(req);
    const BenchRequest b = parse_bench(req);
    return timing_.bench(*t.impl->adapter, *t.prim, b, req);
}

json Engine::cpu_clock(const json& req, std::vector<uint8_t>*) { return timing_.cpu_clock(parse_cpu_clock(req)); }

json Engine::ct_sample(const json& req, std::vector<uint8_t>* input) {
    const Target t = registry_.target(req);
    return Timing::ct_sample_answer(*t.impl->adapter, *t.prim, parse_ct_sample(req, input));
}

}  // namespace cb
