#!/usr/bin/env bash
# Builds the Go runner into build/runners/go/ (idempotent; go's cache makes a no-change build fast).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/go"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
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
go build -trimpath -o "$OUT/cipherbench-go" .
