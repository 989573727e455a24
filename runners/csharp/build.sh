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
TMP="$OUT/registry.json.tmp"
(cd "$ROOT" && python3 -c 'import json, cipherbench.registry as r; print(json.dumps([p.as_dict() for p in r.load()]))') > "$TMP"
if cmp -s "$TMP" "$OUT/registry.json"; then rm "$TMP"; else mv "$TMP" "$OUT/registry.json"; fi
