#!/bin/sh
# The Windows command (x86_64-pc-windows-gnu) run under wine: what is built
# for Windows works, and what is not fails with `invalid` naming the system.
#
#   tests/platforms/windows.sh WINDOWS_TINYSTORE_EXE LINUX_TINYSTORE
#
# Works there: `demo` (an embedded store: its LOCK taken with LockFileEx,
# kv.db, fences, the guard refusing the late write), `status` and `backup`
# of a store nobody serves (made here by the Linux command), and `backup`
# refusing the store's own kv.db. Fails there with `invalid`: `serve` (no
# local socket yet), before it makes the store, and `hold` (no job object
# yet), before it acquires anything. WINEPREFIX may name a wine prefix to
# reuse (it is made at the first run).
set -eu

exe=$(realpath "$1")
linux=$(realpath "$2")
export WINEDEBUG=-all
export WINEPREFIX="${WINEPREFIX:-$(mktemp -d)/wine}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
  echo "windows.sh: $*" >&2
  exit 1
}

# Runs the Windows command; its stdout and stderr in out and err, its exit
# status in rc.
win() {
  rc=0
  wine "$exe" "$@" >out 2>err || rc=$?
}

expect_rc() {
  [ "$rc" = "$1" ] || { cat out err >&2; fail "$2: exit status $rc, wanted $1"; }
}

expect_line() {
  grep -q -- "$1" "$2" || { cat out err >&2; fail "$3: no line with \"$1\" in its $2"; }
}

[ "$(head -c 2 "$exe")" = "MZ" ] || fail "$exe is not a Windows program"

win demo
expect_rc 0 demo
expect_line 'The guard refuses it (stale)' out demo
expect_line 'chat.db keeps: summary = "summary by B"' out demo

# A store made and stopped cleanly by the Linux command.
"$linux" serve store 2>serve.log &
served=$!
until grep -q 'serving' serve.log; do
  kill -0 "$served" 2>/dev/null || { cat serve.log >&2; fail "the Linux serve ended"; }
  sleep 0.05
done
kill -TERM "$served"
wait "$served"

win status store
expect_rc 0 status
expect_line 'is not served' out status
expect_line 'closed   cleanly' out status

win backup store copy.db
expect_rc 0 backup
[ "$(head -c 15 copy.db)" = "SQLite format 3" ] || fail "backup: copy.db is not an SQLite file"

win backup store store/kv.db
expect_rc 1 "backup onto kv.db"
expect_line "invalid: cannot back up to .*: it is the store's own" err "backup onto kv.db"

win serve fresh
[ "$rc" != 0 ] || fail "serve: exit status 0 on windows"
expect_line 'invalid: unix sockets are not supported on windows' err serve
[ ! -e fresh ] || fail "serve: made the store fresh before refusing"

win hold store jobs 42 -- cmd /c exit 0
expect_rc 70 hold
expect_line 'invalid: running a command under `tinystore hold` is not supported on windows' err hold

win status store
expect_line 'closed   cleanly' out "status after hold"

echo "windows.sh: demo, status and backup work on windows; serve and hold fail with invalid, naming it"
