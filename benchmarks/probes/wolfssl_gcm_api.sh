#!/bin/sh
# Builds and runs wolfssl_gcm_api.c against the system's wolfSSL, pinned to one CPU:
# one-shot against streaming AES-128-GCM at 16 KiB (benchmarks/fidelity, note "gcmapi").
#
#   benchmarks/probes/wolfssl_gcm_api.sh [rounds] [cpu]
set -e
rounds=${1:-3}
cpu=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -o "$work/probe" "$here/wolfssl_gcm_api.c" -lwolfssl \
    || { echo "wolfssl_gcm_api: cannot build (install libwolfssl-dev)" >&2; exit 1; }
taskset -c "$cpu" "$work/probe" "$rounds"
