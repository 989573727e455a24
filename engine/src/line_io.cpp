// Long hex fields in and out of the JSON lines (line_io.h).
//
// Why a scanner before nlohmann::json rather than a SAX parser or another JSON library:
// nlohmann's lexer reads a string one character at a time (about 15 ns each), and a SAX
// handler still gets the string only after the lexer built it, so only not lexing the
// long value saves the time. The scanner below is the smallest piece that can do that
// and leave every answer as it was:
//  - It takes a line only in the one ordinary shape (a top-level "input" member, once,
//    whose value is plain hex of even length) and hands everything else to the old path
//    untouched; in that shape unhex() of the old path could not have failed, and gives
//    the very bytes decoded here.
//  - The line nlohmann then parses differs from the original only inside one string
//    token whose content was hex digits, now empty: both are valid string tokens, so the
//    shortened line parses exactly when the original does, to the same object but for
//    that member's value, which the engine takes from the decoded bytes instead.
//  - Error messages of nlohmann carry byte positions, which the shortening moves: main()
//    parses the original line again when the shortened one throws, so a malformed line
//    gets the old message byte for byte (and the long value costs the old time then).
// Every non-empty hex input takes this path, not only long ones, so that the conformance
// suite's known answers go through it too.
// The scanner follows strings as JSON's lexer does (a backslash takes the next character
// along); wherever its view could differ from nlohmann's, the line is not valid JSON up to
// that point, and nlohmann fails there on both lines.
#include "line_io.h"

#include <cstring>

namespace cb {
namespace {

inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }  // RFC 8259 ws

struct Nibbles {
    int8_t v[256];
    constexpr Nibbles() : v() {
        for (int i = 0; i < 256; ++i) v[i] = -1;
        for (int i = 0; i < 10; ++i) v['0' + i] = int8_t(i);
        for (int i = 0; i < 6; ++i) v['a' + i] = v['A' + i] = int8_t(10 + i);
    }
};
constexpr Nibbles kNib;


// A string value nlohmann's serializer writes as it is (ensure_ascii false): printable
// ASCII without '"' and '\'. Every other byte it escapes, or checks as UTF-8. (Blocks of
// 64 without a branch, so that the compiler vectorises the test: a 2 MB output is
// checked in a tenth of a millisecond.)
bool verbatim(const std::string& str) {
    const auto* p = reinterpret_cast<const unsigned char*>(str.data());
    const size_t n = str.size();
    unsigned char bad = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        for (size_t j = 0; j < 64; ++j) {
            const unsigned char c = p[i + j];
            bad |= (unsigned char)(c - 0x20u) > 0x5e || c == '"' || c == '\\';
        }
        if (bad) return false;
    }
    for (; i < n; ++i) {
        const unsigned char c = p[i];
        bad |= (unsigned char)(c - 0x20u) > 0x5e || c == '"' || c == '\\';
    }
    return !bad;
}

}  // namespace

bool decode_hex(const char* s, size_t n, std::vector<uint8_t>& out) {
    out.resize(n / 2);
    uint8_t* o = out.data();
    for (size_t i = 0; i < n; i += 2) {
        const int hi = kNib.v[uint8_t(s[i])], lo = kNib.v[uint8_t(s[i + 1])];
        if ((hi | lo) < 0) return false;
        *o++ = uint8_t(hi << 4 | lo);
    }
    return true;
}

bool take_hex_input(const std::string& line, std::string& rest, std::vector<uint8_t>& bytes) {
    const char* s = line.data();
    const size_t n = line.size();
    size_t i = 0;
    while (i < n && blank(s[i])) ++i;
    if (i == n || s[i] != '{') return false;  // not an object (or a byte-order mark): old path
    ++i;
    int depth = 1;          // open objects and arrays
    bool name_next = true;  // at depth 1: the next string is a member name
    size_t from = 0, to = 0;
    bool found = false;
    while (i < n && depth > 0) {
        const char c = s[i];
        if (c == '"') {
            size_t j = i + 1;
            bool escaped = false;
            while (j < n && s[j] != '"') {
                if (s[j] == '\\') { escaped = true; ++j; }
                ++j;
            }
            if (j >= n) return false;  // unterminated string
            if (depth == 1 && name_next) {
                name_next = false;
                if (escaped) return false;  // "\u0069nput" is "input" too
                if (j - i - 1 == 5 && std::memcmp(s + i + 1, "input", 5) == 0) {
                    if (found) return false;  // duplicated: the old path decides which counts
                    size_t k = j + 1;
                    while (k < n && blank(s[k])) ++k;
                    if (k == n || s[k] != ':') return false;
                    ++k;
                    while (k < n && blank(s[k])) ++k;
                    if (k == n || s[k] != '"') return false;  // null, a number, ...: old path
                    const void* end = std::memchr(s + k + 1, '"', n - k - 1);
                    if (!end) return false;
                    from = k + 1;
                    to = size_t(static_cast<const char*>(end) - s);
                    found = true;
                    i = to + 1;
                    continue;
                }
            }
            i = j + 1;
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') --depth;
        else if (c == ',' && depth == 1) name_next = true;
        ++i;
    }
    // An escape in the value shows as a backslash, which is not a hex digit.
    if (!found || to == from || (to - from) % 2 || !decode_hex(s + from, to - from, bytes)) return false;
    rest.assign(s, from);
    rest.append(s + to, n - to);
    return true;
}

void write_answer(std::ostream& os, const nlohmann::json& resp) {
    using json = nlohmann::json;
    constexpr auto replace = json::error_handler_t::replace;
    if (!resp.is_object() || resp.empty()) {
        os << resp.dump(-1, ' ', false, replace);
        return;
    }
    // nlohmann's compact form of an object: '{', then for each member in the object's
    // (sorted) order "name":value, separated by ',', then '}'. Names and values are dumped
    // by nlohmann itself, except string values it would copy unchanged (hex among them),
    // which are written here without its character-by-character UTF-8 check.
    os << '{';
    bool first = true;
    for (auto it = resp.begin(); it != resp.end(); ++it) {
        if (!first) os << ',';
        first = false;
        os << json(it.key()).dump(-1, ' ', false, replace) << ':';
        const json& v = it.value();
        if (v.is_string() && verbatim(v.get_ref<const std::string&>())) {
            const std::string& str = v.get_ref<const std::string&>();
            os << '"';
            os.write(str.data(), std::streamsize(str.size()));
            os << '"';
        } else {
            os << v.dump(-1, ' ', false, replace);
        }
    }
    os << '}';
}

}  // namespace cb
