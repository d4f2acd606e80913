# tinystore: `make demo` plays the README's scene (a paused holder's late
# write refused); `make check` is the everyday loop (lint and the unit tests
# of every part, a few minutes); `make test` runs every test; `make deps`
# installs the Debian packages the tests need.
# Each binding adds its own targets in mk/<part>.mk, appending to TESTS.

CARGO ?= cargo
export CARGO_TARGET_DIR ?= $(CURDIR)/target

.DEFAULT_GOAL := demo
TESTS := test-rust
BENCHES :=

include $(sort $(wildcard mk/*.mk))

.PHONY: demo test lint test-rust bench build deps-rust deps deps-bench check

# Every Debian package a test needs, as COMMAND:PACKAGE (or FILE:PACKAGE for
# a package with no command): mk/deps.sh installs, in one apt-get run, those
# whose command is missing. Every target that needs one of them depends on
# `deps`; nothing else installs with apt-get (mk/arm64-sysroot.sh downloads
# arm64 packages and unpacks them in a folder of its own).
DEBIAN_TEST_PACKAGES := etcd:etcd-server faketime:faketime initdb:postgresql \
  systemd-analyze:systemd promtool:prometheus ip:iproute2 go:golang-go wine:wine \
  node:nodejs npm:npm ensurepip:python3-venv sqlite3:sqlite3 file:file \
  qemu-aarch64-static:qemu-user-static aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
  /usr/aarch64-linux-gnu/lib/crt1.o:libc6-dev-arm64-cross redis-server:redis-server \
  /usr/sbin/mariadbd:mariadb-server chromium:chromium
# The peers the benchmarks compare against (make bench).
DEBIAN_BENCH_PACKAGES := $(DEBIAN_TEST_PACKAGES)

deps:
	@sh mk/deps.sh $(DEBIAN_TEST_PACKAGES)

deps-bench:
	@sh mk/deps.sh $(DEBIAN_BENCH_PACKAGES)

# The etcd client's protobuf files are compiled by mk/protoc.sh (protox, a
# protobuf compiler written in Rust, installed with cargo; .cargo/config.toml
# points every cargo command here at it): installed up front, where its
# progress shows, unless PROTOC names another compiler.
deps-rust:
	@[ -n "$$PROTOC" ] || sh mk/protoc.sh --help >/dev/null

demo: deps-rust
	$(CARGO) run -q --release -p tinystore-cli -- demo

build:
	$(CARGO) build --release -p tinystore-cli

# `make test` first runs lint beside what the suites download (TEST_FETCH:
# pip and npm packages and Debian's arm64 packages, which wait on the
# network more than on the two cores lint's compile keeps busy), then
# test-rust and the dist builds, then every suite in turn with
# test-platforms' builds for macOS and Windows at the lowest priority
# beside them (mk/platforms.mk: platforms-build, which only compiles): the
# suites leave CPU idle while they wait on servers and processes, the
# builds before them do not (started after lint, the background build
# slowed them by about two minutes); test-rust runs once, in the second
# make. DIST_PROFILE and GO_LIB_ZIG, chosen
# because the goal is `test`, reach every make through the environment.
TEST_FETCH := $(DIST_TOOLS) python-env s3-deps azurite-deps arm64-fetch
test: deps
	$(MAKE) --no-print-directory -j lint $(TEST_FETCH) platforms-targets
	$(MAKE) --no-print-directory test-rust dist
	@mkdir -p $(dir $(PLATFORM_BUILD_LOG))
	nice -n 19 $(MAKE) --no-print-directory platforms-build >$(PLATFORM_BUILD_LOG) 2>&1 & background=$$!; \
	  $(MAKE) --no-print-directory $(filter-out test-rust,$(TESTS)); status=$$?; wait $$background; exit $$status
	@echo "make test: every suite passed ($(TESTS))"

# Every cargo feature of core that some test turns on. Every Rust test run
# (lint, test-rust, test-etcd, test-guards-rust, the guard matrix,
# test-deploy) builds core and the command's tests with this one set, in one
# cargo invocation for both packages (RUST_TEST), so that the test binaries
# are built once and each target only picks its tests by module
# (core/tests/integration and cli/tests/integration mirror src/).
CORE_FEATURES := tinystore/etcd,tinystore/guard-sqlite,tinystore/guard-postgres,tinystore/guard-s3,tinystore/guard-http,tinystore/guard-redis,tinystore/guard-mysql,tinystore/guard-dynamodb,tinystore/guard-gcs,tinystore/guard-azure,tinystore/otel
RUST_TEST = $(CARGO) test -p tinystore -p tinystore-cli --features $(CORE_FEATURES)

# The debug `tinystore` the tests start, built with the Rust examples in one
# cargo invocation wherever a test needs it, so that every build of it has
# one feature set (fenced-service-worker turns on guard-http): built apart,
# each set compiled core again and overwrote target/debug/tinystore (about
# 50 s of a clean run).
DEBUG_BINS = $(CARGO) build -q -p tinystore-cli -p chat-summaries -p scheduler -p fenced-service-worker

lint: deps-rust
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --features $(CORE_FEATURES) -- -D warnings

# Every Rust test that needs no server of another project: the etcd tests
# need the cluster `make test-etcd` starts, the guard tests the servers
# `make test-guards-rust` starts.
# etcd::, guard:: and serve::page:: run in test-etcd, test-guards and
# test-page, each alone: the page's Chromium beside the connection-surge
# tests starved their 250 ms hello grace.
test-rust: deps-rust
	$(RUST_TEST) -- --skip etcd:: --skip guard:: --skip serve::page::

bench: $(BENCHES)
