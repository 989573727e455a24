#!/bin/sh
# Builds the Java runner with Maven into build/runners/java (compiled classes and the
# dependency classpath, written once), skipped when nothing changed, and writes the
# expanded registry (the runner's table of lengths) next to it.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/java"
mkdir -p "$OUT"
STAMP="$OUT/.built"
if [ ! -f "$STAMP" ] || [ ! -f "$OUT/classpath.txt" ] || \
   [ -n "$(find "$HERE/pom.xml" "$HERE/src" -newer "$STAMP" -print -quit)" ]; then
    mvn -q -B -Dstyle.color=never -f "$HERE/pom.xml" -Dcb.build.dir="$OUT" \
        compile dependency:build-classpath -Dmdep.outputFile="$OUT/classpath.txt"
    touch "$STAMP"
fi
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
