#!/usr/bin/env bash
# The Node runner needs no packages (node:crypto and WebCrypto are built in): this
# only writes build/runners/node/registry.json, the registry's lengths expanded by
# cipherbench/registry.py. Idempotent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/node"
mkdir -p "$OUT"
command -v node >/dev/null || { echo "runners/node: node is not installed" >&2; exit 1; }
python3 - "$ROOT" "$OUT/registry.json" <<'PY'
import json, sys, pathlib
sys.path.insert(0, sys.argv[1])
from cipherbench.registry import load
text = json.dumps([p.as_dict() for p in load()], indent=0) + "\n"
out = pathlib.Path(sys.argv[2])
if not out.exists() or out.read_text() != text:
    out.write_text(text)
PY
