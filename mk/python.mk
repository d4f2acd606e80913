# The Python binding (bindings-python/): a venv under the repo, the package
# built from source by `pip install ./bindings-python` (maturin, release, in
# the shared cargo target dir), then mypy --strict and pytest.

PY_VENV := $(CURDIR)/.venv-python
PY := $(PY_VENV)/bin/python
PY_TINYSTORE_BIN := $(CARGO_TARGET_DIR)/debug/tinystore

TESTS += test-python
BENCHES += bench-python

.PHONY: python-env python-install test-python bench-python

$(PY):
	python3 -m venv $(PY_VENV) || { apt-get update && apt-get install -y python3-venv python3-pip && python3 -m venv $(PY_VENV); }

python-env: $(PY)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip maturin mypy pytest

python-install: python-env deps-rust
	$(PY) -m pip install -q --disable-pip-version-check --force-reinstall --no-deps ./bindings-python

test-python: python-install
	@command -v etcd >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; }
	$(CARGO) build -q -p tinystore-cli
	cd bindings-python && $(PY) -m mypy --strict python/tinystore tests bench
	cd bindings-python && TINYSTORE_BIN=$(PY_TINYSTORE_BIN) $(PY) -m pytest -q -p no:cacheprovider; \
	  status=$$?; if [ $$status -eq 5 ]; then echo "test-python: pytest ran no test" >&2; exit 1; fi; exit $$status

bench-python: python-install
	$(CARGO) build -q --release -p tinystore-cli
	cd bindings-python && TINYSTORE_BIN=$(CARGO_TARGET_DIR)/release/tinystore $(PY) bench/hold.py
