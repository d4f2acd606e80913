#!/usr/bin/env bash
# Runs a command with a throwaway MariaDB (mariadb.sh) whose address is in
# $TINYSTORE_MYSQL_URL, then stops it and removes its files; exits with the
# command's status.
#
#   with-mariadb.sh cargo test --features guard-mysql
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/tinystore-mariadb.XXXXXX)
trap 'bash "$here/mariadb.sh" stop "$dir"; rm -rf "$dir"' EXIT
bash "$here/mariadb.sh" start "$dir" || exit 1
TINYSTORE_MYSQL_URL=$(cat "$dir/url") "$@"
