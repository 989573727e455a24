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
# The probe around timed batches: the engine's own engine/src/probe.c behind a JNI shim
# (probe_jni.c), rebuilt when either is newer. Not fatal: without it the runner ignores the
# bench field probe (Probe.java).
PROBE_SO="$OUT/libcb_probe_jni.so"
if [ ! -f "$PROBE_SO" ] || [ -n "$(find "$HERE/probe_jni.c" "$ROOT/engine/src/probe.c" "$ROOT/engine/src/probe.h" \
        -newer "$PROBE_SO" -print -quit)" ]; then
    # the JDK's jni.h, under the home of the javac on the PATH
    JDK=$(readlink -f "$(command -v javac)" 2>/dev/null || true)
    JDK=${JDK%/bin/javac}
    cc -O2 -shared -fPIC -I"$JDK/include" -I"$JDK/include/linux" -I"$ROOT/engine/src" -o "$PROBE_SO" \
        "$HERE/probe_jni.c" "$ROOT/engine/src/probe.c" ||
        echo "java runner: probe_jni.c not built (no C compiler or JDK headers?); the bench field probe will be ignored" >&2
fi
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
