# The Node binding (bindings-node/): `make dist-node` builds the release
# addon (zig, glibc 2.17, stripped) and packs the npm tarballs into dist/:
# `tinystore` and its platform package. The tests put that addon in the
# package (its install script copies it when TINYSTORE_NODE_ADDON names it)
# and bring TypeScript, better-sqlite3, pg, mysql2, @aws-sdk/client-s3,
# @aws-sdk/client-dynamodb and lib-dynamodb, @google-cloud/storage,
# @azure/storage-blob, ioredis and redis; then the typings are checked
# against the Rust side, the JS layer and the tests are type-checked with
# tsc --strict, the node:test suite runs (the test kit's, tinystore/testing,
# under node:test, vitest and jest too), the TypeScript recipes of
# docs/testing.md run as a user's project (tests/recipes/node.sh), and the
# package is installed from another folder, building its addon from source
# (a debug build). `make test-kit-repeat-node` runs the kit's own tests 200
# times in a row.

NODE_DIR := bindings-node
NODE_BUILD := $(NODE_DIR)/.test-build
NODE_CONSUMER := $(CARGO_TARGET_DIR)/node-consumer
NODE_BUILT := $(DIST_ZIGBUILD_TARGET)/$(DIST_TRIPLE)/release/libtinystore_node.so
NODE_ADDON := $(CARGO_TARGET_DIR)/dist/tinystore.linux-x64-gnu.node
NODE_BUILT_ARM64 := $(DIST_ZIGBUILD_TARGET)/$(DIST_ARM64_TRIPLE)/release/libtinystore_node.so
NODE_ADDON_ARM64 := $(CARGO_TARGET_DIR)/dist/tinystore.linux-arm64-gnu.node
export TINYSTORE_NODE_ADDON := $(NODE_ADDON)
# mk/guards.mk's $(WITH_S3), expanded when used: guards.mk is read before
# mk/python.mk sets PY_VENV, so its := sees none.
NODE_WITH_S3 = MOTO_SERVER=$(PY_VENV)/bin/moto_server bash $(CURDIR)/tests/guards/with-s3.sh

TESTS += test-node
BENCHES += bench-node

.PHONY: dist-node node-deps test-node bench-node bench-guards-node bench-guards-s3-node

# The published addon is built with whole-program LTO in one codegen unit:
# smaller (tests/dist/node.sh keeps it under 12 MB) and no slower; `make
# test` builds it without (mk/dist.mk's DIST_PROFILE). The profile and the
# target folder are shared with the Python wheels' and the Go libraries'
# builds (mk/dist.mk).
NODE_DIST_PROFILE := $(DIST_ZIGBUILD_PROFILE)

# Both addons, x86_64 and aarch64, in one target folder (the build scripts
# and macros, built for this machine, serve both); the aarch64 one is
# stripped by binutils for aarch64 (gcc-aarch64-linux-gnu brings them).
# One cargo run each: napi-derive empties and appends to one typings file
# per crate as it compiles, so two compiles of the addon at once would
# interleave their lines there (the x86_64 one's is what test-node checks;
# the aarch64 one writes to a folder of its own).
dist-node: $(DIST_TOOLS) deps-rust deps dist-rust-targets
	mkdir -p $(CARGO_TARGET_DIR)/napi-typedefs $(CARGO_TARGET_DIR)/napi-typedefs-arm64 $(dir $(NODE_ADDON)) $(DIST)
	$(DIST_RUN) CARGO_TARGET_DIR=$(DIST_ZIGBUILD_TARGET) NAPI_TYPE_DEF_TMP_FOLDER=$(CARGO_TARGET_DIR)/napi-typedefs \
	  $(NODE_DIST_PROFILE) $(CARGO) zigbuild --release -p tinystore-node --target $(DIST_TRIPLE).$(DIST_GLIBC)
	$(DIST_RUN) CARGO_TARGET_DIR=$(DIST_ZIGBUILD_TARGET) NAPI_TYPE_DEF_TMP_FOLDER=$(CARGO_TARGET_DIR)/napi-typedefs-arm64 \
	  $(NODE_DIST_PROFILE) $(CARGO) zigbuild --release -p tinystore-node --target $(DIST_ARM64_TRIPLE).$(DIST_GLIBC)
	strip --strip-all -o $(NODE_ADDON) $(NODE_BUILT)
	aarch64-linux-gnu-strip --strip-all -o $(NODE_ADDON_ARM64) $(NODE_BUILT_ARM64)
	rm -f $(DIST)/tinystore-*.tgz
	node $(NODE_DIR)/scripts/pack.js $(DIST) linux-x64-gnu=$(NODE_ADDON) linux-arm64-gnu=$(NODE_ADDON_ARM64)

