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
# Runs a command with the venv's tools (maturin, cargo-zigbuild, zig)
# first. maturin 1.16.0 drives zig through the cargo-zigbuild 0.24.0 it
# embeds; both are pinned, and CARGO_BIN_EXE_cargo-zigbuild names the
# venv's cargo-zigbuild to both, so that they write the same compiler
# wrappers (cargo-zigbuild keeps them per version and per executable) and
# cargo sees the same compilers: a maturin build and a cargo zigbuild can
# then share a target folder.
DIST_RUN := env PATH="$(DIST_VENV)/bin:$$PATH" CARGO_BIN_EXE_cargo-zigbuild=$(DIST_VENV)/bin/cargo-zigbuild
DIST_TARGET := $(CARGO_TARGET_DIR)/zig
# The glibc builds of the artifacts (the Python wheels, the Node addons,
# the Go libraries; x86_64 and arm64) and the static command (mk/musl.mk)
# run zig with the same dependencies (core with etcd, the command:
# bindings-python and bindings-go/capi name the features napi turns on)
# and one profile: they share one target folder, so each triple's
# dependencies are compiled once for all of them (apart, they had cost
# five cold builds, about 3.5 minutes each here).
DIST_ZIGBUILD_TARGET := $(DIST_TARGET)-zigbuild
# Two profiles, DIST_PROFILE=ship or test. `ship`, what `make dist` builds
# and what is published: the glibc builds with whole-program (fat) LTO in
# one codegen unit, smaller (tests/dist keeps each under its size) and no
# slower. `test`, chosen when the goals include `test` (`make test`,
# .ci/run), which only needs the artifacts to test their packaging and
# behaviour: Cargo.toml's release profile at opt-level 1 (LTO only within
# each crate, 16 codegen units, symbols stripped, as the static command
# always is), which saves the single-threaded whole-program LTO
# link of each of the six glibc artifacts and the bitcode cargo otherwise
# writes into every dependency, and gives the static command, in the same
# folder, the glibc builds' profile (cargo reuses the build scripts and
# macros whose features and compiler match); the addon comes out about
# 1.35 times larger, so tests/dist/node.sh allows it 18 MB instead of 12,
# and tests/arm64/node.sh 16 instead of 10, under `test`
# (TINYSTORE_DIST_PROFILE).
# Either profile can be asked for on the command line: `make test-dist
# DIST_PROFILE=ship`.
# Exported: `make dist` builds in a make of its own, whose goals are not
# `test`.
DIST_PROFILE ?= $(if $(filter test,$(MAKECMDGOALS)),test,ship)
export DIST_PROFILE
# Under `test`, every dist build, the static command's too
# (DIST_CLI_PROFILE), is also optimised at opt-level 1 instead of 3: a cold
# build of the x86_64 static command took 156 s instead of 218 (opt-level 0
# took 84 s, but the suites that load the wheel and the addon, with their
# short TTLs, would then run unoptimised code), and came out 5% larger.
ifeq ($(DIST_PROFILE),ship)
DIST_ZIGBUILD_PROFILE := CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
DIST_CLI_PROFILE :=
else ifeq ($(DIST_PROFILE),test)
DIST_CLI_PROFILE := CARGO_PROFILE_RELEASE_OPT_LEVEL=1
DIST_ZIGBUILD_PROFILE := $(DIST_CLI_PROFILE)
else
$(error DIST_PROFILE is ship or test, not $(DIST_PROFILE))
endif
export TINYSTORE_DIST_PROFILE := $(DIST_PROFILE)
TESTS += test-dist

.PHONY: dist test-dist dist-rust-targets dist-crate dist-tools

dist:
	$(MAKE) dist-python dist-node dist-go dist-cli dist-crate
	@ls -l $(DIST) $(DIST)/go/build/*

# Quick when they are there already.
dist-rust-targets:
	rustup target add $(DIST_RUST_TARGETS)

# The same, by a name the files read before this one can use in a rule
# (mk/arm64.mk: a rule's prerequisites are expanded when it is read, before
# this file sets DIST_TOOLS).
dist-tools: $(DIST_TOOLS)

$(DIST_TOOLS): | deps
	python3 -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install -q --disable-pip-version-check ziglang maturin==1.16.0 cargo-zigbuild==0.24.0
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
