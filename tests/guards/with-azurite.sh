#!/usr/bin/env bash
# Runs a command with Azurite's Blob service (the Azure Storage emulator,
# blobs in memory, no telemetry) on a free loopback port, with an empty
# container `tinystore` in its well-known development account
# devstoreaccount1; its address in $TINYSTORE_AZURE_URL
# (http://127.0.0.1:PORT/devstoreaccount1), a connection string for it in
# $TINYSTORE_AZURE_CONNECTION_STRING, the account and its key in
# $TINYSTORE_AZURE_ACCOUNT and $TINYSTORE_AZURE_KEY, a SAS query string for
# the container that may only read in $TINYSTORE_AZURE_READ_SAS; then stops
# it and exits with the command's status. AZURITE_BLOB names the
# azurite-blob program (default: the one on the PATH; `make azurite-deps`
# installs it).
#
#   with-azurite.sh pytest tests/test_guard_versioned.py
set -uo pipefail
server=${AZURITE_BLOB:-azurite-blob}
command -v "$server" >/dev/null || { echo "with-azurite.sh: $server not found (make azurite-deps)" >&2; exit 1; }
# Its path from the folder it runs in (below).
server=$(command -v "$server") && [[ $server == /* ]] || server=$PWD/$server
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp /tmp/tinystore-azurite.XXXXXX)
# Run in a folder of its own, removed with the rest, should it write
# anything into its working directory (3.35 writes nothing there with
# --inMemoryPersistence, which rules out --location).
dir=$(mktemp -d /tmp/tinystore-azurite.XXXXXX)
# --skipApiVersionCheck: the SDKs send API versions newer than the
# emulator knows (azure-storage-blob 12.31 sends 2026-10-06, which 3.35
# refuses without it). No --loose: a header it does not support fails the
# request instead of being ignored.
(cd "$dir" && exec "$server" --blobHost 127.0.0.1 --blobPort "$port" --inMemoryPersistence \
  --silent --skipApiVersionCheck --disableTelemetry) >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$log" "$dir"' EXIT
for _ in $(seq 1 300); do
  if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; then break; fi
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
account=devstoreaccount1
# Azurite's published development key (the same in every installation).
key=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==
url=http://127.0.0.1:$port/$account
# The container, made with a Shared Key request (Create Container) signed here.
python3 - "$url" "$account" "$key" <<'EOF' || { echo "with-azurite.sh: could not create the container tinystore" >&2; cat "$log" >&2; exit 1; }
import base64, email.utils, hashlib, hmac, sys, urllib.request
url, account, key = sys.argv[1:]
headers = {"x-ms-date": email.utils.formatdate(usegmt=True), "x-ms-version": "2021-12-02"}
signed = "PUT\n" + "\n" * 11 + "".join(f"{k}:{v}\n" for k, v in sorted(headers.items())) \
    + f"/{account}/{account}/tinystore\nrestype:container"
mac = hmac.new(base64.b64decode(key), signed.encode(), hashlib.sha256).digest()
headers["Authorization"] = f"SharedKey {account}:{base64.b64encode(mac).decode()}"
urllib.request.urlopen(urllib.request.Request(f"{url}/tinystore?restype=container", method="PUT", headers=headers))
EOF
# A container SAS that may only read (sp=r), for the guards' tests of a
# caller without write permission: Azurite enforces a SAS's permissions.
sas=$(python3 - "$account" "$key" <<'EOF'
import base64, hashlib, hmac, sys, urllib.parse
account, key = sys.argv[1:]
version, expiry = "2021-12-02", "2099-01-01T00:00:00Z"
# A service SAS's string to sign (version 2020-12-06 and later).
fields = ["r", "", expiry, f"/blob/{account}/tinystore", "", "", "", version, "c", "", "", "", "", "", "", ""]
mac = hmac.new(base64.b64decode(key), "\n".join(fields).encode(), hashlib.sha256).digest()
print(urllib.parse.urlencode({"sv": version, "se": expiry, "sr": "c", "sp": "r", "sig": base64.b64encode(mac).decode()}))
EOF
) || { echo "with-azurite.sh: could not sign the read-only SAS" >&2; exit 1; }
export TINYSTORE_AZURE_READ_SAS=$sas
export TINYSTORE_AZURE_URL=$url TINYSTORE_AZURE_ACCOUNT=$account TINYSTORE_AZURE_KEY=$key \
  TINYSTORE_AZURE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=$account;AccountKey=$key;BlobEndpoint=$url;"
"$@"
