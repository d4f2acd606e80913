# What tests/arm64/*.sh share, sourced after tests/dist/common.sh:
# "$arm64 PROGRAM ARGS..." runs an arm64 program under qemu-user with the
# arm64 root (mk/arm64-sysroot.sh, named by TINYSTORE_ARM64_ROOT) as its /;
# `is_arm64 FILE` fails unless FILE is an AArch64 ELF file. This machine
# needs no binfmt registration, so a program that an arm64 program starts
# runs natively: every arm64 program of a test is started through $arm64.
# $arm64 is a script that execs qemu, so that a test's $! is qemu's pid and
# SIGSTOP, SIGCONT and SIGTERM reach the arm64 program.

root=${TINYSTORE_ARM64_ROOT:?TINYSTORE_ARM64_ROOT names the arm64 root (make test-arm64 sets it)}
[ -f "$root/.complete" ] || fail "$root is no finished arm64 root: run make arm64-root"
qemu=$(command -v qemu-aarch64-static) || fail "no qemu-aarch64-static on this machine (make deps installs it)"
arm64=$work/arm64
printf '#!/bin/sh\nexec "%s" -L "%s" "$@"\n' "$qemu" "$root" >"$arm64"
chmod +x "$arm64"

is_arm64() {
  file -L "$1" | grep -q 'ELF 64-bit LSB .*ARM aarch64' || fail "$1 is not an arm64 ELF file: $(file -L "$1")"
}
