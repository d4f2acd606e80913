#!/usr/bin/env bash
# The Go module from dist/ installed as a user installs it, outside the
# checkout, with a PATH that has Go and a C compiler but no cargo, rustc or
# protoc:
#
#   tests/dist/go.sh [DIST]        DIST: the folder `make dist` wrote (dist)
#
# It copies DIST/goproxy to a temp folder and serves it as the module proxy
# (GOPROXY=file://...), makes a new module with a fresh module cache, runs
# `go get tinystore.dev/go@VERSION`, checks `go run tinystore.dev/go/cmd/tinystore
# --help`, and plays the scene across processes through the packaged
# `tinystore serve`: worker A holds chat 42 with a short TTL and is stopped
# (SIGSTOP) past it; worker B holds it with a larger fence and saves into a
# file that keeps the largest fence it accepted; A resumes, saves, and is
# refused. Each step is checked; it prints what it measured.
set -euo pipefail

dist=$(cd "${1:-dist}" && pwd)
say() { echo "go.sh: $*"; }
fail() {
	echo "go.sh: FAIL: $*" >&2
	exit 1
}

[[ -d $dist/goproxy ]] || fail "$dist/goproxy is missing: run make dist-go"
module=tinystore.dev/go
version=$(head -1 "$dist/goproxy/$module/@v/list")
zip=$dist/goproxy/$module/@v/$version.zip
say "module $module@$version, zip $(du -h "$zip" | cut -f1), library $(du -h "$dist/go/build/linux-amd64/libtinystore_capi.a" | cut -f1)"

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
	chmod touch sleep kill mkfifo setsid seq date dirname basename uname wc printf pkg-config; do
	path=$(command -v "$tool" 2>/dev/null) && [[ $path == /* ]] && ln -s "$path" "$work/bin/$tool"
done
export PATH=$work/bin
for absent in cargo rustc protoc; do
	if command -v "$absent" >/dev/null; then fail "$absent is on the test PATH"; fi
done

export GOPROXY=file://$work/proxy GOSUMDB=off GOFLAGS=-modcacherw GOTOOLCHAIN=local
export GOMODCACHE=$work/modcache GOPATH=$work/gopath GOCACHE=$gocache
mkdir "$work/app"
cd "$work/app"
go mod init example.com/scene >/dev/null 2>&1

SECONDS=0
go get "$module@$version" || fail "go get $module@$version"
say "go get: ${SECONDS}s"

SECONDS=0
help=$(go run "$module/cmd/tinystore" --help) || fail "go run $module/cmd/tinystore --help"
for command in serve hold status backup restore demo; do
	grep -q "^  $command " <<<"$help" || fail "tinystore --help does not list $command: $help"
done
say "go run .../cmd/tinystore --help: ${SECONDS}s"

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
setsid go run "$module/cmd/tinystore" serve "$store" 2>"$work/serve.log" &
server_pgid=$!
for _ in $(seq 1 600); do
	grep -q "serving" "$work/serve.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "serving" "$work/serve.log" || fail "tinystore serve did not start: $(cat "$work/serve.log")"
say "go run .../cmd/tinystore serve: serving after ${SECONDS}s"

# A holds, then pauses for longer than its TTL (stopped).
mkfifo "$work/a.in"
./worker A "$store" "$summary" <"$work/a.in" >"$work/a.out" &
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
out_b=$(./worker B "$store" "$summary") || fail "worker B: $out_b"
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
echo "go.sh: 1 passed, 0 failed"
