# The torture test (tests/torture): short in `make test`, long with
# `make torture DURATION=600`. Workers in Rust, Python and Go (and Node),
# built by examples-build.

TESTS += test-torture
DURATION ?= 120
TORTURE_LANGUAGES ?= rust,python,go,node

.PHONY: test-torture torture

test-torture: examples-build
	python3 tests/torture/torture.py --seconds 20 --workers 16 --languages $(TORTURE_LANGUAGES)

torture: examples-build
	python3 tests/torture/torture.py --seconds $(DURATION) --workers 16 --languages $(TORTURE_LANGUAGES)
