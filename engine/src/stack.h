// Where a timed batch's stack frames sit within a 4096-byte page.
//
// Address-space randomisation places a process's stack at a random 16-byte
// step within a page, and the offset between a library's stack frames and its
// buffers then decides whether loads falsely alias earlier stores (the CPU
// compares only the low 12 address bits) and whether stack blocks straddle
// cache lines. RustCrypto's AES-128-CTR at 1 KiB takes from 0.80 to 1.22 times
// its median depending on it alone (benchmarks/README.md, run set 5), so one
// process measures one draw of that spread for its whole life. The bench
// request's `stack_offset` (docs/protocol.md) asks for the timed loop to run
// with its stack moved to a given offset instead: the orchestrator spreads a
// point's batches over offsets, the same ones in every run, so its median is a
// median over stack placements and does not depend on the process's draw. The
// mapping from `offset` to the exact frame addresses is a fixed rotation (this
// function's own frame size), the same in every process of one build. C, so that
// the Python runner calls the same code (runners/python/build.sh).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Calls fn(arg) with the stack pointer moved down so that it sits at `offset`
// (0..4095, rounded down to 16) within its page, up to the fixed rotation.
void cb_at_stack_offset(unsigned offset, void (*fn)(void*), void* arg);

// Where the last placed call's frames began within their page (the gap's lowest
// address): `stack_at - offset` modulo 4096 is the rotation, the same for every offset.
int cb_stack_at(void);

#ifdef __cplusplus
}
#endif
