# `make bench-languages`: tinystore through `tinystore serve` beside each
# language's most used Redis lock, in one run (bench/languages/, the table
# and plot in docs/benchmarks.md, "Languages beside Redis"). Installs what
# it needs when missing: redis-server from Debian, redis-py, py-spy and
# matplotlib in a venv (with tinystore's wheel built from ./bindings-python),
# node-redlock and ioredis with npm, go-redsync and go-redis as Go modules.
# BENCH_SECS: the seconds each row runs.

BENCHES += bench-languages
BENCH_SECS ?= 3
LANG_DIR := bench/languages
LANG_OUT := $(CARGO_TARGET_DIR)/bench/languages
LANG_VENV := $(CURDIR)/.venv-bench
LANG_GO_BIN := $(LANG_OUT)/bench-languages-go

.PHONY: bench-languages bench-languages-deps

bench-languages-deps: deps-rust deps-bench go-lib
	@[ -x $(LANG_VENV)/bin/python ] || python3 -m venv $(LANG_VENV)
	$(LANG_VENV)/bin/pip install -q --disable-pip-version-check -r $(LANG_DIR)/python/requirements.txt
	$(LANG_VENV)/bin/pip install -q --disable-pip-version-check --force-reinstall --no-deps ./bindings-python
	cd $(LANG_DIR)/node && npm install --no-audit --no-fund --ignore-scripts
	cd bindings-node && TINYSTORE_NODE_ADDON= node scripts/build.js
	$(CARGO) build --release -p tinystore-cli -p tinystore-bench
	# go build leaves an existing output alone when its Go inputs did not
	# change, though the Rust library it links did: remove it first.
	rm -f $(LANG_GO_BIN)
	mkdir -p $(LANG_OUT) && cd $(LANG_DIR)/go && $(GO) build -o $(LANG_GO_BIN) .

bench-languages: bench-languages-deps
	$(LANG_VENV)/bin/python $(LANG_DIR)/run.py --tinystore $(CARGO_TARGET_DIR)/release/tinystore \
	  --secs $(BENCH_SECS) --out $(LANG_OUT) \
	  --rust $(CARGO_TARGET_DIR)/release/tinystore-languages-rust --go $(LANG_GO_BIN)
	$(LANG_VENV)/bin/python $(LANG_DIR)/report.py $(LANG_OUT) docs/benchmarks.md docs/bench-languages.png
