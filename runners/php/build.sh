#!/bin/sh
# Builds the PHP runner: checks the extensions, writes the expanded registry (the runner's
# table of lengths) and compiles the probe (engine/src/probe.c) under build/runners/php.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/php"
mkdir -p "$OUT"
for ext in openssl mcrypt sodium hash json ctype; do
    php -r "exit(extension_loaded('$ext') ? 0 : 1);" || { echo "build.sh: PHP extension $ext is missing (see manifest.toml)" >&2; exit 1; }
done
php -l "$HERE/runner.php" >/dev/null
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
# The probe around timed batches: the engine's own engine/src/probe.c, loaded by runner.php
# through FFI. Not fatal: without it the runner ignores the bench field probe.
PROBE_C="$ROOT/engine/src/probe.c"
if [ ! -f "$OUT/libcb_probe.so" ] || [ "$PROBE_C" -nt "$OUT/libcb_probe.so" ]; then
    cc -O2 -shared -fPIC -o "$OUT/libcb_probe.so" "$PROBE_C" ||
        echo "php runner: engine/src/probe.c not built (no C compiler?); the bench field probe will be ignored" >&2
fi
