//! Does seeing the locks slow holding them? Hold round trips per second
//! (acquire, empty body, release) of 8 tasks on 1,000 keys, embedded and
//! through an in-process server, with nobody watching, with a watcher of
//! one other key (never held: it is told nothing), with a watcher of the
//! whole group that reads every event, with one that never reads (it falls
//! behind and is told `lagged`), and, when built with the feature `otel`,
//! with an OpenTelemetry SDK recording every span (batched to an exporter
//! that drops them); without an SDK, "nobody watching" of that build is
//! the feature built in and unused. Served, the watchers have a connection
//! of their own, as a dashboard would. The kinds take turns sample by
//! sample, so a noisy machine touches them alike; medians and ratios to
//! "nobody watching" are printed.
//!
//! `cargo bench -p tinystore --bench seeing` (and `--features otel` for
//! the OpenTelemetry row); `make bench-seeing` runs both. With
//! `SEEING_KINDS=nobody` only "nobody watching" runs (`SEEING_KINDS` names
//! the kinds to run, see [`Kind::all`]): a fixed amount of
//! work, to time a build with `otel` against one without, whole process
//! against whole process. `SEEING_SAMPLES=1` runs one sample of each:
//! a fixed amount of work to count instructions under valgrind.
//! `SEEING_PATHS=embedded` (or `served`) runs that path alone.

use futures_util::StreamExt;
use std::time::Instant;
use tinystore::server::{ServeOptions, Server};
use tinystore::{Error, Store};

/// Samples of each kind, unless `SEEING_SAMPLES` says how many (one, to
/// count a build's instructions under valgrind).
fn samples() -> usize {
    std::env::var("SEEING_SAMPLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(21)
}
const TASKS: usize = 8;
const KEYS: usize = 1000;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    OtherKey,
    Reading,
    Idle,
    #[cfg(feature = "otel")]
    Otel,
}

impl Kind {
    /// Every kind, or those `SEEING_KINDS` names (a comma list of
    /// `nobody`, `other-key`, `reading`, `never-reading`, `otel`).
    fn all() -> Vec<Kind> {
        let every = vec![
            Kind::Plain,
            Kind::OtherKey,
            Kind::Reading,
            Kind::Idle,
            #[cfg(feature = "otel")]
            Kind::Otel,
        ];
        let Ok(named) = std::env::var("SEEING_KINDS") else {
            return every;
        };
        named
            .split(',')
            .map(|name| {
                *every
                    .iter()
                    .find(|kind| kind.short() == name)
                    .unwrap_or_else(|| panic!("SEEING_KINDS: no kind called {name:?}"))
            })
            .collect()
    }

    fn short(self) -> &'static str {
        match self {
            Kind::Plain => "nobody",
            Kind::OtherKey => "other-key",
            Kind::Reading => "reading",
            Kind::Idle => "never-reading",
            #[cfg(feature = "otel")]
            Kind::Otel => "otel",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Plain => "nobody watching",
            Kind::OtherKey => "a watcher of one other key",
            Kind::Reading => "a watcher reading every event",
            Kind::Idle => "a watcher that never reads",
            #[cfg(feature = "otel")]
            Kind::Otel => "OpenTelemetry SDK recording spans",
        }
    }
}

/// The stores of one path: `plain` holds, `watching` watches; `recording`
/// (with the feature `otel`) holds too, opened while an SDK was the global
/// provider, so that its waits and holds are spans (a store takes its
/// tracer when it is opened).
struct Stores {
    plain: Store,
    watching: Store,
    #[cfg(feature = "otel")]
    recording: Store,
}

