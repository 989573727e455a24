// timing: the timed batches of bench, cpu-clock and ct-sample, the clocks read around each, the
// probes of the core between them, the stack they run on and the buffers they run over.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"
#include "clocks.h"
#include "request.h"

namespace cb {

class Timing {
public:
    const CoreCycles& cycles() const { return cycles_; }

    // bench (docs/protocol.md, "bench"), its fields read up to "repeat_iv" (parse_bench);
    // `req` gives the keys once the buffers are allocated (parse_bench_keys).
    json bench(const Adapter& a, const Primitive& p, const BenchRequest& b, const json& req);

    json cpu_clock(const CpuClockRequest& c);

    // ct-sample: single calls of two interleaved input classes, raw times (ct_sample.h).
    static json ct_sample_answer(const Adapter& a, const Primitive& p, const CtSampleRequest& r);

private:
    struct Sample { uint64_t ns, tsc, cycles; };

    // The timed loops' buffers start on a 64-byte line, as the libraries' own tools place
    // theirs (openssl speed and bench-slope align to 64 and 128 bytes, nettle-benchmark's and
    // cryptest's arrays to 32 or more). A std::vector starts where malloc puts it: 16 bytes past
    // a line, and 16 past a page from 128 KiB on (an mmap'd chunk's header). There libgcrypt's
    // AES-128-CTR, whose AVX2 loop loads 32 bytes at a time, ran 8 % slower at 16 KiB and 1 MiB
    // (minimum of 300 batches: 17,122 against 18,570 MB/s at 16 KiB, 16,651 against 18,133 at 1 MiB).
    class TimedBuffer {
        struct Free { void operator()(uint8_t* p) const { std::free(p); } };
        std::unique_ptr<uint8_t, Free> p_;
        size_t n_ = 0;
    public:
        static constexpr size_t kAlign = 64;
        // Requests keep their buffers: a 1 MiB buffer allocated, zeroed and freed per request
        // cost 2.2 ms of page faults and unmapping around a 0.15 ms batch (openssl
        // aes-128-ctr), a standard profile's minutes. Buffers above kKeepBytes are let go after
        // their request.
        static constexpr size_t kKeepBytes = size_t(64) << 20;
        // At least n bytes, starting on a 64-byte line; the contents are whatever came before.
        uint8_t* at_least(size_t n);
        void trim() {
            if (n_ > kKeepBytes) { p_.reset(); n_ = 0; }
        }
    };
    struct Buffers;  // one request's input and output (timing.cpp)

    struct Probe { uint64_t serial_ns, parallel_ns, switches; };  // switches: cb_preemptions()
    struct Run;  // one bench request's batches (timing.cpp)

    Probe probe() const;
    template <class F> Sample timed(F&& body);
    template <class F> Sample timed_placed(F&& body);
    template <class F> Sample timed_here(F&& body) const;
    json result(const std::vector<Sample>& s) const;

    CoreCycles cycles_;

    // The bench request's stack_offset, for the batches of the request being served; -1: none
    // asked, the stack stays where it is (stack.h).
    int stack_offset_ = -1;

    // The bench request's `probe` (docs/protocol.md, "bench"): thousands of additions run as
    // the serial chain and as four parallel chains before a request's first batch and after
    // every batch, so each batch has the core's state measured on both sides of it, within
    // microseconds; 0: none asked. A neighbour on the other hardware thread comes and goes
    // within a millisecond here, and a reading a request away from a batch missed it.
    uint64_t probe_k_ = 0;
    std::vector<Probe> probes_;

    TimedBuffer in_buffer_, out_buffer_;
};

}  // namespace cb
