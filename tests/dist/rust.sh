#!/bin/sh
# The crate as a user's project gets it: tests/dist/rust.sh [DIST] unpacks
# DIST/tinystore-VERSION.crate (what `cargo package` wrote, as crates.io
# would serve it) in a folder outside the tree and runs docs/testing.md's
# Rust recipes against it (tests/recipes/rust.sh), so the test kit
# (`tinystore::testing`) and the SQLite guard work from the packaged crate.
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/common.sh"

crate=$(ls "$dist"/tinystore-*.crate 2>/dev/null | head -n 1)
[ -n "$crate" ] || fail "no tinystore-*.crate in $dist (make dist-crate)"
tar -xzf "$crate" -C "$work"
unpacked=$(ls -d "$work"/tinystore-*/ | head -n 1)
[ -f "$unpacked/src/testing/mod.rs" ] || fail "$crate holds no src/testing/mod.rs"
echo "unpacked $(basename "$crate") into $unpacked"
sh "$here/../recipes/rust.sh" "$here/../../docs/testing.md" "$unpacked"
echo "rust: the crate works outside the tree"
