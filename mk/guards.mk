# Guards (core/src/guard, docs/guards.md): the fence compared where the write
# lands. `make test-guards` runs the Rust guard tests on real SQLite files and
# on a throwaway PostgreSQL (tests/guards/with-postgres.sh: Debian's
# postgresql, run as its own user on a loopback port), then the contention
# test across languages (tests/guards/contention.py). Each binding's own
# guard tests run in its test target, under the same script.

TESTS += test-guards

WITH_PG := bash $(CURDIR)/tests/guards/with-postgres.sh
# moto's S3 server, from PyPI into the Python venv (s3-deps), on loopback
# (`=`, not `:=`: PY_VENV is set by mk/python.mk, included after this file).
WITH_S3 = MOTO_SERVER=$(PY_VENV)/bin/moto_server bash $(CURDIR)/tests/guards/with-s3.sh
# A throwaway redis-server (Debian's) on loopback, for the Redis guard.
WITH_REDIS := bash $(CURDIR)/tests/guards/with-redis.sh
# A throwaway MariaDB (Debian's mariadb-server, run as its own user on a
# loopback port), for the MySQL guard.
WITH_MARIADB := bash $(CURDIR)/tests/guards/with-mariadb.sh
# fake-gcs-server (gcs-deps builds it) on loopback, with a bucket
# `tinystore`, for the Google Cloud Storage guard. Both this and WITH_AZURE
# name their program through `env`, so that either may follow another
# wrapper on a command line.
WITH_GCS = env FAKE_GCS_SERVER=$(FAKE_GCS_SERVER) bash $(CURDIR)/tests/guards/with-gcs.sh
# Azurite's Blob service (azurite-deps installs it) on loopback, with a
# container `tinystore`, for the Azure Blob guard.
WITH_AZURE = env AZURITE_BLOB=$(AZURITE_BLOB) bash $(CURDIR)/tests/guards/with-azurite.sh
GUARD_FEATURES := guard-sqlite,guard-postgres

.PHONY: test-guards test-guards-rust test-guards-contention s3-deps gcs-deps azurite-deps

# moto's server for the object-storage guard's tests (tests/guards/with-s3.sh),
# at one version: how moto emulates S3 and IAM changes between releases (5.2
# checks a listing as ListObjectsV2, not s3:ListBucket), and a fresh machine
# must test against the server this one did.
MOTO_VERSION := 5.2.6
s3-deps: python-env
	@$(PY) -m pip show moto 2>/dev/null | grep -qx 'Version: $(MOTO_VERSION)' || \
	  $(PY) -m pip install -q --disable-pip-version-check 'moto[server]==$(MOTO_VERSION)'

# fake-gcs-server for the Google Cloud Storage guard's tests
# (tests/guards/with-gcs.sh), built from its Go module at one version into
# the target folder; rebuilt when missing or of another version (go
# version -m reads the version the binary was built from). v1.56.1 needs
# Go 1.26.
FAKE_GCS_VERSION := v1.56.1
FAKE_GCS_SERVER := $(CARGO_TARGET_DIR)/tools/fake-gcs-server
gcs-deps: deps
	@$(GO_BIN) version -m $(FAKE_GCS_SERVER) 2>/dev/null | \
	  grep -Eq '^[[:space:]]+mod[[:space:]]+github.com/fsouza/fake-gcs-server[[:space:]]+$(FAKE_GCS_VERSION)[[:space:]]' || \
	  GOBIN=$(dir $(FAKE_GCS_SERVER)) $(GO_BIN) install github.com/fsouza/fake-gcs-server@$(FAKE_GCS_VERSION)

# Azurite for the Azure Blob guard's tests (tests/guards/with-azurite.sh):
# the version pinned in tests/guards/azurite/package.json (the newest whose
# engines admit Node 20; 3.36 wants 21, 3.37 22), every dependency in its
# package-lock.json, installed by npm ci into
# tests/guards/azurite/node_modules when the installed one is missing or
# another version.
AZURITE_DIR := $(CURDIR)/tests/guards/azurite
AZURITE_BLOB := $(AZURITE_DIR)/node_modules/.bin/azurite-blob
azurite-deps: deps
	@cd $(AZURITE_DIR) && { [ "$$(node -p 'require("./node_modules/azurite/package.json").version' 2>/dev/null)" = \
	  "$$(node -p 'require("./package.json").dependencies.azurite')" ] || npm ci --no-audit --no-fund; }

