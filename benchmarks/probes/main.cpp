// Per-call cost of `openssl speed -evp`'s loops (OpenSSL 3.0.22, apps/speed.c) against
// the loops cipherbench's engine runs, in one process, interleaved round by round; the
// minimum and low percentiles over many short batches are robust to preemption.
//
//   openssl-loops <evp-name> <bytes> stream|aead [calls per batch] [rounds]
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "shape.h"

static uint64_t now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}
static volatile int run = 1;  // openssl speed's alarm flag, read every call

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s <evp-name> <bytes> stream|aead [calls] [rounds]\n", argv[0]);
        return 2;
    }
    const char* name = argv[1];
    const int size = std::atoi(argv[2]);
    const bool aead = std::string(argv[3]) == "aead";
    const long calls = argc > 4 ? std::atol(argv[4]) : (aead ? 5000 : 100000);
    const int rounds = argc > 5 ? std::atoi(argv[5]) : 300;

    std::vector<uint8_t> buf(size_t(size) + 64);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = uint8_t(i);
    uint8_t key[32], iv[16], tag[16];
    for (int i = 0; i < 32; ++i) key[i] = uint8_t(i + 1);
    for (int i = 0; i < 16; ++i) iv[i] = uint8_t(0xa0 + i);

    // openssl speed's context: cipher and IV first, then the key.
    EVP_CIPHER* ec = EVP_CIPHER_fetch(nullptr, name, nullptr);
    if (!ec) { std::fprintf(stderr, "unknown cipher %s\n", name); return 2; }
    EVP_CIPHER_CTX* sc = EVP_CIPHER_CTX_new();
    EVP_CipherInit_ex(sc, ec, nullptr, nullptr, iv, 1);
    EVP_CIPHER_CTX_set_padding(sc, 0);
    EVP_CipherInit_ex(sc, nullptr, nullptr, key, nullptr, -1);
    Shape* bulk = make_shape(name, aead);
    bulk->set_key(key);
    bulk->start(iv);
    Shape* msg = make_shape(name, aead);
    msg->set_key(key);
    uint8_t* b = buf.data();

    std::vector<std::pair<std::string, std::function<void(long)>>> v;
    if (!aead) {
        v.push_back({"openssl speed: EVP_EncryptUpdate, rc check, alarm flag", [&](long n) {
            int outl;
            for (long i = 0; run && i < n; ++i)
                if (EVP_EncryptUpdate(sc, b, &outl, b, size) != 1) EVP_CipherInit_ex(sc, nullptr, nullptr, nullptr, iv, -1);
        }});
        v.push_back({"engine bulk: virtual update -> EVP_CipherUpdate", [&](long n) {
            for (long i = 0; i < n; ++i) bulk->update(b, b, size);
        }});
        v.push_back({"virtual update -> EVP_EncryptUpdate", [&](long n) {
            for (long i = 0; i < n; ++i) bulk->update_enc(b, b, size);
        }});
        v.push_back({"no virtual call: loop over EVP_EncryptUpdate", [&](long n) {
            EVP_CIPHER_CTX* x = bulk->ctx();
            int outl;
            for (long i = 0; i < n; ++i) if (EVP_EncryptUpdate(x, b, &outl, b, size) <= 0) std::abort();
        }});
        // The two crossed: which of the loop and the context carries the difference.
        v.push_back({"speed's loop on the plain loop's context", [&](long n) {
            EVP_CIPHER_CTX* x = bulk->ctx();
            int outl;
            for (long i = 0; run && i < n; ++i)
                if (EVP_EncryptUpdate(x, b, &outl, b, size) != 1) EVP_CipherInit_ex(x, nullptr, nullptr, nullptr, iv, -1);
        }});
        v.push_back({"plain loop on speed's context", [&](long n) {
            int outl;
            for (long i = 0; i < n; ++i) if (EVP_EncryptUpdate(sc, b, &outl, b, size) <= 0) std::abort();
        }});
    } else {
        v.push_back({"openssl speed: SET_IVLEN, Init(key,iv), Update, Final", [&](long n) {
            int outl;
            for (long i = 0; run && i < n; ++i) {
                EVP_CIPHER_CTX_ctrl(sc, EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr);
                EVP_CipherInit_ex(sc, nullptr, nullptr, key, iv, -1);
                EVP_EncryptUpdate(sc, b, &outl, b, size);
                EVP_EncryptFinal_ex(sc, b, &outl);
            }
        }});
        v.push_back({"engine rekey: set_key, start, update, finish(ctrl tag)", [&](long n) {
            for (long i = 0; i < n; ++i) { msg->set_key(key); msg->start(iv); msg->update(b, b, size); msg->finish(tag); ++iv[15]; }
        }});
        v.push_back({"one Init(key,iv), update, finish(ctrl tag)", [&](long n) {
            for (long i = 0; i < n; ++i) { msg->key_iv(key, iv); msg->update(b, b, size); msg->finish(tag); ++iv[15]; }
        }});
        v.push_back({"one Init(key,iv), Encrypt*, tag by get_params", [&](long n) {
            OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string("tag", tag, 16), OSSL_PARAM_construct_end()};
            for (long i = 0; i < n; ++i) {
                msg->key_iv(key, iv); msg->update_enc(b, b, size); msg->final_only();
                EVP_CIPHER_CTX_get_params(msg->ctx(), p); ++iv[15];
            }
        }});
        v.push_back({"one Init(key,iv), Encrypt*, no tag", [&](long n) {
            for (long i = 0; i < n; ++i) { msg->key_iv(key, iv); msg->update_enc(b, b, size); msg->final_only(); ++iv[15]; }
        }});
        v.push_back({"engine message: start, update, finish(ctrl tag)", [&](long n) {
            for (long i = 0; i < n; ++i) { msg->start(iv); msg->update(b, b, size); msg->finish(tag); ++iv[15]; }
        }});
        v.push_back({"engine bulk: virtual update -> EVP_CipherUpdate", [&](long n) {
            for (long i = 0; i < n; ++i) bulk->update(b, b, size);
        }});
    }

    std::vector<std::vector<double>> per(v.size());
    for (auto& x : v) x.second(calls / 10);  // warm-up
    for (int r = 0; r < rounds; ++r)
        for (size_t j = 0; j < v.size(); ++j) {
            uint64_t t0 = now_ns();
            v[j].second(calls);
            per[j].push_back(double(now_ns() - t0) / double(calls));
        }
    std::printf("%s, %d B, %ld calls per batch, %d rounds; ns per call:\n", name, size, calls, rounds);
    for (size_t j = 0; j < v.size(); ++j) {
        auto s = per[j];
        std::sort(s.begin(), s.end());
        std::printf("  %-56s min %8.2f  p10 %8.2f  median %8.2f\n", v[j].first.c_str(), s[0],
                    s[s.size() / 10], s[s.size() / 2]);
    }
}
