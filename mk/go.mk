# The Go binding (bindings-go/): the C-ABI crate tinystore-capi, built as a
# static library (release, debug info stripped) and copied into the module
# at bindings-go/build/GOOS-GOARCH/, where cgo links it through ${SRCDIR}
# (bindings-go/internal/native/link_*.go); its header made by cbindgen and
# checked for drift; then go vet and go test -race, under a throwaway
# PostgreSQL for the guard's tests (tests/guards/with-postgres.sh), and
# the guard's MySQL tests under a throwaway MariaDB; the test kit's package
# tinystoretest is among ./... (`make test-kit-repeat-go` runs its tests
# 200 times), and the Go recipes of docs/testing.md run as a user's module
# (tests/recipes/go.sh). `make
# dist-go` writes the module with the library inside it to dist/go and
# dist/goproxy. `make guard-worker-go` builds the guard's contention writer
# (tests/guards/README.md) as $(CARGO_TARGET_DIR)/guard-worker-go; `make
# bench-guards-go` measures the guard's cost per write. Both live in their
# own module, tests/guards/go, so that no SQL driver enters the module
# users get. The S3 guard, tinystore.dev/go/s3guard, is a module of its own
# in bindings-go/s3guard, tested against moto's S3 server; so is the Redis
# guard, tinystore.dev/go/redisguard in bindings-go/redisguard, tested
# against a throwaway redis-server; and so is the DynamoDB guard,
# tinystore.dev/go/dynamoguard in bindings-go/dynamoguard, tested against
# moto's DynamoDB (the same server as S3); and so are the guards on Google
# Cloud Storage and Azure Blob Storage, tinystore.dev/go/gcsguard and
# tinystore.dev/go/azureguard, tested against fake-gcs-server and Azurite.

