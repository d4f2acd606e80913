#!/usr/bin/env bash
# A throwaway MariaDB for the guard tests: a data directory in DIR, owned by
# the system user `tinystore-mysql` (mariadbd refuses to run as root),
# listening on a free loopback port, its socket in DIR; a user `tinystore`
# without a password that may do anything, and a database `tinystore`.
#
#   mariadb.sh start DIR   # writes DIR/url: mysql://tinystore@127.0.0.1:PORT/tinystore
#   mariadb.sh stop DIR
#
# Installs Debian's mariadb-server when mariadbd is missing.
set -euo pipefail

cmd=${1:?usage: mariadb.sh start|stop DIR}
dir=${2:?usage: mariadb.sh start|stop DIR}
user=tinystore-mysql
server=/usr/sbin/mariadbd

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
  if [ ! -x "$server" ]; then
    apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y mariadb-server >&2
  fi
  if [ "$(id -u)" = 0 ] && ! id "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  fi
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown "$user" "$dir" && chmod 755 "$dir"
  as_user "mariadb-install-db --no-defaults --datadir=$dir/data --auth-root-authentication-method=normal \
    --skip-test-db >$dir/install.log 2>&1" || { cat "$dir/install.log" >&2; exit 1; }
  port=$(free_port)
  as_user "$server --no-defaults --datadir=$dir/data --socket=$dir/sock --pid-file=$dir/pid \
    --bind-address=127.0.0.1 --port=$port --skip-name-resolve --innodb-flush-log-at-trx-commit=0 \
    --innodb-buffer-pool-size=64M --max-connections=500 --log-error=$dir/server.log </dev/null >/dev/null 2>&1 &"
  for _ in $(seq 1 300); do
    [ -S "$dir/sock" ] && mariadb --no-defaults --socket="$dir/sock" -u root -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.1
  done
  mariadb --no-defaults --socket="$dir/sock" -u root -e "
    create user 'tinystore'@'127.0.0.1';
    grant all on *.* to 'tinystore'@'127.0.0.1' with grant option;
    create database tinystore;" || { cat "$dir/server.log" >&2; exit 1; }
  echo "mysql://tinystore@127.0.0.1:$port/tinystore" >"$dir/url"
  ;;
stop)
  [ -f "$dir/pid" ] || exit 0
  kill -9 "$(cat "$dir/pid")" 2>/dev/null || true
  ;;
*)
  echo "usage: mariadb.sh start|stop DIR" >&2; exit 2
  ;;
esac
