//! `tinystore serve` (cli/src/serve.rs, supervise.rs, logs.rs): the wire,
//! TLS, metrics, crowds and surges, crashes, bad input and the audit log.

mod accept_errors;
mod audit_props;
mod bad_input;
mod closed_output;
mod command;
mod crash;
mod crowds;
mod logs;
mod metrics;
mod metrics_tls;
mod page;
mod refusals;
mod reliability_edges;
mod scene;
mod surges;
mod testing;
mod tls;
mod wire;
