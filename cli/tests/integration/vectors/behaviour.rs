//! Runs every case of vectors/behaviour.json against the real library: what
//! `hold` gives for each way its body and its lease can end (on an embedded
//! store and over a `tinystore serve` process, killed or stopped for real),
//! and which error each bad input gets. A case this runner cannot express
//! fails the test unless the file marks it not applicable to Rust.

use crate::support::server::Served;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tinystore::{Code, Error, Lease, Permit, Store};

const VECTORS: &str = include_str!("../../../../vectors/behaviour.json");

/// The body's own error, or a tinystore error from hold.
#[derive(Debug)]
enum BodyError {
    Own,
    Store(Error),
}

impl From<Error> for BodyError {
    fn from(err: Error) -> BodyError {
        BodyError::Store(err)
    }
}

fn vectors() -> Value {
    serde_json::from_str(VECTORS).expect("vectors/behaviour.json is JSON")
}

/// A store of the kind a case names, with the server behind it if served.
async fn store_of(kind: &str, dir: &std::path::Path) -> (Store, Option<Served>) {
    match kind {
        "embedded" => (Store::open(dir).await.unwrap(), None),
        "served" => {
            let served = Served::start(dir, &[]);
            let store = Store::connect(&served.address()).await.unwrap();
            (store, Some(served))
        }
        other => panic!("unknown store {other:?}"),
    }
}

fn signal(served: &Option<Served>, sig: libc::c_int, id: &str) {
    let served = served
        .as_ref()
        .unwrap_or_else(|| panic!("{id}: a server event needs a served store"));
    // SAFETY: kill(2) on the server process this test started.
    assert_eq!(unsafe { libc::kill(served.pid(), sig) }, 0, "{id}");
}

/// Runs one hold case; gives what hold returned.
async fn run_hold(case: &Value) -> Result<&'static str, BodyError> {
    let id = case["id"].as_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (store, served) = store_of(case["store"].as_str().unwrap(), &tmp.path().join("s")).await;
    let mut locks = store.locks("behaviour");
    if let Some(ttl) = case["ttl_ms"].as_u64() {
        locks = locks.ttl(Duration::from_millis(ttl));
    }
    if let Some(renew) = case["renew"].as_bool() {
        locks = locks.renew(renew);
    }
    let during = case["during"].as_str().unwrap();
    let body = case["body"].as_str().unwrap();
    let outcome = locks
        .hold(
            "k",
            async |lease: &Lease| -> Result<&'static str, BodyError> {
                match during {
                    "nothing" => {}
                    "released" => lease.release().await.unwrap(),
                    "runs_out" => {
                        lease.lost().await;
                    }
                    "store_closes" => {
                        store.close().await.unwrap();
                        lease.lost().await;
                    }
                    "server_killed" | "server_stopped" => {
                        let sig = if during == "server_killed" {
                            libc::SIGKILL
                        } else {
                            libc::SIGTERM
                        };
                        signal(&served, sig, id);
                        lease.lost().await;
                    }
                    other => panic!("{id}: unknown event {other:?}"),
                }
                match body {
                    "value" => Ok("the body's value"),
                    "error" => Err(BodyError::Own),
                    // The hold stops the body at this await when the lease
                    // is lost: Rust's cancellation by the loss.
                    "cancelled" => std::future::pending().await,
                    other => panic!("{id}: unknown body {other:?}"),
                }
            },
        )
        .await;
    let _ = store.close().await;
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hold_case() {
    every_case_of("hold").await;
}

/// A body ended by the cancellation its lease's loss caused is the loss.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hold_end_case() {
    every_case_of("hold_end").await;
}

