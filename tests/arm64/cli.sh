#!/bin/sh
# The static arm64 command line under qemu-user: tests/arm64/cli.sh [DIST]
# runs `tinystore demo` with DIST/tinystore-VERSION-aarch64-unknown-linux-musl
# (static: qemu runs it with no arm64 root), then plays the scene with its
# `serve` and `hold`: worker A is `tinystore hold DATA summaries 42 --ttl 1s`
# around a shell that writes the fence and waits; the hold process (the one
# that renews) is stopped (SIGSTOP) past the TTL; worker B's hold gets a
# larger fence and its fenced UPDATE of chat.db changes the row; A's shell
# then saves with its old fence and changes nothing; resumed, A's hold
# finds its lease lost and exits 76. Run by `make test-arm64`.
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/../dist/common.sh"

cli=$(ls "$dist"/tinystore-*-aarch64-unknown-linux-musl 2>/dev/null | head -n 1)
[ -n "$cli" ] || fail "no tinystore-VERSION-aarch64-unknown-linux-musl in $dist: $(ls "$dist")"
cp "$cli" "$work/tinystore"
qemu=$(command -v qemu-aarch64-static) || fail "no qemu-aarch64-static on this machine (make deps installs it)"
cd "$work"
isolate qemu-aarch64-static sqlite3 mv
version=$("$qemu" "$work/tinystore" --version 2>&1) || fail "the arm64 tinystore --version failed: $version"
echo "qemu-aarch64-static tinystore --version: $version"

"$qemu" "$work/tinystore" demo >"$work/demo.txt" 2>&1 || fail "tinystore demo under qemu exited with $?: $(cat "$work/demo.txt")"
grep -q "the guard accepts it" "$work/demo.txt" || fail "the demo's guard did not accept B's save: $(cat "$work/demo.txt")"
grep -q "The guard refuses it (stale)" "$work/demo.txt" || fail "the demo's guard did not refuse A's late save: $(cat "$work/demo.txt")"
echo "tinystore demo under qemu: B's save accepted, A's late save refused"

sqlite3 "$work/chat.db" "create table chats (id integer primary key, summary text, summary_fence text not null default '');
  insert into chats (id) values (42);"
# The command each hold runs: NAME is $1; the fence comes from hold.
cat >"$work/save.sh" <<'SH'
name=$1 work=$2
printf '%s' "$TINYSTORE_FENCE_TEXT" >"$work/$name.fence.tmp" && mv "$work/$name.fence.tmp" "$work/$name.fence"
while [ ! -e "$work/$name.go" ]; do sleep 0.05; done
rows=$(sqlite3 -cmd '.timeout 10000' "$work/chat.db" "update chats set summary = 'summary by $name', summary_fence = '$TINYSTORE_FENCE_TEXT'
  where id = 42 and summary_fence < '$TINYSTORE_FENCE_TEXT'; select changes();")
printf '%s' "$rows" >"$work/$name.rows.tmp" && mv "$work/$name.rows.tmp" "$work/$name.rows"
SH

serve "$qemu" "$work/tinystore"
"$qemu" "$work/tinystore" hold "$work/data" summaries 42 --ttl 1s -- sh "$work/save.sh" a "$work" &
a_pid=$!
wait_for "$work/a.fence"
kill -STOP "$a_pid"
a_fence=$(cat "$work/a.fence")
echo "worker A (tinystore hold) holds chat 42 with fence $a_fence (TTL 1 s) and is stopped (SIGSTOP)"
sleep 2
touch "$work/b.go"
"$qemu" "$work/tinystore" hold "$work/data" summaries 42 --ttl 30s --wait 30s -- sh "$work/save.sh" b "$work" ||
  fail "worker B's hold exited with $?"
b_fence=$(cat "$work/b.fence")
newer "$a_fence" "$b_fence" || fail "B's fence $b_fence is not larger than A's $a_fence"
[ "$(cat "$work/b.rows")" = 1 ] || fail "B's fenced update changed $(cat "$work/b.rows") rows, not 1"
echo "2 s later, worker B holds chat 42 with fence $b_fence (larger) and saved: 1 row"
# A's command, whose hold is still stopped, saves late: refused.
touch "$work/a.go"
wait_for "$work/a.rows"
[ "$(cat "$work/a.rows")" = 0 ] || fail "A's late save changed $(cat "$work/a.rows") rows; the fenced update should refuse it"
echo "worker A's command saves with fence $a_fence: refused, 0 rows"
kill -CONT "$a_pid"
status=0
wait "$a_pid" || status=$?
[ "$status" = 76 ] || fail "A's hold exited with $status, not 76 (lease lost)"
echo "worker A's hold resumed, found its lease lost and exited 76"
row=$(sqlite3 "$work/chat.db" "select summary || ' ' || summary_fence from chats where id = 42")
[ "$row" = "summary by b $b_fence" ] || fail "chat 42 holds '$row', not B's summary and fence"
echo "chat.db keeps B's summary and fence: $row"
stop_server
echo "arm64 cli: the static arm64 tinystore plays the demo and the scene under qemu"
