//! Random sequences of requests over several connections against a real
//! `tinystore serve --audit`: acquires (waiting, with and without `wait_ms`),
//! try_acquires, renews and releases on a few keys of a lock group and of a
//! semaphore group, connections closed mid-way, and TTLs short enough that
//! leases run out. The server is then stopped and its audit log must prove
//! the history: no lock key ever had two holders, no semaphore key more than
//! its limit, every fence unique and strictly rising in grant order, and
//! every grant a client saw is in the log.

use crate::support::server::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The lock group: one holder per key, with fences.
const LOCKS: &str = "jobs";
/// The semaphore group and its limit per key.
const POOL: &str = "pool";
const POOL_LIMIT: usize = 2;
/// Connections open at once (a closed one is replaced by a new one).
const CONNECTIONS: usize = 4;

/// One step of a run. `conn` picks a connection, `key` one of three keys,
/// `pick` one of the connection's leases (a made-up id when it holds none).
#[derive(Debug, Clone)]
enum Step {
    Acquire {
        conn: usize,
        target: Target,
        ttl_ms: u64,
        wait_ms: Option<u64>,
    },
    TryAcquire {
        conn: usize,
        target: Target,
        ttl_ms: u64,
    },
    Renew {
        conn: usize,
        pick: usize,
    },
    Release {
        conn: usize,
        pick: usize,
    },
    Close {
        conn: usize,
    },
    Pause {
        ms: u64,
    },
}

/// A key of the lock group or of the semaphore, sent as text or as an
/// integer (the same key either way).
#[derive(Debug, Clone)]
struct Target {
    semaphore: bool,
    key: u8,
    as_int: bool,
}

