// SHA-256 (FIPS 180-4, section 6.2) for the protocol's own needs: the generated input of
// `fill` and the answer of `digest` (docs/protocol.md). It never runs inside a timed loop,
// and no library adapter's SHA-256 is used, so the engine answers these fields whatever
// libraries it was built with.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cb {

std::array<uint8_t, 32> sha256(const uint8_t* data, size_t n);

// Which compression function runs: "sha-ni" (x86 SHA extensions, where the CPU has them)
// or "portable" (any CPU; forced by CIPHERBENCH_ENGINE_SHA=portable, read once).
const char* sha256_impl();

// The first n bytes of SHA-256(seed || 0) || SHA-256(seed || 1) || ..., each counter an
// 8-byte big-endian integer (docs/protocol.md, `fill`).
std::vector<uint8_t> sha256_fill(const std::vector<uint8_t>& seed, size_t n);

}  // namespace cb
