// The start-up check that decides whether an adapter offers a primitive.
//
// adapter.h asks offers() to list only what works at run time on this
// machine. A library may name a cipher it was built without, accept a key
// length and then fail, or be linked against a different build than its
// headers describe; so every adapter runs each candidate once at start-up
// through the same code path the engine will use, and offers it only if
// this check passes. The check is deliberately small (it runs for every
// primitive of every adapter at each start); verify does the thorough work:
// known answers, chunked input, cross-implementation agreement.
//
// probe_cipher(p, make), for ciphers, streams and AEADs:
//  - make(direction) builds a fresh context, as Adapter::cipher() would; it
//    may return nullptr or throw (Unsupported or Error): either means "not
//    offered".
//  - Key: key_bytes bytes i*7+1 (so the halves of XTS and SIV keys differ);
//    IV: iv_bytes zero bytes; message: 3 blocks (16-byte units for streams),
//    plus 5 bytes where the mode takes partial blocks, byte i = i mod 256.
//  - Encrypts the message in place in one update(), then decrypts it into
//    another buffer in one update(), so both the in == out form the timed
//    loops use and the out-of-place form are exercised.
//  - Passes when encryption changed the message, decryption restored it and
//    accepted the tag, and (AEADs) the same context, restarted, refuses the
//    message with one tag bit flipped.
//
// probe_hash(p, make), for hashes: make() builds a context (nullptr or a
// throw: not offered); a 100-byte message hashed in one update() and again
// in two, through the same context, must give the same digest (init()
// restarts, updates concatenate).
//
// probe(p, cipher, hash) picks the one of the two that fits p's kind (the
// null primitive is the engine's own and never probed). All three return ""
// when the primitive works, otherwise one sentence saying why not (an
// adapter may keep it in its notes).
//
// Offered<Recipe> is the start-up table of an adapter that keeps its own
// recipe per primitive (the library's names for it, keying quirks) and
// builds contexts from it in cipher() and hash(). ProbedAdapter is the base
// of an adapter that needs no table: two factories build any context, and
// probing decides which of them are offered.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cipherbench/adapter.h"

namespace cb {

using CipherMaker = std::function<std::unique_ptr<Cipher>(Direction)>;
using HashMaker = std::function<std::unique_ptr<Hash>()>;

inline std::string probe_cipher(const Primitive& p, const CipherMaker& make) {
    try {
        auto e = make(Direction::Encrypt);
        auto d = make(Direction::Decrypt);
        if (!e || !d) return "no context for it";
        std::vector<uint8_t> key(p.key_bytes), iv(p.iv_bytes ? p.iv_bytes : 1, 0);
        for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i * 7 + 1);
        const size_t unit = p.block_bytes ? p.block_bytes : 16;
        const size_t n = 3 * unit + (p.whole_blocks ? 0 : 5);
        std::vector<uint8_t> pt(n), ct(n), back(n), tag(p.tag_bytes ? p.tag_bytes : 1, 0);
        for (size_t i = 0; i < n; ++i) pt[i] = uint8_t(i);

        ct = pt;
        e->set_key(key.data(), p.key_bytes);
        e->start(iv.data(), p.iv_bytes);
        e->update(ct.data(), ct.data(), n);
        if (!e->finish(tag.data())) return "encryption's finish() reported failure";
        if (ct == pt) return "encryption left the message unchanged";

        d->set_key(key.data(), p.key_bytes);
        d->start(iv.data(), p.iv_bytes);
        d->update(ct.data(), back.data(), n);
        if (!d->finish(tag.data())) return "decryption refused the tag encryption made";
        if (back != pt) return "decryption did not restore the message";

        if (p.kind == Kind::Aead) {
            tag[0] ^= 1;
            d->start(iv.data(), p.iv_bytes);
            d->update(ct.data(), back.data(), n);
            if (d->finish(tag.data())) return "a tag with one bit flipped was accepted";
        }
        return "";
    } catch (const std::exception& ex) {
        return ex.what();
    }
}

