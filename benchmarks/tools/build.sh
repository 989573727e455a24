#!/usr/bin/env bash
# Builds the library benchmark programs benchmarks/fidelity compares with, from the Debian
# source packages of the libraries the engine adapts, each linked against the SYSTEM
# library (the one the engine's adapter uses), never the source tree's:
#
#   bench-slope          libgcrypt20   tests/bench-slope.c
#   nettle-benchmark     nettle        examples/nettle-benchmark.c (+ timing.c, nettle-internal.c)
#   mbedtls-benchmark    mbedtls       programs/test/benchmark.c
#   wolfcrypt-benchmark  wolfssl       wolfcrypt/benchmark/benchmark.c
#
# and installs the tools that come as Debian packages (the `botan` command). Idempotent:
# asks apt only for what is missing, fetches a source package once, recompiles a tool only
# when its source is newer than the binary. Usage: benchmarks/tools/build.sh [OUTDIR]
# (default build/tools); binaries go to OUTDIR/bin, with OUTDIR/bin/VERSIONS naming the
# source package each was built from and the library it runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=$(realpath -m "${1:-build/tools}")
HERE=$(realpath benchmarks/tools)
SRC="$OUT/src" BIN="$OUT/bin"
mkdir -p "$SRC" "$BIN"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
APT=(-o DPkg::Lock::Timeout=600)

# ---- Debian packages: the tools' libraries (headers), a compiler, dpkg-source, botan
PACKAGES=(botan dpkg-dev gcc libc6-dev libgcrypt20-dev libgpg-error-dev nettle-dev libmbedtls-dev libwolfssl-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
updated=0
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools: installing Debian packages: ${missing[*]}"
  $SUDO apt-get "${APT[@]}" update -q >/dev/null && updated=1
  $SUDO apt-get "${APT[@]}" install -y -q --no-install-recommends "${missing[@]}"
fi

# ---- deb-src: `apt-get source` needs source indexes; add Debian's once, where none is configured
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  echo "tools: enabling Debian source indexes (/etc/apt/sources.list.d/cipherbench-deb-src.sources)"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$codename" "$codename" | $SUDO tee /etc/apt/sources.list.d/cipherbench-deb-src.sources >/dev/null
  $SUDO apt-get "${APT[@]}" update -q >/dev/null && updated=1
fi

# fetch SOURCE-PACKAGE: unpack it under $SRC once; prints the unpacked directory
fetch() {
  local pkg=$1 dir
  dir=$(find "$SRC" -maxdepth 1 -type d -name "$pkg-[0-9]*" | sort | tail -1)
  if [ -z "$dir" ]; then
    if [ $updated -eq 0 ] && ! apt-get source --print-uris -q "$pkg" >/dev/null 2>&1; then
      $SUDO apt-get "${APT[@]}" update -q >/dev/null && updated=1
    fi
    (cd "$SRC" && apt-get source -q "$pkg" >"$pkg.log" 2>&1) \
      || { echo "tools: apt-get source $pkg failed (see $SRC/$pkg.log)" >&2; return 1; }
    dir=$(find "$SRC" -maxdepth 1 -type d -name "$pkg-[0-9]*" | sort | tail -1)
  fi
  echo "$dir"
}

# stale BINARY SOURCES...: true when BINARY is missing or older than any SOURCE or this script
stale() {
  local bin=$1; shift
  [ -x "$bin" ] || return 0
  local f
  for f in "$@" "$HERE/build.sh"; do [ "$f" -nt "$bin" ] && return 0; done
  return 1
}

CC=(nice gcc -O2 -w)
versions=()
version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }
failed=0

# libgcrypt: bench-slope.c wants the source tree's config.h and "../src/gcrypt.h" (generated
# there); the shims give it the system's gcrypt.h and the few config macros it tests.
if d=$(fetch libgcrypt20); then
  src="$d/tests/bench-slope.c"
  if stale "$BIN/bench-slope" "$src"; then
    shim="$OUT/shim/gcrypt"
    mkdir -p "$shim/inc" "$shim/src"
    echo '#include <gcrypt.h>' >"$shim/src/gcrypt.h"
    printf '%s\n' '#define _GCRYPT_CONFIG_H_INCLUDED 1' '#define HAVE_CLOCK_GETTIME 1' \
      '#define HAVE_GCC_ASM_VOLATILE_MEMORY 1' '#define HAVE_FLOCKFILE 1' '#include <stdint.h>' \
      'typedef uint64_t u64;' >"$shim/inc/config.h"
    "${CC[@]}" -DHAVE_CONFIG_H -I "$shim/inc" -o "$BIN/bench-slope" "$src" -lgcrypt -lgpg-error || failed=1
  fi
  versions+=("bench-slope $(basename "$d") libgcrypt20 $(version_of libgcrypt20)")
else failed=1; fi

# Nettle: the system headers first (-I /usr/include/nettle), the tree only for its internal
# headers; nettle-internal.c gives the benchmark its extra meta objects (cbc_aes128, ...).
if d=$(fetch nettle); then
  srcs=("$d/examples/nettle-benchmark.c" "$d/examples/timing.c" "$d/nettle-internal.c")
  if stale "$BIN/nettle-benchmark" "${srcs[@]}"; then
    shim="$OUT/shim/nettle"
    mkdir -p "$shim"
    printf '%s\n' '#define HAVE_CLOCK_GETTIME 1' '#define WITH_OPENSSL 0' \
      '#define NORETURN __attribute__ ((__noreturn__))' \
      '#define PRINTF_STYLE(f, a) __attribute__ ((__format__ (__printf__, f, a)))' \
      '#define UNUSED __attribute__ ((__unused__))' >"$shim/config.h"
    "${CC[@]}" -DHAVE_CONFIG_H -I "$shim" -I /usr/include/nettle -I "$d" -o "$BIN/nettle-benchmark" \
      "${srcs[@]}" -lnettle -lm || failed=1
  fi
  versions+=("nettle-benchmark $(basename "$d") libnettle8 $(version_of libnettle8)")
else failed=1; fi

# mbedTLS 2.28: benchmark.c builds as is against the installed headers.
if d=$(fetch mbedtls); then
  src="$d/programs/test/benchmark.c"
  if stale "$BIN/mbedtls-benchmark" "$src"; then
    "${CC[@]}" -o "$BIN/mbedtls-benchmark" "$src" -lmbedtls -lmbedx509 -lmbedcrypto || failed=1
  fi
  versions+=("mbedtls-benchmark $(basename "$d") libmbedcrypto7 $(version_of libmbedcrypto7)")
else failed=1; fi

# wolfCrypt: the system's wolfssl/options.h (no config.h); benchmark.h from the tree.
if d=$(fetch wolfssl); then
  src="$d/wolfcrypt/benchmark/benchmark.c"
  if stale "$BIN/wolfcrypt-benchmark" "$src"; then
    "${CC[@]}" -I "$d" -o "$BIN/wolfcrypt-benchmark" "$src" -lwolfssl -lm -lpthread || failed=1
  fi
  versions+=("wolfcrypt-benchmark $(basename "$d") libwolfssl35 $(version_of libwolfssl35)")
else failed=1; fi

printf '%s\n' "${versions[@]}" >"$BIN/VERSIONS"
[ $failed -eq 0 ] || { echo "tools: some tools could not be built (above); fidelity reports them as missing" >&2; exit 1; }
