// timing: the timed batches of bench, cpu-clock and ct-sample (timing.h).
#include "timing.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "ct_sample.h"
#include "probe.h"
#include "stack.h"

namespace cb {
namespace {

void bump(std::vector<uint8_t>& iv) {  // next nonce: big-endian increment
    for (size_t j = iv.size(); j-- > 0;)
        if (++iv[j]) break;
}

void refuse_bulk_if_one_shot(const Cipher& c, const Primitive& p, Workload workload) {
    if (workload == Workload::Bulk && !c.streams())
        throw Unsupported(std::string(p.name) + " is one call per message in this implementation: "
                          "time it with the message or rekey workload");
}

}  // namespace

uint8_t* Timing::TimedBuffer::at_least(size_t n) {
    if (n > n_) {
        p_.reset();
        n_ = 0;
        p_.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlign, (n + kAlign - 1) / kAlign * kAlign)));
        if (!p_) throw Fail("cannot allocate a " + std::to_string(n) + "-byte buffer");
        n_ = n;
    }
    return p_.get();
}

// The request's input (byte i = i mod 256, as the 2008 comparison's verify used) and
// output buffers, both `size` bytes (1 for a size of 0) on reused storage; the output is
// zeroed so that no request sees what an earlier one left.
struct Timing::Buffers {
    TimedBuffer &in_b, &out_b;
    size_t n;
    uint8_t* in;
    uint8_t* out;
    Buffers(TimedBuffer& i, TimedBuffer& o, size_t size)
        : in_b(i), out_b(o), n(size ? size : 1), in(i.at_least(n)), out(o.at_least(n)) {
        const size_t first = std::min<size_t>(n, 256);
        for (size_t k = 0; k < first; ++k) in[k] = uint8_t(k);
        for (size_t done = first; done < n;) {  // the pattern repeats every 256 bytes
            const size_t m = std::min(done, n - done);
            std::memcpy(in + done, in, m);
            done += m;
        }
        std::memset(out, 0, n);
    }
    ~Buffers() { in_b.trim(); out_b.trim(); }
};

// Each chain runs twice and the faster run counts (probe.h): one probe preempted once read
// 0.1 GHz and lent that clock to the batches on both sides of it, halving their cycles.
Timing::Probe Timing::probe() const {
    uint64_t out[2];
    cb_probe(probe_k_, out);
    return {out[0], out[1], cb_preemptions()};
}

template <class F>
Timing::Sample Timing::timed_here(F&& body) const {
    clean_vector_state();  // whatever library ran before left its own (clocks.h)
    uint64_t c0 = cycles_.available() ? cycles_.read() : 0;
    uint64_t t0 = now_ns(), k0 = tsc();
    body();
    uint64_t k1 = tsc(), t1 = now_ns();
    uint64_t c1 = cycles_.available() ? cycles_.read() : 0;
    return {t1 - t0, k1 - k0, c1 - c0};
}

template <class F>
Timing::Sample Timing::timed_placed(F&& body) {
    if (stack_offset_ < 0) return timed_here(body);
    struct Call { const Timing* self; std::remove_reference_t<F>* body; Sample out; } call{this, &body, {}};
    cb_at_stack_offset(unsigned(stack_offset_), [](void* a) {
        auto* c = static_cast<Call*>(a);
        c->out = c->self->timed_here(*c->body);
    }, &call);
    return call.out;
}

template <class F>
Timing::Sample Timing::timed(F&& body) {
    if (probe_k_ == 0) return timed_placed(body);
    if (probes_.empty()) probes_.push_back(probe());
    const Sample s = timed_placed(body);
    probes_.push_back(probe());
    return s;
}

json Timing::result(const std::vector<Sample>& s) const {
    json ns = json::array(), ticks = json::array(), cyc = json::array();
    for (const auto& x : s) { ns.push_back(x.ns); ticks.push_back(x.tsc); cyc.push_back(x.cycles); }
    json r = {{"status", "ok"}, {"ns", ns}};
    r["tsc"] = has_tsc() ? ticks : json(nullptr);
    r["core_cycles"] = cycles_.available() ? cyc : json(nullptr);
    if (!probes_.empty()) {  // one reading before the first batch and one after each
        json serial = json::array(), parallel = json::array(), switches = json::array();
        bool counted = true;
        for (const auto& p : probes_) {
            serial.push_back(p.serial_ns);
            parallel.push_back(p.parallel_ns);
            switches.push_back(p.switches);
            counted = counted && p.switches != UINT64_MAX;
        }
        r["probe_cycles"] = probe_k_ * 1000;
        r["probe_ns"] = serial;
        r["probe_parallel_ns"] = parallel;
        if (counted) r["probe_switches"] = switches;
    }
    if (stack_offset_ >= 0) {  // honoured: echoed, with where the last batch's frame landed
        r["stack_offset"] = stack_offset_;
        r["stack_at"] = cb_stack_at();
    }
    return r;
}

