// The registry table, generated at build time from registry/primitives.toml.
#include <string>
#include <unordered_map>
#include <vector>

#include "cipherbench/adapter.h"

namespace cb {

const std::vector<Primitive>& all_primitives() {
    static const std::vector<Primitive> table = {
#define CB_PRIMITIVE(name, kind, family, mode, key, block, iv, tag, digest, whole, rounds) \
    Primitive{name, Kind::kind, family, mode, key, block, iv, tag, digest, whole, rounds},
#include "registry.inc"
#undef CB_PRIMITIVE
    };
    return table;
}

const Primitive* find_primitive(const std::string& name) {
    static const auto index = [] {
        std::unordered_map<std::string, const Primitive*> m;
        for (const auto& p : all_primitives()) m.emplace(p.name, &p);
        return m;
    }();
    auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

}  // namespace cb
