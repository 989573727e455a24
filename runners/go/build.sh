#!/usr/bin/env bash
# Builds the Go runner into build/runners/go/ (idempotent; go's cache makes a no-change build fast).
# For another CPU (cipherbench/arch/runtimes.py): CB_GOARCH names Go's GOARCH and CB_RUNNER_OUT
# the folder; the build is then pure Go (cgo off, no probe: nothing emulated is timed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="${CB_RUNNER_OUT:-$ROOT/build/runners/go}"
CROSS="${CB_GOARCH:-}"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
# The probe around timed batches: the engine's own engine/src/probe.c as a static library the
# runner links through cgo (probe_cgo.go, build tag cbprobe). Not fatal: without it the runner
# is built as before (probe_none.go) and ignores the bench field probe.
PROBE_C="$ROOT/engine/src/probe.c"
PROBE_A="$OUT/libcb_probe.a"
if [ -z "$CROSS" ] && { [ ! -f "$PROBE_A" ] || [ "$PROBE_C" -nt "$PROBE_A" ]; }; then
    rm -f "$PROBE_A"
    { cc -O2 -fPIC -c -o "$OUT/probe.o" "$PROBE_C" && ar rcs "$PROBE_A" "$OUT/probe.o"; } ||
        { rm -f "$PROBE_A"; echo "go runner: engine/src/probe.c not built (no C compiler?); the bench field probe will be ignored" >&2; }
    rm -f "$OUT/probe.o"
fi
cd "$HERE"
# The toolchain go.mod's `go` line names: the machine's go where it is that one or newer, else
# that toolchain fetched as Go's own switching (GOTOOLCHAIN, Go 1.21 on) fetches it: the module
# golang.org/toolchain@v0.0.1-goVERSION.GOOS-GOARCH through the module proxy, checked against
# the checksum database, by whatever go there is (Debian 12's golang-go is 1.19, too old to
# switch by itself). The module's zip drops the executable bits; go sets them again on first
# use (cmd/go/internal/toolchain), and so does this.
WANTED=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' go.mod)
command -v go >/dev/null || { echo "runners/go: no go to fetch Go $WANTED with (manifest.toml: golang-go)" >&2; exit 1; }
HAVE=$(go env GOVERSION)
GO=go
if [ "$(printf '%s\n' "$WANTED" "${HAVE#go}" | sort -V | head -1)" != "$WANTED" ]; then
  module="golang.org/toolchain@v0.0.1-go$WANTED.$(go env GOHOSTOS)-$(go env GOHOSTARCH)"
  echo "runners/go: $HAVE is older than go.mod's $WANTED: fetching $module"
  empty=$(mktemp -d)  # outside any go.mod, as go's own switching downloads it
  info=$(cd "$empty" && GO111MODULE=on go mod download -json "$module") ||
    { echo "runners/go: could not fetch $module: $info" >&2; rm -rf "$empty"; exit 1; }
  rm -rf "$empty"
  root=$(printf '%s' "$info" | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
  find "$root/bin" "$root/pkg/tool" -type f -exec chmod a+x {} +
  GO=$root/bin/go
fi
if [ -n "$CROSS" ]; then
    CGO_ENABLED=0 GOARCH="$CROSS" "$GO" build -trimpath -o "$OUT/cipherbench-go" .
elif [ -f "$PROBE_A" ]; then
    # go's cache does not look into C libraries: the library's hash in the link flags makes
    # it link again when the library changed
    CGO_ENABLED=1 CGO_LDFLAGS="$PROBE_A" "$GO" build -trimpath -tags cbprobe \
        -ldflags "-X main.probeObject=$(sha256sum "$PROBE_A" | cut -d' ' -f1)" -o "$OUT/cipherbench-go" . ||
        { echo "go runner: the build with the probe (cgo) failed; built without it, so the bench field probe will be ignored" >&2
          "$GO" build -trimpath -o "$OUT/cipherbench-go" .; }
else
    "$GO" build -trimpath -o "$OUT/cipherbench-go" .
fi
