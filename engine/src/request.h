// request: a request line's JSON read into typed requests, every refusal in the words and the
// order the protocol has always answered it with (docs/protocol.md); runs no adapter and no clock.
//
// A request's checks interleave with the implementation's lookup and with what only its
// contexts can say (a cipher that takes a message in one call refuses chunks before `rounds`
// is read), and the first refusal is the answer; so a request is read in stages, each a
// function here, which the code answering it calls in that order: parse_names, then the
// lookup (dispatch.h), then the body (parse_crypt, parse_hash, parse_bench, ...), then the
// few fields read after an adapter's own answer (parse_rounds, parse_chunks, parse_bench_keys).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"
#include "ct_sample.h"

namespace cb {

using json = nlohmann::json;

struct Fail : std::runtime_error {  // answered as status "error"
    using std::runtime_error::runtime_error;
};

// One line as a request object, or Fail (a blank line, a NUL byte, not an object, an id out
// of range) or json::parse_error (the loop words it "malformed request: not JSON (...)"). A
// long hex "input" is decoded into `input` and left out of what nlohmann lexes (line_io.h):
// the answer is whether it was, `shorter` the line without it. A line whose shortened form
// nlohmann refuses is parsed again as it came, so that the error, with its positions, is the
// one the whole line gives.
bool read_request(const std::string& line, std::string& shorter, std::vector<uint8_t>& input, json& req);

// The request's "op", a string.
std::string read_op(const json& req);

// "impl" and "primitive", read in this order; the primitive must be in the registry.
struct Names {
    std::string impl;
    const Primitive* prim;
};
Names parse_names(const json& req);

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
    const std::vector<uint8_t>& get(const std::vector<uint8_t>& seed, size_t n);
};

// encrypt and decrypt, read up to "inplace". `input`: the request's "input" already decoded
// (read_request), its value in `req` emptied; null: read from the hex now.
struct CryptRequest {
    std::vector<uint8_t> key, iv, aad;
    std::vector<uint8_t> in;   // "fill"'s bytes, then "input" (an AEAD decryption's tag too)
    size_t n = 0;              // the message's bytes in `in`, the tag left out
    std::vector<uint8_t> tag;  // tag_bytes; an AEAD decryption's: the end of `in`
    std::vector<size_t> parts; // the update() calls' lengths ("chunks")
    bool digest = false;       // "digest": "sha256"
    bool chunked = false;      // "chunks" given
    bool inplace = false;      // "inplace": the output over the input buffer
    bool filled = false;       // "fill" given
};
CryptRequest parse_crypt(const json& req, const Primitive& p, bool enc, std::vector<uint8_t>* input,
                         FillCache& fills);

// "rounds" of encrypt and decrypt, read once the cipher has taken or refused the chunks: 0
// (absent or null) for the full cipher.
uint64_t parse_rounds(const json& req);

// hash, read up to its input; its "chunks" are read once the hash is initialised (parse_chunks).
struct HashRequest {
    std::vector<uint8_t> in;
    bool chunked = false;
    bool filled = false;
};
HashRequest parse_hash(const json& req, const Primitive& p, std::vector<uint8_t>* input, FillCache& fills);

// Optional "chunks": lengths of consecutive update() calls; the rest of the n-byte input (if
// any) is one more call (docs/protocol.md). Without the field: the input in one call.
std::vector<size_t> parse_chunks(const json& req, const Primitive& p, size_t n);

// bench's "operation" and "workload"; Other: an operation refused only after the keys are read.
enum class BenchOp { Encrypt, Decrypt, DecryptForged, KeySetup, KeySetupDecrypt, Hash, Other };
enum class Workload { Bulk, Message, Rekey };

// bench, read up to "repeat_iv": the counts and where and how the batches run.
struct BenchRequest {
    std::string operation;  // as the request spelled it, for BenchOp::Other's refusal
    BenchOp op = BenchOp::Other;
    Workload workload = Workload::Bulk;
    uint64_t size = 0, loops = 0, batches = 1;
    int stack_offset = -1;   // "stack_offset"; -1: none asked, the stack stays where it is
    uint64_t probe_k = 0;    // "probe": thousands of additions; 0: none asked
    bool separate = false;   // "inplace": false: encryption writes to a second buffer
    bool repeat_iv = false;  // "repeat_iv": every message starts from the request's IV
};
BenchRequest parse_bench(const json& req);

// bench's keys, read once its buffers are allocated: the operation checked against the
// primitive, then key, IV and AAD and their lengths (a hash's: none).
struct BenchKeys {
    std::vector<uint8_t> key, iv, aad;
};
BenchKeys parse_bench_keys(const json& req, const Primitive& p, const BenchRequest& b);

// cpu-clock (docs/protocol.md, "cpu-clock").
struct CpuClockRequest {
    uint64_t thousands = 100000;
    uint64_t best_of = 1;
    bool parallel = false;
};
CpuClockRequest parse_cpu_clock(const json& req);

// ct-sample, after parse_names (ct_sample.h).
CtSampleRequest parse_ct_sample(const json& req, std::vector<uint8_t>* input);

}  // namespace cb
