/* cb_clean_vector_state(): VZEROUPPER where the CPU has AVX, nothing elsewhere.
 *
 * The Python runner calls it (through ctypes) before every timed batch. Its
 * libraries share one process, and a library that returns with the upper halves
 * of the vector registers dirty makes every legacy-SSE instruction after it pay
 * a transition penalty until something clears them: the OpenSSL 4.0.3 bundled in
 * cryptography 50 does after ChaCha20-Poly1305, and pycryptodome's AES-NI CBC then
 * ran seven times slower (docs/protocol.md, "bench"). Python cannot issue the instruction,
 * hence this file, built by build.sh. Returns 1 if it ran the instruction. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx"))) static void vzeroupper(void) { __builtin_ia32_vzeroupper(); }

int cb_clean_vector_state(void) {
    static int avx = -1;
    if (avx < 0) avx = __builtin_cpu_supports("avx") ? 1 : 0;
    if (avx) vzeroupper();
    return avx;
}
#else
int cb_clean_vector_state(void) { return 0; }
#endif
