#!/usr/bin/env bash
# A three-member etcd cluster whose members each live in a network namespace
# of their own, joined by a bridge, for the partition tests: the network
# between members can be cut and healed, as a switch that fails would.
# Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and `ip` from iproute2.
#
#   etcd_netns.sh start DIR       make the namespaces and the bridge, start members
#                                 1..3 with data under DIR; waits until each answers
#                                 /health; writes DIR/endpoints (HOST:PORT,...)
#   etcd_netns.sh stop DIR        stop every member, remove namespaces and bridge
#   etcd_netns.sh isolate DIR N   member N can no longer reach the other members,
#                                 nor they it (packets dropped without a word);
#                                 clients, on the bridge's own address, still reach it
#   etcd_netns.sh heal DIR        every member reaches every other again
#   etcd_netns.sh can-run         exits 0 when this machine lets the script run
#
# Member N is 10.213.S.N on the bridge (S picked per cluster, so that two
# clusters can run at once), clients on port 2379, peers on 2380. The test
# process reaches the members from the host's namespace through the bridge
# (10.213.S.254). The members' timings are those of etcd_members.sh.
set -euo pipefail

cmd=${1:?usage: etcd_netns.sh start|stop|isolate|heal|can-run DIR [N]}
etcd=${ETCD_BIN:-etcd}

can_run() {
	local probe="tsprobe$$"
	command -v ip >/dev/null && ip netns add "$probe" 2>/dev/null &&
		ip netns del "$probe" && ip link add "${probe}b" type bridge 2>/dev/null &&
		ip link del "${probe}b"
}

if [[ $cmd == can-run ]]; then
	can_run
	exit $?
fi
dir=${2:?usage: etcd_netns.sh start|stop|isolate|heal DIR [N]}

ns() { echo "tse$(cat "$dir/id")m$1"; }
address() { echo "10.213.$(cat "$dir/id").$1"; }
bridge() { echo "tse$(cat "$dir/id")br"; }

client() { echo "$(address "$1"):2379"; }
peer() { echo "$(address "$1"):2380"; }
run_in() {
	local n=$1
	shift
	exec ip netns exec "$(ns "$n")" "$@"
}

# shellcheck source=etcd_members.sh
source "$(dirname "$0")/etcd_members.sh"

# Drops, inside member N's namespace, every packet to member M (a blackhole
# route: nothing is sent, nothing is answered).
drop_route() { ip netns exec "$(ns "$1")" ip route replace blackhole "$(address "$2")/32"; }
keep_route() { ip netns exec "$(ns "$1")" ip route del blackhole "$(address "$2")/32" 2>/dev/null || true; }

case $cmd in
start)
	mkdir -p "$dir"
	# A subnet no other cluster of this script uses now.
	for _ in $(seq 1 50); do
		id=$((RANDOM % 250))
		ip link show "tse${id}br" >/dev/null 2>&1 || break
	done
	echo "$id" >"$dir/id"
	b=$(bridge)
	ip link add "$b" type bridge
	ip addr add "$(address 254)/24" dev "$b"
	ip link set "$b" up
	for n in 1 2 3; do
		ip netns add "$(ns "$n")"
		ip link add "tse${id}v$n" type veth peer name eth0 netns "$(ns "$n")"
		ip link set "tse${id}v$n" master "$b" up
		ip netns exec "$(ns "$n")" ip link set lo up
		ip netns exec "$(ns "$n")" ip addr add "$(address "$n")/24" dev eth0
		ip netns exec "$(ns "$n")" ip link set eth0 up
	done
	token="tinystore-netns-$id"
	for n in 1 2 3; do launch "$n"; done
	wait_healthy 1 2 3
	write_endpoints
	;;
stop)
	[[ -f $dir/id ]] || exit 0
	for n in 1 2 3; do stop_member "$n" TERM; done
	for n in 1 2 3; do ip netns del "$(ns "$n")" 2>/dev/null || true; done
	ip link del "$(bridge)" 2>/dev/null || true
	;;
isolate)
	n=${3:?member number}
	for m in 1 2 3; do
		[[ $m == "$n" ]] && continue
		drop_route "$n" "$m"
		drop_route "$m" "$n"
	done
	;;
heal)
	for n in 1 2 3; do
		for m in 1 2 3; do
			[[ $m == "$n" ]] || keep_route "$n" "$m"
		done
	done
	;;
*)
	echo "etcd_netns.sh: unknown command $cmd" >&2
	exit 2
	;;
esac
