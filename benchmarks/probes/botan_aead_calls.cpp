// What does each Botan call around an AEAD message cost? Times AES-128-GCM encryption
// of 16-byte messages on one keyed object four ways, interleaved, pinned: as `botan
// speed` does (start, finish), with reset() and set_associated_data() before each
// message (what the engine's botan adapter did), with set_associated_data() alone, and
// with neither but the adapter's copy into its finish buffer. Used for the fidelity
// benchmark's Botan GCM 16 B row (benchmarks/README.md). Run: botan_aead_calls.sh
#include <botan/aead.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMessages = 2000000;

double ns_per_message(const std::function<void()>& message) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kMessages; ++i) message();
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kMessages;
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
    auto m = Botan::AEAD_Mode::create("AES-128/GCM(16)", Botan::ENCRYPTION);
    if (!m) {
        std::fprintf(stderr, "botan_aead_calls: no AES-128/GCM(16)\n");
        return 1;
    }
    const std::vector<uint8_t> key(16, 1), iv(12, 2);
    m->set_key(key);
    const Botan::secure_vector<uint8_t> plain(16, 3);
    Botan::secure_vector<uint8_t> buf;
    const uint8_t* in = plain.data();
    std::printf("round  speed's loop  reset+AD+start  AD+start  start only   (ns per 16-byte message)\n");
    for (int r = 0; r < rounds; ++r) {
        const double speed = ns_per_message([&] { buf = plain; m->start(iv); m->finish(buf); });
        const double both = ns_per_message([&] {
            m->reset(); m->set_associated_data(nullptr, 0); m->start(iv); buf.assign(in, in + 16); m->finish(buf);
        });
        const double ad = ns_per_message([&] {
            m->set_associated_data(nullptr, 0); m->start(iv); buf.assign(in, in + 16); m->finish(buf);
        });
        const double none = ns_per_message([&] { m->start(iv); buf.assign(in, in + 16); m->finish(buf); });
        std::printf("%5d  %12.1f  %14.1f  %8.1f  %10.1f\n", r + 1, speed, both, ad, none);
    }
    return 0;
}
