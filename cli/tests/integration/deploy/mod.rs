//! deploy/: the systemd units checked and run, the Prometheus files and
//! the Grafana dashboard run against real Prometheus.

mod dashboard;
mod units;
