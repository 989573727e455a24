// checking: one message encrypted, decrypted or hashed whole, and the adapter contract (checking.h).
#include "checking.h"

#include <cstring>
#include <exception>
#include <numeric>

#include "sha256.h"

namespace cb {
namespace {

// Two hex digits for every byte value: one load and one 2-byte store a byte (a 1 MiB output
// is written as 2 MB of hex; digit by digit, with the reloads that stores through char
// force, that took 1.3 ms).
struct HexPairs {
    char v[512];
    constexpr HexPairs() : v() {
        constexpr char d[] = "0123456789abcdef";
        for (int b = 0; b < 256; ++b) { v[2 * b] = d[b >> 4]; v[2 * b + 1] = d[b & 15]; }
    }
};
constexpr HexPairs kHexPairs;

std::string hex(const uint8_t* p, size_t n) {
    std::string s(2 * n, '0');
    char* o = s.data();
    for (size_t i = 0; i < n; ++i) std::memcpy(o + 2 * i, kHexPairs.v + 2 * p[i], 2);
    return s;
}

// The answer to encrypt or decrypt once the message went through: `out` its output, `ok`
// what finish() said, `rounds` 0 for the full cipher.
json crypt_answer(const Primitive& p, bool enc, const CryptRequest& r, std::vector<uint8_t> out, bool ok,
                  uint64_t rounds) {
    json a = {{"status", "ok"}};
    if (r.chunked) a["chunked"] = true;
    if (rounds) a["rounds"] = rounds;
    if (r.inplace) a["inplace"] = true;
    if (r.filled) a["filled"] = true;
    if (p.kind == Kind::Aead && !enc) {
        a["authentic"] = ok;
        if (!ok) return a;
        out.resize(r.n);
    } else if (p.kind == Kind::Aead) {
        out.insert(out.end(), r.tag.begin(), r.tag.end());
    }
    if (r.digest) {
        const auto d = sha256(out.data(), out.size());
        a["output_sha256"] = hex(d.data(), d.size());
    } else {
        a["output"] = hex(out.data(), out.size());
    }
    return a;
}

// update_many(count 3) against three update() calls, in place as the bulk workload runs,
// with pieces every streaming API takes: whole blocks, and multiples of 256 bytes (Botan's
// OCB continues a message only after those); "" when they agree.
std::string update_many_failure(const Adapter& a, const Primitive& p, const std::vector<uint8_t>& key,
                                const std::vector<uint8_t>& iv) {
    const size_t bulk = std::lcm(size_t(256), p.block_bytes ? p.block_bytes : 1);
    std::vector<uint8_t> msg(bulk);
    for (size_t i = 0; i < bulk; ++i) msg[i] = uint8_t(i);
    for (Direction dir : {Direction::Encrypt, Direction::Decrypt}) {
        std::vector<uint8_t> many = msg, each = msg, tag_many(p.tag_bytes), tag_each(p.tag_bytes);
        auto c = a.cipher(p, dir), c2 = a.cipher(p, dir);
        c->set_key(key.data(), key.size());
        c->start(iv.data(), iv.size());
        c->update_many(many.data(), many.data(), bulk, 3);
        c2->set_key(key.data(), key.size());
        c2->start(iv.data(), iv.size());
        for (int i = 0; i < 3; ++i) c2->update(each.data(), each.data(), bulk);
        if (dir == Direction::Encrypt) {
            c->finish(tag_many.data());
            c2->finish(tag_each.data());
        }
        if (many != each || tag_many != tag_each)
            return std::string("update_many() differs from as many update() calls (") +
                   (dir == Direction::Encrypt ? "encrypting)" : "decrypting)");
    }
    return "";
}

// What breaks the contract for one primitive (see check_adapters), or "".
std::string contract_failure(const Adapter& a, const Primitive& p) {
    const bool aead = p.kind == Kind::Aead;
    std::vector<uint8_t> key(p.key_bytes), iv(p.iv_bytes), aad(aead ? 5 : 0);
    for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i + 1);  // XTS: the halves differ
    for (size_t i = 0; i < iv.size(); ++i) iv[i] = uint8_t(0xa0 + i);
    for (size_t i = 0; i < aad.size(); ++i) aad[i] = uint8_t(0x50 + i);
    const size_t n = p.whole_blocks ? 4 * p.block_bytes : 64;
    std::vector<uint8_t> msg(n);
    for (size_t i = 0; i < n; ++i) msg[i] = uint8_t(i);

