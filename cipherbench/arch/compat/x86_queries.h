/*
 * Force-included (-include) into the C++ sources of the engine cross-built for a CPU that is
 * not x86 (cipherbench/arch/build.py).
 *
 * Crypto++'s <cryptopp/cpu.h> declares its x86 feature queries (HasSSE2() ... HasAVX2())
 * only when it is built for x86, and the cryptopp adapter labels its code path with them.
 * Elsewhere no such extension exists, so each is declared here answering false. Declaring
 * them in namespace CryptoPP costs nothing in a translation unit that never includes
 * Crypto++, and cannot clash with its own declarations, which x86 builds alone have.
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
#endif
#endif
