#!/usr/bin/env bash
# The Rust versions the README and Cargo.toml declare really build what they say: the
# workspace's `rust-version` the engine and the Python bindings, 1.88 every test and
# benchmark target. Type-checking is enough (no code generation), in a target directory of
# its own so the main build's cache stays warm.
set -euo pipefail
cd "$(dirname "$0")/.."
declared=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
tests=1.88
if ! command -v rustup >/dev/null; then
    echo "check-msrv: rustup is needed to install Rust $declared and $tests" >&2
    exit 1
fi
for version in "$declared" "$tests"; do
    rustup toolchain install "$version" --profile minimal --no-self-update >/dev/null
done
export CARGO_TARGET_DIR=target/msrv
cargo +"$declared" check --locked -p dcsim -p dcsim-py
cargo +"$tests" check --locked --workspace --all-targets
echo "check-msrv: Rust $declared builds the engine and bindings, Rust $tests the tests"
