// Reading a request line with a long hex `input`, and writing an answer with a long hex
// `output`, without passing megabytes through nlohmann::json's lexer and serializer one
// character at a time (docs/protocol.md: the gate sends 1 MiB inputs as 2 MB of hex).
// Both are shortcuts with the same outcome as the plain path; line_io.cpp says why.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb {

// Decodes s[0..n) (n even) into out, upper- or lower-case digits; false at the first
// character that is not a hex digit. The one hex reader of the engine (unhex in request.cpp too).
bool decode_hex(const char* s, size_t n, std::vector<uint8_t>& out);

// When `line` is a JSON object (first non-blank character '{') with exactly one top-level
// member spelled "input" (no escapes in any top-level member name) whose value is a
// non-empty string of an even number of hex digits (no escapes): `bytes` gets the decoded
// value, `rest` the line with that value emptied ("input":""), and the answer is true.
// Otherwise false, and the line is to be parsed as it is.
bool take_hex_input(const std::string& line, std::string& rest, std::vector<uint8_t>& bytes);

// Writes exactly what os << resp.dump(-1, ' ', false, error_handler_t::replace) writes.
void write_answer(std::ostream& os, const nlohmann::json& resp);

}  // namespace cb
