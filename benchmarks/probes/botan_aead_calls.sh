#!/bin/sh
# Builds and runs botan_aead_calls.cpp against the system's Botan 2, pinned to one CPU:
# the cost of each call around a 16-byte AES-128-GCM message (benchmarks/README.md).
#
#   benchmarks/probes/botan_aead_calls.sh [rounds] [cpu]
set -e
rounds=${1:-3}
. "$(dirname "$0")/probe.sh"
c++ -O2 -std=c++17 -Wall -Wextra $(pkg-config --cflags botan-2) -o "$work/probe" "$here/botan_aead_calls.cpp" \
    $(pkg-config --libs botan-2) || { echo "botan_aead_calls: cannot build (install libbotan-2-dev)" >&2; exit 1; }
run_pinned "${2:-1}" "$work/probe" "$rounds"
