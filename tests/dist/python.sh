#!/bin/sh
# The Python wheel as a user installs it: tests/dist/python.sh [DIST]
# checks the wheel's name (abi3, manylinux2014 x86_64), its size and that its
# native module needs no glibc symbol newer than 2.17; then, in a folder
# outside the tree with no cargo, rustc or protoc on the PATH, installs it
# into a new venv, runs the console script `tinystore --help`, and plays the
# page's scene across two processes through the packaged `tinystore serve`.
# Then the test kit from the wheel: pytest (from PyPI) into that venv, and
# docs/testing.md's Python recipes run with it (tests/recipes/python.sh).
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/common.sh"

check_wheel "$dist" x86_64 objdump
cp "$here/worker.py" "$work/"

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

"$work/venv/bin/pip" install -q --disable-pip-version-check pytest
echo "into the venv, from PyPI: $("$work/venv/bin/python" -m pytest --version 2>&1)"
sh "$here/../recipes/python.sh" "$here/../../docs/testing.md" "$work/venv/bin/python" ||
  fail "docs/testing.md's Python recipes fail with the installed wheel"
echo "python: the wheel works outside the tree"
