#!/usr/bin/env bash
# Runs a command with moto's S3-compatible server on a free loopback port,
# its address in $TINYSTORE_S3_URL (http://127.0.0.1:PORT; any access key
# and secret are accepted, region us-east-1), then stops it; exits with the
# command's status. MOTO_SERVER names the moto_server program (default: the
# one on the PATH).
#
#   with-s3.sh pytest tests/test_guard_s3.py
set -uo pipefail
server=${MOTO_SERVER:-moto_server}
command -v "$server" >/dev/null || { echo "with-s3.sh: $server not found (pip install 'moto[server]')" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp /tmp/tinystore-moto.XXXXXX)
"$server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 300); do
  if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/moto-api/')" 2>/dev/null; then break; fi
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
export TINYSTORE_S3_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-test} \
  AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-test} AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1} \
  AWS_REGION=${AWS_REGION:-us-east-1}
"$@"
