#!/bin/sh
# Builds the probe used for benchmarks/README.md's 16 B analysis (two translation
# units at -O2, like the engine, so the adapter-shape calls stay virtual).
set -e
out=${1:-/tmp/cb-openssl-loops}
here=$(dirname "$0")
g++ -O2 -std=c++17 -o "$out" "$here/main.cpp" "$here/shape.cpp" -lcrypto
echo "$out"
