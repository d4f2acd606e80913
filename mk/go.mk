# The Go binding (bindings-go/): the C-ABI crate tinystore-capi, built as a
# static library (release, debug info stripped) and copied into the module
# at bindings-go/build/GOOS-GOARCH/, where cgo links it through ${SRCDIR}
# (bindings-go/internal/native/link_*.go); its header made by cbindgen and
# checked for drift; then go vet and go test -race, under a throwaway
# PostgreSQL for the guard's tests (tests/guards/with-postgres.sh). `make
# dist-go` writes the module with the library inside it to dist/go and
# dist/goproxy. `make guard-worker-go` builds the guard's contention writer
# (tests/guards/README.md) as $(CARGO_TARGET_DIR)/guard-worker-go; `make
# bench-guards-go` measures the guard's cost per write. Both live in their
# own module, tests/guards/go, so that no SQL driver enters the module
# users get.

GO ?= go
GO_DIR := bindings-go
GO_HEADER := include/tinystore.h
# cbindgen is pinned: another version may print the header differently.
GO_CBINDGEN_VERSION := 0.29.4
GO_CBINDGEN_ROOT := $(HOME)/.cargo
GO_CBINDGEN := $(GO_CBINDGEN_ROOT)/bin/cbindgen
GO_TINYSTORE_BIN := $(CARGO_TARGET_DIR)/debug/tinystore
# Where cgo finds the library: inside the module, per platform.
GO_PLATFORM = $(shell $(GO) env GOOS)-$(shell $(GO) env GOARCH)
GO_LIB = $(GO_DIR)/build/$(GO_PLATFORM)/libtinystore_capi.a
# The module's version: the workspace's.
GO_VERSION := v$(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

TESTS += test-go
BENCHES += bench-go

GO_WITH_PG := bash $(CURDIR)/tests/guards/with-postgres.sh
GO_GUARD_TOOLS := tests/guards/go

.PHONY: go-tools go-lib go-header go-header-check test-go bench-go dist-go guard-worker-go bench-guards-go

go-tools:
	@command -v $(GO) >/dev/null || { apt-get update && apt-get install -y golang-go; }
	@$(GO_CBINDGEN) --version 2>/dev/null | grep -qx 'cbindgen $(GO_CBINDGEN_VERSION)' || \
	  $(CARGO) install cbindgen --version $(GO_CBINDGEN_VERSION) --locked --root $(GO_CBINDGEN_ROOT)

# The one command a checkout needs before `go build` (docs/go.md): builds
# the library and puts it in the module, without debug info.
go-lib: deps-rust
	$(CARGO) build --release -p tinystore-capi
	@mkdir -p $(dir $(GO_LIB))
	strip --strip-debug -o $(GO_LIB) $(CARGO_TARGET_DIR)/release/libtinystore_capi.a
	@ls -l $(GO_LIB)

# The packaged module: dist/go (the tree) and dist/goproxy (what a module
# proxy serves), with the library for linux/amd64 inside; tests/dist/go.sh
# installs it with `go get` and plays the scene.
dist-go: go-lib
	@[ "$(GO_PLATFORM)" = linux-amd64 ] || { echo "dist-go packages linux/amd64; this is $(GO_PLATFORM)" >&2; exit 1; }
	bash mk/go-dist.sh $(GO_DIR) $(GO_LIB) $(GO_VERSION) dist

# Regenerates the checked-in header after a change to bindings-go/capi.
go-header: go-tools
	cd $(GO_DIR) && $(GO_CBINDGEN) --quiet --config capi/cbindgen.toml --crate tinystore-capi --output $(GO_HEADER) capi

# Fails when the checked-in header is not what cbindgen makes now.
go-header-check: go-tools
	@cd $(GO_DIR) && tmp=$$(mktemp) && \
	  $(GO_CBINDGEN) --quiet --config capi/cbindgen.toml --crate tinystore-capi --output $$tmp capi && \
	  if diff -u $(GO_HEADER) $$tmp; then rm -f $$tmp; \
	  else rm -f $$tmp; echo "bindings-go/$(GO_HEADER) drifted from capi: run make go-header" >&2; exit 1; fi

test-go: go-tools go-lib go-header-check
	@command -v etcd >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }
	$(CARGO) build -q -p tinystore-cli
	$(CARGO) test -q -p tinystore-capi
	cd $(GO_DIR) && $(GO) vet ./...
	cd $(GO_GUARD_TOOLS) && $(GO) vet ./...
	cd $(GO_DIR) && $(GO_WITH_PG) env TINYSTORE_REQUIRE_PG=1 TINYSTORE_BIN=$(GO_TINYSTORE_BIN) $(GO) test -race -count=1 ./...

# The guard's contention writer for Go (tests/guards/contention.py runs it).
guard-worker-go: go-tools go-lib
	rm -f $(CARGO_TARGET_DIR)/guard-worker-go
	cd $(GO_GUARD_TOOLS) && $(GO) build -o $(CARGO_TARGET_DIR)/guard-worker-go ./worker

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
