//! Random mixes of the other ways to hold over several connections to one
//! `Server` with an audit log: read and write leases of a read-write lock,
//! weighted permits, several keys at once (`acquire_all`), each try or
//! waiting (with a `wait` that may run out), some with a short TTL and a
//! `max_hold` (renewed by the client until it runs out there), and random
//! releases. The server is then stopped cleanly and the audit log must
//! pass the checker that the torture test uses (tests/torture/check.py):
//! no writer (nor lock) together with any other holder, weights within the
//! key's limit, fences rising in grant order, no renewal past a lease's
//! max_hold and no end later than it plus scheduling slack, every grant
//! ended. Every fence a client was given must be in the log.
//!
//! The checker's own tests below feed it histories that break each rule.

use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::server::{ServeOptions, Server};
use tinystore::{Lease, Options, Permit, Store, StoreOptions};

/// Connections open to the server.
const CONNECTIONS: usize = 3;
/// The semaphore's places per key.
const LIMIT: u32 = 3;
/// Keys per group.
const KEYS: u8 = 3;

/// What one step asks for.
#[derive(Debug, Clone)]
enum Ask {
    Read(u8),
    Write(u8),
    Permit(u8, u32),
    /// Keys of the lock group, in the order named (no duplicates).
    All(Vec<u8>),
}

/// How long a lease lives: renewed by the client with the default TTL, or
/// with a short TTL and a max_hold (renewed every ttl/3 until it).
#[derive(Debug, Clone, Copy)]
struct Life {
    max_hold_ms: Option<u64>,
}

#[derive(Debug, Clone)]
enum Step {
    /// `wait_ms` None: a try; else an acquire waiting at most that long.
    Take {
        conn: usize,
        ask: Ask,
        wait_ms: Option<u64>,
        life: Life,
    },
    Release {
        pick: usize,
    },
    Pause {
        ms: u64,
    },
}

