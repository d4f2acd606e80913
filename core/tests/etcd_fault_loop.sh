#!/usr/bin/env bash
# The etcd fault tests N times in a row, stopping at the first failure:
# members killed (etcd::failover), clients cut off (etcd::partitions), replies
# lost (etcd::lost_replies) on a loopback cluster, and members cut off from
# each other (etcd::member_partitions) on a namespaced one (skipped with
# TINYSTORE_SKIP_NETNS=1). `make test-etcd-loop N=30` runs it.
#
#   etcd_fault_loop.sh N
#
# The test binary is built once and copied aside, so that builds made in
# the same tree while it runs change nothing in it. Each run's output goes to
# $TINYSTORE_LOOP_LOG (default /tmp/tinystore-etcd-loop.log); the last line
# says how many runs passed, and in how long.
set -uo pipefail

runs=${1:?usage: etcd_fault_loop.sh N}
here=$(cd "$(dirname "$0")" && pwd)
core=$(dirname "$here")
log=${TINYSTORE_LOOP_LOG:-/tmp/tinystore-etcd-loop.log}
cargo=${CARGO:-cargo}
netns=1
[[ ${TINYSTORE_SKIP_NETNS:-} == 1 ]] && netns=0

dir=$(mktemp -d)
loop=$dir/loop
netdir=$dir/netns
stop() {
	bash "$here/etcd_cluster.sh" stop "$loop" >/dev/null 2>&1
	[[ $netns == 1 ]] && bash "$here/etcd_netns.sh" stop "$netdir" >/dev/null 2>&1
	rm -rf "$dir"
}
trap stop EXIT

# Build once; keep a copy of the binary the loop runs (core's integration
# tests, whose etcd:: module holds the fault tests).
built=$("$cargo" test -p tinystore --features etcd --test integration --no-run \
	--message-format=json) || exit 1
mkdir -p "$dir/bin"
exe=$(grep -F '"name":"integration"' <<<"$built" | grep -o '"executable":"[^"]*"' | cut -d'"' -f4)
[[ -n $exe ]] || { echo "etcd_fault_loop.sh: no integration test binary" >&2; exit 1; }
cp "$exe" "$dir/bin/integration"

bash "$here/etcd_cluster.sh" start "$loop" || exit 1
export TINYSTORE_ETCD_DIR=$loop TINYSTORE_ETCD=$(cat "$loop/endpoints")
if [[ $netns == 1 ]]; then
	bash "$here/etcd_netns.sh" start "$netdir" || exit 1
	export TINYSTORE_ETCD_NETNS_DIR=$netdir
fi

# Runs one module of the test binary from the crate's directory, as cargo
# test does.
run() {
	(cd "$core" && "$dir/bin/integration" "$@") >>"$log" 2>&1
}

: >"$log"
start=$(date +%s)
passed=0
for ((i = 1; i <= runs; i++)); do
	echo "== run $i of $runs ($(date -u +%H:%M:%S))" | tee -a "$log"
	run etcd::failover:: --test-threads=1 &&
		run etcd::partitions:: &&
		run etcd::lost_replies:: &&
		{ [[ $netns == 0 ]] || run etcd::member_partitions:: --test-threads=1; } ||
		{
			echo "run $i failed; its output is in $log" >&2
			break
		}
	passed=$i
done
secs=$(($(date +%s) - start))
echo "test-etcd-loop: $passed of $runs runs passed in ${secs} s ($((secs / 60)) min)" | tee -a "$log"
[[ $passed == "$runs" ]]
