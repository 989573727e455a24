// An AEAD whose library takes a whole message in one call.
//
// Some AEADs cannot stream: CCM puts the lengths of the message and of the
// associated data into its first block, SIV needs the tag before it can
// decrypt, and libsodium's, NSS's (PKCS#11 message API), GnuTLS's
// gnutls_aead_cipher_* and AF_ALG's AEADs are one call per message by API.
// cb::OneShotAead holds the message state machine they all need; a subclass
// provides set_key(), seal() and open() and nothing else.
//
// Contract towards the engine (cb::Cipher), a message being
// start(nonce) -> aad()* -> update() at most once -> finish(tag):
//  - streams() is false, so the engine never times the bulk workload and
//    never feeds a message in chunks; a second update() in one message is
//    refused as cb::Unsupported (the library cannot do it), never cb::Error.
//  - aad() calls concatenate; aad() after update(), and update() or finish()
//    before start(), are call-order mistakes: cb::Error.
//  - Encryption seals in update(), so a timed update() contains the whole
//    library call, and finish() hands out the tag. finish() without an
//    update() seals the empty message.
//  - Decryption needs the tag first: update() only remembers its buffers and
//    finish(tag) opens, writing the plaintext to the `out` given to
//    update(). Those buffers must stay valid until finish() (the engine's do).
//  - A decryption given its data but never finished (what a bulk timing loop
//    would do) makes the next start() throw cb::Unsupported rather than time
//    nothing.
//
// Contract towards the subclass:
//  - seal(in, out, len, tag) encrypts len bytes and writes tag_bytes() bytes
//    of tag; open(in, out, len, tag) verifies and decrypts, returning false
//    only when the tag does not verify (the output is then discarded).
//    Library failures throw cb::Error, library limits cb::Unsupported.
//  - in may equal out. in and out are never null, even when len is 0 (they
//    then point at scratch bytes), because many libraries refuse NULL.
//  - nonce() and ad() describe the current message; ad() is nullptr when
//    there is no associated data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cipherbench/adapter.h"

namespace cb {

class OneShotAead : public Cipher {
public:
    // why: the sentence cb::Unsupported carries when a message would need a
    // second update(), naming the library and the reason it is one-shot.
    OneShotAead(Direction d, size_t tag_bytes, std::string why)
        : enc_(d == Direction::Encrypt), tag_(tag_bytes), why_(std::move(why)) {}

    bool streams() const final { return false; }

    void start(const uint8_t* iv, size_t len) final {
        if (state_ == State::Updated && !enc_) {
            state_ = State::Idle;
            throw Unsupported(why_);
        }
        nonce_.assign(iv, iv + len);
        ad_.clear();
        state_ = State::Started;
    }
    void aad(const uint8_t* a, size_t len) final {
        if (state_ != State::Started) throw Error("aad() must come after start() and before update()");
        ad_.insert(ad_.end(), a, a + len);
    }
    void update(const uint8_t* in, uint8_t* out, size_t len) final {
        if (state_ == State::Updated) throw Unsupported(why_);
        if (state_ != State::Started) throw Error("update() before start()");
        if (enc_) {
            seal(len ? in : scratch_, len ? out : scratch_, len, tag_.data());
        } else {
            in_ = in;
            out_ = out;
            len_ = len;
        }
        state_ = State::Updated;
    }
    bool finish(uint8_t* tag) final {
        if (state_ == State::Idle) throw Error("finish() before start()");
        const bool had_data = state_ == State::Updated;
        state_ = State::Idle;
        if (enc_) {
            if (!had_data) seal(scratch_, scratch_, 0, tag_.data());
            std::copy(tag_.begin(), tag_.end(), tag);
            return true;
        }
        if (!had_data || !len_) return open(scratch_, scratch_, 0, tag);
        return open(in_, out_, len_, tag);
    }

protected:
    virtual void seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) = 0;
    virtual bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* tag) = 0;

    bool encrypting() const { return enc_; }
    size_t tag_bytes() const { return tag_.size(); }
    const uint8_t* nonce() const { return nonce_.data(); }
    size_t nonce_len() const { return nonce_.size(); }
    const uint8_t* ad() const { return ad_.empty() ? nullptr : ad_.data(); }
    size_t ad_len() const { return ad_.size(); }

private:
    enum class State { Idle, Started, Updated };

    bool enc_;
    std::vector<uint8_t> tag_;
    std::string why_;
    State state_ = State::Idle;
    std::vector<uint8_t> nonce_, ad_;
    const uint8_t* in_ = nullptr;
    uint8_t* out_ = nullptr;
    size_t len_ = 0;
    uint8_t scratch_[16] = {0};
};

}  // namespace cb
