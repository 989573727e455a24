// The null implementation's per-call cost taken apart: the engine's bulk loop
// (cb::Cipher::update_many, one virtual update() per call) over the engine's own null
// adapter (engine/adapters/null/adapter.cpp, compiled into this probe in its own
// translation unit, as in the engine), against the same loop over an update() that does
// nothing and over one that copies with glibc's memcpy (the null's version 1). The empty
// call is what the harness adds to every implementation's call; the difference to the
// null is the null's work, a 16-byte copy. Minimum and median of 101 batches of 200,000
// calls at 16 B, in place, five rounds alternated.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

#include "cipherbench/adapter.h"

CB_ADAPTER_FACTORY(null);

std::unique_ptr<cb::Cipher> empty_cipher();      // null_call_empty.cpp
std::unique_ptr<cb::Cipher> libc_copy_cipher();  // null_call_empty.cpp

namespace {
double now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}
}  // namespace

int main() {
    const cb::Primitive null_prim{"null", cb::Kind::Null, "null", "", 0, 1, 0, 0, 0, false, 0};
    std::unique_ptr<cb::Cipher> null = cb_adapter_null()->cipher(null_prim, cb::Direction::Encrypt);
    std::unique_ptr<cb::Cipher> empty = empty_cipher();
    std::unique_ptr<cb::Cipher> libc = libc_copy_cipher();
    alignas(64) static uint8_t buf[64];
    const uint64_t calls = 200000;
    for (int round = 0; round < 5; ++round) {
        for (cb::Cipher* c : {empty.get(), null.get(), libc.get()}) {
            std::vector<double> per_call;
            for (int b = 0; b < 101; ++b) {
                const double t0 = now_ns();
                c->update_many(buf, buf, 16, calls);
                per_call.push_back((now_ns() - t0) / double(calls));
            }
            std::sort(per_call.begin(), per_call.end());
            std::printf("round %d %-22s min %.2f median %.2f ns/call\n", round,
                        c == empty.get() ? "empty update()" : c == null.get() ? "null adapter update()" : "libc memcpy update()",
                        per_call[0], per_call[50]);
        }
    }
    return 0;
}
