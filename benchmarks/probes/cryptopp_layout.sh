#!/bin/sh
# Does where the linker puts Crypto++'s code decide its speed? Builds the cryptest-loop
# probe (cryptopp_loop.cpp) against Debian's static libcrypto++.a four times, each with
# 0, 16, 32 or 48 bytes of padding linked in before the archive, so the same archive code
# lands at four places within a 64-byte line; prints where its AES-NI block loop
# (Rijndael_Enc_AdvancedProcessBlocks_AESNI) starts in each, then runs them in turn,
# pinned, `rounds` times. Used for the fidelity benchmark's "layout" note
# (benchmarks/README.md).
#
#   benchmarks/probes/cryptopp_layout.sh [rounds] [cpu]
set -e
rounds=${1:-2}
cpu=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archive=$(ls /usr/lib/*/libcrypto++.a 2>/dev/null | head -1)
[ -n "$archive" ] || { echo "cryptopp_layout: no libcrypto++.a (install libcrypto++-dev)" >&2; exit 1; }
for pad in 0 16 32 48; do
    printf '.section .note.GNU-stack,"",@progbits\n.text\npad_fn:\n' > "$work/pad$pad.s"
    [ "$pad" -eq 0 ] || printf '.skip %d, 0x90\n' "$pad" >> "$work/pad$pad.s"
    as "$work/pad$pad.s" -o "$work/pad$pad.o"
    g++ -O2 -std=c++17 "$here/cryptopp_loop.cpp" "$work/pad$pad.o" "$archive" -o "$work/loop$pad"
    addr=$(nm -C "$work/loop$pad" | awk '/ CryptoPP::Rijndael_Enc_AdvancedProcessBlocks_AESNI\(/ {print $1; exit}')
    echo "padding $pad B: the AES-NI block loop starts $(( 0x$addr % 64 )) bytes into a 64-byte line"
done
for r in $(seq "$rounds"); do
    for pad in 0 16 32 48; do
        echo "round $r, padding $pad B:"
        taskset -c "$cpu" "$work/loop$pad" 20000 50 | sed 's/^/  /'
    done
done
