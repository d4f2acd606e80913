#!/usr/bin/env bash
# A three-member etcd cluster on loopback, for the etcd tests.
#
#   etcd_cluster.sh start DIR      start members 1..3 with data under DIR; waits
#                                  until every member answers /health; writes
#                                  DIR/endpoints (HOST:PORT,HOST:PORT,HOST:PORT)
#   etcd_cluster.sh stop DIR       stop every member (SIGTERM, then SIGKILL)
#   etcd_cluster.sh kill DIR N     SIGKILL member N (1..3)
#   etcd_cluster.sh restart DIR N  start member N again on its data; waits for it
#
# Ports are picked free from 20000 up; member N listens for clients on
# BASE+2N and for peers on BASE+2N+1. The members' timings are those of
# etcd_members.sh (heartbeat 50 ms, election 500 ms: etcd's minimum lease
# TTL is 1 s).
set -euo pipefail

cmd=${1:?usage: etcd_cluster.sh start|stop|kill|restart DIR [N]}
dir=${2:?usage: etcd_cluster.sh start|stop|kill|restart DIR [N]}
etcd=${ETCD_BIN:-etcd}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

client() { echo "127.0.0.1:$((base + 2 * $1))"; }
peer() { echo "127.0.0.1:$((base + 2 * $1 + 1))"; }
run_in() {
	shift
	exec "$@"
}

# shellcheck source=etcd_members.sh
source "$(dirname "$0")/etcd_members.sh"

case $cmd in
start)
	mkdir -p "$dir"
	base=20000
	while ! (port_free $((base + 2)) && port_free $((base + 3)) && port_free $((base + 4)) &&
		port_free $((base + 5)) && port_free $((base + 6)) && port_free $((base + 7))); do
		base=$((base + 10))
		[[ $base -lt 30000 ]] || { echo "etcd_cluster.sh: no free ports" >&2; exit 1; }
	done
	echo "$base" >"$dir/base"
	token="tinystore-test-$base"
	for n in 1 2 3; do launch "$n"; done
	wait_healthy 1 2 3
	write_endpoints
	;;
stop)
	for n in 1 2 3; do stop_member "$n" TERM; done
	;;
kill)
	stop_member "${3:?member number}" KILL
	;;
restart)
	base=$(cat "$dir/base")
	token="tinystore-test-$base"
	launch "${3:?member number}"
	wait_healthy "$3"
	;;
*)
	echo "etcd_cluster.sh: unknown command $cmd" >&2
	exit 2
	;;
esac
