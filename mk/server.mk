# The server, the wire and the Rust client (core/src/{server,wire,client},
# cli serve/hold/status/backup/restore). Their tests run in `test-rust`
# (core/tests/integration/{client,server}, the wire's own in
# core/src/wire/tests/, cli/tests/integration/serve); `make bench-server`
# measures acquire+release pairs and handoffs through the server over its
# Unix socket, in a release build (docs/benchmarks.md, "Server");
# `make bench-hold` measures the engine itself, holds on a store opened
# in-process (docs/benchmarks.md, "Core, embedded").

BENCHES += bench-hold bench-server

.PHONY: bench-hold bench-server

bench-hold:
	$(CARGO) bench -p tinystore --bench hold

bench-server:
	$(CARGO) bench -p tinystore --bench server

# Whether seeing the locks slows holding them: holds with nobody watching,
# a watcher reading, one never reading, and (the second run, built with
# the feature otel) an OpenTelemetry SDK recording spans; the kinds take
# turns sample by sample (core/benches/seeing.rs; docs/benchmarks.md,
# "Seeing the locks"). The first run is built without otel, so its rows
# are what a build without the feature costs.
BENCHES += bench-seeing
.PHONY: bench-seeing
bench-seeing:
	$(CARGO) bench -p tinystore --bench seeing
	$(CARGO) bench -p tinystore --features otel --bench seeing

# The live page of `serve --page` (core/src/server/page.rs, page.html), in
# headless Chromium (Debian's package, brought by `make deps`): a served
# store with a thousand keys held and a workload going on, a new holder
# shown within two of the page's refreshes, the data refused without the
# token. test-rust skips it (beside the connection-surge tests, Chromium
# took the CPU their hello grace needs); here it must run. Screenshots: target/test-artifacts/live-page*.png.
TESTS += test-page

.PHONY: test-page

test-page: deps-rust deps
	TINYSTORE_REQUIRE_CHROMIUM=1 $(RUST_TEST) --test integration serve::page::
