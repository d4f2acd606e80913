# tinystore: `make demo` plays the README's scene (a paused holder's late
# write refused); `make test` runs every test.
# Each binding adds its own targets in mk/<part>.mk, appending to TESTS.

CARGO ?= cargo
export CARGO_TARGET_DIR ?= $(CURDIR)/target

.DEFAULT_GOAL := demo
TESTS := test-rust
BENCHES :=

include $(sort $(wildcard mk/*.mk))

.PHONY: demo test lint test-rust bench build deps-rust

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

test: lint $(TESTS)
	@echo "make test: every suite passed ($(TESTS))"

lint: deps-rust
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# Two runs: core's own tests without the etcd feature (its etcd tests need the
# cluster `make test-etcd` starts), then the command's, which carries etcd.
test-rust: deps-rust
	$(CARGO) test -p tinystore
	$(CARGO) test -p tinystore-cli

bench: $(BENCHES)
