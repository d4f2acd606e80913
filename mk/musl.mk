# The static command line: `make dist-cli` builds `tinystore` for
# x86_64-unknown-linux-musl and aarch64-unknown-linux-musl with zig (one
# target folder for both) and writes dist/tinystore-VERSION-TRIPLE: static
# executables that need no libc at run time, for Alpine, distroless images
# and any Linux of their CPU, with Cargo.toml's release profile under
# either DIST_PROFILE, in the glibc builds' target folder (mk/dist.mk).
# tests/dist/cli.sh (in `make test-dist`) checks that both are static and
# runs the x86_64 one's demo; tests/arm64/cli.sh (in `make test-arm64`)
# runs the arm64 one under qemu-user: `make test` needs both.

CLI_MUSL_TRIPLES := x86_64-unknown-linux-musl aarch64-unknown-linux-musl
CLI_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

.PHONY: dist-cli

dist-cli: $(DIST_TOOLS) deps-rust dist-rust-targets
	$(DIST_RUN) CARGO_TARGET_DIR=$(DIST_ZIGBUILD_TARGET) $(DIST_CLI_PROFILE) $(CARGO) zigbuild --release -p tinystore-cli \
	  $(foreach triple,$(CLI_MUSL_TRIPLES),--target $(triple))
	mkdir -p $(DIST) && rm -f $(DIST)/tinystore-*-linux-musl
	$(foreach triple,$(CLI_MUSL_TRIPLES),cp $(DIST_ZIGBUILD_TARGET)/$(triple)/release/tinystore $(DIST)/tinystore-$(CLI_VERSION)-$(triple) &&) true
	@ls -l $(DIST)/tinystore-*-linux-musl
