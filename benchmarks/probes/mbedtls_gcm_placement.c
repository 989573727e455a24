/* Does the address layout a process draws decide mbedTLS's GCM speed? Times
 * mbedtls_gcm_crypt_and_tag on 1024-byte messages (mbedTLS's benchmark's BUFSIZE and its
 * call, context on main's stack as there) for 0.3 s and prints the MB/s (10^6 B/s) with
 * where the context, the buffer and the stack landed. Each start draws a new layout
 * (address-space randomisation); mbedtls_gcm_placement.sh starts it many times. Used for
 * the fidelity benchmark's "mbedplace" note. */
#include <mbedtls/gcm.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static unsigned char buf[1024];
static unsigned char iv[12] = {2}, tag[16];

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
    const unsigned char key[16] = {1};
    mbedtls_gcm_context g;
    mbedtls_gcm_init(&g);
    if (mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, key, 128) != 0) {
        fprintf(stderr, "mbedtls_gcm_placement: cannot key AES-GCM\n");
        return 1;
    }
    long n = 0;
    const double t0 = seconds();
    double t;
    do {
        for (int i = 0; i < 256; ++i)
            if (mbedtls_gcm_crypt_and_tag(&g, MBEDTLS_GCM_ENCRYPT, sizeof buf, iv, sizeof iv, NULL, 0, buf, buf,
                                          sizeof tag, tag) != 0) {
                fprintf(stderr, "mbedtls_gcm_placement: a GCM call failed\n");
                return 1;
            }
        n += 256;
    } while ((t = seconds()) - t0 < 0.3);
    printf("%7.1f MB/s  context ...%03lx  buffer ...%03lx  stack ...%03lx (low 12 bits)\n",
           (double)n * sizeof buf / (t - t0) / 1e6, (unsigned long)((uintptr_t)&g & 0xfff),
           (unsigned long)((uintptr_t)buf & 0xfff), (unsigned long)((uintptr_t)&n & 0xfff));
    mbedtls_gcm_free(&g);
    return 0;
}
