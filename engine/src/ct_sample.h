// The `ct-sample` request (docs/protocol.md): single calls timed for two input
// classes, interleaved in an order drawn from a seed, for a dudect-style test
// (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant time?", DATE 2017).
// The runner only collects the raw times; the statistics are the orchestrator's
// (cipherbench/ct/dudect.py).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cipherbench/adapter.h"

namespace cb {

enum class CtVary { Key, Plaintext };

struct CtSampleRequest {
    CtVary vary = CtVary::Key;
    uint64_t samples = 0;  // timed calls, both classes together
    uint64_t seed = 0;     // decides the class order and the random class's inputs
    // The fixed class's inputs; the random class replaces the key (vary Key) or the
    // plaintext (vary Plaintext) with fresh random bytes for every call.
    std::vector<uint8_t> key, iv, aad, input;
};

struct CtSampleResult {
    std::vector<uint8_t> classes;  // per call: 0 = fixed class, 1 = random class
    std::vector<uint64_t> times;   // per call, in `timer`'s unit
    std::string timer;
};

// Times `samples` single encryptions: with vary Key each call is key setup, IV, AAD,
// the whole input and finish; with vary Plaintext the context is keyed once and each
// call is IV, AAD, the whole input and finish. Inputs are prepared before timing.
// Throws cb::Error on a request it cannot serve, cb::Unsupported on a hash.
CtSampleResult ct_sample(const Adapter& adapter, const Primitive& p, const CtSampleRequest& req);

}  // namespace cb