GO_BIN ?= go
GO_DIR := bindings-go
GO_HEADER := include/tinystore.h
# cbindgen is pinned: another version may print the header differently.
GO_CBINDGEN_VERSION := 0.29.4
GO_CBINDGEN_ROOT := $(HOME)/.cargo
GO_CBINDGEN := $(GO_CBINDGEN_ROOT)/bin/cbindgen
GO_TINYSTORE_BIN := $(CARGO_TARGET_DIR)/debug/tinystore
# Where cgo finds the library: inside the module, per platform.
GO_PLATFORM = $(shell $(GO_BIN) env GOOS)-$(shell $(GO_BIN) env GOARCH)
GO_LIB = $(GO_DIR)/build/$(GO_PLATFORM)/libtinystore_capi.a
# cgo links the library by its path, and Go's build cache does not notice
# when its content changes: a test after `make go-lib` could run a binary
# linked with the library before. Every go command here is given a define
# naming the library's hash (read when the command runs), so that a new
# library is a new build.
GO_LIB_ID = $(shell sha1sum $(GO_LIB) 2>/dev/null | cut -c1-16)
GO = env CGO_CFLAGS='-O2 -g -DTINYSTORE_LIB_ID=$(GO_LIB_ID)' $(GO_BIN)
# The module's version: the workspace's.
GO_VERSION := v$(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

TESTS += test-go
BENCHES += bench-go

GO_WITH_PG := bash $(CURDIR)/tests/guards/with-postgres.sh
GO_GUARD_TOOLS := tests/guards/go
# The object-storage guard on aws-sdk-go-v2: its own module,
# tinystore.dev/go/s3guard, so that tinystore.dev/go needs no AWS module.
# Its tests run against moto's S3 server ($(WITH_S3), mk/guards.mk).
GO_S3GUARD := $(GO_DIR)/s3guard
# The Redis guard on go-redis v9: its own module,
# tinystore.dev/go/redisguard, so that tinystore.dev/go needs no Redis
# client. Its tests run against Debian's redis-server ($(WITH_REDIS),
# mk/guards.mk).
GO_REDISGUARD := $(GO_DIR)/redisguard
# The DynamoDB guard on aws-sdk-go-v2's dynamodb client: its own module,
# tinystore.dev/go/dynamoguard. Its tests run against moto's server
# ($(WITH_S3), mk/guards.mk), which serves DynamoDB beside S3.
GO_DYNAMOGUARD := $(GO_DIR)/dynamoguard
# The guards on Google Cloud Storage (cloud.google.com/go/storage) and
# Azure Blob Storage (azblob): their own modules, tinystore.dev/go/gcsguard
# and tinystore.dev/go/azureguard. Their tests run against fake-gcs-server
# ($(WITH_GCS)) and Azurite ($(WITH_AZURE), mk/guards.mk).
GO_GCSGUARD := $(GO_DIR)/gcsguard
GO_AZUREGUARD := $(GO_DIR)/azureguard
# The SQL guard's MySQL dialect (guard.MySQL) on go-sql-driver, tested
# against a throwaway MariaDB ($(WITH_MARIADB), mk/guards.mk) from the
# test tools' module, so that tinystore.dev/go's go.mod names no MySQL
# driver.
GO_GUARD_MYSQL_TESTS := guardmysql
# OpenTelemetry's spans and counter (docs/observe.md): its own module,
# tinystore.dev/go/tinystoreotel, so that tinystore.dev/go needs no
# OpenTelemetry module; it sets the locks.Observer hook. Tested with the
# SDK's in-memory exporter and a manual metric reader.
GO_OTEL := $(GO_DIR)/tinystoreotel
# The test the guards on object stores and DynamoDB share (their
# otel_test.go: a refusal told and traced on the SDK), a module of its own,
# tinystore.dev/go/internal/oteltest, so that only their tests need the
# SDK; vetted here, run by theirs.
GO_OTELTEST := $(GO_DIR)/internal/oteltest
# The proxy the guards' lost-answer tests (their lost_test.go) put in front
# of moto, fake-gcs-server and Azurite to lose one answer, a module of its
# own, tinystore.dev/go/internal/losingproxy; vetted here, run by theirs.
GO_LOSINGPROXY := $(GO_DIR)/internal/losingproxy

.PHONY: go-tools go-lib go-header go-header-check test-go bench-go dist-go guard-worker-go bench-guards-go

go-tools: deps
	@$(GO_CBINDGEN) --version 2>/dev/null | grep -qx 'cbindgen $(GO_CBINDGEN_VERSION)' || \
	  $(CARGO) install cbindgen --version $(GO_CBINDGEN_VERSION) --locked --root $(GO_CBINDGEN_ROOT)

# The one command a checkout needs before `go build` (docs/go.md): builds
# the library and puts it in the module, without debug info. Under `make
# test`, `make dist` and `make test-dist` on linux/amd64 (GO_LIB_ZIG), it is
# built as the module ships it: by zig for glibc 2.17, in the target folder
# of the other glibc builds (mk/dist.mk), which compiled its dependencies
# already; a checkout's `make go-lib` needs cargo only. Only the static
# library is asked for (`rustc --crate-type staticlib`): with the crate's
# rlib too, its dependencies would be compiled for LTO and for linking
# both, unlike the wheels' and the addon's, and could not be shared.
ifneq ($(filter test dist test-dist dist-go,$(MAKECMDGOALS)),)
ifeq ($(shell uname -sm),Linux x86_64)
export GO_LIB_ZIG := 1
endif
endif
GO_BUILT_ZIG := $(DIST_ZIGBUILD_TARGET)/$(DIST_TRIPLE)/release/libtinystore_capi.a
go-lib: deps-rust $(if $(GO_LIB_ZIG),$(DIST_TOOLS) dist-rust-targets)
ifdef GO_LIB_ZIG
	$(DIST_RUN) CARGO_TARGET_DIR=$(DIST_ZIGBUILD_TARGET) $(DIST_ZIGBUILD_PROFILE) cargo-zigbuild rustc --release -p tinystore-capi \
	  --crate-type staticlib --target $(DIST_TRIPLE).$(DIST_GLIBC)
	@mkdir -p $(dir $(GO_LIB))
	strip --strip-debug -o $(GO_LIB) $(GO_BUILT_ZIG)
else
	$(CARGO) build --release -p tinystore-capi
	@mkdir -p $(dir $(GO_LIB))
	strip --strip-debug -o $(GO_LIB) $(CARGO_TARGET_DIR)/release/libtinystore_capi.a
endif
	@ls -l $(GO_LIB)

# The library for linux/arm64, built by zig for glibc 2.17 on this machine
# (a cross build; debug info stripped by binutils for aarch64), in the
# target folder and profile of the other glibc builds (mk/dist.mk), whose
# dependencies it shares.
GO_LIB_ARM64 := $(GO_DIR)/build/linux-arm64/libtinystore_capi.a
GO_BUILT_ARM64 := $(DIST_ZIGBUILD_TARGET)/$(DIST_ARM64_TRIPLE)/release/libtinystore_capi.a
.PHONY: go-lib-arm64
go-lib-arm64: $(DIST_TOOLS) deps-rust deps dist-rust-targets
	$(DIST_RUN) CARGO_TARGET_DIR=$(DIST_ZIGBUILD_TARGET) $(DIST_ZIGBUILD_PROFILE) cargo-zigbuild rustc --release -p tinystore-capi \
	  --crate-type staticlib --target $(DIST_ARM64_TRIPLE).$(DIST_GLIBC)
	@mkdir -p $(dir $(GO_LIB_ARM64))
	aarch64-linux-gnu-strip --strip-debug -o $(GO_LIB_ARM64) $(GO_BUILT_ARM64)
	@ls -l $(GO_LIB_ARM64)

# The packaged module: dist/go (the tree) and dist/goproxy (what a module
# proxy serves), with the libraries for linux/amd64 and linux/arm64 inside;
# tests/dist/go.sh installs it with `go get` and plays the scene, and
# tests/arm64/go.sh does with a program built with GOARCH=arm64.
dist-go: go-lib go-lib-arm64
	@[ "$(GO_PLATFORM)" = linux-amd64 ] || { echo "dist-go packages linux/amd64; this is $(GO_PLATFORM)" >&2; exit 1; }
	bash mk/go-dist.sh $(GO_DIR) $(GO_VERSION) $(DIST) linux-amd64=$(GO_LIB) linux-arm64=$(GO_LIB_ARM64)

# Regenerates the checked-in header after a change to bindings-go/capi.
go-header: go-tools
	cd $(GO_DIR) && $(GO_CBINDGEN) --quiet --config capi/cbindgen.toml --crate tinystore-capi --output $(GO_HEADER) capi

# Fails when the checked-in header is not what cbindgen makes now.
go-header-check: go-tools
	@cd $(GO_DIR) && tmp=$$(mktemp) && \
	  $(GO_CBINDGEN) --quiet --config capi/cbindgen.toml --crate tinystore-capi --output $$tmp capi && \
	  if diff -u $(GO_HEADER) $$tmp; then rm -f $$tmp; \
	  else rm -f $$tmp; echo "bindings-go/$(GO_HEADER) drifted from capi: run make go-header" >&2; exit 1; fi

test-go: go-tools go-lib go-header-check s3-deps gcs-deps azurite-deps
	$(DEBUG_BINS)
	$(CARGO) test -q -p tinystore-capi
	cd $(GO_DIR) && $(GO) vet ./...
	cd $(GO_GUARD_TOOLS) && $(GO) vet ./...
	cd $(GO_DIR) && $(GO_WITH_PG) env TINYSTORE_REQUIRE_PG=1 TINYSTORE_BIN=$(GO_TINYSTORE_BIN) $(GO) test -race -count=1 ./...
	cd $(GO_GUARD_TOOLS) && $(WITH_MARIADB) env TINYSTORE_REQUIRE_MYSQL=1 $(GO) test -race -count=1 ./$(GO_GUARD_MYSQL_TESTS)
	bash tests/recipes/go.sh docs/testing.md $(GO_DIR)
	cd $(GO_S3GUARD) && $(GO) vet ./...
	cd $(GO_S3GUARD) && $(WITH_S3) env TINYSTORE_REQUIRE_S3=1 $(GO) test -race -count=1 ./...
	cd $(GO_REDISGUARD) && $(GO) vet ./...
	cd $(GO_REDISGUARD) && $(WITH_REDIS) env TINYSTORE_REQUIRE_REDIS=1 $(GO) test -race -count=1 ./...
	cd $(GO_DYNAMOGUARD) && $(GO) vet ./...
	cd $(GO_DYNAMOGUARD) && $(WITH_S3) env TINYSTORE_REQUIRE_S3=1 $(GO) test -race -count=1 ./...
	cd $(GO_GCSGUARD) && $(GO) vet ./...
	cd $(GO_GCSGUARD) && $(WITH_GCS) env TINYSTORE_REQUIRE_GCS=1 $(GO) test -race -count=1 ./...
	cd $(GO_AZUREGUARD) && $(GO) vet ./...
	cd $(GO_AZUREGUARD) && $(WITH_AZURE) env TINYSTORE_REQUIRE_AZURE=1 $(GO) test -race -count=1 ./...
	cd $(GO_OTELTEST) && $(GO) vet ./...
	cd $(GO_LOSINGPROXY) && $(GO) vet ./...
	cd $(GO_OTEL) && $(GO) vet ./...
	cd $(GO_OTEL) && env TINYSTORE_BIN=$(GO_TINYSTORE_BIN) $(GO) test -race -count=1 ./...

# The test kit's own tests (bindings-go/tinystoretest), $(GO_KIT_REPEAT)
# times over in one `go test -count`, to show they do not flake (none
# sleeps: each waits only on the kit's signals); prints "go: N runs, F
# failures, T s" and fails if any run failed. Not part of `make test`.
GO_KIT_REPEAT ?= 200
.PHONY: test-kit-repeat-go
test-kit-repeat-go: go-tools go-lib
	$(DEBUG_BINS)
	@cd $(GO_DIR) && log=$$(mktemp) && start=$$(date +%s.%N) && status=0 && \
	  { env TINYSTORE_BIN=$(GO_TINYSTORE_BIN) $(GO) test -count=$(GO_KIT_REPEAT) -v ./tinystoretest/ >$$log 2>&1 || status=$$?; } && \
	  fails=$$(grep -c '^--- FAIL' $$log || true) && \
	  echo "go: $(GO_KIT_REPEAT) runs, $$fails failures, $$(echo "$$start $$(date +%s.%N)" | awk '{printf "%.1f", $$2 - $$1}') s" && \
	  if [ $$status != 0 ]; then grep -A20 -- '--- FAIL' $$log | head -200; tail -3 $$log; rm -f $$log; exit 1; fi; \
	  rm -f $$log

# The guard's contention writer for Go (tests/guards/contention.py runs it).
guard-worker-go: go-tools go-lib
	rm -f $(CARGO_TARGET_DIR)/guard-worker-go
	cd $(GO_GUARD_TOOLS) && $(GO) build -o $(CARGO_TARGET_DIR)/guard-worker-go ./worker

# The guard's conformance matrix in Go (vectors/guards.json; the runner is
# tests/guards/go/conformance): run it under tests/guards/with-postgres.sh,
# tests/guards/with-mariadb.sh, tests/guards/with-s3.sh (S3 and DynamoDB),
# tests/guards/with-redis.sh, tests/guards/with-gcs.sh and
# tests/guards/with-azurite.sh.
.PHONY: guard-conformance-go
guard-conformance-go: go-tools go-lib
	rm -f $(CARGO_TARGET_DIR)/guard-conformance-go
	cd $(GO_GUARD_TOOLS) && $(GO) vet ./conformance && $(GO) build -o $(CARGO_TARGET_DIR)/guard-conformance-go ./conformance

# Go's column of the guard's conformance matrix (mk/guards.mk).
GUARD_MATRIX_RUNNERS += go='$(CARGO_TARGET_DIR)/guard-conformance-go'
test-guards-matrix: guard-conformance-go

# The fenced-service example's Go worker (examples/fenced-service/README.md),
# its own module so that the example's needs stay out of the binding's.
GO_FENCED_SERVICE := examples/fenced-service/go
.PHONY: fenced-service-worker-go
fenced-service-worker-go: go-tools go-lib
	rm -f $(CARGO_TARGET_DIR)/fenced-service-worker-go
	cd $(GO_FENCED_SERVICE) && $(GO) vet ./... && $(GO) build -o $(CARGO_TARGET_DIR)/fenced-service-worker-go .

# A guarded write against the same write unguarded and with one more
# statement, on a SQLite file and on PostgreSQL: median µs per write and the
# ratio; part of `make bench-guards` (mk/guards.mk). Figures:
# docs/benchmarks.md.
bench-guards: bench-guards-go
bench-guards-go: go-tools go-lib
	cd $(GO_GUARD_TOOLS) && $(GO_WITH_PG) $(GO) run ./bench --writes 5000

bench-go: go-tools go-lib
	$(CARGO) build -q --release -p tinystore-cli
	cd $(GO_DIR) && $(GO) test -run '^$$' -bench 'HoldEmbedded' -benchtime 200000x -count 5 ./tinystore
	cd $(GO_DIR) && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/release/tinystore \
	  $(GO) test -run '^$$' -bench 'HoldServed' -benchtime 20000x -count 5 ./tinystore

# What OpenTelemetry costs a hold (tinystoreotel's BenchmarkHoldOTel):
# not installed, installed with no provider, and on the SDK's providers,
# alternating, $(GO_OTEL_ROUNDS) rounds of each; figures in
# docs/benchmarks.md.
GO_OTEL_ROUNDS ?= 5
.PHONY: bench-otel-go
bench-otel-go: go-tools go-lib
	cd $(GO_OTEL) && $(GO) test -c -o $(CARGO_TARGET_DIR)/tinystoreotel.test . && \
	  for round in $$(seq $(GO_OTEL_ROUNDS)); do for mode in absent no-provider provider; do \
	    $(CARGO_TARGET_DIR)/tinystoreotel.test -test.run '^$$' -test.bench "HoldOTel/$$mode\$$" -test.benchtime 200000x | grep holds/s; \
	  done; done

# The object-storage guard's cost per write: a plain PutObject against
# s3guard.Put on moto's server (tests/guards/go/bench-s3), median µs and the
# ratio. Figures: docs/benchmarks.md ("Object-storage guard: Go").
.PHONY: bench-guards-s3-go
bench-guards-s3-go: go-tools go-lib s3-deps
	cd $(GO_GUARD_TOOLS) && $(WITH_S3) $(GO) run ./bench-s3 --writes 500

# The Redis guard's cost per write: a plain SET against redisguard.Set and
# redisguard.Script on one throwaway redis-server
# (tests/guards/go/bench-redis), median µs and the ratios, the kinds in
# turn sample by sample. Not part of `make bench-guards`. Figures:
# docs/benchmarks.md ("Guards on Redis, MariaDB, DynamoDB, GCS and Azure
# Blob: Go").
.PHONY: bench-guards-redis-go
bench-guards-redis-go: go-tools go-lib
	cd $(GO_GUARD_TOOLS) && $(WITH_REDIS) $(GO) run ./bench-redis --samples 9 --writes 2000

# The guard on MySQL and MariaDB: a write transaction alone, with one more
# upsert and with guard.Check (guard.MySQL) on a throwaway MariaDB, with
# go-sql-driver's default DSN and with interpolateParams=true
# (tests/guards/go/bench-mysql).
.PHONY: bench-guards-mysql-go
bench-guards-mysql-go: go-tools go-lib
	cd $(GO_GUARD_TOOLS) && $(WITH_MARIADB) $(GO) run ./bench-mysql --samples 7 --writes 1000

# The DynamoDB, GCS and Azure guards against the same write unguarded, on
# moto, fake-gcs-server and Azurite (tests/guards/go/bench-cloud).
.PHONY: bench-guards-cloud-go
bench-guards-cloud-go: go-tools go-lib s3-deps gcs-deps azurite-deps
	cd $(GO_GUARD_TOOLS) && $(WITH_S3) $(WITH_GCS) $(WITH_AZURE) $(GO) run ./bench-cloud --samples 9 --writes 100
