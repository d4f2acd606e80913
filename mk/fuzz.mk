# Fuzzing the wire (fuzz/, a cargo-fuzz crate; not part of `make test`):
# `make fuzz` runs each target for FUZZ_RUNS inputs on one core, with the
# committed starting inputs (fuzz/starters) and the wire's dictionary, and inputs of at most 512 bytes
# (twice wire_decode's frame limit: room for an over-long line); the corpus grows in
# fuzz/corpus/TARGET and any crash lands in fuzz/artifacts/TARGET.
# docs/reliability.md ("Fuzzing the wire") records a run.

FUZZ_RUNS ?= 10000000
FUZZ_TARGETS := wire_decode decoders_agree

.PHONY: fuzz $(addprefix fuzz-,$(FUZZ_TARGETS))

fuzz: $(addprefix fuzz-,$(FUZZ_TARGETS))

$(addprefix fuzz-,$(FUZZ_TARGETS)): fuzz-%:
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	cd fuzz && mkdir -p corpus/$* && CARGO_TARGET_DIR=$(CURDIR)/fuzz/target \
		cargo +nightly fuzz run $* corpus/$* starters -- -dict=wire.dict -max_len=512 -runs=$(FUZZ_RUNS)