# better-sqlite3 (a dev dependency here and a dependency of the examples)
# has no prebuilt binary this machine can download, so its install compiles
# SQLite (about 70 s). The binding's install compiles it once and packs it
# as a local prebuild (NODE_PREBUILDS); the examples' installs
# (NPM_INSTALL) take it from there, after prebuild-install has loaded it.
NODE_PREBUILDS := $(CARGO_TARGET_DIR)/npm-prebuilds
NPM_INSTALL := npm_config_better_sqlite3_local_prebuilds=$(NODE_PREBUILDS) npm install --no-audit --no-fund

node-deps: dist-node
	cd $(NODE_DIR) && npm install --no-audit --no-fund
	mkdir -p $(NODE_PREBUILDS) && cd $(NODE_DIR)/node_modules/better-sqlite3 && \
	  tar czf $(NODE_PREBUILDS)/$$(node -p '`better-sqlite3-v$${require("./package.json").version}-node-v$${process.versions.modules}-$${process.platform}-$${process.arch}.tar.gz`') \
	  build/Release/better_sqlite3.node

test-node: node-deps s3-deps gcs-deps azurite-deps
	$(DEBUG_BINS)
	cd $(NODE_DIR) && node scripts/typings.js --check
	cd $(NODE_DIR) && npx tsc --strict -p tsconfig.json
	rm -rf $(NODE_BUILD) && cd $(NODE_DIR) && npx tsc --strict -p test/tsconfig.json
	# Under a throwaway PostgreSQL (mk/guards.mk's WITH_PG) for the guard's
	# tests, moto's S3 server (NODE_WITH_S3, first) for guard.s3's and
	# guard.dynamodb's, a throwaway redis-server (WITH_REDIS) for
	# guard.redis's, a throwaway MariaDB (WITH_MARIADB) for the guard's on
	# mysql2, fake-gcs-server (WITH_GCS) for guard.gcs's and Azurite
	# (WITH_AZURE) for guard.azure's, which TINYSTORE_REQUIRE_PG=1,
	# TINYSTORE_REQUIRE_S3=1, TINYSTORE_REQUIRE_REDIS=1,
	# TINYSTORE_REQUIRE_MYSQL=1, TINYSTORE_REQUIRE_GCS=1 and
	# TINYSTORE_REQUIRE_AZURE=1 forbid to skip.
	cd $(NODE_DIR) && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/debug/tinystore TINYSTORE_REQUIRE_PG=1 TINYSTORE_REQUIRE_S3=1 \
	  TINYSTORE_REQUIRE_REDIS=1 TINYSTORE_REQUIRE_MYSQL=1 TINYSTORE_REQUIRE_GCS=1 TINYSTORE_REQUIRE_AZURE=1 \
	  $(NODE_WITH_S3) $(WITH_PG) $(WITH_REDIS) $(WITH_MARIADB) $(WITH_GCS) $(WITH_AZURE) \
	  node --test .test-build/*.test.js test/*.test.mjs
	# The TypeScript recipes of docs/testing.md, extracted and run as a
	# user's project runs them, on this package (linked) and better-sqlite3.
	sh tests/recipes/node.sh docs/testing.md
	# The consumer's install must build the addon itself: remove it first.
	rm -rf $(NODE_CONSUMER) $(NODE_DIR)/tinystore.node && mkdir -p $(NODE_CONSUMER)
	cd $(NODE_CONSUMER) && npm init -y >/dev/null && \
	  TINYSTORE_NODE_ADDON= TINYSTORE_NODE_PROFILE=dev npm install --no-audit --no-fund $(CURDIR)/$(NODE_DIR)
	test -f $(NODE_DIR)/tinystore.node || { echo "npm install did not build the addon" >&2; exit 1; }
	cd $(NODE_CONSUMER) && node -e "require('tinystore').open('data').then(s => s.locks('x').hold(1, l => l.fence).then(f => s.close().then(() => console.log('installed from another folder: fence', f))))"

# The test kit's own tests (test/testing.test.ts), $(NODE_KIT_RUNS) runs in
# a row, each a `node --test` process of its own, to show they do not flake
# (none sleeps: each waits only on the kit's signals); prints "node: N runs,
# F failures, T s" and the first failure's output, and fails if any run
# failed. Not part of `make test` (mk/kit.mk's test-kit-repeat runs it).
NODE_KIT_RUNS ?= $(or $(KIT_RUNS),200)
.PHONY: test-kit-repeat-node
test-kit-repeat-node: node-deps
	rm -rf $(NODE_BUILD) && cd $(NODE_DIR) && npx tsc --strict -p test/tsconfig.json
	@cd $(NODE_DIR) && log=$$(mktemp) && first=$$(mktemp) && fails=0 && i=0 && start=$$(date +%s.%N) && \
	  while [ $$i -lt $(NODE_KIT_RUNS) ]; do \
	    i=$$((i + 1)); \
	    if ! node --test .test-build/testing.test.js >$$log 2>&1; then \
	      fails=$$((fails + 1)); [ -s $$first ] || { echo "run $$i:"; cat $$log; } >$$first; \
	    fi; \
	  done; \
	  echo "node: $(NODE_KIT_RUNS) runs, $$fails failures, $$(echo "$$start $$(date +%s.%N)" | awk '{printf "%.1f", $$2 - $$1}') s"; \
	  if [ $$fails != 0 ]; then echo "the first failure:"; { grep -B2 -A30 '^not ok' $$first || tail -50 $$first; } | head -200; fi; \
	  rm -f $$log $$first; [ $$fails = 0 ]

bench-node: node-deps
	$(CARGO) build -q --release -p tinystore-cli
	cd $(NODE_DIR) && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/release/tinystore node bench/hold.js

# What OpenTelemetry costs a hold (bench/otel.js): bench/hold.js's embedded
# median with @opentelemetry/api unresolvable, installed with no provider,
# and with the SDK's providers registered, alternating. Figures:
# docs/benchmarks.md.
.PHONY: bench-otel-node
bench-otel-node: node-deps
	cd $(NODE_DIR) && node bench/otel.js

# The guard's cost per write (bench/guard.mjs): a guarded write against the
# same write unguarded (and with one more upsert), on a SQLite file through
# better-sqlite3 and on a throwaway PostgreSQL through pg; part of `make
# bench-guards` (mk/guards.mk). Figures: docs/benchmarks.md.
bench-guards: bench-guards-node
bench-guards-node: node-deps
	cd $(NODE_DIR) && $(WITH_PG) node bench/guard.mjs

# The S3 guard's cost per write (bench/guard-s3.mjs): a guarded put against
# a plain put on the same moto server (NODE_WITH_S3). Figures:
# docs/benchmarks.md, "Object-storage guard: Node".
bench-guards: bench-guards-s3-node
bench-guards-s3-node: node-deps s3-deps
	cd $(NODE_DIR) && $(NODE_WITH_S3) node bench/guard-s3.mjs

# The TypeScript guards beside the Rust, Python and Go benches of the same
# names: a guarded write against the same write unguarded, the kinds in
# turn sample by sample, medians. Not part of `make bench-guards`. Each
# script is type-checked first (tsc --strict on its JSDoc). Figures:
# docs/benchmarks.md ("Guards on Redis, MariaDB, DynamoDB, GCS and Azure
# Blob: Node").
NODE_BENCH_TSC = cd $(NODE_DIR) && npx tsc --noEmit --allowJs --checkJs --strict --target ES2022 \
  --module node16 --moduleResolution node16 --lib ES2022,ESNext.Disposable --types node

# Redis (bench/guard-redis.mjs): a plain SET against guard.redis.set and
# guard.redis.script, through ioredis and through node-redis, on one
# throwaway redis-server.
.PHONY: bench-guards-redis-node
bench-guards-redis-node: node-deps
	$(NODE_BENCH_TSC) bench/guard-redis.mjs
	cd $(NODE_DIR) && $(WITH_REDIS) node bench/guard-redis.mjs

# MariaDB (bench/guard-mysql.mjs, mysql2): a write transaction alone, with
# one more upsert, and with guard.check, on one throwaway MariaDB.
.PHONY: bench-guards-mysql-node
bench-guards-mysql-node: node-deps
	$(NODE_BENCH_TSC) bench/guard-mysql.mjs
	cd $(NODE_DIR) && $(WITH_MARIADB) node bench/guard-mysql.mjs

# DynamoDB, GCS and Azure Blob (bench/guard-cloud.mjs): each guard against
# the same write unguarded, on moto (NODE_WITH_S3, first), fake-gcs-server
# and Azurite.
.PHONY: bench-guards-cloud-node
bench-guards-cloud-node: node-deps s3-deps gcs-deps azurite-deps
	$(NODE_BENCH_TSC) bench/guard-cloud.mjs
	cd $(NODE_DIR) && $(NODE_WITH_S3) $(WITH_GCS) $(WITH_AZURE) node bench/guard-cloud.mjs

# TypeScript's column of the guard's conformance matrix (mk/guards.mk).
GUARD_MATRIX_RUNNERS += typescript='node $(NODE_DIR)/test/guard-conformance.mjs'
test-guards-matrix: node-deps
