#!/bin/sh
# Builds the C# runner with Mono's mcs into build/runners/csharp (skipped when up to date),
# writes the expanded registry (the runner's table of lengths) next to it, and compiles the
# probe (engine/src/probe.c) into libcb_probe.so there.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/csharp"
mkdir -p "$OUT"
if [ ! -f "$OUT/Runner.exe" ] || [ "$HERE/Runner.cs" -nt "$OUT/Runner.exe" ]; then
    mcs -optimize+ -nologo -r:System.Core.dll -out:"$OUT/Runner.exe" "$HERE/Runner.cs"
fi
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
# The probe around timed batches: the engine's own engine/src/probe.c, loaded by Runner.cs
# through DllImport. Not fatal: without it the runner ignores the bench field probe.
PROBE_C="$ROOT/engine/src/probe.c"
if [ ! -f "$OUT/libcb_probe.so" ] || [ "$PROBE_C" -nt "$OUT/libcb_probe.so" ]; then
    cc -O2 -shared -fPIC -o "$OUT/libcb_probe.so" "$PROBE_C" ||
        echo "csharp runner: engine/src/probe.c not built (no C compiler?); the bench field probe will be ignored" >&2
fi
