#!/bin/sh
# Builds null_call.cpp with the engine's null adapter, as the engine builds it (C++17, -O2),
# and runs it pinned to one CPU: the null implementation's per-call cost at 16 B against
# the same loop over an empty update() and over a libc memcpy (benchmarks/fidelity,
# "null per-call overhead").
#
#   benchmarks/probes/null_call.sh [cpu]
set -e
. "$(dirname "$0")/probe.sh"
engine="$here/../../engine"
g++ -O2 -std=c++17 -Wall -Wextra -I "$engine/include" -o "$work/probe" "$here/null_call.cpp" \
    "$here/null_call_empty.cpp" "$engine/adapters/null/adapter.cpp"
run_pinned "${1:-1}" "$work/probe"
