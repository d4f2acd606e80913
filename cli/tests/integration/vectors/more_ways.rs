//! Runs every case of the `more_ways` section of vectors/behaviour.json
//! (read-write locks, weighted permits, several keys at once, max_hold)
//! against the real library, on an embedded store and over a `tinystore
//! serve` process reached by two connections.

use crate::support::server::Served;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;
use tinystore::{Error, Fence, Lease, Options, Permit, Store};
use tokio::task::JoinHandle;

const VECTORS: &str = include_str!("../../../../vectors/behaviour.json");
const PATIENCE: Duration = Duration::from_secs(20);

/// What a label holds.
enum Held {
    Lease(Lease),
    Permit(Permit),
    All(Vec<Lease>),
}

impl Held {
    fn fence(&self) -> Option<Fence> {
        match self {
            Held::Lease(lease) => Some(lease.fence()),
            Held::Permit(_) | Held::All(_) => None,
        }
    }

    async fn release(self) {
        match self {
            Held::Lease(lease) => lease.release().await.unwrap(),
            Held::Permit(permit) => permit.release().await.unwrap(),
            Held::All(leases) => {
                for lease in leases {
                    lease.release().await.unwrap();
                }
            }
        }
    }

    async fn lost(&self) -> Error {
        match self {
            Held::Lease(lease) => lease.lost().await,
            Held::Permit(permit) => permit.lost().await,
            Held::All(leases) => leases[0].lost().await,
        }
    }
}

/// One case's group on one handle.
#[derive(Clone)]
struct Group {
    store: Store,
    kind: String,
    name: String,
    limit: u32,
}

impl Group {
    async fn take(&self, what: &str, key: &str, options: Options) -> Result<Option<Held>, Error> {
        let (name, limit) = (self.name.as_str(), self.limit);
        Ok(match (self.kind.as_str(), what) {
            ("locks", "try_acquire") => self
                .store
                .locks(name)
                .try_acquire_with(key, options)
                .await?
                .map(Held::Lease),
            ("locks", "acquire") => Some(Held::Lease(
                self.store.locks(name).acquire_with(key, options).await?,
            )),
            ("semaphore", "try_acquire") => self
                .store
                .semaphore(name, limit)
                .try_acquire_with(key, options)
                .await?
                .map(Held::Permit),
            ("semaphore", "acquire") => Some(Held::Permit(
                self.store
                    .semaphore(name, limit)
                    .acquire_with(key, options)
                    .await?,
            )),
            ("rw_locks", "try_read") => self
                .store
                .rw_locks(name)
                .try_acquire_read_with(key, options)
                .await?
                .map(Held::Permit),
            ("rw_locks", "try_write") => self
                .store
                .rw_locks(name)
                .try_acquire_write_with(key, options)
                .await?
                .map(Held::Lease),
            ("rw_locks", "acquire_read") => Some(Held::Permit(
                self.store
                    .rw_locks(name)
                    .acquire_read_with(key, options)
                    .await?,
            )),
            ("rw_locks", "acquire_write") => Some(Held::Lease(
                self.store
                    .rw_locks(name)
                    .acquire_write_with(key, options)
                    .await?,
            )),
            (kind, what) => panic!("a {kind} group cannot {what}"),
        })
    }
}

fn options_of(step: &Value) -> Options {
    let ms = |field: &str| step[field].as_u64().map(Duration::from_millis);
    Options {
        ttl: ms("ttl_ms"),
        wait: ms("wait_ms"),
        max_hold: ms("max_hold_ms"),
        weight: step["weight"]
            .as_u64()
            .map(|w| u32::try_from(w).expect("a weight fits 32 bits")),
        ..Options::default()
    }
}

/// Checks `got` against the step's `expect` (and `message_has`), keeping
/// what was granted under its label.
fn expect(id: &str, step: &Value, got: Result<Option<Held>, Error>, held: &mut Labels) {
    let wanted = step["expect"].as_str().unwrap_or("granted");
    match (wanted, got) {
        ("granted", Ok(Some(h))) => held.keep(step, h),
        ("refused", Ok(None)) => {}
        (code, Err(err)) => {
            assert_eq!(err.code().as_str(), code, "{id}: {err}");
            let has = step["message_has"].as_str().unwrap_or("");
            assert!(err.message().contains(has), "{id}: {err:?} lacks {has:?}");
        }
        (wanted, Ok(got)) => panic!(
            "{id}: {step}: expected {wanted}, got granted={}",
            got.is_some()
        ),
    }
}

/// The labels of a case: what each holds, its fence when granted, and the
/// acquires still waiting.
#[derive(Default)]
struct Labels {
    held: HashMap<String, Held>,
    fences: HashMap<String, Fence>,
    waiting: HashMap<String, JoinHandle<Result<Option<Held>, Error>>>,
}

impl Labels {
    fn keep(&mut self, step: &Value, held: Held) {
        if let Some(label) = step["as"].as_str() {
            if let Some(fence) = held.fence() {
                self.fences.insert(label.to_string(), fence);
            }
            self.held.insert(label.to_string(), held);
        }
    }
}

