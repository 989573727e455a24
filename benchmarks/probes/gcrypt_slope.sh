#!/bin/sh
# Builds gcrypt_slope.c against the system's libgcrypt and runs it pinned to one CPU:
# AES-128-CTR timed by bench-slope's method (reset + encrypt each call: the counter starts
# at zero), with the counter set each call to a last byte of 0 and of 200, and running on
# as in cipherbench's bulk stream; then bench-slope itself, when `make tools` built it
# (benchmarks/fidelity, notes "ctrzero" and "ctrstream").
#
#   benchmarks/probes/gcrypt_slope.sh [rounds] [cpu]
set -e
rounds=${1:-3}
cpu=${2:-1}
. "$(dirname "$0")/probe.sh"
cc -O2 -Wall -Wextra -o "$work/probe" "$here/gcrypt_slope.c" -lgcrypt \
    || { echo "gcrypt_slope: cannot build (install libgcrypt20-dev)" >&2; exit 1; }
for how in "RESET=1" "CTRLOW=0" "CTRLOW=200" "STREAM=1"; do
    echo "== counter: $how"
    run_pinned "$cpu" env "$how" "$work/probe" ctr "$rounds" 256
done
tool="$here/../../build/tools/bin/bench-slope"
if [ -x "$tool" ]; then
    echo "== bench-slope, $rounds starts, its second pass as fidelity reads it (MiB/s)"
    i=0
    while [ "$i" -lt "$rounds" ]; do
        run_pinned "$cpu" "$tool" --csv cipher aes aes | grep "CTR enc" | tail -n 1
        i=$((i + 1))
    done
fi
