# What tests/dist/*.sh share: a work folder outside the tree, a PATH with no
# Rust toolchain and no protoc, a packaged `tinystore serve` in the
# background, and the page's scene played by two worker processes.
# Sourced with `work` unset; sets `work` and removes it at exit.

set -eu

work=$(mktemp -d "${TMPDIR:-/tmp}/tinystore-dist.XXXXXX")
server_pid=
cleanup() {
  status=$?
  trap - EXIT INT TERM
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  # Leave a worker stopped by the scene no chance to linger.
  for pid in $(jobs -p); do kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT INT TERM

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# isolate TOOL...: from now on PATH is a folder of links to TOOL... (a name
# on the PATH, or NAME=FILE) and the coreutils the scripts use, and nothing
# else; cargo, rustc and protoc must then be missing.
isolate() {
  mkdir -p "$work/bin"
  for tool in "$@" sh env cat cp ls mkdir rm sleep kill touch sort tail head grep sed wc tr dirname basename uname readlink mktemp; do
    case $tool in
      *=*) name=${tool%%=*} found=${tool#*=} ;;
      *) name=$tool found=$(command -v "$tool") || fail "no $tool on this machine" ;;
    esac
    ln -sf "$(readlink -f "$found")" "$work/bin/$name"
  done
  PATH="$work/bin"
  export PATH
  for tool in cargo rustc protoc; do
    if command -v "$tool" >/dev/null 2>&1; then fail "$tool is on the isolated PATH"; fi
  done
  echo "PATH is $PATH: no cargo, rustc or protoc"
}

# wait_for FILE: waits (up to 30 s) until FILE exists.
wait_for() {
  i=0
  while [ ! -e "$1" ]; do
    i=$((i + 1))
    [ "$i" -le 300 ] || fail "$1 did not appear within 30 s"
    sleep 0.1
  done
}

# serve COMMAND...: runs the packaged `tinystore serve $work/data` in the
# background and waits for its socket.
serve() {
  "$@" serve "$work/data" 2>"$work/serve.log" &
  server_pid=$!
  wait_for "$work/data/tinystore.sock"
  echo "serving $work/data with: $* serve (pid $server_pid)"
}

# stop_server: SIGTERM, and it must stop cleanly.
stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid" || fail "tinystore serve exited with $?: $(cat "$work/serve.log")"
  server_pid=
  grep -q "stopped cleanly" "$work/serve.log" || fail "tinystore serve did not stop cleanly: $(cat "$work/serve.log")"
  echo "tinystore serve stopped cleanly on SIGTERM"
}

# newer A B: whether fence text B (40 digits) is larger than fence text A.
newer() {
  [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort | tail -n 1)" = "$2" ]
}

# scene COMMAND...: the page's scene. COMMAND NAME TTL runs one worker: it
# opens $work/data (served), holds key 42 of `summaries` with TTL seconds
# and renew off, writes its fence's 40-digit text to $work/NAME.fence, waits
# for $work/NAME.go, saves its summary to the chats table of $work/chat.db
# with the fenced update, and writes the number of rows changed to
# $work/NAME.rows. COMMAND check prints the row: "SUMMARY FENCE".
scene() {
  "$@" a 1 &
  a_pid=$!
  wait_for "$work/a.fence"
  kill -STOP "$a_pid"
  a_fence=$(cat "$work/a.fence")
  echo "worker A holds chat 42 with fence $a_fence (TTL 1 s, renew off) and is stopped (SIGSTOP)"
  sleep 2
  echo "2 s later, past A's TTL, worker B asks for chat 42"
  touch "$work/b.go"
  "$@" b 30 || fail "worker B failed"
  b_fence=$(cat "$work/b.fence")
  b_rows=$(cat "$work/b.rows")
  newer "$a_fence" "$b_fence" || fail "B's fence $b_fence is not larger than A's $a_fence"
  [ "$b_rows" = 1 ] || fail "B's fenced update changed $b_rows rows, not 1"
  echo "worker B holds chat 42 with fence $b_fence (larger) and saved: $b_rows row"
  kill -CONT "$a_pid"
  touch "$work/a.go"
  wait "$a_pid" || fail "worker A failed"
  a_rows=$(cat "$work/a.rows")
  [ "$a_rows" = 0 ] || fail "A's late save changed $a_rows rows; the fenced update should refuse it"
  echo "worker A resumed; its save with fence $a_fence was refused: $a_rows rows"
  row=$("$@" check)
  [ "$row" = "summary by b $b_fence" ] || fail "chat 42 holds '$row', not B's summary and fence"
  echo "chat.db keeps B's summary and fence: $row"
}

# check_wheel DIST ARCH OBJDUMP: copies DIST's abi3 manylinux2014 wheel for ARCH
# (x86_64 or aarch64) into $work and checks it as auditwheel would: at most
# 8 MB, and a native module whose newest glibc symbol version (read with
# OBJDUMP, the binutils for ARCH) is 2.17 at most. Sets `wheel` (its copy)
# and `so` (its native module, unpacked).
check_wheel() {
  wheel=$(ls "$1"/tinystore-*-cp310-abi3-*manylinux2014_"$2"*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || fail "no abi3 manylinux2014 $2 wheel in $1: $(ls "$1")"
  cp "$wheel" "$work/"
  wheel=$work/$(basename "$wheel")
  size=$(wc -c <"$wheel")
  [ "$size" -le 8000000 ] || fail "the wheel is $size bytes, over 8 MB"
  echo "wheel $(basename "$wheel"): $size bytes"
  python3 -m zipfile -e "$wheel" "$work/unpacked"
  so=$(ls "$work"/unpacked/tinystore/_native*.so)
  newest=$("$3" -T "$so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n | tail -n 1)
  [ -n "$newest" ] || fail "objdump found no glibc symbol in $so"
  [ "$(printf '%s\n2.17\n' "$newest" | sort -t. -k1,1n -k2,2n | tail -n 1)" = 2.17 ] ||
    fail "$so needs glibc $newest, newer than manylinux2014's 2.17"
  echo "its native module needs glibc $newest at most (manylinux2014: 2.17)"
}
