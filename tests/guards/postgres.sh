#!/usr/bin/env bash
# A throwaway PostgreSQL for the guard tests: a cluster in DIR, owned by the
# system user `tinystore-pg` (PostgreSQL refuses to run as root), listening
# on a free loopback port with trust authentication, its socket in DIR.
#
#   postgres.sh start DIR   # writes DIR/url: postgresql://tinystore@127.0.0.1:PORT/tinystore
#   postgres.sh stop DIR
#
# Installs Debian's postgresql when initdb is missing.
set -euo pipefail

cmd=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}
user=tinystore-pg

bin_dir() {
  local initdb
  initdb=$(command -v initdb || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$initdb" ]; then
    apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2
    initdb=$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)
  fi
  dirname "$(readlink -f "$initdb")"
}

as_user() {
  if [ "$(id -u)" = 0 ]; then
    su -s /bin/sh "$user" -c "$*"
  else
    sh -c "$*"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

case "$cmd" in
start)
  bin=$(bin_dir)
  if [ "$(id -u)" = 0 ] && ! id "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  fi
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown "$user" "$dir" && chmod 755 "$dir"
  # A temp dir's parents must let the user in.
  as_user "$bin/initdb -D $dir/data -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >$dir/initdb.log 2>&1" ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  port=$(free_port)
  as_user "$bin/pg_ctl -D $dir/data -l $dir/server.log -w -t 30 -o \"-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200\" start >/dev/null" ||
    { cat "$dir/server.log" >&2; exit 1; }
  as_user "$bin/psql -h 127.0.0.1 -p $port -U postgres -d postgres -qc 'create role tinystore login superuser' -c 'create database tinystore owner tinystore'" >/dev/null
  echo "$bin" >"$dir/bin"
  echo "postgresql://tinystore@127.0.0.1:$port/tinystore" >"$dir/url"
  ;;
stop)
  [ -f "$dir/bin" ] || exit 0
  as_user "$(cat "$dir/bin")/pg_ctl -D $dir/data -m immediate -w stop >/dev/null" || true
  ;;
*)
  echo "usage: postgres.sh start|stop DIR" >&2; exit 2
  ;;
esac
