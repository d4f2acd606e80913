//! OpenTelemetry (the cargo feature `otel`), read back through the SDK's
//! in-memory exporter and metric reader: a wait's span with its fence, a
//! hold's span ended released or lost, a guard's check accepted and stale
//! on a real SQLite file, and the counter of late writes refused. The
//! providers are global and shared by every test of this binary, so each
//! test names its own group and resource and reads only its spans.
#![cfg(all(feature = "otel", feature = "guard-sqlite"))]

use opentelemetry::{global, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use std::sync::OnceLock;
use tinystore::testing::TestStore;
use tinystore::Code;

mod guard;

struct Telemetry {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meters: SdkMeterProvider,
}

/// The global providers, set once for the whole binary.
fn telemetry() -> &'static Telemetry {
    static SET: OnceLock<Telemetry> = OnceLock::new();
    SET.get_or_init(|| {
        let spans = InMemorySpanExporter::default();
        let tracer = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        global::set_tracer_provider(tracer);
        let metrics = InMemoryMetricExporter::default();
        let meters = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        global::set_meter_provider(meters.clone());
        Telemetry {
            spans,
            metrics,
            meters,
        }
    })
}

fn attribute<'a>(span: &'a SpanData, name: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == name)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, name: &str) -> String {
    attribute(span, name)
        .unwrap_or_else(|| panic!("{} has no {name}: {:?}", span.name, span.attributes))
        .as_str()
        .into_owned()
}

/// The finished spans called `name` whose `attr` is `value`.
fn spans(name: &str, attr: &str, value: &str) -> Vec<SpanData> {
    let all = telemetry().spans.get_finished_spans().unwrap();
    all.into_iter()
        .filter(|s| s.name == name && attribute(s, attr).is_some_and(|v| v.as_str() == value))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_and_a_hold_are_spans_with_the_fence_and_how_the_hold_ended() {
    telemetry();
    let kit = TestStore::new().await.unwrap();
    let locks = kit.store().locks("otel-holds");
    let first = locks.acquire("k").await.unwrap();
    first.release().await.unwrap();
    let second = locks.acquire("k").await.unwrap();
    kit.expire(&second).await.unwrap();
    let _ = second.release().await;

    let waits = spans("tinystore.wait", "tinystore.group", "otel-holds");
    assert_eq!(waits.len(), 2, "{waits:?}");
    assert_eq!(text(&waits[0], "tinystore.fence"), first.fence().text());
    assert_eq!(text(&waits[0], "tinystore.kind"), "lock");
    assert_eq!(text(&waits[0], "tinystore.key"), "k");
    let holds = spans("tinystore.hold", "tinystore.group", "otel-holds");
    assert_eq!(holds.len(), 2, "{holds:?}");
    let ended: Vec<(String, String)> = holds
        .iter()
        .map(|h| (text(h, "tinystore.fence"), text(h, "tinystore.ended")))
        .collect();
    assert!(
        ended.contains(&(first.fence().text(), "released".into())),
        "{ended:?}"
    );
    assert!(
        ended.contains(&(second.fence().text(), "lost".into())),
        "{ended:?}"
    );
    let lost = holds
        .iter()
        .find(|h| text(h, "tinystore.ended") == "lost")
        .unwrap();
    assert_eq!(text(lost, "tinystore.error.code"), "lease_lost");

    // A wait that times out: a span with the error's code.
    let blocker = locks.acquire("busy").await.unwrap();
    let err = locks
        .clone()
        .wait(std::time::Duration::from_millis(20))
        .acquire("busy")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout);
    let timed_out: Vec<_> = spans("tinystore.wait", "tinystore.key", "busy")
        .into_iter()
        .filter(|s| attribute(s, "tinystore.error.code").is_some())
        .collect();
    assert_eq!(timed_out.len(), 1);
    assert_eq!(text(&timed_out[0], "tinystore.error.code"), "timeout");
    drop(blocker);
}

