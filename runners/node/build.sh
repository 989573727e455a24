#!/usr/bin/env bash
# The Node runner needs no packages (node:crypto and WebCrypto are built in): this
# writes build/runners/node/registry.json, the registry's lengths expanded by
# cipherbench/registry.py, and compiles the probe's addon cb_probe.node. Idempotent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/node"
mkdir -p "$OUT"
command -v node >/dev/null || { echo "runners/node: node is not installed" >&2; exit 1; }
# The probe around timed batches: the engine's own engine/src/probe.c behind an N-API addon
# (probe_napi.c), compiled with gcc alone (no node-gyp: N-API's functions come from the node
# process that loads it, and the file declares the few it uses: no node_api.h is needed) and
# rebuilt when one of them is newer. Not fatal: without it (no C compiler) the runner ignores
# the bench field probe.
ADDON="$OUT/cb_probe.node"
if [ ! -f "$ADDON" ] || [ -n "$(find "$HERE/probe_napi.c" "$ROOT/engine/src/probe.c" "$ROOT/engine/src/probe.h" \
        -newer "$ADDON" -print -quit)" ]; then
    gcc -O2 -shared -fPIC -Wall -Wextra -Werror -I"$ROOT/engine/src" -o "$ADDON" \
        "$HERE/probe_napi.c" "$ROOT/engine/src/probe.c" ||
        echo "node runner: probe_napi.c not built (no C compiler?); the bench field probe will be ignored" >&2
fi
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
