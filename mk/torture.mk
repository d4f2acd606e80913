# The torture test (tests/torture): short in `make test`, long with
# `make torture DURATION=600`. Workers in Rust, Python and Go (and Node),
# built by examples-build; on a served store each holds every way
# (several keys, reads, writes, weighted permits, max_hold), which check.py
# checks from the server's audit log.

TESTS += test-torture
DURATION ?= 120
TORTURE_LANGUAGES ?= rust,python,go,node

.PHONY: test-torture torture test-torture-etcd torture-etcd

test-torture: examples-build
	python3 tests/torture/torture.py --seconds 20 --workers 16 --languages $(TORTURE_LANGUAGES)

torture: examples-build
	python3 tests/torture/torture.py --seconds $(DURATION) --workers 16 --languages $(TORTURE_LANGUAGES)

# On etcd: a namespaced three-member cluster (core/tests/etcd_netns.sh, needs
# root) whose members are cut off in turn and healed; short in `make
# test-etcd`, long with `make torture-etcd DURATION=600`.
test-torture-etcd: examples-build etcd-deps
	@if [ "$$TINYSTORE_SKIP_NETNS" = 1 ]; then echo "test-torture-etcd: SKIPPED (TINYSTORE_SKIP_NETNS=1)" >&2; exit 0; fi; \
	  python3 tests/torture/torture.py --etcd --seconds 20 --workers 12 --languages $(TORTURE_LANGUAGES)

torture-etcd: examples-build etcd-deps
	python3 tests/torture/torture.py --etcd --seconds $(DURATION) --workers 16 --languages $(TORTURE_LANGUAGES)
