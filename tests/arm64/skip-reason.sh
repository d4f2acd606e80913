#!/bin/sh
# Whether `make test-arm64` must be skipped here: prints why and exits 0
# when TINYSTORE_SKIP_ARM64=1 is set or when qemu-user cannot run an arm64
# program on this machine (a static one, built on the spot with
# aarch64-linux-gnu-gcc); exits 1, printing nothing, when it can run.
set -u
if [ "${TINYSTORE_SKIP_ARM64:-}" = 1 ]; then
  echo "TINYSTORE_SKIP_ARM64=1 is set"
  exit 0
fi
for tool in qemu-aarch64-static aarch64-linux-gnu-gcc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "no $tool on this machine (make deps installs it)"; exit 0; }
done
probe=$(mktemp -d "${TMPDIR:-/tmp}/tinystore-arm64-probe.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf 'int main(void) { return 42; }\n' >"$probe/probe.c"
aarch64-linux-gnu-gcc -static -o "$probe/probe" "$probe/probe.c" 2>"$probe/err" ||
  { echo "aarch64-linux-gnu-gcc cannot build a static program: $(cat "$probe/err")"; exit 0; }
qemu-aarch64-static "$probe/probe" 2>"$probe/err"
status=$?
[ "$status" = 42 ] || { echo "qemu-aarch64-static cannot run an arm64 program here (exit $status: $(cat "$probe/err"))"; exit 0; }
exit 1
