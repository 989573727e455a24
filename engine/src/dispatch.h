// dispatch: the implementations built in, each request's implementation found among them by
// name, and each op to the code that answers it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"
#include "request.h"
#include "timing.h"

namespace cb {

struct Impl {
    std::string name, library, version, reason;
    std::unique_ptr<Adapter> adapter;
    std::map<std::string, std::string> offers;  // primitive -> provider (the path in words)
    std::map<std::string, Features> features;   // primitive -> the same path as data
    std::map<std::string, RoundsOffer> rounds;  // primitive -> reduced rounds offered
    std::vector<std::string> problems;
    std::vector<std::pair<std::string, std::string>> notes;
};

struct Target {
    const Impl* impl;
    const Primitive* prim;
    std::string provider;
};

// Every adapter folder of the build (gen/adapters.inc), built or announced missing, in order.
class Registry {
public:
    Registry();
    const std::vector<Impl>& all() const { return impls_; }

    // Resolves "impl" and "primitive", or throws Fail / Unsupported with a clear message.
    Target target(const json& req) const;

    // --notes FILE: a JSON object whose members join every implementation's notes (a value
    // that is not a string as its JSON text). Variant builds (cipherbench/builds) name their
    // compiler, flags, build time and code size so, and the store keeps them with the run.
    void add_notes(const std::string& path);

private:
    template <class F> void add(const std::string& folder, F make);
    void add_missing(const std::string& folder, const std::string& why);

    std::vector<Impl> impls_;
};

class Engine {
public:
    // `input`: the request's "input" already decoded (read_request), its value in `req`
    // emptied; null: the request is read as it is.
    json handle(const json& req, std::vector<uint8_t>* input = nullptr);

    int check_adapters(std::ostream& log) const;  // checking.h
    void add_notes(const std::string& path) { registry_.add_notes(path); }

private:
    json hello(const json& req, std::vector<uint8_t>* input);
    json encrypt(const json& req, std::vector<uint8_t>* input);
    json decrypt(const json& req, std::vector<uint8_t>* input);
    json crypt(const json& req, bool enc, std::vector<uint8_t>* input);
    json hash(const json& req, std::vector<uint8_t>* input);
    json bench(const json& req, std::vector<uint8_t>* input);
    json cpu_clock(const json& req, std::vector<uint8_t>* input);
    json ct_sample(const json& req, std::vector<uint8_t>* input);

    // Declared first: the core-cycle counter is opened before any adapter is made.
    Timing timing_;
    Registry registry_;
    FillCache fills_;
};

}  // namespace cb
