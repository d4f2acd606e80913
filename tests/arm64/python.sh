#!/bin/sh
# The arm64 wheel in an arm64 Python, under qemu-user:
# tests/arm64/python.sh [DIST] checks the wheel's name (abi3, manylinux2014
# aarch64), its size, that its native module is arm64 and needs no glibc
# symbol newer than 2.17; then, with no cargo, rustc or protoc on the PATH,
# makes a venv with Debian's arm64 Python (TINYSTORE_ARM64_ROOT, made by
# mk/arm64-sysroot.sh), installs the wheel with pip run by that Python, and
# plays the page's scene across two processes (tests/dist/worker.py) through
# the packaged `tinystore serve`, every Python process an arm64 one.
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/../dist/common.sh"
. "$here/qemu.sh"

check_wheel "$dist" aarch64 aarch64-linux-gnu-objdump
is_arm64 "$so"
cp "$here/../dist/worker.py" "$work/"

python=$root/usr/bin/python3
is_arm64 "$python"
pip=$(ls "$root"/usr/share/python-wheels/pip-*.whl | head -n 1)
cd "$work"
isolate qemu-aarch64-static
# No binfmt here: venv's own pip bootstrap would start an arm64 process
# directly, so the venv comes without pip and pip runs from its wheel.
"$arm64" "$python" -m venv --without-pip "$work/venv"
"$arm64" "$work/venv/bin/python" "$pip/pip" install -q --disable-pip-version-check --no-index --no-deps "$wheel"
machine=$("$arm64" "$work/venv/bin/python" -c 'import platform; print(platform.machine(), platform.python_version())')
[ "${machine%% *}" = aarch64 ] || fail "the venv's Python runs on ${machine%% *}, not aarch64"
echo "installed into a new venv of Python ${machine#* } on aarch64, by its pip"

"$arm64" "$work/venv/bin/python" "$work/venv/bin/tinystore" --help >"$work/help.txt" || fail "tinystore --help exited with $?"
grep -q "serve" "$work/help.txt" || fail "tinystore --help names no serve: $(cat "$work/help.txt")"
echo "venv/bin/tinystore --help: $(head -n 1 "$work/help.txt")"

serve "$arm64" "$work/venv/bin/python" "$work/venv/bin/tinystore"
scene "$arm64" "$work/venv/bin/python" "$work/worker.py" "$work"
stop_server
echo "arm64 python: the aarch64 wheel works in an arm64 Python under qemu"
