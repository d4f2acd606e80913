# tinystore on etcd (core/src/etcd, cargo feature `etcd`): `make test-etcd`
# starts a three-member etcd cluster on loopback in a temp dir
# (core/tests/etcd_cluster.sh), runs the etcd tests against it, and stops it;
# `make bench-etcd` does the same around the etcd benchmark (docs/benchmarks.md).
# Installs etcd from Debian when missing (the etcd client's protobuf files
# need no protoc: see deps-rust in the Makefile).

TESTS += test-etcd
BENCHES += bench-etcd

ETCD_CLUSTER := core/tests/etcd_cluster.sh

.PHONY: etcd-deps test-etcd bench-etcd

etcd-deps: deps-rust
	@command -v etcd >/dev/null || \
	  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }

# The tests that kill members (etcd_failover) run one at a time.
test-etcd: etcd-deps
	$(CARGO) clippy -p tinystore --features etcd --all-targets -- -D warnings
	$(CARGO) test -p tinystore --features etcd --no-run
	@dir=$$(mktemp -d) && bash $(ETCD_CLUSTER) start $$dir || { bash $(ETCD_CLUSTER) stop $$dir; exit 1; }; \
	  export TINYSTORE_ETCD_DIR=$$dir TINYSTORE_ETCD=$$(cat $$dir/endpoints); \
	  echo "etcd cluster $$TINYSTORE_ETCD in $$dir"; \
	  $(CARGO) test -p tinystore --features etcd --lib etcd:: && \
	  $(CARGO) test -p tinystore --features etcd --test etcd_locks --test etcd_processes --test etcd_elections --test etcd_partitions && \
	  $(CARGO) test -p tinystore-cli --test etcd_target -- --include-ignored && \
	  $(CARGO) test -p tinystore --features etcd --test etcd_failover -- --test-threads=1; \
	  rc=$$?; bash $(ETCD_CLUSTER) stop $$dir; rm -rf $$dir; exit $$rc

bench-etcd: etcd-deps
	$(CARGO) build --release -p tinystore --features etcd --bench etcd
	@dir=$$(mktemp -d) && bash $(ETCD_CLUSTER) start $$dir || { bash $(ETCD_CLUSTER) stop $$dir; exit 1; }; \
	  TINYSTORE_ETCD=$$(cat $$dir/endpoints) $(CARGO) bench -p tinystore --features etcd --bench etcd; \
	  rc=$$?; bash $(ETCD_CLUSTER) stop $$dir; rm -rf $$dir; exit $$rc