/// Runs every case of the hold section `section` (`hold`, `hold_end`).
async fn every_case_of(section: &str) {
    let vectors = vectors();
    let cases = vectors[section]["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    let mut wrong = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let outcome = tokio::time::timeout(Duration::from_secs(30), run_hold(case))
            .await
            .unwrap_or_else(|_| panic!("{id}: hold did not end"));
        let want = case["expect"].as_str().unwrap();
        let right = match &outcome {
            Ok(v) => want == "value" && *v == "the body's value",
            Err(BodyError::Own) => want == "body_error",
            Err(BodyError::Store(err)) => err.code().as_str() == want,
        };
        if !right {
            wrong.push(format!("{id}: expected {want}, got {outcome:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// A name or key: a string, or `{"repeat": s, "times": n}`.
fn text(value: &Value, id: &str) -> String {
    if let Some(s) = value.as_str() {
        return s.to_string();
    }
    if let (Some(s), Some(n)) = (value["repeat"].as_str(), value["times"].as_u64()) {
        return s.repeat(n as usize);
    }
    panic!("{id}: Rust cannot give {value} as text")
}

fn millis(value: &Value, id: &str, what: &str) -> Option<Duration> {
    if value.is_null() {
        return None;
    }
    let ms = value
        .as_u64()
        .unwrap_or_else(|| panic!("{id}: Rust cannot give {what} {value} as a Duration"));
    Some(Duration::from_millis(ms))
}

/// Runs one bad input on one store; gives the error it got, or what went
/// wrong instead.
async fn run_bad(case: &Value, kind: &str) -> Result<Error, String> {
    let id = case["id"].as_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (store, _served) = store_of(kind, &tmp.path().join("s")).await;
    let name = text(&case["name"], id);
    let key = text(&case["key"], id);
    let options = tinystore::Options {
        ttl: millis(&case["ttl_ms"], id, "ttl_ms"),
        wait: millis(&case["wait_ms"], id, "wait_ms"),
        renew: None,
        ..Default::default()
    };
    let limit = |v: &Value| -> u32 {
        let n = v.as_i64().unwrap_or_else(|| panic!("{id}: no limit"));
        u32::try_from(n).unwrap_or_else(|_| panic!("{id}: Rust cannot give limit {n}"))
    };
    let mut _first = None;
    if !case["held_first"].is_null() {
        let first = store.semaphore(&name, limit(&case["held_first"]));
        _first = Some(first.acquire(key.as_str()).await.unwrap());
    }
    let ran = AtomicBool::new(false);
    let result = match case["group"].as_str().unwrap() {
        "locks" => {
            let body = async |_: &Lease| -> Result<(), Error> {
                ran.store(true, Ordering::SeqCst);
                Ok(())
            };
            store
                .locks(&name)
                .hold_with(key.as_str(), options, body)
                .await
        }
        "semaphore" => {
            let group = store.semaphore(&name, limit(&case["limit"]));
            let body = async |_: &Permit| -> Result<(), Error> {
                ran.store(true, Ordering::SeqCst);
                Ok(())
            };
            group.hold_with(key.as_str(), options, body).await
        }
        other => panic!("{id}: unknown group {other:?}"),
    };
    let _ = store.close().await;
    if ran.load(Ordering::SeqCst) {
        return Err("the body ran".into());
    }
    result.err().ok_or_else(|| "hold succeeded".into())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_input() {
    let vectors = vectors();
    let cases = vectors["bad_input"]["cases"].as_array().unwrap();
    let (mut ran, mut skipped, mut wrong) = (0, 0, Vec::new());
    for case in cases {
        let id = case["id"].as_str().unwrap();
        if let Some(reason) = case["not_applicable"]["rust"].as_str() {
            assert!(
                !reason.is_empty(),
                "{id}: a not_applicable needs its reason"
            );
            skipped += 1;
            continue;
        }
        for kind in case["stores"].as_array().unwrap() {
            let kind = kind.as_str().unwrap();
            let got = run_bad(case, kind).await;
            let want = Code::parse(case["expect"].as_str().unwrap()).unwrap();
            let has = case["message_has"].as_str().unwrap();
            match got {
                Ok(err) if err.code() == want && err.message().contains(has) => {}
                Ok(err) => wrong.push(format!(
                    "{id} on {kind}: want {want} naming {has:?}, got {err}"
                )),
                Err(why) => wrong.push(format!("{id} on {kind}: {why}")),
            }
            ran += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        ran > 0 && ran + skipped >= cases.len(),
        "ran {ran}, not applicable {skipped}"
    );
}