// One bench request's batches, on its buffers, with its keys: one method per kind of loop.
struct Timing::Run {
    Timing& t;
    const Adapter& a;
    const Primitive& p;
    const BenchRequest& b;
    BenchKeys& k;
    uint8_t* const buf;
    uint8_t* const out;
    std::vector<Sample> samples;

    json hash();
    json keysetup();
    json encrypt();
    json decrypt();
};

json Timing::bench(const Adapter& a, const Primitive& p, const BenchRequest& b, const json& req) {
    struct Reset {
        Timing& t;
        ~Reset() { t.stack_offset_ = -1; t.probe_k_ = 0; t.probes_.clear(); }
    } reset{*this};
    stack_offset_ = b.stack_offset;
    probe_k_ = b.probe_k;
    Buffers io(in_buffer_, out_buffer_, b.size);
    std::vector<Sample> samples;
    samples.reserve(b.batches);
    BenchKeys keys = parse_bench_keys(req, p, b);
    Run run{*this, a, p, b, keys, io.in, io.out, std::move(samples)};
    if (p.kind == Kind::Hash) return run.hash();
    if (b.op == BenchOp::KeySetup || b.op == BenchOp::KeySetupDecrypt) return run.keysetup();
    if (b.op == BenchOp::Encrypt) return run.encrypt();
    return run.decrypt();  // decrypt or decrypt-forged: parse_bench_keys refused the rest
}

json Timing::Run::hash() {
    const uint64_t loops = b.loops, size = b.size;
    auto h = a.hash(p);
    std::vector<uint8_t> d(p.digest_bytes);
    for (uint64_t n = 0; n < b.batches; ++n) {
        if (b.workload == Workload::Bulk) {
            h->init();
            samples.push_back(t.timed([&] { for (uint64_t i = 0; i < loops; ++i) h->update(buf, size); }));
            h->final(d.data());
        } else {
            samples.push_back(t.timed([&] {
                for (uint64_t i = 0; i < loops; ++i) { h->init(); h->update(buf, size); h->final(d.data()); }
            }));
        }
    }
    return t.result(samples);
}

json Timing::Run::keysetup() {
    const uint64_t loops = b.loops;
    const std::vector<uint8_t>& key = k.key;
    auto c = a.cipher(p, b.op == BenchOp::KeySetup ? Direction::Encrypt : Direction::Decrypt);
    for (uint64_t n = 0; n < b.batches; ++n)
        samples.push_back(t.timed([&] { for (uint64_t i = 0; i < loops; ++i) c->set_key(key.data(), key.size()); }));
    return t.result(samples);
}

json Timing::Run::encrypt() {
    const uint64_t loops = b.loops, size = b.size;
    const std::vector<uint8_t>& key = k.key;
    std::vector<uint8_t>& iv = k.iv;
    const std::vector<uint8_t>& aad = k.aad;
    const bool aead = p.kind == Kind::Aead, repeat_iv = b.repeat_iv;
    std::vector<uint8_t> tag(p.tag_bytes);
    auto c = a.cipher(p, Direction::Encrypt);
    refuse_bulk_if_one_shot(*c, p, b.workload);
    c->set_key(key.data(), key.size());
    uint8_t* const dst = b.separate ? out : buf;
    for (uint64_t n = 0; n < b.batches; ++n) {
        if (b.workload == Workload::Bulk) {
            c->start(iv.data(), iv.size());
            if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
            samples.push_back(t.timed([&] { c->update_many(buf, dst, size, loops); }));
            c->finish(tag.data());
        } else {
            const bool rekey = b.workload == Workload::Rekey;
            samples.push_back(t.timed([&] {
                for (uint64_t i = 0; i < loops; ++i) {
                    if (rekey) c->set_key_and_start(key.data(), key.size(), iv.data(), iv.size());
                    else c->start(iv.data(), iv.size());
                    if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
                    c->update(buf, dst, size);
                    c->finish(tag.data());
                    if (!repeat_iv) bump(iv);
                }
            }));
        }
    }
    json r = t.result(samples);
    if (b.separate) r["inplace"] = false;
    if (repeat_iv) r["repeat_iv"] = true;
    return r;
}

