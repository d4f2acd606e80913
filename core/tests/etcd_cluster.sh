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
# BASE+2N and for peers on BASE+2N+1. Timings are short (heartbeat 50 ms,
# election 500 ms) so that a new leader comes quickly and etcd's minimum
# lease TTL is 1 s.
set -euo pipefail

cmd=${1:?usage: etcd_cluster.sh start|stop|kill|restart DIR [N]}
dir=${2:?usage: etcd_cluster.sh start|stop|kill|restart DIR [N]}
etcd=${ETCD_BIN:-etcd}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

healthy() {
	local port=$1 reply
	reply=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" &&
		printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
		timeout 2 cat <&3) 2>/dev/null || true)
	[[ $reply == *'"health":"true"'* ]]
}

client_port() { echo $((base + 2 * $1)); }
peer_port() { echo $((base + 2 * $1 + 1)); }

launch() {
	local n=$1 cp pp
	cp=$(client_port "$n")
	pp=$(peer_port "$n")
	setsid "$etcd" --name "m$n" --data-dir "$dir/m$n" \
		--listen-client-urls "http://127.0.0.1:$cp" --advertise-client-urls "http://127.0.0.1:$cp" \
		--listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
		--initial-cluster "m1=http://127.0.0.1:$(peer_port 1),m2=http://127.0.0.1:$(peer_port 2),m3=http://127.0.0.1:$(peer_port 3)" \
		--initial-cluster-state new --initial-cluster-token "tinystore-test-$base" \
		--heartbeat-interval 50 --election-timeout 500 \
		--logger zap --log-outputs stderr >>"$dir/m$n.log" 2>&1 &
	echo $! >"$dir/m$n.pid"
}

wait_healthy() {
	local n
	for _ in $(seq 1 200); do
		local all=1
		for n in "$@"; do
			healthy "$(client_port "$n")" || all=0
		done
		[[ $all == 1 ]] && return 0
		sleep 0.1
	done
	echo "etcd_cluster.sh: members $* not healthy after 20 s; logs in $dir" >&2
	for n in "$@"; do tail -5 "$dir/m$n.log" >&2 || true; done
	return 1
}

stop_member() {
	local n=$1 signal=$2 pid
	[[ -f $dir/m$n.pid ]] || return 0
	pid=$(cat "$dir/m$n.pid")
	kill "-$signal" "$pid" 2>/dev/null || true
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$dir/m$n.pid"
}

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
	for n in 1 2 3; do launch "$n"; done
	wait_healthy 1 2 3
	echo "127.0.0.1:$(client_port 1),127.0.0.1:$(client_port 2),127.0.0.1:$(client_port 3)" >"$dir/endpoints"
	;;
stop)
	for n in 1 2 3; do stop_member "$n" TERM; done
	;;
kill)
	stop_member "${3:?member number}" KILL
	;;
restart)
	base=$(cat "$dir/base")
	launch "${3:?member number}"
	wait_healthy "$3"
	;;
*)
	echo "etcd_cluster.sh: unknown command $cmd" >&2
	exit 2
	;;
esac
