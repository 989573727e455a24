#!/bin/sh
# Builds mbedtls_gcm_placement.c against the system's mbedTLS and starts it `starts`
# times, pinned to one CPU, each start with its own randomised address layout:
# AES-128-GCM at 1024 B as the layout moves (benchmarks/fidelity, note "mbedplace").
#
#   benchmarks/probes/mbedtls_gcm_placement.sh [starts] [cpu]
set -e
starts=${1:-20}
. "$(dirname "$0")/probe.sh"
cc -O2 -Wall -Wextra -o "$work/probe" "$here/mbedtls_gcm_placement.c" -lmbedcrypto \
    || { echo "mbedtls_gcm_placement: cannot build (install libmbedtls-dev)" >&2; exit 1; }
i=0
while [ "$i" -lt "$starts" ]; do
    run_pinned "${2:-1}" "$work/probe"
    i=$((i + 1))
done
