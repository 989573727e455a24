/*
 * Force-included (-include) into the C++ sources of the engine cross-built for a CPU that is
 * not x86 (cipherbench/arch/build.py).
 *
 * Crypto++'s <cryptopp/cpu.h> declares its x86 feature queries (HasSSE2() ... HasAVX2())
 * only when it is built for x86, and mbed TLS 2's <mbedtls/aesni.h> its
 * mbedtls_aesni_has_support() only with MBEDTLS_HAVE_X86_64; the cryptopp and mbedtls
 * adapters label their code path with them. Elsewhere no such extension exists, so each is
 * declared here answering false. The declarations cost nothing in a translation unit that
 * never includes those libraries, and cannot clash with theirs, which x86 builds alone have.
 */
#ifndef CB_ARCH_COMPAT_X86_QUERIES_H
#define CB_ARCH_COMPAT_X86_QUERIES_H
#if defined(__cplusplus) && !defined(__x86_64__) && !defined(__i386__)
namespace CryptoPP {
inline bool HasSSE2() { return false; }
inline bool HasSSSE3() { return false; }
inline bool HasSSE41() { return false; }
inline bool HasAESNI() { return false; }
inline bool HasCLMUL() { return false; }
inline bool HasSHA() { return false; }
inline bool HasAVX2() { return false; }
}  // namespace CryptoPP
inline int mbedtls_aesni_has_support(unsigned int) { return 0; }
#endif
#endif
