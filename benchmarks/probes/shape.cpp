#include "shape.h"

#include <stdexcept>

namespace {
struct Evp final : Shape {
    EVP_CIPHER_CTX* c;
    bool aead;
    Evp(const char* name, bool aead_) : aead(aead_) {
        EVP_CIPHER* ciph = EVP_CIPHER_fetch(nullptr, name, nullptr);
        if (!ciph) throw std::runtime_error("fetch");
        c = EVP_CIPHER_CTX_new();
        EVP_CipherInit_ex2(c, ciph, nullptr, nullptr, 1, nullptr);
        EVP_CIPHER_CTX_set_padding(c, 0);
        if (aead) EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr);
    }
    void set_key(const uint8_t* k) override {
        if (EVP_CipherInit_ex2(c, nullptr, k, nullptr, 1, nullptr) <= 0) throw std::runtime_error("key");
    }
    void start(const uint8_t* iv) override {
        if (EVP_CipherInit_ex2(c, nullptr, nullptr, iv, 1, nullptr) <= 0) throw std::runtime_error("iv");
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        int outl = 0;
        if (EVP_CipherUpdate(c, out, &outl, in, int(len)) <= 0 || size_t(outl) != len)
            throw std::runtime_error("update");
    }
    void finish(uint8_t* tag) override {
        uint8_t rest[64];
        int outl = 0;
        if (EVP_CipherFinal_ex(c, rest, &outl) <= 0) throw std::runtime_error("final");
        if (aead && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0) throw std::runtime_error("tag");
    }
    void key_iv(const uint8_t* k, const uint8_t* iv) override {
        if (EVP_CipherInit_ex2(c, nullptr, k, iv, 1, nullptr) <= 0) throw std::runtime_error("key+iv");
    }
    void update_enc(const uint8_t* in, uint8_t* out, size_t len) override {
        int outl = 0;
        if (EVP_EncryptUpdate(c, out, &outl, in, int(len)) <= 0 || size_t(outl) != len)
            throw std::runtime_error("update");
    }
    void final_only() override {
        uint8_t rest[64];
        int outl = 0;
        if (EVP_EncryptFinal_ex(c, rest, &outl) <= 0) throw std::runtime_error("final");
    }
    EVP_CIPHER_CTX* ctx() override { return c; }
};
}  // namespace

Shape* make_shape(const char* name, bool aead) { return new Evp(name, aead); }