    struct Message { std::vector<uint8_t> out, tag; bool ok; };
    enum class Begin { Start, KeyAndStart };
    // One message on c: begin it, AAD, one update of `in`, finish (tag: read if decrypting).
    auto message = [&](Cipher& c, Begin how, const std::vector<uint8_t>& in, std::vector<uint8_t> tag) {
        if (how == Begin::Start) c.start(iv.data(), iv.size());
        else c.set_key_and_start(key.data(), key.size(), iv.data(), iv.size());
        if (!aad.empty()) c.aad(aad.data(), aad.size());
        std::vector<uint8_t> out(in.size());
        c.update(in.data(), out.data(), in.size());
        tag.resize(p.tag_bytes);
        bool ok = c.finish(tag.data());
        return Message{out, tag, ok};
    };

    auto e = a.cipher(p, Direction::Encrypt);
    e->set_key(key.data(), key.size());
    const Message first = message(*e, Begin::Start, msg, {});
    const Message again = message(*e, Begin::Start, msg, {});
    if (again.out != first.out || again.tag != first.tag)
        return "a second message on one keyed context differs from the first (start() does not restart)";
    if (first.out == msg && p.kind != Kind::Null) return "encryption left the message unchanged";
    if (message(*e, Begin::KeyAndStart, msg, {}).out != first.out)
        return "set_key_and_start() gives another message than set_key() then start()";

    auto d = a.cipher(p, Direction::Decrypt);
    d->set_key(key.data(), key.size());
    for (Begin how : {Begin::Start, Begin::Start, Begin::KeyAndStart}) {
        const Message back = message(*d, how, first.out, first.tag);
        if (!back.ok) return "decryption rejected the encryption's own message";
        if (back.out != msg) return "decryption does not give the message back (second message or set_key_and_start)";
    }
    return e->streams() ? update_many_failure(a, p, key, iv) : "";
}

}  // namespace

json crypt_once(const Adapter& a, const std::string& impl, const Primitive& p, bool enc, CryptRequest r,
                const json& req) {
    auto c = a.cipher(p, enc ? Direction::Encrypt : Direction::Decrypt);
    if (r.parts.size() > 1 && !c->streams())
        throw Unsupported(std::string(p.name) + " is one call per message in this implementation: "
                          "it cannot take the input in chunks");
    const uint64_t rounds = parse_rounds(req);  // echoed when honoured
    if (rounds && !c->set_rounds(unsigned(rounds)))
        throw Unsupported(impl + " runs " + p.name + " only with its full round count");
    c->set_key(r.key.data(), r.key.size());
    c->start(r.iv.data(), r.iv.size());
    if (p.kind == Kind::Aead && !r.aad.empty()) c->aad(r.aad.data(), r.aad.size());
    std::vector<uint8_t> out(r.inplace ? 0 : r.n);
    uint8_t* dst = r.inplace ? r.in.data() : out.data();
    size_t at = 0;
    for (size_t len : r.parts) {
        c->update(r.in.data() + at, dst + at, len);
        at += len;
    }
    bool ok = c->finish(r.tag.data());
    if (r.inplace) { r.in.resize(r.n); out.swap(r.in); }
    return crypt_answer(p, enc, r, std::move(out), ok, rounds);
}

json hash_once(const Adapter& a, const Primitive& p, const HashRequest& r, const json& req) {
    auto h = a.hash(p);
    h->init();
    size_t at = 0;  // in the pieces asked ("chunks"), as the timed bulk loop feeds a hash
    for (size_t len : parse_chunks(req, p, r.in.size())) {
        h->update(r.in.data() + at, len);
        at += len;
    }
    std::vector<uint8_t> d(p.digest_bytes);
    h->final(d.data());
    json answer = {{"status", "ok"}, {"output", hex(d.data(), d.size())}};
    if (r.chunked) answer["chunked"] = true;
    if (r.filled) answer["filled"] = true;
    return answer;
}

int check_adapters(const std::vector<Impl>& impls, std::ostream& log) {
    int failures = 0;
    for (const auto& im : impls) {
        if (!im.reason.empty()) continue;
        for (const auto& [name, provider] : im.offers) {
            const Primitive& p = *find_primitive(name);
            if (p.kind == Kind::Hash) continue;
            std::string why;
            try {
                why = contract_failure(*im.adapter, p);
            } catch (const std::exception& e) {
                why = std::string("threw: ") + e.what();
            }
            if (!why.empty()) ++failures;
            log << (why.empty() ? "ok " : "FAIL ") << im.name << ' ' << name
                << (why.empty() ? "" : ": " + why) << '\n';
        }
    }
    return failures;
}

}  // namespace cb
