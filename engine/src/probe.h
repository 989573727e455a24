// A probe of the measuring core: how fast it runs a serial chain of additions (its clock,
// less whatever another hardware thread takes from it) and how many additions a cycle it
// runs when they are independent (fewer while another hardware thread shares its ports).
// The bench request's `probe` (docs/protocol.md) runs one before a request's first batch and
// one after each batch. C, so that every runner that can load a shared library calls the
// same code: the engine links it, the Python runner loads it with ctypes, the PHP runner
// with FFI, the C# runner with DllImport (their build.sh each build a libcb_probe.so), the
// Go runner links it through cgo (runners/go/build.sh builds libcb_probe.a), the Java runner
// through a JNI shim (runners/java/probe_jni.c) and the Node.js runner through an N-API
// addon (runners/node/probe_napi.c); the Rust runner carries the same instructions in Rust.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// 1000 x k dependent register-register additions: one core cycle each.
void cb_serial_adds(uint64_t k);

// The same additions as four independent chains, interleaved.
void cb_parallel_adds(uint64_t k);

// One reading: each chain twice, the faster run's nanoseconds (CLOCK_MONOTONIC) kept, since
// a preemption or an interrupt is one gap, which lands in one of the two; out[0] the serial
// chain's, out[1] the parallel chains'.
void cb_probe(uint64_t k, uint64_t out[2]);

// The calling thread's involuntary context switches so far (getrusage RUSAGE_THREAD,
// ru_nivcsw): read with each probe, two that differ mean the scheduler gave the CPU to
// another thread between them, and the batch between lost that time. UINT64_MAX where the
// system cannot tell (the answer then carries no `probe_switches`).
uint64_t cb_preemptions(void);

#ifdef __cplusplus
}
#endif
