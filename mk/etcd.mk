# tinystore on etcd (core/src/etcd, cargo feature `etcd`): `make test-etcd`
# starts a three-member etcd cluster on loopback in a temp dir
# (core/tests/etcd_cluster.sh), runs the etcd tests against it, and stops it;
# `make bench-etcd` does the same around the etcd benchmark (docs/benchmarks.md).
# `make deps` installs etcd, faketime and iproute2 from Debian when missing
# (the etcd client's protobuf files need no protoc: see deps-rust in the
# Makefile).

TESTS += test-etcd
BENCHES += bench-etcd

ETCD_CLUSTER := core/tests/etcd_cluster.sh

.PHONY: etcd-deps test-etcd test-etcd-netns test-etcd-loop bench-etcd

etcd-deps: deps-rust deps

# The tests that kill members (etcd::failover) run one at a time. The tests
# that cut members off from each other (etcd::member_partitions) run on a
# second cluster whose members live in network namespaces of their own
# (core/tests/etcd_netns.sh: needs root, as CI has); on a machine that cannot
# make namespaces they fail, unless TINYSTORE_SKIP_NETNS=1 skips them.
test-etcd: etcd-deps
	$(RUST_TEST) --no-run
	@dir=$$(mktemp -d) && bash $(ETCD_CLUSTER) start $$dir || { bash $(ETCD_CLUSTER) stop $$dir; exit 1; }; \
	  export TINYSTORE_ETCD_DIR=$$dir TINYSTORE_ETCD=$$(cat $$dir/endpoints); \
	  echo "etcd cluster $$TINYSTORE_ETCD in $$dir"; \
	  $(RUST_TEST) --lib --test integration etcd:: -- --skip etcd::failover:: --skip etcd::member_partitions:: && \
	  $(RUST_TEST) --test integration -- --ignored etcd::target:: etcd::clock:: && \
	  $(RUST_TEST) --test integration etcd::failover:: -- --test-threads=1 && \
	  $(MAKE) --no-print-directory test-etcd-netns test-torture-etcd; \
	  rc=$$?; bash $(ETCD_CLUSTER) stop $$dir; rm -rf $$dir; exit $$rc

ETCD_NETNS := core/tests/etcd_netns.sh

# The partitions between members, on the namespaced cluster.
test-etcd-netns: etcd-deps
	@if [ "$$TINYSTORE_SKIP_NETNS" = 1 ]; then echo "test-etcd-netns: SKIPPED (TINYSTORE_SKIP_NETNS=1)" >&2; exit 0; fi; \
	  bash $(ETCD_NETNS) can-run || { echo "test-etcd-netns: this machine cannot make network namespaces and bridges (root and iproute2 needed); TINYSTORE_SKIP_NETNS=1 skips these tests" >&2; exit 1; }; \
	  dir=$$(mktemp -d) && bash $(ETCD_NETNS) start $$dir || { bash $(ETCD_NETNS) stop $$dir; exit 1; }; \
	  echo "namespaced etcd cluster $$(cat $$dir/endpoints) in $$dir"; \
	  TINYSTORE_ETCD_NETNS_DIR=$$dir $(RUST_TEST) --test integration etcd::member_partitions:: -- --test-threads=1; \
	  rc=$$?; bash $(ETCD_NETNS) stop $$dir; rm -rf $$dir; exit $$rc

# The fault tests (members killed, clients and members cut off, replies
# lost) N times in a row on clusters of their own, stopping at the first
# failure (core/tests/etcd_fault_loop.sh): `make test-etcd-loop N=30`. Its
# last line, the runs passed and the time, goes in docs/reliability.md.
N ?= 10
test-etcd-loop: etcd-deps
	CARGO="$(CARGO)" bash core/tests/etcd_fault_loop.sh $(N)

bench-etcd: etcd-deps
	$(CARGO) build --release -p tinystore --features etcd --bench etcd
	@dir=$$(mktemp -d) && bash $(ETCD_CLUSTER) start $$dir || { bash $(ETCD_CLUSTER) stop $$dir; exit 1; }; \
	  TINYSTORE_ETCD=$$(cat $$dir/endpoints) $(CARGO) bench -p tinystore --features etcd --bench etcd; \
	  rc=$$?; bash $(ETCD_CLUSTER) stop $$dir; rm -rf $$dir; exit $$rc
