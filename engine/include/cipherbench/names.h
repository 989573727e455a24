// Lookups in an adapter's names.inc tables, which map the registry's
// canonical names to a library's own. Each adapter's tables have one of three
// shapes; these are the lookups for them, so no adapter writes its own.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "cipherbench/adapter.h"

namespace cb {

// Tables of structs whose `primitive` field is a canonical name: the entry
// for `name`, or nullptr.
template <class Entry, size_t N>
const Entry* find_entry(const Entry (&table)[N], const char* name) {
    for (const auto& e : table)
        if (std::strcmp(e.primitive, name) == 0) return &e;
    return nullptr;
}

// Tables of (canonical name, library name) pairs: the library's name for
// `key`, or nullptr.
template <size_t N>
const char* library_name(const std::pair<const char*, const char*> (&table)[N], const char* key) {
    for (const auto& [canonical, library] : table)
        if (std::strcmp(canonical, key) == 0) return library;
    return nullptr;
}

// A block-cipher family and the modes the adapter drives for it,
// space-separated: {"aes", "ecb cbc ctr"}.
struct FamilyModes {
    const char* family;
    const char* modes;
};

// Whether p is a mode of a family the table lists with that mode.
template <size_t N>
bool lists_mode(const FamilyModes (&families)[N], const Primitive& p) {
    if (!*p.mode) return false;
    for (const auto& f : families) {
        if (std::strcmp(f.family, p.family) != 0) continue;
        const std::string modes = std::string(" ") + f.modes + " ";
        return modes.find(std::string(" ") + p.mode + " ") != std::string::npos;
    }
    return false;
}

}  // namespace cb