fn ask() -> impl Strategy<Value = Ask> {
    prop_oneof![
        3 => (0..KEYS).prop_map(Ask::Read),
        2 => (0..KEYS).prop_map(Ask::Write),
        2 => (0..KEYS, 1..=LIMIT).prop_map(|(k, w)| Ask::Permit(k, w)),
        2 => Just((0..KEYS).collect::<Vec<u8>>()).prop_shuffle().prop_flat_map(|keys| {
            (1..=keys.len()).prop_map(move |n| Ask::All(keys[..n].to_vec()))
        }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let life =
        proptest::option::weighted(0.3, 30u64..150).prop_map(|max_hold_ms| Life { max_hold_ms });
    prop_oneof![
        6 => (0..CONNECTIONS, ask(), proptest::option::weighted(0.6, 0u64..120), life)
            .prop_map(|(conn, ask, wait_ms, life)| Step::Take { conn, ask, wait_ms, life }),
        3 => (0usize..8).prop_map(|pick| Step::Release { pick }),
        1 => (0u64..60).prop_map(|ms| Step::Pause { ms }),
    ]
}

/// A grant a client holds.
enum Held {
    One(Lease),
    Permit(Permit),
    All(Vec<Lease>),
}

impl Held {
    async fn release(self) {
        // A lease may have run out (at its max_hold): its release says so.
        match self {
            Held::One(lease) => drop(lease.release().await),
            Held::Permit(permit) => drop(permit.release().await),
            Held::All(leases) => {
                for lease in leases {
                    let _ = lease.release().await;
                }
            }
        }
    }
}

/// What the clients saw: the leases they hold and every fence given them.
#[derive(Default)]
struct Seen {
    held: Vec<Held>,
    fences: Vec<u128>,
    grants: usize,
}

fn options(wait_ms: Option<u64>, life: Life, weight: Option<u32>) -> Options {
    Options {
        wait: wait_ms.map(Duration::from_millis),
        ttl: life.max_hold_ms.map(|_| Duration::from_millis(45)),
        max_hold: life.max_hold_ms.map(Duration::from_millis),
        weight,
        ..Options::default()
    }
}

/// Takes what `ask` asks on `store`: tried when `wait_ms` is None, else
/// waited for; records a grant in `seen`. A wait that runs out is no grant.
async fn take(store: Store, ask: Ask, wait_ms: Option<u64>, life: Life, seen: Arc<Mutex<Seen>>) {
    let rw = store.rw_locks("docs");
    let sem = store.semaphore("pool", LIMIT);
    let locks = store.locks("jobs");
    let o = |weight| options(wait_ms, life, weight);
    let held = match (&ask, wait_ms) {
        (Ask::Read(k), None) => rw
            .try_acquire_read_with(*k, o(None))
            .await
            .map(|p| p.map(Held::Permit)),
        (Ask::Read(k), Some(_)) => rw
            .acquire_read_with(*k, o(None))
            .await
            .map(|p| Some(Held::Permit(p))),
        (Ask::Write(k), None) => rw
            .try_acquire_write_with(*k, o(None))
            .await
            .map(|l| l.map(Held::One)),
        (Ask::Write(k), Some(_)) => rw
            .acquire_write_with(*k, o(None))
            .await
            .map(|l| Some(Held::One(l))),
        (Ask::Permit(k, w), None) => sem
            .try_acquire_with(*k, o(Some(*w)))
            .await
            .map(|p| p.map(Held::Permit)),
        (Ask::Permit(k, w), Some(_)) => sem
            .acquire_with(*k, o(Some(*w)))
            .await
            .map(|p| Some(Held::Permit(p))),
        // acquire_all always waits; a try is a wait of 0.
        (Ask::All(keys), wait) => {
            let o = options(Some(wait.unwrap_or(0)), life, None);
            locks
                .acquire_all(keys.iter().copied(), o)
                .await
                .map(|l| Some(Held::All(l)))
        }
    };
    let held = match held {
        Ok(Some(held)) => held,
        Ok(None) => return,
        Err(err) if err.code() == tinystore::Code::Timeout => return,
        Err(err) => panic!("{ask:?} failed: {err}"),
    };
    let fences: Vec<u128> = match &held {
        Held::One(lease) => vec![lease.fence().get()],
        Held::Permit(_) => vec![],
        Held::All(leases) => leases.iter().map(|l| l.fence().get()).collect(),
    };
    let mut seen = seen.lock().unwrap();
    seen.grants += 1;
    seen.fences.extend(fences);
    seen.held.push(held);
}

/// Plays `steps` against a new server with an audit log, releases what is
/// left, stops the server cleanly; gives the log's path (in `dir`) and what
/// the clients saw.
async fn play(dir: &Path, steps: &[Step]) -> Seen {
    let options = ServeOptions {
        store: StoreOptions::default().audit(dir.join("audit.jsonl")),
        grace: Some(Duration::ZERO),
        ..ServeOptions::default()
    };
    let server = Server::start(dir.join("store"), options).await.unwrap();
    let address = format!("unix:{}", server.socket_path().display());
    let mut stores = Vec::new();
    for _ in 0..CONNECTIONS {
        stores.push(Store::connect(&address).await.unwrap());
    }
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut waits = Vec::new();
    for step in steps {
        match step {
            Step::Take {
                conn,
                ask,
                wait_ms: None,
                life,
            } => {
                take(
                    stores[*conn].clone(),
                    ask.clone(),
                    None,
                    *life,
                    seen.clone(),
                )
                .await
            }
            Step::Take {
                conn,
                ask,
                wait_ms,
                life,
            } => waits.push(tokio::spawn(take(
                stores[*conn].clone(),
                ask.clone(),
                *wait_ms,
                *life,
                seen.clone(),
            ))),
            Step::Release { pick } => {
                let held = {
                    let mut seen = seen.lock().unwrap();
                    let n = seen.held.len();
                    (n > 0).then(|| seen.held.swap_remove(pick % n))
                };
                if let Some(held) = held {
                    held.release().await;
                }
            }
            Step::Pause { ms } => tokio::time::sleep(Duration::from_millis(*ms)).await,
        }
    }
    for wait in waits {
        wait.await.unwrap();
    }
    let left: Vec<Held> = std::mem::take(&mut seen.lock().unwrap().held);
    for held in left {
        held.release().await;
    }
    for store in stores {
        store.close().await.unwrap();
    }
    server.shutdown().await.unwrap();
    Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap()
}

/// The checker of the torture test.
fn checker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/torture/check.py")
}

/// Runs the checker on the audit log `log` (`--clean`: every grant must
/// have ended); its JSON summary.
fn check(log: &Path) -> serde_json::Value {
    let out = Command::new("python3")
        .arg(checker())
        .args(["--audit", log.to_str().unwrap(), "--clean"])
        .output()
        .expect("python3 runs the checker");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let clean = summary["violations"]
        .as_array()
        .is_some_and(|v| v.is_empty());
    assert_eq!(out.status.success(), clean, "{summary}");
    summary
}

/// The fences the audit log gave, from its grant lines.
fn fences_given(log: &Path) -> BTreeSet<u128> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|ev| ev["ev"] == "grant")
        .filter_map(|ev| ev["fence"].as_str().map(|f| f.parse().unwrap()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        max_shrink_iters: 32,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_mixes_of_the_other_ways_keep_every_promise(
        steps in proptest::collection::vec(step(), 5..40)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let seen = rt.block_on(play(dir.path(), &steps));
        let log = dir.path().join("audit.jsonl");
        let summary = check(&log);
        prop_assert!(
            summary["violations"].as_array().unwrap().is_empty(),
            "{summary}\n{}", std::fs::read_to_string(&log).unwrap()
        );
        prop_assert!(summary["grants"].as_u64().unwrap_or(0) >= seen.grants as u64, "{summary}");
        let given = fences_given(&log);
        for fence in &seen.fences {
            prop_assert!(given.contains(fence), "a client got fence {fence}, which the log never gave");
        }
    }
}

/// A grant line of the audit log.
fn grant(
    lease: u64,
    kind: &str,
    mode: Option<&str>,
    fence: Option<u64>,
    weight: u32,
    limit: u32,
) -> String {
    let fenced = fence.is_some();
    serde_json::json!({
        "ev": "grant", "lease": lease, "kind": kind, "mode": mode, "fenced": fenced,
        "name": "n", "key": "k", "fence": fence.map(|f| f.to_string()), "weight": weight,
        "limit": limit, "ttl_ms": 100, "max_hold_ms": null, "at_us": 0, "ends_by_us": null,
    })
    .to_string()
}

/// A grant of a lock with a max_hold of `max_hold_ms` at `at_us`.
fn capped(lease: u64, fence: u64, at_us: u64, max_hold_ms: u64) -> String {
    serde_json::json!({
        "ev": "grant", "lease": lease, "kind": "lock", "mode": null, "fenced": true,
        "name": "n", "key": "k", "fence": fence.to_string(), "weight": 1, "limit": 1,
        "ttl_ms": 50, "max_hold_ms": max_hold_ms, "at_us": at_us,
        "ends_by_us": at_us + 1000 * max_hold_ms,
    })
    .to_string()
}

fn renew(lease: u64, at_us: u64, expires_us: u64) -> String {
    serde_json::json!({"ev": "renew", "lease": lease, "kind": "lock", "name": "n", "key": "k",
        "at_us": at_us, "expires_us": expires_us})
    .to_string()
}

fn end(lease: u64, kind: &str, at_us: u64) -> String {
    serde_json::json!({"ev": "end", "lease": lease, "kind": kind, "fenced": false,
        "name": "n", "key": "k", "why": "released", "at_us": at_us})
    .to_string()
}

/// The checker's violations on the history `lines`.
fn violations(lines: &[String]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    check(&log)["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

const RW: u32 = 1_000_000;

#[test]
fn the_checker_passes_readers_together_then_a_writer() {
    let log = [
        grant(1, "rwlock", Some("read"), None, 1, RW),
        grant(2, "rwlock", Some("read"), None, 1, RW),
        end(1, "rwlock", 5),
        end(2, "rwlock", 6),
        grant(3, "rwlock", Some("write"), Some(10), RW, RW),
        end(3, "rwlock", 7),
        grant(4, "semaphore", None, None, 2, 3),
        grant(5, "semaphore", None, None, 1, 3),
        end(4, "semaphore", 8),
        end(5, "semaphore", 9),
        capped(6, 11, 1_000, 100),
        renew(6, 50_000, 100_000),
        end(6, "lock", 101_000),
    ];
    assert_eq!(violations(&log), Vec::<String>::new());
}

#[test]
fn the_checker_fails_a_writer_with_a_reader() {
    let log = [
        grant(1, "rwlock", Some("read"), None, 1, RW),
        grant(2, "rwlock", Some("write"), Some(10), RW, RW),
        grant(3, "rwlock", Some("read"), None, 1, RW),
        end(1, "rwlock", 1),
        end(2, "rwlock", 2),
        end(3, "rwlock", 3),
    ];
    let found = violations(&log);
    // Each grant breaks exclusion, and takes more places than were left.
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found[1].contains("while 1 of its 1000000 places were taken"));
    assert!(
        found[0].contains("granted to lease 2 while lease [1] held it"),
        "{found:?}"
    );
    assert!(
        found[2].contains("granted to lease 3 while lease [2] held it alone"),
        "{found:?}"
    );
}

#[test]
fn the_checker_fails_weights_past_the_limit_and_a_bad_weight() {
    let log = [
        grant(1, "semaphore", None, None, 2, 3),
        grant(2, "semaphore", None, None, 2, 3),
        grant(3, "semaphore", None, None, 4, 3),
        end(1, "semaphore", 1),
        end(2, "semaphore", 2),
        end(3, "semaphore", 3),
    ];
    let found = violations(&log);
    assert!(
        found[0].contains("granted weight 2 to lease 2 while 2 of its 3 places were taken"),
        "{found:?}"
    );
    assert!(
        found.iter().any(|v| v.contains("weight 4 outside 1..3")),
        "{found:?}"
    );
}

#[test]
fn the_checker_fails_write_fences_that_do_not_rise() {
    let log = [
        grant(1, "rwlock", Some("write"), Some(10), RW, RW),
        end(1, "rwlock", 1),
        grant(2, "rwlock", Some("write"), Some(9), RW, RW),
        end(2, "rwlock", 2),
    ];
    assert_eq!(violations(&log), ["line 3: fence 9 given after 10"]);
}

#[test]
fn the_checker_fails_a_renewal_past_max_hold_and_a_late_end() {
    let log = [
        capped(1, 10, 0, 100),
        renew(1, 90_000, 120_000),
        renew(1, 100_000, 100_000),
        end(1, "lock", 700_000),
    ];
    let found = violations(&log);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[0].contains("renewed to 120000 us, past its max_hold at 100000"),
        "{found:?}"
    );
    assert!(
        found[1].contains("renewed at 100000 us, past its max_hold"),
        "{found:?}"
    );
    assert!(
        found[2].contains("ended 600.0 ms past its max_hold"),
        "{found:?}"
    );
}

#[test]
fn the_checker_fails_a_grant_that_never_ended() {
    let found = violations(&[grant(1, "rwlock", Some("read"), None, 1, RW)]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("leases [1] never ended"), "{found:?}");
}

/// The log of a real server records each kind with its mode, weight, limit
/// and max_hold deadline, and each renewal before that deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_records_kinds_weights_and_renewals() {
    let dir = tempfile::tempdir().unwrap();
    let steps = [
        Step::Take {
            conn: 0,
            ask: Ask::Read(0),
            wait_ms: None,
            life: Life { max_hold_ms: None },
        },
        Step::Take {
            conn: 1,
            ask: Ask::Permit(0, 2),
            wait_ms: None,
            life: Life { max_hold_ms: None },
        },
        Step::Take {
            conn: 2,
            ask: Ask::Write(1),
            wait_ms: None,
            life: Life {
                max_hold_ms: Some(200),
            },
        },
        Step::Pause { ms: 400 },
    ];
    let seen = play(dir.path(), &steps).await;
    assert_eq!(seen.grants, 3);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let grants: Vec<&serde_json::Value> = lines.iter().filter(|l| l["ev"] == "grant").collect();
    let read = grants.iter().find(|g| g["mode"] == "read").unwrap();
    assert_eq!(
        (
            read["kind"].as_str(),
            read["weight"].as_u64(),
            read["limit"].as_u64()
        ),
        (Some("rwlock"), Some(1), Some(u64::from(RW)))
    );
    assert!(read["fence"].is_null() && read["ends_by_us"].is_null());
    let permit = grants.iter().find(|g| g["kind"] == "semaphore").unwrap();
    assert_eq!(
        (permit["weight"].as_u64(), permit["limit"].as_u64()),
        (Some(2), Some(3))
    );
    let write = grants.iter().find(|g| g["mode"] == "write").unwrap();
    assert_eq!(write["max_hold_ms"], 200);
    let ends_by = write["ends_by_us"].as_u64().unwrap();
    assert_eq!(ends_by, write["at_us"].as_u64().unwrap() + 200_000);
    let renewals: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["ev"] == "renew" && l["lease"] == write["lease"])
        .collect();
    assert!(
        !renewals.is_empty(),
        "the client renewed the write lease every 15 ms"
    );
    assert!(renewals
        .iter()
        .all(|r| r["expires_us"].as_u64().unwrap() <= ends_by));
    let ended = lines
        .iter()
        .find(|l| l["ev"] == "end" && l["lease"] == write["lease"])
        .unwrap();
    assert_eq!(ended["why"], "expired", "it ran out at its max_hold");
    assert_eq!(
        ended["fenced"], true,
        "a write lease's end says it was fenced"
    );
    let read_end = lines
        .iter()
        .find(|l| l["ev"] == "end" && l["lease"] == read["lease"])
        .unwrap();
    assert_eq!(read_end["fenced"], false);
    assert!(check(&dir.path().join("audit.jsonl"))["violations"]
        .as_array()
        .unwrap()
        .is_empty());
}
