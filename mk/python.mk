# The Python binding (bindings-python/): `make dist-python` builds the
# release wheel (abi3, manylinux2014) and the sdist into dist/; the tests
# install that wheel into a venv under the repo, then run mypy --strict and
# pytest. `pip install ./bindings-python` builds the same from source.

PY_VENV := $(CURDIR)/.venv-python
PY := $(PY_VENV)/bin/python
PY_TINYSTORE_BIN := $(CARGO_TARGET_DIR)/debug/tinystore
# mk/guards.mk's $(WITH_S3), with moto_server from this venv (guards.mk is
# read before this file sets PY_VENV, so its := sees none).
PY_WITH_S3 := MOTO_SERVER=$(PY_VENV)/bin/moto_server bash $(CURDIR)/tests/guards/with-s3.sh

TESTS += test-python
BENCHES += bench-python

.PHONY: python-env python-install dist-python test-python bench-python bench-guards-python

$(PY): | deps
	python3 -m venv $(PY_VENV)

# psycopg (with its binary libpq) for the guard's PostgreSQL tests and bench;
# boto3 for the S3 guard's; redis-py for the Redis guard's; PyMySQL for the
# MySQL guard's; google-cloud-storage and azure-storage-blob for the
# guard's on Google Cloud Storage and Azure Blob; requests, httpx and
# uvicorn (an ASGI server) for tinystore.http's; OpenTelemetry's API and SDK
# (its in-memory exporter and reader) for tinystore's spans' (test_otel.py).
# Installed once per venv, and again when this file changes (PY_ENV_DONE
# marks it): `make test` needs it in three makes, and each pip run asked the
# index again (about 15 s).
PY_ENV_DONE := $(PY_VENV)/.python-env
python-env: $(PY_ENV_DONE)
$(PY_ENV_DONE): mk/python.mk | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip maturin mypy pytest 'psycopg[binary]>=3.1,<4' \
	  'boto3>=1.36' 'redis>=5' 'PyMySQL>=1.1' 'google-cloud-storage>=3' 'azure-storage-blob>=12' \
	  requests httpx uvicorn 'opentelemetry-api>=1.20' 'opentelemetry-sdk>=1.20'
	touch $@

# The wheels, x86_64 and aarch64, are built by zig for glibc 2.17 and
# stripped, in the target folder and profile of the other glibc builds
# (mk/dist.mk), whose dependencies they share; the console script
# `tinystore` comes with them.
dist-python: $(DIST_TOOLS) deps-rust dist-rust-targets
	mkdir -p $(DIST) && rm -f $(DIST)/tinystore-*.whl $(DIST)/tinystore-*.tar.gz
	for triple in $(DIST_TRIPLE) $(DIST_ARM64_TRIPLE); do \
	  $(DIST_RUN) CARGO_TARGET_DIR=$(DIST_ZIGBUILD_TARGET) $(DIST_ZIGBUILD_PROFILE) maturin build --release --strip --zig \
	    --compatibility manylinux2014 --target $$triple -m bindings-python/Cargo.toml --out $(DIST) || exit 1; \
	done
	$(DIST_RUN) maturin sdist -m bindings-python/Cargo.toml --out $(DIST)

python-install: python-env dist-python
	$(PY) -m pip install -q --disable-pip-version-check --force-reinstall --no-deps $(DIST)/tinystore-*_x86_64.whl

# pytest runs under a throwaway PostgreSQL (tests/guards/with-postgres.sh)
# (mk/guards.mk's WITH_PG) for the guard's tests, beside moto's S3 server
# (WITH_S3) for the S3 guard's and a throwaway redis-server (WITH_REDIS) for
# the Redis guard's, a throwaway MariaDB (WITH_MARIADB) for the MySQL
# guard's, and fake-gcs-server (WITH_GCS) and Azurite (WITH_AZURE) for the
# GCS and Azure guards', which TINYSTORE_REQUIRE_PG=1 and the other
# TINYSTORE_REQUIRE_* forbid to skip.
test-python: python-install s3-deps gcs-deps azurite-deps
	$(DEBUG_BINS)
	cd bindings-python && $(PY) -m mypy --strict python/tinystore tests bench
	cd bindings-python && TINYSTORE_BIN=$(PY_TINYSTORE_BIN) TINYSTORE_REQUIRE_PG=1 TINYSTORE_REQUIRE_S3=1 \
	  TINYSTORE_REQUIRE_REDIS=1 TINYSTORE_REQUIRE_MYSQL=1 TINYSTORE_REQUIRE_GCS=1 TINYSTORE_REQUIRE_AZURE=1 \
	  $(PY_WITH_S3) $(WITH_PG) $(WITH_REDIS) $(WITH_MARIADB) $(WITH_GCS) $(WITH_AZURE) \
	  $(PY) -m pytest -q -p no:cacheprovider; \
	  status=$$?; if [ $$status -eq 5 ]; then echo "test-python: pytest ran no test" >&2; exit 1; fi; exit $$status
	sh tests/recipes/python.sh docs/testing.md $(PY)

