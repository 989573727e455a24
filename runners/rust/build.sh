#!/usr/bin/env bash
# Builds the Rust runner (one binary: rustcrypto, ring, aws-lc-rs) into
# build/runners/rust/ with the release profile in Cargo.toml. Idempotent; cargo
# makes a no-change build fast. Needs cargo and a C compiler (aws-lc-sys, ring).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="${CB_RUNNER_OUT:-$ROOT/build/runners/rust}"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
cd "$HERE"
# cargo and rustc: the machine's own (rustup's, in ~/.cargo/bin where PATH lacks it) where it has
# one, else Debian 12's cargo-web and rustc-web (1.96, bookworm-security; the manifest lists them,
# so make installs them): Debian 12's cargo and rustc (1.63) are older than the crates Cargo.lock
# pins need. cargo fetches those crates from crates.io.
PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
command -v cargo >/dev/null || { echo "runners/rust: no cargo (scripts/install-system-deps --runners installs Debian's cargo-web)" >&2; exit 1; }
# cargo's target folder outside the clone, so a fresh clone compiles only this runner's crate and
# not again its dependencies (ring, aws-lc-rs, RustCrypto: about 3 minutes of CPU). The runner's
# own crate, when it is built, is built again from nothing (cargo clean -p): cargo judges a crate
# fresh by comparing its sources' times with its last build's, and in a folder another clone
# builds into, that last build may be of other sources made after these were written (a clone's
# runner once came out without the changes its sources held); on the host, a binary built before
# from the same content is taken instead (below). The lock holds from the build to the copy:
# another clone's build of other sources must not replace the binary between them.
TARGET="${XDG_CACHE_HOME:-$HOME/.cache}/cipherbench/cargo-target"
if [ -n "${CB_RUST_TARGET:-}" ]; then
  # For another CPU (cipherbench/arch/runtimes.py, which sets these): cargo --target
  # CB_RUST_TARGET with CB_CARGO and RUSTC (Debian's), that target's standard library under
  # CB_RUST_SYSROOT (lib/rustlib/TARGET: Debian's libstd-rust-web-dev of that architecture, the
  # same Rust release as the rustc), linked and its C parts (ring, aws-lc-sys) compiled by the cross
  # compilers CB_CROSS_PREFIX-gcc; a target folder of its own, beside the host's.
  T=$CB_RUST_TARGET
  U=$(printf '%s' "$T" | tr 'a-z-' 'A-Z_')
  L=$(printf '%s' "$T" | tr '-' '_')
  export "CARGO_TARGET_${U}_LINKER=$CB_CROSS_PREFIX-gcc" "CARGO_TARGET_${U}_RUSTFLAGS=--sysroot $CB_RUST_SYSROOT"
  export "CC_${L}=$CB_CROSS_PREFIX-gcc" "CXX_${L}=$CB_CROSS_PREFIX-g++" "AR_${L}=$CB_CROSS_PREFIX-ar"
  TARGET="$TARGET-cross"
  mkdir -p "$TARGET"
  (
    flock 9
    CARGO_TARGET_DIR="$TARGET" "$CB_CARGO" clean --release --quiet --target "$T" -p cipherbench-rust
    CARGO_TARGET_DIR="$TARGET" "$CB_CARGO" build --release --locked --target "$T"
    install -m 755 "$TARGET/$T/release/cipherbench-rust" "$OUT/cipherbench-rust"
  ) 9>"$TARGET/.cipherbench-lock"
  exit 0
fi
mkdir -p "$TARGET/by-content"
# The binary kept by the content it is built from (what cipherbench-rust.d lists: Cargo.lock,
# build.rs, src/; and Cargo.toml's profile and features, this script's cargo command, the
# toolchain and the variables cargo and the C parts read): a clone whose crate is the same
# takes it without compiling (about a minute of CPU, thin LTO in one codegen unit, every make);
# one whose crate differs builds it, as before, and keeps it by its own key. Keys not used for
# two days are removed when a new one is kept.
KEY=$({ cargo --version; rustc -vV; { env | grep -E '^(RUSTFLAGS|RUSTC|RUSTDOCFLAGS|CARGO_[A-Z_]+|CC|CXX|CFLAGS|CXXFLAGS|AR)=' || true; } | sort
        sha256sum Cargo.toml Cargo.lock build.rs build.sh; find src -type f -print0 | sort -z | xargs -0 sha256sum
      } | sha256sum | cut -c1-32)
KEPT="$TARGET/by-content/$KEY"
(
  flock 9
  if [ ! -x "$KEPT" ]; then
    CARGO_TARGET_DIR="$TARGET" cargo clean --release --quiet -p cipherbench-rust
    CARGO_TARGET_DIR="$TARGET" cargo build --release --locked
    install -m 755 "$TARGET/release/cipherbench-rust" "$KEPT.new"
    mv -f "$KEPT.new" "$KEPT"
    find "$TARGET/by-content" -type f ! -name "$KEY" -atime +2 -delete
  else
    echo "runners/rust: the binary of these sources and this toolchain, kept by content ($KEY)"
    touch -a "$KEPT"
  fi
  install -m 755 "$KEPT" "$OUT/cipherbench-rust.new"
) 9>"$TARGET/.cipherbench-lock"
mv -f "$OUT/cipherbench-rust.new" "$OUT/cipherbench-rust"