async fn until_waiting(store: &Store, name: &str, key: &str, waiters: usize, id: &str) {
    let started = std::time::Instant::now();
    while started.elapsed() < PATIENCE {
        let status = store.status().await.unwrap();
        let now = status
            .waiting
            .iter()
            .find(|w| w.name == name && w.key == key)
            .map_or(0, |w| w.waiters);
        if now == waiters {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{id}: {waiters} callers never showed waiting for {key}");
}

async fn run_case(case: &Value, kind: &str) {
    let id = &format!("{} ({kind})", case["id"].as_str().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (a, b, _served) = match kind {
        "embedded" => {
            let store = Store::open(&dir).await.unwrap();
            (store.clone(), store, None)
        }
        "served" => {
            let served = Served::start(&dir, &[]);
            let a = Store::connect(&served.address()).await.unwrap();
            let b = Store::connect(&served.address()).await.unwrap();
            (a, b, Some(served))
        }
        other => panic!("{id}: unknown store {other:?}"),
    };
    let group = |store: &Store| Group {
        store: store.clone(),
        kind: case["group"].as_str().unwrap().to_string(),
        name: case["name"].as_str().unwrap().to_string(),
        limit: case["limit"].as_u64().unwrap_or(1) as u32,
    };
    let (ga, gb) = (group(&a), group(&b));
    let mut labels = Labels::default();
    for step in case["steps"].as_array().unwrap() {
        let g = if step["who"] == "b" { &gb } else { &ga };
        let key = step["key"].as_str().unwrap_or("");
        let label = step["as"].as_str().unwrap_or("").to_string();
        match step["do"].as_str().unwrap() {
            what @ ("try_acquire" | "try_read" | "try_write") => {
                let got = g.take(what, key, options_of(step)).await;
                expect(id, step, got, &mut labels);
            }
            what @ ("acquire" | "acquire_read" | "acquire_write") => {
                let (g2, what, key2, options) = (
                    g.clone(),
                    what.to_string(),
                    key.to_string(),
                    options_of(step),
                );
                let task = tokio::spawn(async move { g2.take(&what, &key2, options).await });
                labels.waiting.insert(label, task);
                if let Some(n) = step["waiters"].as_u64() {
                    until_waiting(&a, &ga.name, key, n as usize, id).await;
                }
            }
            "acquire_all" => {
                let keys: Vec<String> = step["keys"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap().to_string())
                    .collect();
                let got = g
                    .store
                    .locks(&g.name)
                    .acquire_all(keys.clone(), options_of(step))
                    .await;
                if let Ok(leases) = &got {
                    let order: Vec<&str> = leases.iter().map(|l| l.key()).collect();
                    assert_eq!(order, keys, "{id}: leases in the caller's order");
                    let mut fences: Vec<Fence> = leases.iter().map(|l| l.fence()).collect();
                    fences.dedup();
                    assert_eq!(fences.len(), keys.len(), "{id}: a fence each");
                }
                expect(id, step, got.map(|l| Some(Held::All(l))), &mut labels);
            }
            "granted" => {
                let task = labels.waiting.remove(&label).expect("a waiting label");
                let got = tokio::time::timeout(PATIENCE, task)
                    .await
                    .unwrap_or_else(|_| panic!("{id}: {label} was never granted"))
                    .unwrap();
                expect(id, step, got, &mut labels);
            }
            "release" => {
                labels
                    .held
                    .remove(&label)
                    .expect("a held label")
                    .release()
                    .await
            }
            "lost" => {
                let held = labels.held.get(&label).expect("a held label");
                let err = tokio::time::timeout(PATIENCE, held.lost())
                    .await
                    .unwrap_or_else(|_| panic!("{id}: {label} was never lost"));
                expect(id, step, Err(err), &mut labels);
            }
            "no_fence" => assert!(labels.held[&label].fence().is_none(), "{id}"),
            "fence_above" => {
                let than = step["than"].as_str().unwrap();
                assert!(labels.fences[&label] > labels.fences[than], "{id}");
            }
            "status" => {
                let status = a.status().await.unwrap();
                let mut shown: Vec<(String, Option<String>, u32)> = status
                    .held
                    .iter()
                    .filter(|h| h.name == ga.name && h.key == key)
                    .map(|h| (h.kind.clone(), h.mode.clone(), h.weight))
                    .collect();
                let mut wanted: Vec<(String, Option<String>, u32)> = step["held"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| {
                        (
                            h["kind"].as_str().unwrap().to_string(),
                            h["mode"].as_str().map(str::to_string),
                            h["weight"].as_u64().unwrap() as u32,
                        )
                    })
                    .collect();
                shown.sort();
                wanted.sort();
                assert_eq!(shown, wanted, "{id}: {status:?}");
            }
            other => panic!("{id}: unknown step {other:?}"),
        }
    }
    assert!(labels.waiting.is_empty(), "{id}: a label never granted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_more_ways_case_behaves_as_the_vectors_say() {
    let vectors: Value = serde_json::from_str(VECTORS).unwrap();
    let cases = vectors["more_ways"]["cases"].as_array().unwrap();
    assert!(cases.len() >= 8, "the section lost cases");
    for case in cases {
        for kind in case["stores"].as_array().unwrap() {
            run_case(case, kind.as_str().unwrap()).await;
        }
    }
}
