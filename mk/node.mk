# The Node binding (bindings-node/): `npm install` there builds the addon
# with cargo (the package's install script) and brings TypeScript and
# better-sqlite3 for the tests; then the typings are checked against the
# Rust side, the JS layer and the tests are type-checked with tsc --strict,
# the node:test suite runs, and the package is installed from another folder.

NODE_DIR := bindings-node
NODE_BUILD := $(NODE_DIR)/.test-build
NODE_CONSUMER := $(CARGO_TARGET_DIR)/node-consumer

TESTS += test-node
BENCHES += bench-node

.PHONY: node-deps test-node bench-node

node-deps: deps-rust
	@command -v node >/dev/null || { apt-get update && apt-get install -y nodejs npm; }
	cd $(NODE_DIR) && npm install --no-audit --no-fund

test-node: node-deps
	@command -v etcd >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }
	$(CARGO) build -q -p tinystore-cli
	cd $(NODE_DIR) && node scripts/typings.js --check
	cd $(NODE_DIR) && npx tsc --strict -p tsconfig.json
	rm -rf $(NODE_BUILD) && cd $(NODE_DIR) && npx tsc --strict -p test/tsconfig.json
	cd $(NODE_DIR) && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/debug/tinystore node --test .test-build/*.test.js
	# The consumer's install must build the addon itself: remove it first.
	rm -rf $(NODE_CONSUMER) $(NODE_DIR)/tinystore.node && mkdir -p $(NODE_CONSUMER)
	cd $(NODE_CONSUMER) && npm init -y >/dev/null && npm install --no-audit --no-fund $(CURDIR)/$(NODE_DIR)
	test -f $(NODE_DIR)/tinystore.node || { echo "npm install did not build the addon" >&2; exit 1; }
	cd $(NODE_CONSUMER) && node -e "require('tinystore').open('data').then(s => s.locks('x').hold(1, l => l.fence).then(f => s.close().then(() => console.log('installed from another folder: fence', f))))"

bench-node: node-deps
	$(CARGO) build -q --release -p tinystore-cli
	cd $(NODE_DIR) && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/release/tinystore node bench/hold.js
