//! The server's metrics: what it holds and grants, by name, how long
//! acquires waited and leases were held, why leases were lost, and the
//! late writes guards refused under them; its
//! connections by transport; its epoch and grace; how long each operation
//! takes; and the process's own figures ([`super::process`]). Counting
//! goes on whether or not they are served; `serve --metrics ADDR` serves
//! them ([`super::scrape`]) as Prometheus text. As the engine's [`Tally`]
//! it also logs each lease that ran out.
//!
//! Label values are bounded: the first [`MAX_NAMES`] names of each kind
//! get their own; later ones are counted under the name `other`.

use super::process::Process;
use crate::engine::{Tally, Totals};
use crate::vocab::KeyId;
use crate::wire::MAX_CONNECTIONS;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How many names of each kind (locks, semaphores, elections) have labels
/// of their own; the rest are counted as `other`.
pub const MAX_NAMES: usize = 100;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NameLabels {
    kind: &'static str,
    name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LostLabels {
    kind: &'static str,
    name: String,
    cause: &'static str,
}

/// Why a lease was lost, as the metrics count it: the engine's `why` of
/// an end that was not its holder's own doing.
const CAUSES: [&str; 3] = ["expired", "disconnected", "closed"];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TransportLabels {
    transport: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OpLabels {
    op: &'static str,
}

/// One name's figures, shared with the families that print them.
#[derive(Clone)]
struct NameFigures {
    grants: Counter,
    /// By cause, in the order of [`CAUSES`].
    lost: [Counter; 3],
    held: Gauge,
    waiting: Gauge,
    waited: Histogram,
    held_for: Histogram,
    late_writes_refused: Counter,
}

/// The server's metrics.
pub(super) struct Metrics {
    registry: Registry,
    names: Mutex<Names>,
    grants: Family<NameLabels, Counter>,
    lost: Family<LostLabels, Counter>,
    late_writes_refused: Family<NameLabels, Counter>,
    waited: Family<NameLabels, Histogram, fn() -> Histogram>,
    held_for: Family<NameLabels, Histogram, fn() -> Histogram>,
    held_by_name: Family<NameLabels, Gauge>,
    waiters_by_name: Family<NameLabels, Gauge>,
    held: Gauge,
    waiters: Gauge,
    epoch: Gauge,
    grace_left: Gauge<f64, AtomicU64>,
    connections: Family<TransportLabels, Gauge>,
    refused: Family<TransportLabels, Counter>,
    requests: Family<OpLabels, Histogram, fn() -> Histogram>,
    process: Process,
}

/// A wait in a queue or a hold: 1 ms to about 17 minutes, by fours.
fn lease_time_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 4.0, 11))
}

fn request_histogram() -> Histogram {
    // 10 µs to about 1.5 s.
    Histogram::new(exponential_buckets(0.000_01, 2.5, 14))
}

impl Metrics {
    /// The metrics of a server whose store has `epoch`, made for tests
    /// or not (`testing`).
    pub(super) fn new(epoch: u64, testing: bool) -> Metrics {
        let mut m = Metrics {
            registry: Registry::default(),
            names: Mutex::default(),
            grants: Family::default(),
            lost: Family::default(),
            late_writes_refused: Family::default(),
            waited: Family::new_with_constructor(lease_time_histogram),
            held_for: Family::new_with_constructor(lease_time_histogram),
            held_by_name: Family::default(),
            waiters_by_name: Family::default(),
            held: Gauge::default(),
            waiters: Gauge::default(),
            epoch: Gauge::default(),
            grace_left: Gauge::default(),
            connections: Family::default(),
            refused: Family::default(),
            requests: Family::new_with_constructor(request_histogram),
            process: Process::default(),
        };
        m.epoch.set(i64::try_from(epoch).unwrap_or(i64::MAX));
        let r = &mut m.registry;
        r.register(
            "tinystore_leases_held",
            "Leases and permits held now",
            m.held.clone(),
        );
        r.register(
            "tinystore_leases_held_by_name",
            "Leases and permits held now, by kind and name",
            m.held_by_name.clone(),
        );
        r.register(
            "tinystore_waiters",
            "Acquires waiting in a queue now",
            m.waiters.clone(),
        );
        r.register(
            "tinystore_waiters_by_name",
            "Acquires waiting in a queue now, by kind and name",
            m.waiters_by_name.clone(),
        );
        r.register(
            "tinystore_grants",
            "Leases and permits granted, by kind and name",
            m.grants.clone(),
        );
        r.register(
            "tinystore_leases_lost",
            "Leases and permits lost, by kind, name and cause: expired (its TTL or max_hold ran out), disconnected (its holder's connection ended), closed (the store closed)",
            m.lost.clone(),
        );
        r.register(
            "tinystore_late_writes_refused",
            "Late writes refused by guards, as the leases' holders told the store, by kind and name",
            m.late_writes_refused.clone(),
        );
        r.register(
            "tinystore_wait_seconds",
            "How long granted acquires waited in their key's queue (0 when the key was free), by kind and name",
            m.waited.clone(),
        );
        r.register(
            "tinystore_hold_seconds",
            "How long leases and permits were held, from grant to end, by kind and name",
            m.held_for.clone(),
        );
        r.register(
            "tinystore_connections",
            "Connections open now, by transport",
            m.connections.clone(),
        );
        r.register(
            "tinystore_auth_refused",
            "Connections refused authentication (a wrong or missing token, no hello in time, a failed TLS handshake), by transport",
            m.refused.clone(),
        );
        let max = Gauge::<i64>::default();
        max.set(MAX_CONNECTIONS as i64);
        r.register(
            "tinystore_connections_max",
            "The most connections served at once on each transport (the Unix socket; TCP, plain and TLS together)",
            max,
        );
        r.register(
            "tinystore_epoch",
            "The store's epoch (the high 64 bits of its fences)",
            m.epoch.clone(),
        );
        let test_store = Gauge::<i64>::default();
        test_store.set(i64::from(testing));
        r.register(
            "tinystore_testing",
            "1 when this server was started with --testing: the test kit may move its time and expire its leases",
            test_store,
        );
        r.register(
            "tinystore_grace_left_seconds",
            "What is left of the grace after an unclean stop (no grant before it ends)",
            m.grace_left.clone(),
        );
        r.register(
            "tinystore_request_duration_seconds",
            "Time the server spent handling a request, by operation (a wait in a queue not included)",
            m.requests.clone(),
        );
        m.process.register(r);
        m
    }

