# tinystore: `make demo` plays the seed's scene; `make test` runs every test.
# Each binding adds its own targets in mk/<part>.mk, appending to TESTS.

CARGO ?= cargo
export CARGO_TARGET_DIR ?= $(CURDIR)/target

.DEFAULT_GOAL := demo
TESTS := test-rust
BENCHES :=

include $(sort $(wildcard mk/*.mk))

.PHONY: demo test lint test-rust bench build deps-rust

# protoc builds the etcd client (core's etcd feature and bench/).
deps-rust:
	@command -v protoc >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler)

demo: deps-rust
	$(CARGO) run -q --release -p tinystore-cli -- demo

build:
	$(CARGO) build --release -p tinystore-cli

test: lint $(TESTS)
	@echo "make test: every suite passed ($(TESTS))"

lint: deps-rust
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

test-rust: deps-rust
	$(CARGO) test -p tinystore -p tinystore-cli

bench: $(BENCHES)
