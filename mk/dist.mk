# Release artifacts: `make dist` writes dist/ (the Python wheels and sdist,
# the npm tarballs, the Go module: dist-python in python.mk, dist-node in
# node.mk, dist-go in go.mk; the static command line: dist-cli in musl.mk;
# the crate as crates.io would serve it: dist-crate),
# each for linux/x86_64 and linux/arm64; `make test-dist` installs the
# x86_64 ones outside the tree with no cargo, rustc or protoc on the PATH and
# plays the scene with each; `make test-arm64` (arm64.mk) plays it with the
# arm64 ones under qemu-user.
#
# The native code is linked by zig (the `ziglang` Python package) against
# glibc 2.17, so the wheels are manylinux2014 and the npm addons run on the
# same systems; the tools live in their own venv.

DIST := $(CURDIR)/dist
DIST_VENV := $(CURDIR)/.venv-dist
DIST_TOOLS := $(DIST_VENV)/.tools
DIST_TRIPLE := x86_64-unknown-linux-gnu
DIST_ARM64_TRIPLE := aarch64-unknown-linux-gnu
DIST_GLIBC := 2.17
# The Rust targets the artifacts need beside the host's (rustup adds them).
DIST_RUST_TARGETS := $(DIST_ARM64_TRIPLE) x86_64-unknown-linux-musl aarch64-unknown-linux-musl
# Runs a command with the venv's tools (maturin, cargo-zigbuild, zig) first.
DIST_RUN := PATH="$(DIST_VENV)/bin:$$PATH"
# Each zig build has its own target folder: zig links the build scripts and
# proc macros too, through a wrapper named after the tool that runs it, so
# sharing a folder with another build would rebuild everything each time.
DIST_TARGET := $(CARGO_TARGET_DIR)/zig
# The cargo-zigbuild builds of the Node addon and of the Go library for
# arm64 run the same tool with the same dependencies (core with etcd, the
# command; all but napi) and one profile, whole-program LTO in one codegen
# unit: they share one target folder, so a triple's dependencies are
# compiled once for both (the Go library for arm64 had cost a cold build of
# its own, about 5 minutes here).
DIST_ZIGBUILD_TARGET := $(DIST_TARGET)-zigbuild
DIST_ZIGBUILD_PROFILE := CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
TESTS += test-dist

.PHONY: dist test-dist dist-rust-targets dist-crate

dist:
	$(MAKE) dist-python dist-node dist-go dist-cli dist-crate
	@ls -l $(DIST) $(DIST)/go/build/*

# Quick when they are there already.
dist-rust-targets:
	rustup target add $(DIST_RUST_TARGETS)

$(DIST_TOOLS): | deps
	python3 -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install -q --disable-pip-version-check ziglang 'maturin>=1.9,<2' cargo-zigbuild
	touch $@

# The crate as `cargo package` makes it for crates.io (tests/dist/rust.sh
# builds a user's crate on it).
dist-crate: deps-rust
	$(CARGO) package -p tinystore --no-verify --allow-dirty
	mkdir -p $(DIST)
	cp $(CARGO_TARGET_DIR)/package/tinystore-*.crate $(DIST)/

test-dist: dist
	tests/dist/rust.sh $(DIST)
	tests/dist/python.sh $(DIST)
	tests/dist/node.sh $(DIST)
	tests/dist/go.sh $(DIST)
	tests/dist/cli.sh $(DIST)
