#!/usr/bin/env bash
# Runs a command with a throwaway redis-server (Debian's) on a free loopback
# port, no persistence, its address in $TINYSTORE_REDIS_URL
# (redis://127.0.0.1:PORT/), and $TINYSTORE_REDIS_SERVER naming the program
# (for tests that start a server of their own); then stops it and exits with
# the command's status.
#
#   with-redis.sh cargo test -p tinystore --features guard-redis --test integration guard::redis
set -uo pipefail
server=${REDIS_SERVER:-redis-server}
command -v "$server" >/dev/null || { echo "with-redis.sh: $server not found (apt-get install redis-server)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp /tmp/tinystore-redis.XXXXXX)
"$server" --bind 127.0.0.1 --port "$port" --save '' --appendonly no >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 300); do
  if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; then break; fi
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
export TINYSTORE_REDIS_URL=redis://127.0.0.1:$port/ TINYSTORE_REDIS_SERVER=$(command -v "$server")
"$@"