impl Target {
    /// The request's fields after `op`.
    fn fields(&self) -> String {
        let key = if self.as_int {
            self.key.to_string()
        } else {
            format!("\"{}\"", self.key)
        };
        if self.semaphore {
            format!(r#""name":"{POOL}","key":{key},"limit":{POOL_LIMIT}"#)
        } else {
            format!(r#""name":"{LOCKS}","key":{key}"#)
        }
    }
}

fn target() -> impl Strategy<Value = Target> {
    (any::<bool>(), 0u8..3, any::<bool>()).prop_map(|(semaphore, key, as_int)| Target {
        semaphore,
        key,
        as_int,
    })
}

fn step() -> impl Strategy<Value = Step> {
    let conn = 0..CONNECTIONS;
    let ttl = 10u64..150;
    prop_oneof![
        4 => (conn.clone(), target(), ttl.clone(), proptest::option::of(0u64..100))
            .prop_map(|(conn, target, ttl_ms, wait_ms)| Step::Acquire { conn, target, ttl_ms, wait_ms }),
        3 => (conn.clone(), target(), ttl)
            .prop_map(|(conn, target, ttl_ms)| Step::TryAcquire { conn, target, ttl_ms }),
        2 => (conn.clone(), 0usize..4).prop_map(|(conn, pick)| Step::Renew { conn, pick }),
        3 => (conn.clone(), 0usize..4).prop_map(|(conn, pick)| Step::Release { conn, pick }),
        1 => conn.prop_map(|conn| Step::Close { conn }),
        2 => (0u64..80).prop_map(|ms| Step::Pause { ms }),
    ]
}

/// A grant a client was told of: the group, the key's text, the fence.
type Seen = (String, String, Option<u128>);

/// A connection and what its client knows: acquires not yet answered, the
/// leases it believes it holds, and every grant it was told of.
struct Client {
    raw: Raw,
    next_id: u64,
    waiting: BTreeMap<u64, Target>,
    held: Vec<String>,
}

impl Client {
    fn open(served: &Served) -> Client {
        Client {
            raw: Raw::unix(&served.socket(), true),
            next_id: 1,
            waiting: BTreeMap::new(),
            held: Vec::new(),
        }
    }

    /// Sends `op` with the next id and `fields` (JSON members, maybe
    /// none); returns the id.
    fn send(&mut self, op: &str, fields: &str) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let comma = if fields.is_empty() { "" } else { "," };
        let line = format!(r#"{{"id":{id},"op":"{op}"{comma}{fields}}}"#);
        self.raw.send_bytes(line.as_bytes());
        id
    }

    /// Reads frames until the reply to `id`, taking in the replies to
    /// earlier acquires and the `lost` events met on the way.
    fn reply_to(&mut self, id: u64, seen: &mut Vec<Seen>) -> serde_json::Value {
        loop {
            let frame = self.raw.next().expect("the server closed a connection");
            if frame.get("event").is_some() {
                assert_eq!(frame["event"], "lost", "{frame}");
                assert_eq!(frame["code"], "lease_lost", "{frame}");
                self.held.retain(|lease| frame["lease"] != lease.as_str());
                continue;
            }
            let got = frame["id"].as_u64().expect("a reply has an id");
            if got == id {
                return frame;
            }
            let target = self
                .waiting
                .remove(&got)
                .unwrap_or_else(|| panic!("a reply to no request: {frame}"));
            if frame["ok"] == true {
                self.took(&target, &frame, seen);
            } else {
                // Only a wait_ms that ran out ends an acquire without a lease here.
                assert_eq!(frame["error"]["code"], "timeout", "{frame}");
            }
        }
    }

    /// Notes a granted acquire or try_acquire.
    fn took(&mut self, target: &Target, reply: &serde_json::Value, seen: &mut Vec<Seen>) {
        assert_eq!(reply["granted"], true, "{reply}");
        let lease = reply["lease"].as_str().expect("a grant has a lease");
        let fence = reply["fence"].as_str().map(|f| f.parse().unwrap());
        assert_eq!(fence.is_none(), target.semaphore, "{reply}");
        let name = if target.semaphore { POOL } else { LOCKS };
        seen.push((name.to_string(), target.key.to_string(), fence));
        self.held.push(lease.to_string());
    }

    /// The lease `pick` chooses, or one this connection never had.
    fn lease(&self, pick: usize) -> String {
        if self.held.is_empty() {
            "999999999".to_string()
        } else {
            self.held[pick % self.held.len()].clone()
        }
    }

    /// Renews or releases a lease; the server may say it is lost (it ran out).
    fn end_or_renew(&mut self, op: &str, pick: usize, seen: &mut Vec<Seen>) {
        let lease = self.lease(pick);
        let id = self.send(op, &format!(r#""lease":"{lease}""#));
        let reply = self.reply_to(id, seen);
        if reply["ok"] != true {
            assert_eq!(reply["error"]["code"], "lease_lost", "{reply}");
        }
        if reply["ok"] != true || op == "release" {
            self.held.retain(|held| *held != lease);
        }
    }
}

/// Plays `steps` against a new server with `--audit`, stops it with
/// SIGTERM, and returns its audit log and the grants the clients saw.
fn play(steps: &[Step]) -> (String, Vec<Seen>) {
    let tmp = tempfile::tempdir().unwrap();
    let audit = tmp.path().join("audit.jsonl");
    let mut served = Served::start(
        &tmp.path().join("store"),
        &["--audit", audit.to_str().unwrap()],
    );
    let mut clients: Vec<Client> = (0..CONNECTIONS).map(|_| Client::open(&served)).collect();
    let mut seen = Vec::new();
    for step in steps {
        match step {
            Step::Acquire {
                conn,
                target,
                ttl_ms,
                wait_ms,
            } => {
                let client = &mut clients[*conn];
                let wait = wait_ms.map_or(String::new(), |ms| format!(r#","wait_ms":{ms}"#));
                let fields = format!(r#"{},"ttl_ms":{ttl_ms}{wait}"#, target.fields());
                let id = client.send("acquire", &fields);
                client.waiting.insert(id, target.clone());
            }
            Step::TryAcquire {
                conn,
                target,
                ttl_ms,
            } => {
                let client = &mut clients[*conn];
                let fields = format!(r#"{},"ttl_ms":{ttl_ms}"#, target.fields());
                let id = client.send("try_acquire", &fields);
                let reply = client.reply_to(id, &mut seen);
                assert_eq!(reply["ok"], true, "{reply}");
                if reply["granted"] == true {
                    client.took(target, &reply, &mut seen);
                }
            }
            Step::Renew { conn, pick } => clients[*conn].end_or_renew("renew", *pick, &mut seen),
            Step::Release { conn, pick } => {
                clients[*conn].end_or_renew("release", *pick, &mut seen)
            }
            Step::Close { conn } => clients[*conn] = Client::open(&served),
            Step::Pause { ms } => std::thread::sleep(Duration::from_millis(*ms)),
        }
    }
    // Every connection reads what is left, so that grants it was given
    // count among those seen; then it closes.
    for mut client in clients {
        let id = client.send("ping", "");
        let _ = client.reply_to(id, &mut seen);
    }
    signal(served.pid(), libc::SIGTERM);
    let status = served.child.wait().unwrap();
    assert!(
        status.success(),
        "serve ended with {status}: {}",
        served.log()
    );
    (std::fs::read_to_string(&audit).unwrap(), seen)
}

/// What an audit log showed when it kept every promise.
#[derive(Debug, Default)]
struct History {
    /// Grants of lock keys, and the fences given per (name, key).
    fences: BTreeMap<(String, String), BTreeSet<u128>>,
    /// Grants of semaphore keys, per (name, key).
    permits: BTreeMap<(String, String), usize>,
}

/// Reads an audit log (the lines `serve --audit` writes) and checks its
/// history: a lock key is granted only while no lease holds it, a semaphore
/// key only while fewer than `limit` do; fences are given to lock grants
/// only, each larger than every fence before it; every end is of a lease
/// that held its key; and, the server having stopped cleanly, every grant
/// ended. Returns what was granted, or every violation found.
fn check_audit(log: &str, limit: usize) -> Result<History, Vec<String>> {
    let mut violations = Vec::new();
    let mut history = History::default();
    let mut last_fence: Option<u128> = None;
    let mut holders: BTreeMap<(bool, String, String), BTreeSet<u64>> = BTreeMap::new();
    for (n, line) in log.lines().enumerate() {
        let n = n + 1;
        let ev: serde_json::Value = match serde_json::from_str(line) {
            Ok(ev) => ev,
            Err(err) => {
                violations.push(format!("line {n}: not JSON ({err}): {line}"));
                continue;
            }
        };
        if ev["ev"] == "open" {
            holders.clear(); // the leases of an earlier run went with it
            continue;
        }
        if ev["ev"] == "renew" {
            // Renewals and max_hold are checked by tests/torture/check.py
            // (core/tests/integration/more_ways/props.rs); this checker is about grants.
            continue;
        }
        let (Some(fenced), Some(name), Some(key), Some(lease)) = (
            ev["fenced"].as_bool(),
            ev["name"].as_str(),
            ev["key"].as_str(),
            ev["lease"].as_u64(),
        ) else {
            violations.push(format!("line {n}: not a grant or an end: {line}"));
            continue;
        };
        let what = format!("{} {name}/{key}", if fenced { "lock" } else { "semaphore" });
        let id = (name.to_string(), key.to_string());
        let held = holders
            .entry((fenced, name.to_string(), key.to_string()))
            .or_default();
        match ev["ev"].as_str() {
            Some("grant") => {
                let fence = ev["fence"].as_str().and_then(|f| f.parse::<u128>().ok());
                if fenced {
                    let Some(fence) = fence else {
                        violations.push(format!("line {n}: {what} granted without a fence"));
                        continue;
                    };
                    if let Some(last) = last_fence.filter(|&last| fence <= last) {
                        violations.push(format!("line {n}: fence {fence} given after {last}"));
                    }
                    last_fence = last_fence.max(Some(fence));
                    history.fences.entry(id).or_default().insert(fence);
                    if !held.is_empty() {
                        violations.push(format!(
                            "line {n}: {what} granted to lease {lease} while lease {held:?} held it"
                        ));
                    }
                } else {
                    if !ev["fence"].is_null() {
                        violations.push(format!("line {n}: {what} granted with a fence"));
                    }
                    *history.permits.entry(id).or_default() += 1;
                    if held.len() >= limit {
                        violations.push(format!(
                            "line {n}: {what} granted to lease {lease} while {} leases held it (limit {limit})",
                            held.len()
                        ));
                    }
                }
                held.insert(lease);
            }
            Some("end") => {
                if !held.remove(&lease) {
                    violations.push(format!(
                        "line {n}: lease {lease} ended on {what} it did not hold"
                    ));
                }
            }
            _ => violations.push(format!("line {n}: an unknown event: {line}")),
        }
    }
    for ((_, name, key), held) in holders {
        if !held.is_empty() {
            violations.push(format!(
                "{name}/{key}: leases {held:?} never ended, though the server stopped cleanly"
            ));
        }
    }
    if violations.is_empty() {
        Ok(history)
    } else {
        Err(violations)
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        max_shrink_iters: 64,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_audit_log_of_random_requests_keeps_every_promise(
        steps in proptest::collection::vec(step(), 10..100)
    ) {
        let (log, seen) = play(&steps);
        let history = check_audit(&log, POOL_LIMIT)
            .unwrap_or_else(|violations| panic!("{}\n{log}", violations.join("\n")));
        for (name, key, fence) in &seen {
            let id = (name.clone(), key.clone());
            match fence {
                Some(fence) => prop_assert!(
                    history.fences.get(&id).is_some_and(|given| given.contains(fence)),
                    "a client got fence {fence} on {name}/{key}, which the audit log never gave"
                ),
                None => prop_assert!(history.permits.contains_key(&id),
                    "a client got a permit on {name}/{key}, which the audit log never gave"),
            }
        }
        let permits_seen = seen.iter().filter(|(_, _, fence)| fence.is_none()).count();
        prop_assert!(permits_seen <= history.permits.values().sum());
    }
}

fn grant(lease: u64, fenced: bool, key: &str, fence: Option<u128>) -> String {
    let name = if fenced { LOCKS } else { POOL };
    let fence = fence.map_or("null".to_string(), |f| format!("\"{f}\""));
    format!(
        r#"{{"ev":"grant","lease":{lease},"fenced":{fenced},"name":"{name}","key":"{key}","fence":{fence}}}"#
    )
}

fn end(lease: u64, fenced: bool, key: &str) -> String {
    let name = if fenced { LOCKS } else { POOL };
    format!(
        r#"{{"ev":"end","lease":{lease},"fenced":{fenced},"name":"{name}","key":"{key}","why":"released"}}"#
    )
}

#[test]
fn the_checker_passes_a_good_history() {
    let log = [
        r#"{"ev":"open","epoch":"7"}"#.to_string(),
        grant(1, true, "a", Some(10)),
        grant(2, true, "b", Some(11)),
        end(1, true, "a"),
        grant(3, true, "a", Some(12)),
        grant(4, false, "a", None),
        grant(5, false, "a", None),
        end(4, false, "a"),
        grant(6, false, "a", None),
        end(2, true, "b"),
        end(3, true, "a"),
        end(5, false, "a"),
        end(6, false, "a"),
    ]
    .join("\n");
    let history = check_audit(&log, 2).unwrap();
    assert_eq!(history.fences.values().map(BTreeSet::len).sum::<usize>(), 3);
    assert_eq!(history.permits.values().sum::<usize>(), 3);
}

#[test]
fn the_checker_fails_two_holders_of_a_lock_key() {
    let log = [
        grant(1, true, "a", Some(10)),
        grant(2, true, "a", Some(11)),
        end(1, true, "a"),
        end(2, true, "a"),
    ]
    .join("\n");
    let violations = check_audit(&log, 2).unwrap_err();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(violations[0].contains("lock jobs/a granted to lease 2 while lease {1} held it"));
}

#[test]
fn the_checker_fails_a_semaphore_past_its_limit() {
    let log = [
        grant(1, false, "a", None),
        grant(2, false, "a", None),
        grant(3, false, "a", None),
        end(1, false, "a"),
        end(2, false, "a"),
        end(3, false, "a"),
    ]
    .join("\n");
    let violations = check_audit(&log, 2).unwrap_err();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(violations[0].contains("while 2 leases held it (limit 2)"));
}

#[test]
fn the_checker_fails_a_fence_that_does_not_rise() {
    let log = [
        grant(1, true, "a", Some(10)),
        grant(2, true, "b", Some(10)),
        grant(3, true, "c", Some(9)),
        end(1, true, "a"),
        end(2, true, "b"),
        end(3, true, "c"),
    ]
    .join("\n");
    let violations = check_audit(&log, 2).unwrap_err();
    assert_eq!(
        violations,
        [
            "line 2: fence 10 given after 10",
            "line 3: fence 9 given after 10"
        ]
    );
}

#[test]
fn the_checker_fails_an_end_without_a_grant_and_a_grant_without_an_end() {
    let log = [end(1, true, "a"), grant(2, false, "a", None)].join("\n");
    let violations = check_audit(&log, 2).unwrap_err();
    assert_eq!(violations.len(), 2, "{violations:?}");
    assert!(violations[0].contains("lease 1 ended on lock jobs/a it did not hold"));
    assert!(violations[1].contains("pool/a: leases {2} never ended"));
}
