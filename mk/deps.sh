#!/bin/sh
# Installs from Debian, in one apt-get run, each package whose command is
# missing. Each argument is COMMAND:PACKAGE (the command tells whether the
# package is there: a Go, Node or PostgreSQL installed another way counts).
#
#   sh mk/deps.sh etcd:etcd-server initdb:postgresql
set -eu

missing=
for pair in "$@"; do
  command=${pair%%:*}
  package=${pair#*:}
  case $command in
    # PostgreSQL's server programs live off the PATH, in a versioned folder.
    initdb) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 && continue ;;
    # python3-venv brings no command of its own: the venv module needs ensurepip.
    ensurepip) python3 -c 'import ensurepip' 2>/dev/null && continue ;;
    *) command -v "$command" >/dev/null 2>&1 && continue ;;
  esac
  missing="$missing $package"
done

if [ -z "$missing" ]; then
  exit 0
fi
echo "installing from Debian:$missing" >&2
apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
