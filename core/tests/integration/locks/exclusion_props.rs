//! Property tests of mutual exclusion: many tasks on few keys, with waits,
//! give-ups, try-acquires and leases that run out. Never two held leases on
//! one key at once; a semaphore never above its limit; each key's fences
//! strictly increase in the order the key was held; no fence given twice.

use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::{Options, Store};

#[derive(Debug, Clone)]
struct Step {
    key: u8,
    semaphore: bool,
    start_ms: u64,
    hold_ms: u64,
    wait_ms: Option<u64>,
    try_only: bool,
    ttl_ms: Option<u64>,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..3,
        any::<bool>(),
        0u64..50,
        0u64..30,
        prop::option::of(0u64..40),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.3, 10u64..40),
    )
        .prop_map(
            |(key, semaphore, start_ms, hold_ms, wait_ms, try_only, ttl_ms)| Step {
                key,
                semaphore,
                start_ms,
                hold_ms,
                wait_ms,
                try_only,
                ttl_ms,
            },
        )
}

const LIMIT: usize = 2;

/// Tells whether a recorded lease or permit is still held.
type IsHeld = Arc<dyn Fn() -> bool + Send + Sync>;

#[derive(Default)]
struct Log {
    held: HashMap<(bool, u8), Vec<(usize, IsHeld)>>,
    fences: HashMap<u8, Vec<u128>>,
    grants: usize,
    violations: Vec<String>,
}

async fn run(steps: Vec<Step>) -> Log {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let log = Arc::new(Mutex::new(Log::default()));
    let mut tasks = Vec::new();
    for (n, s) in steps.into_iter().enumerate() {
        let store = store.clone();
        let log = log.clone();
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(s.start_ms)).await;
            let options = Options {
                ttl: s.ttl_ms.map(Duration::from_millis),
                wait: s.wait_ms.map(Duration::from_millis),
                renew: Some(s.ttl_ms.is_none()),
                ..Options::default()
            };
            let slot = (s.semaphore, s.key);
            let (is_held, release): (IsHeld, _) = if s.semaphore {
                let sem = store.semaphore("sem", LIMIT as u32);
                let got = if s.try_only {
                    sem.try_acquire_with(s.key, options).await.unwrap()
                } else {
                    sem.acquire_with(s.key, options).await.ok()
                };
                let Some(permit) = got else { return };
                let permit = Arc::new(permit);
                let p = permit.clone();
                (
                    Arc::new(move || p.is_held()),
                    Box::new(move || drop(permit)) as Box<dyn FnOnce() + Send>,
                )
            } else {
                let locks = store.locks("lock");
                let got = if s.try_only {
                    locks.try_acquire_with(s.key, options).await.unwrap()
                } else {
                    locks.acquire_with(s.key, options).await.ok()
                };
                let Some(lease) = got else { return };
                log.lock()
                    .unwrap()
                    .fences
                    .entry(s.key)
                    .or_default()
                    .push(lease.fence().get());
                let lease = Arc::new(lease);
                let l = lease.clone();
                (
                    Arc::new(move || l.is_held()),
                    Box::new(move || drop(lease)) as Box<dyn FnOnce() + Send>,
                )
            };
            {
                let mut log = log.lock().unwrap();
                log.grants += 1;
                let limit = if s.semaphore { LIMIT } else { 1 };
                let others = log.held.entry(slot).or_default();
                others.retain(|(_, held)| held());
                others.push((n, is_held.clone()));
                if others.len() > limit {
                    let msg = format!("{} held leases on {slot:?} at once", others.len());
                    log.violations.push(msg);
                }
            }
            tokio::time::sleep(Duration::from_millis(s.hold_ms)).await;
            log.lock()
                .unwrap()
                .held
                .entry(slot)
                .or_default()
                .retain(|(m, _)| *m != n);
            release();
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let status = store.status().await.unwrap();
    if !status.held.is_empty() || !status.waiting.is_empty() {
        log.lock()
            .unwrap()
            .violations
            .push(format!("left behind: {status:?}"));
    }
    let log = std::mem::take(&mut *log.lock().unwrap());
    log
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn never_two_holders_and_fences_grow(steps in prop::collection::vec(step(), 1..40)) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        let log = rt.block_on(run(steps));
        prop_assert!(log.violations.is_empty(), "{:?}", log.violations);
        prop_assert!(log.grants >= 1, "the first task always gets its key");
        let mut seen = HashSet::new();
        for (key, fences) in &log.fences {
            prop_assert!(fences.windows(2).all(|w| w[0] < w[1]), "key {}: {:?}", key, fences);
            for f in fences {
                prop_assert!(seen.insert(*f), "fence {} given twice", f);
            }
        }
    }
}