/// One sample: holds by the stores' `plain` (or `recording`, for the
/// OpenTelemetry kind), watched (if `kind` watches) through `watching`.
async fn sample(stores: &Stores, per_task: usize, kind: Kind) -> f64 {
    #[cfg(feature = "otel")]
    let holder = match kind {
        Kind::Otel => &stores.recording,
        _ => &stores.plain,
    };
    #[cfg(not(feature = "otel"))]
    let holder = &stores.plain;
    let group = holder.locks("seeing");
    let watched = stores.watching.locks("seeing");
    let mut watcher = None;
    match kind {
        Kind::OtherKey => {
            let mut watch = watched.watch("not-held").await.unwrap();
            watcher = Some(tokio::spawn(async move {
                while let Some(Ok(_)) = watch.next().await {}
            }));
        }
        Kind::Reading => {
            let mut watch = watched.watch_all().await.unwrap();
            watcher = Some(tokio::spawn(async move {
                while let Some(Ok(_)) = watch.next().await {}
            }));
        }
        Kind::Idle => {
            let watch = watched.watch_all().await.unwrap();
            watcher = Some(tokio::spawn(async move {
                let _kept = watch;
                std::future::pending::<()>().await;
            }));
        }
        Kind::Plain => {}
        #[cfg(feature = "otel")]
        Kind::Otel => {}
    }
    let start = Instant::now();
    let mut handles = Vec::new();
    for t in 0..TASKS {
        let locks = group.clone();
        handles.push(tokio::spawn(async move {
            for n in 0..per_task {
                let key = (t * per_task + n) % KEYS;
                locks.hold(key, async |_| Ok::<_, Error>(())).await.unwrap();
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let rate = (per_task * TASKS) as f64 / start.elapsed().as_secs_f64();
    if let Some(watcher) = watcher {
        watcher.abort();
    }
    rate
}

async fn run(what: &str, stores: &Stores, per_task: usize) {
    let kinds = Kind::all();
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let samples = samples();
    for s in 0..samples {
        // Each sample starts with another kind: none is always first.
        for i in 0..kinds.len() {
            let k = (s + i) % kinds.len();
            rates[k].push(sample(stores, per_task, kinds[k]).await);
        }
    }
    let medians: Vec<f64> = rates
        .into_iter()
        .map(|mut r| {
            r.sort_by(|a, b| a.partial_cmp(b).unwrap());
            r[r.len() / 2]
        })
        .collect();
    for (kind, median) in kinds.iter().zip(&medians) {
        println!(
            "{what:<9} {:<36} {median:>10.0} holds/s  {:.3}x  (median of {samples})",
            kind.name(),
            median / medians[0]
        );
    }
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry_sdk::error::OTelSdkResult;
    use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};

    /// An exporter that drops what it is given: the SDK's own cost alone.
    #[derive(Debug)]
    struct Dropping;

    impl SpanExporter for Dropping {
        async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
            drop(batch);
            Ok(())
        }
    }

    /// `open`'s store, opened while an SDK recording every span (batched
    /// to an exporter that drops them) is the global provider, which is
    /// then the no-op one again.
    pub async fn recording<F: std::future::Future<Output = tinystore::Store>>(
        open: impl FnOnce() -> F,
    ) -> tinystore::Store {
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(Dropping)
            .build();
        opentelemetry::global::set_tracer_provider(provider);
        let store = open().await;
        opentelemetry::global::set_tracer_provider(
            opentelemetry::trace::noop::NoopTracerProvider::new(),
        );
        store
    }
}

/// Whether the path `what` runs: both unless `SEEING_PATHS` names one
/// (`embedded` or `served`).
fn runs(what: &str) -> bool {
    std::env::var("SEEING_PATHS").map_or(true, |only| only == what)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("embedded")).await.unwrap();
        let stores = Stores {
            plain: store.clone(),
            watching: store,
            #[cfg(feature = "otel")]
            recording: otel::recording(|| async {
                Store::open(dir.path().join("embedded-recorded"))
                    .await
                    .unwrap()
            })
            .await,
        };
        if runs("embedded") {
            run("embedded", &stores, 10_000).await;
        }
        if !runs("served") {
            return;
        }
        let server = Server::start(dir.path().join("served"), ServeOptions::default())
            .await
            .unwrap();
        let address = format!("unix:{}", server.socket_path().display());
        let stores = Stores {
            plain: Store::connect(&address).await.unwrap(),
            watching: Store::connect(&address).await.unwrap(),
            #[cfg(feature = "otel")]
            recording: otel::recording(|| async { Store::connect(&address).await.unwrap() }).await,
        };
        run("served", &stores, 1_000).await;
        server.shutdown().await.unwrap();
    });
}
