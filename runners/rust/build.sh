#!/usr/bin/env bash
# Builds the Rust runner (one binary: rustcrypto, ring, aws-lc-rs) into
# build/runners/rust/ with the release profile in Cargo.toml. Idempotent; cargo
# makes a no-change build fast. Needs cargo and a C compiler (aws-lc-sys, ring).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT="$ROOT/build/runners/rust"
mkdir -p "$OUT"
# The registry's lengths, expanded by cipherbench/registry.py (standard library only).
(cd "$ROOT" && python3 -m cipherbench.registry --json "$OUT/registry.json")
cd "$HERE"
# cargo and rustc from rustup (Debian 12's Rust, 1.63, is older than the crates Cargo.lock pins
# need): where neither PATH nor ~/.cargo has cargo, as on a fresh machine, rustup-init installs
# the minimal profile of RUST_TOOLCHAIN (the one the developers build with) into ~/.rustup and
# ~/.cargo, as https://rustup.rs says, fetched with python3 (the standard library, which the
# default path installs). rustup checks each component's SHA-256 against the channel's manifest.
RUST_TOOLCHAIN=1.95.0
PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
if ! command -v cargo >/dev/null; then
  # named rustup-init: rustup reads what to be from its own file name
  fetched=$(mktemp -d)
  python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
    "https://static.rust-lang.org/rustup/dist/$(uname -m)-unknown-linux-gnu/rustup-init" "$fetched/rustup-init"
  chmod +x "$fetched/rustup-init"
  "$fetched/rustup-init" -y -q --no-modify-path --profile minimal --default-toolchain "$RUST_TOOLCHAIN"
  rm -rf "$fetched"
fi
# cargo's target folder outside the clone, so a fresh clone compiles only this runner's crate and
# not again its dependencies (ring, aws-lc-rs, RustCrypto: about 3 minutes of CPU). The runner's
# own crate is always built again (cargo clean -p): cargo judges a crate fresh by comparing its
# sources' times with its last build's, and in a folder another clone builds into, that last
# build may be of other sources made after these were written (a clone's runner once came out
# without the changes its sources held). The lock holds from the build to the copy: another
# clone's build of other sources must not replace the binary between them.
TARGET="${XDG_CACHE_HOME:-$HOME/.cache}/cipherbench/cargo-target"
mkdir -p "$TARGET"
(
  flock 9
  CARGO_TARGET_DIR="$TARGET" cargo clean --release --quiet -p cipherbench-rust
  CARGO_TARGET_DIR="$TARGET" cargo build --release --locked
  install -m 755 "$TARGET/release/cipherbench-rust" "$OUT/cipherbench-rust.new"
) 9>"$TARGET/.cipherbench-lock"
mv -f "$OUT/cipherbench-rust.new" "$OUT/cipherbench-rust"
