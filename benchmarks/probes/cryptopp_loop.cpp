// cryptest b2's loop for Crypto++ CTR and GCM at 2048 B (ProcessString over an
// AlignedSecByteBlock, one key and IV), timed per batch by the wall clock and in
// total by clock() CPU time, to compare with cryptest's own figure and cipherbench's.
//
//   g++ -O2 -std=c++17 cryptopp_loop.cpp -o /tmp/cb-cryptopp-loop -lcrypto++
//   taskset -c 1 /tmp/cb-cryptopp-loop [calls per batch] [batches]
#include <cryptopp/aes.h>
#include <cryptopp/gcm.h>
#include <cryptopp/modes.h>
#include <cryptopp/secblock.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

using namespace CryptoPP;

static double now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

template <class C>
static void run(const char* name, C& c, long calls, int batches) {
    const int n = 2048;
    AlignedSecByteBlock buf(n);
    for (int i = 0; i < n; ++i) buf[i] = byte(i);
    std::vector<double> per;
    const double w0 = now_ns();
    const clock_t c0 = clock();
    for (int b = 0; b < batches; ++b) {
        const double t0 = now_ns();
        for (long i = 0; i < calls; ++i) c.ProcessString(buf, n);
        per.push_back((now_ns() - t0) / double(calls));
    }
    const double wall = now_ns() - w0, cpu = double(clock() - c0) / CLOCKS_PER_SEC * 1e9;
    const double bytes = double(n) * double(calls) * batches;
    std::sort(per.begin(), per.end());
    auto mbps = [&](double ns) { return n / ns * 1e3; };
    std::printf("%s 2048 B, MB/s: batch min %.0f, median %.0f; total/wall %.0f; total/clock() %.0f "
                "(clock()/wall %.3f)\n", name, mbps(per.front()), mbps(per[per.size() / 2]),
                bytes / wall * 1e3, bytes / cpu * 1e3, cpu / wall);
}

int main(int argc, char** argv) {
    const long calls = argc > 1 ? std::atol(argv[1]) : 20000;
    const int batches = argc > 2 ? std::atoi(argv[2]) : 200;
    byte key[16], iv[16];
    for (int i = 0; i < 16; ++i) { key[i] = byte(i + 1); iv[i] = byte(0xa0 + i); }
    CTR_Mode<AES>::Encryption ctr;
    ctr.SetKeyWithIV(key, 16, iv, 16);
    GCM<AES>::Encryption gcm;
    gcm.SetKeyWithIV(key, 16, iv, 12);
    run("AES-128/CTR", ctr, calls, batches);
    run("AES-128/GCM", gcm, calls / 2, batches);
}
