# The test kit (docs/testing.md): `make test-kit` runs the page's Rust
# recipe as a user's crate would (tests/recipes/rust.sh; each binding's
# test target runs its own language's recipes); `make test-kit-repeat` runs
# the kit's own tests 200 times in a row in each language and prints the
# failures (docs/reliability.md, "The test kit, 200 runs in a row").

TESTS += test-kit
KIT_RUNS ?= 200

.PHONY: test-kit test-kit-repeat test-kit-repeat-rust

test-kit: deps-rust
	sh tests/recipes/rust.sh docs/testing.md

test-kit-repeat: test-kit-repeat-rust test-kit-repeat-python test-kit-repeat-node test-kit-repeat-go

# The core crate's and the command's kit tests, each binary built once and
# run $(KIT_RUNS) times.
test-kit-repeat-rust: deps-rust
	python3 tests/recipes/repeat_rust.py $(KIT_RUNS) -- $(RUST_TEST)
