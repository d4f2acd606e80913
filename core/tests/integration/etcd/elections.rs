//! Elections on a real three-member etcd cluster (started by
//! `make test-etcd`), with the semantics of an embedded store's: first come
//! first served, terms that rise with every leader, resign handing over at
//! once, a leader that stops renewing running out, observers that see every
//! change in order with no gap and no repeat; and separate processes, the
//! leader SIGSTOPped past its TTL, its late SQLite write refused by the term.
//!
//! The children are this test binary run again with `campaigner`.
#![cfg(feature = "etcd")]

use crate::etcd::support::{address, next_change as next, prefix_of, raw};
use futures_util::StreamExt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;
use tinystore::{Code, Store};
use tokio::time::timeout;

const LONG: Duration = Duration::from_secs(20);

async fn connect(address: &str) -> Store {
    Store::connect(address).await.unwrap()
}

/// Waits until `n` campaigns are in the line of election `name`.
async fn in_line(address: &str, name: &str, n: usize) {
    let line = format!("/{}/election/{name}/line/", prefix_of(address));
    let mut kv = raw().await.kv_client();
    let options = etcd_client::GetOptions::new()
        .with_prefix()
        .with_keys_only();
    for _ in 0..400 {
        let got = kv.get(line.clone(), Some(options.clone())).await.unwrap();
        if got.kvs().len() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{n} campaigns never were in line for {name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn campaigns_on_etcd_lead_in_turn_and_observers_see_each_change() {
    let address = address("elections");
    let (a_store, b_store, watcher) = (
        connect(&address).await,
        connect(&address).await,
        connect(&address).await,
    );
    let election = watcher.election("sched");
    let mut changes = election.observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);
    assert_eq!(election.leader().await.unwrap(), None);

    let a = a_store.election("sched").campaign("a").await.unwrap();
    assert_eq!(next(&mut changes).await, Some(a.leader()));
    assert_eq!(election.leader().await.unwrap(), Some(a.leader()));

    // b waits in line; a's resign hands over at once, with no "nobody".
    let b_election = b_store.election("sched");
    let b = tokio::spawn(async move { b_election.campaign("b").await });
    in_line(&address, "sched", 2).await;
    assert!(!b.is_finished(), "b leads while a does");
    // status lists the leadership with its value, and b waiting.
    let status = watcher.status().await.unwrap();
    let held: Vec<_> = status.held.iter().filter(|h| h.name == "sched").collect();
    assert_eq!(held.len(), 1, "{status:?}");
    assert_eq!(
        (held[0].key.as_str(), held[0].leader.as_deref()),
        ("", Some("a"))
    );
    assert_eq!(held[0].fence, Some(a.fence()));
    let waiting: Vec<_> = status
        .waiting
        .iter()
        .filter(|w| w.name == "sched")
        .collect();
    assert_eq!(waiting.len(), 1, "{status:?}");
    assert_eq!(waiting[0].waiters, 1);
    a.resign().await.unwrap();
    let b = timeout(LONG, b).await.unwrap().unwrap().unwrap();
    assert!(b.fence() > a.fence(), "a later leader's term is larger");
    assert_eq!(b.fence().epoch(), a.fence().epoch());
    assert_eq!(next(&mut changes).await, Some(b.leader()));
    assert_eq!(election.leader().await.unwrap(), Some(b.leader()));

    // lead: campaigns, runs the body, resigns.
    let c_election = a_store.election("sched");
    let c = tokio::spawn(async move {
        c_election
            .lead("c", async |l| -> tinystore::Result<_> { Ok(l.leader()) })
            .await
    });
    in_line(&address, "sched", 2).await;
    b.resign().await.unwrap();
    let c = timeout(LONG, c).await.unwrap().unwrap().unwrap();
    assert!(c.fence > b.fence());
    assert_eq!(next(&mut changes).await, Some(c));
    assert_eq!(
        next(&mut changes).await,
        None,
        "c resigned with nobody in line"
    );
    assert_eq!(election.leader().await.unwrap(), None);

    // An election and a lock group of one name are apart.
    let lock = a_store.locks("sched").acquire("x").await.unwrap();
    let d = b_store.election("sched").campaign("d").await.unwrap();
    assert!(d.fence() > lock.fence());
    assert_eq!(next(&mut changes).await, Some(d.leader()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_that_stops_renewing_runs_out_and_the_next_leads_with_a_larger_term() {
    let address = address("elections-ttl");
    let (store, other) = (connect(&address).await, connect(&address).await);
    let mut changes = other.election("e").observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);
    let short = store
        .election("e")
        .ttl(Duration::from_secs(1))
        .renew(false)
        .campaign("paused")
        .await
        .unwrap();
    assert_eq!(next(&mut changes).await, Some(short.leader()));
    let next_one = other.election("e").campaign("next").await.unwrap();
    assert!(next_one.fence() > short.fence());
    let reason = timeout(LONG, short.lost()).await.unwrap();
    assert_eq!(reason.code(), Code::LeaseLost, "{reason}");
    assert_eq!(next(&mut changes).await, Some(next_one.leader()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_invalid_and_a_campaign_whose_wait_ran_out_never_leads() {
    let address = address("elections-bad");
    let store = connect(&address).await;
    let err = store
        .election("e")
        .campaign(&"v".repeat(1025))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("1025"), "{err}");
    let err = store.election("no way").leader().await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("no way"), "{err}");

    let first = store.election("e").campaign("first").await.unwrap();
    let mut changes = store.election("e").observe().await.unwrap();
    assert_eq!(next(&mut changes).await, Some(first.leader()));
    let err = store
        .election("e")
        .wait(Duration::from_millis(200))
        .campaign("late")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Timeout, "{err}");
    first.resign().await.unwrap();
    assert_eq!(
        next(&mut changes).await,
        None,
        "the late campaign never led"
    );

    store.close().await.unwrap();
    let end = timeout(LONG, changes.next()).await.unwrap().unwrap();
    assert_eq!(end.unwrap_err().code(), Code::Closed);
    assert!(changes.next().await.is_none());
}

/// A child process: campaigns in `sched`, prints `leading TERM`, then obeys
/// lines on stdin: `write` (prints `wrote N`, the rows its fenced write
/// changed) and `lost?` (prints `lost CODE` once it lost leadership).
#[test]
#[ignore = "a child process, started by the test below"]
fn campaigner() {
    let Ok(address) = std::env::var("TINYSTORE_ETCD_ADDRESS") else {
        return;
    };
    let db = std::env::var("TINYSTORE_ETCD_DB").unwrap();
    let value = std::env::var("TINYSTORE_ETCD_VALUE").unwrap();
    let store = tinystore::blocking::Store::connect(&address).unwrap();
    let election = store.election("sched").ttl(Duration::from_secs(1));
    let leadership = election.campaign(&value).unwrap();
    let term = leadership.fence();
    let mut out = std::io::stdout();
    writeln!(out, "\nleading {}", term.get()).unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        match line.unwrap().as_str() {
            "write" => {
                let conn = rusqlite::Connection::open(&db).unwrap();
                conn.busy_timeout(Duration::from_secs(10)).unwrap();
                let n = conn
                    .execute(
                        "update schedule set leader = ?1, term = ?2 where id = 1 and term <= ?2",
                        (&value, term.text()),
                    )
                    .unwrap();
                writeln!(out, "wrote {n}").unwrap();
            }
            "lost?" => {
                let reason = leadership.wait_lost(LONG).unwrap();
                writeln!(out, "lost {}", reason.code().as_str()).unwrap();
            }
            _ => {}
        }
        out.flush().unwrap();
    }
}

struct Campaigner {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Campaigner {
    fn start(address: &str, db: &std::path::Path, value: &str) -> Campaigner {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                test_name!("campaigner"),
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TINYSTORE_ETCD_ADDRESS", address)
            .env("TINYSTORE_ETCD_DB", db)
            .env("TINYSTORE_ETCD_VALUE", value)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Campaigner { child, out }
    }

    /// What follows `word ` on the next line that starts with it.
    fn said(&mut self, word: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.out.read_line(&mut line).unwrap() > 0,
                "the child ended before saying {word}"
            );
            if let Some(rest) = line.trim_end().strip_prefix(&format!("{word} ")) {
                return rest.to_string();
            }
        }
    }

    fn ask(&mut self, line: &str, word: &str) -> String {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        self.said(word)
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill(2) on a child this test started.
        assert_eq!(
            unsafe { libc::kill(self.child.id() as libc::pid_t, signal) },
            0
        );
    }
}

impl Drop for Campaigner {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_process_stopped_past_its_ttl_is_followed_by_a_larger_term_and_its_write_refused()
{
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("schedule.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "pragma journal_mode = wal;
             create table schedule (id integer primary key, leader text not null default '',
                                    term text not null default '');
             insert into schedule (id) values (1);",
        )
        .unwrap();
    let address = address("elections-processes");
    let watcher = connect(&address).await;
    let mut changes = watcher.election("sched").observe().await.unwrap();
    assert_eq!(next(&mut changes).await, None);

    let mut a = Campaigner::start(&address, &db, "a");
    let a_term: u128 = a.said("leading").parse().unwrap();
    let seen = next(&mut changes).await.unwrap();
    assert_eq!((seen.value.as_str(), seen.fence.get()), ("a", a_term));
    let mut b = Campaigner::start(&address, &db, "b");
    in_line(&address, "sched", 2).await;

    // a pauses past its TTL: its etcd lease runs out, and b leads. (The
    // children are read from this thread; the observer's task runs on the
    // runtime's other worker.)
    a.signal(libc::SIGSTOP);
    let b_term: u128 = b.said("leading").parse().unwrap();
    assert!(
        b_term > a_term,
        "b's term {b_term} is larger than a's {a_term}"
    );
    assert_eq!(b.ask("write", "wrote"), "1");
    let seen = next(&mut changes).await.unwrap();
    assert_eq!((seen.value.as_str(), seen.fence.get()), ("b", b_term));

    // a wakes, still believing it leads, and writes: refused by the term.
    a.signal(libc::SIGCONT);
    assert_eq!(
        a.ask("write", "wrote"),
        "0",
        "the deposed leader's write was refused"
    );
    assert_eq!(a.ask("lost?", "lost"), "lease_lost");
    let kept: (String, String) = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("select leader, term from schedule where id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(kept.0, "b");
    assert_eq!(kept.1, tinystore::Fence::from_u128(b_term).text());
    drop(b);
}
