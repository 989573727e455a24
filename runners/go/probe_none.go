//go:build !cbprobe || !cgo

// Without the probe (no C compiler when build.sh ran, or a build without its tag, as the
// release builds of cipherbench/releases make): the bench field probe is ignored.
package main

const probeLoaded = false

func probeReading(uint64) [3]uint64 { panic("the probe is not built into this runner") }
