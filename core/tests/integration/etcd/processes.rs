//! Separate processes sharing locks through etcd: they exclude each other
//! and their fences rise in the order they held the key; and a process
//! stopped (SIGSTOP) past its TTL loses its lease, so that its late write is
//! refused by a fenced conditional update in a real SQLite file.
//!
//! The children are this test binary run again with `child` and a role in
//! TINYSTORE_ETCD_ROLE.
#![cfg(feature = "etcd")]

use crate::etcd::support::address;
use rusqlite::Connection;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;
use tinystore::Store;

const ROUNDS: usize = 8;

/// Starts this binary as a child playing `role` against `address` and `db`.
fn spawn(role: &str, address: &str, db: &std::path::Path) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            test_name!("child"),
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TINYSTORE_ETCD_ROLE", role)
        .env("TINYSTORE_ETCD_ADDRESS", address)
        .env("TINYSTORE_ETCD_DB", db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

/// What follows `word ` in the next line of the child's that has it.
fn said(out: &mut BufReader<ChildStdout>, word: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child ended before saying {word}"
        );
        // The harness's "test child ... " has no newline: look anywhere.
        if let Some((_, rest)) = line.trim_end().split_once(&format!("{word} ")) {
            return rest.to_string();
        }
    }
}

fn signal(child: &Child, signal: libc::c_int) {
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

fn open_db(path: &std::path::Path) -> Connection {
    let db = Connection::open(path).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    db
}

#[test]
fn processes_exclude_each_other_and_their_fences_rise_in_grant_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let db = open_db(&path);
    db.execute_batch(
        "pragma journal_mode = wal;
         create table state (id integer primary key, holder text not null);
         insert into state values (1, '');
         create table fences (fence text not null, pid text not null);",
    )
    .unwrap();
    let address = address("processes");
    let children: Vec<_> = (0..3).map(|_| spawn("worker", &address, &path)).collect();
    for (mut child, mut out) in children {
        assert_eq!(said(&mut out, "violations"), "0");
        assert!(child.wait().unwrap().success());
    }
    let mut rows = db
        .prepare("select fence, pid from fences order by rowid")
        .unwrap();
    let rows: Vec<(String, String)> = rows
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 3 * ROUNDS);
    assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "{rows:?}");
    let pids: std::collections::BTreeSet<_> = rows.iter().map(|r| &r.1).collect();
    assert_eq!(pids.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_process_loses_its_lease_and_its_late_write_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chat.db");
    let db = open_db(&path);
    db.execute_batch(
        "create table chats (id integer primary key, summary text,
                             summary_fence text not null default '');
         insert into chats (id) values (7);",
    )
    .unwrap();
    let address = address("sigstop");
    let (mut child, mut out) = spawn("holder", &address, &path);
    let late_fence = said(&mut out, "fence");
    signal(&child, libc::SIGSTOP);

    // The child renews no more; its lease runs out and this process gets
    // the key with a larger fence, and writes with it.
    let store = Store::connect(&address).await.unwrap();
    let lease = store
        .locks("summaries")
        .ttl(Duration::from_secs(1))
        .acquire(7)
        .await
        .unwrap();
    let fence = format!("{:040}", lease.fence().get());
    assert!(fence > late_fence);
    let changes = db
        .execute(
            "update chats set summary = ?1, summary_fence = ?2 where id = ?3 and summary_fence < ?2",
            ("fresh summary", &fence, 7),
        )
        .unwrap();
    assert_eq!(changes, 1);
    lease.release().await.unwrap();

    // The child wakes and writes with its old fence: refused.
    signal(&child, libc::SIGCONT);
    writeln!(child.stdin.as_mut().unwrap(), "write").unwrap();
    assert_eq!(said(&mut out, "changes"), "0");
    assert_eq!(said(&mut out, "lost"), "lease_lost");
    assert!(child.wait().unwrap().success());
    let (summary, kept): (String, String) = db
        .query_row(
            "select summary, summary_fence from chats where id = 7",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((summary.as_str(), kept), ("fresh summary", fence));
}

/// A child's role; the tests above start it. Run alone it has nothing to do.
#[test]
#[ignore = "a child process's role, started by the other tests of this file"]
fn child() {
    let address = std::env::var("TINYSTORE_ETCD_ADDRESS").unwrap();
    let db = open_db(std::path::Path::new(
        &std::env::var("TINYSTORE_ETCD_DB").unwrap(),
    ));
    let store = tinystore::blocking::Store::connect(&address).unwrap();
    match std::env::var("TINYSTORE_ETCD_ROLE").unwrap().as_str() {
        "worker" => worker(&store, &db),
        "holder" => holder(&store, &db),
        role => panic!("unknown role {role}"),
    }
}

/// Takes the shared key ROUNDS times; inside, checks in SQLite that nobody
/// else is inside and that its fence is above every fence written before.
fn worker(store: &tinystore::blocking::Store, db: &Connection) {
    let me = std::process::id().to_string();
    let locks = store.locks("shared");
    let mut violations = 0;
    for _ in 0..ROUNDS {
        locks
            .hold("k", |lease| -> Result<(), tinystore::Error> {
                let fence = format!("{:040}", lease.fence().get());
                let sql = "update state set holder = ?1 where id = 1 and holder = ''";
                violations += usize::from(db.execute(sql, [&me]).unwrap() != 1);
                let top: String = db
                    .query_row("select coalesce(max(fence), '') from fences", [], |r| {
                        r.get(0)
                    })
                    .unwrap();
                violations += usize::from(top >= fence);
                let sql = "insert into fences (fence, pid) values (?1, ?2)";
                db.execute(sql, [&fence, &me]).unwrap();
                std::thread::sleep(Duration::from_millis(3));
                let sql = "update state set holder = '' where id = 1 and holder = ?1";
                violations += usize::from(db.execute(sql, [&me]).unwrap() != 1);
                Ok(())
            })
            .unwrap();
    }
    println!("violations {violations}");
}

/// Holds chat 7 with a 1 s TTL, says its fence, waits to be told to write
/// (it is stopped meanwhile), writes with its fence, and says what it saw.
fn holder(store: &tinystore::blocking::Store, db: &Connection) {
    let lease = store
        .locks("summaries")
        .ttl(Duration::from_secs(1))
        .acquire(7)
        .unwrap();
    let fence = format!("{:040}", lease.fence().get());
    println!("fence {fence}");
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    let changes = db
        .execute(
            "update chats set summary = ?1, summary_fence = ?2 where id = ?3 and summary_fence < ?2",
            ("late summary", &fence, 7),
        )
        .unwrap();
    println!("changes {changes}");
    let lost = lease.wait_lost(Duration::from_secs(10));
    println!(
        "lost {}",
        lost.map_or("nothing".into(), |e| e.code().to_string())
    );
}
