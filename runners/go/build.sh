#!/usr/bin/env bash
# Builds the Go runner into build/runners/go/ (idempotent; go's cache makes a no-change build fast).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/go"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
# The probe around timed batches: the engine's own engine/src/probe.c as a static library the
# runner links through cgo (probe_cgo.go, build tag cbprobe). Not fatal: without it the runner
# is built as before (probe_none.go) and ignores the bench field probe.
PROBE_C="$ROOT/engine/src/probe.c"
PROBE_A="$OUT/libcb_probe.a"
if [ ! -f "$PROBE_A" ] || [ "$PROBE_C" -nt "$PROBE_A" ]; then
    rm -f "$PROBE_A"
    { cc -O2 -fPIC -c -o "$OUT/probe.o" "$PROBE_C" && ar rcs "$PROBE_A" "$OUT/probe.o"; } ||
        { rm -f "$PROBE_A"; echo "go runner: engine/src/probe.c not built (no C compiler?); the bench field probe will be ignored" >&2; }
    rm -f "$OUT/probe.o"
fi
cd "$HERE"
if [ -f "$PROBE_A" ]; then
    # go's cache does not look into C libraries: the library's hash in the link flags makes
    # it link again when the library changed
    CGO_ENABLED=1 CGO_LDFLAGS="$PROBE_A" go build -trimpath -tags cbprobe \
        -ldflags "-X main.probeObject=$(sha256sum "$PROBE_A" | cut -d' ' -f1)" -o "$OUT/cipherbench-go" . ||
        { echo "go runner: the build with the probe (cgo) failed; built without it, so the bench field probe will be ignored" >&2
          go build -trimpath -o "$OUT/cipherbench-go" .; }
else
    go build -trimpath -o "$OUT/cipherbench-go" .
fi
