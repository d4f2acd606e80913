#!/usr/bin/env bash
# The Go module from dist/ installed as a user installs it, outside the
# checkout, with a PATH that has Go and a C compiler but no cargo, rustc or
# protoc:
#
#   tests/dist/go.sh [DIST] [ARCH]  DIST: the folder `make dist` wrote (dist);
#                                   ARCH: amd64 (by default) or arm64
#
# It copies DIST/goproxy to a temp folder and serves it as the module proxy
# (GOPROXY=file://...), makes a new module with a fresh module cache, runs
# `go get tinystore.dev/go@VERSION`, builds tinystore.dev/go/cmd/tinystore
# and checks its --help, and plays the scene across processes through that
# packaged `tinystore serve`: worker A holds chat 42 with a short TTL and is stopped
# (SIGSTOP) past it; worker B holds it with a larger fence and saves into a
# file that keeps the largest fence it accepted; A resumes, saves, and is
# refused. Each step is checked; it prints what it measured. Then (amd64)
# it runs the Go recipes of docs/testing.md (tests/recipes/go.sh) in a
# module of their own that requires the packaged tinystore.dev/go@VERSION
# from that proxy (the SQLite driver from the usual GOPROXY): the test kit,
# package tinystoretest, as a user gets it.
#
# With ARCH arm64 (`make test-arm64`) every program is built with
# GOARCH=arm64 (cgo through aarch64-linux-gnu-gcc, linking the module's
# build/linux-arm64 library) and run under qemu-user, with the arm64 root
# TINYSTORE_ARM64_ROOT (mk/arm64-sysroot.sh) as its /.
set -euo pipefail

dist=$(cd "${1:-dist}" && pwd)
arch=${2:-amd64}
root=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "go.sh: $*"; }
fail() {
	echo "go.sh: FAIL: $*" >&2
	exit 1
}

[[ -d $dist/goproxy ]] || fail "$dist/goproxy is missing: run make dist-go"
module=tinystore.dev/go
version=$(head -1 "$dist/goproxy/$module/@v/list")
zip=$dist/goproxy/$module/@v/$version.zip
say "module $module@$version ($arch), zip $(du -h "$zip" | cut -f1), library $(du -h "$dist/go/build/linux-$arch/libtinystore_capi.a" | cut -f1)"

