//! Elections between processes through `tinystore serve`: two campaigners
//! (this test binary run again as workers, through the blocking Rust API),
//! the leader SIGSTOPped past its TTL, the other leading with a larger term,
//! the woken one's write to SQLite refused by the term; an observer in a
//! third process (`tinystore leader --watch --json`) that sees every change
//! in order, with no gap and no repeat; resign handing over at once; and
//! the election operations spoken by hand on the wire.
//!
//! Assertions are about order and terms, never about how long things took.

use crate::support::server::*;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

/// The schedule a leader keeps, guarded by its term as docs/elections.md
/// shows: a write is refused when a later leader already wrote.
fn make_schedule(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "create table schedule (id integer primary key, next_run text not null default '',
                                term text not null default '');
         insert into schedule (id) values (1);",
    )
    .unwrap();
}

/// The fenced write: rows changed (0 when a later leader's term is kept).
fn write_schedule(path: &Path, next_run: &str, term_text: &str) -> usize {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn.execute(
        "update schedule set next_run = ?1, term = ?2 where id = 1 and term <= ?2",
        (next_run, term_text),
    )
    .unwrap()
}

fn schedule(path: &Path) -> (String, String) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(
        "select next_run, term from schedule where id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

/// A campaigner process: campaigns in `sched` with its value, prints
/// `leading TERM TERM_TEXT`, then obeys lines on stdin: `write X` (prints
/// `wrote N`), `resign` (prints `resigned`), `lost?` (prints `lost CODE` once
/// the leadership is lost).
#[test]
#[ignore = "a worker process, started by the tests below"]
fn campaigner() {
    if !is_worker() {
        return;
    }
    let address = std::env::var("ADDRESS").unwrap();
    let value = std::env::var("VALUE").unwrap();
    let db = std::env::var("DB").unwrap();
    let store = tinystore::blocking::Store::connect(&address).unwrap();
    let election = store.election("sched").ttl(Duration::from_millis(300));
    let leadership = election.campaign(&value).unwrap();
    let term = leadership.fence();
    println!("leading {} {}", term, term.text());
    let mut out = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        if let Some(what) = line.strip_prefix("write ") {
            let n = write_schedule(Path::new(&db), what, &term.text());
            writeln!(out, "wrote {n}").unwrap();
        } else if line == "resign" {
            leadership.resign().unwrap();
            writeln!(out, "resigned").unwrap();
        } else if line == "lost?" {
            let reason = leadership.wait_lost(Duration::from_secs(20)).unwrap();
            writeln!(out, "lost {}", reason.code().as_str()).unwrap();
        }
        out.flush().unwrap();
    }
}

struct Campaigner {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Campaigner {
    fn start(address: &str, value: &str, db: &Path) -> Campaigner {
        let mut child = worker(
            test_name!("campaigner"),
            &[
                ("ADDRESS", address.to_string()),
                ("VALUE", value.to_string()),
                ("DB", db.display().to_string()),
            ],
        );
        let out = BufReader::new(child.stdout.take().unwrap());
        Campaigner { child, out }
    }

    /// Waits until it leads; its term.
    fn leads(&mut self) -> u128 {
        let rest = expect_line(&mut self.out, "leading ");
        rest.split_whitespace().next().unwrap().parse().unwrap()
    }

