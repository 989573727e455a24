/* libgcrypt AES-128 bulk encryption timed the way bench-slope times it, and with longer
 * timed intervals, in one process on one handle, alternated round by round.
 *
 * bench-slope (libgcrypt 1.10.1, tests/bench-slope.c, read for its method): sizes 16 to
 * 4112 B in 64-byte steps on one buffer aligned to 128 bytes, in place; each timed
 * interval is `loops` calls of reset + encrypt, where `loops` is raised from 1 at 16 B
 * until the median interval is at least 2.9 times the first non-zero one; the median of
 * 64 intervals per size, divided by `loops`; CLOCK_REALTIME; and the ordinary
 * least-squares slope over the 65 sizes.  This probe repeats that with `loops` as
 * bench-slope calibrates it, and with fixed longer intervals, so that the only
 * difference between the figures is how many calls one clock reading spans.
 *
 *   gcrypt_slope ctr|ecb [rounds] [loops...]
 * Environment: none (or RESET=1, the script's label for it): reset before each call, as
 * bench-slope does; STREAM=1 skips the reset (the counter runs on, as in cipherbench's bulk
 * stream); CTRLOW=n sets the counter to n (its last byte; the rest zero) before each call
 * instead of the reset (which sets it to zero).
 * prints per round and per interval length: loops, the slope as MB/s, and the
 * per-call intercept in ns.
 */
#include <gcrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FIRST = 16, STEP = 64, SIZES = 65, REPS = 64, MAX_LOOPS = 8 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static gcry_cipher_hd_t hd;
static unsigned char *buf;
static int streaming;  /* 1: no reset, the counter runs on (cipherbench's bulk loop) */
static int set_counter; /* 1: setctr(counter) before each call instead of reset */
static unsigned char counter[16];

/* One interval: `loops` calls of reset + encrypt in place, as bench-slope's cipher
 * workload makes them, or the engine's variant of it. */
static double interval(size_t size, unsigned loops)
{
    double t0 = now_ns();
    for (unsigned i = 0; i < loops; i++) {
        if (set_counter) gcry_cipher_setctr(hd, counter, 16);
        else if (!streaming) gcry_cipher_reset(hd);
        gcry_cipher_encrypt(hd, buf, size, buf, size);
    }
    return now_ns() - t0;
}

static double median_interval(size_t size, unsigned loops)
{
    double v[REPS];
    for (int r = 0; r < REPS; r++) v[r] = interval(size, loops);
    qsort(v, REPS, sizeof v[0], by_value);
    return (v[REPS / 2] + v[REPS / 2 - 1]) / 2;
}

/* bench-slope's calibration: the first loop count with a non-zero median, then more
 * loops until the median is 2.9 times that. */
static unsigned calibrated_loops(void)
{
    unsigned loops = 0;
    double first, t;
    do first = median_interval(FIRST, ++loops); while (first < 0.9);
    do t = median_interval(FIRST, ++loops); while (t < first * 2.9);
    return loops;
}

/* Ordinary least squares of per-call ns against bytes over every `every`-th size. */
static void slope(const double *ns, int every, double *mbps, double *icpt)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int i = 0; i < SIZES; i += every, n++) {
        double x = FIRST + (double)STEP * i;
        sx += x; sy += ns[i]; sxx += x * x; sxy += x * ns[i];
    }
    double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *mbps = 1e3 / b;
    *icpt = (sy - b * sx) / n;
}

static void measure(unsigned loops, int round)
{
    double ns[SIZES], mbps, icpt, mbps17, icpt17;
    for (int i = 0; i < SIZES; i++) ns[i] = median_interval(FIRST + (size_t)STEP * i, loops) / loops;
    slope(ns, 1, &mbps, &icpt);
    slope(ns, 4, &mbps17, &icpt17);
    printf("round %d loops %4u  65 sizes %8.0f MB/s %6.1f ns  17 sizes %8.0f MB/s %6.1f ns\n",
           round, loops, mbps, icpt, mbps17, icpt17);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "ctr") && strcmp(argv[1], "ecb"))) {
        fprintf(stderr, "usage: %s ctr|ecb [rounds] [loops...]\n", argv[0]);
        return 2;
    }
    int mode = strcmp(argv[1], "ctr") ? GCRY_CIPHER_MODE_ECB : GCRY_CIPHER_MODE_CTR;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    unsigned fixed[MAX_LOOPS];
    int nfixed = 0;
    for (int a = 3; a < argc && nfixed < MAX_LOOPS; a++) fixed[nfixed++] = (unsigned)atoi(argv[a]);
    if (!nfixed) { fixed[0] = 64; nfixed = 1; }

    streaming = getenv("STREAM") && atoi(getenv("STREAM"));
    if (getenv("CTRLOW")) { set_counter = 1; counter[15] = (unsigned char)atoi(getenv("CTRLOW")); }
    gcry_check_version(NULL);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    unsigned char key[16];
    for (int i = 0; i < 16; i++) key[i] = (unsigned char)(0x33 ^ (11 - i));
    if (gcry_cipher_open(&hd, GCRY_CIPHER_AES128, mode, 0) || gcry_cipher_setkey(hd, key, 16)) {
        fprintf(stderr, "gcrypt_slope: cannot open AES-128\n");
        return 1;
    }
    size_t max = FIRST + (size_t)STEP * (SIZES - 1);
    unsigned char *raw = malloc(max + 128);
    if (!raw) return 1;
    buf = raw + (128 - ((size_t)raw & 127));
    for (size_t i = 0; i < max; i++) buf[i] = (unsigned char)(0x55 ^ (0 - i));

    for (int r = 0; r < rounds; r++) {
        measure(calibrated_loops(), r);
        for (int f = 0; f < nfixed; f++) measure(fixed[f], r);
    }
    gcry_cipher_close(hd);
    free(raw);
    return 0;
}
