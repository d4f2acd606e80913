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
