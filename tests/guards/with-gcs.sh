#!/usr/bin/env bash
# Runs a command with fake-gcs-server (a Google Cloud Storage emulator: the
# JSON API, and of the XML API the reads; objects in memory) on a free
# loopback port, with an empty bucket `tinystore`, its address in
# $TINYSTORE_GCS_URL and $STORAGE_EMULATOR_HOST (http://127.0.0.1:PORT; no
# credentials are checked) and $GOOGLE_CLOUD_PROJECT set to a test value;
# then stops it and exits with the command's status. FAKE_GCS_SERVER names
# the program (default: the one on the PATH; `make gcs-deps` builds it).
#
#   with-gcs.sh pytest tests/test_guard_versioned.py
set -uo pipefail
server=${FAKE_GCS_SERVER:-fake-gcs-server}
command -v "$server" >/dev/null || { echo "with-gcs.sh: $server not found (make gcs-deps)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp /tmp/tinystore-gcs.XXXXXX)
# -public-host: the host whose path-style requests (/BUCKET/OBJECT, the XML
# API's reads) the server answers, storage.googleapis.com unless told;
# -external-url: the address written into a resumable upload's Location,
# for the client to follow.
"$server" -scheme http -host 127.0.0.1 -port "$port" -backend memory -log-level warn \
  -public-host "127.0.0.1:$port" -external-url "http://127.0.0.1:$port" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 300); do
  if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/_internal/healthcheck')" 2>/dev/null; then break; fi
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
python3 -c "
import json, urllib.request
urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:$port/storage/v1/b?project=tinystore-test',
    data=json.dumps({'name': 'tinystore'}).encode(), headers={'Content-Type': 'application/json'}))
" || { echo "with-gcs.sh: could not create the bucket tinystore" >&2; cat "$log" >&2; exit 1; }
export TINYSTORE_GCS_URL=http://127.0.0.1:$port STORAGE_EMULATOR_HOST=http://127.0.0.1:$port \
  GOOGLE_CLOUD_PROJECT=${GOOGLE_CLOUD_PROJECT:-tinystore-test}
"$@"
