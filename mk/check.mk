# `make check`: the everyday loop, a few minutes where `make test` takes
# forty. Lint for every part (cargo fmt, clippy -D warnings with the
# features `make test` builds, go vet, tsc --strict, mypy --strict) and the
# unit tests that need no server of another project (PostgreSQL, S3, etcd):
# core's and the command's own (cargo test --lib), the C ABI's, then each
# binding's suite on a debug build, with the tests of PostgreSQL, S3 and
# etcd left out. Figures: README.md ("Commands").
#
# Each suite runs through mk/if-changed.sh: a suite none of whose files
# changed since it last passed (its parts of the tree, the command it
# runs, the Makefile) is not run again; `make check` then takes what its
# prerequisites take (cargo's and go's own checks that nothing is to be
# built). CHECK_INPUTS: what every suite reads.

.PHONY: check check-rust check-go check-node check-python
.PHONY: check-rust-run check-go-run check-node-run check-python-run

CHECK_INPUTS := Makefile mk Cargo.toml Cargo.lock core cli wakeup vectors
CHECK_IF_CHANGED = sh mk/if-changed.sh $(1) $(CHECK_INPUTS) $(2) -- $(MAKE) --no-print-directory $(1)-run

check: check-rust check-go check-node check-python
	@echo "make check: lint and unit tests passed"

check-rust: deps-rust
	@$(call CHECK_IF_CHANGED,check-rust,bench examples bindings-python bindings-node bindings-go/capi)

check-go: go-tools go-lib go-header-check
	@$(call CHECK_IF_CHANGED,check-go,bindings-go)

check-node: deps deps-rust
	@$(call CHECK_IF_CHANGED,check-node,bindings-node)

check-python: $(PY)
	@$(call CHECK_IF_CHANGED,check-python,bindings-python)

check-rust-run:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --features $(CORE_FEATURES) -- -D warnings
	$(CARGO) test -q -p tinystore -p tinystore-cli --lib
	$(DEBUG_BINS)

check-go-run:
	$(CARGO) test -q -p tinystore-capi
	cd $(GO_DIR) && $(GO) vet ./...
	cd $(GO_REDISGUARD) && $(GO) vet ./...
	cd $(GO_DIR) && TINYSTORE_BIN=$(GO_TINYSTORE_BIN) $(GO) test -count=1 ./...

# The addon is a debug build (scripts/build.js), put beside the package.
check-node-run:
	cd $(NODE_DIR) && [ -d node_modules/typescript ] || npm install --no-audit --no-fund --ignore-scripts
	cd $(NODE_DIR) && TINYSTORE_NODE_ADDON= TINYSTORE_NODE_PROFILE=dev node scripts/build.js
	cd $(NODE_DIR) && node scripts/typings.js --check
	cd $(NODE_DIR) && npx tsc --strict -p tsconfig.json
	rm -rf $(NODE_BUILD) && cd $(NODE_DIR) && npx tsc --strict -p test/tsconfig.json
	cd $(NODE_DIR) && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/debug/tinystore node --test \
	  $$(ls .test-build/*.test.js | grep -v -e /etcd.test.js -e /s3.test.js -e /redis.test.js -e /guard.test.js) test/*.test.mjs

# The native module is a debug build, put in the venv by maturin develop.
check-python-run:
	@$(PY) -c 'import maturin, mypy, pytest' 2>/dev/null || $(MAKE) --no-print-directory python-env
	cd bindings-python && VIRTUAL_ENV=$(PY_VENV) $(PY) -m maturin develop -q
	cd bindings-python && $(PY) -m mypy --strict python/tinystore tests bench
	cd bindings-python && TINYSTORE_BIN=$(PY_TINYSTORE_BIN) $(PY) -m pytest -q -p no:cacheprovider \
	  --ignore tests/test_etcd.py --ignore tests/test_guard_s3.py
