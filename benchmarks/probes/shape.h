// The shape of the engine's OpenSSL adapter (engine/adapters/openssl/adapter.cpp):
// a virtual cb::Cipher-like class in its own translation unit, so calls from the
// timed loops in main.cpp stay virtual as they are in the engine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <openssl/evp.h>

struct Shape {
    virtual ~Shape() = default;
    // As the engine's adapter does them today.
    virtual void set_key(const uint8_t* key) = 0;            // EVP_CipherInit_ex2(key)
    virtual void start(const uint8_t* iv) = 0;               // EVP_CipherInit_ex2(iv)
    virtual void update(const uint8_t* in, uint8_t* out, size_t len) = 0;  // EVP_CipherUpdate
    virtual void finish(uint8_t* tag) = 0;                   // EVP_CipherFinal_ex + ctrl(GET_TAG)
    // Alternatives measured against them.
    virtual void key_iv(const uint8_t* key, const uint8_t* iv) = 0;        // one EVP_CipherInit_ex2
    virtual void update_enc(const uint8_t* in, uint8_t* out, size_t len) = 0;  // EVP_EncryptUpdate
    virtual void final_only() = 0;                           // EVP_EncryptFinal_ex, no tag
    virtual EVP_CIPHER_CTX* ctx() = 0;
};
Shape* make_shape(const char* evp_name, bool aead);
