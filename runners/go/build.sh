#!/usr/bin/env bash
# Builds the Go runner into build/runners/go/ (idempotent; go's cache makes a no-change build fast).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/go"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
cd "$HERE"
go build -trimpath -o "$OUT/cipherbench-go" .
