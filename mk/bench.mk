# `make bench`: tinystore against Redis, etcd and PostgreSQL on loopback, in
# one run (bench/). Installs the peers from Debian when missing (make deps-bench).

BENCHES += bench-peers
BENCH_SECONDS ?= 5
BENCH_VENV := $(CURDIR)/.venv-bench

.PHONY: bench-peers bench-deps

bench-deps: deps-rust deps-bench
	@[ -x $(BENCH_VENV)/bin/python ] || python3 -m venv $(BENCH_VENV)
	@$(BENCH_VENV)/bin/python -c 'import matplotlib' 2>/dev/null || $(BENCH_VENV)/bin/pip install -q matplotlib

bench-peers: bench-deps
	$(CARGO) build --release -p tinystore-cli -p tinystore-bench
	$(CARGO_TARGET_DIR)/release/tinystore-bench --seconds $(BENCH_SECONDS) \
	  --tinystore $(CARGO_TARGET_DIR)/release/tinystore --out $(CARGO_TARGET_DIR)/bench/report.md
	$(BENCH_VENV)/bin/python bench/plot.py $(CARGO_TARGET_DIR)/bench/report.json docs/bench-throughput.png
	$(BENCH_VENV)/bin/python bench/update_doc.py $(CARGO_TARGET_DIR)/bench/report.md docs/benchmarks.md
