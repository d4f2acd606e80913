# deploy/: the systemd units and the Prometheus files of docs/deploy.md.
# `make test-deploy` brings systemd-analyze and promtool when they are
# missing, then runs the test that verifies the units, checks the
# Prometheus files and unit-tests the alerts, and runs the service's command
# line (it runs in test-rust too, where it skips what lacks its tool; here,
# in `make test`, nothing is skipped).

TESTS += test-deploy

.PHONY: test-deploy

test-deploy: deps-rust
	@command -v systemd-analyze >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y systemd; }
	@command -v promtool >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus; }
	$(CARGO) test -p tinystore-cli --test deploy_units
