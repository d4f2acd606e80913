# Sourced by etcd_cluster.sh and etcd_netns.sh: starting, checking and
# stopping the members of a three-member test cluster whose data and logs
# are under $dir. The sourcing script defines:
#
#   client N      member N's client address, HOST:PORT
#   peer N        member N's peer address, HOST:PORT
#   run_in N CMD  execs CMD where member N lives (its network namespace, or
#                 here); launch calls it in a background subshell, so that
#                 $! is the member's own pid
#
# and sets $etcd (the etcd binary) and $token (the cluster's token).
# Timings are short (heartbeat 50 ms, election 500 ms) so that a new leader
# comes quickly and etcd's minimum lease TTL is 1 s.

# Whether member N answers /health.
healthy() {
	local reply host port
	host=$(client "$1")
	port=${host##*:}
	host=${host%:*}
	reply=$( (exec 3<>"/dev/tcp/$host/$port" &&
		printf 'GET /health HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3 &&
		timeout 2 cat <&3) 2>/dev/null || true)
	[[ $reply == *'"health":"true"'* ]]
}

# Starts member N in the background; its pid in $dir/mN.pid.
launch() {
	local n=$1 c p
	c=$(client "$n")
	p=$(peer "$n")
	run_in "$n" setsid "$etcd" --name "m$n" --data-dir "$dir/m$n" \
		--listen-client-urls "http://$c" --advertise-client-urls "http://$c" \
		--listen-peer-urls "http://$p" --initial-advertise-peer-urls "http://$p" \
		--initial-cluster "m1=http://$(peer 1),m2=http://$(peer 2),m3=http://$(peer 3)" \
		--initial-cluster-state new --initial-cluster-token "$token" \
		--heartbeat-interval 50 --election-timeout 500 \
		--logger zap --log-outputs stderr >>"$dir/m$n.log" 2>&1 &
	echo $! >"$dir/m$n.pid"
}

# Waits up to 40 s until every member named answers /health. A member whose
# process has died (a start that failed on a loaded machine: seen once in CI,
# the member's port never opened) is started again, at most twice, its log
# kept.
wait_healthy() {
	local n pid
	local -A relaunched=()
	for _ in $(seq 1 400); do
		local all=1
		for n in "$@"; do
			healthy "$n" && continue
			all=0
			pid=$(cat "$dir/m$n.pid" 2>/dev/null || true)
			if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && ((${relaunched[$n]:-0} < 2)); then
				relaunched[$n]=$((${relaunched[$n]:-0} + 1))
				echo "$(basename "$0"): member $n exited before it was healthy; starting it again; its log:" >&2
				tail -20 "$dir/m$n.log" >&2 || true
				launch "$n"
			fi
		done
		[[ $all == 1 ]] && return 0
		sleep 0.1
	done
	echo "$(basename "$0"): members $* not healthy after 40 s; logs in $dir" >&2
	for n in "$@"; do
		echo "--- member $n:" >&2
		tail -5 "$dir/m$n.log" >&2 || true
	done
	return 1
}

# Sends member N the signal SIGNAL, then SIGKILL after 5 s.
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

# Writes the members' client addresses to $dir/endpoints.
write_endpoints() {
	echo "$(client 1),$(client 2),$(client 3)" >"$dir/endpoints"
}
