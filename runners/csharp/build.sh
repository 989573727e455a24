#!/bin/sh
# Builds the C# runner with Mono's mcs into build/runners/csharp (skipped when up to date)
# and writes the expanded registry (the runner's table of lengths) next to it.
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
