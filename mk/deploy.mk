# deploy/: the systemd units and the Prometheus files of docs/deploy.md.
# `make test-deploy` brings systemd-analyze and promtool when they are
# missing (make deps), then runs the test that verifies the units, checks the
# Prometheus files and unit-tests the alerts, runs every query of the
# Grafana dashboard against a real Prometheus scraping a served store under
# load (deploy/grafana-dashboard.json), and runs the service's command
# line (it runs in test-rust too, where it skips what lacks its tool; here,
# in `make test`, nothing is skipped).

TESTS += test-deploy

.PHONY: test-deploy

test-deploy: deps-rust deps
	$(RUST_TEST) --test integration deploy::
