#!/bin/sh
# The Python wheel as a user installs it: tests/dist/python.sh [DIST]
# checks the wheel's name (abi3, manylinux2014 x86_64), its size and that its
# native module needs no glibc symbol newer than 2.17; then, in a folder
# outside the tree with no cargo, rustc or protoc on the PATH, installs it
# into a new venv, runs the console script `tinystore --help`, and plays the
# page's scene across two processes through the packaged `tinystore serve`.
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/common.sh"

wheel=$(ls "$dist"/tinystore-*-cp310-abi3-*manylinux2014_x86_64*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || fail "no abi3 manylinux2014 x86_64 wheel in $dist: $(ls "$dist")"
cp "$wheel" "$here/worker.py" "$work/"
wheel=$work/$(basename "$wheel")
size=$(wc -c <"$wheel")
[ "$size" -le 8000000 ] || fail "the wheel is $size bytes, over 8 MB"
echo "wheel $(basename "$wheel"): $size bytes"

# Like auditwheel: the extension's newest glibc symbol version is 2.17 at most.
python3 -m zipfile -e "$wheel" "$work/unpacked"
so=$(ls "$work"/unpacked/tinystore/_native*.so)
newest=$(objdump -T "$so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n | tail -n 1)
[ -n "$newest" ] || fail "objdump found no glibc symbol in $so"
[ "$(printf '%s\n2.17\n' "$newest" | sort -t. -k1,1n -k2,2n | tail -n 1)" = 2.17 ] ||
  fail "$so needs glibc $newest, newer than manylinux2014's 2.17"
echo "its native module needs glibc $newest at most (manylinux2014: 2.17)"

python=$(python3 -c 'import sys; print(sys.executable)')
cd "$work"
isolate python3="$python"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --no-index "$wheel"
echo "installed into a new venv: $("$work/venv/bin/pip" list --disable-pip-version-check 2>/dev/null | grep '^tinystore ')"

"$work/venv/bin/tinystore" --help >"$work/help.txt" || fail "tinystore --help exited with $?"
grep -q "serve" "$work/help.txt" || fail "tinystore --help names no serve: $(cat "$work/help.txt")"
echo "venv/bin/tinystore --help: $(head -n 1 "$work/help.txt")"

serve "$work/venv/bin/tinystore"
scene "$work/venv/bin/python" "$work/worker.py" "$work"
stop_server
echo "python: the wheel works outside the tree"
