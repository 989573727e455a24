// Modes of operation over a bare block function, for adapters whose library
// offers only the block primitive (the reference ciphers). Modes follow NIST
// SP 800-38A: CFB (section 6.3) in s-byte segments, s = the block for cfb, 1 for
// cfb8, 16 for cfb128; OFB with full-block feedback; CTR increments the whole IV
// block as one big-endian counter.
#pragma once

#include <cstring>
#include <vector>

#include "cipherbench/adapter.h"

namespace cb {

// One block of `block` bytes through a keyed context; `in` may equal `out`.
// The optional *_blocks functions do `n` consecutive blocks at once (ECB) with
// the same result as `n` single calls; ECB uses them where they are set.
struct BlockFn {
    const void* ctx = nullptr;
    void (*encrypt)(const void* ctx, const uint8_t* in, uint8_t* out) = nullptr;
    void (*decrypt)(const void* ctx, const uint8_t* in, uint8_t* out) = nullptr;
    size_t block = 0;
    void (*encrypt_blocks)(const void* ctx, const uint8_t* in, uint8_t* out, size_t n) = nullptr;
    void (*decrypt_blocks)(const void* ctx, const uint8_t* in, uint8_t* out, size_t n) = nullptr;
};

// Owns no key material: the adapter's subclass keys the context in set_key()
// and sets `fn_` to point at it.
class BlockModeCipher : public Cipher {
public:
    BlockModeCipher(const std::string& mode, Direction dir, size_t block)
        : mode_(mode), dir_(dir), iv_(block), ks_(block), tmp_(block), segment_(cfb_segment(mode, block)) {}

    // CFB's segment in bytes for a mode name (0: not CFB).
    static size_t cfb_segment(const std::string& mode, size_t block) {
        if (mode == "cfb") return block;
        if (mode == "cfb8") return 1;
        if (mode == "cfb128") {
            if (block < 16) throw Unsupported("cfb128 needs a block of at least 16 bytes");
            return 16;
        }
        return 0;
    }

    void start(const uint8_t* iv, size_t len) override {
        if (len) std::memcpy(iv_.data(), iv, len);
        used_ = fn_.block;  // no keystream left over
    }

    void update(const uint8_t* in, uint8_t* out, size_t len) override {
        const size_t b = fn_.block;
        if (mode_ == "ecb") {
            auto many = dir_ == Direction::Encrypt ? fn_.encrypt_blocks : fn_.decrypt_blocks;
            auto f = dir_ == Direction::Encrypt ? fn_.encrypt : fn_.decrypt;
            if (many)
                many(fn_.ctx, in, out, len / b);
            else
                for (size_t i = 0; i < len; i += b) f(fn_.ctx, in + i, out + i);
        } else if (mode_ == "cbc") {
            uint8_t* v = iv_.data();
            if (dir_ == Direction::Encrypt) {
                for (size_t i = 0; i < len; i += b) {
                    for (size_t j = 0; j < b; ++j) v[j] ^= in[i + j];
                    fn_.encrypt(fn_.ctx, v, v);
                    std::memcpy(out + i, v, b);
                }
            } else {
                for (size_t i = 0; i < len; i += b) {
                    std::memcpy(tmp_.data(), in + i, b);  // in may equal out
                    fn_.decrypt(fn_.ctx, in + i, out + i);
                    for (size_t j = 0; j < b; ++j) out[i + j] ^= v[j];
                    std::memcpy(v, tmp_.data(), b);
                }
            }
        } else if (segment_) {
            // Each segment XORs the first s bytes of E(register); the register then
            // moves on by s bytes and takes in the segment's ciphertext. It is shifted
            // when the segment starts and filled byte by byte, so a segment may span
            // update() calls.
            const size_t s = segment_;
            uint8_t* r = iv_.data();
            for (size_t i = 0; i < len; ++i) {
                if (used_ >= s) {
                    fn_.encrypt(fn_.ctx, r, ks_.data());
                    std::memmove(r, r + s, b - s);
                    used_ = 0;
                }
                const uint8_t c = in[i];  // in may equal out
                out[i] = c ^ ks_[used_];
                r[b - s + used_] = dir_ == Direction::Encrypt ? out[i] : c;
                ++used_;
            }
        } else {  // ofb, ctr: keystream modes, any length
            for (size_t i = 0; i < len; ++i) {
                if (used_ == b) { next_keystream(); used_ = 0; }
                out[i] = in[i] ^ ks_[used_];
                ++used_;
            }
        }
    }

protected:
    BlockFn fn_;

private:
    void next_keystream() {
        const size_t b = fn_.block;
        if (mode_ == "ctr") {
            fn_.encrypt(fn_.ctx, iv_.data(), ks_.data());
            for (size_t j = b; j-- > 0;)
                if (++iv_[j]) break;
        } else {  // ofb
            fn_.encrypt(fn_.ctx, iv_.data(), iv_.data());
            std::memcpy(ks_.data(), iv_.data(), b);
        }
    }

    std::string mode_;
    Direction dir_;
    std::vector<uint8_t> iv_, ks_, tmp_;
    size_t segment_;
    size_t used_ = 0;
};

inline bool generic_mode_supported(const std::string& mode) {
    return mode == "ecb" || mode == "cbc" || mode == "cfb" || mode == "cfb8" || mode == "cfb128" || mode == "ofb" ||
           mode == "ctr";
}

}  // namespace cb
