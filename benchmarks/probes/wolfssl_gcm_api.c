/* Does wolfSSL's choice of GCM API decide its speed? Times AES-128-GCM encryption of
 * 16 KiB messages (wolfCrypt's benchmark's block size in benchmarks/fidelity) through the
 * one-shot wc_AesGcmEncrypt, which wolfCrypt's benchmark calls, and through the streaming
 * wc_AesGcmInit / wc_AesGcmEncryptUpdate / wc_AesGcmEncryptFinal, which the engine's
 * wolfssl adapter calls (it also times bulk, which one-shot cannot). One key, one Aes,
 * out of place, as the benchmark; each figure is 1 s of wall time. Used for the fidelity
 * benchmark's "gcmapi" note. Build and run: benchmarks/probes/wolfssl_gcm_api.sh */
#include <wolfssl/options.h>
#include <wolfssl/wolfcrypt/aes.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MSG = 16384, CALLS = 64 };

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned char in[MSG] __attribute__((aligned(64))), out[MSG] __attribute__((aligned(64)));
static unsigned char key[16], iv[12] = {1}, tag[16];

static int one_shot(Aes* aes) {
    return wc_AesGcmEncrypt(aes, out, in, MSG, iv, sizeof iv, tag, sizeof tag, NULL, 0);
}

static int streaming(Aes* aes) {
    int rc = wc_AesGcmInit(aes, NULL, 0, iv, sizeof iv);
    if (rc == 0) rc = wc_AesGcmEncryptUpdate(aes, out, in, MSG, NULL, 0);
    if (rc == 0) rc = wc_AesGcmEncryptFinal(aes, tag, sizeof tag);
    return rc;
}

/* MB/s (10^6 B/s) of `call` over one second, or -1 if it failed. */
static double mb_per_s(int (*call)(Aes*), Aes* aes) {
    long n = 0;
    const double t0 = seconds();
    double t;
    do {
        for (int i = 0; i < CALLS; ++i)
            if (call(aes) != 0) return -1;
        n += CALLS;
    } while ((t = seconds()) - t0 < 1.0);
    return (double)n * MSG / (t - t0) / 1e6;
}

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 3;
    Aes aes;
    if (wc_AesInit(&aes, NULL, INVALID_DEVID) != 0 || wc_AesGcmSetKey(&aes, key, sizeof key) != 0) {
        fprintf(stderr, "wolfssl_gcm_api: cannot key AES-GCM\n");
        return 1;
    }
    printf("round  one-shot MB/s  streaming MB/s  streaming / one-shot\n");
    for (int r = 0; r < rounds; ++r) {
        const double a = mb_per_s(one_shot, &aes), b = mb_per_s(streaming, &aes);
        if (a < 0 || b < 0) {
            fprintf(stderr, "wolfssl_gcm_api: a GCM call failed\n");
            return 1;
        }
        printf("%5d  %13.1f  %14.1f  %20.3f\n", r + 1, a, b, b / a);
    }
    wc_AesFree(&aes);
    return 0;
}
