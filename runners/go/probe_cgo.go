//go:build cbprobe && cgo

// The probe through cgo: engine/src/probe.c's cb_probe, from the static library build.sh
// compiles (libcb_probe.a, given to the linker in CGO_LDFLAGS), so that this runner runs the
// engine's own instructions rather than a copy of them. Built only with the tag cbprobe,
// which build.sh sets when the library was built; probe_none.go stands in otherwise.
package main

// #cgo CFLAGS: -I${SRCDIR}/../../engine/src
// #include "probe.h"
import "C"

// probeObject is the SHA-256 of the libcb_probe.a this binary was linked with, set by
// build.sh (-ldflags -X): go's build cache does not look into C libraries, and a new value
// here makes it link again when the library changed.
var probeObject string

const probeLoaded = true

// probeReading runs one reading of k thousand additions: {serial ns, parallel ns, the calling
// thread's involuntary context switches right after (cb_preemptions: unknownSwitches where the
// system cannot tell)}. The caller keeps its goroutine on one OS thread (bench), so the counts
// are the timing thread's.
func probeReading(k uint64) [3]uint64 {
	var out [2]C.uint64_t
	C.cb_probe(C.uint64_t(k), &out[0])
	n := C.cb_preemptions()
	return [3]uint64{uint64(out[0]), uint64(out[1]), uint64(n)}
}
