#!/bin/sh
# Runs the Rust recipes of a page as a user's crate would: rust.sh PAGE
# [TINYSTORE_DIR]. Extracts them (extract.py) into a new crate `reports` in
# a folder outside the tree, depending on tinystore at TINYSTORE_DIR (the
# tree's core/ by default) with the feature guard-sqlite, on rusqlite and
# tokio, and runs `cargo test` there. The tree's Cargo.lock pins the same
# versions; its target folder (CARGO_TARGET_DIR) is shared.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
page=$1
core=$(cd "${2:-$root/core}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tinystore-recipes-rust.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

python3 "$here/extract.py" "$page" rust "$work" >/dev/null
cat >"$work/Cargo.toml" <<TOML
[package]
name = "reports"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
tinystore = { path = "$core", features = ["guard-sqlite"] }
rusqlite = { version = "0.32", features = ["bundled"] }

[dev-dependencies]
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
tempfile = "3"

[workspace]
TOML
cp "$root/Cargo.lock" "$work/Cargo.lock"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cd "$work"
cargo test -q 2>&1
echo "rust: the recipes of $page pass"
