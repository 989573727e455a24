#!/bin/sh
# Builds and runs wolfssl_gcm_api.c against the system's wolfSSL, pinned to one CPU:
# one-shot against streaming AES-128-GCM at 16 KiB (benchmarks/fidelity, note "gcmapi").
#
#   benchmarks/probes/wolfssl_gcm_api.sh [rounds] [cpu]
set -e
rounds=${1:-3}
. "$(dirname "$0")/probe.sh"
cc -O2 -Wall -Wextra -o "$work/probe" "$here/wolfssl_gcm_api.c" -lwolfssl \
    || { echo "wolfssl_gcm_api: cannot build (install libwolfssl-dev)" >&2; exit 1; }
run_pinned "${2:-1}" "$work/probe" "$rounds"
