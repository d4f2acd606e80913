#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL (postgres.sh) whose address is
# in $TINYSTORE_PG_URL, then stops it and removes its files; exits with the
# command's status.
#
#   with-postgres.sh cargo test --features guard-postgres
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/tinystore-pg.XXXXXX)
trap 'bash "$here/postgres.sh" stop "$dir"; rm -rf "$dir"' EXIT
bash "$here/postgres.sh" start "$dir" || exit 1
TINYSTORE_PG_URL=$(cat "$dir/url") "$@"