json Timing::Run::decrypt() {
    const uint64_t loops = b.loops, size = b.size, batches = b.batches;
    const std::vector<uint8_t>& key = k.key;
    const std::vector<uint8_t>& iv = k.iv;
    const std::vector<uint8_t>& aad = k.aad;
    const bool aead = p.kind == Kind::Aead, forged = b.op == BenchOp::DecryptForged;
    std::vector<uint8_t> tag(p.tag_bytes);
    // A valid ciphertext (and tag) to open, made once outside the timing.
    if (aead) {
        auto e = a.cipher(p, Direction::Encrypt);
        e->set_key(key.data(), key.size());
        e->start(iv.data(), iv.size());
        if (!aad.empty()) e->aad(aad.data(), aad.size());
        if (size) e->update(buf, buf, size);
        e->finish(tag.data());
        if (forged) tag[0] ^= 1;
    }
    auto c = a.cipher(p, Direction::Decrypt);
    refuse_bulk_if_one_shot(*c, p, b.workload);
    c->set_key(key.data(), key.size());
    uint64_t accepted = 0;
    for (uint64_t n = 0; n < batches; ++n) {
        if (b.workload == Workload::Bulk) {
            // Streaming decryption of one long message; no tag check (as openssl speed -evp -decrypt).
            c->start(iv.data(), iv.size());
            if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
            samples.push_back(t.timed([&] { c->update_many(buf, buf, size, loops); }));
        } else {
            const bool rekey = b.workload == Workload::Rekey;
            samples.push_back(t.timed([&] {
                for (uint64_t i = 0; i < loops; ++i) {
                    if (rekey) c->set_key_and_start(key.data(), key.size(), iv.data(), iv.size());
                    else c->start(iv.data(), iv.size());
                    if (aead && !aad.empty()) c->aad(aad.data(), aad.size());
                    c->update(buf, out, size);
                    accepted += c->finish(tag.data());
                }
            }));
        }
    }
    if (aead && b.workload != Workload::Bulk) {
        const uint64_t expect = forged ? 0 : loops * batches;
        if (accepted != expect)
            throw Fail(std::string(p.name) + ": " + std::to_string(accepted) + " of " +
                       std::to_string(loops * batches) + (forged ? " forged messages were accepted" : " valid messages were accepted"));
    }
    return t.result(samples);
}

json Timing::cpu_clock(const CpuClockRequest& req) {
    const uint64_t k = req.thousands, best_of = req.best_of;
    // best_of: run the chain that many times, back to back, and answer the fastest. The
    // chain cannot run faster than one add per cycle, while an interrupt or a preemption
    // only slows it, so the fastest run is the clock (docs/protocol.md, "cpu-clock").
    // parallel: the same additions in four independent chains, also the fastest of best_of
    // runs (parallel_add_chains: ns / parallel_ns is how many the core ran at once)
    const auto fastest = [&](auto chain) {
        Sample s = timed([&] { chain(); });
        for (uint64_t i = 1; i < best_of; ++i) {
            Sample again = timed([&] { chain(); });
            if (again.ns < s.ns) s = again;
        }
        return s;
    };
    const Sample s = fastest([&] { dependent_add_chain(k); });
    json r = {{"status", "ok"}, {"chain_cycles", k * 1000}, {"ns", s.ns}};
    r["tsc"] = has_tsc() ? json(s.tsc) : json(nullptr);
    r["core_cycles"] = cycles_.available() ? json(s.cycles) : json(nullptr);
    if (req.parallel) r["parallel_ns"] = fastest([&] { parallel_add_chains(k); }).ns;
    return r;
}

json Timing::ct_sample_answer(const Adapter& a, const Primitive& p, const CtSampleRequest& r) {
    CtSampleResult res = ct_sample(a, p, r);
    return {{"status", "ok"}, {"vary", r.vary == CtVary::Key ? "key" : "plaintext"}, {"samples", r.samples},
            {"timer", res.timer}, {"classes", res.classes}, {"times", res.times}};
}

}  // namespace cb