inline std::string probe_hash(const Primitive& p, const HashMaker& make) {
    try {
        auto h = make();
        if (!h) return "no context for it";
        uint8_t msg[100];
        for (size_t i = 0; i < sizeof msg; ++i) msg[i] = uint8_t(i);
        std::vector<uint8_t> whole(p.digest_bytes), pieces(p.digest_bytes);
        h->init();
        h->update(msg, sizeof msg);
        h->final(whole.data());
        h->init();
        h->update(msg, 37);
        h->update(msg + 37, sizeof msg - 37);
        h->final(pieces.data());
        if (whole != pieces) return "the digest changed when the message came in two pieces";
        return "";
    } catch (const std::exception& ex) {
        return ex.what();
    }
}

// Whether an adapter's probed offers name this primitive: for adapters whose
// cipher() and hash() serve exactly what probing let through.
inline bool offered(const std::vector<Offer>& offers, const std::string& primitive) {
    for (const auto& o : offers)
        if (o.primitive == primitive) return true;
    return false;
}

inline std::string probe(const Primitive& p, const CipherMaker& cipher, const HashMaker& hash) {
    if (p.kind == Kind::Null) return "the null primitive is the engine's own";
    return p.kind == Kind::Hash ? probe_hash(p, hash) : probe_cipher(p, cipher);
}

// What an adapter offers, with the adapter's recipe for each primitive.
template <class Recipe>
class Offered {
public:
    // Goes through the registry once, in its order. For each primitive p,
    // recipe_for(p, r) fills in the adapter's recipe r (false: the library
    // has nothing for p). r is kept while p is probed through the adapter's
    // own cipher() or hash() (which look it up with find()); p is offered
    // only if the probe passes, otherwise r is forgotten. provider(p, r)
    // names what runs (the Offer's Path); it is asked only for what passed.
    template <class RecipeFor, class Provider>
    void probe_registry(const Adapter& a, RecipeFor recipe_for, Provider provider) {
        for (const auto& p : all_primitives()) {
            Recipe r{};
            if (!recipe_for(p, r)) continue;
            auto it = recipes_.insert_or_assign(p.name, std::move(r)).first;
            if (probe(p, [&](Direction d) { return a.cipher(p, d); }, [&] { return a.hash(p); }).empty())
                offers_.push_back({p.name, provider(p, it->second)});
            else
                recipes_.erase(it);
        }
    }
    // The recipe of an offered primitive (or of the one being probed), or nullptr.
    const Recipe* find(const std::string& primitive) const {
        auto it = recipes_.find(primitive);
        return it == recipes_.end() ? nullptr : &it->second;
    }
    const std::vector<Offer>& offers() const { return offers_; }

private:
    std::map<std::string, Recipe> recipes_;  // node-based: a recipe's address stays put
    std::vector<Offer> offers_;
};

// An adapter whose contexts come from two factories, make() and
// make_hash(), which return nullptr (or throw) for what the library lacks.
// offers() is what passed the probe, with provider(p) for each; cipher() and
// hash() serve exactly that. The subclass calls probe_registry() at the end
// of its constructor (its factories are not callable before).
class ProbedAdapter : public Adapter {
public:
    std::vector<Offer> offers() const override { return offers_; }
    std::unique_ptr<Cipher> cipher(const Primitive& p, Direction d) const override {
        if (!offered(offers_, p.name)) return Adapter::cipher(p, d);
        return make(p, d);
    }
    std::unique_ptr<Hash> hash(const Primitive& p) const override {
        if (!offered(offers_, p.name)) return Adapter::hash(p);
        return make_hash(p);
    }

protected:
    virtual std::unique_ptr<Cipher> make(const Primitive& p, Direction d) const = 0;
    virtual std::unique_ptr<Hash> make_hash(const Primitive& p) const = 0;
    virtual Path provider(const Primitive& p) const = 0;

    void probe_registry() {
        for (const auto& p : all_primitives())
            if (probe(p, [&](Direction d) { return make(p, d); }, [&] { return make_hash(p); }).empty())
                offers_.push_back({p.name, provider(p)});
    }

private:
    std::vector<Offer> offers_;
};

}  // namespace cb
