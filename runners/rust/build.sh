#!/usr/bin/env bash
# Builds the Rust runner (one binary: rustcrypto, ring, aws-lc-rs) into
# build/runners/rust/ with the release profile in Cargo.toml. Idempotent; cargo
# makes a no-change build fast. Needs cargo and a C compiler (aws-lc-sys, ring).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/rust"
mkdir -p "$OUT"
python3 - "$ROOT" "$OUT/registry.json" <<'PY'
import json, sys, pathlib
sys.path.insert(0, sys.argv[1])
from cipherbench.registry import load
text = json.dumps([p.as_dict() for p in load()], indent=0) + "\n"
out = pathlib.Path(sys.argv[2])
if not out.exists() or out.read_text() != text:
    out.write_text(text)
PY
cd "$HERE"
CARGO_TARGET_DIR="$OUT/target" cargo build --release --locked
install -m 755 "$OUT/target/release/cipherbench-rust" "$OUT/cipherbench-rust.new"
mv -f "$OUT/cipherbench-rust.new" "$OUT/cipherbench-rust"