    fn ask(&mut self, line: &str, answer: &str) -> String {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        expect_line(&mut self.out, answer)
    }
}

impl Drop for Campaigner {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tinystore leader TARGET sched --watch --json` in a process of its own.
struct Watcher {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Watcher {
    fn start(address: &str) -> Watcher {
        let mut child = Command::new(BIN)
            .args(["leader", address, "sched", "--watch", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Watcher { child, out }
    }

    /// The next change it printed: `(value, term)` or `None`.
    fn next(&mut self) -> Option<(String, u128)> {
        let mut line = String::new();
        assert!(
            self.out.read_line(&mut line).unwrap() > 0,
            "the watch ended"
        );
        let change: serde_json::Value = serde_json::from_str(&line).unwrap();
        match (&change["value"], &change["term"]) {
            (serde_json::Value::Null, serde_json::Value::Null) => None,
            (serde_json::Value::String(v), serde_json::Value::String(t)) => {
                Some((v.clone(), t.parse().unwrap()))
            }
            _ => panic!("a change with a value and no term, or the reverse: {line}"),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_leader_stopped_past_its_ttl_is_followed_by_a_larger_term_and_its_late_write_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let db = tmp.path().join("schedule.db");
    make_schedule(&db);
    let address = served.address();
    let mut watch = Watcher::start(&address);
    assert_eq!(watch.next(), None, "nobody leads yet");

    let mut a = Campaigner::start(&address, "a", &db);
    let a_term = a.leads();
    assert_eq!(watch.next(), Some(("a".into(), a_term)));
    let mut b = Campaigner::start(&address, "b", &db);
    wait_for_waiters(&address, 1);
    let mut c = Campaigner::start(&address, "c", &db);
    wait_for_waiters(&address, 2);

    // a pauses past its TTL: it cannot renew, and b (first in line) leads.
    signal(a.child.id() as i32, libc::SIGSTOP);
    let b_term = b.leads();
    assert!(
        b_term > a_term,
        "b's term {b_term} is larger than a's {a_term}"
    );
    assert_eq!(watch.next(), Some(("b".into(), b_term)));
    assert_eq!(b.ask("write b-run", "wrote "), "1");

    // a wakes, still believing it leads, and writes: refused by the term.
    signal(a.child.id() as i32, libc::SIGCONT);
    assert_eq!(a.ask("write a-late", "wrote "), "0");
    assert_eq!(a.ask("lost?", "lost "), "lease_lost");
    assert_eq!(schedule(&db), ("b-run".to_string(), text(b_term)));

    // b resigns with c in line: c leads at once, with no "nobody" between.
    assert_eq!(b.ask("resign", "resigned"), "");
    let c_term = c.leads();
    assert!(c_term > b_term);
    assert_eq!(watch.next(), Some(("c".into(), c_term)));
    assert_eq!(c.ask("write c-run", "wrote "), "1");
    assert_eq!(c.ask("resign", "resigned"), "");
    assert_eq!(watch.next(), None, "c resigned with nobody in line");
    assert_eq!(schedule(&db), ("c-run".to_string(), text(c_term)));
}

/// Waits until `n` campaigns wait in line for `sched` (so that they are in
/// line in the order they were started).
fn wait_for_waiters(address: &str, n: u64) {
    for _ in 0..2000 {
        let out = tinystore_ok(&["status", address, "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let waiting = status["waiting"].as_array().unwrap();
        if waiting
            .iter()
            .any(|w| w["name"] == "sched" && w["waiters"] == n)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{n} campaigns never waited in line");
}

/// A term as the 40 digits SQLite keeps.
fn text(term: u128) -> String {
    tinystore::Fence::from_u128(term).text()
}

#[test]
fn a_leader_whose_server_is_killed_loses_leadership_and_is_told() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let db = tmp.path().join("schedule.db");
    make_schedule(&db);
    let mut a = Campaigner::start(&served.address(), "a", &db);
    a.leads();
    drop(served); // SIGKILL: the connection breaks
    let code = a.ask("lost?", "lost ");
    assert!(
        matches!(code.as_str(), "lease_lost" | "closed"),
        "lost with {code}"
    );
}

#[test]
fn the_election_operations_by_hand_on_the_wire() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut watcher = Raw::unix(&served.socket(), true);
    let mut leader = Raw::unix(&served.socket(), true);

    let observed = watcher.ask(r#"{"id":1,"op":"observe","name":"sched"}"#);
    assert_eq!(
        observed,
        serde_json::json!({"id":1,"ok":true,"leader":null})
    );
    let nobody = leader.ask(r#"{"id":1,"op":"leader","name":"sched"}"#);
    assert_eq!(nobody, serde_json::json!({"id":1,"ok":true,"leader":null}));

    let led = leader.ask(r#"{"id":2,"op":"campaign","name":"sched","value":"w-7","ttl_ms":5000}"#);
    assert_eq!(led["granted"], true, "{led}");
    let (lease, fence) = (led["lease"].clone(), led["fence"].clone());
    let now = leader.ask(r#"{"id":3,"op":"leader","name":"sched"}"#);
    assert_eq!(
        now["leader"],
        serde_json::json!({"value":"w-7","fence":fence})
    );
    let event = watcher.next().unwrap();
    assert_eq!(
        event,
        serde_json::json!({"event":"leader","observe":1,"leader":{"value":"w-7","fence":fence}})
    );

    // Bad input: invalid, naming what was wrong; the connection carries on.
    let long = "v".repeat(1025);
    let bad = leader.ask(&format!(
        r#"{{"id":4,"op":"campaign","name":"sched","value":"{long}"}}"#
    ));
    assert_eq!(bad["error"]["code"], "invalid", "{bad}");
    assert!(
        bad["error"]["message"].as_str().unwrap().contains("1025"),
        "{bad}"
    );
    let bad = leader.ask(r#"{"id":5,"op":"observe","name":"no way"}"#);
    assert_eq!(bad["error"]["code"], "invalid", "{bad}");
    assert!(
        bad["error"]["message"].as_str().unwrap().contains("no way"),
        "{bad}"
    );
    let bad = watcher.ask(r#"{"id":1,"op":"campaign","name":"other","value":""}"#);
    assert_eq!(bad["error"]["code"], "invalid", "an id in use: {bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("observe"),
        "{bad}"
    );

    let renewed = leader.ask(&format!(r#"{{"id":6,"op":"renew","lease":{lease}}}"#));
    assert_eq!(renewed["ok"], true, "{renewed}");
    let resigned = leader.ask(&format!(r#"{{"id":7,"op":"resign","lease":{lease}}}"#));
    assert_eq!(resigned["ok"], true, "{resigned}");
    let event = watcher.next().unwrap();
    assert_eq!(
        event,
        serde_json::json!({"event":"leader","observe":1,"leader":null})
    );

    let cancelled = watcher.ask(r#"{"id":8,"op":"cancel","target":1}"#);
    assert_eq!(cancelled["cancelled"], true, "{cancelled}");
    let again = leader.ask(r#"{"id":9,"op":"campaign","name":"sched","value":"w-8"}"#);
    assert_eq!(again["granted"], true, "{again}");
    let pong = watcher.ask(r#"{"id":10,"op":"ping"}"#);
    assert_eq!(
        pong,
        serde_json::json!({"id":10,"ok":true}),
        "no event after the cancel"
    );
}
