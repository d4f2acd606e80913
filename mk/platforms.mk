# macOS and Windows: `make test-platforms` checks that core (with the
# features the command uses, etcd among them), the command and the wakeup
# crate build for each platform below: `cargo clippy -D warnings` for the
# target, its standard library added by rustup, the C code of the build
# scripts (SQLite, ring) compiled by zig (cargo-zigbuild, from the dist
# venv). Nothing is linked or run: which parts work on each platform, and
# how the others fail, is docs/platforms.md.

PLATFORM_TRIPLES := aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu
PLATFORM_CRATES := -p tinystore -p tinystore-cli -p tinystore-wakeup
PLATFORM_FEATURES := tinystore/etcd,tinystore/guard-sqlite
# One target folder for the three: the build scripts and proc macros are
# built once for this machine, beside each platform's own folder.
PLATFORM_TARGET := $(CARGO_TARGET_DIR)/platforms

TESTS += test-platforms

.PHONY: test-platforms

test-platforms: deps-rust | $(DIST_TOOLS)
	rustup target add $(PLATFORM_TRIPLES)
	@set -e; for triple in $(PLATFORM_TRIPLES); do \
	  echo "test-platforms: $$triple"; \
	  CARGO_TARGET_DIR=$(PLATFORM_TARGET) $(DIST_RUN) cargo-zigbuild clippy -q --target $$triple \
	    $(PLATFORM_CRATES) --features $(PLATFORM_FEATURES) -- -D warnings; \
	done
	@echo "test-platforms: core, the command and wakeup build for $(PLATFORM_TRIPLES)"
