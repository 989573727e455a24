#!/usr/bin/env bash
# Builds the Python runner's venv in build/runners/python/venv from requirements.txt
# (idempotent: reinstalls only when requirements.txt changed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/python"
VENV="$OUT/venv"
mkdir -p "$OUT"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! cmp -s "$HERE/requirements.txt" "$OUT/requirements.installed"; then
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: -r "$HERE/requirements.txt"
    cp "$HERE/requirements.txt" "$OUT/requirements.installed"
fi
# The vector-state reset the runner calls before every timed batch (vector_state.c).
if [ ! -f "$OUT/libcb_vector_state.so" ] || [ "$HERE/vector_state.c" -nt "$OUT/libcb_vector_state.so" ]; then
    # Not fatal: without it the runner works and its hello says the reset is missing.
    cc -O2 -shared -fPIC -o "$OUT/libcb_vector_state.so" "$HERE/vector_state.c" ||
        echo "python runner: vector_state.c not built (no C compiler?); batches run without the vector-state reset" >&2
fi
# The probe around timed batches: the engine's own engine/src/probe.c, likewise not fatal.
PROBE_C="$ROOT/engine/src/probe.c"
if [ ! -f "$OUT/libcb_probe.so" ] || [ "$PROBE_C" -nt "$OUT/libcb_probe.so" ]; then
    cc -O2 -shared -fPIC -o "$OUT/libcb_probe.so" "$PROBE_C" ||
        echo "python runner: engine/src/probe.c not built (no C compiler?); the bench field probe will be ignored" >&2
fi
# The stack placement of timed batches: the engine's own engine/src/stack.c, likewise not fatal.
STACK_C="$ROOT/engine/src/stack.c"
if [ ! -f "$OUT/libcb_stack.so" ] || [ "$STACK_C" -nt "$OUT/libcb_stack.so" ]; then
    cc -O2 -shared -fPIC -o "$OUT/libcb_stack.so" "$STACK_C" ||
        echo "python runner: engine/src/stack.c not built (no C compiler?); stack_offset will be ignored" >&2
fi
