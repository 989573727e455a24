// checking: what shows whether an implementation is right: one message encrypted, decrypted
// or hashed whole, answered for the orchestrator's known answers, and --check-adapters' checks
// of the adapter contract that no request can show.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"
#include "dispatch.h"
#include "request.h"

namespace cb {

// encrypt or decrypt, read up to "inplace" (parse_crypt); `req` gives "rounds" once the
// cipher has taken or refused the chunks (parse_rounds). `impl`: the name its refusals give.
json crypt_once(const Adapter& a, const std::string& impl, const Primitive& p, bool enc, CryptRequest r,
                const json& req);

// hash, read up to its input (parse_hash); `req` gives the chunks once the hash is initialised.
json hash_once(const Adapter& a, const Primitive& p, const HashRequest& r, const json& req);

// --check-adapters: the parts of the adapter contract (adapter.h) that no
// protocol request can show, because every request gets a fresh context.
// For every offered cipher, stream, AEAD and null primitive, on one keyed
// context per direction: a second message with the same IV repeats the
// first (start() restarts), set_key_and_start() gives the same message, and
// update_many() equals as many update() calls. Prints one line per pair
// checked ("ok IMPL PRIMITIVE") or failed ("FAIL IMPL PRIMITIVE: what");
// returns the number of failures.
int check_adapters(const std::vector<Impl>& impls, std::ostream& log);

}  // namespace cb