    /// A connection over `transport` opened; it counts until the guard drops.
    pub(super) fn connection(self: &Arc<Metrics>, transport: &'static str) -> OpenConnection {
        let labels = TransportLabels { transport };
        self.connections.get_or_create(&labels).inc();
        OpenConnection {
            metrics: self.clone(),
            labels,
        }
    }

    /// A connection over `transport` was refused authentication.
    pub(super) fn refused(&self, transport: &'static str) {
        self.refused
            .get_or_create(&TransportLabels { transport })
            .inc();
    }

    /// A request `op` took `took` to handle.
    pub(super) fn request(&self, op: &'static str, took: Duration) {
        self.requests
            .get_or_create(&OpLabels { op })
            .observe(took.as_secs_f64());
    }

    /// The figures as Prometheus text (OpenMetrics), after reading what is
    /// held and waiting now and the process's figures.
    pub(super) fn render(&self, totals: Totals) -> String {
        self.held.set(totals.held as i64);
        self.waiters.set(totals.waiters as i64);
        self.set_waiting(&totals.waiting_by_name);
        self.grace_left.set(totals.grace_left.as_secs_f64());
        self.process.refresh();
        let mut text = String::new();
        if prometheus_client::encoding::text::encode(&mut text, &self.registry).is_err() {
            text.clear();
        }
        text
    }

    /// Sets each name's waiters (zero for those with none now).
    fn set_waiting(&self, waiting: &[(&'static str, String, usize)]) {
        let mut names = self.names();
        for figures in names.values().flat_map(|of_kind| of_kind.values()) {
            figures.waiting.set(0);
        }
        for (kind, name, count) in waiting {
            figures(self, &mut names, kind, name)
                .waiting
                .inc_by(*count as i64);
        }
    }

    fn names(&self) -> MutexGuard<'_, Names> {
        self.names.lock().unwrap_or_else(|p| p.into_inner())
    }
}

type Names = HashMap<&'static str, HashMap<Box<str>, NameFigures>>;

/// The figures of the name `name` of `kind`, made on first use; past
/// [`MAX_NAMES`] names of its kind, those of `other`.
fn figures<'n>(
    metrics: &Metrics,
    names: &'n mut Names,
    kind: &'static str,
    name: &str,
) -> &'n NameFigures {
    let of_kind = names.entry(kind).or_default();
    let name = if of_kind.contains_key(name) || of_kind.len() < MAX_NAMES {
        name
    } else {
        "other"
    };
    of_kind.entry(name.into()).or_insert_with(|| {
        let labels = NameLabels {
            kind,
            name: name.to_string(),
        };
        let lost = CAUSES.map(|cause| {
            let labels = LostLabels {
                kind,
                name: name.to_string(),
                cause,
            };
            metrics.lost.get_or_create(&labels).clone()
        });
        NameFigures {
            grants: metrics.grants.get_or_create(&labels).clone(),
            lost,
            held: metrics.held_by_name.get_or_create(&labels).clone(),
            waiting: metrics.waiters_by_name.get_or_create(&labels).clone(),
            waited: metrics.waited.get_or_create(&labels).clone(),
            held_for: metrics.held_for.get_or_create(&labels).clone(),
            late_writes_refused: metrics.late_writes_refused.get_or_create(&labels).clone(),
        }
    })
}

impl Tally for Metrics {
    fn refused(&self, kind: &'static str, name: &str) {
        let mut names = self.names();
        figures(self, &mut names, kind, name)
            .late_writes_refused
            .inc();
    }

    fn granted(&self, key: &KeyId, waited: Duration) {
        let mut names = self.names();
        let f = figures(self, &mut names, key.kind(), key.name());
        f.grants.inc();
        f.held.inc();
        f.waited.observe(waited.as_secs_f64());
    }

    fn ended(&self, key: &KeyId, why: &str, held: Duration) {
        {
            let mut names = self.names();
            let f = figures(self, &mut names, key.kind(), key.name());
            f.held.dec();
            f.held_for.observe(held.as_secs_f64());
            if let Some(cause) = CAUSES.iter().position(|c| *c == why) {
                f.lost[cause].inc();
            }
        }
        if why == "expired" {
            tracing::info!(
                target: "tinystore::lease",
                name = key.name(),
                key = key.key(),
                "lease lost: its TTL ran out without a renewal"
            );
        }
    }
}

/// An open connection, counted until dropped.
pub(super) struct OpenConnection {
    metrics: Arc<Metrics>,
    labels: TransportLabels,
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.metrics.connections.get_or_create(&self.labels).dec();
    }
}
