# The chat-summaries example (examples/chat-summaries/): the same program in
# Rust, Python, TypeScript (Node) and Go. The scheduler example
# (examples/scheduler/): a leader-only job in Rust, Python, TypeScript and
# Go, tested by its own pytest run. `make test-examples` builds each
# and runs the cross-language tests (every ordered pair of languages plays
# the README's scene through one `tinystore serve`, with worker A stopped by
# SIGSTOP; and every language reads vectors/fences.json alike). Pick the
# languages with LANGUAGES="rust python node go" (the default: all four).

EXAMPLE_DIR := examples/chat-summaries
SCHEDULER_DIR := examples/scheduler
LANGUAGES ?= rust python node go

TESTS += test-examples

.PHONY: examples-build test-examples

examples-build: python-install node-deps go-tools go-lib
	$(DEBUG_BINS)
	# (go build would keep an old output that links an older Rust library)
	rm -f $(CARGO_TARGET_DIR)/chat-summaries-go $(CARGO_TARGET_DIR)/scheduler-go
	cd $(EXAMPLE_DIR)/go && $(GO) vet . && $(GO) build -o $(CARGO_TARGET_DIR)/chat-summaries-go .
	cd $(EXAMPLE_DIR)/node && $(NPM_INSTALL)
	cd $(EXAMPLE_DIR)/python && $(PY) -m mypy --strict --no-incremental .
	cd $(EXAMPLE_DIR)/node && npx tsc -p tsconfig.json
	cd $(SCHEDULER_DIR)/go && $(GO) vet . && $(GO) build -o $(CARGO_TARGET_DIR)/scheduler-go .
	cd $(SCHEDULER_DIR) && $(PY) -m mypy --strict --no-incremental python tests
	cd $(SCHEDULER_DIR)/node && $(NPM_INSTALL) && npx tsc -p tsconfig.json

test-examples: examples-build
	LANGUAGES="$(LANGUAGES)" $(PY) -m pytest -q -p no:cacheprovider $(EXAMPLE_DIR)/tests; \
	  status=$$?; if [ $$status -eq 5 ]; then echo "test-examples: pytest ran no test" >&2; exit 1; fi; exit $$status
	LANGUAGES="$(LANGUAGES)" $(PY) -m pytest -q -p no:cacheprovider $(SCHEDULER_DIR)/tests; \
	  status=$$?; if [ $$status -eq 5 ]; then echo "test-examples: the scheduler's pytest ran no test" >&2; exit 1; fi; exit $$status

# The fenced-service example (examples/fenced-service/): a WSGI service
# whose handler saves through the SQL guard, and a worker per language that
# calls it with its fence. `make test-fenced-service` plays the scene over
# HTTP for each language of LANGUAGES (the service itself is Python).
FENCED_DIR := examples/fenced-service
FENCED_LANGUAGES := python $(filter-out python,$(LANGUAGES))

TESTS += test-fenced-service
.PHONY: test-fenced-service

test-fenced-service: python-install $(if $(filter node,$(FENCED_LANGUAGES)),node-deps) \
  $(if $(filter go,$(FENCED_LANGUAGES)),go-tools go-lib)
	$(DEBUG_BINS)
	$(if $(filter go,$(FENCED_LANGUAGES)),rm -f $(CARGO_TARGET_DIR)/fenced-service-worker-go && \
	  cd $(FENCED_DIR)/go && $(GO) vet . && $(GO) build -o $(CARGO_TARGET_DIR)/fenced-service-worker-go .)
	cd $(FENCED_DIR) && $(PY) -m mypy --strict --no-incremental service.py python tests
	LANGUAGES="$(filter $(LANGUAGES),$(FENCED_LANGUAGES))" FENCED_SERVICE_REQUIRE="$(FENCED_LANGUAGES)" \
	  $(PY) -m pytest -q -p no:cacheprovider -rs $(FENCED_DIR)/tests; \
	  status=$$?; if [ $$status -eq 5 ]; then echo "test-fenced-service: pytest ran no test" >&2; exit 1; fi; exit $$status
