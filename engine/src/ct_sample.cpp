// ct-sample: see ct_sample.h.
#include "ct_sample.h"

#include "clocks.h"

namespace cb {
namespace {

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): the class order and the random inputs. Not a secret generator: the
// test only needs the two classes to be unpredictable to the code under test.
struct SplitMix {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    void fill(uint8_t* p, size_t n) {
        for (size_t i = 0; i < n; ++i) p[i] = uint8_t(next() >> 56);
    }
};

// Per call, `width` bytes: the fixed value for class 0, random bytes for class 1.
std::vector<uint8_t> class_inputs(const std::vector<uint8_t>& classes, const std::vector<uint8_t>& fixed,
                                  SplitMix& rng) {
    const size_t width = fixed.size();
    std::vector<uint8_t> all(classes.size() * width);
    for (size_t i = 0; i < classes.size(); ++i) {
        uint8_t* at = all.data() + i * width;
        if (classes[i]) rng.fill(at, width);
        else std::copy(fixed.begin(), fixed.end(), at);
    }
    return all;
}

void check(const Primitive& p, const CtSampleRequest& r) {
    if (p.kind == Kind::Hash) throw Unsupported(std::string(p.name) + " is a hash: ct-sample times ciphers");
    if (r.samples < 2 || r.samples > 1000000) throw Error("samples must be in 2..1000000");
    if (r.key.size() != p.key_bytes)
        throw Error(std::string(p.name) + " takes a " + std::to_string(p.key_bytes) + "-byte key, got " +
                    std::to_string(r.key.size()));
    if (r.iv.size() != p.iv_bytes)
        throw Error(std::string(p.name) + " takes a " + std::to_string(p.iv_bytes) + "-byte IV/nonce, got " +
                    std::to_string(r.iv.size()));
    if (!r.aad.empty() && p.kind != Kind::Aead) throw Error(std::string(p.name) + " takes no associated data");
    if (r.input.empty() || r.input.size() > 65536) throw Error("input must be 1 to 65536 bytes");
    if (p.whole_blocks && r.input.size() % p.block_bytes)
        throw Error(std::string(p.name) + " takes whole " + std::to_string(p.block_bytes) + "-byte blocks, got " +
                    std::to_string(r.input.size()) + " bytes");
    if (r.vary == CtVary::Key && p.key_bytes == 0) throw Unsupported(std::string(p.name) + " takes no key");
}

}  // namespace

CtSampleResult ct_sample(const Adapter& adapter, const Primitive& p, const CtSampleRequest& r) {
    check(p, r);
    SplitMix rng{r.seed};
    CtSampleResult res;
    res.classes.resize(r.samples);
    for (auto& c : res.classes) c = uint8_t(rng.next() >> 63);
    const bool vary_key = r.vary == CtVary::Key;
    const std::vector<uint8_t> inputs = class_inputs(res.classes, vary_key ? r.key : r.input, rng);
    const size_t width = vary_key ? r.key.size() : r.input.size(), n = r.input.size();
    std::vector<uint8_t> msg = r.input, out(n), tag(p.tag_bytes), iv = r.iv;
    auto c = adapter.cipher(p, Direction::Encrypt);
    if (!vary_key) c->set_key(r.key.data(), r.key.size());
    // One call of the class's input; the IV is the same for every call, as the
    // classes must differ in the varied input only.
    auto call = [&](size_t i) {
        const uint8_t* x = inputs.data() + i * width;
        if (vary_key) c->set_key_and_start(x, width, iv.data(), iv.size());
        else c->start(iv.data(), iv.size());
        if (!r.aad.empty()) c->aad(r.aad.data(), r.aad.size());
        c->update(vary_key ? msg.data() : x, out.data(), n);
        c->finish(tag.data());
    };
    // Warm-up, untimed: caches, branch predictors and lazy initialisation settle first.
    for (size_t i = 0; i < std::min<size_t>(r.samples, 1000); ++i) call(i);
    const bool ticks = has_tsc();
    res.timer = ticks ? "rdtsc ticks" : "clock_gettime(CLOCK_MONOTONIC) ns";
    res.times.resize(r.samples);
    clean_vector_state();
    for (size_t i = 0; i < r.samples; ++i) {
        const uint64_t t0 = ticks ? tsc() : now_ns();
        call(i);
        const uint64_t t1 = ticks ? tsc() : now_ns();
        res.times[i] = t1 - t0;
    }
    return res;
}

}  // namespace cb
