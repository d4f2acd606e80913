# macOS and Windows: `make test-platforms` checks that core (with the
# features the command uses, etcd among them), the command and the wakeup
# crate build for each platform below: `cargo clippy -D warnings` for the
# target, its standard library added by rustup, the C code of the build
# scripts (SQLite, ring) compiled by zig (cargo-zigbuild, from the dist
# venv). Then the Windows command is linked by zig and run under wine
# (Debian's, from `make deps`): tests/platforms/windows.sh plays the demo,
# reads and backs up a store, and sees `serve` and `hold` refused with
# `invalid`. Which parts work on each platform, and how the others fail,
# is docs/platforms.md.

PLATFORM_TRIPLES := aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu
PLATFORM_CRATES := -p tinystore -p tinystore-cli -p tinystore-wakeup
PLATFORM_FEATURES := tinystore/etcd,tinystore/guard-sqlite
# One target folder for all: the build scripts and proc macros are built
# once for this machine, beside each platform's own folder.
PLATFORM_TARGET := $(CARGO_TARGET_DIR)/platforms
PLATFORM_WINDOWS := x86_64-pc-windows-gnu
PLATFORM_WINDOWS_BIN := $(PLATFORM_TARGET)/$(PLATFORM_WINDOWS)/debug

TESTS += test-platforms

.PHONY: test-platforms platforms-targets platforms-build

platforms-targets:
	rustup target add $(PLATFORM_TRIPLES)

# Every build of test-platforms, all but the run under wine. `make test`
# starts it in the background at the lowest priority (nice 19, its output
# in PLATFORM_BUILD_LOG) beside the suites, which mostly wait on servers
# and processes: it takes the CPU they leave idle, and test-platforms
# then finds it built (a cargo run still under way holds its target
# folder's lock, which test-platforms waits for; a build that failed
# there fails again here, with its output).
PLATFORM_BUILD_LOG := $(PLATFORM_TARGET)/background-build.log
platforms-build: deps deps-rust platforms-targets | $(DIST_TOOLS)
	@set -e; for triple in $(PLATFORM_TRIPLES); do \
	  echo "test-platforms: $$triple"; \
	  CARGO_TARGET_DIR=$(PLATFORM_TARGET) $(DIST_RUN) cargo-zigbuild clippy -q --target $$triple \
	    $(PLATFORM_CRATES) --features $(PLATFORM_FEATURES) -- -D warnings; \
	done
	CARGO_TARGET_DIR=$(PLATFORM_TARGET) $(DIST_RUN) cargo-zigbuild build -q --target $(PLATFORM_WINDOWS) -p tinystore-cli
	$(DIST_RUN) python-zig cc -target x86_64-windows-gnu -shared -O2 \
	  -o $(PLATFORM_WINDOWS_BIN)/bcryptprimitives.dll tests/platforms/bcryptprimitives.c -ladvapi32

test-platforms: platforms-build
	$(DEBUG_BINS)
	WINEPREFIX=$(PLATFORM_TARGET)/wine tests/platforms/windows.sh \
	  $(PLATFORM_WINDOWS_BIN)/tinystore.exe $(CARGO_TARGET_DIR)/debug/tinystore
	@echo "test-platforms: core, the command and wakeup build for $(PLATFORM_TRIPLES); the command runs under wine"
