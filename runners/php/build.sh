#!/bin/sh
# Builds the PHP runner: nothing to compile; checks the extensions and writes
# the expanded registry (the runner's table of lengths) under build/runners/php.
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