/// In a child process of its own, where no provider is set yet: a store
/// opened then, then the providers set, then a store opened after. Prints
/// how many wait and hold spans each store's hold made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_opens_a_store_before_and_after_the_provider_is_set() {
    if std::env::var_os("TINYSTORE_OTEL_CHILD").is_none() {
        return;
    }
    let before = TestStore::new().await.unwrap();
    telemetry();
    let after = TestStore::new().await.unwrap();
    for (kit, group) in [(&before, "otel-before"), (&after, "otel-after")] {
        let lease = kit.store().locks(group).acquire("k").await.unwrap();
        lease.release().await.unwrap();
        let waits = spans("tinystore.wait", "tinystore.group", group).len();
        let holds = spans("tinystore.hold", "tinystore.group", group).len();
        println!("CHILD-SPANS {group} {waits} {holds}");
    }
}

#[test]
fn a_store_takes_its_tracer_when_opened_and_none_while_no_provider_is_set() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test_name!("child_opens_a_store_before_and_after_the_provider_is_set"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TINYSTORE_OTEL_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let said: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once("CHILD-SPANS ").map(|(_, s)| s))
        .collect();
    assert_eq!(said, ["otel-before 0 0", "otel-after 1 1"], "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guards_check_is_a_span_and_each_late_write_refused_is_counted() {
    let telemetry = telemetry();
    let kit = TestStore::new().await.unwrap();
    let locks = kit.store().locks("otel-guard");
    let dir = tempfile::tempdir().unwrap();
    let mut conn = rusqlite::Connection::open(dir.path().join("app.db")).unwrap();
    tinystore::guard::rusqlite::ensure(&conn).unwrap();

    let late = locks.acquire("chat").await.unwrap();
    kit.expire(&late).await.unwrap();
    let later = locks.acquire("chat").await.unwrap();
    let tx = conn.transaction().unwrap();
    tinystore::guard::rusqlite::check(&tx, "otel/chat", &later).unwrap();
    tx.commit().unwrap();
    let before = refused_on(telemetry, "sqlite");
    let tx = conn.transaction().unwrap();
    let err = tinystore::guard::rusqlite::check(&tx, "otel/chat", late.fence()).unwrap_err();
    drop(tx);
    assert_eq!(err.code(), Code::Stale);

    let checks = spans("tinystore.guard.check", "tinystore.resource", "otel/chat");
    let outcomes: Vec<(String, String)> = checks
        .iter()
        .map(|c| (text(c, "tinystore.fence"), text(c, "tinystore.outcome")))
        .collect();
    assert_eq!(
        outcomes,
        vec![
            (later.fence().text(), "accepted".to_string()),
            (late.fence().text(), "stale".to_string())
        ]
    );
    assert_eq!(text(&checks[1], "tinystore.largest"), later.fence().text());

    let after = refused_on(telemetry, "sqlite");
    assert!(
        after > before,
        "the refusal was counted: {before} then {after}"
    );
}

/// The count of late writes refused on `backend` so far (every test of
/// this binary counts into it).
fn refused_on(telemetry: &Telemetry, backend: &str) -> u64 {
    telemetry.meters.force_flush().unwrap();
    telemetry
        .metrics
        .get_finished_metrics()
        .unwrap()
        .iter()
        .flat_map(|rm| rm.scope_metrics())
        .flat_map(|sm| sm.metrics())
        .filter(|m| m.name() == "tinystore.guard.refused")
        .filter_map(|m| match m.data() {
            AggregatedMetrics::U64(MetricData::Sum(sum)) => Some(
                sum.data_points()
                    .filter(|p| {
                        p.attributes().any(|kv| {
                            kv.key.as_str() == "tinystore.backend" && kv.value.as_str() == backend
                        })
                    })
                    .map(|p| p.value())
                    .max()
                    .unwrap_or(0),
            ),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}