# The test kit's own tests (tests/test_testing.py: tinystore.testing on
# real stores, embedded and served) $(KIT_RUNS) times in a row (mk/kit.mk),
# each a new pytest process; prints "python: N runs, F failures, T s", and
# the first failure's output when one failed. The fixtures' and unittest
# helpers' tests (tests/test_testing_helpers.py) run in test-python.
PY_KIT_TESTS := tests/test_testing.py
.PHONY: test-kit-repeat-python
test-kit-repeat-python: python-install
	$(DEBUG_BINS)
	@cd bindings-python && log=$$(mktemp) && first=$$(mktemp) && start=$$(date +%s) && failures=0 && \
	for run in $$(seq $(KIT_RUNS)); do \
	  TINYSTORE_BIN=$(PY_TINYSTORE_BIN) $(PY) -m pytest -q -p no:cacheprovider $(PY_KIT_TESTS) >$$log 2>&1 || { \
	    failures=$$((failures + 1)); [ -s $$first ] || cp $$log $$first; }; \
	done; \
	echo "python: $(KIT_RUNS) runs, $$failures failures, $$(($$(date +%s) - start)) s"; \
	[ $$failures -eq 0 ] || cat $$first; rm -f $$log $$first; [ $$failures -eq 0 ]

bench-python: python-install
	$(CARGO) build -q --release -p tinystore-cli
	cd bindings-python && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/release/tinystore $(PY) bench/hold.py

# What OpenTelemetry costs a hold (bench/otel.py): bench/hold.py's embedded
# cases with opentelemetry absent, installed with no provider, and with the
# SDK's providers set, alternating. Figures: docs/benchmarks.md.
.PHONY: bench-otel-python
bench-otel-python: python-install
	cd bindings-python && $(PY) bench/otel.py

# The guard's cost per write (bench/guard.py): a guarded write against the
# same write unguarded, on a SQLite file and on a throwaway PostgreSQL;
# part of `make bench-guards` (mk/guards.mk). Figures: docs/benchmarks.md.
bench-guards: bench-guards-python
bench-guards-python: python-install
	cd bindings-python && $(WITH_PG) $(PY) bench/guard.py

# The S3 guard's cost per put (bench/guard_s3.py): a guarded put against a
# plain put on moto's server on loopback. Figures: docs/benchmarks.md.
.PHONY: bench-guards-s3-python
bench-guards-s3-python: python-install s3-deps
	cd bindings-python && $(PY_WITH_S3) $(PY) bench/guard_s3.py

# The MySQL guard's cost per write on a throwaway MariaDB (bench/guard_mysql.py).
.PHONY: bench-guards-mysql-python
bench-guards-mysql-python: python-install
	cd bindings-python && $(WITH_MARIADB) $(PY) bench/guard_mysql.py

# The Redis guard's cost per write (bench/guard_redis.py): a guarded SET and
# your own script behind the check against a plain SET. Figures:
# docs/benchmarks.md.
.PHONY: bench-guards-redis-python
bench-guards-redis-python: python-install
	cd bindings-python && $(WITH_REDIS) $(PY) bench/guard_redis.py

# The DynamoDB, GCS and Azure guards' cost per write (bench/guard_cloud.py),
# each against the same write unguarded, on moto, fake-gcs-server and
# Azurite. Figures: docs/benchmarks.md.
.PHONY: bench-guards-cloud-python
bench-guards-cloud-python: python-install s3-deps gcs-deps azurite-deps
	cd bindings-python && $(PY_WITH_S3) $(WITH_GCS) $(WITH_AZURE) $(PY) bench/guard_cloud.py

# Python's column of the guard's conformance matrix (mk/guards.mk).
GUARD_MATRIX_RUNNERS += python='$(PY) bindings-python/tests/guard_conformance.py'
test-guards-matrix: python-install
