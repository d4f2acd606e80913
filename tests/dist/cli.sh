#!/bin/sh
# The static command lines as a user downloads them: tests/dist/cli.sh [DIST]
# checks that DIST/tinystore-VERSION-x86_64-unknown-linux-musl and
# -aarch64-unknown-linux-musl are static executables for their CPU (`file`
# says "statically linked", `ldd` finds no library to load), at most 20 MB;
# then, with no cargo, rustc or protoc on the PATH, runs `tinystore demo`
# with the x86_64 one. (tests/arm64/cli.sh runs the arm64 one under qemu.)
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/common.sh"

for triple in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
  cli=$(ls "$dist"/tinystore-*-"$triple" 2>/dev/null | head -n 1)
  [ -n "$cli" ] || fail "no tinystore-VERSION-$triple in $dist: $(ls "$dist")"
  case $triple in
    x86_64*) machine='x86-64' ;;
    aarch64*) machine='ARM aarch64' ;;
  esac
  kind=$(file -L "$cli")
  case $kind in
    *"ELF 64-bit LSB"*"$machine"*"statically linked"*) ;;
    *) fail "$cli is not a static $machine executable: $kind" ;;
  esac
  if ldd "$cli" >"$work/ldd.txt" 2>&1; then
    fail "ldd finds libraries for $cli to load: $(cat "$work/ldd.txt")"
  fi
  size=$(wc -c <"$cli")
  [ "$size" -le 20000000 ] || fail "$cli is $size bytes, over 20 MB"
  echo "$(basename "$cli"): $size bytes, $machine, statically linked ($(tr -d '\t' <"$work/ldd.txt"))"
done

cp "$dist"/tinystore-*-x86_64-unknown-linux-musl "$work/tinystore"
cd "$work"
isolate
./tinystore demo >"$work/demo.txt" 2>&1 || fail "tinystore demo exited with $?: $(cat "$work/demo.txt")"
cat "$work/demo.txt"
grep -q "the guard accepts it" "$work/demo.txt" || fail "the demo's guard did not accept B's save"
grep -q "The guard refuses it (stale)" "$work/demo.txt" || fail "the demo's guard did not refuse A's late save"
echo "cli: the static x86_64 tinystore runs the demo"