# Every guard test of core (its unit tests and core/tests/integration/guard,
# the model checker among them) under every server at once; the
# conformance matrix runs in test-guards-matrix.
test-guards-rust: deps deps-rust s3-deps gcs-deps azurite-deps
	$(WITH_S3) $(WITH_PG) $(WITH_REDIS) $(WITH_MARIADB) $(WITH_GCS) $(WITH_AZURE) \
	  env TINYSTORE_REQUIRE_PG=1 TINYSTORE_REQUIRE_S3=1 TINYSTORE_REQUIRE_REDIS=1 TINYSTORE_REQUIRE_MYSQL=1 \
	  TINYSTORE_REQUIRE_GCS=1 TINYSTORE_REQUIRE_AZURE=1 \
	  $(RUST_TEST) --lib --test integration guard:: -- --skip guard::conformance::

# Writers in four languages on one served key, some stopped past their TTL,
# through the guard on SQLite, on PostgreSQL, on MariaDB, on S3 (moto, a
# versioned bucket) and on Redis (a logging script behind the check); the
# Rust and Python writers on DynamoDB (moto: the item and a log item in one
# transaction), on GCS (fake-gcs-server, a versioned bucket) and on Azure
# Blob (Azurite) (tests/guards/README.md).
test-guards-contention: python-install node-deps guard-worker-go s3-deps gcs-deps azurite-deps
	$(DEBUG_BINS)
	$(WITH_S3) $(WITH_PG) $(WITH_REDIS) $(WITH_MARIADB) $(WITH_GCS) $(WITH_AZURE) \
	  $(PY) tests/guards/contention.py --seconds 10 --dbs dynamodb,gcs,azure \
	  --dbs sqlite,postgres,mysql,s3,redis

# The conformance matrix (vectors/guards.json): every language's runner on
# every backend, a table of language x backend x scenario; fails on any
# cell (tests/guards/matrix.py). Each binding's mk file adds its runner to
# GUARD_MATRIX_RUNNERS (LANGUAGE='COMMAND') and its build as a
# prerequisite of test-guards-matrix.
GUARD_MATRIX_RUNNERS += rust='$(RUST_TEST) -q --test integration guard::conformance:: -- --nocapture'
.PHONY: test-guards-matrix
test-guards-matrix: deps-rust s3-deps gcs-deps azurite-deps
	$(RUST_TEST) --test integration --no-run
	$(WITH_S3) $(WITH_PG) $(WITH_REDIS) $(WITH_MARIADB) $(WITH_GCS) $(WITH_AZURE) \
	  python3 tests/guards/matrix.py $(GUARD_MATRIX_RUNNERS)

test-guards: test-guards-rust test-guards-contention test-guards-matrix

# The guard's cost per write, in Rust (core/benches/guard.rs), on a SQLite
# file and on the throwaway PostgreSQL; each binding adds its own
# bench-guards-<language>, listed here. Figures: docs/benchmarks.md.
BENCHES += bench-guards
.PHONY: bench-guards bench-guards-rust

bench-guards-rust: deps-rust
	$(CARGO) build --release -p tinystore --features $(GUARD_FEATURES) --bench guard
	$(WITH_PG) $(CARGO) bench -p tinystore --features $(GUARD_FEATURES) --bench guard

bench-guards: bench-guards-rust

# A guarded put against a plain put on one moto server (core/benches/guard_s3.rs).
.PHONY: bench-guards-s3-rust
bench-guards-s3-rust: deps-rust s3-deps
	$(CARGO) build --release -p tinystore --features guard-s3 --bench guard_s3
	$(WITH_S3) $(CARGO) bench -p tinystore --features guard-s3 --bench guard_s3

# The guard's cost per write on a throwaway MariaDB (core/benches/guard_mysql.rs).
.PHONY: bench-guards-mysql-rust
bench-guards-mysql-rust: deps deps-rust
	$(CARGO) build --release -p tinystore --features guard-mysql --bench guard_mysql
	$(WITH_MARIADB) $(CARGO) bench -p tinystore --features guard-mysql --bench guard_mysql

# A guarded SET and your own script behind the check against a plain SET on
# one redis-server (core/benches/guard_redis.rs).
# A guarded write against the same write unguarded on DynamoDB (moto), GCS
# (fake-gcs-server) and Azure Blob (Azurite) (core/benches/guard_cloud.rs).
.PHONY: bench-guards-cloud-rust
bench-guards-cloud-rust: deps-rust s3-deps gcs-deps azurite-deps
	$(CARGO) build --release -p tinystore --features guard-dynamodb,guard-gcs,guard-azure --bench guard_cloud
	$(WITH_S3) $(WITH_GCS) $(WITH_AZURE) \
	  $(CARGO) bench -p tinystore --features guard-dynamodb,guard-gcs,guard-azure --bench guard_cloud

.PHONY: bench-guards-redis-rust
bench-guards-redis-rust: deps-rust
	$(CARGO) build --release -p tinystore --features guard-redis --bench guard_redis
	$(WITH_REDIS) $(CARGO) bench -p tinystore --features guard-redis --bench guard_redis