gocache=$(go env GOCACHE)
work=$(mktemp -d)
server_pgid=
cleanup() {
	[[ -n $server_pgid ]] && kill -KILL -- "-$server_pgid" 2>/dev/null || true
	[[ -n ${a_pid:-} ]] && kill -KILL "$a_pid" 2>/dev/null || true
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

cp -r "$dist/goproxy" "$work/proxy"

# A PATH with Go, a C toolchain and the shell's tools only.
mkdir "$work/bin"
for tool in go gofmt gcc cc ld as ar sh bash env cat grep sed head tail sort tr cut mkdir rm cp mv ls ln \
	chmod touch sleep kill mkfifo setsid seq date dirname basename uname wc printf pkg-config \
	file aarch64-linux-gnu-gcc qemu-aarch64-static mktemp; do
	path=$(command -v "$tool" 2>/dev/null) && [[ $path == /* ]] && ln -s "$path" "$work/bin/$tool"
done
# The interpreter itself, not a version manager's shim (a pyenv shim is a
# script that needs the tools this PATH leaves out, and fails silently):
# tests/recipes/extract.py runs on it.
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$work/bin/python3"
export PATH=$work/bin
# run PROGRAM ARGS...: runs a program built here (under qemu for arm64; a
# script that execs qemu, so that $! is the program's pid).
run=()
case $arch in
amd64) ;;
arm64)
	root=${TINYSTORE_ARM64_ROOT:?TINYSTORE_ARM64_ROOT names the arm64 root (make test-arm64 sets it)}
	command -v aarch64-linux-gnu-gcc >/dev/null || fail "no aarch64-linux-gnu-gcc (make deps installs it)"
	command -v qemu-aarch64-static >/dev/null || fail "no qemu-aarch64-static (make deps installs it)"
	printf '#!/bin/sh\nexec "%s" -L "%s" "$@"\n' "$(command -v qemu-aarch64-static)" "$root" >"$work/bin/arm64"
	chmod +x "$work/bin/arm64"
	run=("$work/bin/arm64")
	export GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc
	;;
*) fail "ARCH is amd64 or arm64, not $arch" ;;
esac
for absent in cargo rustc protoc; do
	if command -v "$absent" >/dev/null; then fail "$absent is on the test PATH"; fi
done

# The proxy the recipes' SQLite driver comes from, besides the packaged one.
upstream_proxy=$(go env GOPROXY)
export GOPROXY=file://$work/proxy GOSUMDB=off GOFLAGS=-modcacherw GOTOOLCHAIN=local
export GOMODCACHE=$work/modcache GOPATH=$work/gopath GOCACHE=$gocache
mkdir "$work/app"
cd "$work/app"
go mod init example.com/scene >/dev/null 2>&1

SECONDS=0
go get "$module@$version" || fail "go get $module@$version"
say "go get: ${SECONDS}s"

SECONDS=0
go build -o tinystore "$module/cmd/tinystore" || fail "go build $module/cmd/tinystore"
file tinystore | grep -q "$([[ $arch == arm64 ]] && echo 'ARM aarch64' || echo 'x86-64')" ||
	fail "go build made no $arch program: $(file tinystore)"
help=$("${run[@]}" ./tinystore --help) || fail "tinystore --help"
for command in serve hold status backup restore demo; do
	grep -q "^  $command " <<<"$help" || fail "tinystore --help does not list $command: $help"
done
say "go build .../cmd/tinystore ($arch) and --help: ${SECONDS}s"

# The worker: holds chat 42 and saves into FILE, which keeps the largest
# fence it accepted (40 digits) and refuses a save with a smaller one.
cat >main.go <<'GO'
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// save writes fence to file unless the file holds a larger one.
func save(file, fence string) (bool, string, error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false, "", err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, "", err
	}
	kept := strings.Repeat("0", 40)
	if b, _ := os.ReadFile(file); len(b) > 0 {
		kept = strings.TrimSpace(string(b))
	}
	if fence <= kept {
		return false, kept, nil
	}
	if err := f.Truncate(0); err != nil {
		return false, "", err
	}
	_, err = f.WriteAt([]byte(fence+"\n"), 0)
	return err == nil, kept, err
}

func main() {
	name, dir, file := os.Args[1], os.Args[2], os.Args[3]
	store, err := tinystore.Open(dir) // the directory is served: this connects
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	defer store.Close()
	opts := []locks.Option{locks.Wait(30 * time.Second)}
	if name == "A" {
		opts = append(opts, locks.TTL(time.Second))
	}
	lease, err := store.Locks("summaries", opts...).Acquire(context.Background(), 42)
	if err != nil {
		fmt.Println("acquire:", err)
		os.Exit(1)
	}
	fence := fmt.Sprintf("%040s", lease.Fence)
	fmt.Println(name, "holds", fence)
	if name == "A" { // a long pause: the test stops this process here, then says go
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	saved, kept, err := save(file, fence)
	switch {
	case err != nil:
		fmt.Println("save:", err)
		os.Exit(1)
	case saved:
		fmt.Println(name, "saved", fence)
	default:
		fmt.Println(name, "refused", fence, "<=", kept)
		os.Exit(3)
	}
}
GO
SECONDS=0
go build -o worker . || fail "go build of a program using $module"
say "go build of the worker: ${SECONDS}s"

store=$work/data
summary=$work/summary.txt
SECONDS=0
setsid "${run[@]}" ./tinystore serve "$store" 2>"$work/serve.log" &
server_pgid=$!
for _ in $(seq 1 600); do
	grep -q "serving" "$work/serve.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "serving" "$work/serve.log" || fail "tinystore serve did not start: $(cat "$work/serve.log")"
say "tinystore serve ($arch): serving after ${SECONDS}s"

# A holds, then pauses for longer than its TTL (stopped).
mkfifo "$work/a.in"
"${run[@]}" ./worker A "$store" "$summary" <"$work/a.in" >"$work/a.out" &
a_pid=$!
exec 3>"$work/a.in"
for _ in $(seq 1 300); do
	grep -q "A holds" "$work/a.out" && break
	sleep 0.1
done
fence_a=$(sed -n 's/^A holds //p' "$work/a.out")
[[ ${#fence_a} == 40 ]] || fail "worker A did not hold: $(cat "$work/a.out")"
kill -STOP "$a_pid"
say "1. A holds chat 42 with fence $fence_a (ttl 1s) and is stopped"

# B holds once A's lease ran out, and saves.
out_b=$("${run[@]}" ./worker B "$store" "$summary") || fail "worker B: $out_b"
fence_b=$(sed -n 's/^B holds //p' <<<"$out_b")
grep -q "^B saved $fence_b$" <<<"$out_b" || fail "worker B did not save: $out_b"
[[ $fence_a < $fence_b ]] || fail "B's fence $fence_b is not larger than A's $fence_a"
say "2. B holds chat 42 with fence $fence_b and saves"

# A wakes and saves too: refused.
kill -CONT "$a_pid"
echo go >&3
exec 3>&-
status=0
wait "$a_pid" || status=$?
a_pid=
grep -q "^A refused $fence_a <= $fence_b$" "$work/a.out" || fail "A's late save was not refused: $(cat "$work/a.out")"
[[ $status == 3 ]] || fail "worker A exited $status"
[[ $(cat "$summary") == "$fence_b" ]] || fail "the file keeps $(cat "$summary"), not B's $fence_b"
say "3. A wakes, saves with $fence_a, and is refused: the file keeps $fence_b"

# The server stops cleanly on SIGTERM.
kill -TERM -- "-$server_pgid"
for _ in $(seq 1 100); do
	grep -q "stopped cleanly" "$work/serve.log" && break
	sleep 0.1
done
grep -q "stopped cleanly" "$work/serve.log" || fail "tinystore serve did not stop cleanly: $(cat "$work/serve.log")"
server_pgid=
say "the scene played: 3 steps checked; tinystore serve stopped cleanly"

if [[ $arch != amd64 ]]; then
	say "the recipes of docs/testing.md run on amd64 only"
	echo "go.sh: 1 passed, 0 failed"
	exit 0
fi
# The test kit's recipes, as the page shows them, on the packaged module.
SECONDS=0
GOPROXY=file://$work/proxy,$upstream_proxy bash "$root/tests/recipes/go.sh" "$root/docs/testing.md" "@$version" ||
	fail "the Go recipes of docs/testing.md on $module@$version"
say "the Go recipes of docs/testing.md pass on $module@$version: ${SECONDS}s"
echo "go.sh: 2 passed, 0 failed"
