#!/usr/bin/env bash
# Builds the Rust runner (one binary: rustcrypto, ring, aws-lc-rs) into
# build/runners/rust/ with the release profile in Cargo.toml. Idempotent; cargo
# makes a no-change build fast. Needs cargo and a C compiler (aws-lc-sys, ring).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/rust"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
cd "$HERE"
CARGO_TARGET_DIR="$OUT/target" cargo build --release --locked
install -m 755 "$OUT/target/release/cipherbench-rust" "$OUT/cipherbench-rust.new"
mv -f "$OUT/cipherbench-rust.new" "$OUT/cipherbench-rust"
