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
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
